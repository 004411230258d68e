// tests/cudafe/driver/ok.cu: a program bin/shmemu-nvcc must build and run (check-cudafe.sh),
// against the stand-in layer of tests/cudafe/stub/ (cuda_runtime.h is included implicitly,
// as nvcc does) and the real runtime (nvshmem.h, libshmemu).
#include <cstdio>
#include <nvshmem.h>
#include "helper.h"

#define BLOCKS 2
#define THREADS 4

template <class T, int SCALE> __global__ void scale(T *out, T base)
{
    extern __shared__ __attribute__((aligned(16))) unsigned char smem[];
    __shared__ T tile[THREADS];
    T *dyn = reinterpret_cast<T *>(smem);
    dyn[threadIdx.x] = base;
    tile[threadIdx.x] = dyn[threadIdx.x] * SCALE;
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x] + T(threadIdx.x);
}

struct span { int *p; int n; };

__global__ void fill(span s, int *unused)
{
    if (unused == nullptr && threadIdx.x == 0 && blockIdx.x == 0)
        for (int i = 0; i < s.n; i++)
            s.p[i] = helper_value(i);
}

int main()
{
    nvshmem_init();
    float out[BLOCKS * THREADS];
    scale<float, 3><<<BLOCKS, THREADS, THREADS * sizeof(float)>>>(out, 2.0f);
    int v[3];
    fill<<<dim3(1, 1), dim3(THREADS)>>>({v, 3}, NULL);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 0; i < BLOCKS * THREADS; i++)
        bad += out[i] != 6.0f + float(i % THREADS);
    for (int i = 0; i < 3; i++)
        bad += v[i] != c_value(i) + 1;
    bad += shmemu_cudafe_stub_lib() != 42;
    if (nvshmem_my_pe() == 0)
        printf("cudafe-driver: %s on %d PEs\n", bad ? "WRONG" : "ok", nvshmem_n_pes());
    nvshmem_finalize();
    return bad != 0;
}
