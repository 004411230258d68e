/*
 * sched_report.c: what every blocked thread waits for, who last wrote that word, and the
 * wait-for cycle (docs/sched.md, "Hang diagnosis").
 *
 * Used twice: by the deterministic scheduler when no entity can run (the deadlock is exact
 * there: every live entity waits on a condition that was false after the last write), and
 * by the free-running hang timeout (hang.c), which knows the same waits but not who wrote
 * last (that table is kept in deterministic mode only, so free-running writes stay cheap).
 *
 * For each waiting thread: its PE, label (host, "kernel K block B", "stream N") and the
 * emulated thread (fiber) that waits; the call; the word (symmetric heap offset and the
 * allocation holding it) with the comparison, the expected and the current value; the last
 * writer. Edges "A waits for B" go from a waiter to the last writer of its word when that
 * writer is itself waiting; a cycle among them is printed as the wait-for cycle. A word that
 * no runtime write ever touched is "the signal that nobody will send".
 *
 * The report runs while every other entity is parked (deterministic mode) or stuck (a hang),
 * and ends the process, so it reads the threads' records without ordering.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "events.h"
#include "sched.h"
#include "shmemu/env.h"

#define LD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define MAX_REPORTED 256

static void describe_fiber(uint64_t fiber, char *out, size_t len)
{
    if (fiber == 0) {
        out[0] = '\0';
        return;
    }
    fiber -= 1;
    snprintf(out, len, ", thread (%u,%u,%u)", (unsigned)(fiber & 0x1fffff),
             (unsigned)((fiber >> 21) & 0x1fffff), (unsigned)(fiber >> 42));
}

void pgas_describe_waiter(const pgas_thread *t, char *out, size_t len)
{
    char fib[64];
    describe_fiber(atomic_load(&t->wait.fiber), fib, sizeof fib);
    snprintf(out, len, "PE %d (%s%s)", t->pe, t->label, fib);
}

static const pgas_last_writer *last_writer_of(const pgas_world *world,
                                              const volatile void *addr)
{
    const pgas_sched *s = world->sched;
    if (s == NULL)
        return NULL;
    uintptr_t a = (uintptr_t)addr & ~(uintptr_t)7;
    const pgas_last_writer *set = &s->writers[pgas_last_writer_set(a)];
    for (int k = 0; k < PGAS_LAST_WRITER_WAYS; k++)
        if (LD(set[k].addr) == a && LD(set[k].thread) != NULL)
            return &set[k];
    return NULL;
}

/* Whether the set of addr is full of other words written a word at a time (a write of
 * addr may have been displaced: the report cannot say "none"). */
static bool last_writer_lost(const pgas_world *world, const volatile void *addr)
{
    const pgas_sched *s = world->sched;
    if (s == NULL)
        return false;
    uintptr_t a = (uintptr_t)addr & ~(uintptr_t)7;
    const pgas_last_writer *set = &s->writers[pgas_last_writer_set(a)];
    for (int k = 0; k < PGAS_LAST_WRITER_WAYS; k++)
        if (LD(set[k].thread) == NULL || !LD(set[k].small))
            return false;
    return true;
}

/* The order waiters are listed in. Under the scheduler: entity slots, which the schedule
 * assigns (a PE's host is slot PE; the others in the order they were created), so that a
 * replay prints the same report; the thread index (attachment order, which the PE threads'
 * start races decide) otherwise. */
static long waiter_rank(const pgas_world *world, const pgas_thread *t)
{
    if (world->sched != NULL && t->ent != NULL)
        return (long)(t->ent - world->sched->ents);
    return (long)t->index;
}

void pgas_last_writer_describe(const pgas_world *world, const volatile void *addr, char *out,
                               size_t len)
{
    const pgas_last_writer *w = last_writer_of(world, addr);
    if (w == NULL) {
        out[0] = '\0';
        return;
    }
    const pgas_thread *t = LD(w->thread);
    char fib[64];
    describe_fiber(LD(w->fiber), fib, sizeof fib);
    const char *call = pgas_call_name(t, LD(w->call));
    snprintf(out, len, "PE %d (%s%s) in %s, at decision %llu", t->pe, t->label, fib,
             call != NULL ? call : "(unknown call)",
             (unsigned long long)LD(w->decision));
}

