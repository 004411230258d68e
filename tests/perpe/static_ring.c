/*
 * static_ring.c: OpenSHMEM's symmetric data segment, as programs from other implementations
 * use it. A global array and a static flag are targets of puts and waits; a global holds
 * per-PE state (the PE number, a pointer from shmem_malloc). Built by shmemu-cc, every PE
 * has its own copy of them (docs/pgas.md, "Per-PE data").
 * Prints one line per PE; exits 1 if any value is wrong.
 */
#include <stdint.h>
#include <stdio.h>
#include <shmem.h>

long values[4];       /* symmetric: written by the left neighbour */
static long flag;     /* symmetric: the left neighbour's signal */
static int me_cached; /* per-PE state in a global */
long *heap_buf;       /* per-PE pointer to symmetric heap memory */

int main(void)
{
    shmem_init();
    me_cached = shmem_my_pe();
    int n = shmem_n_pes();
    heap_buf = shmem_malloc(sizeof *heap_buf);
    *heap_buf = 1000 + me_cached;
    shmem_barrier_all();
    int right = (me_cached + 1) % n, left = (me_cached + n - 1) % n;
    long v[4] = {me_cached, 2 * me_cached, 3 * me_cached, 4 * me_cached};
    shmem_long_put(values, v, 4, right);
    shmem_fence();
    shmem_long_atomic_add(&flag, 1, right);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    long from_heap = shmem_long_g(heap_buf, right);
    int ok = me_cached == shmem_my_pe() && from_heap == 1000 + right;
    for (int i = 0; i < 4; i++)
        ok = ok && values[i] == (i + 1) * (long)left;
    printf("PE %d of %d: values from PE %d %s, global address %p\n", me_cached, n, left,
           ok ? "ok" : "WRONG", (void *)&flag);
    shmem_barrier_all();
    shmem_free(heap_buf);
    shmem_finalize();
    return ok ? 0 : 1;
}
