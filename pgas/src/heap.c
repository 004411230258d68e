/*
 * heap.c: the symmetric heap.
 *
 * Every PE has a heap of heap_size bytes, which the job's backend maps (backend.h); this file
 * knows a symmetric address only as an offset into the caller's heap, and asks the backend
 * for a peer's copy (pgas_heap_translate). Allocation is collective: every PE runs the same first-fit
 * allocator on its own block list, with the same requests in the same order, and so
 * computes the same offset. Before allocating, the PEs publish their requests and compare
 * them, so a PE asking for a different size is reported instead of silently corrupting the
 * heap. Blocks are 64-byte aligned (a cache line), more when nvshmem_align asks: any power of
 * two up to how aligned every PE's heap start is (heap_start_align; the threads backend
 * aligns the starts to the largest power of two dividing heap_size). shmem_realloc resizes a
 * block in place when it can (shrinking, or growing into free space right after it), else
 * moves it; every PE takes the same steps, so the offsets stay the same on every PE.
 *
 * Beside the block list, each PE's granule map (heap_objects.c) records the objects for the
 * bounds check: the allocation, resize and free calls write it, and pgas_heap_translate and
 * pgas_heap_check_local check every access of a heap address against it (check_object).
 *
 * Invariant of a PE's block list (pgas_heap_check_blocks, after every allocation and free):
 * sorted by offset, each block starting where the last ended, from 0 to heap_size (so no
 * overlap and no hole), no empty block, and no two free blocks side by side (a free merges
 * with its free neighbours; first fit would otherwise miss a request that fits their sum).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend.h"
#include "events.h"
#include "image.h"
#include "nvshmem.h"
#include "shmemu/internal/assert.h"

#define HEAP_MIN_ALIGN 64
/* heap_size is a multiple of this, the boundary every PE's heap starts on at least (an
 * alignment above it needs heap starts aligned more: heap_start_align). */
#define HEAP_MAX_ALIGN PGAS_HEAP_ALIGN

/* A realloc's request is its new size and (in the align argument) its object's offset. */
enum { ALLOC_KIND_MALLOC = 1, ALLOC_KIND_FREE = 2, ALLOC_KIND_REALLOC = 3 };

void pgas_heap_init(pgas_world *world)
{
    world->heap_size = (world->heap_size + HEAP_MAX_ALIGN - 1) / HEAP_MAX_ALIGN * HEAP_MAX_ALIGN;
    char err[256];
    if (world->backend->heap_map(world, err, sizeof err) != 0) {
        fprintf(stderr, "shmemu: %s\n", err);
        exit(2);
    }
    for (int p = 0; p < world->n_pes; p++) {
        pgas_heap_allocator *a = &world->pes[p].heap;
        a->cap_blocks = 16;
        a->blocks = pgas_job_calloc(a->cap_blocks, sizeof *a->blocks);
        if (a->blocks == NULL) {
            fprintf(stderr, "shmemu: out of memory\n");
            exit(2);
        }
        a->blocks[0] = (pgas_heap_block){.offset = 0, .size = world->heap_size, .free = true};
        a->n_blocks = 1;
    }
    pgas_heap_objects_init(world);
}

void pgas_heap_destroy(pgas_world *world)
{
    pgas_heap_objects_destroy(world);
    for (int p = 0; p < world->n_pes; p++)
        pgas_job_free(world->pes[p].heap.blocks);
    world->backend->heap_unmap(world);
}

int pgas_heap_owner(const pgas_world *world, const volatile void *addr)
{
    size_t offset;
    return pgas_be_owner(world, addr, &offset);
}

bool pgas_symmetric_local(const pgas_thread *t, const volatile void *addr)
{
    size_t offset;
    if (pgas_heap_owner(t->world, addr) == t->pe)
        return true;
    return t->world->image != NULL && pgas_image_owner(t->world->image, addr, &offset) == t->pe;
}

void pgas_check_pe(const pgas_thread *t, const char *call, int pe)
{
    if (pe < 0 || pe >= t->world->n_pes)
        pgas_fail(call, "PE %d is out of range; this job has PEs 0 to %d", pe,
                  t->world->n_pes - 1);
}

/* Fails with a message that says where addr is, when it is not in the caller's own heap
 * (nor, for a program with per-PE copies, in the caller's own copy of its globals). */
