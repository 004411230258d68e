/*
 * self.c: who am I, the bottom layer of pgas/src.
 *
 * Every pthread that acts for a PE (a PE's main thread, the emulator's block and stream
 * threads) finds its job, its PE and its own record through the thread-local `self`: the
 * only mutable state outside the job struct, as docs/design.md ("Conventions") allows for
 * "who am I". world.c sets it when a thread attaches and clears it when the thread detaches;
 * every other file reads it here. The emulator's hooks on the same thread (which emulated
 * thread runs on it now, what to do before it leaves its job) are per-thread too and live
 * beside it.
 *
 * This file calls no other file of pgas/src, so that every file may ask "who am I"
 * (docs/design.md, "Layering").
 */
#include <stddef.h>

#include "internal.h"

static _Thread_local pgas_thread *self;

pgas_thread *pgas_current(void) { return self; }

pgas_thread *pgas_thread_self(void) { return self; }

void pgas_set_current(pgas_thread *t) { self = t; }

/* Why this thread, created by a PE, belongs to no PE (app_thread.c), or NULL; and the
 * thread that created it. */
static _Thread_local const char *no_pe_reason;
static _Thread_local const pgas_thread *no_pe_creator;

void pgas_set_no_pe_reason(const char *why, const pgas_thread *creator)
{
    no_pe_reason = why;
    no_pe_creator = creator;
}

const char *pgas_no_pe_reason(const pgas_thread **creator)
{
    *creator = no_pe_creator;
    return no_pe_reason;
}

int shmemu_my_pe(void) { return self != NULL ? self->pe : -1; }

void pgas_thread_note_call(const char *call)
{
    if (self != NULL)
        self->api_call = call;
}

void pgas_thread_note_site(const void *pc, const char *file, int line)
{
    if (self != NULL)
        self->site = (pgas_call_site){.pc = pc, .file = file, .line = line};
}

/* ---- the emulator's hooks of this thread (pgas_emu.h) -------------------------------- */

static _Thread_local uint64_t (*fiber_hook)(void *ctx);
static _Thread_local void *fiber_hook_ctx;
static _Thread_local void (*exit_hook)(void);

void pgas_thread_set_fiber_hook(uint64_t (*fiber)(void *ctx), void *ctx)
{
    fiber_hook = fiber;
    fiber_hook_ctx = ctx;
}

uint64_t pgas_thread_current_fiber(void)
{
    return fiber_hook != NULL ? fiber_hook(fiber_hook_ctx) : 0;
}

void pgas_thread_set_exit_hook(void (*hook)(void)) { exit_hook = hook; }

void pgas_thread_run_exit_hook(void)
{
    void (*hook)(void) = exit_hook;
    exit_hook = NULL;
    if (hook != NULL)
        hook();
}
