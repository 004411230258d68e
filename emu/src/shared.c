/*
 * shared.c: a block's shared memory, its bounds and its hazard check.
 *
 * Layout of a block's arena: the dynamic shared memory of the launch first (EXTERN_SHARED),
 * then the static arrays (SHARED_ARRAY) in the order the block first reaches their
 * declarations, each 16-byte aligned, within CUDA's 48 KiB. Every allocation (and the
 * padding before it) starts filled with 0xA5 bytes: as on a GPU, shared memory is not zero.
 * The arena is filled, and its shadow records made, up to the end of the allocations so
 * far (shadow_cover), not all 48 KiB per block.
 *
 * Every access through SH_LD / SH_ST is checked against the allocation it starts in (an
 * index past the end, or a pointer that is not shared memory, is an error), and against a
 * shadow record per 4-byte granule: the last writer and the last reader, with the block's
 * __syncthreads epoch, the writer's warp __syncwarp epoch and the block's sync sequence at
 * the access. Two accesses by different threads, one a write, with no __syncthreads (or,
 * within a warp, __syncwarp; or an mbarrier phase the second thread waited for) between
 * them are a race: threads of a block run one after another on one pthread here, so such a
 * race would otherwise give a plausible answer and be invisible to helgrind. Data written by
 * a bulk copy (tma_ld) may be read only by a thread that waited for the copy's mbarrier
 * phase (or after a __syncthreads that follows the phase's completion).
 *
 * Accesses through plain pointers are not checked. SHMEMU_EMU_HAZARDS=0 turns the hazard
 * check off (bounds stay checked).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/helgrind.h>

#include "internal.h"

static void add_alloc(emu_block *b, const void *site, const char *name, size_t offset,
                      size_t bytes)
{
    if (b->n_allocs == b->cap_allocs) {
        b->cap_allocs = b->cap_allocs ? 2 * b->cap_allocs : 16;
        b->allocs = realloc(b->allocs, b->cap_allocs * sizeof *b->allocs);
        if (b->allocs == NULL) {
            fprintf(stderr, "shmemu: out of memory for shared-memory records\n");
            exit(2);
        }
    }
    b->allocs[b->n_allocs++] = (emu_shared_alloc){site, name, offset, bytes};
}

/* Makes [0, end) of the arena ready for use: filled with 0xA5 bytes, and covered by the
 * shadow (new granules zero: never accessed). Done as allocations are made, not for the
 * whole 48 KiB at the start: most blocks use little of it, and filling it and zeroing its
 * shadow for every block, the page faults included, was most of a short job's time under
 * the scheduler. Every byte of an allocation still starts as 0xA5. */
static void shadow_cover(emu_block *b, size_t end)
{
    if (end > b->smem_filled) {
        memset(b->smem + b->smem_filled, 0xA5, end - b->smem_filled);
        b->smem_filled = end;
    }
    size_t n = (end + 3) / 4;
    if (n <= b->n_shadow)
        return;
    emu_shadow *s = realloc(b->shadow, n * sizeof *s);
    if (s == NULL) {
        fprintf(stderr, "shmemu: out of memory for the hazard records of %zu bytes of shared "
                        "memory\n", end);
        exit(2);
    }
    memset(s + b->n_shadow, 0, (n - b->n_shadow) * sizeof *s);
    b->shadow = s;
    b->n_shadow = n;
}

void emu_shared_setup(emu_block *b, size_t dyn_size)
{
    b->dyn_size = (dyn_size + 15) & ~(size_t)15;
    b->smem_size = b->dyn_size + EMU_STATIC_SHARED;
    /* aligned_alloc wants a multiple of the alignment (ThreadSanitizer refuses others) */
    b->smem = aligned_alloc(64, (b->smem_size + 63) & ~(size_t)63);
    /* the fill and the shadow cover the allocations only, and grow with them */
    b->n_shadow = 0;
    b->smem_filled = 0;
    b->shadow = calloc(1, sizeof *b->shadow);
    if (b->smem == NULL || b->shadow == NULL) {
        fprintf(stderr, "shmemu: out of memory for %zu bytes of shared memory\n", b->smem_size);
        exit(2);
    }
    VALGRIND_HG_CLEAN_MEMORY(b->smem, b->smem_size);
    shadow_cover(b, b->dyn_size);
    b->hazards = shmemu_env_bool("SHMEMU_EMU_HAZARDS", true);
    add_alloc(b, NULL, "dynamic shared memory", 0, dyn_size);
}

