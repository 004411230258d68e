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
#include "nvshmem.h"
#include "shmem.h"
#include "shmemu/internal/checkers.h"
#include "shmemu/env.h"

/* shmemu's version: the pkg-config modules' Version (pgas/shmemu.pc.in says the same;
 * tests/check-app-threads.sh compares them). */
#define SHMEMU_VERSION "0.1.0"

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
    static const char *const names[] = {"off", "free", "random", "pct", "rr", "delay"};
    static const int strategies[] = {PGAS_SCHED_OFF, PGAS_SCHED_OFF, PGAS_SCHED_RANDOM,
                                     PGAS_SCHED_PCT, PGAS_SCHED_RR, PGAS_SCHED_DELAY};
    config->sched_strategy = strategies[shmemu_env_enum("SHMEMU_SCHED", names, 6, 0)];
    config->sched_seed = (uint64_t)shmemu_env_int("SHMEMU_SEED", 0, 0x7fffffffffffLL, 1);
    config->pct_depth = (int)shmemu_env_int("SHMEMU_PCT_DEPTH", 1, 17, 3);
    config->pct_steps = (uint64_t)shmemu_env_int("SHMEMU_PCT_STEPS", 1, 1000000000LL, 2000);
    config->max_decisions =
        (uint64_t)shmemu_env_int("SHMEMU_SCHED_MAX_DECISIONS", 16, 1LL << 30, 4LL << 20);
    copy_path("SHMEMU_TRACE_OUT", config->trace_out, sizeof config->trace_out);
    copy_path("SHMEMU_REPLAY", config->replay, sizeof config->replay);
    copy_path("SHMEMU_SCHED_GUIDE", config->guide, sizeof config->guide);
    copy_path("SHMEMU_EVENTS", config->events, sizeof config->events);
}

/* The symmetric heap's size per PE: OpenSHMEM's SHMEM_SYMMETRIC_SIZE and NVSHMEM's
 * NVSHMEM_SYMMETRIC_SIZE name the same setting, so the two set to different sizes is refused
 * (the same size written two ways, 1G and 1024M, is fine). */
static uint64_t heap_size_read(void)
{
    uint64_t shmem = shmemu_env_size("SHMEM_SYMMETRIC_SIZE", 1, MAX_HEAP_SIZE,
                                     DEFAULT_HEAP_SIZE);
    uint64_t nv = shmemu_env_size("NVSHMEM_SYMMETRIC_SIZE", 1, MAX_HEAP_SIZE,
                                  DEFAULT_HEAP_SIZE);
    const char *shmem_text = shmemu_env_get("SHMEM_SYMMETRIC_SIZE");
    const char *nv_text = shmemu_env_get("NVSHMEM_SYMMETRIC_SIZE");
    if (shmem_text != NULL && nv_text != NULL && shmem != nv) {
        fprintf(stderr, "shmemu: environment: SHMEM_SYMMETRIC_SIZE=\"%.100s\" and "
                        "NVSHMEM_SYMMETRIC_SIZE=\"%.100s\" differ; both set the symmetric "
                        "heap's size per PE: set one of them, or both to the same size\n",
                shmem_text, nv_text);
        exit(2);
    }
    return shmem_text != NULL ? shmem : nv;
}

