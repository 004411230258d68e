/*
 * heap_objects.c: the objects of every PE's symmetric heap, for the bounds check
 * (SHMEMU_CHECK_BOUNDS; docs/openshmem.md, "Checks and fixes").
 *
 * A put, get, atomic, signal, wait or collective names a symmetric address and a length. The
 * heap's range check (heap.c) stops only what leaves the heap; an access that runs past the
 * end of its object into a neighbour, padding or free space, or that touches an object the
 * program has freed, stays inside and is silent. The heap knows its objects, so each PE keeps
 * a granule map: one 32-bit word for every 64-byte granule of its heap (the allocator's
 * unit, so no two objects share a granule), saying
 *
 *     0               no object ever covered the granule (free space, alignment padding);
 *     r (1..SAT)      a live object covers it and ends r bytes after the granule's start
 *                     (SAT: at least that many; objects of 2 GiB and more);
 *     FREED | r       the object that covered it was freed (r as when it was live).
 *
 * So the check on the put path is one load and a compare (pgas_heap_map_ok, internal.h):
 * the access [offset, offset + bytes) is inside a live object when the word of its first
 * byte's granule is live and at least (offset % 64) + bytes. Only a failing (or a saturated)
 * check looks further: the words of one object count down by 64 from its first granule, so
 * scanning back to where they stop finds the object's start, and the first word is its size.
 * No two objects chain: an object's last word is at most 64, the next one's first more.
 *
 * Every PE makes the same collective heap calls, so every PE's map is the same; a check reads
 * the calling PE's own map (its offsets are the target's). The map is written by the thread
 * making the heap call and read by the PE's other threads (the emulator's blocks and streams,
 * threads the program created) with relaxed atomic stores and loads: ThreadSanitizer sees no
 * race and no happens-before edge is added (docs/design.md D4); helgrind and DRD see plain
 * accesses ordered by the program's own synchronization between an allocation and the use of
 * the object (a correct program has it: it needs the pointer), and two threads touch the same
 * word only when the program uses an object while it is being allocated or freed.
 *
 * Memory: 4 bytes of map per 64 bytes of heap per PE, reserved (MAP_NORESERVE) and touched
 * only where objects were allocated. Cost: writing the words at every allocation, free and
 * resize (1/16 of the object's size), and one load per checked access.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"

#define GRANULE ((size_t)1 << PGAS_HEAP_GRANULE_SHIFT)
#define FREED PGAS_HEAP_MAP_FREED
#define SAT PGAS_HEAP_MAP_SAT

#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define STORE(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)

static size_t map_words(const pgas_world *w) { return w->heap_size >> PGAS_HEAP_GRANULE_SHIFT; }

void pgas_heap_objects_init(pgas_world *w)
{
    w->heap_maps = NULL;
    if (!w->config.check_bounds)
        return;
    size_t bytes = map_words(w) * sizeof(uint32_t);
    void *maps = bytes > SIZE_MAX / (size_t)w->n_pes
                     ? MAP_FAILED
                     : pgas_job_map(bytes * (size_t)w->n_pes); /* shared in a process job */
    if (maps == MAP_FAILED) {
        fprintf(stderr, "shmemu: note: no room for the bounds check's map of the symmetric heap "
                        "(%zu bytes per PE); running without it (SHMEMU_CHECK_BOUNDS=0)\n",
                bytes);
        return;
    }
    w->heap_maps = maps;
}

void pgas_heap_objects_destroy(pgas_world *w)
{
    if (w->heap_maps != NULL)
        munmap((void *)w->heap_maps, map_words(w) * sizeof(uint32_t) * (size_t)w->n_pes);
    w->heap_maps = NULL;
}

_Atomic uint32_t *pgas_heap_objects_map(const pgas_world *w, int pe)
{
    return w->heap_maps == NULL ? NULL : w->heap_maps + (size_t)pe * map_words(w);
}

/* The words of an object at offset of `size` bytes (its granules), live. */
static void cover(_Atomic uint32_t *map, size_t offset, size_t size)
{
    size_t end = offset + size;
    for (size_t g = offset / GRANULE; g * GRANULE < end; g++) {
        size_t rem = end - g * GRANULE;
        STORE(map[g], rem < SAT ? (uint32_t)rem : SAT);
    }
}

