# shmemu: top-level build. `make` builds the libraries and programs; `make help` lists targets.
#
# Layout: pgas/ emu/ md/ each have include/ (public headers) and src/. Every .c under
# pgas/src and emu/src goes into libshmemu (static and shared), except pgas/src/main_wrap.c and
# main_image.c, which are libshmemu_main.a: the main() that bin/shmemu-cc links in to start N
# PE threads (main_image.c: with one copy of the program per PE; main_wrap.c: sharing one).
# pgas/app/*.c are libshmemu_app.a: the wrappers of pthread_create, thrd_create and libgomp's
# parallel regions that bin/shmemu-cc links into the program, so that its threads belong to
# their creator's PE (pgas/src/app_thread.c).
# Every tests/test_*.c is a cmocka suite of its own.
#
# BUILD names the output folder, so sanitizer builds live beside the plain one:
#   make BUILD=build-tsan SANITIZE=thread   (what `make check-tsan` does)

# The source tree, where the Makefile really is (not a folder of links to it, as
# scripts/check-doc-commands.py makes): tests are compiled with absolute paths into it.
ROOT     := $(patsubst %/,%,$(dir $(realpath $(firstword $(MAKEFILE_LIST)))))

CC       ?= gcc
BUILD    ?= build
SANITIZE ?=
PREFIX   ?= /usr/local
DESTDIR  ?=

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
CSTD     := -std=c17 -D_GNU_SOURCE
# -ffp-contract=off: no FMA contraction, so floating-point results match everywhere (docs/design.md
# D3).
OPT      ?= -O2 -g
CFLAGS   += $(CSTD) $(OPT) $(WARN) -fPIC -ffp-contract=off -pthread
CPPFLAGS += -Ipgas/include -Iemu/include -Imd/include
LDLIBS   += -pthread -lm

ifneq ($(SANITIZE),)
CFLAGS  += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS += -fsanitize=$(SANITIZE)
endif

