/*
 * error.c: misuse messages. Every message has the form
 *     shmemu: PE <p>: <call>: <what is wrong>; <what to do>
 * so that a user sees which PE, which call and which argument, and how to fix it.
 * Only the first fatal error prints: the abort that follows ends every PE.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static _Atomic int failing; /* set by the first fatal error of the process */

void pgas_use_openshmem_names(void)
{
    pgas_thread *self = pgas_current();
    if (self != NULL)
        atomic_exchange(&self->world->pes[self->pe].openshmem_names, 1);
}

static void vreport(const char *call, const char *fmt, va_list ap)
{
    char message[1024];
    vsnprintf(message, sizeof message, fmt, ap);
    pgas_thread *self = pgas_current();
    if (self != NULL && strncmp(call, "nvshmem_", 8) == 0 &&
        atomic_load(&self->world->pes[self->pe].openshmem_names))
        call += 2; /* nvshmem_int_put -> shmem_int_put */
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
    va_list ap;
    va_start(ap, fmt);
    vreport(call, fmt, ap);
    va_end(ap);
    fflush(NULL);
    abort();
}

void pgas_complain(const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(call, fmt, ap);
    va_end(ap);
}
