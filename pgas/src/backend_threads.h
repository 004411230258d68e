/*
 * backend_threads.h: the threads backend's translation and copies, inline.
 *
 * They run on every put and get, so backend.h's dispatch calls them directly (inlined) when
 * the job runs on the threads backend, and through the ops table otherwise; that keeps the
 * seam free on the hot path (one compare of world->backend). Only backend.h and
 * backend_threads.c include this file: the layout is theirs, not the API layer's.
 */
#ifndef PGAS_BACKEND_THREADS_H
#define PGAS_BACKEND_THREADS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* One mapping, every PE's heap back to back: PE p's at region + p * heap_size. */
typedef struct pgas_threads_state {
    char *region; /* n_pes * heap_size bytes, PGAS_HEAP_ALIGN-aligned */
    size_t total;
} pgas_threads_state;

/* The operations that are calls (backend_threads.c), also the process backend's. */
int pgas_threads_heap_map(pgas_world *w, char *err, size_t err_len);
void pgas_threads_heap_unmap(pgas_world *w);
void pgas_threads_barrier(pgas_thread *t, pgas_barrier *b, int n_members, const char *call);

/* The threads layout's operations, for the table of every backend that keeps that layout (the
 * threads backend, and the process backend in shared memory): one list, so the two tables
 * cannot drift apart. */
#define PGAS_THREADS_LAYOUT_OPS                                                              \
    .threads_layout = true, .heap_map = pgas_threads_heap_map,                                 \
    .heap_unmap = pgas_threads_heap_unmap, .ptr = pgas_threads_ptr,                            \
    .owner = pgas_threads_owner, .put = pgas_threads_put, .get = pgas_threads_get,             \
    .wake = pgas_wake_range, .barrier = pgas_threads_barrier

static inline char *pgas_threads_ptr(const pgas_world *w, int pe, size_t offset)
{
    const pgas_threads_state *s = w->backend_state;
    return s->region + (size_t)pe * w->heap_size + offset;
}

static inline int pgas_threads_owner(const pgas_world *w, const volatile void *addr,
                                     size_t *offset)
{
    const pgas_threads_state *s = w->backend_state;
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
static inline bool pgas_threads_store_word(char *target, const void *src, size_t bytes)
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

static inline void pgas_threads_put(const pgas_world *w, int pe, char *target, const void *src,
                                    size_t bytes)
{
    (void)w;
    (void)pe;
    if (!pgas_threads_store_word(target, src, bytes))
        memmove(target, src, bytes);
}

static inline void pgas_threads_get(const pgas_world *w, int pe, void *dest,
                                    const char *remote_src, size_t bytes)
{
    (void)w;
    (void)pe;
    memmove(dest, remote_src, bytes);
}

#endif
