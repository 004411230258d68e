/*
 * launch.c: kernel launches and the grid-wide barrier.
 *
 * emu_launch (the host side of LAUNCH) checks the configuration, copies the argument
 * struct and queues the launch on its stream. When the stream reaches it, emu_run_launch
 * (on the stream's thread) admits the blocks one by one into the PE's SM pool and starts a
 * pthread for each; with no residency limit every block is admitted at once, so every
 * block of every kernel in flight is live. The stream thread then joins every block: the
 * kernel happens before the stream's next operation.
 *
 * grid_sync: the block synchronizes, its thread 0 arrives at the launch's counter (a
 * release, annotated on a token per generation parity) and waits for the generation to
 * turn (an acquire), the block synchronizes again. It needs a cooperative launch
 * (LAUNCH_COOP), which refuses a grid larger than the residency limit, as CUDA does.
 *
 * This file and stream.c are the one import cycle of emu/src (docs/design.md "Layering"),
 * because a launch and its stream need each other: emu_launch enqueues the launch on its
 * stream (on the PE's device, which stream.c makes), and the stream's thread calls back into
 * this file to run it, free it and drop the block stacks cached on the stream.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <valgrind/helgrind.h>

#include "internal.h"
#include "shmemu/internal/checkers.h"

static bool dims_ok(dim3 d, unsigned max_x, unsigned max_y, unsigned max_z)
{
    return d.x >= 1 && d.y >= 1 && d.z >= 1 && d.x <= max_x && d.y <= max_y && d.z <= max_z;
}

cudaError_t emu_launch(const emu_kernel *k, dim3 grid, dim3 block, size_t dynamic_shared,
                       cudaStream_t stream, const void *args, size_t arg_size,
                       bool cooperative)
{
    const char *call = cooperative ? "LAUNCH_COOP" : "LAUNCH";
    emu_pe *pe = emu_stream_device(call);
    if (k == NULL || (arg_size > 0 && args == NULL)) {
        emu_complain(call, "no kernel or no arguments given");
        emu_set_error(cudaErrorInvalidValue);
        return cudaErrorInvalidValue;
    }
    if (arg_size != k->arg_size) {
        emu_complain(call, "kernel %s takes a %zu-byte argument struct but was given %zu bytes; "
                           "pass a variable of the kernel's argument type",
                     k->name, k->arg_size, arg_size);
        emu_set_error(cudaErrorInvalidValue);
        return cudaErrorInvalidValue;
    }
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
    if (!dims_ok(block, 1024, 1024, 64) || threads > EMU_MAX_THREADS ||
        !dims_ok(grid, 0x7fffffffu, 65535, 65535) || blocks > 1000000ull ||
        dynamic_shared > EMU_MAX_DYNAMIC_SHARED) {
        emu_complain(call, "kernel %s: invalid configuration: grid (%u,%u,%u), block "
                           "(%u,%u,%u), %zu bytes of dynamic shared memory; blocks have 1 to "
                           "1024 threads, grids 1 to 10^6 blocks here, dynamic shared memory "
                           "at most %u bytes",
                     k->name, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                     dynamic_shared, EMU_MAX_DYNAMIC_SHARED);
        emu_set_error(cudaErrorInvalidConfiguration);
        return cudaErrorInvalidConfiguration;
    }
    int limit = atomic_load(&pe->pool.limit);
    int resident = limit > 0 ? limit : EMU_MAX_SMS;
    if (cooperative && blocks > (unsigned long long)resident) {
        emu_complain(call, "kernel %s: a cooperative launch of %llu blocks cannot be resident "
                           "at once with %d SMs (SHMEMU_EMU_SMS); launch at most %d blocks",
                     k->name, blocks, resident, resident);
        emu_set_error(cudaErrorCooperativeLaunchTooLarge);
        return cudaErrorCooperativeLaunchTooLarge;
    }
    emu_launch_rec *L = calloc(1, sizeof *L);
    if (L == NULL || (L->args = malloc(arg_size ? arg_size : 1)) == NULL) {
        emu_set_error(cudaErrorMemoryAllocation);
        return cudaErrorMemoryAllocation;
    }
    memcpy(L->args, args, arg_size);
    L->kernel = k;
    L->grid = grid;
    L->block = block;
    L->dyn_smem = dynamic_shared;
    L->coop = cooperative;
    L->id = atomic_fetch_add(&pe->next_launch, 1) + 1;
    L->stream = emu_stream_resolve(pe, stream);
    L->pe = pe;
    L->n_blocks = (int)blocks;
    L->timing = pe->timing;
    if (L->stream->capture == NULL) /* SHMEMU_EVENTS; a captured launch runs as its copies */
        pgas_events_launch(k->name, L->id, (const unsigned[3]){grid.x, grid.y, grid.z},
                           (const unsigned[3]){block.x, block.y, block.z}, L->stream->id,
                           __builtin_return_address(0));
    emu_op *op = emu_op_new(EMU_OP_LAUNCH);
    op->launch = L;
    return emu_stream_enqueue(L->stream, op); /* on a capturing stream: recorded */
}

