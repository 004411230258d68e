/*
 * current.c: "who am I", the bottom of emu/src's layers (docs/design.md "Layering"): the
 * block and emulated thread that the calling pthread runs, which every device call asks
 * first, and the calling host thread's device, which every host call asks first. It calls
 * no other file of emu/src but the leaf error.c (to exclude the device's bookkeeping words
 * from DRD), so every file can call it.
 *
 * A block's pthread runs its threads as fibers (block.c): while the pthread runs the block,
 * the block is this pthread's current block, and its `current` field names the fiber now
 * running (-1 while the block's scheduler runs). emu_view is the running thread's view, which
 * threadIdx, blockIdx, blockDim and gridDim read (shmemu/kernel.h).
 *
 * On the host side, the calling PE's device (emu_pe: its streams, SM pool, timing records
 * and settings) belongs to the PE's host thread: a thread-local pointer. It is made on the
 * PE's first CUDA call, by stream.c (emu_stream_device), which gives it its default stream
 * and its end. The end runs when the PE's main returns (pgas's exit hook), or else by a
 * thread-specific-data destructor when the thread ends: every stream is drained and joined
 * before the job that owns the PE is destroyed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "shmemu/internal/checkers.h"

_Thread_local const emu_thread_view *emu_view;
static _Thread_local emu_block *current_block;
static _Thread_local emu_pe *host_pe;
static pthread_key_t pe_key;

void emu_block_set_current(emu_block *b) { current_block = b; }

emu_block *emu_block_current(void) { return current_block; }

unsigned emu_smid(void)
{
    const emu_block *b = current_block;
    return b != NULL && b->sm >= 0 ? (unsigned)b->sm : 0u;
}

emu_thread *emu_thread_current(void)
{
    emu_block *b = current_block;
    if (b == NULL || b->current < 0)
        return NULL;
    return &b->threads[b->current];
}

emu_thread *emu_thread_require(const char *call)
{
    emu_thread *t = emu_thread_current();
    if (t == NULL) {
        fprintf(stderr, "shmemu: PE %d: %s: called outside a kernel; it is a device "
                        "function: call it from a KERNEL launched with LAUNCH\n",
                shmemu_my_pe(), call);
        fflush(NULL);
        abort();
    }
    return t;
}

/* ---- the calling PE's device ------------------------------------------------------------ */

emu_pe *emu_pe_current(void) { return host_pe; }

static double read_seconds(const char *name, double fallback)
{
    return shmemu_env_double(name, 1e-3, 1e6, "seconds", fallback);
}

static void pe_destroy(void *p)
{
    emu_pe *pe = p;
    pe->end(pe);
    host_pe = NULL;
    free(pe);
}

/* The PE's main returned: stop its streams while the host thread still belongs to the job
 * (deterministic mode needs every stream thread to leave the schedule before the host). */
static void pe_exit_hook(void)
{
    emu_pe *pe = host_pe;
    if (pe == NULL)
        return;
    pthread_setspecific(pe_key, NULL);
    pe_destroy(pe);
}

/* Created when the library is loaded, before any thread: pthread_once would be an ordering
 * that helgrind does not understand. */
__attribute__((constructor)) static void make_pe_key(void)
{
    pthread_key_create(&pe_key, pe_destroy);
}

emu_pe *emu_pe_create(const char *call, void (*end)(emu_pe *pe))
{
    if (emu_thread_current() != NULL) {
        fprintf(stderr, "shmemu: PE %d: %s: called inside a kernel; host calls (launches, "
                        "streams, events) are not available to device code\n",
                shmemu_my_pe(), call);
        fflush(NULL);
        abort();
    }
    pgas_thread *self = pgas_thread_self();
    if (self == NULL) {
        fprintf(stderr, "shmemu: %s: called on a thread that is no PE; call nvshmem_init() "
                        "first (kernels run on the calling PE)\n", call);
        fflush(NULL);
        abort();
    }
    emu_pe *pe = calloc(1, sizeof *pe);
    if (pe == NULL) {
        fprintf(stderr, "shmemu: out of memory for the emulator state\n");
        exit(2);
    }
    pe->pe = shmemu_my_pe();
    pe->host = self;
    pe->end = end;
    emu_checker_ignore(&pe->pool, sizeof pe->pool);
    emu_checker_ignore(&pe->records, sizeof pe->records);
    emu_checker_ignore(&pe->next_launch, sizeof pe->next_launch);
    if (shmemu_env_get("SHMEMU_EMU_SMS") != NULL) /* 0: no limit */
        atomic_init(&pe->pool.limit, (int)shmemu_env_int("SHMEMU_EMU_SMS", 0, EMU_MAX_SMS, 0));
    pe->stall_s = read_seconds("SHMEMU_EMU_STALL", shmemu_under_valgrind() ? 20.0 : 5.0);
    const char *v = shmemu_env_path("SHMEMU_EMU_TRACE", sizeof pe->trace_path);
    if (v != NULL) {
        snprintf(pe->trace_path, sizeof pe->trace_path, "%s", v);
        pe->timing = true;
    }
    host_pe = pe;
    pthread_setspecific(pe_key, pe);
    pgas_thread_set_exit_hook(pe_exit_hook);
    return pe;
}
