/*
 * events_write.c: the event log's file (SHMEMU_EVENTS=FILE; the format: docs/events.md).
 *
 * A job whose environment names a file gets a log when it is created (world.c); the file is
 * probed then (exit 2 when it cannot be written, or on another backend than threads). At the
 * end (after the PE threads were joined), or on an early end (events.c's hook: a hang
 * report, a deadlock, a fatal error, exit), the threads' logs are merged by seq, renumbered
 * 0..N-1 with the happens-before edges among them, and written whole: FILE.tmp.<pid>, then
 * renamed.
 *
 * Edges are found here, not while the job runs: a satisfied wait's edge comes from the
 * latest write before it (in seq order) of the same word that left the value the wait saw
 * (a put-with-signal's or a signal's signal, an atomic, a put of the word's size); a
 * barrier_done's from the last barrier_start of the same barrier instance (the barrier and
 * its generation). Writes number themselves before they act (events.h), so the write a wait
 * saw is always before it; two writes that leave the same value are told apart by order only.
 * Return addresses become file:line once per distinct address (addr2line, sched_report.c).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "events.h"
#include "nvshmem.h"
#include "sched.h"

static const char *const op_names[PGAS_EV_N_OPS] = {
    "put", "get", "put_nbi", "get_nbi", "put_signal", "signal", "amo", "wait_start",
    "wait_done", "fence", "quiet", "barrier_start", "barrier_done", "launch", "block_start",
    "block_end", "hang", "error", "alloc"};

static const char *amo_name(int op)
{
    static const char *const names[] = {"fetch", "set", "swap", "cswap",
                                        "fetch_add", "fetch_and", "fetch_or", "fetch_xor"};
    return op >= 0 && op < 8 ? names[op] : "?";
}

static const char *cmp_name(int cmp)
{
    switch (cmp) {
    case NVSHMEM_CMP_EQ: return "eq";
    case NVSHMEM_CMP_NE: return "ne";
    case NVSHMEM_CMP_GT: return "gt";
    case NVSHMEM_CMP_GE: return "ge";
    case NVSHMEM_CMP_LT: return "lt";
    case NVSHMEM_CMP_LE: return "le";
    default: return "?";
    }
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s != NULL && *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* ---- the merged log ------------------------------------------------------------------ */

typedef struct site {
    const void *pc;
    char file[512];
    char func[128];
    int line;
} site;

typedef struct merged {
    pgas_world *world;
    pgas_event **ev; /* every event, by seq */
    size_t n;
    pgas_event **alloc; /* the alloc records, by seq */
    size_t n_alloc;
    site *sites; /* distinct return addresses, sorted */
    size_t n_sites;
} merged;

static int by_seq(const void *a, const void *b)
{
    const pgas_event *x = *(pgas_event *const *)a, *y = *(pgas_event *const *)b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_pc(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const site *)a)->pc, y = (uintptr_t)((const site *)b)->pc;
    return x < y ? -1 : x > y;
}

/* Every event of the job's logs, by seq; early: other threads may still append (a hang, an
 * error), so the checkers are told to let these reads be (the process ends next). */
