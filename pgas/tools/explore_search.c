/*
 * explore_search.c: bin/shmemu-explore's systematic search and coverage (docs/sched.md,
 * "Explore").
 *
 * Delay sets. The scheduler's strategy delay (sched.c, pick_delay) runs a deterministic base
 * schedule (keep the running entity while it can run, else round robin) and delays it at
 * the choice points SHMEMU_DELAYS lists (a choice point: a decision with two candidates or
 * more, counted from 0 in the run itself). explore_delays gives every set of 0 to K choice
 * points of [0, D), D the base run's choice points (counted from its trace), once, in a fixed
 * order: by size; within a size in colexicographic order (by the largest index, then the next
 * largest, ...): {} {0} {1} ... {D-1} {0,1} {0,2} {1,2} {0,3} {1,3} {2,3} {0,4} ... So the
 * sets whose delays all lie early come first, whatever the run's length: a bug that needs
 * two delays at choice points i < j is reached after C(j, 2) + i sets of size 2.
 * A run delayed early makes other decisions later on (the indexes of its later choice points
 * are its own, not the base run's); the space is the base run's D, so a run that grows past
 * D is explored only up to D (docs/sched.md, "Limits").
 *
 * --coverage-guided keeps the space and reorders the sets of two delays: once the base run
 * and the D runs of one delay have all ended (explore_search_limit holds the others back),
 * the sets whose first delay alone reached a switch pair the base run did not ("productive",
 * judged against the base run only, so the order does not depend on which run ended first
 * and is the same whatever --jobs is) come first, then the others; each group in
 * colexicographic order (explore_delays_rank, explore_delays_set).
 *
 * Coverage. Each run's trace gives its schedule's identity (the header's hash: the FNV-1a of
 * its decisions) and its switches: at a decision where the turn goes from entity f to
 * another entity t, the pair (the call f gives the turn away at, the call t resumes at: the
 * call of t's last decision, or "its start" for a new entity). The explorer counts distinct
 * schedules and distinct pairs over its runs in sets of 64-bit keys.
 */
#include "explore_search.h"

#include <stdlib.h>
#include <string.h>

#include "../src/sched.h"

_Static_assert(EXPLORE_MAX_BOUND == PGAS_SCHED_MAX_DELAYS,
               "--bound's limit is the delays a run may have");

/* ---- delay sets ---------------------------------------------------------------------- */

void explore_delays_init(explore_delays *d, int bound)
{
    memset(d, 0, sizeof *d);
    d->bound = bound;
    d->total = 1;
}

