/*
 * fuzz_explore_args.c: libFuzzer harness for shmemu-explore's command line
 * (explore_parse_args in pgas/tools/explore_args.c). The input is the argument list, one
 * argument per line.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -std=c17 \
 *       -D_GNU_SOURCE fuzz/fuzz_explore_args.c pgas/tools/explore_args.c -lm -o fuzz_explore_args
 *   mkdir -p work && ./fuzz_explore_args -max_len=512 -dict=fuzz/fuzz_explore_args.dict work fuzz/corpus/fuzz_explore_args
 *
 * Every argument list is accepted or refused with a message. An accepted one (other than
 * --help) must be one the explorer can run without a usage error later: N >= 1, every seed
 * first .. first + N - 1 one the scheduler accepts (SHMEMU_SEED <= 2^47 - 1), a PCT depth of
 * 1..17, a finite positive timeout, a known strategy, and a program after "--"; --strategy
 * delay (whose runs all use the first seed) has a bound of 0..EXPLORE_MAX_BOUND, the others
 * none.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../pgas/tools/explore_args.h"
#include "fuzz_args.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool is_strategy(const char *s)
{
    return strcmp(s, "random") == 0 || strcmp(s, "pct") == 0 || strcmp(s, "rr") == 0 ||
           strcmp(s, "delay") == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_args a;
    fuzz_argv(&a, "shmemu-explore", data, size);
    explore_opts o;
    char err[512];
    err[0] = '\0';
    if (explore_parse_args(a.argc, a.argv, &o, err, sizeof err) == 0) {
        if (!o.help) {
            bool delay = strcmp(o.strategy, "delay") == 0;
            if (o.runs < 1 || o.first_seed > EXPLORE_MAX_SEED ||
                (!delay && o.first_seed + (uint64_t)(o.runs - 1) > EXPLORE_MAX_SEED))
                abort();
            /* --bound: the delay strategy's (0..EXPLORE_MAX_BOUND), -1 for the others */
            if (delay ? o.bound < 0 || o.bound > EXPLORE_MAX_BOUND : o.bound != -1)
                abort();
            if (o.coverage_guided && !delay)
                abort();
            if (o.pct_depth < 1 || o.pct_depth > 17 || !isfinite(o.timeout_s) ||
                !(o.timeout_s > 0) || o.shrink_runs < 0 || !is_strategy(o.strategy))
                abort();
            if (o.n_ref_unset < 0 || o.n_ref_unset > EXPLORE_MAX_REF_UNSET)
                abort();
            /* --jobs: 0 (not given) or 1..EXPLORE_MAX_JOBS, never above 1 with a result file */
            if (o.jobs < 0 || o.jobs > EXPLORE_MAX_JOBS ||
                (o.jobs > 1 && o.result == EXPLORE_RESULT_FILE))
                abort();
            /* the program: inside the argv given, after "--", not empty */
            if (o.argv <= a.argv || o.argv >= a.argv + a.argc || o.argv[0] == NULL ||
                strcmp(o.argv[-1], "--") != 0)
                abort();
            if (o.result != EXPLORE_RESULT_CHECKSUM &&
                (o.result_arg == NULL || o.result_arg[0] == '\0'))
                abort();
        }
    } else if (err[0] == '\0') {
        abort();
    }
    fuzz_args_free(&a);
    return 0;
}
