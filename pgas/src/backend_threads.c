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
 * This file and park.c are the only ones that know the layout (docs/design.md D10).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "backend.h"
#include "nvshmem.h"

typedef struct threads_state {
    char *region; /* n_pes * heap_size bytes, PGAS_HEAP_ALIGN-aligned */
    size_t total;
} threads_state;

static int threads_heap_map(pgas_world *w, char *err, size_t err_len)
{
    size_t total = w->heap_size * (size_t)w->n_pes;
    if (w->heap_size != 0 && total / w->heap_size != (size_t)w->n_pes) {
        snprintf(err, err_len, "NVSHMEM_SYMMETRIC_SIZE=%zu times %d PEs overflows; choose a "
                               "smaller heap", w->heap_size, w->n_pes);
        return -1;
    }
    threads_state *s = calloc(1, sizeof *s);
    /* Over-map by one alignment unit, then trim to an aligned start. */
    char *raw = s == NULL ? MAP_FAILED
                          : mmap(NULL, total + PGAS_HEAP_ALIGN, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) {
        free(s);
        snprintf(err, err_len, "cannot map a symmetric heap of %zu bytes for %d PEs; set "
                               "NVSHMEM_SYMMETRIC_SIZE smaller", w->heap_size, w->n_pes);
        return -1;
    }
    uintptr_t start = ((uintptr_t)raw + PGAS_HEAP_ALIGN - 1) & ~(uintptr_t)(PGAS_HEAP_ALIGN - 1);
    char *region = (char *)start;
    if (region > raw)
        munmap(raw, (size_t)(region - raw));
    size_t tail = PGAS_HEAP_ALIGN - (size_t)(region - raw);
    if (tail > 0)
        munmap(region + total, tail);
    s->region = region;
    s->total = total;
    w->backend_state = s;
    return 0;
}

static void threads_heap_unmap(pgas_world *w)
{
    threads_state *s = w->backend_state;
    munmap(s->region, s->total);
    free(s);
    w->backend_state = NULL;
}

static char *threads_ptr(const pgas_world *w, int pe, size_t offset)
{
    const threads_state *s = w->backend_state;
    return s->region + (size_t)pe * w->heap_size + offset;
}

static int threads_owner(const pgas_world *w, const volatile void *addr, size_t *offset)
{
    const threads_state *s = w->backend_state;
    uintptr_t a = (uintptr_t)addr, base = (uintptr_t)s->region;
    if (a < base || a - base >= s->total)
        return -1;
    *offset = (a - base) % w->heap_size;
    return (int)((a - base) / w->heap_size);
}

/* Stores a naturally aligned word of 1, 2, 4 or 8 bytes as one atomic exchange; returns
 * false for anything else. A PE may wait on a word that a put writes (OpenSHMEM allows it):
 * its polls are atomic loads, and a plain copy would race with them under every checker.
 * An exchange (an RMW, so valgrind sees no write to race with the polls) is also what the
 * hardware does for a small put. The price: helgrind cannot see a plain read that races
 * with such a small put (DRD and TSan still do); larger puts stay plain copies. */
static bool store_word_atomically(char *target, const void *src, size_t bytes)
{
    if (bytes > 8 || (bytes & (bytes - 1)) != 0 || (uintptr_t)target % bytes != 0)
        return false;
    switch (bytes) {
    case 1: { uint8_t v; memcpy(&v, src, 1); __atomic_exchange_n((uint8_t *)target, v, __ATOMIC_RELEASE); break; }
    case 2: { uint16_t v; memcpy(&v, src, 2); __atomic_exchange_n((uint16_t *)(void *)target, v, __ATOMIC_RELEASE); break; }
    case 4: { uint32_t v; memcpy(&v, src, 4); __atomic_exchange_n((uint32_t *)(void *)target, v, __ATOMIC_RELEASE); break; }
    default: { uint64_t v; memcpy(&v, src, 8); __atomic_exchange_n((uint64_t *)(void *)target, v, __ATOMIC_RELEASE); break; }
    }
    return true;
}

static void threads_put(const pgas_world *w, int pe, char *target, const void *src,
                        size_t bytes)
{
    (void)w;
    (void)pe;
    if (!store_word_atomically(target, src, bytes))
        memmove(target, src, bytes);
}

static void threads_get(const pgas_world *w, int pe, void *dest, const char *remote_src,
                        size_t bytes)
{
    (void)w;
    (void)pe;
    memmove(dest, remote_src, bytes);
}

/* A counter and a generation: each member increments the counter (acq_rel); the last to
 * arrive resets it, advances the generation (release) and wakes the others, who wait for
 * the generation to change (acquire). The happens-before annotations are barrier.c's. */
static void threads_barrier(pgas_thread *t, pgas_barrier *b, int n_members, const char *call)
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
    .heap_map = threads_heap_map,
    .heap_unmap = threads_heap_unmap,
    .ptr = threads_ptr,
    .owner = threads_owner,
    .put = threads_put,
    .get = threads_get,
    .wake = pgas_wake_range,
    .barrier = threads_barrier,
};