static bool merge(pgas_ev_job *job, merged *m, bool early)
{
    if (early)
        for (pgas_ev_log *l = atomic_load(&job->logs); l != NULL; l = l->next) {
            pgas_checker_forget(l, sizeof *l);
            for (pgas_ev_chunk *c = l->head; c != NULL; c = c->next)
                pgas_checker_forget(c, sizeof *c);
        }
    size_t total = 0;
    for (pgas_ev_log *l = atomic_load(&job->logs); l != NULL; l = l->next)
        for (pgas_ev_chunk *c = l->head; c != NULL; c = c->next)
            total += atomic_load_explicit(&c->n, memory_order_relaxed);
    m->ev = calloc(total + 1, sizeof *m->ev);
    m->alloc = calloc(total + 1, sizeof *m->alloc);
    m->sites = calloc(total + 1, sizeof *m->sites);
    if (m->ev == NULL || m->alloc == NULL || m->sites == NULL)
        return false;
    for (pgas_ev_log *l = atomic_load(&job->logs); l != NULL; l = l->next)
        for (pgas_ev_chunk *c = l->head; c != NULL; c = c->next) {
            size_t n = atomic_load_explicit(&c->n, memory_order_relaxed);
            for (size_t i = 0; i < n && m->n + m->n_alloc < total; i++) {
                pgas_event *e = &c->ev[i];
                if (e->op == PGAS_EV_ALLOC)
                    m->alloc[m->n_alloc++] = e;
                else
                    m->ev[m->n++] = e;
                if (e->pc != NULL)
                    m->sites[m->n_sites++].pc = e->pc;
            }
        }
    qsort(m->ev, m->n, sizeof *m->ev, by_seq);
    qsort(m->alloc, m->n_alloc, sizeof *m->alloc, by_seq);
    qsort(m->sites, m->n_sites, sizeof *m->sites, by_pc);
    size_t k = 0;
    for (size_t i = 0; i < m->n_sites; i++)
        if (k == 0 || m->sites[k - 1].pc != m->sites[i].pc)
            m->sites[k++].pc = m->sites[i].pc;
    m->n_sites = k;
    for (size_t i = 0; i < m->n_sites; i++) {
        site *s = &m->sites[i];
        if (!pgas_source_line((uintptr_t)s->pc, s->file, sizeof s->file, &s->line, s->func,
                              sizeof s->func))
            s->line = 0;
    }
    return true;
}

static const site *site_of(const merged *m, const void *pc)
{
    site key = {.pc = pc};
    const site *s = pc != NULL ? bsearch(&key, m->sites, m->n_sites, sizeof key, by_pc) : NULL;
    return s != NULL && s->line > 0 ? s : NULL;
}

/* ---- naming memory ------------------------------------------------------------------- */

static void put_addr(FILE *f, const merged *m, const char *field, pgas_ev_addr a,
                     uint64_t before_seq)
{
    fprintf(f, ",\"%s\":{\"obj\":", field);
    if (a.kind == PGAS_EV_HEAP) {
        for (size_t i = m->n_alloc; i-- > 0;) {
            const pgas_event *al = m->alloc[i];
            if (al->seq > before_seq || a.at < al->dst.at || a.at >= al->dst.at + al->bytes)
                continue;
            fprintf(f, "\"heap@%llu\",\"off\":%llu", (unsigned long long)al->dst.at,
                    (unsigned long long)(a.at - al->dst.at));
            const site *s = site_of(m, al->pc);
            if (s != NULL) {
                char where[700];
                const char *base = strrchr(s->file, '/');
                snprintf(where, sizeof where, "%s at %s:%d", (const char *)al->obj,
                         base != NULL ? base + 1 : s->file, s->line);
                fputs(",\"alloc\":", f);
                json_str(f, where);
            }
            fputc('}', f);
            return;
        }
        fprintf(f, "\"heap@?\",\"off\":%llu}", (unsigned long long)a.at);
        return;
    }
    Dl_info info;
    if (a.kind == PGAS_EV_RAW && dladdr((void *)(uintptr_t)a.at, &info) != 0 &&
        info.dli_sname != NULL) {
        json_str(f, info.dli_sname);
        fprintf(f, ",\"off\":%llu}",
                (unsigned long long)(a.at - (uintptr_t)info.dli_saddr));
        return;
    }
    fprintf(f, "\"?\",\"off\":0}");
}