/* C(n, k), saturating at UINT64_MAX. */
static uint64_t choose(uint64_t n, uint64_t k)
{
    if (k > n)
        return 0;
    unsigned __int128 c = 1;
    for (uint64_t i = 1; i <= k; i++) {
        c = c * (n - k + i) / i; /* exact: C(n-k+i, i) */
        if (c >= UINT64_MAX)
            return UINT64_MAX;
    }
    return (uint64_t)c;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int explore_delays_base(explore_delays *d, const char *trace, char *err, size_t err_len)
{
    pgas_trace_header h;
    uint64_t *log = NULL, n = 0;
    char why[512];
    if (pgas_trace_read(trace, &h, &log, &n, why, sizeof why) != 0) {
        snprintf(err, err_len, "cannot read the base run's trace: %s", why);
        return -1;
    }
    uint64_t choices = 0;
    for (uint64_t i = 0; i < n; i++)
        if ((log[2 * i + 1] & 0xffff) >= 2)
            choices++;
    free(log);
    d->choices = choices;
    d->based = true;
    d->total = 0;
    for (int k = 0; k <= d->bound; k++)
        d->total = add_sat(d->total, choose(choices, (uint64_t)k));
    return 0;
}

bool explore_delays_set(const explore_delays *d, uint64_t k, char *text, size_t len)
{
    if (k >= d->total)
        return false;
    /* the size: sets of size m come after every smaller one */
    uint64_t r = k;
    int m = 0;
    for (; m <= d->bound; m++) {
        uint64_t c = choose(d->choices, (uint64_t)m);
        if (r < c)
            break;
        r -= c;
    }
    if (m > d->bound)
        return false;
    if (m == 2 && d->guided && d->ranked) {
        /* the productive first delays' sets, then the others', each group colexicographic */
        bool in_first = r < d->cum_first[d->choices];
        const uint64_t *cum = in_first ? d->cum_first : d->cum_rest;
        const uint64_t *firsts = in_first ? d->first : d->rest;
        if (!in_first)
            r -= d->cum_first[d->choices];
        uint64_t lo = 0, hi = d->choices; /* the largest j with cum[j] <= r */
        while (lo + 1 < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (cum[mid] <= r)
                lo = mid;
            else
                hi = mid;
        }
        uint64_t pair[2] = {firsts[r - cum[lo]], lo};
        pgas_delays_format(pair, 2, text, len);
        return true;
    }
    /* colexicographic unranking: the largest element c is the largest with C(c, m) <= r */
    uint64_t set[EXPLORE_MAX_BOUND];
    uint64_t hi = d->choices;
    for (int i = m; i >= 1; i--) {
        uint64_t lo = (uint64_t)i - 1; /* C(i-1, i) = 0 <= r */
        while (lo + 1 < hi) {       /* invariant: C(lo, i) <= r < C(hi, i) */
            uint64_t mid = lo + (hi - lo) / 2;
            if (choose(mid, (uint64_t)i) <= r)
                lo = mid;
            else
                hi = mid;
        }
        set[i - 1] = lo;
        r -= choose(lo, (uint64_t)i);
        hi = lo;
    }
    pgas_delays_format(set, m, text, len);
    return true;
}

void explore_delays_rank(explore_delays *d, const bool *productive)
{
    uint64_t n = d->choices;
    d->first = malloc((n + 1) * sizeof *d->first);
    d->rest = malloc((n + 1) * sizeof *d->rest);
    d->cum_first = malloc((n + 1) * sizeof *d->cum_first);
    d->cum_rest = malloc((n + 1) * sizeof *d->cum_rest);
    if (d->first == NULL || d->rest == NULL || d->cum_first == NULL || d->cum_rest == NULL) {
        fprintf(stderr, "shmemu-explore: out of memory for the coverage-guided order\n");
        exit(2);
    }
    d->n_first = d->n_rest = 0;
    d->cum_first[0] = d->cum_rest[0] = 0;
    for (uint64_t j = 0; j < n; j++) {
        /* the sets {i, j}, i < j, of each group: as many as its first delays below j */
        d->cum_first[j + 1] = d->cum_first[j] + d->n_first;
        d->cum_rest[j + 1] = d->cum_rest[j] + d->n_rest;
        if (productive[j])
            d->first[d->n_first++] = j;
        else
            d->rest[d->n_rest++] = j;
    }
    d->ranked = true;
}

void explore_delays_free(explore_delays *d)
{
    free(d->first);
    free(d->rest);
    free(d->cum_first);
    free(d->cum_rest);
    d->first = d->rest = d->cum_first = d->cum_rest = NULL;
}

void explore_delays_describe(const explore_delays *d, char *out, size_t len)
{
    const char *formula = d->bound == 0   ? "1"
                          : d->bound == 1 ? "1+D"
                          : d->bound == 2 ? "1+D+D(D-1)/2"
                                          : "the sum of C(D, k) for k = 0..K";
    if (d->total == UINT64_MAX)
        snprintf(out, len, "more than 2^64 schedules (%s) of at most %d delay(s) over D = %llu "
                 "choice point(s)", formula, d->bound, (unsigned long long)d->choices);
    else
        snprintf(out, len, "%s = %llu schedule(s) of at most %d delay(s) over D = %llu choice "
                 "point(s)", formula, (unsigned long long)d->total, d->bound,
                 (unsigned long long)d->choices);
}

/* ---- coverage ------------------------------------------------------------------------ */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static void keys_grow(explore_keys *s);

/* Adds key; true when it was new. */
static bool keys_add(explore_keys *s, uint64_t key)
{
    if (key == 0) {
        bool fresh = !s->has_zero;
        s->has_zero = true;
        return fresh;
    }
    if (2 * (s->n + 1) > s->cap)
        keys_grow(s);
    for (size_t i = mix(key) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->slots[i] == key)
            return false;
        if (s->slots[i] == 0) {
            s->slots[i] = key;
            s->n++;
            return true;
        }
    }
}

