/*
 * sched.h: the deterministic scheduler's data, shared by sched.c (the turn and the
 * decisions), sched_trace.c (traces) and sched_report.c (deadlock reports, last writers).
 * docs/sched.md describes the mode, the trace format and the reports.
 *
 * Everything here is allocated once, by the thread that creates the job, before any PE
 * thread starts (pthread_create orders it before every later access). After that it is
 * touched only through relaxed atomics (loads, and read-modify-writes for writes), so
 * helgrind, DRD and TSan see no happens-before edge in it and no race on it (docs/design.md D4).
 * The fields without _Atomic are read-only after creation.
 */
#ifndef PGAS_SCHED_H
#define PGAS_SCHED_H

#include "internal.h"

#define PGAS_SCHED_TRACE_VERSION 1
#define PGAS_SCHED_DEADLOCK_EXIT PGAS_HANG_EXIT_STATUS
#define PGAS_SCHED_DIVERGED_EXIT 5
#define PGAS_SCHED_NO_ENTITY 0xffffffffu
#define PGAS_SCHED_MAX_CHANGE_POINTS 16
#define PGAS_LAST_WRITERS 4096
/* threads besides the PEs (blocks, streams) that deterministic mode schedules at once */
#define PGAS_SCHED_MAX_SPAWNED 4096
#define PGAS_SCHED_CALLS 256 /* distinct sync point names a trace can name */
/* delay bounding (SHMEMU_DELAYS): delays one run may have, and the largest choice point */
#define PGAS_SCHED_MAX_DELAYS 64
#define PGAS_SCHED_MAX_CHOICE 1000000000000ull

enum {
    ENT_FREE = 0, /* slot unused */
    ENT_NEW,      /* a PE's host slot, before its thread attached */
    ENT_RUNNABLE,
    ENT_BLOCKED,  /* a wait whose condition was false at eval_epoch */
    ENT_SOFT      /* a poll: like BLOCKED, but may run as a last resort */
};

/* Decision record flags (the low 16 bits of a record's second word hold the candidate
 * count). NOENT: a decision made for no running entity (the start, or an exit). */
enum { DEC_LAST_RESORT = 1, DEC_FORCED = 2, DEC_PREEMPT = 4, DEC_SWITCH = 8, DEC_NOENT = 16 };

typedef struct pgas_sched_entity {
    _Atomic uint32_t go;       /* futex word: bumped when the turn is handed here */
    _Atomic uint32_t sleeping; /* the owner sleeps on go (the waker skips the syscall if 0) */
    _Atomic int state;         /* ENT_* */
    _Atomic uint32_t serial;   /* registration order: the entity's name in traces */
    _Atomic uint64_t eval_epoch; /* BLOCKED/SOFT: the epoch its condition was false at */
    _Atomic uint64_t turn_epoch; /* the epoch when it last got the turn */
    _Atomic uint64_t priority;   /* PCT */
    _Atomic uint64_t yields;     /* decisions taken at this entity's sync points */
    _Atomic(pgas_thread *) thread;
    _Atomic(const char *) call; /* where it yielded last */
    /* BLOCKED/SOFT on one word: the entity is a candidate again only once a runtime write
     * touched that word (dirty). The scheduler never reads the word itself: a read from
     * another thread would be a race to the checkers that the program does not have. */
    _Atomic int has_cond;
    _Atomic int dirty;
    char report_token; /* happens-before token: blocked or exited -> the deadlock report */
    _Atomic uintptr_t cond_addr;
    _Atomic int cond_kind;
    _Atomic int cond_cmp;
    _Atomic uint64_t cond_value;
    _Atomic int last_resort;    /* chosen while nothing else could run */
} __attribute__((aligned(64))) pgas_sched_entity;

/* A preemption the shrinker keeps: when entity `from` makes its `yield`-th decision, run
 * `target` (a serial) if it can run. Every other decision keeps the running entity. */
typedef struct pgas_guide_step {
    uint32_t from;
    uint64_t yield;
    uint32_t target;
} pgas_guide_step;

