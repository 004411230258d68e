/*
 * prog.c: the "prog.c" that README.md and docs/ compile in their examples
 * (scripts/check-doc-commands.py runs those examples with this file in place).
 * An ordinary NVSHMEM program: each PE puts its number into the next PE's slot with a
 * signal, waits for its own, and checks what arrived. Correct: race checkers stay silent.
 * Options are accepted and echoed, as the docs' `-- --my-args` example passes some.
 */
#include <stdio.h>

#include <nvshmem.h>
#include <nvshmemx.h>

int main(int argc, char **argv)
{
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    long *slot = nvshmem_calloc(1, sizeof *slot);
    uint64_t *sig = nvshmem_calloc(1, sizeof *sig);
    long mine = 100 + me;
    nvshmem_long_put_signal(slot, &mine, 1, sig, 1, NVSHMEM_SIGNAL_SET, (me + 1) % n);
    nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, 1);
    int bad = *slot != 100 + (me + n - 1) % n;
    printf("PE %d of %d got %ld%s (%d extra argument(s))\n", me, n, *slot, bad ? " WRONG" : "",
           argc - 1);
    (void)argv;
    nvshmem_barrier_all();
    nvshmem_free(sig);
    nvshmem_free(slot);
    nvshmem_finalize();
    return bad;
}