static void keys_grow(explore_keys *s)
{
    size_t cap = s->cap ? 2 * s->cap : 1024;
    explore_keys bigger = {calloc(cap, sizeof(uint64_t)), cap, 0, s->has_zero};
    if (bigger.slots == NULL) {
        fprintf(stderr, "shmemu-explore: out of memory for the coverage counts\n");
        exit(2);
    }
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i] != 0)
            (void)keys_add(&bigger, s->slots[i]);
    free(s->slots);
    *s = bigger;
}

static size_t keys_count(const explore_keys *s)
{
    return s->n + (s->has_zero ? 1 : 0);
}

/* The call a serial resumes at (0: none yet, its start), growing the table as needed. */
static uint32_t *resume_slot(explore_coverage *c, uint32_t serial)
{
    if (serial >= c->resume_cap) {
        size_t cap = c->resume_cap ? c->resume_cap : 256;
        while (cap <= serial)
            cap *= 2;
        uint32_t *r = realloc(c->resume, cap * sizeof *r);
        if (r == NULL) {
            fprintf(stderr, "shmemu-explore: out of memory for the coverage counts\n");
            exit(2);
        }
        memset(r + c->resume_cap, 0, (cap - c->resume_cap) * sizeof *r);
        c->resume = r;
        c->resume_cap = cap;
    }
    return &c->resume[serial];
}

static bool keys_has(const explore_keys *s, uint64_t key)
{
    if (key == 0)
        return s->has_zero;
    if (s->cap == 0)
        return false;
    for (size_t i = mix(key) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->slots[i] == key)
            return true;
        if (s->slots[i] == 0)
            return false;
    }
}

/* The switch pairs of a trace: each is added to `into`; *outside (when not NULL) counts
 * those not in `base`. Returns how many were new to `into`, or -1 when the trace cannot be
 * read; *hash: its schedule's hash. */
static long trace_pairs(explore_coverage *c, const char *trace, uint64_t *hash,
                        explore_keys *into, const explore_keys *base, long *outside)
{
    pgas_trace_header h;
    uint64_t *log = NULL, n = 0;
    char why[512];
    if (pgas_trace_read(trace, &h, &log, &n, why, sizeof why) != 0)
        return -1;
    *hash = h.schedule_hash;
    if (c->resume_cap > 0)
        memset(c->resume, 0, c->resume_cap * sizeof *c->resume);
    long fresh = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t from = (uint32_t)(log[2 * i] >> 32), to = (uint32_t)log[2 * i];
        uint32_t call = (uint32_t)(log[2 * i + 1] >> 32);
        if (to != from && to != PGAS_SCHED_NO_ENTITY) {
            uint64_t pair = (uint64_t)call << 32 | *resume_slot(c, to);
            if (keys_add(into, pair))
                fresh++;
            if (outside != NULL && !keys_has(base, pair))
                (*outside)++;
        }
        if (from != PGAS_SCHED_NO_ENTITY)
            *resume_slot(c, from) = call;
    }
    free(log);
    return fresh;
}

long explore_coverage_add(explore_coverage *c, const char *trace)
{
    uint64_t hash = 0;
    long fresh = trace_pairs(c, trace, &hash, &c->pairs, NULL, NULL);
    if (fresh < 0) {
        c->unreadable++;
        return -1;
    }
    c->traces++;
    (void)keys_add(&c->schedules, hash);
    return fresh;
}

void explore_coverage_print(FILE *f, const explore_coverage *c)
{
    fprintf(f, "explore: coverage: %zu distinct schedule(s) (interleavings of sync points) in "
               "%ld run(s), %zu distinct switch pair(s) (the call the turn was given away at, "
               "the call the next entity resumed at)", keys_count(&c->schedules), c->traces,
            keys_count(&c->pairs));
    if (c->unreadable > 0)
        fprintf(f, "; %ld run(s) left no readable trace", c->unreadable);
    fprintf(f, "\n");
}

void explore_coverage_free(explore_coverage *c)
{
    free(c->schedules.slots);
    free(c->pairs.slots);
    free(c->resume);
    memset(c, 0, sizeof *c);
}