emu_launch_rec *emu_launch_copy(const emu_launch_rec *T, emu_stream *s)
{
    emu_launch_rec *L = calloc(1, sizeof *L);
    if (L == NULL || (L->args = malloc(T->kernel->arg_size ? T->kernel->arg_size : 1)) == NULL) {
        fprintf(stderr, "shmemu: out of memory replaying a launch of kernel %s\n",
                T->kernel->name);
        exit(2);
    }
    memcpy(L->args, T->args, T->kernel->arg_size);
    L->kernel = T->kernel;
    L->grid = T->grid;
    L->block = T->block;
    L->dyn_smem = T->dyn_smem;
    L->coop = T->coop;
    L->id = atomic_fetch_add(&s->pe->next_launch, 1) + 1;
    L->stream = s;
    L->pe = s->pe;
    L->n_blocks = T->n_blocks;
    L->timing = s->pe->timing;
    pgas_events_launch(L->kernel->name, L->id, (const unsigned[3]){L->grid.x, L->grid.y, L->grid.z},
                       (const unsigned[3]){L->block.x, L->block.y, L->block.z}, s->id, NULL);
    return L;
}

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102 /* Linux 6.13 (uapi asm-generic/mman-common.h) */
#endif

/* Makes the page at p a guard page: touching it faults. In deterministic mode,
 * madvise(MADV_GUARD_INSTALL) marks it in the page tables and keeps the mapping whole:
 * mprotect splits the mapping at every guard, one per fiber stack, and those splits and the
 * unmapping of mappings of that many pieces were a fifth of a short job's time under the
 * scheduler (docs/sched.md, "Explore"). Elsewhere, where the kernel lacks it (before Linux
 * 6.13) and under valgrind, which does not know it: mprotect(PROT_NONE), each guard a
 * mapping of its own (counted against vm.max_map_count, which test_emu_errors checks). */
static int guard_page(char *p)
{
    static _Atomic int no_guard_advice; /* the kernel refused it once */
    if (pgas_sched_enabled() && !shmemu_under_valgrind() &&
        !atomic_load_explicit(&no_guard_advice, memory_order_relaxed)) {
        if (madvise(p, EMU_GUARD_BYTES, MADV_GUARD_INSTALL) == 0)
            return 0;
        if (errno != EINVAL)
            return -1;
        atomic_store_explicit(&no_guard_advice, 1, memory_order_relaxed);
    }
    return mprotect(p, EMU_GUARD_BYTES, PROT_NONE);
}

/* A block's stack mapping: reused from this stream's cache when one of the same size is
 * there (its guard pages are in place; its contents are marked fresh for helgrind), or
 * mapped with a guard page below each fiber stack and below the pthread's stack. */
