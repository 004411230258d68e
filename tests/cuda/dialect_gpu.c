/*
 * dialect_gpu.c: runs the one-source kernels of tests/emu_dialect_kernels.c on a GPU and
 * checks them with the same checks as the emulator's test (tests/emu_dialect_host.h).
 * Built with nvcc -x cu (`make gpu-dialect` builds and runs it; plain `make` builds it when
 * nvcc is found). Exit status: 0 all checks passed, 1 a check failed, 2 a CUDA error.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../emu_dialect_kernels.c"

static int failures;

#define DIALECT_CHECK(cond, ...)                                                              \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "dialect_gpu: check failed: ");                                   \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fprintf(stderr, "\n");                                                            \
            failures++;                                                                       \
        }                                                                                     \
    } while (0)
#include "../emu_dialect_host.h"

static void cuda_ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "dialect_gpu: %s: %s\n", what, cudaGetErrorString(e));
        exit(2);
    }
}

/* Runs one kernel of emu_dialect_kernels.c: its buffer laid out and initialized on the host,
 * copied in, the kernel launched (its own launch arguments, then the stream), copied out and
 * checked on the host; prints whether its checks passed. */
#define DIALECT_GPU_RUN(NAME, ...)                                                            \
    do {                                                                                      \
        NAME##_args h, d;                                                                     \
        NAME##_layout(host, &h);                                                              \
        NAME##_init(&h);                                                                      \
        NAME##_layout(dev, &d);                                                               \
        int before = failures;                                                                \
        cuda_ok(cudaMemcpy(dev, host, DIALECT_BUF_BYTES, cudaMemcpyHostToDevice), "copy in"); \
        NAME##_launch(d, __VA_ARGS__, 0);                                                     \
        cuda_ok(cudaGetLastError(), "launch " #NAME "_kernel");                               \
        cuda_ok(cudaDeviceSynchronize(), #NAME "_kernel");                                    \
        cuda_ok(cudaMemcpy(host, dev, DIALECT_BUF_BYTES, cudaMemcpyDeviceToHost), "copy out");\
        NAME##_check(&h);                                                                     \
        printf(#NAME "_kernel: %s\n", failures > before ? "FAILED" : "ok");                   \
    } while (0)

int main(void)
{
    char *host = (char *)malloc(DIALECT_BUF_BYTES);
    char *dev = NULL;
    if (host == NULL) {
        fprintf(stderr, "dialect_gpu: out of host memory\n");
        return 2;
    }
    cuda_ok(cudaMalloc((void **)&dev, DIALECT_BUF_BYTES), "cudaMalloc");

    DIALECT_GPU_RUN(dialect, DIALECT_BLOCKS, DIALECT_THREADS);
    DIALECT_GPU_RUN(dialect_more, DIALECT_MORE_BLOCKS);
    DIALECT_GPU_RUN(dialect_timer, DIALECT_TIMER_BLOCKS, DIALECT_TIMER_THREADS);

    cudaFree(dev);
    free(host);
    printf("%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