_Noreturn static void fail_not_local(const pgas_thread *t, const char *call, const char *what,
                                     const void *addr)
{
    int owner = pgas_heap_owner(t->world, addr);
    if (owner >= 0)
        pgas_fail(call, "%s %p is PE %d's copy of a symmetric object (from nvshmem_ptr); "
                        "pass this PE's own symmetric address and the target PE", what, addr,
                  owner);
    size_t offset;
    const pgas_image *img = t->world->image;
    if (img != NULL && (owner = pgas_image_owner(img, addr, &offset)) >= 0)
        pgas_fail(call, "%s %p is PE %d's copy of a global variable (from nvshmem_ptr); pass "
                        "this PE's own address of the variable and the target PE", what, addr,
                  owner);
    char *base = t->heap_base;
    if (img != NULL)
        pgas_fail(call, "%s %p is neither in the symmetric heap [%p, %p) nor a global or static "
                        "variable of the program; use memory from nvshmem_malloc or a global",
                  what, addr, (void *)base, (void *)(base + t->world->heap_size));
    pgas_fail(call, "%s %p is not in the symmetric heap [%p, %p); use memory from "
                    "nvshmem_malloc", what, addr, (void *)base, (void *)(base + t->world->heap_size));
}

/* [addr, addr+bytes) in the caller's own copy of the program's globals: its offset there in
 * *offset, after checking the range; false when addr is in no copy of them. */
static bool local_global(const pgas_thread *t, const char *call, const char *what,
                         const void *addr, size_t bytes, size_t *offset)
{
    const pgas_image *img = t->world->image;
    if (img == NULL || pgas_image_owner(img, addr, offset) != t->pe)
        return false;
    if (bytes > img->data_bytes - *offset)
        pgas_fail(call, "%s %p plus %zu bytes runs %zu bytes past the end of the program's "
                        "global variables; check the size", what, addr, bytes,
                  bytes - (img->data_bytes - *offset));
    return true;
}

/* The offset of [addr, addr+bytes) in the caller's own heap, after checking the range. */
static size_t local_offset(const pgas_thread *t, const char *call, const char *what,
                           const void *addr, size_t bytes)
{
    const char *base = t->heap_base;
    uintptr_t a = (uintptr_t)addr, b = (uintptr_t)base;
    if (a < b || a - b >= t->world->heap_size)
        fail_not_local(t, call, what, addr);
    size_t offset = a - b;
    if (bytes > t->world->heap_size - offset)
        pgas_fail(call, "%s %p plus %zu bytes runs %zu bytes past the end of the symmetric heap "
                        "(%zu bytes per PE); check the size, or raise NVSHMEM_SYMMETRIC_SIZE",
                  what, addr, bytes, bytes - (t->world->heap_size - offset), t->world->heap_size);
    return offset;
}

/* The bounds check (heap_objects.c), when on: [offset, offset + bytes) of the caller's heap
 * lies inside one live object. */
static inline void check_object(const pgas_thread *t, const char *call, const char *what,
                                const void *addr, size_t offset, size_t bytes)
{
    const _Atomic uint32_t *map = t->heap_map;
    if (map != NULL && bytes > 0 && !pgas_heap_map_ok(map, offset, bytes))
        pgas_heap_objects_check(t, call, what, addr, offset, bytes);
}

static bool in_own_heap(const pgas_thread *t, const void *addr)
{
    uintptr_t a = (uintptr_t)addr, b = (uintptr_t)t->heap_base;
    return a >= b && a - b < t->world->heap_size;
}

void pgas_heap_check_local(const pgas_thread *t, const char *call, const char *what,
                           const void *addr, size_t bytes)
{
    size_t offset;
    if (!in_own_heap(t, addr) && local_global(t, call, what, addr, bytes, &offset))
        return;
    offset = local_offset(t, call, what, addr, bytes);
    check_object(t, call, what, addr, offset, bytes);
}