static void team_name(const pgas_world *w, const void *barrier, char *out, size_t len)
{
    static const char *const predefined[PGAS_TEAM_PREDEFINED] = {
        "world", "shared", "node", "same_mype_node", "same_gpu", "gpu_leaders"};
    for (int i = 0; i < PGAS_MAX_TEAMS; i++)
        if (barrier == &w->teams[i].barrier) {
            if (i < PGAS_TEAM_PREDEFINED)
                snprintf(out, len, "%s", predefined[i]);
            else
                snprintf(out, len, "team %d", i);
            return;
        }
    for (int p = 0; p < w->n_pes; p++)
        if (barrier == &w->pes[p].self_team.barrier) {
            snprintf(out, len, "self");
            return;
        }
    for (int s = 0; s < PGAS_MAX_ACTIVE_SETS; s++)
        if (barrier == &w->active_sets[s].team.barrier) {
            snprintf(out, len, "active set %d", s);
            return;
        }
    snprintf(out, len, "?");
}

/* ---- happens-before edges ------------------------------------------------------------ */

/* The word a write left a value in (its PE, address and size), or false. */
static bool written_word(const pgas_event *e, int *pe, pgas_ev_addr *a, unsigned *size)
{
    if (!e->has_after)
        return false;
    *pe = e->peer;
    *size = e->size;
    switch (e->op) {
    case PGAS_EV_PUT: case PGAS_EV_PUT_NBI: case PGAS_EV_AMO: *a = e->dst; return true;
    case PGAS_EV_PUT_SIGNAL: case PGAS_EV_SIGNAL: *a = e->sig; return true;
    default: return false;
    }
}

static const char *edge_kind(const pgas_event *e)
{
    switch (e->op) {
    case PGAS_EV_AMO: return "amo";
    case PGAS_EV_PUT: case PGAS_EV_PUT_NBI: return "put";
    case PGAS_EV_BARRIER_START: return "barrier";
    default: return "signal";
    }
}

/* The index of the event that event i acquired from, or -1. */
static long edge_from(const merged *m, size_t i)
{
    const pgas_event *w = m->ev[i];
    if (w->op == PGAS_EV_BARRIER_DONE) {
        for (size_t j = i; j-- > 0;) {
            const pgas_event *s = m->ev[j];
            if (s->op == PGAS_EV_BARRIER_START && s->obj == w->obj && s->gen == w->gen)
                return (long)j;
        }
        return -1;
    }
    if (w->op != PGAS_EV_WAIT_DONE || w->sig.kind == PGAS_EV_NOWHERE)
        return -1;
    uint64_t mask = w->size >= 8 ? ~0ull : (1ull << (8 * w->size)) - 1;
    for (size_t j = i; j-- > 0;) {
        const pgas_event *x = m->ev[j];
        int pe;
        pgas_ev_addr a;
        unsigned size;
        if (written_word(x, &pe, &a, &size) && pe == w->pe && a.kind == w->sig.kind &&
            a.at == w->sig.at && size == w->size && (x->after & mask) == (w->seen & mask))
            return (long)j;
    }
    return -1;
}

/* ---- writing ------------------------------------------------------------------------- */

static bool signed_kind(uint64_t kind)
{
    return kind == PGAS_KIND_I8 || kind == PGAS_KIND_I16 || kind == PGAS_KIND_I32 ||
           kind == PGAS_KIND_I64;
}

static void put_value(FILE *f, const char *field, uint64_t v, bool is_signed)
{
    if (is_signed)
        fprintf(f, ",\"%s\":%lld", field, (long long)v);
    else
        fprintf(f, ",\"%s\":%llu", field, (unsigned long long)v);
}