void emu_shared_teardown(emu_block *b)
{
    free(b->smem);
    free(b->shadow);
    free(b->allocs);
    b->smem = NULL;
    b->shadow = NULL;
    b->n_shadow = 0;
    b->smem_filled = 0;
    b->allocs = NULL;
    b->n_allocs = b->cap_allocs = 0;
}

void *emu_shared_static(const void *site, size_t bytes, size_t align, const char *name)
{
    emu_thread *t = emu_thread_require("SHARED_ARRAY");
    emu_block *b = t->block;
    for (size_t i = 0; i < b->n_allocs; i++)
        if (b->allocs[i].site == site)
            return b->smem + b->allocs[i].offset;
    if (align < 16)
        align = 16;
    size_t offset = (b->dyn_size + b->static_used + align - 1) & ~(align - 1);
    if (bytes > b->smem_size || offset > b->smem_size - bytes)
        emu_fail(t, "SHARED_ARRAY %s (%zu bytes) does not fit: static shared memory is "
                    "limited to %u bytes per block and %zu are in use; use EXTERN_SHARED "
                    "(dynamic shared memory) for large arrays",
                 name, bytes, EMU_STATIC_SHARED, b->static_used);
    shadow_cover(b, offset + bytes);
    add_alloc(b, site, name, offset, bytes);
    b->static_used = offset + bytes - b->dyn_size;
    return b->smem + offset;
}

void *emu_shared_dynamic(void)
{
    emu_thread *t = emu_thread_require("EXTERN_SHARED");
    return t->block->smem;
}

const emu_shared_alloc *emu_shared_find(const emu_block *b, const void *p, size_t bytes)
{
    const char *c = p;
    /* Newest first: a static array may start where an empty dynamic area does. */
    for (size_t i = b->n_allocs; i-- > 0;) {
        const char *base = b->smem + b->allocs[i].offset;
        if (c >= base && c <= base + b->allocs[i].bytes &&
            bytes <= (size_t)(base + b->allocs[i].bytes - c))
            return &b->allocs[i];
    }
    return NULL;
}

/* ---- hazards ------------------------------------------------------------------------- */

static bool synced(const emu_thread *t, int other, uint32_t bar, uint32_t warp, uint32_t seq)
{
    const emu_block *b = t->block;
    if (b->bar_epoch != bar)
        return true;
    if ((other >> 5) == (t->tid >> 5) && b->warps[t->tid >> 5].epoch != warp)
        return true;
    return (uint32_t)t->mbar_seen_seq > seq;
}

static uint64_t observed_phase(const emu_thread *t, int slot)
{
    uint64_t best = 0;
    for (int i = 0; i < EMU_SEEN_MBARS; i++)
        if (t->seen[i].slot == slot + 1 && t->seen[i].phase > best)
            best = t->seen[i].phase;
    return best;
}

static const dim3 *thread_of(const emu_block *b, int tid_plus_one)
{
    return &b->threads[tid_plus_one - 1].view.thread_idx;
}

static void access_text(const emu_block *b, const char *p, const char *what, char *out,
                        size_t len)
{
    const emu_shared_alloc *a = emu_shared_find(b, p, 1);
    if (a != NULL)
        snprintf(out, len, "byte %zu of %s", (size_t)(p - (b->smem + a->offset)), a->name);
    else
        snprintf(out, len, "%s at shared offset %zu", what, (size_t)(p - b->smem));
}

static void check_tma_read(emu_thread *t, const emu_shadow *s, const char *p, const char *what,
                           const char *file, int line)
{
    const emu_block *b = t->block;
    int slot = (int)s->w_bar;
    uint64_t phase = s->w_seq;
    const emu_mbar *m = &b->mbars[slot];
    bool done = m->phase > phase;
    bool seen = observed_phase(t, slot) > phase;
    bool via_barrier = done && (m->phase > phase + 1 ? b->bar_epoch != s->w_warp
                                                     : b->bar_epoch != m->complete_epoch);
    if (seen || via_barrier)
        return;
    char where[160];
    access_text(b, p, what, where, sizeof where);
    emu_fail(t, "reads %s at %s:%d, filled by a bulk copy that completes on the mbarrier at "
                "shared offset %zu, phase %llu, before waiting for that phase%s; wait with "
                "mbar_wait_parity (or mbar_wait) before reading bulk-copied data",
             where, file, line, (size_t)((char *)m->addr - b->smem), (unsigned long long)phase,
             done ? "" : " (the phase has not even completed)");
}