/* "(PE 1's symmetric heap + 0x40, in the 64-byte allocation at + 0x40)" */
static void describe_word(const pgas_world *world, const volatile void *addr, char *out,
                          size_t len)
{
    size_t offset = 0;
    int owner = pgas_be_owner(world, addr, &offset);
    if (owner < 0) {
        pgas_describe_address(world, addr, out, len);
        return;
    }
    const pgas_heap_allocator *h = &world->pes[owner].heap;
    for (size_t i = 0; i < h->n_blocks; i++) {
        const pgas_heap_block *b = &h->blocks[i];
        if (!b->free && offset >= b->offset && offset < b->offset + b->size) {
            snprintf(out, len, "%p (PE %d's symmetric heap + 0x%zx: byte %zu of the %zu-byte "
                               "allocation at + 0x%zx)", (const void *)addr, owner, offset,
                     offset - b->offset, b->size, b->offset);
            return;
        }
    }
    pgas_describe_address(world, addr, out, len);
}

/* Code of shmemu itself: a source file of the runtime, whose line would not be the
 * program's, or a header of its layers (inline wrappers), which the program's line called. */
static bool in_runtime_source(const char *where)
{
    return strstr(where, "pgas/src/") != NULL || strstr(where, "emu/src/") != NULL ||
           strstr(where, "cuda/src/") != NULL;
}

static bool in_layer_header(const char *where)
{
    return strstr(where, "cuda/include/") != NULL || strstr(where, "emu/include/") != NULL ||
           strstr(where, "pgas/include/") != NULL || strstr(where, "include/shmemu/") != NULL;
}

static bool has_line(const char *where)
{
    return where[0] != '\0' && where[0] != '?' && strstr(where, ":?") == NULL &&
           strstr(where, ":0") != where + strlen(where) - 2;
}

/* The program's source line for a return address: "file.c:42 (in main)", by dladdr (the
 * object and its load address) and addr2line (binutils; the line needs -g). With -i,
 * addr2line follows inlining outwards: a call made in an inline wrapper of a layer's header
 * (cuda::atomic_ref's load, a cooperative group's sync) is named at the program's line that
 * the wrapper was inlined into. Without line information, "object+0xoffset", which
 * addr2line -e object turns into the line by hand. Nothing (out[0] == 0) when the address
 * is in the runtime's own code. True when out names a line. Runs only
 * while a report is printed (the process then exits), so a child process is fine. */
static bool describe_caller(uintptr_t pc, char *out, size_t len)
{
    out[0] = '\0';
    Dl_info info, self;
    if (pc == 0 || dladdr((void *)pc, &info) == 0 || info.dli_fbase == NULL)
        return false;
    const char *object = info.dli_fname;
    char exe[PATH_MAX];
    if (dladdr((void *)describe_caller, &self) != 0 && self.dli_fbase == info.dli_fbase) {
        /* the main program (its dli_fname may be empty): its path, not /proc/self/exe,
         * which would name addr2line in addr2line */
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n <= 0)
            return false;
        exe[n] = '\0';
        object = exe;
    }
    /* position-independent objects (ET_DYN) are looked up by offset, others by address */
    unsigned char ehdr[18] = {0};
    FILE *e = fopen(object, "rb");
    bool pie = e != NULL && fread(ehdr, 1, sizeof ehdr, e) == sizeof ehdr && ehdr[16] == 3;
    if (e != NULL)
        fclose(e);
    uintptr_t at = pc - 1 - (pie ? (uintptr_t)info.dli_fbase : 0); /* pc - 1: the call */
    char *cmd = NULL;
    size_t cmd_len = 0;
    FILE *m = open_memstream(&cmd, &cmd_len);
    if (m == NULL)
        return false;
    fputs("addr2line -f -C -i -e ", m);
    pgas_sched_put_quoted(m, object);
    fprintf(m, " 0x%llx 2>/dev/null", (unsigned long long)at);
    fclose(m);
    /* the frames, innermost first: the first one outside shmemu's code and headers, else
     * the innermost one in a header (a wrapper not inlined, at -O0) */
    char func[256] = "", where[512] = "", best_func[256] = "", best[512] = "";
    bool found = false, any = false;
    FILE *p = popen(cmd, "r");
    free(cmd);
    if (p != NULL) {
        while (fgets(func, sizeof func, p) != NULL && fgets(where, sizeof where, p) != NULL) {
            func[strcspn(func, "\n")] = '\0';
            where[strcspn(where, " \n")] = '\0'; /* "file:line (discriminator 1)" */
            if (found || !has_line(where))
                continue;
            /* a site inside the runtime (an OpenSHMEM call that went through its NVSHMEM
             * twin, a block call's first thread) would name the wrong line: not that */
            if (in_runtime_source(where)) {
                any = true;
                continue;
            }
            if (in_layer_header(where) && best[0] != '\0')
                continue;
            snprintf(best_func, sizeof best_func, "%s", func);
            snprintf(best, sizeof best, "%s", where);
            found = !in_layer_header(where);
        }
        pclose(p);
    }
    if (best[0] != '\0') {
        snprintf(out, len, "%s (in %s)", best, best_func[0] != '\0' ? best_func : "??");
        return true;
    }
    if (!any)
        snprintf(out, len, "%s+0x%llx (no line information: build with -g; addr2line, from "
                 "binutils, names the line)", info.dli_fname != NULL && info.dli_fname[0] != '\0'
                 ? info.dli_fname : object, (unsigned long long)at);
    return false;
}

