/*
 * pe.c: a PE's emulator state ("who am I" on the host side).
 *
 * The emulator state of a PE (emu_pe: its streams, SM pool, timing records and settings)
 * belongs to the PE's host thread: a thread-local pointer, created on the first CUDA call
 * (emu_pe_get) together with the default stream. It is torn down when the PE's main returns
 * (pgas's exit hook), or else by a thread-specific-data destructor when the thread ends:
 * every stream is drained and joined before the job that owns the PE is destroyed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "shmemu/internal/checkers.h"

static _Thread_local emu_pe *host_pe;
static pthread_key_t pe_key;

/* ---- the PE's state -------------------------------------------------------------------- */

static double read_seconds(const char *name, double fallback)
{
    return shmemu_env_double(name, 1e-3, 1e6, "seconds", fallback);
}

static void pe_destroy(void *p)
{
    emu_pe *pe = p;
    while (pe->streams != NULL)
        emu_stream_free(pe, pe->streams);
    if (pe->trace_path[0] != '\0') {
        char path[600];
        const char *pct = strstr(pe->trace_path, "%d");
        if (pct != NULL)
            snprintf(path, sizeof path, "%.*s%d%s", (int)(pct - pe->trace_path), pe->trace_path,
                     pe->pe, pct + 2);
        else
            snprintf(path, sizeof path, "%s.%d", pe->trace_path, pe->pe);
        host_pe = pe; /* emu_trace_write reads the calling thread's state */
        if (emu_trace_write(path) != 0)
            fprintf(stderr, "shmemu: PE %d: could not write the trace %s\n", pe->pe, path);
    }
    host_pe = NULL;
    emu_record_chunk *c = atomic_load(&pe->records);
    while (c != NULL) {
        emu_record_chunk *next = c->next;
        free(c);
        c = next;
    }
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

emu_pe *emu_pe_get(const char *call)
{
    if (host_pe != NULL)
        return host_pe;
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
    emu_stream_new(pe, 0); /* the default stream, number 0 */
    return pe;
}
