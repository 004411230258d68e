/*
 * sched_trace.c: the deterministic scheduler's traces (format in docs/sched.md).
 *
 * A trace is the list of scheduling decisions of one run, with a header that says what
 * was run: the program and its arguments (from /proc/self/cmdline), a hash of the
 * configuration that changes schedules (PE count, heap size, checking mode, the emulator's
 * settings), the strategy and the seed. Each decision names the entity that yielded (its
 * serial), a hash of the call it yielded in, and the entity chosen to run next; so a
 * replay checks, decision by decision, that it is the same run, and the first decision
 * where the program does something else is reported as the point of divergence.
 *
 * The file: a text header (one "key: value" per line, ended by an empty line), the
 * decisions as pairs of little-endian 64-bit words, and a last line "checksum: <hex>" with
 * the FNV-1a 64 hash of every byte before it. It is written to PATH.tmp.<pid> and renamed,
 * at the end of the job, or when the run ends early (deadlock, abort, exit).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sched.h"

#define TRACE_MAGIC "shmemu-trace"

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* Copies src into dst[len], cut at len - 1 bytes (program names and arguments longer than
 * the header's fields are kept in part: the header documents the run, it does not start it). */
static void copy_cut(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static void read_cmdline(char *program, size_t plen, char *args, size_t alen)
{
    program[0] = args[0] = '\0';
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (f == NULL)
        return;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    size_t first = strlen(buf);
    copy_cut(program, plen, buf);
    size_t used = 0;
    for (size_t i = first + 1; i < n && used + 1 < alen; i++) {
        char c = buf[i] == '\0' ? ' ' : buf[i];
        if (c == '\n')
            c = ' ';
        args[used++] = c;
    }
    while (used > 0 && args[used - 1] == ' ')
        used--;
    args[used] = '\0';
}

static uint64_t config_hash(const pgas_world *w)
{
    uint64_t h = 0xcbf29ce484222325ull;
    uint64_t v[] = {(uint64_t)w->n_pes, w->config.heap_size, w->config.check_nbi,
                    w->config.check_seed, w->config.no_ptr};
    h = fnv(h, v, sizeof v);
    const char *names[] = {"SHMEMU_EMU_SMS", "SHMEMU_EMU_HAZARDS"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *e = getenv(names[i]);
        h = fnv(h, names[i], strlen(names[i]));
        if (e != NULL)
            h = fnv(h, e, strlen(e));
    }
    return h;
}

void pgas_trace_fill_header(pgas_sched *s)
{
    pgas_trace_header *h = &s->header;
    read_cmdline(h->program, sizeof h->program, h->args, sizeof h->args);
    h->config_hash = config_hash(s->world);
    h->seed = s->seed;
    h->strategy = s->strategy;
    h->pct_depth = s->pct_depth;
    h->pct_steps = s->pct_steps;
    h->n_pes = s->world->n_pes;
    if (!s->replaying)
        return;
    const pgas_trace_header *r = &s->replay_header;
    if (strcmp(r->program, h->program) != 0 || strcmp(r->args, h->args) != 0)
        fprintf(stderr, "shmemu: replay: note: the trace was recorded for \"%s %s\"; this is "
                        "\"%s %s\"\n", r->program, r->args, h->program, h->args);
    if (r->config_hash != h->config_hash || r->n_pes != h->n_pes)
        fprintf(stderr, "shmemu: replay: note: the configuration differs from the trace's "
                        "(%d PEs, config %016llx; now %d PEs, config %016llx)\n",
                r->n_pes, (unsigned long long)r->config_hash, h->n_pes,
                (unsigned long long)h->config_hash);
}

int pgas_trace_write(const pgas_sched *s, const char *path)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "wb");
    if (f == NULL)
        return -1;
    uint64_t n = atomic_load_explicit(&s->decisions, memory_order_relaxed);
    if (n > s->max_decisions)
        n = s->max_decisions;
    const pgas_trace_header *h = &s->header;
    char text[4096];
    int len = snprintf(text, sizeof text,
                       TRACE_MAGIC " %d\nprogram: %s\nargs: %s\nconfig: %016llx\nseed: %llu\n"
                       "strategy: %s\npct_depth: %d\npct_steps: %llu\nnpes: %d\n"
                       "decisions: %llu\nhash: %016llx\n\n",
                       PGAS_SCHED_TRACE_VERSION, h->program, h->args,
                       (unsigned long long)h->config_hash, (unsigned long long)h->seed,
                       pgas_sched_strategy_name(h->strategy), h->pct_depth,
                       (unsigned long long)h->pct_steps, h->n_pes, (unsigned long long)n,
                       (unsigned long long)atomic_load_explicit(&s->hash, memory_order_relaxed));
    if (len < 0 || (size_t)len >= sizeof text)
        len = (int)strlen(text);
    /* the call names, inserted before the blank line that ends the header */
    len--;
    for (int i = 0; i < PGAS_SCHED_CALLS && len > 0; i++) {
        uint32_t hash = atomic_load_explicit(&s->call_hash[i], memory_order_relaxed);
        const char *name = atomic_load_explicit(&s->call_name[i], memory_order_relaxed);
        if (hash == 0 || name == NULL)
            continue;
        int k = snprintf(text + len, sizeof text - (size_t)len, "call: %08x %.95s\n",
                         (unsigned)hash, name);
        if (k < 0 || (size_t)(len + k) + 2 >= sizeof text) {
            text[len] = '\0';
            break;
        }
        len += k;
    }
    text[len++] = '\n';
    text[len] = '\0';
    uint64_t sum = fnv(0xcbf29ce484222325ull, text, (size_t)len);
    bool ok = fwrite(text, 1, (size_t)len, f) == (size_t)len;
    for (uint64_t i = 0; i < 2 * n && ok; i++) {
        uint64_t w = atomic_load_explicit(&s->log[i], memory_order_relaxed);
        unsigned char b[8];
        for (int k = 0; k < 8; k++)
            b[k] = (unsigned char)(w >> (8 * k));
        sum = fnv(sum, b, 8);
        ok = fwrite(b, 1, 8, f) == 8;
    }
    ok = ok && fprintf(f, "checksum: %016llx\n", (unsigned long long)sum) > 0;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

