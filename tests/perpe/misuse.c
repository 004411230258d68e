/*
 * misuse.c: symmetric-data mistakes shmemu must report (exit non-zero, with a message that
 * says what is wrong). The argument picks one:
 *   past-end    a put that runs past the end of the program's globals
 *   other-copy  a put to another PE's copy of a global (an address from shmem_ptr)
 *   stack       a put to a stack variable, which is not symmetric
 */
#include <stdio.h>
#include <string.h>
#include <shmem.h>

static long flag;

int main(int argc, char **argv)
{
    static long big[1 << 16];
    shmem_init();
    const char *what = argc > 1 ? argv[1] : "";
    if (shmem_my_pe() == 0) {
        long local = 0;
        if (strcmp(what, "past-end") == 0)
            shmem_long_put(&flag, big, sizeof big / sizeof big[0] + 1000000, 1);
        else if (strcmp(what, "other-copy") == 0)
            shmem_long_p((long *)shmem_ptr(&flag, 1), 1, 1);
        else if (strcmp(what, "stack") == 0)
            shmem_long_p(&local, 1, 1);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
