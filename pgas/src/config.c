/*
 * config.c: the runtime's settings, read from the environment when a job starts.
 *
 * A malformed value is an error that names the variable, the value and the accepted form:
 * a typo in NVSHMEM_SYMMETRIC_SIZE must not silently become the default.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include "internal.h"

#define DEFAULT_HEAP_SIZE ((size_t)256 << 20)
#define DEFAULT_HANG_TIMEOUT_S 120.0
#define DEFAULT_SPIN_POLLS 2000

_Noreturn static void bad_setting(const char *name, const char *value, const char *expected)
{
    fprintf(stderr, "shmemu: environment: %s=\"%s\" is not valid; expected %s\n", name, value,
            expected);
    exit(2);
}

/* "256M", "1G", "4096", "2k": bytes with an optional binary suffix (K, M, G, T, optional B). */
static size_t parse_size(const char *name, const char *text)
{
    const char *expected = "a byte count with an optional suffix K, M, G or T (e.g. 512M)";
    errno = 0;
    char *end = NULL;
    unsigned long long n = strtoull(text, &end, 10);
    if (errno != 0 || end == text || text[0] == '-')
        bad_setting(name, text, expected);
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: break;
    }
    if (shift != 0 && (*end == 'b' || *end == 'B'))
        end++;
    if (*end != '\0' || n == 0 || (shift != 0 && n > (~0ull >> shift)))
        bad_setting(name, text, expected);
    return (size_t)(n << shift);
}

static long parse_long(const char *name, const char *text, long lo, long hi)
{
    errno = 0;
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) {
        char expected[96];
        snprintf(expected, sizeof expected, "an integer from %ld to %ld", lo, hi);
        bad_setting(name, text, expected);
    }
    return v;
}

static double parse_seconds(const char *name, const char *text)
{
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(v >= 0.0) || v > 1e7)
        bad_setting(name, text, "a number of seconds >= 0 (0 disables the hang check)");
    return v;
}

static bool parse_flag(const char *name, const char *text)
{
    if (strcmp(text, "1") == 0 || strcmp(text, "yes") == 0 || strcmp(text, "on") == 0)
        return true;
    if (strcmp(text, "0") == 0 || strcmp(text, "no") == 0 || strcmp(text, "off") == 0 ||
        text[0] == '\0')
        return false;
    bad_setting(name, text, "1 or 0");
}

static void copy_path(const char *name, const char *text, char *out, size_t len)
{
    if (strlen(text) >= len)
        bad_setting(name, text, "a shorter path (at most 511 bytes)");
    snprintf(out, len, "%s", text);
}

/* The deterministic scheduler's settings (docs/sched.md). */
static void pgas_sched_config_read(pgas_config *config)
{
    const char *v;
    config->sched_strategy = PGAS_SCHED_OFF;
    if ((v = getenv("SHMEMU_SCHED")) != NULL && v[0] != '\0') {
        if (strcmp(v, "random") == 0)
            config->sched_strategy = PGAS_SCHED_RANDOM;
        else if (strcmp(v, "pct") == 0)
            config->sched_strategy = PGAS_SCHED_PCT;
        else if (strcmp(v, "rr") == 0)
            config->sched_strategy = PGAS_SCHED_RR;
        else if (strcmp(v, "off") != 0 && strcmp(v, "free") != 0)
            bad_setting("SHMEMU_SCHED", v, "random, pct, rr or off");
    }
    config->sched_seed = 1;
    if ((v = getenv("SHMEMU_SEED")) != NULL)
        config->sched_seed = (uint64_t)parse_long("SHMEMU_SEED", v, 0, 0x7fffffffffffL);
    config->pct_depth = 3;
    if ((v = getenv("SHMEMU_PCT_DEPTH")) != NULL)
        config->pct_depth = (int)parse_long("SHMEMU_PCT_DEPTH", v, 1, 17);
    config->pct_steps = 2000;
    if ((v = getenv("SHMEMU_PCT_STEPS")) != NULL)
        config->pct_steps = (uint64_t)parse_long("SHMEMU_PCT_STEPS", v, 1, 1000000000L);
    config->max_decisions = (uint64_t)4 << 20;
    if ((v = getenv("SHMEMU_SCHED_MAX_DECISIONS")) != NULL)
        config->max_decisions =
            (uint64_t)parse_long("SHMEMU_SCHED_MAX_DECISIONS", v, 16, 1L << 30);
    config->trace_out[0] = config->replay[0] = config->guide[0] = '\0';
    if ((v = getenv("SHMEMU_TRACE_OUT")) != NULL)
        copy_path("SHMEMU_TRACE_OUT", v, config->trace_out, sizeof config->trace_out);
    if ((v = getenv("SHMEMU_REPLAY")) != NULL)
        copy_path("SHMEMU_REPLAY", v, config->replay, sizeof config->replay);
    if ((v = getenv("SHMEMU_SCHED_GUIDE")) != NULL)
        copy_path("SHMEMU_SCHED_GUIDE", v, config->guide, sizeof config->guide);
}

void pgas_config_read(pgas_config *config)
{
    const char *v;
    config->heap_size = DEFAULT_HEAP_SIZE;
    if ((v = getenv("NVSHMEM_SYMMETRIC_SIZE")) != NULL)
        config->heap_size = parse_size("NVSHMEM_SYMMETRIC_SIZE", v);
    /* Keep every PE's heap page-aligned so each PE's slice starts on a fresh page. */
    size_t page = 4096;
    config->heap_size = (config->heap_size + page - 1) / page * page;

    config->hang_timeout_s = DEFAULT_HANG_TIMEOUT_S;
    if ((v = getenv("SHMEMU_HANG_TIMEOUT")) != NULL)
        config->hang_timeout_s = parse_seconds("SHMEMU_HANG_TIMEOUT", v);

    config->check_nbi = false;
    if ((v = getenv("SHMEMU_CHECK_NBI")) != NULL)
        config->check_nbi = parse_flag("SHMEMU_CHECK_NBI", v);
    config->check_seed = 1;
    if ((v = getenv("SHMEMU_CHECK_SEED")) != NULL)
        config->check_seed = (uint64_t)parse_long("SHMEMU_CHECK_SEED", v, 0, 0x7fffffffL);
    config->check_seed_set = v != NULL;

    config->spin_polls = DEFAULT_SPIN_POLLS;
    if ((v = getenv("SHMEMU_SPIN")) != NULL)
        config->spin_polls = (int)parse_long("SHMEMU_SPIN", v, 0, 100000000L);

    config->no_ptr = false;
    if ((v = getenv("SHMEMU_NO_PTR")) != NULL)
        config->no_ptr = parse_flag("SHMEMU_NO_PTR", v);

    pgas_sched_config_read(config);

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    config->n_cores = cores > 0 ? (int)cores : 1;
    config->under_valgrind = RUNNING_ON_VALGRIND != 0;
}

int shmemu_npes_from_env(void)
{
    const char *v = getenv("SHMEMU_NPES");
    if (v == NULL || v[0] == '\0')
        return 1;
    return (int)parse_long("SHMEMU_NPES", v, 1, 4096);
}