char *pgas_heap_translate(const pgas_thread *t, const char *call, const char *what,
                          const void *addr, size_t bytes, int pe)
{
    pgas_check_pe(t, call, pe);
    size_t offset;
    if (!in_own_heap(t, addr) && local_global(t, call, what, addr, bytes, &offset)) {
        const pgas_image *img = t->world->image;
        if (pgas_image_reachable(img, pe))
            return pgas_image_ptr(img, pe, offset); /* PEs are threads: reachable */
        if (t->world->backend->global_ptr != NULL)
            return t->world->backend->global_ptr(t->world, pe, offset); /* a token (MPI) */
        pgas_fail(call, "%s %p is a global variable, and the %s backend cannot reach PE %d's "
                        "copy of it; allocate it with nvshmem_malloc/shmem_malloc instead",
                  what, addr, t->world->backend->name, pe);
    }
    offset = local_offset(t, call, what, addr, bytes);
    check_object(t, call, what, addr, offset, bytes);
    char *target = pgas_be_ptr(t->world, pe, offset);
    if (target == NULL)
        pgas_fail(call, "the %s backend cannot reach PE %d's heap directly, and this call "
                        "has no other path yet; run with the threads backend",
                  t->world->backend->name, pe);
    return target;
}

/* ---- the allocator ------------------------------------------------------------------- */

static void blocks_reserve(pgas_heap_allocator *a, size_t n)
{
    if (n <= a->cap_blocks)
        return;
    size_t cap = a->cap_blocks * 2 > n ? a->cap_blocks * 2 : n;
    pgas_heap_block *b = pgas_job_realloc(a->blocks, a->cap_blocks * sizeof *b, cap * sizeof *b);
    if (b == NULL) {
        fprintf(stderr, "shmemu: out of memory in the heap allocator\n");
        exit(2);
    }
    a->blocks = b;
    a->cap_blocks = cap;
}

static void blocks_insert(pgas_heap_allocator *a, size_t at, pgas_heap_block block)
{
    blocks_reserve(a, a->n_blocks + 1);
    memmove(&a->blocks[at + 1], &a->blocks[at], (a->n_blocks - at) * sizeof *a->blocks);
    a->blocks[at] = block;
    a->n_blocks++;
}

static void blocks_remove(pgas_heap_allocator *a, size_t at)
{
    memmove(&a->blocks[at], &a->blocks[at + 1], (a->n_blocks - at - 1) * sizeof *a->blocks);
    a->n_blocks--;
}

void pgas_heap_check_blocks(const pgas_heap_allocator *a, size_t heap_size)
{
    PGAS_ASSERT(a->n_blocks > 0 && a->n_blocks <= a->cap_blocks);
    size_t next = 0;
    for (size_t i = 0; i < a->n_blocks; i++) {
        const pgas_heap_block *b = &a->blocks[i];
        PGAS_ASSERT(b->offset == next);
        PGAS_ASSERT(b->size > 0 && b->size <= heap_size - b->offset);
        PGAS_ASSERT(i == 0 || !(b->free && b[-1].free));
        next = b->offset + b->size;
    }
    PGAS_ASSERT(next == heap_size);
}

/* size rounded up to HEAP_MIN_ALIGN, so that neighbouring objects never share a cache line
 * (nor a granule of the bounds check's map); SIZE_MAX when that overflows. */
static size_t round_to_min_align(size_t size)
{
    return size > SIZE_MAX - HEAP_MIN_ALIGN ? SIZE_MAX
                                            : (size + HEAP_MIN_ALIGN - 1) / HEAP_MIN_ALIGN * HEAP_MIN_ALIGN;
}

/* First fit: returns the offset, or SIZE_MAX when no free block can hold the request. */
static size_t allocator_take(pgas_heap_allocator *a, size_t size, size_t align)
{
    for (size_t i = 0; i < a->n_blocks; i++) {
        pgas_heap_block b = a->blocks[i];
        if (!b.free)
            continue;
        size_t start = (b.offset + align - 1) / align * align;
        size_t pad = start - b.offset;
        if (pad > b.size || b.size - pad < size)
            continue;
        size_t tail = b.size - pad - size;
        a->blocks[i] = (pgas_heap_block){.offset = start, .size = size, .free = false};
        if (tail > 0)
            blocks_insert(a, i + 1, (pgas_heap_block){start + size, tail, true});
        if (pad > 0)
            blocks_insert(a, i, (pgas_heap_block){b.offset, pad, true});
        return start;
    }
    return SIZE_MAX;
}

/* True when offset is the start of an allocated block. */
static bool allocator_is_live(const pgas_heap_allocator *a, size_t offset)
{
    for (size_t i = 0; i < a->n_blocks; i++)
        if (a->blocks[i].offset == offset)
            return !a->blocks[i].free;
    return false;
}

