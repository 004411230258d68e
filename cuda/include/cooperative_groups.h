/* cooperative_groups.h for shmemu-nvcc: see shmemu_cuda/cg.h. */
#include "cuda_runtime.h"
#include "shmemu_cuda/cg.h"
