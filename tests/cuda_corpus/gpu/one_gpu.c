/*
 * one_gpu.c: an LD_PRELOAD shim for running the .cu corpus with several PEs on one GPU
 * (scripts/gpu-corpus.sh, under NVIDIA MPS).
 *
 * The corpus selects a GPU as NVSHMEM's examples do, cudaSetDevice(mype_node), which on a
 * machine with fewer GPUs than PEs fails with "invalid device ordinal". The programs stay as
 * users write them; instead this shim maps ordinal d to d mod (number of GPUs), so PEs share
 * GPUs round-robin. It needs the program linked against the shared CUDA runtime
 * (nvcc -cudart shared), so that cudaSetDevice is resolved at run time.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*set_device_fn)(int);
typedef int (*device_count_fn)(int *);

int cudaSetDevice(int device)
{
    static set_device_fn real_set;
    static device_count_fn real_count;
    if (real_set == NULL) {
        real_set = (set_device_fn)dlsym(RTLD_NEXT, "cudaSetDevice");
        real_count = (device_count_fn)dlsym(RTLD_NEXT, "cudaGetDeviceCount");
        if (real_set == NULL || real_count == NULL) {
            fprintf(stderr, "one_gpu.c: cudaSetDevice/cudaGetDeviceCount not found: link the "
                            "program with nvcc -cudart shared\n");
            abort();
        }
    }
    int n = 0;
    int rc = real_count(&n);
    if (rc != 0 || n < 1)
        return real_set(device); /* let the runtime report its own error */
    return real_set(device % n);
}
