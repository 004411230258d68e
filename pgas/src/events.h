/*
 * events.h: the event log (SHMEMU_EVENTS=FILE, docs/events.md): what the runtime records
 * (events.c) and how the file is written (events_write.c).
 *
 * A job with the log on has a pgas_ev_job (world->events); every thread record attached to
 * it gets a pgas_ev_log of its own (t->events), a list of fixed chunks that only its thread
 * appends to: no lock, and no shared word but the job's sequence counter, a relaxed
 * fetch-add that the race checkers see as a read (valgrind) or as no edge (TSan), so the log
 * adds no happens-before edge between the program's threads (docs/design.md D4). Chunks never
 * move, so an event may be completed after it was recorded (a write's resulting value, known
 * only after its read-modify-write or, in checking mode, its late delivery).
 *
 * Off (SHMEMU_EVENTS unset) t->events is NULL and every hook is one predictable branch
 * (pgas_ev_on). The writer runs when the job ends, after its threads were joined, or on an
 * early end (hang report, deadlock, a fatal error, exit) through the hook events.c keeps.
 *
 * Invariant: an event's seq is taken before the operation acts on memory, so a write is
 * numbered before any wait that sees its value, and a barrier's starts before its dones.
 */
#ifndef PGAS_EVENTS_H
#define PGAS_EVENTS_H

#include "internal.h"

typedef enum {
    PGAS_EV_PUT,
    PGAS_EV_GET,
    PGAS_EV_PUT_NBI,
    PGAS_EV_GET_NBI,
    PGAS_EV_PUT_SIGNAL,
    PGAS_EV_SIGNAL,
    PGAS_EV_AMO,
    PGAS_EV_WAIT_START,
    PGAS_EV_WAIT_DONE,
    PGAS_EV_FENCE,
    PGAS_EV_QUIET,
    PGAS_EV_BARRIER_START,
    PGAS_EV_BARRIER_DONE,
    PGAS_EV_LAUNCH,
    PGAS_EV_BLOCK_START,
    PGAS_EV_BLOCK_END,
    PGAS_EV_HANG,
    PGAS_EV_ERROR,
    PGAS_EV_ALLOC, /* internal: names heap memory at write time, not written */
    PGAS_EV_N_OPS
} pgas_ev_op;

enum { PGAS_EV_HOST = 0, PGAS_EV_STREAM, PGAS_EV_BLOCK };

/* A symmetric address as the log keeps it: an offset into the heap (the same on every PE),
 * or a raw address (a global), or none. */
enum { PGAS_EV_NOWHERE = 0, PGAS_EV_HEAP, PGAS_EV_RAW };
typedef struct pgas_ev_addr {
    int kind;
    uint64_t at; /* heap offset, or the address */
} pgas_ev_addr;

typedef struct pgas_event {
    uint64_t seq;  /* the job's counter when recorded (renumbered 0..N-1 when written) */
    uint64_t t_ns; /* since the job began */
    uint8_t op;
    uint8_t where;
    uint8_t sub;  /* sig_op, cmp, amo op */
    uint8_t size; /* wait: the word's bytes; writers: bytes of the word written (after) */
    bool has_after;
    bool has_fetched;
    int pe;
    int peer;
    int stream;
    int block; /* blocks: linear block; alloc: unused */
    int thread;
    unsigned launch;
    int sm;
    const char *kernel;
    const char *kernel_op; /* an emulated kernel's atomic: its name (atom_add, ...) */
    const void *pc; /* the return address into the program, or NULL */
    pgas_ev_addr dst, src, sig;
    uint64_t bytes; /* alloc: size */
    uint64_t value; /* compare value, signal value, amo operand */
    uint64_t seen;  /* wait_done: the value that satisfied it; amo: fetched */
    uint64_t after; /* writers: the word's value after the write */
    const void *obj; /* barriers: the pgas_barrier; alloc: the call's name */
    uint32_t gen;    /* barriers: the generation */
    unsigned dims[6]; /* launch: grid x,y,z, block x,y,z */
    char *text;       /* hang, error: the report (malloc'd) */
} pgas_event;

