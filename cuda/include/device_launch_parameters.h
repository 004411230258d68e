/* device_launch_parameters.h for shmemu-nvcc: threadIdx and friends (cuda_runtime.h). */
#include "cuda_runtime.h"
