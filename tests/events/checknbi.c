#include <shmem.h>
#include <stdio.h>
int main(void)
{
    static long dst[64];
    long src[64];
    shmem_init();
    int me = shmem_my_pe();
    for (int i = 0; i < 64; i++)
        src[i] = i;
    if (me == 0) {
        shmem_long_put_nbi(dst, src, 64, 1);
        long flag;
        (void)shmem_long_test(&dst[0], SHMEM_CMP_EQ, 99); /* progress: the put goes out */
        (void)flag;
        for (int i = 0; i < 64; i++)
            src[i] = -1; /* rewritten before the quiet */
        shmem_long_put_nbi(dst, src, 64, 1);
        shmem_quiet();
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
