/*
 * shmemu/bugs.h: planted protocol bugs: the switch, the catalogues, the runtime's own plants.
 *
 * A planted bug is one realistic mistake a developer of a signalling protocol could make
 * (docs/papers.md: NVSHMEM's put-with-signal, fences and waits, and the protocols built on
 * them), compiled into the code behind a check of the form
 *
 *     if (shmemu_bug(SOME_BUG)) ...the mistake...; else ...correct code...
 *
 * so that the race checkers and the checksum can be measured against it
 * (scripts/detection-matrix.sh, docs/detection-matrix.md).
 *
 * Catalogues. The runtime's own plants (SHMEMU_BUG_RT_*: memory-ordering operations of pgas,
 * one table each, pgas/src/ordering.c) are built in. A program planting bugs of its own
 * registers its catalogue with shmemu_bug_register, from a constructor of priority
 * SHMEMU_BUG_REGISTER_PRIORITY, with ids from SHMEMU_BUG_CLIENT_FIRST up, and names the run
 * of it that exercises each runtime plant (shmemu_bug_set_config). Registered catalogues come first in the listing, in registration order, the runtime's
 * last.
 *
 * At most one bug is active in a process. It is chosen by the environment variable
 * SHMEMU_BUG=<name>, read once before main() runs (so before any PE thread starts), after
 * the catalogues registered: an unknown name prints every catalogue's names and exits with
 * status 2. Without SHMEMU_BUG the check is one load of a word that never changes and one
 * compare, predicted not taken: correct code runs unchanged, bit for bit.
 *
 * Under nvcc (a program's CUDA build), or with -DSHMEMU_NO_BUGS, every check is the
 * constant false and the plants compile away (SHMEMU_BUG is then still parsed, and ignored).
 */
#ifndef SHMEMU_BUGS_H
#define SHMEMU_BUGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The runtime's bugs. SHMEMU_BUG_NONE (0) is correct code. */
typedef enum shmemu_bug_id {
    SHMEMU_BUG_NONE = 0,
    SHMEMU_BUG_RT_SIGNAL_NO_RELEASE,
    SHMEMU_BUG_RT_WAIT_NO_ACQUIRE,
    SHMEMU_BUG_RT_PUT_SIGNAL_ORDER,
    SHMEMU_BUG_RT_QUIET_NOOP,
    SHMEMU_BUG_RT_FENCE_NOOP,
    SHMEMU_BUG_RT_BARRIER_NO_HB,
    SHMEMU_BUG_RT_END, /* one past the runtime's */
    /* A registered catalogue's ids start here (and stay below SHMEMU_BUG_ID_LIMIT). */
    SHMEMU_BUG_CLIENT_FIRST = 64,
    SHMEMU_BUG_ID_LIMIT = 4096
} shmemu_bug_id;

/* Constructors that call shmemu_bug_register use this priority (the parse of SHMEMU_BUG
 * runs at a later one). It orders constructors within one linked image: register from the
 * program or a static library linked with libshmemu.a. */
#define SHMEMU_BUG_REGISTER_PRIORITY 1000

/* One catalogue entry. */
typedef struct shmemu_bug_info {
    int id;             /* a shmemu_bug_id, or a registered catalogue's */
    const char *name;   /* what SHMEMU_BUG takes: lower case, words joined by '-' */
    const char *what;   /* the mistake, in one line */
    const char *file;   /* the source file of the plant (it names the bug's id) */
    const char *config; /* how to exercise it: optional VAR=value words, then the arguments
                           of the program that plants it */
} shmemu_bug_info;

/* The active bug; written once before main() (or by shmemu_bug_select), read-only after. */
extern int shmemu_bug_active_;

#if defined(__CUDACC__) || defined(SHMEMU_NO_BUGS)
#define shmemu_bug(id) ((void)(id), false)
#else
/* True when `id` is the active bug: the plant site's check. */
static inline bool shmemu_bug(int id)
{
    return __builtin_expect(shmemu_bug_active_ == id, 0);
}
#endif

/* Adds a catalogue of n entries (kept by pointer: static storage), ids in
 * [SHMEMU_BUG_CLIENT_FIRST, SHMEMU_BUG_ID_LIMIT), names and ids unique over all catalogues.
 * Returns 0, or -1 with a message on stderr (a programming error: the entries are not added). */
int shmemu_bug_register(const shmemu_bug_info *entries, size_t n);

/* Sets the configuration that exercises runtime bug `id` (a SHMEMU_BUG_RT_* value): the
 * runtime cannot know the program its plants need; the registering program says which
 * of its runs exercises each (config kept by pointer). Returns 0, or -1 for another id. */
int shmemu_bug_set_config(int id, const char *config);

/* Every known bug, in listing order: entry i of shmemu_bug_count() (NULL past the end). */
size_t shmemu_bug_count(void);
const shmemu_bug_info *shmemu_bug_entry(size_t i);

/* The entry of a name, or of an id; NULL when unknown. */
const shmemu_bug_info *shmemu_bug_by_name(const char *name);
const shmemu_bug_info *shmemu_bug_by_id(int id);

/* Parses a SHMEMU_BUG value: NULL or "" is SHMEMU_BUG_NONE, a known name its bug.
 * Returns 0, or -1 with a message in msg (naming the value and listing the names). */
int shmemu_bug_parse(const char *value, int *out, char *msg, size_t msg_size);

/* The active bug (SHMEMU_BUG_NONE when correct code runs). */
int shmemu_bug_active(void);

/* Makes `id` the active bug. For tests: call only while no PE thread runs (it is a plain
 * write that the threads started afterwards read; the runtime's ordering table is chosen
 * when a job starts). */
void shmemu_bug_select(int id);

/* Prints every catalogue: one line per bug, "name  file  what", then its configuration. */
void shmemu_bug_print(FILE *out);

#ifdef __cplusplus
}
#endif

#endif
