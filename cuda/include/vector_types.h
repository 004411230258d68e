/* vector_types.h for shmemu-nvcc: CUDA's vector types (shmemu_cuda/vector_types.h). */
#include "cuda_runtime.h"