/* The size of the allocated block at offset (a live block's start). */
static size_t allocator_block_size(const pgas_heap_allocator *a, size_t offset)
{
    size_t i = 0;
    while (i < a->n_blocks && a->blocks[i].offset != offset)
        i++;
    PGAS_ASSERT(i < a->n_blocks && !a->blocks[i].free);
    return a->blocks[i].size;
}

/* Resizes the allocated block at offset to size bytes (a multiple of HEAP_MIN_ALIGN) in
 * place: shrinking gives the tail back (to the free block after it, or as a new one),
 * growing takes the start of a free block right after it. Returns false, changing nothing,
 * when it cannot grow in place. */
static bool allocator_resize(pgas_heap_allocator *a, size_t offset, size_t size)
{
    size_t i = 0;
    while (i < a->n_blocks && a->blocks[i].offset != offset)
        i++;
    PGAS_ASSERT(i < a->n_blocks && !a->blocks[i].free);
    size_t old = a->blocks[i].size;
    bool next_free = i + 1 < a->n_blocks && a->blocks[i + 1].free;
    if (size <= old) {
        size_t tail = old - size;
        a->blocks[i].size = size;
        if (tail > 0 && next_free) {
            a->blocks[i + 1].offset -= tail;
            a->blocks[i + 1].size += tail;
        } else if (tail > 0) {
            blocks_insert(a, i + 1, (pgas_heap_block){offset + size, tail, true});
        }
        return true;
    }
    size_t need = size - old;
    if (!next_free || a->blocks[i + 1].size < need)
        return false;
    a->blocks[i].size = size;
    if (a->blocks[i + 1].size == need) {
        blocks_remove(a, i + 1);
    } else {
        a->blocks[i + 1].offset += need;
        a->blocks[i + 1].size -= need;
    }
    return true;
}

/* Returns false when offset is not the start of an allocated block. */
static bool allocator_give_back(pgas_heap_allocator *a, size_t offset)
{
    size_t i = 0;
    while (i < a->n_blocks && a->blocks[i].offset != offset)
        i++;
    if (i == a->n_blocks || a->blocks[i].free)
        return false;
    a->blocks[i].free = true;
    if (i + 1 < a->n_blocks && a->blocks[i + 1].free) {
        a->blocks[i].size += a->blocks[i + 1].size;
        blocks_remove(a, i + 1);
    }
    if (i > 0 && a->blocks[i - 1].free) {
        a->blocks[i - 1].size += a->blocks[i].size;
        blocks_remove(a, i);
    }
    return true;
}

/* The PEs whose heap-call count differs from n, as "1, 2 and 5"; returns how many. */
static int list_other_counts(const pgas_world *w, uint64_t n, bool finished_only, char *out,
                             size_t len)
{
    int count = 0, last = -1;
    out[0] = '\0';
    for (int p = 0; p < w->n_pes; p++) {
        if (atomic_load(&w->pes[p].heap_calls) == n)
            continue;
        if (finished_only && !atomic_load(&w->pes[p].finished))
            continue;
        if (last >= 0) {
            size_t used = strlen(out);
            snprintf(out + used, len - used, "%s%d", count > 1 ? ", " : "", last);
        }
        last = p;
        count++;
    }
    if (last >= 0) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%d", count > 1 ? " and " : "", last);
    }
    return count;
}

_Noreturn static void fail_missing(pgas_thread *t, const char *call, uint64_t n, uint64_t size,
                                   bool finished_only)
{
    char missing[256];
    int count = list_other_counts(t->world, n, finished_only, missing, sizeof missing);
    const char *req = strcmp(call, "nvshmem_free") == 0 ? "heap offset" : "bytes";
    if (finished_only)
        pgas_fail(call, "PE %d called %s (%llu %s, the job's collective heap call #%llu), but "
                        "PE%s %s finished without calling it; every PE must make the same "
                        "collective heap calls in the same order",
                  t->pe, call, (unsigned long long)size, req, (unsigned long long)n,
                  count > 1 ? "s" : "", missing);
    pgas_fail(call, "PE %d called %s (%llu %s, the job's collective heap call #%llu), but "
                    "PE%s %s did not: %s at a barrier, collective or finalize instead; every "
                    "PE must make the same collective heap calls in the same order",
              t->pe, call, (unsigned long long)size, req, (unsigned long long)n,
              count > 1 ? "s" : "", missing, count > 1 ? "they arrived" : "it arrived");
}

