/* shmemu-lab: fused-halo
 * A reduced fused halo kernel in the style of md/src/kernels/halo_fused_x.c: a ring of PEs,
 * two pulses in one kernel (gridDim.y = pulse), two blocks per pulse (gridDim.x).
 *
 *   pulse 0 sends our last 2 home values to the next PE: they land in its halo0[0..1];
 *   pulse 1 sends our last home value and the 2 values pulse 0 brought us (forwarding):
 *           they land in the next PE's halo1[0..2].
 *
 * Block (b, p): packs its share of pulse p's entries into the staging buffer stage[p];
 * a forwarded (dependent) entry can be packed only after pulse 0's data from the previous PE
 * is here; then the blocks of the pulse elect the last one to finish (a counter), which
 * sends the staged entries with put-with-signal. Block 0 of each pulse finally waits for
 * that pulse's incoming data, so that the kernel's end means the whole halo is here.
 */
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#define N 8       /* home values per PE */
#define PULSES 2
#define MAXSEND 3 /* entries a pulse sends */

struct halo {
    int x[N];                      /* home values */
    int halo0[MAXSEND];            /* pulse 0 lands here (symmetric) */
    int halo1[MAXSEND];            /* pulse 1 lands here */
    int stage[PULSES][MAXSEND];    /* what each pulse sends */
    uint64_t sig[PULSES];          /* incoming pulse p is here when sig[p] >= seq */
    unsigned int done[PULSES];     /* blocks of pulse p that finished packing */
};

/* entry e of pulse p: a home value, or (pulse 1, e >= 1) a value pulse 0 brought */
__device__ static int entry(const struct halo *h, int p, int e)
{
    if (p == 0)
        return h->x[N - 2 + e];
    return e == 0 ? h->x[N - 1] : h->halo0[e - 1];
}

__global__ void fused_halo(struct halo *h, uint64_t seq)
{
    const int p = blockIdx.y, b = blockIdx.x, nb = gridDim.x;
    const int send = p == 0 ? 2 : 3;
    const int next = (nvshmem_my_pe() + 1) % nvshmem_n_pes();
    int *dest = p == 0 ? h->halo0 : h->halo1;

    for (int e = b + nb * (int)threadIdx.x; e < send; e += nb * (int)blockDim.x)
        h->stage[p][e] = entry(h, p, e);
    __syncthreads();

    if (threadIdx.x == 0) {
        __threadfence(); /* this block's packing before its count */
        if (atomicAdd(&h->done[p], 1u) == (unsigned int)nb - 1) {
            __threadfence(); /* every block's packing before the send */
            nvshmem_int_put_signal(dest, h->stage[p], send, &h->sig[p], seq, NVSHMEM_SIGNAL_SET,
                                   next);
            nvshmem_quiet();
        }
        if (b == 0)
            nvshmem_signal_wait_until(&h->sig[p], NVSHMEM_CMP_GE, seq);
    }
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    struct halo *h = (struct halo *)nvshmem_calloc(1, sizeof(struct halo));
    struct halo host = {};
    for (int i = 0; i < N; i++)
        host.x[i] = 100 * mype + i;
    cudaMemcpy(h, &host, sizeof(host), cudaMemcpyHostToDevice);
    nvshmem_barrier_all(); /* every PE's signals are 0 before any pulse is sent */

    fused_halo<<<dim3(2, PULSES), 32>>>(h, 1);
    cudaDeviceSynchronize();
    cudaMemcpy(&host, h, sizeof(host), cudaMemcpyDeviceToHost);
    printf("PE %d: halo0 %d %d halo1 %d %d %d\n", mype, host.halo0[0], host.halo0[1],
           host.halo1[0], host.halo1[1], host.halo1[2]);

    nvshmem_barrier_all(); /* nobody frees what another PE still writes */
    nvshmem_free(h);
    nvshmem_finalize();
    (void)npes;
    return 0;
}
