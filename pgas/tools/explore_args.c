/*
 * explore_args.c: bin/shmemu-explore's command line (explore_args.h). A usage error is
 * found here, before the reference run: a seed the scheduler would refuse used to make
 * every run exit 2, which the explorer then reported as a failure with an empty trace.
 */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore_args.h"

/* Strict decimal: all of s, digits only, lo <= value <= hi. */
static bool parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (*s == '\0')
        return false;
    uint64_t v = 0;
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9')
            return false;
        uint64_t d = (uint64_t)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* Strict seconds: a finite decimal number, 0 < value <= 1e6 (no sign, no suffix). */
static bool parse_seconds(const char *s, double *out)
{
    if (*s == '\0' || *s == '-' || *s == '+' || *s == ' ')
        return false;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno != 0 || !isfinite(v) || v <= 0 || v > 1e6)
        return false;
    *out = v;
    return true;
}

int explore_parse_args(int argc, char **argv, explore_opts *o, char *err, size_t err_len)
{
    *o = (explore_opts){.strategy = "random", .first_seed = 1, .pct_depth = 3,
                        .trace = "shmemu-fail.trace", .timeout_s = 120, .shrink_runs = 60,
                        .shrink = true, .runs = -1, .result = EXPLORE_RESULT_CHECKSUM,
                        .bound = -1};
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->help = true;
            return 0;
        }
        if (strcmp(a, "--no-shrink") == 0) {
            o->shrink = false;
            continue;
        }
        if (strcmp(a, "--quiet") == 0) {
            o->quiet = true;
            continue;
        }
        if (strcmp(a, "--coverage-guided") == 0) {
            o->coverage_guided = true;
            continue;
        }
        if (a[0] != '-') {
            uint64_t n;
            if (o->runs >= 0) {
                snprintf(err, err_len, "\"%.60s\": N (the number of seeds) is already given "
                         "(%ld); put the program after --", a, o->runs);
                return -1;
            }
            if (!parse_uint(a, 1, 1000000000, &n)) {
                snprintf(err, err_len, "N (the number of seeds) \"%.60s\" is not a whole "
                         "number from 1 to 1000000000", a);
                return -1;
            }
            o->runs = (long)n;
            continue;
        }
        static const char *const with_value[] = {"--strategy", "--first-seed", "--pct-depth",
                                                 "--trace", "--timeout", "--shrink-runs",
                                                 "--ref-unset", "--result-pattern",
                                                 "--result-file", "--jobs", "--bound",
                                                 "--memory", NULL};
        int k = 0;
        while (with_value[k] != NULL && strcmp(a, with_value[k]) != 0)
            k++;
        if (with_value[k] == NULL) {
            snprintf(err, err_len, "unknown option \"%.60s\"", a);
            return -1;
        }
        if (i + 1 >= argc || strcmp(argv[i + 1], "--") == 0) {
            snprintf(err, err_len, "%s needs a value (before --)", a);
            return -1;
        }
        const char *v = argv[++i];
        uint64_t u;
        if (strcmp(a, "--strategy") == 0) {
            if (strcmp(v, "random") != 0 && strcmp(v, "pct") != 0 && strcmp(v, "rr") != 0 &&
                strcmp(v, "delay") != 0) {
                snprintf(err, err_len, "--strategy \"%.60s\": use random, pct or rr (seeds), or "
                         "delay (every delay set up to --bound)", v);
                return -1;
            }
            o->strategy = v;
        } else if (strcmp(a, "--memory") == 0) {
            if (strcmp(v, "weak") != 0 && strcmp(v, "default") != 0) {
                snprintf(err, err_len, "--memory \"%.60s\": use weak (SHMEMU_MEMORY=weak: "
                         "stores seen late, docs/sched.md) or default", v);
                return -1;
            }
            o->weak_memory = strcmp(v, "weak") == 0;
        } else if (strcmp(a, "--bound") == 0) {
            if (!parse_uint(v, 0, EXPLORE_MAX_BOUND, &u)) {
                snprintf(err, err_len, "--bound \"%.60s\": use a whole number from 0 to %d (the "
                         "most delays of a schedule, with --strategy delay)", v,
                         EXPLORE_MAX_BOUND);
                return -1;
            }
            o->bound = (int)u;
        } else if (strcmp(a, "--first-seed") == 0) {
            if (!parse_uint(v, 0, EXPLORE_MAX_SEED, &u)) {
                snprintf(err, err_len, "--first-seed \"%.60s\" is not a seed: use a whole "
                         "number from 0 to %llu (2^47 - 1, as SHMEMU_SEED)", v,
                         (unsigned long long)EXPLORE_MAX_SEED);
                return -1;
            }
            o->first_seed = u;
        } else if (strcmp(a, "--pct-depth") == 0) {
            if (!parse_uint(v, 1, 17, &u)) {
                snprintf(err, err_len, "--pct-depth \"%.60s\": use a whole number from 1 to 17 "
                         "(as SHMEMU_PCT_DEPTH)", v);
                return -1;
            }
            o->pct_depth = (int)u;
        } else if (strcmp(a, "--trace") == 0) {
            if (v[0] == '\0') {
                snprintf(err, err_len, "--trace needs a file name, not an empty string");
                return -1;
            }
            o->trace = v;
        } else if (strcmp(a, "--timeout") == 0) {
            if (!parse_seconds(v, &o->timeout_s)) {
                snprintf(err, err_len, "--timeout \"%.60s\": use seconds, a number greater "
                         "than 0 and at most 1000000 (e.g. 30 or 2.5)", v);
                return -1;
            }
        } else if (strcmp(a, "--shrink-runs") == 0) {
            if (!parse_uint(v, 0, 1000000, &u)) {
                snprintf(err, err_len, "--shrink-runs \"%.60s\": use a whole number from 0 to "
                         "1000000", v);
                return -1;
            }
            o->shrink_runs = (int)u;
        } else if (strcmp(a, "--jobs") == 0) {
            if (!parse_uint(v, 1, EXPLORE_MAX_JOBS, &u)) {
                snprintf(err, err_len, "--jobs \"%.60s\": use a whole number from 1 to %d (runs "
                         "at once; the default is one per CPU the explorer may use)", v,
                         EXPLORE_MAX_JOBS);
                return -1;
            }
            o->jobs = (int)u;
        } else if (strcmp(a, "--ref-unset") == 0) {
            if (v[0] == '\0' || strchr(v, '=') != NULL) {
                snprintf(err, err_len, "--ref-unset \"%.60s\": give a variable name (no '=')",
                         v);
                return -1;
            }
            if (o->n_ref_unset == EXPLORE_MAX_REF_UNSET) {
                snprintf(err, err_len, "--ref-unset: at most %d variables",
                         EXPLORE_MAX_REF_UNSET);
                return -1;
            }
            o->ref_unset[o->n_ref_unset++] = v;
        } else {
            bool pattern = strcmp(a, "--result-pattern") == 0;
            if (o->result != EXPLORE_RESULT_CHECKSUM) {
                snprintf(err, err_len, "%s: the result is already chosen (give one of "
                         "--result-pattern and --result-file)", a);
                return -1;
            }
            if (v[0] == '\0') {
                snprintf(err, err_len, "%s needs a %s, not an empty string", a,
                         pattern ? "regular expression" : "file name");
                return -1;
            }
            if (pattern) {
                regex_t re;
                int rc = regcomp(&re, v, REG_EXTENDED | REG_NOSUB);
                if (rc != 0) {
                    char why[128];
                    regerror(rc, &re, why, sizeof why);
                    snprintf(err, err_len, "--result-pattern \"%.60s\" is not an extended "
                             "regular expression: %s", v, why);
                    return -1;
                }
                regfree(&re);
            }
            o->result = pattern ? EXPLORE_RESULT_PATTERN : EXPLORE_RESULT_FILE;
            o->result_arg = v;
        }
    }
    if (o->runs < 0) {
        snprintf(err, err_len, "N (the number of seeds to try) is missing");
        return -1;
    }
    if (i >= argc) {
        snprintf(err, err_len, "the program is missing: put it after --");
        return -1;
    }
    bool delay = strcmp(o->strategy, "delay") == 0;
    if (o->bound >= 0 && !delay) {
        snprintf(err, err_len, "--bound %d is the delay strategy's: add --strategy delay (the "
                 "%s strategy runs seeds)", o->bound, o->strategy);
        return -1;
    }
    if (o->coverage_guided && !delay) {
        snprintf(err, err_len, "--coverage-guided orders the delay strategy's sets: add "
                 "--strategy delay");
        return -1;
    }
    if (delay && o->bound < 0)
        o->bound = 2;
    if (!delay && o->first_seed + (uint64_t)(o->runs - 1) > EXPLORE_MAX_SEED) {
        snprintf(err, err_len, "--first-seed %llu with N %ld goes past the largest seed %llu "
                 "(2^47 - 1)", (unsigned long long)o->first_seed, o->runs,
                 (unsigned long long)EXPLORE_MAX_SEED);
        return -1;
    }
    if (o->jobs > 1 && o->result == EXPLORE_RESULT_FILE) {
        snprintf(err, err_len, "--jobs %d with --result-file: the runs at once would write the "
                 "same file; use --jobs 1 (the default with --result-file) or a result on "
                 "standard output (--result-pattern)", o->jobs);
        return -1;
    }
    o->argv = argv + i;
    return 0;
}