#define PGAS_EV_CHUNK 256
typedef struct pgas_ev_chunk {
    struct pgas_ev_chunk *next;
    _Atomic size_t n;
    pgas_event ev[PGAS_EV_CHUNK];
} pgas_ev_chunk;

typedef struct pgas_ev_log {
    pgas_ev_chunk *head, *tail;
    struct pgas_ev_log *next; /* the job's list */
} pgas_ev_log;

typedef struct pgas_ev_job {
    char path[512];
    _Atomic uint64_t seq;
    uint64_t t0_ns;
    bool sched; /* deterministic mode: "t" is the order */
    _Atomic(pgas_ev_log *) logs;
    _Atomic int written;
    _Atomic uint64_t dropped; /* events lost to out-of-memory */
} pgas_ev_job;

/* The hot paths' test: one load of the thread's record and one predictable branch. */
static inline bool pgas_ev_on(const pgas_thread *t)
{
    return __builtin_expect(t->events != NULL, 0);
}

/* ---- recording (events.c) ---------------------------------------------------------- */

/* A new event of op by t, its seq taken now; NULL when out of memory (counted as dropped).
 * pc: the program's return address, or NULL. */
pgas_event *pgas_ev_record(pgas_thread *t, pgas_ev_op op, const void *pc);
/* The call site the API call in progress noted (PGAS_NOTE_CALLER) when that call is `call`
 * (as park.c's wait records take it), else NULL. */
const void *pgas_ev_noted_caller(const pgas_thread *t, const char *call);
/* addr (a symmetric address of t's PE) as the log keeps it. */
pgas_ev_addr pgas_ev_addr_of(const pgas_thread *t, const volatile void *addr);
/* Puts and gets (op PUT, GET, PUT_NBI, GET_NBI): dest and source as the caller gave them
 * (the symmetric side is named); a put of 1 to 8 bytes remembers its value, for the wait
 * that sees it. */
pgas_event *pgas_ev_rma(pgas_thread *t, pgas_ev_op op, const void *pc, int peer,
                        const void *dest, const void *source, size_t bytes);
/* Sets the value a write left in its word (a put-with-signal's signal, a signal, an amo). */
static inline void pgas_ev_after(pgas_event *e, uint64_t after)
{
    if (e != NULL) {
        e->after = after;
        e->has_after = true;
    }
}
/* The word's value after amo op with operand value (cond for cswap) on old, size bytes. */
uint64_t pgas_ev_amo_result(pgas_amo_op op, uint64_t old, uint64_t value, uint64_t cond,
                            size_t size);
/* Waits: kind sets the word's size. */
pgas_event *pgas_ev_wait(pgas_thread *t, pgas_ev_op op, const void *pc,
                         const volatile void *addr, pgas_kind kind, int cmp, uint64_t value);
/* The job's log begins (world.c, for a job whose config names a file). */
void pgas_ev_job_attach_thread(pgas_thread *t);
/* An early end: records op (HANG or ERROR) with text by the calling thread (when it is a
 * PE's) and writes the log of world (NULL: the calling thread's job, else the last job
 * begun) through the writer's hook. */
void pgas_ev_early_end(pgas_world *world, pgas_ev_op op, const char *text);
/* The writer's hook, set by events_write.c when a job with a log begins, and the job whose
 * log an exit writes. */
void pgas_ev_set_writer(void (*write)(pgas_world *world), pgas_world *active);
pgas_world *pgas_ev_active_job(void);

/* ---- the file (events_write.c) ----------------------------------------------------- */

/* Starts the log of a job whose environment sets SHMEMU_EVENTS: refuses (exit 2, with a
 * message) other backends than threads and a file that cannot be written. */
void pgas_ev_job_begin(pgas_world *world);
/* Writes the log (once) and frees it: at the job's end, after its threads were joined. */
void pgas_ev_job_end(pgas_world *world);

#endif