typedef struct pgas_trace_header {
    char program[256];
    char args[1024];
    uint64_t config_hash;
    uint64_t seed;
    int strategy;
    int pct_depth;
    uint64_t pct_steps;
    int n_pes;
    uint64_t n_decisions;
    uint64_t schedule_hash;
    /* strategy delay only (the "delays:" line): the choice points delayed, increasing */
    int n_delays;
    uint64_t delays[PGAS_SCHED_MAX_DELAYS];
    /* the names of the calls the decisions refer to by hash */
    int n_calls;
    uint32_t call_hashes[PGAS_SCHED_CALLS];
    char call_names[PGAS_SCHED_CALLS][96];
} pgas_trace_header;

/* Who wrote a word last: a table of PGAS_LAST_WRITERS entries in sets of
 * PGAS_LAST_WRITER_WAYS, a word's set chosen by its address. A word written by a write of a
 * word or less (a flag, a signal, a counter: what a report asks about) is never displaced by
 * the words of a longer write (a put's data), so that whether a report knows its last writer
 * does not depend on where the addresses fell (ASLR) but on a set of four overflowing. */
#define PGAS_LAST_WRITER_WAYS 4
typedef struct pgas_last_writer {
    _Atomic uintptr_t addr;
    _Atomic(pgas_thread *) thread;
    _Atomic uint64_t fiber;
    _Atomic uint64_t decision;
    _Atomic(const char *) call;
    _Atomic int small; /* some write of this word was a word or less */
} pgas_last_writer;

/* The first entry of the set of the word at a (8-aligned). */
static inline size_t pgas_last_writer_set(uintptr_t a)
{
    return (size_t)(((uint64_t)a >> 3) * 0x9e3779b97f4a7c15ull >> 52) &
           (PGAS_LAST_WRITERS - PGAS_LAST_WRITER_WAYS);
}

typedef struct pgas_sched {
    pgas_world *world;
    int strategy;
    uint64_t seed;
    int pct_depth;
    uint64_t pct_steps;
    uint64_t change_points[PGAS_SCHED_MAX_CHANGE_POINTS]; /* PCT: decision indexes */
    int n_change_points;
    uint64_t delays[PGAS_SCHED_MAX_DELAYS]; /* delay: SHMEMU_DELAYS, increasing */
    int n_delays;
    int capacity;
    int pin_cpu; /* the CPU every entity runs on, or -1 */
    pgas_sched_entity *ents;
    pgas_trace_header header; /* of this run (written at creation) */
    /* state (turn holder only, through atomics) */
    _Atomic int hwm;               /* slots [0, hwm) may be in use */
    _Atomic uint32_t next_serial;
    _Atomic uint32_t registered;   /* futex word: entities registered so far */
    _Atomic int hosts_attached;
    _Atomic int current;           /* slot holding the turn, -1 before the start */
    _Atomic uint64_t epoch;        /* runtime writes and writing sync points so far */
    _Atomic uint64_t rng;
    _Atomic uint64_t decisions;
    _Atomic uint64_t switches;
    _Atomic uint64_t preemptions;
    _Atomic uint64_t choices;      /* delay: decisions with two candidates or more so far */
    _Atomic int next_delay;        /* delay: the first of delays[] not reached yet */
    _Atomic uint64_t hash;         /* FNV-1a over the decision records */
    _Atomic uint64_t last_resort_epoch;
    _Atomic uint64_t last_resort_run;
    _Atomic int finished;          /* deadlock or divergence reported */
    _Atomic int flushed;           /* the trace was written */
    /* the decision log: 2 words per decision (trace records) */
    uint64_t max_decisions;
    _Atomic uint64_t *log;
    _Atomic int log_overflow;
    pgas_last_writer *writers;
    _Atomic uint32_t call_hash[PGAS_SCHED_CALLS]; /* open addressing by hash; 0: free */
    _Atomic(const char *) call_name[PGAS_SCHED_CALLS];
    /* replay (read-only) */
    bool replaying;
    uint64_t *replay_log;
    uint64_t replay_n;
    pgas_trace_header replay_header;
    /* guided (explore's shrinker; read-only) */
    pgas_guide_step *guide;
    size_t n_guide;
    /* SHMEMU_MEMORY=weak (weak.c), or NULL */
    struct pgas_weak *weak;
} pgas_sched;

