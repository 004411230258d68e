/*
 * backend_threads.c: the threads backend: every PE is a thread of one process.
 *
 * Layout: one anonymous mapping holds every PE's heap back to back, PE p's at
 * region + p * heap_size, so a symmetric address becomes another PE's copy by one
 * subtraction and one addition, and every heap is reachable by every thread (ptr never
 * returns NULL). Copies are memmove, or one atomic exchange for a naturally aligned word.
 * Wake-ups are park.c's futex buckets; the barrier is a counter and a generation in the
 * team's pgas_barrier.
 *
 * This file, backend_threads.h (its translation and copies, inline so that backend.h's
 * dispatch costs the default backend no call) and park.c are the only ones that know the
 * layout (docs/design.md D10). The process backend (backend_process.c) keeps the same
 * layout in memory its forked PEs share, and so reuses every operation here: the mappings
 * come from pgas_job_map and the state from pgas_job_calloc, which are shared while a
 * process job runs. The backend is built on park.c's waits and wake-ups, so it
 * sits above them; the files below reach it only through world->backend (backend.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "backend.h"
#include "backend_threads.h"
#include "nvshmem.h"

/* total bytes and `slack` more, reserved but not committed (MAP_NORESERVE). */
static char *map_with_slack(size_t total, size_t slack)
{
    if (total > SIZE_MAX - slack)
        return MAP_FAILED;
    return pgas_job_map(total + slack); /* shared with the PE processes of a process job */
}

int pgas_threads_heap_map(pgas_world *w, char *err, size_t err_len)
{
    size_t total = w->heap_size * (size_t)w->n_pes;
    if (w->heap_size != 0 && total / w->heap_size != (size_t)w->n_pes) {
        snprintf(err, err_len, "NVSHMEM_SYMMETRIC_SIZE=%zu times %d PEs overflows; choose a "
                               "smaller heap", w->heap_size, w->n_pes);
        return -1;
    }
    pgas_threads_state *s = pgas_job_calloc(1, sizeof *s);
    /* Over-map by one alignment unit, then trim to an aligned start. The unit is the largest
     * power of two dividing heap_size, so that every PE's heap starts that aligned and
     * nvshmem_align can give any alignment up to it at one offset on every PE; where the
     * address space cannot take that much extra, PGAS_HEAP_ALIGN. */
    size_t align = w->heap_size & (~w->heap_size + 1);
    if (align < PGAS_HEAP_ALIGN)
        align = PGAS_HEAP_ALIGN;
    char *raw = s == NULL ? MAP_FAILED : map_with_slack(total, align);
    if (raw == MAP_FAILED && s != NULL && align > PGAS_HEAP_ALIGN) {
        align = PGAS_HEAP_ALIGN;
        raw = map_with_slack(total, align);
    }
    if (raw == MAP_FAILED) {
        pgas_job_free(s);
        snprintf(err, err_len, "cannot map a symmetric heap of %zu bytes for %d PEs; set "
                               "NVSHMEM_SYMMETRIC_SIZE smaller", w->heap_size, w->n_pes);
        return -1;
    }
    uintptr_t start = ((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1);
    char *region = (char *)start;
    if (region > raw)
        munmap(raw, (size_t)(region - raw));
    size_t tail = align - (size_t)(region - raw);
    if (tail > 0)
        munmap(region + total, tail);
    s->region = region;
    s->total = total;
    w->backend_state = s;
    return 0;
}

void pgas_threads_heap_unmap(pgas_world *w)
{
    pgas_threads_state *s = w->backend_state;
    munmap(s->region, s->total);
    pgas_job_free(s);
    w->backend_state = NULL;
}

/* A counter and a generation: each member increments the counter (acq_rel); the last to
 * arrive resets it, advances the generation (release) and wakes the others, who wait for
 * the generation to change (acquire). The happens-before annotations are barrier.c's. */
void pgas_threads_barrier(pgas_thread *t, pgas_barrier *b, int n_members, const char *call)
{
    (void)t;
    uint32_t gen = atomic_load_explicit(&b->generation, memory_order_acquire);
    uint32_t arrived = atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1;
    if (arrived == (uint32_t)n_members) {
        atomic_exchange_explicit(&b->arrived, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&b->generation, 1, memory_order_release);
        pgas_wake(&b->generation);
    } else {
        pgas_wait_value(&b->generation, PGAS_KIND_U32, NVSHMEM_CMP_NE, gen, PGAS_ACQUIRE, call);
    }
}

const pgas_backend pgas_backend_threads = {
    .name = "threads",
    PGAS_THREADS_LAYOUT_OPS,
};
