/*
 * config.c: the runtime's settings, read from the environment when a job starts.
 *
 * A malformed value is an error that names the variable, the value and the accepted form:
 * a typo in NVSHMEM_SYMMETRIC_SIZE must not silently become the default. Every variable is
 * parsed by env.c (shmemu/env.h), so booleans, numbers and names read alike everywhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "shmemu/internal/checkers.h"
#include "shmemu/env.h"

#define DEFAULT_HEAP_SIZE ((size_t)256 << 20)
#define DEFAULT_HANG_TIMEOUT_S 120.0
#define DEFAULT_SPIN_POLLS 2000
/* 1 PiB per PE: far above any machine, far below where heap_size * n_pes overflows. */
#define MAX_HEAP_SIZE ((uint64_t)1 << 50)

static void copy_path(const char *name, char *out, size_t len)
{
    const char *v = shmemu_env_path(name, len);
    snprintf(out, len, "%s", v != NULL ? v : "");
}

/* The deterministic scheduler's settings (docs/sched.md). */
static void pgas_sched_config_read(pgas_config *config)
{
    static const char *const names[] = {"off", "free", "random", "pct", "rr"};
    static const int strategies[] = {PGAS_SCHED_OFF, PGAS_SCHED_OFF, PGAS_SCHED_RANDOM,
                                     PGAS_SCHED_PCT, PGAS_SCHED_RR};
    config->sched_strategy = strategies[shmemu_env_enum("SHMEMU_SCHED", names, 5, 0)];
    config->sched_seed = (uint64_t)shmemu_env_int("SHMEMU_SEED", 0, 0x7fffffffffffLL, 1);
    config->pct_depth = (int)shmemu_env_int("SHMEMU_PCT_DEPTH", 1, 17, 3);
    config->pct_steps = (uint64_t)shmemu_env_int("SHMEMU_PCT_STEPS", 1, 1000000000LL, 2000);
    config->max_decisions =
        (uint64_t)shmemu_env_int("SHMEMU_SCHED_MAX_DECISIONS", 16, 1LL << 30, 4LL << 20);
    copy_path("SHMEMU_TRACE_OUT", config->trace_out, sizeof config->trace_out);
    copy_path("SHMEMU_REPLAY", config->replay, sizeof config->replay);
    copy_path("SHMEMU_SCHED_GUIDE", config->guide, sizeof config->guide);
}

void pgas_config_read(pgas_config *config)
{
    config->heap_size = (size_t)shmemu_env_size("NVSHMEM_SYMMETRIC_SIZE", 1, MAX_HEAP_SIZE,
                                                 DEFAULT_HEAP_SIZE);
    /* Keep every PE's heap page-aligned so each PE's slice starts on a fresh page. */
    size_t page = SHMEMU_PAGE_SIZE;
    config->heap_size = (config->heap_size + page - 1) / page * page;

    /* Any finite count of seconds is representable: the waits compare in double. */
    config->hang_timeout_s = shmemu_env_double("SHMEMU_HANG_TIMEOUT", 0.0, 1e12,
                                               "seconds (0: never)", DEFAULT_HANG_TIMEOUT_S);
    config->check_nbi = shmemu_env_bool("SHMEMU_CHECK_NBI", false);
    config->check_seed_set = shmemu_env_get("SHMEMU_CHECK_SEED") != NULL;
    config->check_seed = (uint64_t)shmemu_env_int("SHMEMU_CHECK_SEED", 0, 0x7fffffffLL, 1);
    config->spin_polls =
        (int)shmemu_env_int("SHMEMU_SPIN", 0, 100000000LL, DEFAULT_SPIN_POLLS);
    config->no_ptr = shmemu_env_bool("SHMEMU_NO_PTR", false);
    config->strict_device =
        shmemu_env_bool("SHMEMU_STRICT_DEVICE", shmemu_strict_device_default(-1) != 0);

    pgas_sched_config_read(config);

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    config->n_cores = cores > 0 ? (int)cores : 1;
    config->under_valgrind = shmemu_under_valgrind();
}

int shmemu_npes_from_env(void) { return (int)shmemu_env_int("SHMEMU_NPES", 1, SHMEMU_MAX_PES, 1); }
