/*
 * bugs.c: the switch of planted bugs (shmemu/bugs.h): the runtime's catalogue, the
 * registered ones, and SHMEMU_BUG.
 *
 * The plant sites test shmemu_bug_active_, which a constructor sets from SHMEMU_BUG before
 * main() runs, so that every thread reads a word written before it was created (no race, no
 * lock, no cost beyond a load and a compare). That constructor runs after the catalogues'
 * (SHMEMU_BUG_REGISTER_PRIORITY), so a program's names are known when the value is parsed.
 * This file is plain C with no other dependency on the runtime: a program's CUDA build links
 * it alone (md/cuda.mk).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmemu/bugs.h"

int shmemu_bug_active_ = SHMEMU_BUG_NONE;

/* The runtime's plants: each selects a table of ordering operations that differs from the
 * correct one in exactly that operation (ordering.c). Their configurations come from the
 * program that exercises them (shmemu_bug_set_config). */
#define O "pgas/src/ordering.c"
static shmemu_bug_info runtime[] = {
    {SHMEMU_BUG_RT_SIGNAL_NO_RELEASE, "rt-signal-no-release",
     "runtime: a signal update (put-with-signal, signal op) is a relaxed RMW without the "
     "release", O, NULL},
    {SHMEMU_BUG_RT_WAIT_NO_ACQUIRE, "rt-wait-no-acquire",
     "runtime: nvshmem_signal_wait_until returns without the acquire", O, NULL},
    {SHMEMU_BUG_RT_PUT_SIGNAL_ORDER, "rt-put-signal-order",
     "runtime: put-with-signal sets the signal before it copies the data", O, NULL},
    {SHMEMU_BUG_RT_QUIET_NOOP, "rt-quiet-noop",
     "runtime: nvshmem_quiet returns without completing the queued non-blocking puts", O,
     NULL},
    {SHMEMU_BUG_RT_FENCE_NOOP, "rt-fence-noop",
     "runtime: nvshmem_fence does not order the puts before it before those after it", O,
     NULL},
    {SHMEMU_BUG_RT_BARRIER_NO_HB, "rt-barrier-no-hb",
     "runtime: the barrier's arrivals and departure carry no happens-before (no "
     "annotation; the counter's atomics only)", O, NULL},
};
#undef O
#define N_RUNTIME (sizeof runtime / sizeof *runtime)

_Static_assert(N_RUNTIME == SHMEMU_BUG_RT_END - 1, "one catalogue entry per runtime bug");

/* The registered catalogues (written by constructors only, before any thread exists). */
enum { MAX_CATALOGUES = 8 };
static struct {
    const shmemu_bug_info *entries;
    size_t n;
} registered[MAX_CATALOGUES];
static size_t n_registered;

int shmemu_bug_register(const shmemu_bug_info *entries, size_t n)
{
    if (n_registered == MAX_CATALOGUES) {
        fprintf(stderr, "shmemu: shmemu_bug_register: more than %d catalogues\n",
                MAX_CATALOGUES);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const shmemu_bug_info *b = &entries[i];
        if (b->id < SHMEMU_BUG_CLIENT_FIRST || b->id >= SHMEMU_BUG_ID_LIMIT) {
            fprintf(stderr, "shmemu: shmemu_bug_register: bug '%s' has id %d; use "
                    "SHMEMU_BUG_CLIENT_FIRST (%d) to %d\n", b->name, b->id,
                    SHMEMU_BUG_CLIENT_FIRST, SHMEMU_BUG_ID_LIMIT - 1);
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            if (entries[j].id == b->id || strcmp(entries[j].name, b->name) == 0) {
                fprintf(stderr, "shmemu: shmemu_bug_register: bug '%s' (id %d) twice\n",
                        b->name, b->id);
                return -1;
            }
        if (shmemu_bug_by_id(b->id) != NULL || shmemu_bug_by_name(b->name) != NULL) {
            fprintf(stderr, "shmemu: shmemu_bug_register: bug '%s' (id %d) is already "
                    "registered\n", b->name, b->id);
            return -1;
        }
    }
    registered[n_registered].entries = entries;
    registered[n_registered].n = n;
    n_registered++;
    return 0;
}

int shmemu_bug_set_config(int id, const char *config)
{
    if (id <= SHMEMU_BUG_NONE || id >= SHMEMU_BUG_RT_END)
        return -1;
    runtime[id - 1].config = config;
    return 0;
}

size_t shmemu_bug_count(void)
{
    size_t n = N_RUNTIME;
    for (size_t c = 0; c < n_registered; c++)
        n += registered[c].n;
    return n;
}

const shmemu_bug_info *shmemu_bug_entry(size_t i)
{
    for (size_t c = 0; c < n_registered; c++) {
        if (i < registered[c].n)
            return &registered[c].entries[i];
        i -= registered[c].n;
    }
    return i < N_RUNTIME ? &runtime[i] : NULL;
}

const shmemu_bug_info *shmemu_bug_by_name(const char *name)
{
    const shmemu_bug_info *b;
    for (size_t i = 0; (b = shmemu_bug_entry(i)) != NULL; i++)
        if (strcmp(b->name, name) == 0)
            return b;
    return NULL;
}

const shmemu_bug_info *shmemu_bug_by_id(int id)
{
    const shmemu_bug_info *b;
    for (size_t i = 0; (b = shmemu_bug_entry(i)) != NULL; i++)
        if (b->id == id)
            return b;
    return NULL;
}

int shmemu_bug_parse(const char *value, int *out, char *msg, size_t msg_size)
{
    *out = SHMEMU_BUG_NONE;
    if (value == NULL || value[0] == '\0')
        return 0;
    const shmemu_bug_info *b = shmemu_bug_by_name(value);
    if (b != NULL) {
        *out = b->id;
        return 0;
    }
    size_t used = 0;
    int n = snprintf(msg, msg_size, "SHMEMU_BUG=%s is not a planted bug; unset it, or use "
                     "one of (a program's --list-bugs describes them):", value);
    used = n > 0 ? (size_t)n : 0;
    for (size_t i = 0; (b = shmemu_bug_entry(i)) != NULL && used < msg_size; i++) {
        n = snprintf(msg + used, msg_size - used, " %s", b->name);
        used += n > 0 ? (size_t)n : 0;
    }
    return -1;
}

int shmemu_bug_active(void) { return shmemu_bug_active_; }

void shmemu_bug_select(int id) { shmemu_bug_active_ = id; }

void shmemu_bug_print(FILE *out)
{
    const shmemu_bug_info *b;
    for (size_t i = 0; (b = shmemu_bug_entry(i)) != NULL; i++)
        fprintf(out, "%-30s %-30s %s\n%-30s config: %s\n", b->name, b->file, b->what, "",
                b->config != NULL ? b->config : "-");
}

/* Before main(), after the catalogues registered: SHMEMU_BUG, once. A bad name stops the
 * program here, before it does anything that the user would mistake for a checked run. */
__attribute__((constructor(SHMEMU_BUG_REGISTER_PRIORITY + 1))) static void bugs_from_env(void)
{
    char msg[4096];
    int id;
    if (shmemu_bug_parse(getenv("SHMEMU_BUG"), &id, msg, sizeof msg) != 0) {
        fprintf(stderr, "shmemu: %s\n", msg);
        exit(2);
    }
    shmemu_bug_active_ = id;
}