void pgas_trace_flush(pgas_sched *s)
{
    const char *path = s->world->config.trace_out;
    if (path[0] == '\0' || atomic_exchange(&s->flushed, 1) != 0)
        return;
    if (atomic_load_explicit(&s->log_overflow, memory_order_relaxed))
        fprintf(stderr, "shmemu: trace %s: the run made more than %llu decisions; only the "
                        "first ones were kept (raise SHMEMU_SCHED_MAX_DECISIONS)\n", path,
                (unsigned long long)s->max_decisions);
    if (pgas_trace_write(s, path) != 0)
        fprintf(stderr, "shmemu: cannot write the trace %s: %s\n", path, strerror(errno));
}

static int strategy_from_name(const char *name)
{
    for (int k = PGAS_SCHED_RANDOM; k <= PGAS_SCHED_GUIDE; k++)
        if (strcmp(name, pgas_sched_strategy_name(k)) == 0)
            return k;
    return -1;
}

int pgas_trace_read(const char *path, pgas_trace_header *h, uint64_t **log, uint64_t *n,
                    char *err, size_t err_len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, err_len, "cannot open it: %s", strerror(errno));
        return -1;
    }
    memset(h, 0, sizeof *h);
    *log = NULL;
    *n = 0;
    uint64_t sum = 0xcbf29ce484222325ull;
    char line[2048];
    int version = -1;
    bool have_decisions = false;
    char strategy[32] = "";
    while (fgets(line, sizeof line, f) != NULL) {
        sum = fnv(sum, line, strlen(line));
        if (strcmp(line, "\n") == 0)
            break;
        line[strcspn(line, "\n")] = '\0';
        unsigned long long u;
        if (sscanf(line, TRACE_MAGIC " %d", &version) == 1)
            continue;
        if (strncmp(line, "program: ", 9) == 0)
            copy_cut(h->program, sizeof h->program, line + 9);
        else if (strncmp(line, "args: ", 6) == 0)
            copy_cut(h->args, sizeof h->args, line + 6);
        else if (sscanf(line, "config: %llx", &u) == 1)
            h->config_hash = u;
        else if (sscanf(line, "seed: %llu", &u) == 1)
            h->seed = u;
        else if (sscanf(line, "strategy: %31s", strategy) == 1)
            h->strategy = strategy_from_name(strategy);
        else if (sscanf(line, "pct_depth: %d", &h->pct_depth) == 1)
            ;
        else if (sscanf(line, "pct_steps: %llu", &u) == 1)
            h->pct_steps = u;
        else if (sscanf(line, "npes: %d", &h->n_pes) == 1)
            ;
        else if (strncmp(line, "call: ", 6) == 0) {
            unsigned hash;
            int at = 0;
            if (h->n_calls < PGAS_SCHED_CALLS && sscanf(line, "call: %x %n", &hash, &at) == 1 &&
                at > 0) {
                h->call_hashes[h->n_calls] = hash;
                copy_cut(h->call_names[h->n_calls], sizeof h->call_names[0], line + at);
                h->n_calls++;
            }
        } else if (sscanf(line, "hash: %llx", &u) == 1)
            h->schedule_hash = u;
        else if (sscanf(line, "decisions: %llu", &u) == 1) {
            h->n_decisions = u;
            have_decisions = true;
        }
    }
    if (version != PGAS_SCHED_TRACE_VERSION || !have_decisions || h->strategy < 0) {
        snprintf(err, err_len, "not a shmemu trace of version %d (header unreadable)",
                 PGAS_SCHED_TRACE_VERSION);
        fclose(f);
        return -1;
    }
    uint64_t *words = malloc((size_t)(2 * h->n_decisions + 1) * sizeof *words);
    if (words == NULL) {
        snprintf(err, err_len, "out of memory for %llu decisions",
                 (unsigned long long)h->n_decisions);
        fclose(f);
        return -1;
    }
    for (uint64_t i = 0; i < 2 * h->n_decisions; i++) {
        unsigned char b[8];
        if (fread(b, 1, 8, f) != 8) {
            snprintf(err, err_len, "truncated: %llu decisions announced, the file ends early",
                     (unsigned long long)h->n_decisions);
            free(words);
            fclose(f);
            return -1;
        }
        sum = fnv(sum, b, 8);
        uint64_t w = 0;
        for (int k = 0; k < 8; k++)
            w |= (uint64_t)b[k] << (8 * k);
        words[i] = w;
    }
    unsigned long long stored = 0;
    bool have_sum = fgets(line, sizeof line, f) != NULL &&
                    sscanf(line, "checksum: %llx", &stored) == 1;
    fclose(f);
    if (!have_sum || stored != sum) {
        snprintf(err, err_len, "checksum mismatch (stored %016llx, computed %016llx): the file "
                               "is damaged", stored, (unsigned long long)sum);
        free(words);
        return -1;
    }
    *log = words;
    *n = h->n_decisions;
    return 0;
}

