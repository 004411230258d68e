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

int main(void)
{
    char *host = (char *)malloc(DIALECT_BUF_BYTES);
    char *dev = NULL;
    if (host == NULL) {
        fprintf(stderr, "dialect_gpu: out of host memory\n");
        return 2;
    }
    cuda_ok(cudaMalloc((void **)&dev, DIALECT_BUF_BYTES), "cudaMalloc");

    dialect_args ha, da;
    dialect_layout(host, &ha);
    dialect_init(&ha);
    dialect_layout(dev, &da);
    cuda_ok(cudaMemcpy(dev, host, DIALECT_BUF_BYTES, cudaMemcpyHostToDevice), "copy in");
    dialect_launch(da, DIALECT_BLOCKS, DIALECT_THREADS, 0);
    cuda_ok(cudaGetLastError(), "launch dialect_kernel");
    cuda_ok(cudaDeviceSynchronize(), "dialect_kernel");
    cuda_ok(cudaMemcpy(host, dev, DIALECT_BUF_BYTES, cudaMemcpyDeviceToHost), "copy out");
    dialect_check(&ha);
    int first = failures;
    printf("dialect_kernel: %s\n", first ? "FAILED" : "ok");

    dialect_more_args hm, dm;
    dialect_more_layout(host, &hm);
    dialect_more_init(&hm);
    dialect_more_layout(dev, &dm);
    cuda_ok(cudaMemcpy(dev, host, DIALECT_BUF_BYTES, cudaMemcpyHostToDevice), "copy in");
    dialect_more_launch(dm, DIALECT_MORE_BLOCKS, 0);
    cuda_ok(cudaGetLastError(), "launch dialect_more_kernel");
    cuda_ok(cudaDeviceSynchronize(), "dialect_more_kernel");
    cuda_ok(cudaMemcpy(host, dev, DIALECT_BUF_BYTES, cudaMemcpyDeviceToHost), "copy out");
    dialect_more_check(&hm);
    printf("dialect_more_kernel: %s\n", failures > first ? "FAILED" : "ok");

    dialect_timer_args ht, dt;
    dialect_timer_layout(host, &ht);
    dialect_timer_init(&ht);
    dialect_timer_layout(dev, &dt);
    int before = failures;
    cuda_ok(cudaMemcpy(dev, host, DIALECT_BUF_BYTES, cudaMemcpyHostToDevice), "copy in");
    dialect_timer_launch(dt, DIALECT_TIMER_BLOCKS, DIALECT_TIMER_THREADS, 0);
    cuda_ok(cudaGetLastError(), "launch dialect_timer_kernel");
    cuda_ok(cudaDeviceSynchronize(), "dialect_timer_kernel");
    cuda_ok(cudaMemcpy(host, dev, DIALECT_BUF_BYTES, cudaMemcpyDeviceToHost), "copy out");
    dialect_timer_check(&ht);
    printf("dialect_timer_kernel: %s\n", failures > before ? "FAILED" : "ok");

    cudaFree(dev);
    free(host);
    printf("%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