/* Publishes this PE's request, waits for all, and fails if any PE asked otherwise. Every
 * heap call counts: a PE that skipped the call meets this one at another world barrier
 * (barrier_all, finalize), and its count gives it away at once instead of at the timeout.
 * The request itself is compared as every collective's arguments are (agree.c): an
 * allocation with the others' allocations (malloc, calloc and align alike), a free with the
 * others' frees. */
static void agree_on_request(pgas_thread *t, const char *call, uint64_t kind, uint64_t size,
                             uint64_t align)
{
    pgas_world *w = t->world;
    pgas_pe *me = &w->pes[t->pe];
    pgas_coll_call request = {.call = call, .team_id = NVSHMEM_TEAM_WORLD};
    if (kind == ALLOC_KIND_FREE) {
        request.op = "nvshmem_free";
        request.n_args = 1;
        request.names[0] = "heap offset";
        request.values[0] = (int64_t)size;
    } else {
        bool resize = kind == ALLOC_KIND_REALLOC; /* its align is the object's offset */
        request.op = resize ? "shmem_realloc" : "a collective allocation";
        request.n_args = 2;
        request.names[0] = "size";
        request.values[0] = (int64_t)size;
        request.names[1] = resize ? "heap offset of ptr" : "alignment";
        request.values[1] = (int64_t)align;
    }
    pgas_agree_publish(t, &w->teams[0], &request);
    /* seq_cst both here and in pgas_heap_check_finished: either this PE sees that a peer
     * has finished, or the finishing peer sees this count. */
    uint64_t n = atomic_fetch_add(&me->heap_calls, 1) + 1;
    char missing[8];
    if (list_other_counts(w, n, true, missing, sizeof missing) > 0)
        fail_missing(t, call, n, size, true);
    pgas_barrier_wait(t, &w->teams[0].barrier, w->n_pes, call);
    if (w->backend->ranks) /* the peers' counts and requests, into this process's records */
        pgas_agree_gather(t, &w->teams[0]);
    if (list_other_counts(w, n, false, missing, sizeof missing) > 0)
        fail_missing(t, call, n, size, false);
    pgas_agree_check(t, &w->teams[0]);
    /* No PE may publish its next request before every PE has compared this one. */
    pgas_barrier_wait(t, &w->teams[0].barrier, w->n_pes, call);
    pgas_agree_end(t);
}

void pgas_heap_report_pending(const pgas_world *w, FILE *f, const char *indent)
{
    uint64_t n = 0;
    int in = -1;
    for (int p = 0; p < w->n_pes; p++) {
        uint64_t c = atomic_load(&w->pes[p].heap_calls);
        if (c > n) {
            n = c;
            in = p;
        }
    }
    char missing[256];
    int count = in >= 0 ? list_other_counts(w, n, false, missing, sizeof missing) : 0;
    if (count == 0)
        return;
    const char *call = atomic_load(&w->pes[in].coll.call);
    fprintf(f, "%sPE %d is in %s (%llu %s, the job's collective heap call #%llu); PE%s %s %s "
               "not made it: every PE must make the same collective heap calls\n",
            indent, in, call, (unsigned long long)pgas_agree_value(w, in, 0),
            strcmp(call, "nvshmem_free") == 0 ? "heap offset" : "bytes", (unsigned long long)n, count > 1 ? "s" : "", missing, count > 1 ? "have" : "has");
}

void pgas_heap_check_finished(pgas_thread *t)
{
    pgas_world *w = t->world;
    pgas_pe *me = &w->pes[t->pe];
    atomic_store(&me->finished, 1);
    if (w->backend->ranks)
        return; /* the peers' counts are in their processes; a missing call hangs there */
    uint64_t mine = atomic_load(&me->heap_calls);
    for (int p = 0; p < w->n_pes; p++) {
        uint64_t theirs = atomic_load(&w->pes[p].heap_calls);
        if (theirs <= mine)
            continue;
        const char *call = atomic_load(&w->pes[p].coll.call);
        pgas_fail(call, "PE %d is in %s (the job's collective heap call #%llu, %llu bytes), but "
                        "this PE returned from its main function after %llu heap calls; every "
                        "PE must make the same collective heap calls in the same order",
                  p, call, (unsigned long long)theirs,
                  (unsigned long long)pgas_agree_value(w, p, 0),
                  (unsigned long long)mine);
    }
}