PGAS_SRC  := $(filter-out pgas/src/main_wrap.c pgas/src/main_image.c,$(wildcard pgas/src/*.c))
EMU_SRC   := $(wildcard emu/src/*.c)
LIB_SRC   := $(PGAS_SRC) $(EMU_SRC)
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ  := $(BUILD)/pgas/src/main_wrap.o $(BUILD)/pgas/src/main_image.o
APP_OBJ   := $(patsubst %.c,$(BUILD)/%.o,$(wildcard pgas/app/*.c))

# The MPI backend is a plugin of its own (pgas/mpi/backend_mpi.c, loaded by the runtime when a
# job runs on it), built where Open MPI's mpicc is found: nothing else links MPI. The runtime
# looks for it in this build's lib/ and in the install's. MPI_CFLAGS and MPI_LIBS are also
# what programs beside it that speak MPI (md's --halo mpi) compile and link with.
MPICC     ?= mpicc
ifneq ($(shell command -v $(MPICC) 2>/dev/null),)
MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell $(MPICC) --showme:link 2>/dev/null)
endif
MPI_PLUGIN := $(if $(MPI_LIBS),$(BUILD)/lib/libshmemu_mpi.so)
$(BUILD)/pgas/src/backend_mpi_load.o: CPPFLAGS += \
    -DSHMEMU_PLUGIN_DIRS='"$(ROOT)/$(BUILD)/lib:$(PREFIX)/lib"'

LIB_A     := $(BUILD)/lib/libshmemu.a
LIB_SO    := $(BUILD)/lib/libshmemu.so
LIB_MAIN  := $(BUILD)/lib/libshmemu_main.a
LIB_APP   := $(BUILD)/lib/libshmemu_app.a

TEST_SRC  := $(wildcard tests/test_*.c)
TEST_BIN  := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_HELP := $(wildcard tests/support/*.c)
TEST_HOBJ := $(TEST_HELP:%.c=$(BUILD)/%.o)

# Programs linked the way a user's program is: its main() runs as N PE threads. The plain
# build puts them in bin/, sanitizer builds in their own folder.
PROG_DIR  := $(if $(filter build,$(BUILD)),bin,$(BUILD)/bin)
DEMO_BIN  := $(PROG_DIR)/shmemu-demo

.PHONY: all libs test run run-demo help clean install check-asan check-tsan check-helgrind check-drd \
        check-tools check nvcc-dialect

all: libs $(DEMO_BIN) nvcc-dialect

libs: $(LIB_A) $(LIB_SO) $(LIB_MAIN) $(LIB_APP) $(MPI_PLUGIN)

# Without the sanitizer flags: the plugin links nothing of the runtime (-z defs), and a
# sanitizer's runtime would be one more thing it needs from the program.
$(BUILD)/lib/libshmemu_mpi.so: pgas/mpi/backend_mpi.c pgas/src/backend.h pgas/src/internal.h \
                               pgas/src/backend_threads.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(OPT) $(WARN) -fPIC -pthread $(CPPFLAGS) $(MPI_CFLAGS) -shared \
	    -Wl,-z,defs -o $@ $< $(MPI_LIBS) -pthread

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIB_A): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIB_SO): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(LIB_MAIN): $(MAIN_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIB_APP): $(APP_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# --wrap=main: the C runtime's call to main() reaches shmemu's __wrap_main, which starts the
# PE threads and calls the program's own main (__real_main) on each.
WRAP_MAIN := -Wl,--wrap=main $(LIB_MAIN)

$(DEMO_BIN): $(BUILD)/pgas/demo/ring.o $(LIB_A) $(LIB_MAIN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(WRAP_MAIN) $(LIB_A) $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_HOBJ) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(TEST_HOBJ) $(LIB_A) -lcmocka $(LDLIBS)

# The one-source rule (docs/design.md D1): the dialect's test kernels also compile as CUDA. No GPU
# is needed to compile. NVCC is nvcc on PATH, else CUDA's default place; without nvcc the
# check is reported as not run (and `make nvcc-dialect` fails), never passed silently.
NVCC       ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
NVCC_FLAGS := -x cu -std=c++17 -arch=sm_90 -Werror all-warnings
NVCC_SRC   := tests/emu_dialect_kernels.c
NVCC_OBJ   := $(NVCC_SRC:%.c=$(BUILD)/cuda/%.o)
# The same kernels with a host driver that checks them on a GPU (tests/emu_dialect_host.h).
GPU_DIALECT := $(BUILD)/cuda/dialect_gpu

.PHONY: gpu-dialect
ifneq ($(NVCC),)
nvcc-dialect: $(NVCC_OBJ) $(GPU_DIALECT)
$(BUILD)/cuda/%.o: %.c emu/include/shmemu/kernel.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) $(CPPFLAGS) -c $< -o $@
$(GPU_DIALECT): tests/cuda/dialect_gpu.c tests/emu_dialect_kernels.c tests/emu_dialect_host.h \
                emu/include/shmemu/kernel.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) $(CPPFLAGS) -o $@ $<
# On a machine with a GPU: run the dialect's kernels there and check every result.
gpu-dialect: $(GPU_DIALECT)
	$(GPU_DIALECT)
else
nvcc-dialect:
	@echo "NOT RUN: nvcc not found (set NVCC=/path/to/nvcc); the dialect's kernels were not" \
	      "compiled as CUDA" >&2
	@case "$(MAKECMDGOALS)" in *nvcc-dialect*) exit 1;; esac
endif

# The main job (README, scripts/run-main.sh): only what it runs is built, not `make all`.
# (md/md.mk, which names $(MD_BIN), is included below: the prerequisite is spelled out.)
MAIN_JOB := --cells 20 --pes 8 --halo fused --steps 200
run: $(PROG_DIR)/shmemu-md
	$(MD_BIN) $(MAIN_JOB)

# The ring demo of pgas/demo/ring.c on 8 PEs.
run-demo: $(DEMO_BIN)
	bin/shmemu-run -n 8 $(DEMO_BIN)

# The cmocka suites, each at the PE counts it names (1, 2, 3 and 8).
# The weak-memory mode's suites (docs/sched.md, "Weak memory"): the mode rewrites the
# program's memory from the thread that hands the turn over, so it refuses valgrind and
# ThreadSanitizer (the checkers would report the mode's own writes as races); these suites
# run natively and under ASan+UBSan.
WEAK_TEST_BIN := $(BUILD)/tests/test_weak_litmus $(BUILD)/tests/test_weak_md
TEST_RUN_BIN  := $(if $(filter thread,$(SANITIZE)),$(filter-out $(WEAK_TEST_BIN),$(TEST_BIN)),$(TEST_BIN))

test: libs $(TEST_BIN)
	@python3 scripts/check-layers.py $(BUILD)
	@scripts/run-suites.sh "" $(TEST_RUN_BIN)

-include tests/tests.mk
-include bench/bench.mk
-include pgas/sched.mk
-include tests/races.mk
-include md/md.mk
-include cg/cg.mk
-include viewer/view.mk
-include md/cuda.mk
-include cg/cuda.mk
-include fuzz/fuzz.mk
-include cuda/cuda.mk
-include cuda/cudafe.mk
-include course/course.mk
-include course/exercises/lab.mk
-include course/figures.mk

# Keep test objects between builds (they are intermediates of pattern rules).
.SECONDARY:

check-asan:
	$(MAKE) BUILD=build-asan SANITIZE=address,undefined CC=clang test

check-tsan:
	$(MAKE) BUILD=build-tsan SANITIZE=thread CC=clang test

# The OpenSHMEM API suites run natively, under ASan and under TSan in the default suite; their
# helgrind and DRD runs (70 s on 2 cores) are `make check-valgrind-openshmem`, which
# keeps the README's test command inside its CI time (docs/checking.md, "Cost").
VALGRIND_LATER := $(addprefix $(BUILD)/tests/,test_shmem_ctx test_shmem_coll15 test_shmem_fixes \
                    test_shmem_deprecated test_shmem_types test_shmemx test_shmem_threads)
VALGRIND_BIN   := $(filter-out $(VALGRIND_LATER) $(WEAK_TEST_BIN),$(TEST_BIN))

check-helgrind: libs $(TEST_BIN)
	@scripts/run-suites.sh helgrind $(VALGRIND_BIN)

# The applications' suites (md, cg, and the scheduler on md) run under helgrind in the
# default suite and under DRD in their own target, `make check-drd-apps` (docs/checking.md,
# "Cost"): DRD is the slowest tool by far on them (about 400 CPU s of the stage's 730), and
# the runtime they are built on is checked by DRD through the pgas, emu and cuda suites.
DRD_LATER := $(MD_TEST_BIN) $(CG_TEST_BIN) $(BUILD)/tests/test_sched_md
DRD_BIN   := $(filter-out $(DRD_LATER),$(VALGRIND_BIN))

check-drd: libs $(TEST_BIN)
	@scripts/run-suites.sh drd $(DRD_BIN)

.PHONY: check-drd-apps
check-drd-apps: libs $(DRD_LATER)
	@scripts/run-suites.sh drd $(DRD_LATER)

.PHONY: check-valgrind-openshmem
check-valgrind-openshmem: libs $(VALGRIND_LATER)
	@scripts/run-suites.sh helgrind $(VALGRIND_LATER)
	@scripts/run-suites.sh drd $(VALGRIND_LATER)

# The process backend (docs/pgas.md, "The process backend"): the suites that start jobs of
# several PEs and whose PE bodies report through tests/support/pe_check (whose failure table
# is shared memory) run again with SHMEMU_BACKEND=process, then tests/check-process-backend.sh
# (programs built with shmemu-cc, the MD app against the threads backend, kill tests). The
# suites left out, and why, are listed in docs/pgas.md.
PROCESS_SUITES := test_amo test_backend test_coll test_heap test_rma test_signal test_team \
                  test_shmem test_shmem_deprecated test_shmem_fixes test_shmem_types test_shmemx \
                  test_misuse test_strict_device test_hang test_env test_emu_launch \
                  test_cuda_launch test_md_par test_md_direct26 test_md_io test_md_dd test_md_bugs
PROCESS_BIN    := $(addprefix $(BUILD)/tests/,$(PROCESS_SUITES))

.PHONY: test-process
test-process: libs $(PROCESS_BIN) $(MD_BIN)
	@SHMEMU_BACKEND=process scripts/run-suites.sh "" $(PROCESS_BIN)
	@BUILD=$(BUILD) tests/check-process-backend.sh

# The MPI backend (docs/pgas.md, "The MPI backend"): the cmocka suites whose PE bodies check
# inside the PEs run again with every PE an MPI rank (mpirun -np 4: jobs of 1-3 PEs), then
# tests/check-mpi-backend.sh (OpenSHMEM programs across simulated nodes, the MD app against
# the threads backend, the checking mode, a killed rank, misuse) and check-halo-mpi. A stage of
# the README's test command; docs/pgas.md says which suites are left out and why.
MPI_SUITES := test_rma test_signal test_coll test_shmem_types test_backend test_emu_launch \
              test_md_dd
MPI_BIN    := $(addprefix $(BUILD)/tests/,$(MPI_SUITES))

.PHONY: test-mpi
test-mpi: libs $(MPI_BIN) $(MD_BIN)
	@OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 SUITE_JOBS=1 \
	    SUITE_RUNNER="mpirun --oversubscribe --mca btl self,vader -np 4" \
	    scripts/run-suites.sh "" $(MPI_BIN)
	@BUILD=$(BUILD) tests/check-mpi-backend.sh
	@$(MAKE) --no-print-directory BUILD=$(BUILD) check-halo-mpi

# Everything the README's test command runs.
check: test test-process check-asan check-tsan check-helgrind check-drd check-tools

check-tools:
	@scripts/check-tools.sh

# Every command README.md and docs/ show runs (or, for GPU and long ones, exists and parses):
# scripts/check-doc-commands.py says which is which. Needs the programs of `make all`.
.PHONY: check-docs test-under-load
check-docs: all
	@python3 scripts/check-doc-commands.py

# A user's view (needs `make all` and, for the installed TSan runtime, build-tsan): shmemu-run's
# oshrun/mpirun habits, per-PE globals, threads a PE creates (pthread, C11, OpenMP), the
# public-suite runner (scripts/openshmem-suite.sh) on a miniature suite of our own, the .cu corpus through shmemu-nvcc, race summaries naming both accesses and the PE/block/thread under
# helgrind, DRD and TSan, and an installed shmemu used from outside the tree.
.PHONY: check-user
check-user: all
	@tests/check-run-scripts.sh
	@tests/check-per-pe-data.sh
	@BUILD=$(BUILD) BUILD_TSAN=$(INSTALL_TSAN_BUILD) tests/check-app-threads.sh
	@BUILD=$(BUILD) tests/check-openshmem-suite.sh
	@$(MAKE) -s BUILD=$(INSTALL_TSAN_BUILD) SANITIZE=thread CC=clang libs $(INSTALL_TSAN_BUILD)/bin/shmemu-cudafe
	@BUILD=$(BUILD) BUILD_TSAN=$(INSTALL_TSAN_BUILD) tests/check-cuda-corpus.sh
	@tests/check-race-names.sh
	@tests/check-install.sh

# Every planted bug (shmemu-md --list-bugs, and shmemu-cg's cg- bugs) under its cheapest
# detecting checker, and correct code clean under each checker used: the fast subset of `make detection-matrix`
# (scripts/detection-fast.sh, docs/detection-matrix.md; under a minute on 2 cores). Its
# TSan shmemu-md is built in check-tsan's folder.
PLANTS_TSAN_BUILD := $(if $(filter build,$(BUILD)),build-tsan,$(BUILD)-tsan)
.PHONY: check-plants
check-plants: $(MD_BIN) $(PROG_DIR)/shmemu-cg
	$(MAKE) BUILD=$(PLANTS_TSAN_BUILD) SANITIZE=thread CC=clang $(PLANTS_TSAN_BUILD)/bin/shmemu-md
	@scripts/detection-fast.sh $(MD_BIN) $(PLANTS_TSAN_BUILD)/bin/shmemu-md $(PROG_DIR)/shmemu-cg

# A public OpenSHMEM test suite (Sandia OpenSHMEM's test/ folders) built with bin/shmemu-cc
# and run with bin/shmemu-run, as an outside user would: pass/fail per folder
# (scripts/openshmem-suite.sh, docs/openshmem.md "Public test suite"). Not part of `make check`:
# the suite's sources are not in this repository. OSS_SUITE is the unpacked test/ folder.
OSS_SUITE ?= /work/oss/SOS/test
.PHONY: openshmem-suite
openshmem-suite: libs
	@BUILD=$(BUILD) scripts/openshmem-suite.sh $(OSS_SUITE)

# The native suites, again and again, beside busy loops and a valgrind run (minutes):
# finds tests that assume a quiet machine. LOAD_RUNS runs, LOAD_BUSY busy loops.
LOAD_RUNS ?= 5
LOAD_BUSY ?= 3
test-under-load:
	@scripts/test-under-load.sh $(LOAD_RUNS) $(LOAD_BUSY)

# Installed use (docs/pgas.md): pkg-config modules shmemu (the runtime, with an rpath) and
# shmemu-main (plus the main() that runs once per PE); the programs; and, where clang is
# found, the runtime built with ThreadSanitizer in lib/shmemu/tsan, for shmemu-cc
# -fsanitize=thread and shmemu-check's TSan run. tests/check-install.sh checks all of it.
# Every header goes under include/shmemu/ (nvshmem.h, nvshmemx.h, shmem.h there, the
# shmemu/*.h one level down), nothing directly in include/, where nvshmem.h and shmem.h would
# shadow a real NVSHMEM or OpenSHMEM: programs compile with -I$(PREFIX)/include/shmemu, which
# shmemu-cc and the pkg-config modules add. shmemu/internal/ (pgas<->emu) is not installed.
INSTALL_TSAN_BUILD := $(if $(filter build,$(BUILD)),build-tsan,$(BUILD)-tsan)
INSTALL_CLANG      := $(shell command -v clang 2>/dev/null)
install: libs $(MD_BIN) $(EXPLORE_BIN)
	install -d $(DESTDIR)$(PREFIX)/include/shmemu/shmemu $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	           $(DESTDIR)$(PREFIX)/bin
	install -m 644 pgas/include/nvshmem.h pgas/include/nvshmemx.h pgas/include/shmem.h pgas/include/shmemx.h \
	           $(DESTDIR)$(PREFIX)/include/shmemu/
	install -m 644 pgas/include/shmemu/*.h emu/include/shmemu/*.h \
	           $(DESTDIR)$(PREFIX)/include/shmemu/shmemu/
	install -m 644 $(LIB_A) $(LIB_MAIN) $(LIB_APP) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB_SO) $(MPI_PLUGIN) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 bin/shmemu-run bin/shmemu-cc bin/shmemu-check $(MD_BIN) $(EXPLORE_BIN) \
	           $(DESTDIR)$(PREFIX)/bin/
	for m in shmemu shmemu-main; do \
	    sed -e 's|@PREFIX@|$(PREFIX)|g' pgas/$$m.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/$$m.pc; \
	done
ifneq ($(INSTALL_CLANG),)
	$(MAKE) BUILD=$(INSTALL_TSAN_BUILD) SANITIZE=thread CC=clang libs
	install -d $(DESTDIR)$(PREFIX)/lib/shmemu/tsan
	install -m 644 $(INSTALL_TSAN_BUILD)/lib/libshmemu.a $(INSTALL_TSAN_BUILD)/lib/libshmemu_main.a \
	           $(INSTALL_TSAN_BUILD)/lib/libshmemu_app.a $(DESTDIR)$(PREFIX)/lib/shmemu/tsan/
else
	@echo "make install: clang not found: no ThreadSanitizer runtime installed (shmemu-check" \
	      "will run helgrind and DRD only)" >&2
endif

clean:
	rm -rf build build-asan build-tsan $(DEMO_BIN)

help:
	@echo "make                 libraries (build/lib) and programs (bin/)"
	@echo "make run             the main job (builds bin/shmemu-md only)"
	@echo "make run-demo        the ring demo on 8 PEs"
	@echo "make test            cmocka suites"
	@echo "make nvcc-dialect    compile the kernel dialect's test kernels with nvcc (part of make)"
	@echo "make gpu-dialect     run those kernels on a GPU and check their results"
	@echo "make cuda            the MD app for GPUs with NVSHMEM (docs/gpu.md)"
	@echo "make cuda-compile    compile the MD app's CUDA sources with nvcc (part of make)"
	@echo "make gpu-check       GPU run vs CPU emulator, every thermo checksum (GPU machine)"
	@echo "make cuda-cg         the CG app for GPUs with NVSHMEM (docs/cg.md, On a GPU)"
	@echo "make cuda-cg-compile compile the CG app's CUDA sources with nvcc (part of make)"
	@echo "make gpu-check-cg    GPU runs of every CG solver vs the CPU emulator (GPU machine)"
	@echo "make gpu-bench-cg    GPU time per CG iteration, and a cuSPARSE CG (GPU machine)"
	@echo "make check-asan      suites under ASan+UBSan (clang)"
	@echo "make check-tsan      suites under ThreadSanitizer (clang)"
	@echo "make check-helgrind  suites under valgrind --tool=helgrind"
	@echo "make check-drd       suites under valgrind --tool=drd (the runtime's; apps: check-drd-apps)"
	@echo "make check-tools     racy program must be reported by helgrind, DRD and TSan"
	@echo "make check-user      shmemu-run habits, race summaries, installed use (outside the tree)"
	@echo "make check-docs      every command in README.md and docs/ runs (or, GPU/long: parses)"
	@echo "make test-under-load the native suites beside CPU load, LOAD_RUNS times (minutes)"
	@echo "make check           all of the above (the README's test command)"
	@echo "make check-races     MD halo variants, cg solvers, pgas and emu suites under helgrind, DRD, TSan"
	@echo "                     over 2-8 PEs, 1D-3D, pulse/fused, direct/signal (minutes)"
	@echo "make detection-matrix  every planted bug under every checker: docs/detection-matrix.md"
	@echo "make check-plants    every planted bug under its cheapest detecting checker (< 1 min)"
	@echo "make openshmem-suite OSS_SUITE=DIR  Sandia OpenSHMEM's tests (DIR: its test/ folder)"
	@echo "                     via shmemu-cc/shmemu-run: pass/fail per folder (docs/openshmem.md)"
	@echo "make bench           benchmarks; results in bench/RESULTS.md"
	@echo "make bench-races     each race checker's slowdown and memory (bench/RESULTS.md)"
	@echo "make bench-halo-variants  staged against direct26: messages, bytes, time (bench/RESULTS.md)"
	@echo "make bench-cuda      1024-thread blocks: launch, barrier, shuffle, stacks, a 4-PE job; dialect vs .cu"
	@echo "make bench-bounds    the symmetric-object bounds check on the put path, off against on (bench/RESULTS.md)"
	@echo "make bench-backends  threads against process backend: ping-pong, put bandwidth, MD (bench/RESULTS.md)"
	@echo "make bench-cg        cg: serial against PETSc KSPCG, emulated solvers against serial (needs petsc-dev)"
	@echo "make check-valgrind-openshmem  helgrind and DRD on the OpenSHMEM API suites (minutes; not in the test command)"
	@echo "make check-drd-apps  DRD on the md, cg and scheduler-on-md suites (minutes; not in the test command)"
	@echo "make fuzz-replay     every fuzz harness over its corpus (docs/fuzzing.md)"
	@echo "make fuzz FUZZ_SECONDS=N  fuzz every parser N CPU seconds each (default 60)"
	@echo "make install PREFIX=... DESTDIR=..."

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(TEST_BIN:=.d) $(TEST_HOBJ:.o=.d)
