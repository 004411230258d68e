# md/cuda.mk: the CUDA build of the MD app (docs/gpu.md), included by the top Makefile after
# md/md.mk.
#
#   make cuda        $(BUILD)/cuda-md/shmemu-md: the MD app for sm_90 with the real NVSHMEM
#                    (and nvcc-dialect: the emulator test's kernels, Makefile).
#                    The kernels (md/src/kernels/*.c), the per-pair force code (force.c, as
#                    device code too) and the parallel driver (par.c, par_setup.c) compile
#                    with nvcc as CUDA C++ (md/cuda/prelude.h says how); every other md
#                    object is the CPU build's (gcc); md/cuda/launch.cu starts one process
#                    per GPU (NVSHMEM unique-id bootstrap), or, started by mpirun, runs one
#                    PE per rank (md/cuda/launch_mpi.cu, NVSHMEM's MPI bootstrap; built
#                    where mpicxx is found). No emulator, no libshmemu.
#   make cuda-compile  compiles (no link) the same sources with nvcc against the real NVSHMEM
#                    when found, else against md/cuda/decl (declarations of the NVSHMEM calls
#                    md makes, not NVSHMEM): where nvcc is, `make` does this, so a change
#                    that breaks the CUDA build shows without a GPU or NVSHMEM.
#   make gpu-corpus  on a GPU machine: the .cu corpus (tests/cuda_corpus) built with nvcc and
#                    run on 2 and 4 PEs (scripts/gpu-corpus.sh; docs/cuda-corpus.md).
#   make gpu-check   on a GPU machine: the GPU run's checksum at every thermo step against
#                    the CPU emulator's (bin/shmemu-md), for fused and pulse, direct and
#                    put-signal, on 1 GPU and on 2 when there are 2 (scripts/gpu-check.sh).
#
# NVSHMEM: NVSHMEM_HOME (with include/nvshmem.h and lib/), else the nvidia-nvshmem-cu13
# Python wheel found by python3. Where nvcc or NVSHMEM is missing, both targets say
# "NOT RUN: ..." and fail when named on the command line (never a silent pass).
#
# Bits (docs/design.md D3): -fmad=false (no FMA contraction), IEEE division and square root, no
# flush to zero; the host side keeps the CPU build's -ffp-contract=off.

NVSHMEM_HOME ?= $(shell python3 -c 'import nvidia.nvshmem as m; print(list(m.__path__)[0])' \
                  2>/dev/null)
NVSHMEM_INC  := $(NVSHMEM_HOME)/include
NVSHMEM_LIB  := $(NVSHMEM_HOME)/lib
NVSHMEM_HOST_SO := $(firstword $(wildcard $(NVSHMEM_LIB)/libnvshmem_host.so \
                                          $(NVSHMEM_LIB)/libnvshmem_host.so.*))
NVSHMEM_DEV_A   := $(wildcard $(NVSHMEM_LIB)/libnvshmem_device.a)
NVSHMEM_FOUND   := $(and $(NVSHMEM_HOME),$(wildcard $(NVSHMEM_INC)/nvshmem.h),$(NVSHMEM_HOST_SO),$(NVSHMEM_DEV_A))
CUDA_HOME    ?= $(patsubst %/bin/nvcc,%,$(NVCC))

