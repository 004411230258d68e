/*
 * common.h: the error-check macros every program of the corpus uses, as NVSHMEM's examples
 * and most CUDA codes spell them, and the line each PE prints when its output is right.
 * Nothing here is shmemu's: the same header builds with the real nvcc and NVSHMEM.
 */
#ifndef CUDA_CORPUS_COMMON_H
#define CUDA_CORPUS_COMMON_H

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#define CUDA_CHECK(stmt)                                                                   \
    do {                                                                                   \
        cudaError_t result = (stmt);                                                       \
        if (cudaSuccess != result) {                                                       \
            fprintf(stderr, "[%s:%d] CUDA failed with %s \n", __FILE__, __LINE__,         \
                    cudaGetErrorString(result));                                           \
            exit(-1);                                                                      \
        }                                                                                  \
    } while (0)

#define NVSHMEM_CHECK(stmt)                                                                \
    do {                                                                                   \
        int result = (stmt);                                                               \
        if (result != 0) {                                                                 \
            fprintf(stderr, "[%s:%d] nvshmem failed with error %d \n", __FILE__, __LINE__, \
                    result);                                                               \
            exit(-1);                                                                      \
        }                                                                                  \
    } while (0)

/* Every PE ends with one of these lines; tests/check-cuda-corpus.sh counts the "ok" ones. */
#define CORPUS_RESULT(name, errors)                                                        \
    do {                                                                                   \
        if ((errors) != 0) {                                                               \
            printf("%s: PE %d FAIL: %d wrong values\n", (name), nvshmem_my_pe(),           \
                   (int)(errors));                                                         \
            fflush(stdout);                                                                \
            nvshmem_global_exit(1);                                                        \
        }                                                                                  \
        printf("%s: PE %d ok\n", (name), nvshmem_my_pe());                                 \
    } while (0)

#endif