/* The calling PE's granule map (the bounds check), or NULL when the check is off. */
static _Atomic uint32_t *map_of(const pgas_thread *t)
{
    return pgas_heap_objects_map(t->world, t->pe);
}

/* The largest power of two that every PE's heap start is a multiple of: an offset aligned
 * to it (or to less) is an address aligned alike on every PE. */
static size_t heap_start_align(const pgas_world *w)
{
    uintptr_t bits = 0;
    /* On a ranks backend each process sees only its own heap at the address its PE uses
     * (a peer's, mapped here, is aligned only to a page): every PE aligns its own alike. */
    if (w->backend->ranks)
        return PGAS_HEAP_ALIGN;
    for (int p = 0; p < w->n_pes; p++)
        bits |= (uintptr_t)pgas_be_ptr(w, p, 0);
    return bits == 0 ? SIZE_MAX : (size_t)(bits & (~bits + 1));
}

/* Every PE's heap can hold an object at one offset aligned to align (a power of two) on every
 * PE; else complains (the same verdict on every PE) and returns false. */
static bool alignment_possible(const pgas_thread *t, const char *call, size_t align)
{
    const pgas_world *w = t->world;
    if (align > w->heap_size) {
        pgas_complain(call, "alignment %zu is larger than the symmetric heap (%zu bytes per "
                            "PE); raise NVSHMEM_SYMMETRIC_SIZE to a multiple of %zu, or ask "
                            "for less", align, w->heap_size, align);
        return false;
    }
    size_t have = heap_start_align(w);
    if (align > have) {
        pgas_complain(call, "alignment %zu: the PEs' heaps start only %zu-aligned (the largest "
                            "power of two dividing the heap size, %zu bytes per PE), so no "
                            "offset is %zu-aligned on every PE; set NVSHMEM_SYMMETRIC_SIZE to a "
                            "multiple of %zu", align, have, w->heap_size, align, align);
        return false;
    }
    return true;
}

/* The event log names heap memory by the allocation it lies in (events_write.c). */
static void note_alloc(pgas_thread *t, const char *call, size_t offset, size_t size,
                       const void *pc)
{
    pgas_event *e = pgas_ev_record(t, PGAS_EV_ALLOC, pc);
    if (e != NULL) {
        e->dst = (pgas_ev_addr){PGAS_EV_HEAP, offset};
        e->bytes = size;
        e->obj = call;
    }
}

void *pgas_heap_alloc(const char *call, size_t size, size_t alignment, bool zero)
{
    pgas_thread *t = pgas_require(call);
    if (alignment == 0 || (alignment & (alignment - 1)) != 0)
        pgas_fail(call, "alignment %zu is not a power of two; pass 1, 2, 4, 8, ...", alignment);
    size_t align = alignment < HEAP_MIN_ALIGN ? HEAP_MIN_ALIGN : alignment;
    pgas_quiet(t);
    agree_on_request(t, call, ALLOC_KIND_MALLOC, size, align);
    if (size == 0 || !alignment_possible(t, call, align))
        return NULL;
    pgas_heap_allocator *a = &t->world->pes[t->pe].heap;
    size_t rounded = round_to_min_align(size);
    size_t offset = rounded == SIZE_MAX ? SIZE_MAX : allocator_take(a, rounded, align);
    pgas_heap_check_blocks(a, t->world->heap_size);
    if (offset == SIZE_MAX) {
        pgas_complain(call, "cannot allocate %zu bytes: the symmetric heap has %zu bytes per PE "
                            "and not enough of it is free; raise NVSHMEM_SYMMETRIC_SIZE",
                      size, t->world->heap_size);
        return NULL;
    }
    pgas_heap_objects_add(map_of(t), offset, size);
    if (pgas_ev_on(t))
        note_alloc(t, call, offset, size, __builtin_return_address(0));
    char *ptr = pgas_be_ptr(t->world, t->pe, offset);
    if (zero)
        memset(ptr, 0, size);
    /* Like NVSHMEM, allocation ends with a barrier: no PE touches a peer's new object
     * before that peer has it (and, for calloc, has zeroed it). */
    pgas_barrier_wait(t, &t->world->teams[0].barrier, t->world->n_pes, call);
    return ptr;
}