/* The job in deterministic mode of this process (for the exit and signal handlers). */
extern pgas_sched *_Atomic pgas_sched_active;

uint32_t pgas_sched_hash_str(const char *s);

/* The name of a call hash in the replayed trace, or NULL. */
const char *pgas_trace_call_name(const pgas_trace_header *h, uint32_t hash);

/* sched_trace.c */
/* A strategy's name, as traces and replay commands write it ("random", "pct", ...). */
const char *pgas_sched_strategy_name(int strategy);
/* Exits 2 with a message naming var when path cannot be written (PATH.tmp.PID is probed:
 * outputs are written there, then renamed); `what` names the output ("the trace"). */
void pgas_check_output(const char *var, const char *path, const char *what);
void pgas_trace_fill_header(pgas_sched *s);
int pgas_trace_write(const pgas_sched *s, const char *path);
/* Parses a trace held in buf[0, len) (name: the file, for messages). Returns 0 with *log
 * malloc'ed (2 words per decision, *n decisions), or -1 with a message in err that names
 * the file, the line and the field. Every count is bounded by len before any allocation;
 * buf needs no NUL. The fuzzers' entry point (fuzz/). */
int pgas_trace_parse(const char *name, const unsigned char *buf, size_t len,
                     pgas_trace_header *h, uint64_t **log, uint64_t *n, char *err,
                     size_t err_len);
/* Reads the regular file path whole and parses it (pgas_trace_parse). */
int pgas_trace_read(const char *path, pgas_trace_header *h, uint64_t **log, uint64_t *n,
                    char *err, size_t err_len);
/* Writes the trace if SHMEMU_TRACE_OUT asked for one (once). Returns -1 (after printing
 * why) when it could not be written, else 0. */
int pgas_trace_flush(pgas_sched *s);
/* Prints where a replay departs from its trace and exits with PGAS_SCHED_DIVERGED_EXIT. */
_Noreturn void pgas_trace_diverged(pgas_sched *s, uint64_t at, const pgas_sched_entity *me,
                                   const char *call, const char *why);
/* Parses a guide (explore's shrinker: lines "<from serial> <decision index> <target
 * serial>") held in buf[0, len), no NUL needed. Returns 0 with *steps malloc'ed, or -1 with a
 * message naming name:line in err. The fuzzers' entry point (fuzz/). */
int pgas_guide_parse(const char *name, const char *buf, size_t len, pgas_guide_step **steps,
                     size_t *n, char *err, size_t err_len);
/* Parses a delay set (SHMEMU_DELAYS, a trace's "delays:" line): "none" (no delay), or
 * decimal choice point indexes separated by commas, strictly increasing, each at most
 * PGAS_SCHED_MAX_CHOICE, at most PGAS_SCHED_MAX_DELAYS of them. Returns 0, or -1 with what
 * is wrong in err (without a prefix: the caller names the variable or the line). */
int pgas_delays_parse(const char *text, uint64_t *delays, int *n, char *err, size_t err_len);
/* Writes a delay set as pgas_delays_parse reads it ("none" when empty) into out. */
void pgas_delays_format(const uint64_t *delays, int n, char *out, size_t len);
/* Reads the regular file path whole and parses it (pgas_guide_parse). */
int pgas_guide_read(const char *path, pgas_guide_step **steps, size_t *n, char *err,
                    size_t err_len);

/* sched_report.c: writes s for a POSIX shell (as it is when every character is safe, else
 * in single quotes), so that a printed command runs as printed. */
void pgas_sched_put_quoted(FILE *f, const char *s);
/* Prints "shmemu: replay: <command>": the settings (the trace, or strategy, seed and PCT's
 * parameters; SHMEMU_NPES; every other SHMEMU_* / NVSHMEM_* variable of the environment)
 * and the program's command line, quoted, that replay this run. */
void pgas_sched_print_replay(FILE *f, const pgas_sched *s);

/* sched_report.c: nothing can run; report every blocked entity and exit. */
_Noreturn void pgas_sched_deadlock(pgas_sched *s, const char *what);

#endif