void pgas_config_read(pgas_config *config)
{
    config->heap_size = (size_t)heap_size_read();
    /* Keep every PE's heap page-aligned so each PE's slice starts on a fresh page. */
    size_t page = SHMEMU_PAGE_SIZE;
    config->heap_size = (config->heap_size + page - 1) / page * page;

    /* Any finite count of seconds is representable: the waits compare in double. */
    config->hang_timeout_s = shmemu_env_double("SHMEMU_HANG_TIMEOUT", 0.0, 1e12,
                                               "seconds (0: never)", DEFAULT_HANG_TIMEOUT_S);
    /* SHMEM_DEBUG turns the checking mode on unless SHMEMU_CHECK_NBI says otherwise. */
    config->check_nbi = shmemu_env_bool("SHMEMU_CHECK_NBI", shmemu_env_bool("SHMEM_DEBUG", false));
    /* On unless turned off: it costs a few loads per put (docs/openshmem.md, "Checks and
     * fixes", has the measurement). */
    config->check_bounds = shmemu_env_bool("SHMEMU_CHECK_BOUNDS", true);
    config->check_seed_set = shmemu_env_get("SHMEMU_CHECK_SEED") != NULL;
    config->check_seed = (uint64_t)shmemu_env_int("SHMEMU_CHECK_SEED", 0, 0x7fffffffLL, 1);
    config->spin_polls =
        (int)shmemu_env_int("SHMEMU_SPIN", 0, 100000000LL, DEFAULT_SPIN_POLLS);
    config->no_ptr = shmemu_env_bool("SHMEMU_NO_PTR", false);
    config->strict_device =
        shmemu_env_bool("SHMEMU_STRICT_DEVICE", shmemu_strict_device_default(-1) != 0);

    pgas_sched_config_read(config);
    config->print_info = shmemu_env_bool("SHMEM_INFO", false);
    config->print_info = shmemu_env_bool("NVSHMEM_INFO", false) || config->print_info;
    config->print_version = shmemu_env_bool("SHMEM_VERSION", false);

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    config->n_cores = cores > 0 ? (int)cores : 1;
    config->under_valgrind = shmemu_under_valgrind();
}

int pgas_mpirun_size(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v != NULL && v[0] != '\0')
            return (int)shmemu_env_int(names[i], 1, SHMEMU_MAX_PES, 1);
    }
    return 1;
}

bool pgas_started_by_mpirun(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                        "PMI_SIZE"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v != NULL && v[0] != '\0')
            return true;
    }
    return false;
}

/* Whether jobs started now run with every PE an MPI rank (the backend's choice, backend.c). */
static bool ranks_backend_chosen(void)
{
    const char *backend = shmemu_env_get("SHMEMU_BACKEND");
    if (backend == NULL || backend[0] == '\0')
        return pgas_started_by_mpirun();
    return strcmp(backend, "mpi") == 0;
}

int shmemu_launcher_rank(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
    if (!ranks_backend_chosen())
        return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v != NULL && v[0] != '\0')
            return (int)shmemu_env_int(names[i], 0, 1 << 24, 0);
    }
    return 0;
}

int shmemu_launcher_size(void) { return ranks_backend_chosen() ? pgas_mpirun_size() : 0; }

/* SHMEMU_NPES; without it, under mpirun on the MPI backend, every rank started (one PE
 * each), else 1. */
int shmemu_npes_from_env(void)
{
    int fallback = ranks_backend_chosen() ? pgas_mpirun_size() : 1;
    return (int)shmemu_env_int("SHMEMU_NPES", 1, SHMEMU_MAX_PES, fallback);
}

/* ---- SHMEM_VERSION and SHMEM_INFO ---------------------------------------------------- */

/* Where a variable's value came from. */
static const char *origin(const char *name)
{
    return shmemu_env_get(name) != NULL ? "environment" : "default";
}

static void setting(const char *name, const char *value, const char *from)
{
    printf("  %-28s %-24s %s\n", name, value, from);
}

static void setting_u(const char *name, unsigned long long value)
{
    char text[32];
    snprintf(text, sizeof text, "%llu", value);
    setting(name, text, origin(name));
}

static void setting_b(const char *name, bool value)
{
    setting(name, value ? "on" : "off", origin(name));
}