/* The heap offset of ptr, which must be the start of a live object of the caller's heap. A
 * bad pointer is this PE's own error: reported before the collective part, where it would
 * also look like a heap call the other PEs did not make. */
static size_t live_object_offset(const pgas_thread *t, const char *call, const void *ptr,
                                 const char *verb)
{
    uintptr_t a = (uintptr_t)ptr, b = (uintptr_t)t->heap_base;
    if (a < b || a - b >= t->world->heap_size) {
        int owner = pgas_heap_owner(t->world, ptr);
        if (owner >= 0)
            pgas_fail(call, "%p is PE %d's copy of a symmetric object; %s this PE's own "
                            "address", ptr, owner, verb);
        pgas_fail(call, "%p is not symmetric heap memory; %s only what nvshmem_malloc, "
                        "nvshmem_calloc or nvshmem_align returned (use free() for malloc())",
                  ptr, verb);
    }
    size_t offset = a - b;
    if (!allocator_is_live(&t->world->pes[t->pe].heap, offset))
        pgas_fail(call, "%p (heap offset %zu) is not the start of a live allocation; %s only "
                        "pointers from nvshmem_malloc, and free each exactly once", ptr, offset,
                  verb);
    return offset;
}

void pgas_heap_free(const char *call, void *ptr)
{
    pgas_thread *t = pgas_require(call);
    if (ptr == NULL)
        return;
    size_t offset = live_object_offset(t, call, ptr, "free");
    pgas_heap_allocator *heap = &t->world->pes[t->pe].heap;
    pgas_quiet(t);
    agree_on_request(t, call, ALLOC_KIND_FREE, offset, 0);
    size_t block = allocator_block_size(heap, offset);
    if (!allocator_give_back(heap, offset))
        pgas_fail(call, "%p (heap offset %zu) is not the start of a live allocation; free "
                        "each pointer from nvshmem_malloc exactly once", ptr, offset);
    pgas_heap_objects_free(map_of(t), offset, block);
    pgas_heap_check_blocks(heap, t->world->heap_size);
}

/* Every PE runs the same steps on its own allocator, so every PE ends with the same offset:
 * in place when the block can shrink, or grow into free space right after it; else a new
 * block (first fit, beside the old one, which is still taken), the caller's own copy of the
 * first min(old block, size) bytes moved there, and the old block given back. */
void *pgas_heap_realloc(const char *call, void *ptr, size_t size)
{
    if (ptr == NULL)
        return pgas_heap_alloc(call, size, 1, false);
    if (size == 0) {
        pgas_heap_free(call, ptr);
        return NULL;
    }
    pgas_thread *t = pgas_require(call);
    size_t offset = live_object_offset(t, call, ptr, "resize");
    pgas_quiet(t);
    agree_on_request(t, call, ALLOC_KIND_REALLOC, size, offset);
    pgas_heap_allocator *a = &t->world->pes[t->pe].heap;
    size_t rounded = round_to_min_align(size);
    size_t old_block = allocator_block_size(a, offset);
    char *result = ptr;
    if (rounded != SIZE_MAX && allocator_resize(a, offset, rounded)) {
        pgas_heap_objects_resize(map_of(t), offset, old_block, size);
    } else {
        size_t moved = rounded == SIZE_MAX ? SIZE_MAX : allocator_take(a, rounded, HEAP_MIN_ALIGN);
        if (moved == SIZE_MAX) {
            pgas_heap_check_blocks(a, t->world->heap_size);
            pgas_complain(call, "cannot grow %p to %zu bytes: the symmetric heap has %zu bytes "
                                "per PE and not enough of it is free; the object is unchanged; "
                                "raise NVSHMEM_SYMMETRIC_SIZE", ptr, size, t->world->heap_size);
            return NULL;
        }
        result = pgas_be_ptr(t->world, t->pe, moved);
        memcpy(result, ptr, old_block < size ? old_block : size);
        allocator_give_back(a, offset);
        pgas_heap_objects_free(map_of(t), offset, old_block);
        pgas_heap_objects_add(map_of(t), moved, size);
        if (pgas_ev_on(t))
            note_alloc(t, call, moved, size, __builtin_return_address(0));
    }
    pgas_heap_check_blocks(a, t->world->heap_size);
    /* As an allocation does: no PE touches a peer's resized object before the peer has it. */
    pgas_barrier_wait(t, &t->world->teams[0].barrier, t->world->n_pes, call);
    return result;
}

