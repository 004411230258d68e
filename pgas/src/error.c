/*
 * error.c: misuse messages. Every message has the form
 *     shmemu: PE <p>: <call>: <what is wrong>; <what to do>
 * so that a user sees which PE, which call and which argument, and how to fix it.
 * Only the first fatal error prints: the abort that follows ends every PE.
 *
 * The voice: the shmem_ entry points are thin wrappers that forward to the nvshmem_ routines
 * of the same names, so the core names nvshmem_ calls. A PE that initialized through
 * shmem_init or shmem_init_thread speaks OpenSHMEM: its core messages are rewritten, the
 * call (nvshmem_int_put -> shmem_int_put) and the routines and team constants in the text
 * (nvshmem_malloc -> shmem_malloc, NVSHMEM_TEAM_WORLD -> SHMEM_TEAM_WORLD). Messages that
 * the shmem_ layer writes itself name shmem_ calls already and are left alone.
 *
 * Layer: just above "who am I" (self.c), below everything else, so that any file may fail
 * or complain. The names messages use for addresses ("PE 1's symmetric heap + 0x40") are
 * here for the same reason, and so is pgas_require, the check every API call starts with
 * (a PE thread, initialized), whose failures are misuse messages.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "events.h"
#include "nvshmem.h"

static _Atomic int failing; /* set by the first fatal error of the process */

void pgas_use_openshmem_names(void)
{
    pgas_thread *self = pgas_current();
    if (self != NULL)
        atomic_exchange(&self->world->pes[self->pe].openshmem_names, 1);
}

bool pgas_speaks_openshmem(const pgas_thread *t)
{
    return t != NULL && atomic_load(&t->world->pes[t->pe].openshmem_names) != 0;
}

const char *pgas_call_name(const pgas_thread *t, const char *call)
{
    if (call != NULL && pgas_speaks_openshmem(t) && strncmp(call, "nvshmem_", 8) == 0)
        return call + 2; /* nvshmem_long_wait_until -> shmem_long_wait_until */
    return call;
}

/* Rewrites the core's NVSHMEM names in text into OpenSHMEM's: nvshmem_malloc -> shmem_malloc,
 * NVSHMEM_TEAM_WORLD -> SHMEM_TEAM_WORLD. NVSHMEM's extensions (nvshmemx_) and the
 * environment variables the runtime reads (NVSHMEM_SYMMETRIC_SIZE) keep their names. */
static void openshmem_voice(const char *text, char *out, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; text[i] != '\0' && o + 1 < len; i++) {
        bool word_start = i == 0 || !(isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_');
        if (word_start && (strncmp(text + i, "nvshmem_", 8) == 0 ||
                           strncmp(text + i, "NVSHMEM_TEAM_", 13) == 0)) {
            i += 1; /* drop the "nv" / "NV" */
            continue;
        }
        out[o++] = text[i];
    }
    out[o] = '\0';
}

static void vreport(const char *call, const char *fmt, va_list ap)
{
    char message[1024];
    vsnprintf(message, sizeof message, fmt, ap);
    pgas_thread *self = pgas_current();
    /* The shmem_ layer forwards to the nvshmem_ routines, so a message of the core names the
     * nvshmem_ call; a PE that speaks OpenSHMEM (shmem_init) reads its own API's names. */
    if (pgas_speaks_openshmem(self)) {
        char translated[1024];
        openshmem_voice(message, translated, sizeof translated);
        memcpy(message, translated, sizeof message);
        if (strncmp(call, "nvshmem_", 8) == 0)
            call += 2; /* nvshmem_int_put -> shmem_int_put */
    }
    if (self != NULL)
        fprintf(stderr, "shmemu: PE %d: %s: %s\n", self->pe, call, message);
    else
        fprintf(stderr, "shmemu: %s: %s\n", call, message);
}

_Noreturn void pgas_fail(const char *call, const char *fmt, ...)
{
    if (atomic_exchange(&failing, 1) != 0) {
        for (;;)
            pause(); /* another thread is already aborting the process */
    }
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    vreport(call, fmt, ap);
    va_end(ap);
    fflush(NULL);
    /* the event log (SHMEMU_EVENTS) ends with the error */
    char message[1024], text[1200];
    vsnprintf(message, sizeof message, fmt, again);
    va_end(again);
    snprintf(text, sizeof text, "%s: %s", call, message);
    pgas_ev_early_end(NULL, PGAS_EV_ERROR, text);
    abort();
}

void pgas_complain(const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(call, fmt, ap);
    va_end(ap);
}

/* ---- naming an address --------------------------------------------------------------- */

void pgas_describe_address(const pgas_world *world, const volatile void *addr, char *out,
                           size_t len)
{
    size_t offset = 0;
    int owner = pgas_be_owner(world, addr, &offset);
    if (owner < 0) {
        snprintf(out, len, "%p (not in the symmetric heap)", (const void *)addr);
        return;
    }
    snprintf(out, len, "%p (PE %d's symmetric heap + 0x%zx)", (const void *)addr, owner, offset);
}

/* ---- the check every API call starts with -------------------------------------------- */

pgas_thread *pgas_require_attached(const char *call)
{
    pgas_thread *self = pgas_current();
    const pgas_thread *creator = NULL;
    const char *why = self == NULL ? pgas_no_pe_reason(&creator) : NULL;
    if (why != NULL)
        pgas_fail(pgas_call_name(creator, call), "called on a thread that PE %d created, %s",
                  creator->pe, why);
    if (self == NULL)
        pgas_fail(call, "called on a thread that is no PE; call it from a PE thread (a program "
                        "started by bin/shmemu-run or shmemu_launch) after shmem_init() or "
                        "nvshmem_init(), or from a thread a PE created with pthread_create, "
                        "thrd_create or a GCC OpenMP parallel region (libgomp) in a program "
                        "linked by bin/shmemu-cc or with pkg-config's shmemu-main (threads "
                        "created another way, such as C++'s std::thread or clang's OpenMP "
                        "runtime, belong to no PE)");
    return self;
}

pgas_thread *pgas_require(const char *call)
{
    pgas_thread *t = pgas_require_attached(call);
    int status = atomic_load_explicit(&t->world->pes[t->pe].init_status, memory_order_relaxed);
    if (__builtin_expect(t->app, 0) &&
        atomic_load_explicit(&t->world->pes[t->pe].finished, memory_order_relaxed))
        pgas_fail(call, "called on a thread that PE %d created, after PE %d's main returned; "
                        "join the threads a PE creates before its main returns", t->pe, t->pe);
    if (status != NVSHMEM_STATUS_IS_INITIALIZED && pgas_speaks_openshmem(t))
        pgas_fail(call, "called after shmem_finalize(); OpenSHMEM calls need an initialized "
                        "PE: finalize last");
    if (status != NVSHMEM_STATUS_IS_INITIALIZED)
        pgas_fail(call, "called before nvshmem_init() or shmem_init() (or after finalize); "
                        "initialize first");
    t->api_call = call;
    return t;
}
