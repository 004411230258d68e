/* cuda_runtime_api.h for shmemu-nvcc: the host API, with the rest of cuda_runtime.h. */
#include "cuda_runtime.h"