void pgas_heap_objects_add(_Atomic uint32_t *map, size_t offset, size_t size)
{
    if (map != NULL)
        cover(map, offset, size);
}

void pgas_heap_objects_resize(_Atomic uint32_t *map, size_t offset, size_t old_block,
                              size_t size)
{
    if (map == NULL)
        return;
    cover(map, offset, size);
    /* The tail a shrink gave back is free space now. */
    for (size_t g = (offset + size + GRANULE - 1) / GRANULE; g * GRANULE < offset + old_block; g++)
        STORE(map[g], 0);
}

void pgas_heap_objects_free(_Atomic uint32_t *map, size_t offset, size_t block)
{
    if (map == NULL)
        return;
    for (size_t g = offset / GRANULE; g * GRANULE < offset + block; g++)
        STORE(map[g], LOAD(map[g]) | FREED);
}

/* The word of granule g without the freed bit. */
static uint32_t rem_of(const _Atomic uint32_t *map, size_t g) { return LOAD(map[g]) & ~FREED; }

/* The object (live or freed, as granule g's word says) that covers granule g: its first
 * granule and its size in bytes. */
static void object_at(const _Atomic uint32_t *map, size_t n_words, size_t g, size_t *first,
                      size_t *size)
{
    uint32_t freed = LOAD(map[g]) & FREED;
    size_t s = g;
    while (s > 0 && (LOAD(map[s - 1]) & FREED) == freed) {
        uint32_t here = rem_of(map, s), before = rem_of(map, s - 1);
        uint32_t chained = here > SAT - GRANULE ? SAT : here + (uint32_t)GRANULE;
        if (before != chained)
            break;
        s--;
    }
    *first = s;
    size_t e = s;
    while (rem_of(map, e) == SAT && e + 1 < n_words)
        e++;
    *size = (e - s) * GRANULE + rem_of(map, e);
}

/* The access is not inside one live object: says which object it touches and how. */
_Noreturn static void fail_access(const char *call, const char *what, const void *addr,
                                  size_t offset, size_t bytes, size_t first, size_t size,
                                  bool freed)
{
    const char *a = addr;
    size_t start = first * GRANULE;
    const char *obj = a - (offset - start);
    if (freed)
        pgas_fail(call, "%s %p is in freed symmetric memory: the %zu-byte object at %p (heap "
                        "offset %zu) was freed by nvshmem_free, and the access [%p, %p) of %zu "
                        "bytes uses it after that; allocate it again or stop using it",
                  what, addr, size, (const void *)obj, start, addr, (const void *)(a + bytes),
                  bytes);
    size_t past = offset >= start + size ? bytes : offset + bytes - (start + size);
    pgas_fail(call, "%s %p plus %zu bytes runs %zu bytes past the end of its symmetric object: "
                    "the %zu-byte object at %p (heap offset %zu) ends at %p, and the access "
                    "[%p, %p) reaches beyond it; check the size and the offset",
              what, addr, bytes, past, size, (const void *)obj, start,
              (const void *)(obj + size), addr, (const void *)(a + bytes));
}

void pgas_heap_objects_check(const pgas_thread *t, const char *call, const char *what,
                             const void *addr, size_t offset, size_t bytes)
{
    const _Atomic uint32_t *map = t->heap_map;
    size_t g = offset / GRANULE;
    uint32_t word = LOAD(map[g]);
    if (word == 0)
        pgas_fail(call, "%s %p (PE %d's symmetric heap + %zu) is in no symmetric object: that "
                        "part of the heap was never allocated (free space, or padding an "
                        "alignment left); the access [%p, %p) of %zu bytes is outside every "
                        "object from nvshmem_malloc; check the address",
                  what, addr, t->pe, offset, addr, (const void *)((const char *)addr + bytes),
                  bytes);
    size_t first, size;
    object_at(map, map_words(t->world), g, &first, &size);
    bool freed = (word & FREED) != 0;
    if (!freed && offset + bytes <= first * GRANULE + size)
        return; /* a live object of 2 GiB or more, and an access inside it */
    fail_access(call, what, addr, offset, bytes, first, size, freed);
}
