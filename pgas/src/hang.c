/*
 * hang.c: the report of a wait that never ends.
 *
 * When a wait exceeds SHMEMU_HANG_TIMEOUT, the waiting thread prints every thread of the
 * job that is waiting: its PE and label, the call, the word (with its place in the symmetric
 * heap), the comparison, the expected value and the value the word holds now. Then it exits
 * with status 3. The records are read without locks (their fields are atomics written by
 * their owners), so the report reflects each waiter as of the moment it is read.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "internal.h"

static _Atomic int hang_reported;

void pgas_describe_address(const pgas_world *world, const volatile void *addr, char *out,
                           size_t len)
{
    int owner = pgas_heap_owner(world, addr);
    if (owner < 0) {
        snprintf(out, len, "%p (not in the symmetric heap)", (const void *)addr);
        return;
    }
    size_t offset = (size_t)((uintptr_t)addr - (uintptr_t)pgas_heap_base(world, owner));
    snprintf(out, len, "%p (PE %d's symmetric heap + 0x%zx)", (const void *)addr, owner, offset);
}

static void print_value(FILE *f, pgas_kind kind, uint64_t v)
{
    switch (kind) {
    case PGAS_KIND_I8: case PGAS_KIND_I16: case PGAS_KIND_I32: case PGAS_KIND_I64:
        fprintf(f, "%lld", (long long)(int64_t)v);
        break;
    default:
        fprintf(f, "%llu", (unsigned long long)v);
        break;
    }
}

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
    if (atomic_exchange(&hang_reported, 1) != 0) {
        for (;;)
            pause(); /* another waiter is already reporting */
    }
    FILE *f = stderr;
    fprintf(f, "shmemu: hang: PE %d (%s) waited more than %g s (SHMEMU_HANG_TIMEOUT); "
               "pending waits:\n", reporter->pe, reporter->label, world->config.hang_timeout_s);
    int n_waiting = 0;
    uint64_t now = pgas_now_ns();
    for (pgas_thread *t = atomic_load(&world->threads); t != NULL; t = t->next) {
        if (!atomic_load(&t->live) || !atomic_load(&t->wait.active))
            continue;
        n_waiting++;
        const pgas_wait_record *r = &t->wait;
        const volatile void *addr = (const volatile void *)atomic_load(&r->addr);
        pgas_kind kind = (pgas_kind)atomic_load(&r->kind);
        const char *what = atomic_load(&r->what);
        char where[160];
        pgas_describe_address(world, addr, where, sizeof where);
        fprintf(f, "  PE %d (%s) in %s for %.1f s: ", t->pe, t->label, atomic_load(&r->call),
                (double)(now - atomic_load(&r->since_ns)) * 1e-9);
        if (kind == PGAS_KIND_NONE) {
            fprintf(f, "%s, at %s\n", what != NULL ? what : "a condition", where);
            continue;
        }
        fprintf(f, "word %s %s ", where, pgas_cmp_name(atomic_load(&r->cmp)));
        print_value(f, kind, atomic_load(&r->value));
        fprintf(f, ", current value ");
        print_value(f, kind, pgas_load_kind(addr, kind));
        fprintf(f, "\n");
    }
    int n_live = atomic_load(&world->live_threads);
    fprintf(f, "shmemu: hang: %d of %d live threads are waiting; the others are running or "
               "finished. Look for the put, signal or barrier that should have satisfied the "
               "first wait above.\n", n_waiting, n_live);
    fflush(NULL);
    _exit(PGAS_HANG_EXIT_STATUS);
}