bool pgas_source_line(uintptr_t pc, char *file, size_t file_len, int *line, char *func,
                      size_t func_len)
{
    char where[1024];
    file[0] = func[0] = '\0';
    *line = 0;
    if (!describe_caller(pc, where, sizeof where))
        return false;
    /* "path:line (in func)" */
    char *in = strstr(where, " (in ");
    if (in != NULL) {
        snprintf(func, func_len, "%.*s", (int)strcspn(in + 5, ")"), in + 5);
        *in = '\0';
    }
    char *colon = strrchr(where, ':');
    if (colon == NULL)
        return false;
    *line = atoi(colon + 1);
    snprintf(file, file_len, "%.*s", (int)(colon - where), where);
    return true;
}

/* The "called at" of a wait: its API call's own site, else the site that the emulator or the
 * CUDA layer noted for the call that made the wait (a return address, or a file and line). */
static void describe_wait_site(const pgas_wait_record *r, char *out, size_t len)
{
    char own[768], noted[768];
    const char *file = atomic_load(&r->site_file);
    if (describe_caller(atomic_load(&r->caller), own, sizeof own))
        snprintf(out, len, "%s", own);
    else if (describe_caller(atomic_load(&r->site_pc), noted, sizeof noted))
        snprintf(out, len, "%s", noted);
    else if (file != NULL)
        snprintf(out, len, "%s:%d", file, atomic_load(&r->site_line));
    else /* "object+0x...", without line information, or nothing */
        snprintf(out, len, "%s", own[0] != '\0' ? own : noted);
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

static bool is_idle_stream(const pgas_thread *t)
{
    const char *call = atomic_load(&t->wait.call);
    return call != NULL && strcmp(call, "a stream waiting for work") == 0;
}

int pgas_report_waits(pgas_world *world, FILE *f, const char *indent)
{
    const pgas_thread *waiters[MAX_REPORTED];
    int n = 0, idle = 0;
    for (pgas_thread *t = atomic_load(&world->threads); t != NULL; t = t->next) {
        if (!atomic_load(&t->live) || !atomic_load(&t->wait.active))
            continue;
        if (is_idle_stream(t)) {
            idle++;
            continue;
        }
        if (n < MAX_REPORTED)
            waiters[n++] = t;
    }
    /* PE hosts first, then blocks and streams in creation order */
    for (int i = 1; i < n; i++)
        for (int j = i;
             j > 0 && waiter_rank(world, waiters[j - 1]) > waiter_rank(world, waiters[j]); j--) {
            const pgas_thread *x = waiters[j];
            waiters[j] = waiters[j - 1];
            waiters[j - 1] = x;
        }
    int edge[MAX_REPORTED];
    for (int i = 0; i < n; i++) {
        const pgas_thread *t = waiters[i];
        const pgas_wait_record *r = &t->wait;
        const volatile void *addr = (const volatile void *)atomic_load(&r->addr);
        pgas_kind kind = (pgas_kind)atomic_load(&r->kind);
        const char *what = atomic_load(&r->what);
        char who[160], where[256], writer[256];
        pgas_describe_waiter(t, who, sizeof who);
        describe_word(world, addr, where, sizeof where);
        fprintf(f, "%s%s waits in %s", indent, who, pgas_call_name(t, atomic_load(&r->call)));
        if (world->sched == NULL)
            fprintf(f, " for %.1f s", (double)(pgas_now_ns() - atomic_load(&r->since_ns)) * 1e-9);
        fprintf(f, ": ");
        if (kind == PGAS_KIND_NONE) {
            fprintf(f, "%s, at %s\n", what != NULL ? what : "a condition", where);
        } else {
            fprintf(f, "word %s %s ", where, pgas_cmp_name(atomic_load(&r->cmp)));
            print_value(f, kind, atomic_load(&r->value));
            fprintf(f, ", current value ");
            print_value(f, kind, pgas_load_kind(addr, kind));
            fprintf(f, "\n");
        }
        char site[768];
        describe_wait_site(r, site, sizeof site);
        if (site[0] != '\0')
            fprintf(f, "%s    called at %s\n", indent, site);
        edge[i] = -1;
        const pgas_last_writer *w = last_writer_of(world, addr);
        if (world->sched == NULL) {
            fprintf(f, "%s    last writer: not tracked in free-running mode (replay the run "
                       "with SHMEMU_SCHED=rr or random to see it)\n", indent);
            continue;
        }
        if (w == NULL && last_writer_lost(world, addr)) {
            fprintf(f, "%s    last writer: not known (its set of the table of last writers "
                       "is full of other flags: a write of this word may have been dropped)\n",
                    indent);
            continue;
        }
        if (w == NULL) {
            fprintf(f, "%s    last writer: none: no runtime write ever reached this word, so "
                       "this is a signal that nobody sent%s\n", indent,
                    kind == PGAS_KIND_NONE ? " (or a condition over several words)" : "");
            continue;
        }
        pgas_last_writer_describe(world, addr, writer, sizeof writer);
        const pgas_thread *lw = LD(w->thread);
        for (int j = 0; j < n; j++)
            if (waiters[j] == lw)
                edge[i] = j;
        fprintf(f, "%s    last writer: %s%s\n", indent, writer,
                edge[i] >= 0 ? " (now waiting too)"
                             : (atomic_load(&lw->live) ? "" : " (finished: it will not write "
                                                               "again)"));
    }
    /* the first wait-for cycle, following waiter -> last writer */
    for (int i = 0; i < n; i++) {
        int slow = i, fast = i;
        bool cycle = false;
        for (int k = 0; k < n + 1; k++) {
            slow = edge[slow];
            fast = fast >= 0 ? edge[fast] : -1;
            fast = fast >= 0 ? edge[fast] : -1;
            if (slow < 0 || fast < 0)
                break;
            if (slow == fast) {
                cycle = true;
                break;
            }
        }
        if (!cycle)
            continue;
        fprintf(f, "%swait-for cycle (waiter -> the last writer of its word):", indent);
        int start = slow, j = start;
        do {
            char who[160];
            pgas_describe_waiter(waiters[j], who, sizeof who);
            fprintf(f, " %s ->", who);
            j = edge[j];
        } while (j != start && j >= 0);
        char who[160];
        pgas_describe_waiter(waiters[start], who, sizeof who);
        fprintf(f, " %s\n", who);
        break;
    }
    if (idle > 0)
        fprintf(f, "%s(%d stream thread(s) idle, waiting for work: not part of the hang)\n",
                indent, idle);
    return n;
}

void pgas_sched_put_quoted(FILE *f, const char *s)
{
    bool safe = *s != '\0';
    for (const char *p = s; *p != '\0' && safe; p++)
        safe = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:,+@%=-",
                      *p) != NULL;
    if (safe) {
        fputs(s, f);
        return;
    }
    fputc('\'', f);
    for (const char *p = s; *p != '\0'; p++) {
        if (*p == '\'')
            fputs("'\\''", f);
        else
            fputc(*p, f);
    }
    fputc('\'', f);
}

