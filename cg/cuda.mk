# cg/cuda.mk: the CUDA build of the CG app (docs/cg.md, "On a GPU"), included by the top
# Makefile after md/cuda.mk, whose NVCC/NVSHMEM detection (NVSHMEM_HOME, NVSHMEM_FOUND,
# CUDA_MISSING, MPI), flags (NVCC_MD_FLAGS: -fmad=false, IEEE division and square root, no
# flush to zero, -ffp-contract=off on the host side) and launcher it reuses.
#
#   make cuda-cg          $(BUILD)/cuda-cg/shmemu-cg: the CG app for sm_90 with the real
#                         NVSHMEM. The cg sources with device code, kernel launches or NVSHMEM
#                         calls (CG_CUDA_SRC: xsum.c as host and device code, the kernels
#                         cg/src/kernels/*.c, and every cg/src/*.c that includes the dialect or
#                         a kernel header: par.c, par_host.c, ...) compile with nvcc as CUDA
#                         C++ inside extern "C" (cg/cuda/prelude.h); every other cg object is
#                         the CPU build's (gcc). md/cuda/launch.cu starts one process per GPU
#                         (NVSHMEM unique-id bootstrap); launch_mpi.cu runs one PE per rank
#                         under mpirun (where mpicxx is found). No emulator, no libshmemu.
#   make cuda-cg-compile  compiles (no link) the same sources with nvcc against the real NVSHMEM
#                         when found, else against cg/cuda/decl (declarations, not NVSHMEM):
#                         where nvcc is, `make` does this.
#   make gpu-check-cg     on a GPU machine: every solver's iterations and checksum on the GPU
#                         against the CPU emulator's (scripts/gpu-check-cg.sh).
#   make gpu-bench-cg     on a GPU machine: time per iteration of the solvers and of a
#                         cuSPARSE/cuBLAS CG (bench/cg_cusparse.cu) (scripts/gpu-bench-cg.sh).
# Where nvcc or NVSHMEM is missing, these say "NOT RUN: ..." and fail when named on the command
# line (never a silent pass).