/* ---- the run loop's questions -------------------------------------------------------- */

void explore_search_init(explore_search *s, const explore_opts *o)
{
    memset(s, 0, sizeof *s);
    s->delay = strcmp(o->strategy, "delay") == 0;
    explore_delays_init(&s->delays, s->delay ? o->bound : 0);
    s->delays.guided = s->delay && o->coverage_guided;
}

void explore_search_free(explore_search *s)
{
    explore_coverage_free(&s->coverage);
    explore_delays_free(&s->delays);
    free(s->base_pairs.slots);
    free(s->productive);
    s->base_pairs.slots = NULL;
    s->productive = NULL;
}

long explore_search_limit(const explore_search *s, const explore_opts *o)
{
    uint64_t limit = s->delays.total; /* 1 until the base run ended */
    if (s->delays.guided && s->delays.based && !s->delays.ranked)
        limit = 1 + s->delays.choices; /* the single delays, until they all ended */
    if (!s->delay || limit >= (uint64_t)o->runs)
        return o->runs;
    return (long)limit;
}

bool explore_search_delays(const explore_search *s, long k, char *text, size_t len)
{
    return s->delay && k >= 0 && explore_delays_set(&s->delays, (uint64_t)k, text, len);
}

int explore_search_record(explore_search *s, long k, bool failed, const char *trace, char *err,
                          size_t err_len)
{
    (void)explore_coverage_add(&s->coverage, trace);
    explore_delays *d = &s->delays;
    if (!s->delay || failed)
        return 0;
    if (k == 0) {
        if (explore_delays_base(d, trace, err, err_len) != 0)
            return -1;
        if (d->guided) {
            uint64_t hash;
            (void)trace_pairs(&s->coverage, trace, &hash, &s->base_pairs, NULL, NULL);
            s->productive = calloc(d->choices + 1, sizeof *s->productive);
            if (s->productive == NULL) {
                snprintf(err, err_len, "out of memory for %llu choice points",
                         (unsigned long long)d->choices);
                return -1;
            }
            if (d->bound < 2 || d->choices < 2)
                explore_delays_rank(d, s->productive); /* no set of two delays to order */
        }
        return 0;
    }
    if (d->guided && !d->ranked && (uint64_t)k <= d->choices) {
        /* run k is the set {k - 1}: did its one delay reach a pair the base run did not? */
        uint64_t hash;
        long outside = 0;
        explore_keys mine = {NULL, 0, 0, false};
        if (trace_pairs(&s->coverage, trace, &hash, &mine, &s->base_pairs, &outside) >= 0)
            s->productive[k - 1] = outside > 0;
        free(mine.slots);
        if (++s->singles_done == d->choices)
            explore_delays_rank(d, s->productive);
    }
    return 0;
}

void explore_search_name(const explore_search *s, const explore_opts *o, long k, char *out,
                         size_t len)
{
    char set[PGAS_SCHED_MAX_DELAYS * 14 + 8];
    if (s->delay && explore_search_delays(s, k, set, sizeof set))
        snprintf(out, len, "delay set %s (delay)", set);
    else
        snprintf(out, len, "seed %llu (%s)", (unsigned long long)(o->first_seed + (uint64_t)k),
                 o->strategy);
}

void explore_search_print_pass(FILE *f, const explore_search *s, const explore_opts *o,
                               long done, double secs)
{
    double rate = secs > 0 ? (double)done / secs : 0.0;
    if (!s->delay) {
        fprintf(f, "explore: %ld seed(s) of %s passed in %.2f s (%.1f schedules/s)\n", done,
                o->strategy, secs, rate);
    } else {
        char space[256];
        explore_delays_describe(&s->delays, space, sizeof space);
        if ((uint64_t)done >= s->delays.total)
            fprintf(f, "explore: all %s ran and passed in %.2f s (%.1f schedules/s): the "
                       "bound's space is exhausted\n", space, secs, rate);
        else
            fprintf(f, "explore: %ld delay set(s) passed in %.2f s (%.1f schedules/s), of %s: "
                       "%llu not run (N is %ld)\n", done, secs, rate, space,
                    (unsigned long long)(s->delays.total - (uint64_t)done), o->runs);
    }
    explore_coverage_print(f, &s->coverage);
}