void pgas_config_print(const pgas_config *c, bool info)
{
    printf("shmemu %s: OpenSHMEM %d.%d and NVSHMEM %d.%d interfaces; every PE is a thread of "
           "this process\n",
           SHMEMU_VERSION, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, NVSHMEM_MAJOR_VERSION,
           NVSHMEM_MINOR_VERSION);
    if (info) {
        static const char *const scheds[] = {"off", "random", "pct", "rr", "guide", "delay"};
        char text[64];
        printf("shmemu settings (variable, value, where the value came from):\n");
        snprintf(text, sizeof text, "%zu", c->heap_size);
        bool shmem_size = shmemu_env_get("SHMEM_SYMMETRIC_SIZE") != NULL;
        bool nv_size = shmemu_env_get("NVSHMEM_SYMMETRIC_SIZE") != NULL;
        const char *from = shmem_size && nv_size ? "environment (both variables)"
                           : shmem_size           ? "environment (SHMEM_SYMMETRIC_SIZE)"
                           : nv_size              ? "environment (NVSHMEM_SYMMETRIC_SIZE)"
                                                  : "default";
        setting("SHMEM_SYMMETRIC_SIZE", text, from);
        setting("NVSHMEM_SYMMETRIC_SIZE", text, from);
        setting_b("SHMEM_DEBUG", shmemu_env_bool("SHMEM_DEBUG", false));
        setting_b("SHMEM_INFO", shmemu_env_bool("SHMEM_INFO", false));
        setting_b("NVSHMEM_INFO", shmemu_env_bool("NVSHMEM_INFO", false));
        setting_b("SHMEM_VERSION", c->print_version);
        setting_u("SHMEMU_NPES", (unsigned long long)shmemu_npes_from_env());
        snprintf(text, sizeof text, "%g", c->hang_timeout_s);
        setting("SHMEMU_HANG_TIMEOUT", text, origin("SHMEMU_HANG_TIMEOUT"));
        setting("SHMEMU_CHECK_NBI", c->check_nbi ? "on" : "off",
                shmemu_env_get("SHMEMU_CHECK_NBI") != NULL ? "environment"
                : shmemu_env_get("SHMEM_DEBUG") != NULL   ? "environment (SHMEM_DEBUG)"
                                                          : "default");
        setting_u("SHMEMU_CHECK_SEED", (unsigned long long)c->check_seed);
        setting_u("SHMEMU_SPIN", (unsigned long long)c->spin_polls);
        setting_b("SHMEMU_CHECK_BOUNDS", c->check_bounds);
        setting_b("SHMEMU_NO_PTR", c->no_ptr);
        setting_b("SHMEMU_STRICT_DEVICE", c->strict_device);
        int strategy = c->sched_strategy >= 0 && c->sched_strategy <= PGAS_SCHED_LAST
                           ? c->sched_strategy : 0;
        setting("SHMEMU_SCHED", scheds[strategy], origin("SHMEMU_SCHED"));
        setting_u("SHMEMU_SEED", (unsigned long long)c->sched_seed);
        setting_u("SHMEMU_PCT_DEPTH", (unsigned long long)c->pct_depth);
        setting_u("SHMEMU_PCT_STEPS", (unsigned long long)c->pct_steps);
        setting_u("SHMEMU_SCHED_MAX_DECISIONS", (unsigned long long)c->max_decisions);
        setting("SHMEMU_TRACE_OUT", c->trace_out[0] != '\0' ? c->trace_out : "(none)",
                origin("SHMEMU_TRACE_OUT"));
        setting("SHMEMU_REPLAY", c->replay[0] != '\0' ? c->replay : "(none)",
                origin("SHMEMU_REPLAY"));
        setting("SHMEMU_SCHED_GUIDE", c->guide[0] != '\0' ? c->guide : "(none)",
                origin("SHMEMU_SCHED_GUIDE"));
        /* Read where they are used (the emulator, thread_name.c, sched.c): their text. */
        static const char *const elsewhere[] = {"SHMEMU_EMU_SMS",    "SHMEMU_EMU_STACK",
                                                "SHMEMU_EMU_STALL",  "SHMEMU_EMU_HAZARDS",
                                                "SHMEMU_EMU_TRACE",  "SHMEMU_SCHED_PIN",
                                                "SHMEMU_THREAD_MAP", "SHMEMU_DELAYS"};
        for (size_t i = 0; i < sizeof elsewhere / sizeof elsewhere[0]; i++) {
            const char *v = shmemu_env_get(elsewhere[i]);
            setting(elsewhere[i], v != NULL ? v : "(its default)", origin(elsewhere[i]));
        }
    }
    fflush(stdout);
}