void emu_shared_check_range(emu_thread *t, const void *p, size_t bytes, bool write,
                            const char *what, const char *file, int line)
{
    emu_block *b = t->block;
    if (!b->hazards || bytes == 0)
        return;
    size_t first = (size_t)((const char *)p - b->smem);
    size_t last = first + bytes - 1;
    uint16_t me = (uint16_t)(t->tid + 1);
    uint32_t warp_epoch = b->warps[t->tid >> 5].epoch;
    for (size_t g = first / 4; g <= last / 4; g++) {
        emu_shadow *s = &b->shadow[g];
        uint8_t mask = 0;
        for (size_t k = 0; k < 4; k++)
            if (g * 4 + k >= first && g * 4 + k <= last)
                mask |= (uint8_t)(1u << k);
        const char *gp = b->smem + (g * 4 > first ? g * 4 : first);
        char where[160];
        if (s->writer == EMU_SHADOW_TMA && (s->wmask & mask) && !write)
            check_tma_read(t, s, gp, what, file, line);
        else if (s->writer != 0 && s->writer != EMU_SHADOW_TMA && s->writer != me &&
                 (s->wmask & mask) && !synced(t, s->writer - 1, s->w_bar, s->w_warp, s->w_seq)) {
            const dim3 *o = thread_of(b, s->writer);
            access_text(b, gp, what, where, sizeof where);
            emu_fail(t, "shared-memory race: %s %s at %s:%d, which thread (%u,%u,%u) wrote "
                        "with no __syncthreads() (or __syncwarp, or mbarrier wait) between "
                        "the two; add __syncthreads() between the write and the %s",
                     write ? "writes" : "reads", where, file, line, o->x, o->y, o->z,
                     write ? "second write" : "read");
        }
        if (write && s->reader != 0 && s->reader != me && (s->rmask & mask) &&
            !synced(t, s->reader - 1, s->r_bar, s->r_warp, s->r_seq)) {
            const dim3 *o = thread_of(b, s->reader);
            access_text(b, gp, what, where, sizeof where);
            emu_fail(t, "shared-memory race: writes %s at %s:%d, which thread (%u,%u,%u) read "
                        "with no __syncthreads() (or __syncwarp, or mbarrier wait) between "
                        "the two; add __syncthreads() between the read and the write",
                     where, file, line, o->x, o->y, o->z);
        }
        if (write) {
            s->writer = me;
            s->wmask = mask;
            s->w_bar = b->bar_epoch;
            s->w_warp = warp_epoch;
            s->w_seq = (uint32_t)b->seq;
            s->reader = 0;
            s->rmask = 0;
        } else {
            s->rmask = s->reader == me ? (uint8_t)(s->rmask | mask) : mask;
            s->reader = me;
            s->r_bar = b->bar_epoch;
            s->r_warp = warp_epoch;
            s->r_seq = (uint32_t)b->seq;
        }
    }
}

void emu_shared_mark_tma(emu_block *b, const void *p, size_t bytes, int slot, uint64_t phase)
{
    size_t first = (size_t)((const char *)p - b->smem);
    size_t last = first + bytes - 1;
    for (size_t g = first / 4; g <= last / 4; g++) {
        emu_shadow *s = &b->shadow[g];
        s->writer = EMU_SHADOW_TMA;
        s->wmask = 0xf;
        s->w_bar = (uint32_t)slot;
        s->w_seq = (uint32_t)phase;
        s->w_warp = b->bar_epoch;
        s->reader = 0;
        s->rmask = 0;
    }
}

size_t emu_shared_index(const void *base, size_t i, size_t elem, int write, const char *file,
                        int line)
{
    emu_thread *t = emu_thread_require(write ? "SH_ST" : "SH_LD");
    emu_block *b = t->block;
    const emu_shared_alloc *a = emu_shared_find(b, base, 0);
    if (a == NULL)
        emu_fail(t, "%s at %s:%d on %p, which is not this block's shared memory; declare the "
                    "array with SHARED_ARRAY or EXTERN_SHARED",
                 write ? "SH_ST" : "SH_LD", file, line, base);
    size_t start = (size_t)((const char *)base - (b->smem + a->offset));
    size_t avail = a->bytes - start;
    if (elem == 0 || i >= avail / elem) {
        emu_fail(t, "out-of-bounds shared memory: %s at %s:%d %s element %lld of %s, which "
                    "has %zu bytes (%zu elements of %zu bytes from where the access starts)%s",
                 write ? "SH_ST" : "SH_LD", file, line, write ? "writes" : "reads",
                 (long long)i, a->name, a->bytes, avail / (elem ? elem : 1), elem,
                 (a->site == NULL && a->bytes == 0)
                     ? "; the launch asked for no dynamic shared memory"
                     : "; check the index against the array's size");
    }
    emu_shared_check_range(t, (const char *)base + i * elem, elem, write != 0, a->name, file,
                           line);
    return i;
}