static void put_waits(FILE *f, const merged *m)
{
    pgas_world *w = m->world;
    fputs(",\"waits\":[", f);
    bool first = true;
    for (pgas_thread *t = atomic_load(&w->threads); t != NULL; t = t->next) {
        pgas_wait_info info;
        if (!pgas_thread_wait_info(t, &info))
            continue;
        /* where, as events say it, and the thread's label ("kernel K block B", "stream S") */
        const char *where = strncmp(t->label, "kernel ", 7) == 0   ? "block"
                            : strncmp(t->label, "stream ", 7) == 0 ? "stream"
                                                                   : "host";
        fprintf(f, "%s{\"pe\":%d,\"where\":\"%s\",\"label\":", first ? "" : ",", t->pe,
                where);
        first = false;
        json_str(f, t->label);
        size_t off = 0;
        int owner = pgas_be_owner(w, info.addr, &off);
        pgas_ev_addr a = {owner >= 0 ? PGAS_EV_HEAP : PGAS_EV_RAW,
                          owner >= 0 ? off : (uintptr_t)info.addr};
        put_addr(f, m, "sig", a, UINT64_MAX);
        fputs(",\"call\":", f);
        json_str(f, info.call);
        if (info.kind != PGAS_KIND_NONE) {
            fprintf(f, ",\"cmp\":\"%s\"", cmp_name(info.cmp));
            put_value(f, "value", info.value, signed_kind(info.kind));
            put_value(f, "seen", pgas_load_kind(info.addr, info.kind), signed_kind(info.kind));
        }
        char file[512], func[128];
        int line = 0;
        if (pgas_source_line(atomic_load(&t->wait.caller), file, sizeof file, &line, func,
                             sizeof func)) {
            fputs(",\"file\":", f);
            json_str(f, file);
            fprintf(f, ",\"line\":%d", line);
        }
        fputc('}', f);
    }
    fputc(']', f);
}

static void put_header(FILE *f, const merged *m, size_t n_lines, uint64_t dropped)
{
    const pgas_world *w = m->world;
    char cmdline[8192];
    size_t len = 0;
    FILE *c = fopen("/proc/self/cmdline", "rb");
    if (c != NULL) {
        len = fread(cmdline, 1, sizeof cmdline - 1, c);
        fclose(c);
    }
    cmdline[len] = '\0';
    fputs("{\"shmemu_events\":1,\"program\":", f);
    json_str(f, cmdline);
    fputs(",\"args\":[", f);
    size_t at = strlen(cmdline) + 1;
    for (bool first = true; at < len; at += strlen(cmdline + at) + 1, first = false) {
        if (!first)
            fputc(',', f);
        json_str(f, cmdline + at);
    }
    fprintf(f, "],\"npes\":%d,\"backend\":\"threads\",\"order\":\"%s\",\"sched\":", w->n_pes,
            w->events->sched ? "sched" : "time");
    if (w->events->sched) {
        json_str(f, pgas_sched_strategy_name(w->config.sched_strategy));
        fprintf(f, ",\"seed\":%llu", (unsigned long long)w->config.sched_seed);
    } else {
        fputs("null,\"seed\":null", f);
    }
    fprintf(f, ",\"events\":%zu,\"dropped\":%llu}\n", n_lines, (unsigned long long)dropped);
}

