/*
 * hang.c: the report of a wait that never ends.
 *
 * When a wait exceeds SHMEMU_HANG_TIMEOUT, the waiting thread prints every thread of the
 * job that is waiting: its PE and label, the call, the word (with its place in the symmetric
 * heap), the comparison, the expected value and the value the word holds now. Then it exits
 * with status 3. The records are read without locks (their fields are atomics written by
 * their owners), so the report reflects each waiter as of the moment it is read.
 *
 * The report only reads (the waits, sched_report.c; the heap's collective calls, heap.c; the
 * collective call each PE is in, agree.c), so
 * it sits below park.c, whose waits call it when they time out.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "events.h"


bool pgas_thread_wait_info(const pgas_thread *t, pgas_wait_info *info)
{
    if (t == NULL || !atomic_load(&t->live) || !atomic_load(&t->wait.active))
        return false;
    const pgas_wait_record *r = &t->wait;
    info->addr = (const volatile void *)atomic_load(&r->addr);
    info->kind = (pgas_kind)atomic_load(&r->kind);
    info->cmp = atomic_load(&r->cmp);
    info->value = atomic_load(&r->value);
    info->call = atomic_load(&r->call);
    info->what = atomic_load(&r->what);
    info->since_ns = atomic_load(&r->since_ns);
    return atomic_load(&r->active) != 0;
}

_Noreturn void pgas_hang_report(pgas_world *world, const pgas_thread *reporter)
{
    /* One report per job: in the job's records, which the process backend's PE processes
     * share, so that two PE processes timing out together do not both report. */
    if (atomic_exchange(&world->hang_reported, 1) != 0) {
        for (;;)
            pause(); /* another waiter is already reporting */
    }
    /* The report goes to stderr and, when the event log is on, into its last event. */
    char *text = NULL;
    size_t text_len = 0;
    FILE *f = world->events != NULL ? open_memstream(&text, &text_len) : NULL;
    if (f == NULL)
        f = stderr;
    fprintf(f, "shmemu: hang: PE %d (%s) waited more than %g s (SHMEMU_HANG_TIMEOUT); "
               "pending waits:\n", reporter->pe, reporter->label, world->config.hang_timeout_s);
    int n_waiting = pgas_report_waits(world, f, "  ");
    /* A collective heap call that only some PEs made: name who is in it and who is not. */
    pgas_heap_report_pending(world, f, "  ");
    /* PEs in different collective calls, or on different teams: name each PE's call. */
    pgas_agree_report(world, f, "  ");
    int n_live = atomic_load(&world->live_threads);
    fprintf(f, "shmemu: hang: %d of %d live threads are waiting; the others are running or "
               "finished. Look for the put, signal or barrier that should have satisfied the "
               "first wait above.\n", n_waiting, n_live);
    if (f != stderr) {
        fclose(f);
        fputs(text, stderr);
    }
    fflush(NULL);
    pgas_ev_early_end(world, PGAS_EV_HANG, text);
    _exit(PGAS_HANG_EXIT_STATUS);
}