static char *stack_region_get(emu_stream *s, size_t bytes, size_t fiber_bytes)
{
    for (int i = s->n_cached - 1; i >= 0; i--) {
        if (s->cached_bytes[i] != bytes)
            continue;
        char *r = s->cached[i];
        s->cached[i] = s->cached[s->n_cached - 1];
        s->cached_bytes[i] = s->cached_bytes[s->n_cached - 1];
        s->n_cached--;
        VALGRIND_HG_CLEAN_MEMORY(r, bytes);
        return r;
    }
    char *r = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        emu_fail_mapping("the stacks of a block", bytes, errno);
    /* Each guard page splits the mapping: a failure here (ENOMEM at the process's limit on
     * mappings) would leave a stack without its guard, so it ends the run. */
    size_t slot = emu_fiber_stack_size() + EMU_GUARD_BYTES;
    for (size_t off = 0; off < fiber_bytes; off += slot)
        if (guard_page(r + off) != 0)
            emu_fail_mapping("a fiber stack's guard page", EMU_GUARD_BYTES, errno);
    if (guard_page(r + fiber_bytes) != 0)
        emu_fail_mapping("the block thread's guard page", EMU_GUARD_BYTES, errno);
    return r;
}

static void stack_region_put(emu_stream *s, char *r, size_t bytes)
{
    if (s->n_cached < EMU_STACK_CACHE) {
        s->cached[s->n_cached] = r;
        s->cached_bytes[s->n_cached] = bytes;
        s->n_cached++;
    } else {
        munmap(r, bytes);
    }
}

void emu_stack_cache_drop(emu_stream *s)
{
    for (int i = 0; i < s->n_cached; i++)
        munmap(s->cached[i], s->cached_bytes[i]);
    s->n_cached = 0;
}

/* At least n record slots on the stream (new ones empty). Grown only here, between
 * launches, so no block holds a pointer into the old array. */
static void block_records_reserve(emu_stream *s, int n)
{
    if (n <= s->n_block_records)
        return;
    pgas_thread **r = realloc(s->block_records, (size_t)n * sizeof *r);
    if (r == NULL) {
        fprintf(stderr, "shmemu: PE %d: out of memory for the records of %d blocks\n",
                s->pe->pe, n);
        exit(2);
    }
    for (int i = s->n_block_records; i < n; i++)
        r[i] = NULL;
    s->block_records = r;
    s->n_block_records = n;
}