# Not $(BUILD)/cuda: the top Makefile's nvcc-dialect rule owns $(BUILD)/cuda/%.o.
CUDA_DIR     := $(BUILD)/cuda-md
CUDA_MD_BIN  := $(CUDA_DIR)/shmemu-md
# Compiled by nvcc (each in extern "C", see md/cuda/prelude.h):
CUDA_MD_SRC  := md/src/par.c md/src/par_setup.c md/src/par_timing.c md/src/par_host.c \
                md/src/par_fused.c md/src/par_pulse.c md/src/par_direct26.c md/src/par_mpi.c \
                md/src/par_graph.c md/src/par_stats.c md/src/force.c \
                $(wildcard md/src/kernels/*.c)
CUDA_MD_OBJ  := $(CUDA_MD_SRC:%.c=$(CUDA_DIR)/%.o) $(CUDA_DIR)/md/cuda/launch.o
# Started by mpirun, every rank is a PE bootstrapped through MPI (md/cuda/launch_mpi.cu),
# where Open MPI's mpicxx is found: its include and library flags, the ones nvcc takes.
MPICXX       ?= mpicxx
MPI_CXX_PATH := $(shell command -v $(MPICXX) 2>/dev/null)
ifneq ($(MPI_CXX_PATH),)
CUDA_MPI_CFLAGS := -DSHMEMU_WITH_MPI $(filter -I% -D%,$(shell $(MPICXX) --showme:compile 2>/dev/null))
CUDA_MPI_LIBS   := $(filter -L% -l%,$(shell $(MPICXX) --showme:link 2>/dev/null))
CUDA_MD_OBJ     += $(CUDA_DIR)/md/cuda/launch_mpi.o
endif
# --halo mpi (md/src/par_mpi.c) on MPI_COMM_WORLD where MPI is found; else it compiles
# without MPI and refuses the variant. (md/cuda/prelude.h includes <mpi.h> for it.)
$(CUDA_DIR)/md/src/par_mpi.o $(BUILD)/cuda-md-decl/md/src/par_mpi.o: \
    NVCC_MD_FLAGS += $(CUDA_MPI_CFLAGS)
# The CPU build's objects for everything else (they hold no emulator call), and the planted-
# bug catalogue (pgas/src/bugs.c: plain C; main.c lists it; every plant is off under nvcc).
CUDA_HOST_OBJ := $(filter-out $(CUDA_MD_SRC:%.c=$(BUILD)/%.o),$(MD_OBJ)) $(MD_MAIN_OBJ) \
                 $(if $(wildcard pgas/src/bugs.c),$(BUILD)/pgas/src/bugs.o)
# The CPU emulator's program that gpu-check compares with (a prebuilt one may be named:
# the GPU machines lack valgrind's headers, which the emulator's library needs).
GPU_CHECK_CPU ?= $(MD_BIN)
CUDA_MD_DEPS := md/cuda/prelude.h emu/include/shmemu/kernel.h $(wildcard md/src/*.h) \
                $(wildcard md/src/kernels/*.h) $(wildcard md/include/shmemu/*.h) \
                pgas/include/shmemu/pgas.h $(wildcard pgas/include/shmemu/bugs.h)

NVCC_MD_FP    := -fmad=false -prec-div=true -prec-sqrt=true -ftz=false
NVCC_MD_FLAGS := -std=c++17 -arch=sm_90 -rdc=true -O2 $(NVCC_MD_FP) -Werror all-warnings \
                 -Xcompiler -ffp-contract=off -D_GNU_SOURCE -DSHMEMU_WITH_NVSHMEM
# NVSHMEM's include directory first: <nvshmem.h> is the real one, not pgas/include's.
NVCC_MD_INC   := -I$(NVSHMEM_INC) -I. -Ipgas/include -Iemu/include -Imd/include

.PHONY: cuda gpu-check

ifeq ($(NVCC),)
CUDA_MISSING := nvcc not found (set NVCC=/path/to/nvcc)
else ifeq ($(NVSHMEM_FOUND),)
CUDA_MISSING := NVSHMEM not found (set NVSHMEM_HOME to a directory with include/nvshmem.h, \
lib/libnvshmem_host.so* and lib/libnvshmem_device.a, or install the nvidia-nvshmem-cu13 wheel \
for python3)
endif

# `make` builds it where NVSHMEM is found, and compiles it (cuda-compile) wherever nvcc is.
all: cuda cuda-compile

.PHONY: cuda-compile
CUDA_DECL_DIR := $(BUILD)/cuda-md-decl
ifeq ($(NVCC),)
cuda-compile:
	@echo "NOT RUN: nvcc not found (set NVCC=/path/to/nvcc); md's CUDA sources were not" \
	      "compiled" >&2
	@case "$(MAKECMDGOALS)" in *cuda-compile*) exit 1;; esac
else ifneq ($(NVSHMEM_FOUND),)
# With NVSHMEM also the .cu corpus, unchanged, and its broken twins (docs/cuda-corpus.md).
cuda-compile: $(CUDA_MD_OBJ)
	NVCC=$(NVCC) NVSHMEM_HOME=$(NVSHMEM_HOME) scripts/gpu-corpus.sh compile $(BUILD)/cuda-corpus
else
cuda-compile: $(CUDA_MD_OBJ:$(CUDA_DIR)/%=$(CUDA_DECL_DIR)/%)
	@echo "cuda-compile: md's CUDA sources compiled with nvcc against md/cuda/decl (NVSHMEM" \
	      "not found: not linked, not run)"
$(CUDA_DECL_DIR)/%.cu: %.c md/cuda/prelude.h
	@mkdir -p $(dir $@)
	printf '#include "md/cuda/prelude.h"\nextern "C" {\n#include "$(ROOT)/$<"\n}\n' > $@
$(CUDA_DECL_DIR)/%.o: $(CUDA_DECL_DIR)/%.cu $(CUDA_MD_DEPS) $(wildcard md/cuda/decl/*.h)
	$(NVCC) $(NVCC_MD_FLAGS) $(NVCC_MD_INC:-I$(NVSHMEM_INC)=-Imd/cuda/decl) -c $< -o $@
$(CUDA_DECL_DIR)/md/cuda/%.o: md/cuda/%.cu md/cuda/launch.h pgas/include/shmemu/pgas.h \
                                   $(wildcard md/cuda/decl/*.h)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_MD_FLAGS) $(CUDA_MPI_CFLAGS) $(NVCC_MD_INC:-I$(NVSHMEM_INC)=-Imd/cuda/decl) \
	    -c $< -o $@
endif

ifeq ($(CUDA_MISSING),)
cuda: $(CUDA_MD_BIN) nvcc-dialect

# The wrapper of one md source: the prelude, then the source inside extern "C".
$(CUDA_DIR)/%.cu: %.c md/cuda/prelude.h
	@mkdir -p $(dir $@)
	printf '#include "md/cuda/prelude.h"\nextern "C" {\n#include "$(ROOT)/$<"\n}\n' > $@

$(CUDA_DIR)/%.o: $(CUDA_DIR)/%.cu $(CUDA_MD_DEPS)
	$(NVCC) $(NVCC_MD_FLAGS) $(NVCC_MD_INC) -c $< -o $@

$(CUDA_DIR)/md/cuda/%.o: md/cuda/%.cu md/cuda/launch.h pgas/include/shmemu/pgas.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_MD_FLAGS) $(CUDA_MPI_CFLAGS) $(NVCC_MD_INC) -c $< -o $@

# The wheel ships libnvshmem_host.so.N only: link through a folder of plain names.
$(CUDA_DIR)/nvshmem-lib/.linked: $(NVSHMEM_HOST_SO) $(NVSHMEM_DEV_A)
	@mkdir -p $(dir $@)
	ln -sf $(NVSHMEM_HOST_SO) $(dir $@)libnvshmem_host.so
	ln -sf $(NVSHMEM_DEV_A) $(dir $@)libnvshmem_device.a
	touch $@

$(CUDA_MD_BIN): $(CUDA_MD_OBJ) $(CUDA_HOST_OBJ) $(CUDA_DIR)/nvshmem-lib/.linked
	$(NVCC) -arch=sm_90 -rdc=true -o $@ $(CUDA_MD_OBJ) $(CUDA_HOST_OBJ) \
	    -L$(CUDA_DIR)/nvshmem-lib -lnvshmem_host -lnvshmem_device \
	    -Xlinker -rpath=$(NVSHMEM_LIB) -L$(CUDA_HOME)/lib64/stubs -lcuda $(CUDA_MPI_LIBS) -lm \
	    -lpthread

gpu-check: $(CUDA_MD_BIN) $(GPU_CHECK_CPU)
	NVSHMEM_LIB=$(NVSHMEM_LIB) scripts/gpu-check.sh $(CUDA_MD_BIN) $(GPU_CHECK_CPU)

# The .cu corpus on the GPU (2 and 4 PEs, under MPS on one GPU): scripts/gpu-corpus.sh gpu.
# Its outputs, copied into tests/cuda_corpus/gpu/results, are what check-user compares the
# CPU runs with.
GPU_CORPUS_LOG ?= gpu-corpus-logs
.PHONY: gpu-corpus
gpu-corpus:
	NVCC=$(NVCC) NVSHMEM_HOME=$(NVSHMEM_HOME) scripts/gpu-corpus.sh gpu $(GPU_CORPUS_LOG)
else
cuda gpu-check gpu-corpus:
	@echo "NOT RUN: $(CUDA_MISSING); $(if $(filter gpu-corpus,$@),the .cu corpus was not run on \
	      a GPU,the MD app was not built for GPUs$(if $(filter gpu-check,$@), and not compared \
	      with the CPU))" >&2
	@case "$(MAKECMDGOALS)" in *cuda*|*gpu-check*|*gpu-corpus*) exit 1;; esac
endif

