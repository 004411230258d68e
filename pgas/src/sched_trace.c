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
#include <sys/stat.h>
#include <unistd.h>

#include "sched.h"
#include "shmemu/env.h"

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
    for (char *c = program; *c != '\0'; c++)
        if (*c == '\n')
            *c = ' '; /* one header line (the reader refuses what it cannot parse) */
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
    /* The emulator's settings as the emulator reads them (shmemu/env.h), so that spellings
     * of one setting (off, no, 0) hash alike. A value the parser refuses is hashed as
     * text: the emulator reports it when the job starts. */
    char msg[256];
    const char *sms = shmemu_env_get("SHMEMU_EMU_SMS");
    int64_t sms_v = 0; /* 0: no limit, as when unset */
    if (sms != NULL && shmemu_env_parse_int("SHMEMU_EMU_SMS", sms, INT64_MIN, INT64_MAX, &sms_v,
                                            msg, sizeof msg) != 0)
        h = fnv(h, sms, strlen(sms));
    h = fnv(h, &sms_v, sizeof sms_v);
    const char *hz = shmemu_env_get("SHMEMU_EMU_HAZARDS");
    bool hz_v = true; /* on, as when unset */
    if (hz != NULL && shmemu_env_parse_bool("SHMEMU_EMU_HAZARDS", hz, &hz_v, msg, sizeof msg) != 0)
        h = fnv(h, hz, strlen(hz));
    uint8_t hz_b = hz_v;
    h = fnv(h, &hz_b, 1);
    /* the weak-memory mode and its drain (hashed only when on: older traces keep theirs) */
    const char *mem = shmemu_env_get("SHMEMU_MEMORY");
    if (mem != NULL && strcmp(mem, "weak") == 0) {
        int64_t drain = shmemu_env_int("SHMEMU_WEAK_DRAIN", 1, 1000000, 4);
        h = fnv(h, "weak", 4);
        h = fnv(h, &drain, sizeof drain);
        uint8_t stale = shmemu_env_bool("SHMEMU_WEAK_STALE", true);
        static const char *const ends[] = {"sys", "gpu"};
        uint8_t end = (uint8_t)shmemu_env_enum("SHMEMU_WEAK_KERNEL_END", ends, 2, 0);
        h = fnv(h, &stale, 1);
        h = fnv(h, &end, 1);
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
    h->n_delays = s->n_delays;
    memcpy(h->delays, s->delays, sizeof h->delays);
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
    if (h->strategy == PGAS_SCHED_DELAY) { /* "delays: ...", before the blank line */
        char set[PGAS_SCHED_MAX_DELAYS * 14 + 8];
        pgas_delays_format(h->delays, h->n_delays, set, sizeof set);
        int k = snprintf(text + len - 1, sizeof text - (size_t)len + 1, "delays: %s\n\n", set);
        if (k > 0 && (size_t)(len - 1 + k) < sizeof text)
            len += k - 1;
    }
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

int pgas_trace_flush(pgas_sched *s)
{
    const char *path = s->world->config.trace_out;
    if (path[0] == '\0' || atomic_exchange(&s->flushed, 1) != 0)
        return 0;
    if (atomic_load_explicit(&s->log_overflow, memory_order_relaxed))
        fprintf(stderr, "shmemu: trace %s: the run made more than %llu decisions; only the "
                        "first ones were kept (raise SHMEMU_SCHED_MAX_DECISIONS)\n", path,
                (unsigned long long)s->max_decisions);
    if (pgas_trace_write(s, path) != 0) {
        fprintf(stderr, "shmemu: cannot write the trace SHMEMU_TRACE_OUT=%s: %s\n", path,
                strerror(errno));
        return -1;
    }
    return 0;
}

const char *pgas_sched_strategy_name(int strategy)
{
    switch (strategy) {
    case PGAS_SCHED_RANDOM: return "random";
    case PGAS_SCHED_PCT: return "pct";
    case PGAS_SCHED_RR: return "rr";
    case PGAS_SCHED_GUIDE: return "guided";
    case PGAS_SCHED_DELAY: return "delay";
    default: return "free";
    }
}

static int strategy_from_name(const char *name)
{
    for (int k = PGAS_SCHED_RANDOM; k <= PGAS_SCHED_LAST; k++)
        if (strcmp(name, pgas_sched_strategy_name(k)) == 0)
            return k;
    return -1;
}

/* ---- reading ----------------------------------------------------------------------------
 * The readers are parsers over a buffer (pgas_trace_parse, pgas_guide_parse), so that the
 * fuzzers call them without files. Every count is bounded by the bytes that hold it before
 * anything is allocated, and every number is parsed strictly (digits only, no sign, no
 * overflow): a damaged or hostile file gets a message naming the file, the line and the
 * field, never an allocation it does not pay for. */

#define HEADER_MAX (64 * 1024) /* the writer's header is at most 4 KiB */
#define CHECKSUM_LINE_LEN 27   /* "checksum: " + 16 hex digits + "\n" */

/* Strict unsigned parse of all of s: decimal (base 10) or hex (base 16), no sign, no
 * spaces, no prefix. */
static bool parse_u64(const char *s, int base, uint64_t *out)
{
    if (*s == '\0')
        return false;
    uint64_t v = 0;
    for (; *s != '\0'; s++) {
        int d;
        if (*s >= '0' && *s <= '9')
            d = *s - '0';
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = *s - 'a' + 10;
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            d = *s - 'A' + 10;
        else
            return false;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return false;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    *out = v;
    return true;
}

/* The header's keys, in the order the writer writes them (call: lines may repeat). delays
 * is the one optional key: present exactly when the strategy is delay (so version-1 traces
 * written before it existed read as they did). */
enum { K_PROGRAM, K_ARGS, K_CONFIG, K_SEED, K_STRATEGY, K_DEPTH, K_STEPS, K_NPES, K_DECISIONS,
       K_HASH, K_DELAYS, K_COUNT };
static const char *const trace_keys[K_COUNT] = {"program", "args", "config", "seed",
                                                "strategy", "pct_depth", "pct_steps", "npes",
                                                "decisions", "hash", "delays"};

int pgas_delays_parse(const char *text, uint64_t *delays, int *n, char *err, size_t err_len)
{
    *n = 0;
    if (strcmp(text, "none") == 0)
        return 0;
    if (text[0] == '\0') {
        snprintf(err, err_len, "\"\": no set (write none for no delay)");
        return -1;
    }
    int item = 0;
    for (const char *p = text;; p++) {
        item++;
        size_t len = strcspn(p, ",");
        char num[24];
        uint64_t u = 0;
        bool ok = len > 0 && len < sizeof num;
        if (ok) {
            memcpy(num, p, len);
            num[len] = '\0';
            ok = parse_u64(num, 10, &u) && u <= PGAS_SCHED_MAX_CHOICE;
        }
        if (!ok) {
            snprintf(err, err_len, "\"%.60s\": item %d (\"%.*s\") is not a choice point index "
                     "(a decimal number from 0 to %llu); give increasing indexes separated by "
                     "commas, e.g. 12,407", text, item, (int)(len < 24 ? len : 24), p,
                     (unsigned long long)PGAS_SCHED_MAX_CHOICE);
            return -1;
        }
        if (*n >= PGAS_SCHED_MAX_DELAYS) {
            snprintf(err, err_len, "\"%.60s\": more than %d delays", text,
                     PGAS_SCHED_MAX_DELAYS);
            return -1;
        }
        if (*n > 0 && u <= delays[*n - 1]) {
            snprintf(err, err_len, "\"%.60s\": item %d (%llu) does not follow %llu: the indexes "
                     "must be strictly increasing", text, item, (unsigned long long)u,
                     (unsigned long long)delays[*n - 1]);
            return -1;
        }
        delays[(*n)++] = u;
        p += len;
        if (*p == '\0')
            return 0;
    }
}

void pgas_delays_format(const uint64_t *delays, int n, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    if (n == 0)
        snprintf(out, len, "none");
    for (int i = 0; i < n && used < len; i++) {
        int k = snprintf(out + used, len - used, "%s%llu", i > 0 ? "," : "",
                         (unsigned long long)delays[i]);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

/* One "key: value" line of the header (NUL-terminated, without its newline). */
static int parse_header_line(const char *name, int lineno, char *line, pgas_trace_header *h,
                             bool seen[K_COUNT], char *err, size_t err_len)
{
    char *colon = strstr(line, ": ");
    if (colon == NULL) {
        snprintf(err, err_len, "%s:%d: \"%.60s\" is not a \"key: value\" line of the header",
                 name, lineno, line);
        return -1;
    }
    *colon = '\0';
    const char *key = line, *value = colon + 2;
    uint64_t u = 0;
    if (strcmp(key, "call") == 0) {
        /* "call: <8 hex digits> <name>" */
        char hex[9];
        const char *space = strchr(value, ' ');
        if (space == NULL || space - value != 8 || space[1] == '\0') {
            snprintf(err, err_len, "%s:%d: call: \"%.60s\" is not \"<8 hex digits> <call "
                     "name>\"", name, lineno, value);
            return -1;
        }
        memcpy(hex, value, 8);
        hex[8] = '\0';
        if (!parse_u64(hex, 16, &u)) {
            snprintf(err, err_len, "%s:%d: call: \"%s\" is not 8 hex digits", name, lineno, hex);
            return -1;
        }
        if (h->n_calls >= PGAS_SCHED_CALLS) {
            snprintf(err, err_len, "%s:%d: more than %d call: lines (a trace names at most %d "
                     "calls)", name, lineno, PGAS_SCHED_CALLS, PGAS_SCHED_CALLS);
            return -1;
        }
        h->call_hashes[h->n_calls] = (uint32_t)u;
        copy_cut(h->call_names[h->n_calls], sizeof h->call_names[0], space + 1);
        h->n_calls++;
        return 0;
    }
    int k = 0;
    while (k < K_COUNT && strcmp(key, trace_keys[k]) != 0)
        k++;
    if (k == K_COUNT) {
        snprintf(err, err_len, "%s:%d: unknown header field \"%.40s\" (accepted: program, args, "
                 "config, seed, strategy, pct_depth, pct_steps, npes, decisions, hash, delays, "
                 "call)",
                 name, lineno, key);
        return -1;
    }
    if (seen[k]) {
        snprintf(err, err_len, "%s:%d: %s: given twice", name, lineno, key);
        return -1;
    }
    seen[k] = true;
    /* the numeric fields: base, and the range the reader accepts */
    static const struct { int base; uint64_t lo, hi; const char *what; } num[K_COUNT] = {
        [K_CONFIG] = {16, 0, UINT64_MAX, "16 hex digits"},
        [K_SEED] = {10, 0, UINT64_MAX, "a decimal number"},
        [K_DEPTH] = {10, 1, 17, "a number from 1 to 17 (SHMEMU_PCT_DEPTH)"},
        [K_STEPS] = {10, 1, 1000000000, "a number from 1 to 1000000000 (SHMEMU_PCT_STEPS)"},
        [K_NPES] = {10, 1, SHMEMU_MAX_PES, "a PE count from 1 to " SHMEMU_STR(SHMEMU_MAX_PES)},
        [K_DECISIONS] = {10, 0, UINT64_MAX, "a decimal count"},
        [K_HASH] = {16, 0, UINT64_MAX, "16 hex digits"},
    };
    switch (k) {
    case K_PROGRAM:
        copy_cut(h->program, sizeof h->program, value);
        return 0;
    case K_ARGS:
        copy_cut(h->args, sizeof h->args, value);
        return 0;
    case K_STRATEGY:
        h->strategy = strategy_from_name(value);
        if (h->strategy < 0) {
            snprintf(err, err_len, "%s:%d: strategy: \"%.40s\" is not a strategy (accepted: "
                     "random, pct, rr, guided, delay)", name, lineno, value);
            return -1;
        }
        return 0;
    case K_DELAYS: {
        char why[256];
        if (pgas_delays_parse(value, h->delays, &h->n_delays, why, sizeof why) != 0) {
            snprintf(err, err_len, "%s:%d: delays: %s", name, lineno, why);
            return -1;
        }
        return 0;
    }
    default:
        break;
    }
    if (!parse_u64(value, num[k].base, &u) || u < num[k].lo || u > num[k].hi) {
        snprintf(err, err_len, "%s:%d: %s: \"%.40s\" is not %s", name, lineno, key, value,
                 num[k].what);
        return -1;
    }
    switch (k) {
    case K_CONFIG: h->config_hash = u; break;
    case K_SEED: h->seed = u; break;
    case K_DEPTH: h->pct_depth = (int)u; break;
    case K_STEPS: h->pct_steps = u; break;
    case K_NPES: h->n_pes = (int)u; break;
    case K_DECISIONS: h->n_decisions = u; break;
    default: h->schedule_hash = u; break;
    }
    return 0;
}

int pgas_trace_parse(const char *name, const unsigned char *buf, size_t len,
                     pgas_trace_header *h, uint64_t **log, uint64_t *n, char *err,
                     size_t err_len)
{
    memset(h, 0, sizeof *h);
    *log = NULL;
    *n = 0;
    char magic[32];
    int mlen = snprintf(magic, sizeof magic, TRACE_MAGIC " %d\n", PGAS_SCHED_TRACE_VERSION);
    if (len < (size_t)mlen || memcmp(buf, magic, (size_t)mlen) != 0) {
        snprintf(err, err_len, "%s:1: not a shmemu trace of version %d (the first line must "
                 "be \"" TRACE_MAGIC " %d\")", name, PGAS_SCHED_TRACE_VERSION,
                 PGAS_SCHED_TRACE_VERSION);
        return -1;
    }
    /* the header: lines up to the first empty one */
    size_t scan = len < HEADER_MAX ? len : HEADER_MAX;
    const unsigned char *end = NULL;
    for (size_t i = (size_t)mlen - 1; i + 1 < scan && end == NULL; i++)
        if (buf[i] == '\n' && buf[i + 1] == '\n')
            end = buf + i + 2;
    if (end == NULL) {
        snprintf(err, err_len, "%s: the header does not end (no empty line in its first %zu "
                 "bytes): truncated or damaged", name, scan);
        return -1;
    }
    size_t header_len = (size_t)(end - buf);
    bool seen[K_COUNT] = {false};
    int lineno = 1;
    for (size_t at = (size_t)mlen; at + 1 < header_len;) {
        lineno++;
        const unsigned char *nl = memchr(buf + at, '\n', header_len - at);
        size_t llen = (size_t)(nl - (buf + at));
        char line[2048];
        if (llen >= sizeof line) {
            snprintf(err, err_len, "%s:%d: the line is longer than %zu bytes", name, lineno,
                     sizeof line - 1);
            return -1;
        }
        memcpy(line, buf + at, llen);
        line[llen] = '\0';
        if (strlen(line) != llen) {
            snprintf(err, err_len, "%s:%d: a NUL byte inside the header", name, lineno);
            return -1;
        }
        if (parse_header_line(name, lineno, line, h, seen, err, err_len) != 0)
            return -1;
        at += llen + 1;
    }
    if (seen[K_DELAYS] != (h->strategy == PGAS_SCHED_DELAY)) {
        snprintf(err, err_len, seen[K_DELAYS] ? "%s: a delays: line in a trace of strategy %s "
                 "(only strategy delay has one): damaged" : "%s: the header has no delays: line "
                 "(strategy %s needs one): truncated or damaged", name,
                 pgas_sched_strategy_name(h->strategy));
        return -1;
    }
    for (int k = 0; k < K_COUNT; k++)
        if (!seen[k] && k != K_DELAYS) {
            snprintf(err, err_len, "%s: the header has no %s: line (truncated or damaged)",
                     name, trace_keys[k]);
            return -1;
        }
    /* the records: bounded by the bytes that follow the header */
    size_t body = len - header_len;
    uint64_t room = body >= CHECKSUM_LINE_LEN ? (body - CHECKSUM_LINE_LEN) / 16 : 0;
    if (h->n_decisions > room) {
        snprintf(err, err_len, "%s: the header announces %llu decisions but the %zu bytes after "
                 "it hold at most %llu (and the checksum line): truncated or damaged", name,
                 (unsigned long long)h->n_decisions, body, (unsigned long long)room);
        return -1;
    }
    size_t n_words = 2 * (size_t)h->n_decisions;
    uint64_t *words = malloc((n_words + 1) * sizeof *words);
    if (words == NULL) {
        snprintf(err, err_len, "%s: out of memory for %llu decisions", name,
                 (unsigned long long)h->n_decisions);
        return -1;
    }
    const unsigned char *p = end;
    for (size_t i = 0; i < n_words; i++, p += 8) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++)
            w |= (uint64_t)p[k] << (8 * k);
        words[i] = w;
    }
    uint64_t sum = fnv(0xcbf29ce484222325ull, buf, (size_t)(p - buf));
    size_t rest = len - (size_t)(p - buf);
    char tail[CHECKSUM_LINE_LEN + 1] = "";
    uint64_t stored = 0;
    if (rest == CHECKSUM_LINE_LEN) {
        memcpy(tail, p, rest);
        tail[rest] = '\0';
    }
    if (rest != CHECKSUM_LINE_LEN || strncmp(tail, "checksum: ", 10) != 0 ||
        tail[CHECKSUM_LINE_LEN - 1] != '\n' ||
        (tail[CHECKSUM_LINE_LEN - 1] = '\0', !parse_u64(tail + 10, 16, &stored))) {
        snprintf(err, err_len, "%s: after %llu decisions the file must end with one line "
                 "\"checksum: <16 hex digits>\" (%zu bytes left): truncated or damaged", name,
                 (unsigned long long)h->n_decisions, rest);
        free(words);
        return -1;
    }
    if (stored != sum) {
        snprintf(err, err_len, "%s: checksum mismatch (stored %016llx, computed %016llx): the "
                 "file is damaged", name, (unsigned long long)stored, (unsigned long long)sum);
        free(words);
        return -1;
    }
    *log = words;
    *n = h->n_decisions;
    return 0;
}

/* The whole of a regular file, NUL-terminated (*len excludes the NUL); at most max bytes. */
static int read_whole(const char *path, size_t max, unsigned char **data, size_t *len,
                      char *err, size_t err_len)
{
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (f == NULL || fstat(fileno(f), &st) != 0) {
        snprintf(err, err_len, "%s: cannot open it: %s", path, strerror(errno));
        if (f != NULL)
            fclose(f);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
        snprintf(err, err_len, S_ISREG(st.st_mode) ? "%s: %llu bytes is larger than any "
                 "trace or guide" : "%s: not a regular file", path,
                 (unsigned long long)st.st_size);
        fclose(f);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    unsigned char *buf = malloc(size + 1);
    if (buf == NULL) {
        snprintf(err, err_len, "%s: out of memory for its %zu bytes", path, size);
        fclose(f);
        return -1;
    }
    size_t got = fread(buf, 1, size, f);
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad) {
        snprintf(err, err_len, "%s: read error", path);
        free(buf);
        return -1;
    }
    buf[got] = '\0';
    *data = buf;
    *len = got;
    return 0;
}

int pgas_trace_read(const char *path, pgas_trace_header *h, uint64_t **log, uint64_t *n,
                    char *err, size_t err_len)
{
    unsigned char *buf;
    size_t len;
    /* the largest trace: SHMEMU_SCHED_MAX_DECISIONS (at most 2^30) records of 16 bytes */
    if (read_whole(path, HEADER_MAX + ((size_t)16 << 30) + CHECKSUM_LINE_LEN, &buf, &len, err,
                   err_len) != 0) {
        memset(h, 0, sizeof *h);
        *log = NULL;
        *n = 0;
        return -1;
    }
    int rc = pgas_trace_parse(path, buf, len, h, log, n, err, err_len);
    free(buf);
    return rc;
}

const char *pgas_trace_call_name(const pgas_trace_header *h, uint32_t hash)
{
    for (int i = 0; i < h->n_calls; i++)
        if (h->call_hashes[i] == hash)
            return h->call_names[i];
    return NULL;
}

/* "PE 1 (host; entity 1)", "PE 0 (kernel k block 2; entity 5)". */
static void describe_entity(const pgas_sched_entity *e, char *out, size_t len)
{
    const pgas_thread *t = atomic_load_explicit(&e->thread, memory_order_relaxed);
    const unsigned serial = atomic_load_explicit(&e->serial, memory_order_relaxed);
    if (t == NULL) {
        snprintf(out, len, "entity %u", serial);
        return;
    }
    snprintf(out, len, "PE %d (%s; entity %u)", t->pe, t->label, serial);
}

_Noreturn void pgas_trace_diverged(pgas_sched *s, uint64_t at, const pgas_sched_entity *me,
                                   const char *call, const char *why)
{
    atomic_store(&s->finished, 1);
    FILE *f = stderr;
    char who[160] = "the start of the job";
    if (me != NULL)
        describe_entity(me, who, sizeof who);
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

int pgas_guide_parse(const char *name, const char *buf, size_t len, pgas_guide_step **steps,
                     size_t *n, char *err, size_t err_len)
{
    *steps = NULL;
    *n = 0;
    /* a step takes at least 6 bytes ("0 0 0\n"): bound the count by the length */
    size_t cap = len / 6 + 1, used = 0;
    pgas_guide_step *v = malloc(cap * sizeof *v);
    if (v == NULL) {
        snprintf(err, err_len, "%s: out of memory for %zu steps", name, cap);
        return -1;
    }
    int lineno = 0;
    for (size_t at = 0; at < len;) {
        lineno++;
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t llen = nl != NULL ? (size_t)(nl - (buf + at)) : len - at;
        char line[96];
        uint64_t f[3];
        bool ok = llen < sizeof line && nl != NULL;
        if (ok) {
            memcpy(line, buf + at, llen);
            line[llen] = '\0';
            ok = strlen(line) == llen; /* no NUL inside */
            char *fields[3], *save = NULL, *tok = line;
            int k = 0;
            /* exactly three fields separated by spaces */
            for (; ok && k < 3 && (fields[k] = strtok_r(tok, " ", &save)) != NULL; k++)
                tok = NULL;
            ok = ok && k == 3 && strtok_r(NULL, " ", &save) == NULL;
            for (int j = 0; ok && j < 3; j++)
                ok = parse_u64(fields[j], 10, &f[j]) && (j == 1 || f[j] <= UINT32_MAX);
        }
        if (!ok) {
            snprintf(err, err_len, "%s:%d: expected \"<from serial> <decision index> <target "
                     "serial>\" (decimal numbers, one step per line, ending with a newline)",
                     name, lineno);
            free(v);
            return -1;
        }
        v[used++] = (pgas_guide_step){(uint32_t)f[0], f[1], (uint32_t)f[2]};
        at += llen + 1;
    }
    *steps = v;
    *n = used;
    return 0;
}

int pgas_guide_read(const char *path, pgas_guide_step **steps, size_t *n, char *err,
                    size_t err_len)
{
    unsigned char *buf;
    size_t len;
    *steps = NULL;
    *n = 0;
    if (read_whole(path, (size_t)1 << 32, &buf, &len, err, err_len) != 0)
        return -1;
    int rc = pgas_guide_parse(path, (const char *)buf, len, steps, n, err, err_len);
    free(buf);
    return rc;
}