static void put_event(FILE *f, const merged *m, const pgas_event *e, size_t seq)
{
    const pgas_world *w = m->world;
    fprintf(f, "{\"seq\":%zu,\"t\":%llu,\"pe\":%d,\"op\":\"%s\"", seq,
            (unsigned long long)(w->events->sched ? seq : e->t_ns), e->pe, op_names[e->op]);
    if (e->where == PGAS_EV_BLOCK) {
        fputs(",\"where\":\"block\",\"kernel\":", f);
        json_str(f, e->kernel);
        fprintf(f, ",\"launch\":%u,\"block\":%d,\"thread\":%d", e->launch, e->block, e->thread);
    } else if (e->where == PGAS_EV_STREAM) {
        fprintf(f, ",\"where\":\"stream\",\"stream\":%d", e->stream);
    } else {
        fputs(",\"where\":\"host\"", f);
    }
    const site *s = site_of(m, e->pc);
    if (s != NULL) {
        fputs(",\"file\":", f);
        json_str(f, s->file);
        fprintf(f, ",\"line\":%d,\"func\":", s->line);
        json_str(f, s->func);
    }
    switch (e->op) {
    case PGAS_EV_PUT: case PGAS_EV_PUT_NBI: case PGAS_EV_PUT_SIGNAL:
        fprintf(f, ",\"peer\":%d", e->peer);
        put_addr(f, m, "dst", e->dst, e->seq);
        fprintf(f, ",\"bytes\":%llu", (unsigned long long)e->bytes);
        if (e->op == PGAS_EV_PUT_SIGNAL) {
            put_addr(f, m, "sig", e->sig, e->seq);
            fprintf(f, ",\"sig_op\":\"%s\"", e->sub == NVSHMEM_SIGNAL_ADD ? "add" : "set");
            put_value(f, "value", e->value, false);
        }
        break;
    case PGAS_EV_GET: case PGAS_EV_GET_NBI:
        fprintf(f, ",\"peer\":%d", e->peer);
        put_addr(f, m, "src", e->src, e->seq);
        fprintf(f, ",\"bytes\":%llu", (unsigned long long)e->bytes);
        break;
    case PGAS_EV_SIGNAL:
        fprintf(f, ",\"peer\":%d", e->peer);
        put_addr(f, m, "sig", e->sig, e->seq);
        fprintf(f, ",\"sig_op\":\"%s\"", e->sub == NVSHMEM_SIGNAL_ADD ? "add" : "set");
        put_value(f, "value", e->value, false);
        break;
    case PGAS_EV_AMO:
        fprintf(f, ",\"peer\":%d", e->peer);
        put_addr(f, m, "dst", e->dst, e->seq);
        fprintf(f, ",\"amo\":\"%s\"", e->kernel_op != NULL ? e->kernel_op : amo_name(e->sub));
        put_value(f, "value", e->value, false);
        if (e->has_fetched)
            put_value(f, "fetched", e->seen, false);
        break;
    case PGAS_EV_WAIT_START: case PGAS_EV_WAIT_DONE:
        put_addr(f, m, "sig", e->sig, e->seq);
        fprintf(f, ",\"cmp\":\"%s\"", cmp_name(e->sub));
        put_value(f, "value", e->value, signed_kind(e->bytes));
        if (e->op == PGAS_EV_WAIT_DONE)
            put_value(f, "seen", e->seen, signed_kind(e->bytes));
        break;
    case PGAS_EV_BARRIER_START: case PGAS_EV_BARRIER_DONE: {
        char team[64];
        team_name(w, e->obj, team, sizeof team);
        fputs(",\"team\":", f);
        json_str(f, team);
        fprintf(f, ",\"generation\":%u", e->gen);
        break;
    }
    case PGAS_EV_LAUNCH:
        fputs(",\"kernel\":", f);
        json_str(f, e->kernel);
        fprintf(f, ",\"launch\":%u,\"grid\":[%u,%u,%u],\"block_dim\":[%u,%u,%u],\"stream\":%d",
                e->launch, e->dims[0], e->dims[1], e->dims[2], e->dims[3], e->dims[4],
                e->dims[5], e->stream);
        break;
    case PGAS_EV_BLOCK_START: case PGAS_EV_BLOCK_END:
        fprintf(f, ",\"sm\":%d", e->sm);
        break;
    case PGAS_EV_HANG: case PGAS_EV_ERROR:
        fputs(",\"text\":", f);
        json_str(f, e->text);
        if (e->op == PGAS_EV_HANG)
            put_waits(f, m);
        break;
    default:
        break;
    }
    fputs("}\n", f);
}

