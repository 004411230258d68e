# bench/bench.mk: the benchmarks (included by the top-level Makefile).
#
#   make bench                 build everything below, run bench/run.sh, write bench/RESULTS.md
#   make bench-build           only build the benchmark programs into $(BUILD)/bench/
#   make bench-md              the LJ benchmark beside LAMMPS (bench/md_lammps.sh)
#   make bench-halo-variants   staged (fused) against direct26 on the CPU emulator: messages,
#                              bytes and time per step at 2-8 PEs (bench/halo_variants.sh)
#   make bench-halo-mpi        the CPU-initiated halo through MPI (--halo mpi) against fused,
#                              on the MPI backend at 2, 4 and 8 ranks (bench/halo_mpi.sh)
#   make bench-bounds          the symmetric-object bounds check on the put path, off against on
#                              (bench/bounds_check.sh)
#   make bench-cuda            the emulator's costs for 1024-thread blocks, the same kernels in
#                              the dialect (emu_costs) and as .cu through bin/shmemu-nvcc
#                              (cuda_costs), side by side (bench/cuda_costs.sh)
#   make bench-backends        the PE backends side by side, threads, process (SHMEMU_BACKEND)
#                              and MPI (mpirun; one node and two): put-with-signal ping-pong
#                              and put bandwidth beside the raw floor, MPI and OpenSHMEM; MD
#                              atom-steps/s at 2, 4 and 8 PEs (bench/backends.sh)
#   make bench-cg              the cg app: shmemu-cg's serial solver against PETSc's KSPCG (and
#                              a plain-double CG) on one core, the emulated solvers against
#                              serial at 1, 2, 4 PEs (bench/cg.sh); needs Debian's petsc-dev
#
# The shmemu programs and the raw floor build with $(CC) and the project's $(CFLAGS); the
# Open MPI baselines with its wrapper compilers (mpicc, oshcc) and the same flags, so every
# program is held to -std=c17 -Wall -Wextra -Werror.

MPICC ?= mpicc
OSHCC ?= oshcc

BENCH_DIR := $(BUILD)/bench
BENCH_BIN := $(BENCH_DIR)/pingpong_raw $(BENCH_DIR)/pingpong_shmemu \
             $(BENCH_DIR)/put_bw_shmemu $(BENCH_DIR)/pingpong_mpi $(BENCH_DIR)/pingpong_oshmem \
             $(BENCH_DIR)/emu_costs

.PHONY: bench bench-build bench-md bench-halo-variants bench-halo-mpi bench-cuda bench-bounds bench-backends bench-cg

# The bounds check off against on, side by side (a minute; its own section of
# bench/RESULTS.md).
bench-bounds: $(BENCH_DIR)/pingpong_shmemu $(BENCH_DIR)/put_bw_shmemu
	BUILD=$(BUILD) bench/bounds_check.sh

# The PE backends side by side (several minutes; its own section of bench/RESULTS.md). The
# MPI backend's plugin ($(MPI_PLUGIN), empty without mpicc: the script then says what is
# missing). (md/md.mk, which names $(MD_BIN), is included after this file: the prerequisite
# is spelled out.)
bench-backends: $(BENCH_DIR)/pingpong_raw $(BENCH_DIR)/pingpong_shmemu $(BENCH_DIR)/put_bw_shmemu \
                $(BENCH_DIR)/pingpong_mpi $(BENCH_DIR)/pingpong_oshmem $(PROG_DIR)/shmemu-md $(MPI_PLUGIN)
	BUILD=$(BUILD) MD_BIN=$(MD_BIN) bench/backends.sh

# The cg benchmark (minutes; its own section of bench/RESULTS.md). Not part of `make bench`
# or the default build: it needs PETSc. (cg/cg.mk, which names the cg library and program, is
# included after this file: their paths are spelled out.)
bench-cg: $(BENCH_DIR)/cg_petsc $(PROG_DIR)/shmemu-cg
	BUILD=$(BUILD) CG_BIN=$(PROG_DIR)/shmemu-cg bench/cg.sh

