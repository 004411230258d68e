/*
 * current.c: "who am I", the bottom of emu/src's layers (docs/design.md "Layering"): the
 * block and emulated thread that the calling pthread runs, which every device call asks
 * first. It calls no other file of emu/src, so every file can call it.
 *
 * A block's pthread runs its threads as fibers (block.c): while the pthread runs the block,
 * the block is this pthread's current block, and its `current` field names the fiber now
 * running (-1 while the block's scheduler runs). emu_view is the running thread's view, which
 * threadIdx, blockIdx, blockDim and gridDim read (shmemu/kernel.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

_Thread_local const emu_thread_view *emu_view;
static _Thread_local emu_block *current_block;

void emu_block_set_current(emu_block *b) { current_block = b; }

emu_block *emu_block_current(void) { return current_block; }

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
