/*
 * cg/cuda/prelude.h: what the CUDA build of the CG app (cg/cuda.mk) compiles ahead of each cg
 * source that nvcc compiles (par.c, par_host.c, xsum.c, kernels/*.c: the files with device
 * code, kernel launches or NVSHMEM calls), as md/cuda/prelude.h does for md.
 *
 * Those sources are C17; nvcc compiles them as CUDA C++, each inside `extern "C" { }`, so that
 * they link with the other cg objects, which gcc builds as in the CPU build (options, the
 * reader, the plan, the serial solver, main). C++ headers (CUDA's, NVSHMEM's, the kernel
 * dialect's templates) cannot sit inside that block, so this file includes them, and every
 * system header cg uses, first: their include guards keep them out of the block. The
 * generated wrapper of cg/src/foo.c is
 *
 *     #include "cg/cuda/prelude.h"
 *     extern "C" {
 *     #include "<repo>/cg/src/foo.c"
 *     }
 */
#ifndef CG_CUDA_PRELUDE_H
#define CG_CUDA_PRELUDE_H

#ifndef __CUDACC__
#error "cg/cuda/prelude.h is for the CUDA build (nvcc) only"
#endif

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shmemu/kernel.h" /* CUDA, cooperative groups, cuda::atomic_ref, NVSHMEM */
#include "shmemu/pgas.h"   /* shmemu_launch: md/cuda/launch.cu on a GPU */

#endif