static void put_setting(FILE *f, const char *name, const char *value)
{
    fprintf(f, " %s=", name);
    pgas_sched_put_quoted(f, value);
}

extern char **environ;

/* The replay needs the job's whole setting, not only the schedule's: SHMEMU_NPES (a
 * program linked with shmemu-cc runs 1 PE without it), the heap size, the checking mode,
 * the planted bug, the emulator's SMs. They are all SHMEMU_* or NVSHMEM_* variables, so
 * every one of those is repeated, except the scheduler's own, which the replay sets. */
void pgas_sched_print_replay(FILE *f, const pgas_sched *s)
{
    static const char *const own[] = {"SHMEMU_SCHED=", "SHMEMU_SEED=", "SHMEMU_TRACE_OUT=",
                                      "SHMEMU_REPLAY=", "SHMEMU_SCHED_GUIDE=",
                                      "SHMEMU_PCT_DEPTH=", "SHMEMU_PCT_STEPS=", "SHMEMU_NPES=",
                                      "SHMEMU_DELAYS=", NULL};
    const pgas_config *cfg = &s->world->config;
    fprintf(f, "shmemu: replay:");
    char num[32];
    if (s->replaying) {
        put_setting(f, "SHMEMU_REPLAY", cfg->replay);
    } else if (cfg->trace_out[0] != '\0') {
        put_setting(f, "SHMEMU_REPLAY", cfg->trace_out);
    } else if (s->strategy == PGAS_SCHED_GUIDE) {
        put_setting(f, "SHMEMU_SCHED_GUIDE", cfg->guide);
    } else {
        put_setting(f, "SHMEMU_SCHED", pgas_sched_strategy_name(s->strategy));
        snprintf(num, sizeof num, "%llu", (unsigned long long)s->seed);
        put_setting(f, "SHMEMU_SEED", num);
        if (s->strategy == PGAS_SCHED_PCT) {
            snprintf(num, sizeof num, "%d", s->pct_depth);
            put_setting(f, "SHMEMU_PCT_DEPTH", num);
            snprintf(num, sizeof num, "%llu", (unsigned long long)s->pct_steps);
            put_setting(f, "SHMEMU_PCT_STEPS", num);
        }
        if (s->strategy == PGAS_SCHED_DELAY && s->n_delays > 0) {
            char set[PGAS_SCHED_MAX_DELAYS * 14 + 8];
            pgas_delays_format(s->delays, s->n_delays, set, sizeof set);
            put_setting(f, "SHMEMU_DELAYS", set);
        }
    }
    const char *npes = shmemu_env_get("SHMEMU_NPES"); /* as written: the replay re-reads it */
    if (npes == NULL) {
        snprintf(num, sizeof num, "%d", s->world->n_pes);
        npes = num;
    }
    put_setting(f, "SHMEMU_NPES", npes);
    for (char **e = environ; *e != NULL; e++) {
        const char *eq = strchr(*e, '=');
        if (eq == NULL || (strncmp(*e, "SHMEMU_", 7) != 0 && strncmp(*e, "NVSHMEM_", 8) != 0))
            continue;
        bool skip = false;
        for (int k = 0; own[k] != NULL && !skip; k++)
            skip = strncmp(*e, own[k], strlen(own[k])) == 0;
        if (skip)
            continue;
        fprintf(f, " %.*s", (int)(eq - *e + 1), *e);
        pgas_sched_put_quoted(f, eq + 1);
    }
    /* the command line, whole (the trace header keeps it cut and joined by spaces) */
    FILE *c = fopen("/proc/self/cmdline", "rb");
    char buf[8192];
    size_t n = c != NULL ? fread(buf, 1, sizeof buf - 1, c) : 0;
    if (c != NULL)
        fclose(c);
    buf[n] = '\0';
    if (n == 0)
        fprintf(f, " %s %s", s->header.program, s->header.args);
    for (size_t at = 0; at < n; at += strlen(buf + at) + 1) {
        fputc(' ', f);
        pgas_sched_put_quoted(f, buf + at);
    }
    fputc('\n', f);
}