static int write_file(pgas_world *w, const merged *m, const long *from, size_t n_lines,
                      uint64_t dropped)
{
    const char *path = w->events->path;
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return -1;
    put_header(f, m, n_lines, dropped);
    size_t *out = calloc(m->n + 1, sizeof *out);
    size_t seq = 0;
    for (size_t i = 0; i < m->n; i++) {
        out[i] = seq;
        put_event(f, m, m->ev[i], seq++);
        if (from[i] >= 0)
            fprintf(f, "{\"seq\":%zu,\"op\":\"hb\",\"from\":%zu,\"to\":%zu,\"kind\":\"%s\"}\n",
                    seq++, out[from[i]], out[i], edge_kind(m->ev[from[i]]));
    }
    free(out);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static void write_log_at(pgas_world *w, bool early)
{
    pgas_ev_job *job = w->events;
    if (job == NULL || atomic_exchange(&job->written, 1) != 0)
        return;
    if (early)
        pgas_checker_unchecked_reads(true);
    merged m = {.world = w};
    long *from = NULL;
    bool ok = merge(job, &m, early) && (from = calloc(m.n + 1, sizeof *from)) != NULL;
    size_t n_lines = m.n;
    for (size_t i = 0; ok && i < m.n; i++) {
        from[i] = edge_from(&m, i);
        n_lines += from[i] >= 0;
    }
    if (!ok || write_file(w, &m, from, n_lines, atomic_load(&job->dropped)) != 0)
        fprintf(stderr, "shmemu: cannot write the event log SHMEMU_EVENTS=%s\n", job->path);
    free(from);
    free(m.ev);
    free(m.alloc);
    free(m.sites);
    if (early)
        pgas_checker_unchecked_reads(false);
}

/* events.c's hook: an early end, while the job's threads may still run. */
static void write_log_early(pgas_world *w) { write_log_at(w, true); }

static void write_at_exit(void)
{
    pgas_world *w = pgas_ev_active_job();
    if (w != NULL)
        write_log_at(w, true);
}

void pgas_ev_job_begin(pgas_world *world)
{
    const pgas_config *c = &world->config;
    if (c->events[0] == '\0')
        return;
    if (world->backend->processes || world->backend->ranks) {
        fprintf(stderr, "shmemu: SHMEMU_EVENTS=%s: the event log records the threads backend "
                        "only, not SHMEMU_BACKEND=%s; unset SHMEMU_BACKEND (and run without "
                        "mpirun) to record, or unset SHMEMU_EVENTS\n", c->events,
                world->backend->name);
        exit(2);
    }
    pgas_check_output("SHMEMU_EVENTS", c->events, "the event log");
    pgas_ev_job *job = calloc(1, sizeof *job);
    if (job == NULL) {
        fprintf(stderr, "shmemu: out of memory for the event log (SHMEMU_EVENTS)\n");
        exit(2);
    }
    pgas_checker_ignore(job, sizeof *job);
    snprintf(job->path, sizeof job->path, "%s", c->events);
    job->t0_ns = pgas_now_ns();
    job->sched = c->sched_strategy != PGAS_SCHED_OFF || c->replay[0] != '\0' ||
                 c->guide[0] != '\0';
    world->events = job;
    __atomic_fetch_add(&pgas_events_jobs, 1, __ATOMIC_RELAXED);
    static _Atomic int at_exit;
    if (atomic_exchange(&at_exit, 1) == 0)
        atexit(write_at_exit);
    pgas_ev_set_writer(write_log_early, world);
}

void pgas_ev_job_end(pgas_world *world)
{
    pgas_ev_job *job = world->events;
    if (job == NULL)
        return;
    write_log_at(world, false); /* the job's threads were joined */
    pgas_ev_set_writer(write_log_early, NULL);
    for (pgas_ev_log *l = atomic_load(&job->logs), *next; l != NULL; l = next) {
        next = l->next;
        for (pgas_ev_chunk *ch = l->head, *cn; ch != NULL; ch = cn) {
            cn = ch->next;
            size_t n = atomic_load_explicit(&ch->n, memory_order_relaxed);
            for (size_t i = 0; i < n; i++)
                free(ch->ev[i].text);
            free(ch);
        }
        free(l);
    }
    for (pgas_thread *t = atomic_load(&world->threads); t != NULL; t = t->next)
        t->events = NULL;
    free(job);
    world->events = NULL;
    __atomic_fetch_sub(&pgas_events_jobs, 1, __ATOMIC_RELAXED);
}
