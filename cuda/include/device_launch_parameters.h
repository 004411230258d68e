/* device_launch_parameters.h for shmemu-nvcc: threadIdx and friends (cuda_runtime.h). */
#ifndef SHMEMU_CUDA_DEVICE_LAUNCH_PARAMETERS_H
#define SHMEMU_CUDA_DEVICE_LAUNCH_PARAMETERS_H
#include "cuda_runtime.h"
#endif