CG_CUDA_DIR := $(BUILD)/cuda-cg
CG_CUDA_BIN := $(CG_CUDA_DIR)/shmemu-cg
# Compiled by nvcc (each in extern "C", see cg/cuda/prelude.h): xsum.c, the kernels, and the
# drivers: any cg/src/*.c that includes the kernel dialect, the emulator or a kernel header.
CG_CUDA_SRC := $(sort cg/src/xsum.c $(wildcard cg/src/kernels/*.c) \
                 $(shell grep -lE '^\#include "(shmemu/(emu|kernel)\.h|kernels/)' cg/src/*.c \
                     2>/dev/null))
CG_CUDA_OWN_OBJ := $(CG_CUDA_SRC:%.c=$(CG_CUDA_DIR)/%.o)
# The GPU launcher is md's objects (md/cuda/launch.cu, launch_mpi.cu where mpicxx is), built
# by md/cuda.mk's rules once for both apps.
CG_LAUNCH_OBJ   := $(filter $(CUDA_DIR)/md/cuda/%,$(CUDA_MD_OBJ))
CG_CUDA_OBJ     := $(CG_CUDA_OWN_OBJ) $(CG_LAUNCH_OBJ)
# The CPU build's objects for everything else (they make no emulator call) and the planted-
# bug catalogue (pgas/src/bugs.c: plain C; every plant is off under nvcc).
CG_CUDA_HOST_OBJ := $(filter-out $(CG_CUDA_SRC:%.c=$(BUILD)/%.o),$(CG_OBJ)) $(CG_MAIN_OBJ) \
                    $(BUILD)/pgas/src/bugs.o
CG_CUDA_DEPS := cg/cuda/prelude.h emu/include/shmemu/kernel.h $(wildcard cg/src/*.h) \
                $(wildcard cg/src/kernels/*.h) $(wildcard cg/include/cg/*.h) \
                pgas/include/shmemu/pgas.h pgas/include/shmemu/bugs.h
NVCC_CG_INC := $(NVCC_MD_INC) -Icg/include -Icg/src
# Every cg kernel may run 1024-thread blocks (CG_KERNEL, kernels/slots.h: __launch_bounds__),
# so at most 64 registers per thread; the device functions the kernels call in other files
# (xsum.c's accumulator: -rdc) must fit the same count, or nvlink refuses them ("calls
# function ... with regcount of 93").
NVCC_CG_FLAGS := $(NVCC_MD_FLAGS) -maxrregcount=64
# The CPU emulator's program that gpu-check-cg compares with (a prebuilt one may be named: the
# GPU machines lack valgrind's headers, which the emulator's library needs).
GPU_CHECK_CG_CPU ?= $(CG_BIN)
# The cuSPARSE anchor of gpu-bench-cg: its matrix and right-hand side from cg's own C code.
CG_CUSPARSE_BIN := $(CG_CUDA_DIR)/cg_cusparse
CG_CUSPARSE_HOST_OBJ := $(addprefix $(BUILD)/cg/src/,csr.o mtx.o solve.o util.o xsum.o)

.PHONY: cuda-cg cuda-cg-compile gpu-check-cg gpu-bench-cg
all: cuda-cg cuda-cg-compile

# The wrapper of one cg source: the prelude, then the source inside extern "C".
CG_CUDA_WRAP = printf '\#include "cg/cuda/prelude.h"\nextern "C" {\n\#include "$(ROOT)/$<"\n}\n' > $@

CG_CUDA_DECL_DIR := $(BUILD)/cuda-cg-decl
ifeq ($(NVCC),)
cuda-cg-compile:
	@echo "NOT RUN: nvcc not found (set NVCC=/path/to/nvcc); cg's CUDA sources were not" \
	      "compiled" >&2
	@case "$(MAKECMDGOALS)" in *cuda-cg-compile*) exit 1;; esac
else ifneq ($(NVSHMEM_FOUND),)
cuda-cg-compile: $(CG_CUDA_OBJ)
else
cuda-cg-compile: $(CG_CUDA_OWN_OBJ:$(CG_CUDA_DIR)/%=$(CG_CUDA_DECL_DIR)/%) \
                 $(CG_LAUNCH_OBJ:$(CUDA_DIR)/%=$(CUDA_DECL_DIR)/%)
	@echo "cuda-cg-compile: cg's CUDA sources compiled with nvcc against cg/cuda/decl (NVSHMEM" \
	      "not found: not linked, not run)"
$(CG_CUDA_DECL_DIR)/%.cu: %.c cg/cuda/prelude.h
	@mkdir -p $(dir $@)
	$(CG_CUDA_WRAP)
$(CG_CUDA_DECL_DIR)/%.o: $(CG_CUDA_DECL_DIR)/%.cu $(CG_CUDA_DEPS) $(wildcard cg/cuda/decl/*.h) \
                         $(wildcard md/cuda/decl/*.h)
	$(NVCC) $(NVCC_CG_FLAGS) $(NVCC_CG_INC:-I$(NVSHMEM_INC)=-Icg/cuda/decl) -c $< -o $@
endif

ifeq ($(CUDA_MISSING),)
cuda-cg: $(CG_CUDA_BIN)

$(CG_CUDA_DIR)/%.cu: %.c cg/cuda/prelude.h
	@mkdir -p $(dir $@)
	$(CG_CUDA_WRAP)

$(CG_CUDA_DIR)/%.o: $(CG_CUDA_DIR)/%.cu $(CG_CUDA_DEPS)
	$(NVCC) $(NVCC_CG_FLAGS) $(NVCC_CG_INC) -c $< -o $@

# md/cuda.mk's folder of plain library names (the wheel ships libnvshmem_host.so.N only).
$(CG_CUDA_BIN): $(CG_CUDA_OBJ) $(CG_CUDA_HOST_OBJ) $(CUDA_DIR)/nvshmem-lib/.linked
	$(NVCC) -arch=sm_90 -rdc=true -o $@ $(CG_CUDA_OBJ) $(CG_CUDA_HOST_OBJ) \
	    -L$(CUDA_DIR)/nvshmem-lib -lnvshmem_host -lnvshmem_device \
	    -Xlinker -rpath=$(NVSHMEM_LIB) -L$(CUDA_HOME)/lib64/stubs -lcuda $(CUDA_MPI_LIBS) \
	    $(CG_LDLIBS) -lm -lpthread

# The anchor needs no NVSHMEM, but is built and run with the rest of the GPU benchmark.
$(CG_CUSPARSE_BIN): bench/cg_cusparse.cu $(CG_CUSPARSE_HOST_OBJ) cg/include/cg/matrix.h \
                    cg/include/cg/solve.h cg/include/cg/xsum.h
	$(NVCC) -std=c++17 -arch=sm_90 -O2 $(NVCC_MD_FP) -Werror all-warnings -Icg/include \
	    -o $@ bench/cg_cusparse.cu $(CG_CUSPARSE_HOST_OBJ) -lcusparse -lcublas -lm

gpu-check-cg: $(CG_CUDA_BIN) $(GPU_CHECK_CG_CPU)
	NVSHMEM_LIB=$(NVSHMEM_LIB) scripts/gpu-check-cg.sh $(CG_CUDA_BIN) $(GPU_CHECK_CG_CPU)

gpu-bench-cg: $(CG_CUDA_BIN) $(CG_CUSPARSE_BIN)
	NVSHMEM_LIB=$(NVSHMEM_LIB) scripts/gpu-bench-cg.sh $(CG_CUDA_BIN) $(CG_CUSPARSE_BIN)
else
cuda-cg gpu-check-cg gpu-bench-cg:
	@echo "NOT RUN: $(CUDA_MISSING); the CG app was not built for GPUs$(if $(filter \
	      gpu-check-cg,$@), and not compared with the CPU)$(if $(filter gpu-bench-cg,$@), and \
	      not timed)" >&2
	@case "$(MAKECMDGOALS)" in *cuda-cg*|*gpu-check-cg*|*gpu-bench-cg*) exit 1;; esac
endif