_Noreturn void pgas_sched_deadlock(pgas_sched *s, const char *what)
{
    atomic_store(&s->finished, 1);
    pgas_world *world = s->world;
    /* Every other entity annotated "before" on its token when it blocked or exited, and
     * nobody else ever acquires these tokens: the report reads their records in order
     * for the checkers, and no edge appears between the program's threads. */
    int hwm = LD(s->hwm);
    for (int i = 0; i < hwm; i++)
        pgas_hb_after(&s->ents[i].report_token);
    FILE *f = stderr;
    fprintf(f, "shmemu: deadlock (deterministic scheduler, %s seed %llu, decision %llu): %s. "
               "Blocked:\n", pgas_sched_strategy_name(s->strategy),
            (unsigned long long)s->seed, (unsigned long long)LD(s->decisions), what);
    int n = pgas_report_waits(world, f, "  ");
    pgas_agree_report(world, f, "  ");
    for (int i = 0; i < hwm; i++) {
        const pgas_sched_entity *e = &s->ents[i];
        const pgas_thread *t = LD(e->thread);
        if (LD(e->state) != ENT_SOFT || t == NULL || atomic_load(&t->wait.active))
            continue;
        char who[160];
        pgas_describe_waiter(t, who, sizeof who);
        fprintf(f, "  %s polls in %s (a test or query that keeps failing)\n", who, LD(e->call));
    }
    fprintf(f, "shmemu: deadlock: %d thread(s) wait and none of them can ever be satisfied: "
               "no other thread of the job can run.\n", n);
    pgas_trace_flush(s);
    pgas_sched_print_replay(f, s);
    fflush(NULL);
    char text[512];
    snprintf(text, sizeof text, "deadlock (deterministic scheduler, %s seed %llu, decision "
                                "%llu): %s; %d thread(s) wait and none can be satisfied",
             pgas_sched_strategy_name(s->strategy), (unsigned long long)s->seed,
             (unsigned long long)LD(s->decisions), what, n);
    pgas_ev_early_end(world, PGAS_EV_HANG, text);
    _exit(PGAS_SCHED_DEADLOCK_EXIT);
}
