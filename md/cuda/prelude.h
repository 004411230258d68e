/*
 * md/cuda/prelude.h: what the CUDA build (md/cuda.mk) compiles ahead of each md source.
 *
 * The md sources are C17. The CUDA build compiles the ones that hold kernels, device code
 * or the parallel driver (par.c, par_setup.c, force.c, kernels/*.c) as CUDA C++ (nvcc -x cu),
 * each inside `extern "C" { }`, so that they link with the other md objects, which gcc
 * builds as in the CPU build. C++ headers (CUDA's, NVSHMEM's, the kernel dialect's
 * templates) cannot sit inside that block, so this file includes them, and every system
 * header md uses, first: their include guards keep them out of the block. The generated
 * wrapper of md/src/foo.c is
 *
 *     #include "md/cuda/prelude.h"
 *     extern "C" {
 *     #include "<repo>/md/src/foo.c"
 *     }
 */
#ifndef MD_CUDA_PRELUDE_H
#define MD_CUDA_PRELUDE_H

#ifndef __CUDACC__
#error "md/cuda/prelude.h is for the CUDA build (nvcc) only"
#endif

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "shmemu/kernel.h" /* CUDA, cooperative groups, cuda::atomic_ref, NVSHMEM */
#include "shmemu/md.h"
#include "shmemu/pgas.h"   /* shmemu_launch: md/cuda/launch.cu on a GPU */
#ifdef SHMEMU_WITH_MPI     /* par_mpi.c (md/cuda.mk passes it there): C++ headers, and the */
#include <mpi.h>           /* launcher's (C++ linkage, as launch.cu defines it) */
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include "md/cuda/launch.h"
#endif

#endif
