/* nbi_flag.c: PE 0 puts 16 values with shmem_long_put_nbi to PE 1, then raises PE 1's flag
 * with an atomic; PE 1 waits for the flag and reads the values. With `quiet` PE 0 calls
 * shmem_quiet between the two (correct); without it nothing orders the values before the
 * flag, and the checking mode (SHMEMU_CHECK_NBI=1) delivers the put late on some seeds, so
 * PE 1 reads stale values (tests/check-process-backend.sh). PE 1 prints "fresh" or "stale".
 * PE 0 then polls its ack word with plain loads, no SHMEM call (a wait or a quiet would give
 * the queued put its chance to arrive while PE 1 reads), so which seeds read stale data
 * depends on the seed alone. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

static long data[16];
static long flag;
static long ack;

int main(int argc, char **argv)
{
    int quiet = argc > 1 && strcmp(argv[1], "quiet") == 0;
    shmem_init();
    int me = shmem_my_pe();
    if (me == 0) {
        long src[16];
        for (int i = 0; i < 16; i++)
            src[i] = 1000 + i;
        shmem_long_put_nbi(data, src, 16, 1);
        if (quiet)
            shmem_quiet();
        shmem_long_atomic_set(&flag, 1, 1);
        while (__atomic_load_n(&ack, __ATOMIC_ACQUIRE) == 0) {
        }
        shmem_quiet(); /* src may be reused after this */
    } else if (me == 1) {
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
        int stale = 0;
        for (int i = 0; i < 16; i++)
            stale |= data[i] != 1000 + i;
        printf("PE 1: %s\n", stale ? "stale" : "fresh");
        shmem_long_atomic_set(&ack, 1, 0);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
