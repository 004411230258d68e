/*
 * emu_flag_race.c: a kernel that publishes data with a flag, in one correct and three
 * wrong ways, for proving that helgrind, DRD and ThreadSanitizer see the emulator's
 * memory orders and scopes (docs/design.md D4):
 *
 *   release   st_release at gpu scope, ld_acquire at gpu scope, same PE  -> no report
 *   relaxed   st_relaxed instead of st_release                            -> race
 *   block     st_release at block scope, read by another block            -> race
 *   gpu       st_release at gpu scope on another PE's flag, read there    -> race (helgrind,
 *             DRD; TSan checks gpu scope as sys scope)
 *
 *   bin/shmemu-cc -g -O1 -o /tmp/emu_flag_race tests/racy/emu_flag_race.c
 *   SHMEMU_NPES=2 valgrind --tool=helgrind /tmp/emu_flag_race relaxed
 * The racing accesses are the lines marked RACY WRITE and RACY READ.
 */
#include <stdio.h>
#include <string.h>

#include "nvshmem.h"
#include "shmemu/emu.h"
#include "shmemu/kernel.h"

typedef struct {
    int *data;      /* symmetric */
    uint32_t *flag; /* symmetric */
    int *seen;
    int mode; /* 0 release, 1 relaxed, 2 block, 3 gpu across PEs */
} race_args;

KERNEL(publish, race_args, a)
{
    if (threadIdx.x != 0)
        return;
    int me = nvshmem_my_pe();
    if (a.mode == 3) {
        if (blockIdx.x != 0)
            return;
        if (me == 0) {
            int *d = (int *)nvshmem_ptr(a.data, 1);
            uint32_t *f = (uint32_t *)nvshmem_ptr(a.flag, 1);
            d[0] = 42; /* RACY WRITE: published at gpu scope only */
            st_release(f, 1u, SCOPE_GPU);
        } else if (me == 1) {
            while (ld_acquire(a.flag, SCOPE_SYS) == 0u) {
            }
            *a.seen = a.data[0]; /* RACY READ */
        }
        return;
    }
    if (blockIdx.x == 1) {
        a.data[0] = 42; /* RACY WRITE (modes relaxed and block) */
        if (a.mode == 1)
            st_relaxed(a.flag, 1u, SCOPE_GPU);
        else
            st_release(a.flag, 1u, a.mode == 2 ? SCOPE_BLOCK : SCOPE_GPU);
    } else {
        while (ld_acquire(a.flag, a.mode == 2 ? SCOPE_BLOCK : SCOPE_GPU) == 0u) {
        }
        *a.seen = a.data[0]; /* RACY READ (modes relaxed and block) */
    }
}

int main(int argc, char **argv)
{
    const char *modes[] = {"release", "relaxed", "block", "gpu"};
    int mode = -1;
    for (int m = 0; m < 4; m++)
        if (argc > 1 && strcmp(argv[1], modes[m]) == 0)
            mode = m;
    if (mode < 0) {
        fprintf(stderr, "usage: %s release|relaxed|block|gpu\n", argv[0]);
        return 2;
    }
    nvshmem_init();
    int *data = nvshmem_calloc(1, sizeof(int));
    uint32_t *flag = nvshmem_calloc(1, sizeof(uint32_t));
    int *seen = NULL;
    cudaMalloc((void **)&seen, sizeof(int));
    nvshmem_barrier_all();
    race_args a = {data, flag, seen, mode};
    LAUNCH(publish, DIM3(2, 1, 1), DIM3(1, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    if (mode != 3 || nvshmem_my_pe() == 1)
        printf("PE %d saw %d\n", nvshmem_my_pe(), *seen);
    nvshmem_barrier_all();
    cudaFree(seen);
    nvshmem_free(data);
    nvshmem_free(flag);
    nvshmem_finalize();
    return 0;
}