/* ---- entry points -------------------------------------------------------------------- */

void *nvshmem_malloc(size_t size) { return pgas_heap_alloc("nvshmem_malloc", size, 1, false); }

void *nvshmem_calloc(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size)
        pgas_fail("nvshmem_calloc", "count %zu times size %zu overflows; check the arguments",
                  count, size);
    return pgas_heap_alloc("nvshmem_calloc", count * size, 1, true);
}

void *nvshmem_align(size_t alignment, size_t size)
{
    return pgas_heap_alloc("nvshmem_align", size, alignment, false);
}

void nvshmem_free(void *ptr) { pgas_heap_free("nvshmem_free", ptr); }

void *nvshmem_ptr(const void *dest, int pe)
{
    const char *call = "nvshmem_ptr";
    pgas_thread *t = pgas_require(call);
    pgas_check_pe(t, call, pe);
    size_t offset;
    bool global = !in_own_heap(t, dest) && local_global(t, call, "dest", dest, 0, &offset);
    if (!global)
        offset = local_offset(t, call, "dest", dest, 0);
    if (t->world->config.no_ptr && pe != t->pe)
        return NULL;
    if (global)
        return pgas_image_reachable(t->world->image, pe) ? pgas_image_ptr(t->world->image, pe,
                                                                          offset)
                                                         : NULL;
    if (!pgas_be_direct(t->world, pe, NULL))
        return NULL; /* the backend reaches pe only through its own copies (MPI across nodes) */
    return pgas_be_ptr(t->world, pe, offset);
}

/* ---- registered buffers -------------------------------------------------------------- */

int nvshmemx_buffer_register(void *addr, size_t length)
{
    const char *call = "nvshmemx_buffer_register";
    pgas_thread *t = pgas_require(call);
    pgas_pe *pe = &t->world->pes[t->pe];
    if (addr == NULL || length == 0) {
        pgas_complain(call, "buffer %p of %zu bytes is empty; pass a non-NULL address and a "
                            "length > 0", addr, length);
        return 1;
    }
    if (pgas_heap_owner(t->world, addr) >= 0) {
        pgas_complain(call, "%p is in the symmetric heap, which needs no registration", addr);
        return 1;
    }
    uintptr_t lo = (uintptr_t)addr, hi = lo + length;
    for (size_t i = 0; i < pe->n_registered; i++) {
        uintptr_t rlo = (uintptr_t)pe->registered[i].addr, rhi = rlo + pe->registered[i].length;
        if (lo < rhi && rlo < hi) {
            pgas_complain(call, "[%p, +%zu) overlaps the registered buffer [%p, +%zu); "
                                "unregister it first", addr, length,
                          (void *)pe->registered[i].addr, pe->registered[i].length);
            return 1;
        }
    }
    pgas_registered *r = pgas_job_realloc(pe->registered, pe->n_registered * sizeof *r,
                                          (pe->n_registered + 1) * sizeof *r);
    if (r == NULL) {
        pgas_complain(call, "out of memory");
        return 1;
    }
    pe->registered = r;
    r[pe->n_registered++] = (pgas_registered){.addr = addr, .length = length};
    return 0;
}

int nvshmemx_buffer_unregister(void *addr)
{
    const char *call = "nvshmemx_buffer_unregister";
    pgas_thread *t = pgas_require(call);
    pgas_pe *pe = &t->world->pes[t->pe];
    for (size_t i = 0; i < pe->n_registered; i++) {
        if (pe->registered[i].addr == addr) {
            pe->registered[i] = pe->registered[--pe->n_registered];
            return 0;
        }
    }
    pgas_complain(call, "%p was not registered with nvshmemx_buffer_register", addr);
    return 1;
}

void nvshmemx_buffer_unregister_all(void)
{
    pgas_thread *t = pgas_require("nvshmemx_buffer_unregister_all");
    t->world->pes[t->pe].n_registered = 0;
}
