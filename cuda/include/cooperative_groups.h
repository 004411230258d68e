/* cooperative_groups.h for shmemu-nvcc: see shmemu_cuda/cg.h. */
#ifndef SHMEMU_CUDA_COOPERATIVE_GROUPS_H
#define SHMEMU_CUDA_COOPERATIVE_GROUPS_H
#include "shmemu_cuda/cg.h"
#endif
