/*
 * job_memory.c: where a job's shared records live (docs/pgas.md, "The process backend").
 *
 * On the threads backend every PE is a thread, so the job's records (the world, its PEs,
 * every thread record, the wake-up table) are ordinary calloc'd memory. On the process
 * backend PEs 1..N-1 are processes forked from PE 0's, and what one PE writes to a record
 * another must see. So, before it forks, a process job asks for shared job memory: one
 * MAP_SHARED anonymous mapping, made in the launching process, which every forked PE inherits
 * at the same address. Records are then allocated in it by bumping one atomic counter, so a
 * pointer to a record means the same thing in every PE's process, whichever process made it
 * (a thread record allocated by PE 3's emulated block is read by PE 0's hang report).
 *
 * The mapping has no name (no file in /dev/shm): the kernel frees it when the last process
 * holding it ends, so a job that is killed leaves nothing behind. Records in it are never
 * freed one by one (pgas_job_free ignores them): the job's records live until the job ends
 * anyway, and the mapping goes at once when it does.
 *
 * The same choice applies to the heaps and to the bounds check's maps, which are mmap'd by
 * their owners: pgas_job_map gives them MAP_SHARED while job memory is shared.
 *
 * Layer: a leaf (mmap and the error stream only), below everything that allocates a record.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"
#include "shmemu/internal/futex.h"

_Atomic int shmemu_futex_private_flag = FUTEX_PRIVATE_FLAG;

#define RECORD_ALIGN 64 /* a cache line: records are written by different processes */

typedef struct arena_head {
    _Atomic size_t used; /* bytes handed out, from the mapping's start (this header included) */
    size_t size;
} arena_head;

/* The launching thread sets it before it forks and clears it after every PE has ended; PE
 * processes inherit it. Jobs of one process run one after another. */
static arena_head *arena;

int pgas_job_memory_share(size_t bytes, char *err, size_t err_len)
{
    if (arena != NULL) {
        snprintf(err, err_len, "a process job is running already in this process; start one "
                               "job at a time");
        return -1;
    }
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        snprintf(err, err_len, "cannot map %zu bytes of shared memory for the job's records; "
                               "check `ulimit -v`", bytes);
        return -1;
    }
    arena = m;
    arena->size = bytes;
    atomic_store(&shmemu_futex_private_flag, 0); /* waiter and waker: different processes */
    atomic_init(&arena->used, (sizeof *arena + RECORD_ALIGN - 1) / RECORD_ALIGN * RECORD_ALIGN);
    pgas_checker_ignore(arena, sizeof *arena);
    return 0;
}

void pgas_job_memory_unshare(bool keep)
{
    if (arena == NULL)
        return;
    if (!keep)
        munmap(arena, arena->size);
    arena = NULL;
    atomic_store(&shmemu_futex_private_flag, FUTEX_PRIVATE_FLAG);
}

bool pgas_job_memory_shared(void) { return arena != NULL; }

static bool in_arena(const void *p)
{
    return arena != NULL && (uintptr_t)p >= (uintptr_t)arena &&
           (uintptr_t)p - (uintptr_t)arena < arena->size;
}

void *pgas_job_calloc(size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    size_t bytes = n * size;
    if (arena == NULL)
        return calloc(n == 0 ? 1 : n, size == 0 ? 1 : size);
    if (bytes > arena->size)
        return NULL;
    size_t rounded = (bytes + RECORD_ALIGN - 1) / RECORD_ALIGN * RECORD_ALIGN;
    if (rounded == 0)
        rounded = RECORD_ALIGN;
    size_t at = atomic_fetch_add_explicit(&arena->used, rounded, memory_order_relaxed);
    if (at > arena->size - rounded) {
        fprintf(stderr, "shmemu: the process backend's shared records (%zu MiB) are full: the "
                        "job attached more threads than they hold; set SHMEMU_JOB_RECORDS_MB "
                        "larger\n",
                arena->size >> 20);
        return NULL;
    }
    return (char *)arena + at; /* a fresh anonymous mapping reads as zeros */
}

void *pgas_job_realloc(void *p, size_t old_bytes, size_t new_bytes)
{
    if (arena == NULL)
        return realloc(p, new_bytes == 0 ? 1 : new_bytes);
    char *grown = pgas_job_calloc(1, new_bytes);
    if (grown != NULL && p != NULL)
        memcpy(grown, p, old_bytes < new_bytes ? old_bytes : new_bytes);
    return grown; /* the old record stays until the mapping goes */
}

void pgas_job_free(void *p)
{
    if (!in_arena(p))
        free(p);
}

void *pgas_job_map(size_t bytes)
{
    return mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                (arena != NULL ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS | MAP_NORESERVE, -1,
                0);
}