void emu_run_launch(emu_launch_rec *L)
{
    emu_pe *pe = L->pe;
    L->blocks = calloc((size_t)L->n_blocks, sizeof *L->blocks);
    if (L->blocks == NULL) {
        fprintf(stderr, "shmemu: out of memory launching kernel %s\n", L->kernel->name);
        exit(2);
    }
    emu_checker_ignore(&L->grid_arrived, sizeof L->grid_arrived);
    emu_checker_ignore(&L->grid_generation, sizeof L->grid_generation);
    dim3 g = L->grid;
    for (int i = 0; i < L->n_blocks; i++) {
        emu_block *b = &L->blocks[i];
        b->launch = L;
        b->linear = i;
        b->idx = (dim3){(unsigned)i % g.x, ((unsigned)i / g.x) % g.y, (unsigned)i / (g.x * g.y)};
    }
    block_records_reserve(L->stream, L->n_blocks);
    for (int i = 0; i < L->n_blocks; i++)
        L->blocks[i].record_slot = &L->stream->block_records[i];
    emu_sm_register_waiting(pe, L->stream->level, L->n_blocks);
    for (int i = 0; i < L->n_blocks; i++) {
        emu_block *b = &L->blocks[i];
        b->sm = emu_sm_acquire(pe, L, i);
        /* One mapping per block: the fibers' stacks at the bottom (a guard page below
         * each), a guard page, the block pthread's own stack on top. One mapping, because
         * DRD takes everything between a thread's lowest stack pointer and its stack top
         * for stack, where it does not look for races. Not glibc's cache of thread
         * stacks, which would hand one PE's dead block's stack (and TLS) to another PE's
         * block with no ordering between them, which DRD reports; this stream's own cache
         * is fine: the stream thread joined the block that used the mapping before. */
        size_t n_threads = (size_t)L->block.x * L->block.y * L->block.z;
        b->stacks_bytes = (emu_fiber_stack_size() + EMU_GUARD_BYTES) * n_threads;
        size_t own = EMU_BLOCK_STACK_BYTES;
        b->own_stack_bytes = b->stacks_bytes + EMU_GUARD_BYTES + own;
        b->own_stack = stack_region_get(L->stream, b->own_stack_bytes, b->stacks_bytes);
        b->stacks = b->own_stack;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstack(&attr, b->own_stack + b->stacks_bytes + EMU_GUARD_BYTES, own);
        uint32_t mark = pgas_sched_spawn_mark();
        int rc = pgas_thread_create(&b->pthread, &attr, emu_block_main, b);
        pthread_attr_destroy(&attr);
        if (rc == 0)
            pgas_sched_spawn_wait(mark);
        if (rc != 0) {
            fprintf(stderr, "shmemu: PE %d: cannot start the thread of block %d of kernel %s: "
                            "%s; every block is a thread: use fewer blocks, or set "
                            "SHMEMU_EMU_SMS to bound the resident ones\n",
                    pe->pe, i, L->kernel->name, strerror(rc));
            exit(2);
        }
    }
    bool deterministic = pgas_sched_enabled();
    for (int i = 0; i < L->n_blocks; i++) {
        /* deterministic mode: the join must not block the turn holder; wait (a sync point)
         * until the block has left the schedule, after which it only returns */
        if (deterministic) {
            pgas_wait_value(&L->blocks[i].exited, PGAS_KIND_U32, NVSHMEM_CMP_NE, 0,
                            PGAS_RELAXED, "kernel completion (a block's exit)");
            pgas_sched_joined();
        }
        pthread_join(L->blocks[i].pthread, NULL);
        stack_region_put(L->stream, L->blocks[i].own_stack, L->blocks[i].own_stack_bytes);
    }
    if (L->timing)
        emu_records_add(pe, L);
}

void emu_launch_free(emu_launch_rec *L)
{
    free(L->blocks);
    free(L->args);
    free(L);
}

void emu_grid_sync(const char *file, int line)
{
    emu_thread *t = emu_thread_require("grid_sync");
    emu_block *b = t->block;
    emu_launch_rec *L = b->launch;
    if (!L->coop)
        emu_fail(t, "grid_sync at %s:%d in a kernel launched with LAUNCH; a grid-wide barrier "
                    "needs every block resident at once: launch it with LAUNCH_COOP",
                 file, line);
    emu_syncthreads(file, line);
    if (t->tid == 0) {
        uint64_t gen = ++b->grid_syncs;
        const char *token = &L->grid_token[gen & 1];
        /* the block's puts are delivered (not completed) before it arrives; the last to
         * arrive counts the sync on the PE before anyone leaves, so that a quiet after the
         * sync completes them (pgas_emu.h) */
        pgas_grid_sync_arrive();
        pgas_hb_before_gpu(token); /* a grid barrier: gpu scope */
        uint64_t ticket = atomic_fetch_add(&L->grid_arrived, 1) + 1;
        if (ticket == gen * (uint64_t)L->n_blocks) {
            pgas_grid_sync_release();
            (void)atomic_exchange(&L->grid_generation, gen);
            pgas_wake(&L->grid_generation);
        } else {
            pgas_thread_note_site(NULL, file, line); /* the hang report's "called at" */
            pgas_wait_value(&L->grid_generation, PGAS_KIND_U64, NVSHMEM_CMP_GE, gen,
                            PGAS_RELAXED, "grid_sync");
            pgas_thread_note_site(NULL, NULL, 0);
        }
        pgas_grid_sync_leave();
        pgas_hb_after(token);
    }
    emu_syncthreads(file, line);
}
