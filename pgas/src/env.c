/*
 * env.c: the one parser of environment variables (shmemu/env.h).
 *
 * The parse functions are pure: they read a text and return a value or a message, and so
 * can be tested and fuzzed. The shmemu_env_* readers are the edge: a bad value prints the
 * message and exits with status 2, before any PE starts work. Parsing is strict: no leading
 * blanks, no trailing text, no silent wrap-around (strtoll's and strtod's range errors are
 * reported, a suffix that would shift bits out is refused).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shmemu/env.h"

static int invalid(const char *name, const char *text, char *msg, size_t msg_len,
                   const char *expected)
{
    if (msg != NULL && msg_len > 0)
        snprintf(msg, msg_len, "%s=\"%.200s\" is not valid; expected %s", name, text, expected);
    return -1;
}

int shmemu_env_parse_bool(const char *name, const char *text, bool *out, char *msg,
                          size_t msg_len)
{
    static const char *const yes[] = {"1", "on", "yes", "true"};
    static const char *const no[] = {"0", "off", "no", "false"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp(text, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp(text, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return invalid(name, text, msg, msg_len, "on/off, yes/no, 1/0 or true/false");
}

/* strtoll and strtod skip leading blanks; a strict parser does not. */
static bool starts_well(const char *text)
{
    return text[0] != '\0' && !isspace((unsigned char)text[0]);
}

int shmemu_env_parse_int(const char *name, const char *text, int64_t lo, int64_t hi,
                         int64_t *out, char *msg, size_t msg_len)
{
    char expected[96];
    snprintf(expected, sizeof expected, "an integer from %lld to %lld", (long long)lo,
             (long long)hi);
    if (!starts_well(text))
        return invalid(name, text, msg, msg_len, expected);
    errno = 0;
    char *end = NULL;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi)
        return invalid(name, text, msg, msg_len, expected);
    *out = (int64_t)v;
    return 0;
}

int shmemu_env_parse_double(const char *name, const char *text, double lo, double hi,
                            const char *what, double *out, char *msg, size_t msg_len)
{
    char expected[128];
    snprintf(expected, sizeof expected, "a number of %s from %g to %g", what, lo, hi);
    if (!starts_well(text))
        return invalid(name, text, msg, msg_len, expected);
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !isfinite(v) || !(v >= lo) || !(v <= hi))
        return invalid(name, text, msg, msg_len, expected);
    *out = v;
    return 0;
}

int shmemu_env_parse_size(const char *name, const char *text, uint64_t lo, uint64_t hi,
                          uint64_t *out, char *msg, size_t msg_len)
{
    char expected[160];
    snprintf(expected, sizeof expected,
             "a byte count from %llu to %llu with an optional suffix K, M, G or T (e.g. 512M)",
             (unsigned long long)lo, (unsigned long long)hi);
    if (!isdigit((unsigned char)text[0]))
        return invalid(name, text, msg, msg_len, expected);
    errno = 0;
    char *end = NULL;
    unsigned long long n = strtoull(text, &end, 10);
    if (errno != 0)
        return invalid(name, text, msg, msg_len, expected);
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
    if (*end != '\0' || (shift != 0 && n > (~0ull >> shift)))
        return invalid(name, text, msg, msg_len, expected);
    uint64_t v = (uint64_t)n << shift;
    if (v < lo || v > hi)
        return invalid(name, text, msg, msg_len, expected);
    *out = v;
    return 0;
}

int shmemu_env_parse_enum(const char *name, const char *text, const char *const *names,
                          int n_names, int *out, char *msg, size_t msg_len)
{
    char expected[256] = "one of:";
    for (int i = 0; i < n_names; i++) {
        if (strcmp(text, names[i]) == 0) {
            *out = i;
            return 0;
        }
        size_t used = strlen(expected);
        snprintf(expected + used, sizeof expected - used, " %s", names[i]);
    }
    return invalid(name, text, msg, msg_len, expected);
}

/* ---- the edge: read, parse, or stop ---------------------------------------------------- */

_Noreturn static void refuse(const char *msg)
{
    fprintf(stderr, "shmemu: environment: %s\n", msg);
    exit(2);
}

const char *shmemu_env_get(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? v : NULL;
}

bool shmemu_env_bool(const char *name, bool fallback)
{
    const char *v = shmemu_env_get(name);
    char msg[512];
    bool out = fallback;
    if (v != NULL && shmemu_env_parse_bool(name, v, &out, msg, sizeof msg) != 0)
        refuse(msg);
    return out;
}

int64_t shmemu_env_int(const char *name, int64_t lo, int64_t hi, int64_t fallback)
{
    const char *v = shmemu_env_get(name);
    char msg[512];
    int64_t out = fallback;
    if (v != NULL && shmemu_env_parse_int(name, v, lo, hi, &out, msg, sizeof msg) != 0)
        refuse(msg);
    return out;
}

double shmemu_env_double(const char *name, double lo, double hi, const char *what,
                         double fallback)
{
    const char *v = shmemu_env_get(name);
    char msg[512];
    double out = fallback;
    if (v != NULL && shmemu_env_parse_double(name, v, lo, hi, what, &out, msg, sizeof msg) != 0)
        refuse(msg);
    return out;
}

uint64_t shmemu_env_size(const char *name, uint64_t lo, uint64_t hi, uint64_t fallback)
{
    const char *v = shmemu_env_get(name);
    char msg[512];
    uint64_t out = fallback;
    if (v != NULL && shmemu_env_parse_size(name, v, lo, hi, &out, msg, sizeof msg) != 0)
        refuse(msg);
    return out;
}

int shmemu_env_enum(const char *name, const char *const *names, int n_names, int fallback)
{
    const char *v = shmemu_env_get(name);
    char msg[512];
    int out = fallback;
    if (v != NULL && shmemu_env_parse_enum(name, v, names, n_names, &out, msg, sizeof msg) != 0)
        refuse(msg);
    return out;
}

const char *shmemu_env_path(const char *name, size_t max_len)
{
    const char *v = shmemu_env_get(name);
    if (v != NULL && strlen(v) >= max_len) {
        char expected[64], msg[512];
        snprintf(expected, sizeof expected, "a path of at most %zu bytes", max_len - 1);
        invalid(name, v, msg, sizeof msg, expected);
        refuse(msg);
    }
    return v;
}