# PETSc through its pkg-config file (Debian 12's petsc-dev installs petsc.pc, found by
# pkg-config through /usr/lib/x86_64-linux-gnu/pkgconfig; its real home is
# /usr/lib/petscdir/petsc3.18/x86_64-linux-gnu-real/lib/pkgconfig). PETSc's headers include
# mpi.h, so the program builds with mpicc; they are -isystem so that our -Werror applies to
# our code only.
PETSC_PC ?= petsc
$(BENCH_DIR)/cg_petsc: bench/cg_petsc.c $(BUILD)/lib/libshmemu_cg.a $(LIB_A)
	@pkg-config --exists $(PETSC_PC) || { echo "bench-cg: PETSc not found (pkg-config $(PETSC_PC)):" \
	    "install Debian's petsc-dev (scripts/ensure-deps.sh bench), or set PKG_CONFIG_PATH to the folder" \
	    "of another petsc.pc" >&2; exit 1; }
	@command -v $(MPICC) >/dev/null || { echo "bench-cg: $(MPICC) not found: install libopenmpi-dev" \
	    "(scripts/ensure-deps.sh bench)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -Icg/include $$(pkg-config --cflags $(PETSC_PC) | sed 's/-I/-isystem /g') \
	    $(LDFLAGS) -MMD -MP -o $@ $< $(BUILD)/lib/libshmemu_cg.a $(LIB_A) \
	    $$(pkg-config --libs $(PETSC_PC)) $(LDLIBS)

# The MD benchmark against LAMMPS (minutes; its own section of bench/RESULTS.md).
bench-md: all
	BUILD=$(BUILD) MD_BIN=$(MD_BIN) bench/md_lammps.sh

# The halo variants side by side (minutes; its own section of bench/RESULTS.md). (As for
# bench-backends, the prerequisite is spelled out: $(MD_BIN) is still empty here.)
bench-halo-variants: $(PROG_DIR)/shmemu-md
	BUILD=$(BUILD) MD_BIN=$(MD_BIN) bench/halo_variants.sh

# --halo mpi against fused on the MPI backend (minutes; its own section of bench/RESULTS.md).
bench-halo-mpi: $(PROG_DIR)/shmemu-md
	BUILD=$(BUILD) MD_BIN=$(MD_BIN) bench/halo_mpi.sh

# The dialect and the .cu path side by side (a minute or two; its own section of
# bench/RESULTS.md). Fails, and writes no table, when any benchmarked kernel computes a
# wrong result.
bench-cuda: $(BENCH_DIR)/emu_costs $(BENCH_DIR)/cuda_costs
	BUILD=$(BUILD) bench/cuda_costs.sh

# Built the way a user builds a .cu program; shmemu-nvcc finds the layer, the rewriter and
# the libraries in $(BUILD) (SHMEMU_BUILD). (cuda/cuda.mk and cuda/cudafe.mk, which name the
# layer's library and the rewriter, are included after this file: their paths are spelled out.)
$(BENCH_DIR)/cuda_costs: bench/cuda_costs.cu bench/bench_common.h bin/shmemu-nvcc \
                         $(wildcard cuda/include/*.h cuda/include/shmemu_cuda/*.h) \
                         $(BUILD)/lib/libshmemu_cuda.a $(PROG_DIR)/shmemu-cudafe $(LIB_A) $(LIB_MAIN)
	@mkdir -p $(dir $@)
	SHMEMU_BUILD=$(BUILD) bin/shmemu-nvcc -O2 -g -Xcompiler -Wall,-Wextra,-Werror -o $@ $<

bench: bench-build
	BENCH_CMD="make BUILD=$(BUILD) bench" BUILD=$(BUILD) bench/run.sh --no-build

bench-build: $(BENCH_BIN)

# emu_costs times the emulator's fiber switch bare, through emu/src/internal.h.
$(BENCH_DIR)/emu_costs.o: CPPFLAGS += -Iemu/src

$(BENCH_DIR)/pingpong_raw: $(BENCH_DIR)/pingpong_raw.o
	$(CC) $(LDFLAGS) -o $@ $< $(LDLIBS)

$(BENCH_DIR)/pingpong_shmemu $(BENCH_DIR)/put_bw_shmemu $(BENCH_DIR)/emu_costs: %: %.o $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB_A) $(LDLIBS)

$(BENCH_DIR)/pingpong_mpi: bench/pingpong_mpi.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(LDFLAGS) -MMD -MP -o $@ $<

$(BENCH_DIR)/pingpong_oshmem: bench/pingpong_oshmem.c
	@mkdir -p $(dir $@)
	$(OSHCC) $(CFLAGS) $(LDFLAGS) -MMD -MP -o $@ $<

-include $(wildcard $(BENCH_DIR)/*.d)