const char *pgas_trace_call_name(const pgas_trace_header *h, uint32_t hash)
{
    for (int i = 0; i < h->n_calls; i++)
        if (h->call_hashes[i] == hash)
            return h->call_names[i];
    return NULL;
}

_Noreturn void pgas_trace_diverged(pgas_sched *s, uint64_t at, const pgas_sched_entity *me,
                                   const char *call, const char *why)
{
    atomic_store(&s->finished, 1);
    FILE *f = stderr;
    char who[160] = "the start of the job";
    if (me != NULL)
        pgas_sched_describe_entity(me, who, sizeof who);
    fprintf(f, "shmemu: replay diverged from the trace %s at scheduling decision %llu of %llu: "
               "%s.\n", s->world->config.replay, (unsigned long long)at,
            (unsigned long long)s->replay_n, why);
    fprintf(f, "  this run: %s, in %s\n", who, call);
    if (at < s->replay_n) {
        uint64_t w0 = s->replay_log[2 * at], w1 = s->replay_log[2 * at + 1];
        uint32_t from = (uint32_t)(w0 >> 32);
        const char *name = pgas_trace_call_name(&s->replay_header, (uint32_t)(w1 >> 32));
        if (from == PGAS_SCHED_NO_ENTITY)
            fprintf(f, "  the trace: the start of the job, then entity %u ran\n", (unsigned)w0);
        else
            fprintf(f, "  the trace: entity %u, in %s, then entity %u ran\n", from,
                    name != NULL ? name : "(a call this trace does not name)", (unsigned)w0);
    }
    const pgas_trace_header *r = &s->replay_header, *h = &s->header;
    if (strcmp(r->program, h->program) != 0 || strcmp(r->args, h->args) != 0 ||
        r->config_hash != h->config_hash)
        fprintf(f, "  the trace was recorded for \"%s %s\" (config %016llx); this is \"%s %s\" "
                   "(config %016llx)\n", r->program, r->args,
                (unsigned long long)r->config_hash, h->program, h->args,
                (unsigned long long)h->config_hash);
    fprintf(f, "The program or its input changed since the trace was recorded (or the "
               "program depends on something other than the schedule: time, addresses, "
               "unsynchronized reads).\n");
    pgas_trace_flush(s);
    fflush(NULL);
    _exit(PGAS_SCHED_DIVERGED_EXIT);
}

int pgas_guide_read(const char *path, pgas_guide_step **steps, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t cap = 16, used = 0;
    pgas_guide_step *v = malloc(cap * sizeof *v);
    unsigned from, target;
    unsigned long long y;
    while (v != NULL && fscanf(f, "%u %llu %u", &from, &y, &target) == 3) {
        if (used == cap) {
            cap *= 2;
            pgas_guide_step *w = realloc(v, cap * sizeof *v);
            if (w == NULL) {
                free(v);
                v = NULL;
                break;
            }
            v = w;
        }
        v[used++] = (pgas_guide_step){from, y, target};
    }
    fclose(f);
    if (v == NULL)
        return -1;
    *steps = v;
    *n = used;
    return 0;
}
