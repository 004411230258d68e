/*
 * internal.h: the data of the threads backend, shared by the files of pgas/src.
 *
 * A job (pgas_world) is N PEs. Each PE owns a symmetric heap of heap_size bytes; where the
 * heaps lie and how a byte reaches a peer's is the job's backend's business (backend.h):
 * code here knows a symmetric address as (PE, offset) and asks the backend for the rest.
 *
 * Threads: every pthread that acts for a PE (the PE's main thread, and the emulator's block
 * threads) has a pgas_thread, reached through a thread-local pointer ("who am I", self.c).
 * It holds what a hang report needs (what the thread waits for) and, in checking mode, the
 * thread's undelivered non-blocking puts: completion is per thread, as nvshmem_quiet is on a
 * GPU.
 *
 * Layers: the files call each other downwards only, from "who am I" (self.c) at the bottom
 * through errors, delivery, the heap, the reports and the scheduler, waits (park.c) and the
 * threads backend, to the API and jobs (world.c) at the top; a call that must go up at run
 * time goes through the backend's table in world->backend (docs/design.md, "Layering";
 * scripts/check-layers.py checks it).
 *
 * Invariant that keeps the race checkers honest (docs/design.md D4): the runtime's own words (wake
 * buckets, barrier counters, wait records) are written only by atomic read-modify-writes and
 * read by atomic loads. Valgrind sees an RMW as a read, so these words never race, and they
 * create no happens-before edge: only pgas_hb_before/after (and real acquire/release atomics
 * under TSan) do, and only where the API promises ordering.
 */
#ifndef PGAS_INTERNAL_H
#define PGAS_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "shmemu/internal/pgas_emu.h"
#include "shmemu/internal/sizes.h"
#include "shmemu/pgas.h"

#define PGAS_MAX_TEAMS 64
/* WORLD, SHARED, NODE, SAME_MYPE_NODE, SAME_GPU, GPU_LEADERS (NVSHMEM's ids 0..5) */
#define PGAS_TEAM_PREDEFINED 6
/* The predefined teams whose members differ per PE: each is the calling PE alone (one node,
 * one PE per emulated GPU), kept in its pgas_pe (team.c). */
#define PGAS_TEAM_SAME_MYPE_NODE 3
#define PGAS_TEAM_SAME_GPU 4
#define PGAS_LABEL_LEN 64
#define PGAS_HANG_EXIT_STATUS 3

/* ---- configuration (config.c) -------------------------------------------------------- */

typedef struct pgas_config {
    size_t heap_size;       /* bytes per PE (NVSHMEM_SYMMETRIC_SIZE) */
    double hang_timeout_s;  /* SHMEMU_HANG_TIMEOUT; 0 = never */
    bool check_nbi;         /* SHMEMU_CHECK_NBI */
    bool check_bounds;      /* SHMEMU_CHECK_BOUNDS: accesses stay inside live objects */
    uint64_t check_seed;    /* SHMEMU_CHECK_SEED */
    int spin_polls;         /* SHMEMU_SPIN */
    bool no_ptr;            /* SHMEMU_NO_PTR */
    bool strict_device;     /* SHMEMU_STRICT_DEVICE (default: shmemu_strict_device_default) */
    int n_cores;            /* online CPUs */
    bool under_valgrind;
    /* deterministic scheduling (sched.c; docs/sched.md) */
    int sched_strategy;       /* PGAS_SCHED_*: SHMEMU_SCHED, or the replayed trace's */
    uint64_t sched_seed;      /* SHMEMU_SEED */
    int pct_depth;            /* SHMEMU_PCT_DEPTH */
    uint64_t pct_steps;       /* SHMEMU_PCT_STEPS: the step bound PCT spreads change points over */
    uint64_t max_decisions;   /* SHMEMU_SCHED_MAX_DECISIONS: decisions a trace can hold */
    char trace_out[512];      /* SHMEMU_TRACE_OUT */
    char replay[512];         /* SHMEMU_REPLAY */
    char guide[512];          /* SHMEMU_SCHED_GUIDE (explore's shrinker) */
    char events[512];         /* SHMEMU_EVENTS: the event log's file (events.h) */
    bool check_seed_set;      /* SHMEMU_CHECK_SEED was given (else it follows SHMEMU_SEED) */
    /* SHMEM_INFO / NVSHMEM_INFO, SHMEM_VERSION: print at PE 0's initialization (config.c) */
    bool print_info;
    bool print_version;
} pgas_config;

/* Strategies of the deterministic scheduler; OFF is free-running. */
/* DELAY: delay bounding (keep the running entity, else round robin; SHMEMU_DELAYS lists the
 * choice points where that choice is skipped). LAST: the largest strategy a trace may name. */
enum { PGAS_SCHED_OFF = 0, PGAS_SCHED_RANDOM, PGAS_SCHED_PCT, PGAS_SCHED_RR, PGAS_SCHED_GUIDE,
       PGAS_SCHED_DELAY, PGAS_SCHED_LAST = PGAS_SCHED_DELAY };

void pgas_config_read(pgas_config *config);
/* What SHMEM_VERSION and SHMEM_INFO print (to stdout, once per job, at PE 0's
 * initialization): the version line, then with info every setting, its value and where the
 * value came from (the environment or the default). */
void pgas_config_print(const pgas_config *config, bool info);

/* ---- errors (error.c) ---------------------------------------------------------------- */

/* Makes this PE's messages use OpenSHMEM names (shmem_init calls it). */
void pgas_use_openshmem_names(void);
/* True when t's PE speaks OpenSHMEM: its messages name shmem_ calls and routines. */
bool pgas_speaks_openshmem(const pgas_thread *t);
/* A core call name (nvshmem_X) as thread t's program spells it: shmem_X on a PE that
 * initialized through shmem_init; reports (hang, deadlock) name calls through it. */
const char *pgas_call_name(const pgas_thread *t, const char *call);

/* Prints "shmemu: PE p: call: message" and aborts. Only the first failing thread prints. */
_Noreturn void pgas_fail(const char *call, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prints the same form without aborting, for calls that return an error as NVSHMEM does. */
void pgas_complain(const char *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- teams and barriers (team.c, barrier.c) ------------------------------------------ */

typedef struct pgas_barrier {
    _Atomic uint32_t arrived;
    _Atomic uint32_t generation;
    /* Addresses for the happens-before annotations, one per generation parity: a PE that
     * has left generation g may already arrive at g+1 while a slow PE still leaves g, and a
     * single token would hand the fast PE's later work to the slow one. */
    char hb_token[2];
} pgas_barrier;

typedef struct pgas_team {
    _Atomic int in_use;
    int start;  /* world PE of team PE 0 */
    int stride; /* world PE distance between team PEs: negative lists them downwards; never 0 */
    int size;
    pgas_barrier barrier;
    _Atomic int32_t split_result; /* team id chosen by the parent's PE 0 during a split */
    int num_contexts; /* the split's config (SHMEM_TEAM_NUM_CONTEXTS), else 0 */
    void *backend_team; /* a ranks backend's own (the MPI backend: the team's communicator) */
} pgas_team;

/* An OpenSHMEM active set (PE_start, logPE_stride, PE_size) as a team of its own, made by
 * the first deprecated pSync collective that names it and kept for the job (active_set.c).
 * key is 0 while the slot is free and never changes once set; ready turns 1 once team's
 * fields are written. Core collectives reach it through the team id PGAS_ACTIVE_SET_ID. */
#define PGAS_MAX_ACTIVE_SETS 64
typedef struct pgas_active_set {
    _Atomic uint64_t key;
    _Atomic int ready;
    pgas_team team;
} pgas_active_set;
/* Team ids of active sets: -2, -3, ... (NVSHMEM_TEAM_INVALID is -1). */
#define PGAS_ACTIVE_SET_ID(slot) (-2 - (slot))

/* ---- per-PE state -------------------------------------------------------------------- */

typedef struct pgas_heap_block {
    size_t offset;
    size_t size;
    bool free;
} pgas_heap_block;

/* The allocator of one PE. Every PE runs the same calls in the same order on its own
 * allocator, so every PE computes the same offsets; a collective check proves it. */
typedef struct pgas_heap_allocator {
    pgas_heap_block *blocks; /* sorted by offset, covering [0, heap_size) */
    size_t n_blocks;
    size_t cap_blocks;
} pgas_heap_allocator;

/* PGAS_ASSERTs the invariant of a's block list (heap.c): sorted, contiguous, covering
 * [0, heap_size), no empty block, no two free blocks side by side. */
void pgas_heap_check_blocks(const pgas_heap_allocator *a, size_t heap_size);

typedef struct pgas_registered {
    char *addr;
    size_t length;
} pgas_registered;

/* A futex word and the count of threads parked on it (park.c). */
typedef struct pgas_wake_bucket {
    _Atomic uint32_t seq;
    _Atomic uint32_t parked;
    char pad[56];
} pgas_wake_bucket;

/* Checking mode: the source of a non-blocking put that was delivered (for progress) but not
 * yet completed by nvshmem_quiet or a barrier on its issuing thread. Reusing that source is a
 * bug even though the bytes have left (on a GPU the put may still be reading it); the next
 * put from the same source, or the issuer's quiet, compares its bytes with `hash`
 * (delivery.c). Every field is written with an atomic exchange and read relaxed: no
 * ordering, and nothing a race checker counts as a write (docs/design.md D4). */
#define PGAS_REUSE_SLOTS 64
typedef struct pgas_reuse_slot {
    _Atomic uintptr_t src;    /* the source address; 0: free; never changes once claimed */
    _Atomic uint64_t armed;   /* 1 while the put is not known complete */
    _Atomic uint64_t bytes;
    _Atomic uint64_t hash;    /* of the source bytes when the put was delivered */
    _Atomic uint64_t to_pe;
    _Atomic(const char *) call;
    _Atomic(const struct pgas_thread *) issuer;
    /* The PE's count of completed grid syncs when the put was delivered: a quiet by another
     * thread of the PE that passed a later grid sync completes it (delivery.c) */
    _Atomic uint64_t grid_mark;
} pgas_reuse_slot;

#define PGAS_PARKED_SLOTS 64
#define PGAS_LOCKS_HELD 32
/* Arrays whose wait_until_any/test_any scan position a thread remembers (p2p_sync.c). */
#define PGAS_ANY_CURSORS 4

/* ---- collective agreement (agree.c) -------------------------------------------------- */

#define PGAS_AGREE_ARGS 4

/* A collective call as one PE makes it: what every member of the team must agree on (the
 * operation and up to PGAS_AGREE_ARGS named values), plus values that may differ per PE
 * (bit i of vary set: values[i] is this PE's own, e.g. collect's nelems, and is not
 * compared). */
typedef struct pgas_coll_call {
    const char *call; /* the API call, for messages */
    const char *op;   /* what must match across PEs: the call, or a class of calls */
    int team_id;
    int n_args;
    unsigned vary;
    const char *names[PGAS_AGREE_ARGS];
    int64_t values[PGAS_AGREE_ARGS];
} pgas_coll_call;

/* The collective call a PE is in, published by the PE's own thread before the team's first
 * barrier and read by the other members after it (so the barrier orders the two), and by
 * reports. Every field is written with an atomic exchange and read with an atomic load: the
 * runtime's bookkeeping, no happens-before edge (docs/design.md D4). */
typedef struct pgas_coll_record {
    _Atomic int active;                      /* set at publish, cleared when the call ends */
    _Atomic int threads_in;                  /* the PE's threads inside collectives now */
    _Atomic int host;                        /* by an OpenSHMEM PE's own thread (agree.c) */
    _Atomic(const char *) call;
    _Atomic(const char *) op;
    _Atomic int team_id;
    _Atomic(const struct pgas_team *) team;  /* the team object (per PE for self teams) */
    _Atomic uint32_t generation;             /* the team barrier's generation at publish */
    _Atomic int n_args;
    _Atomic unsigned vary;
    _Atomic(const char *) names[PGAS_AGREE_ARGS];
    _Atomic int64_t values[PGAS_AGREE_ARGS];
} pgas_coll_record;

typedef struct pgas_pe {
    int id;
    /* NVSHMEMX_TEAM_SAME_MYPE_NODE and NVSHMEMI_TEAM_SAME_GPU: this PE alone (team.c) */
    pgas_team self_team;
    _Atomic int init_status;  /* NVSHMEM_STATUS_* */
    _Atomic int init_calls;   /* 1 once the PE has been initialized (a second init is misuse) */
    pgas_heap_allocator heap; /* touched only by the PE's host thread, in collectives */
    /* The collective call in progress (collectives and heap calls), compared across the
     * team's PEs (agree.c). */
    pgas_coll_record coll;
    /* Collective heap calls this PE has entered: a PE whose count differs at the same
     * barrier skipped (or added) one (heap.c names both sides; the call and its size are in
     * coll). */
    _Atomic uint64_t heap_calls;
    _Atomic int finished; /* the PE's main function has returned (world.c) */
    /* The OpenSHMEM locks this PE holds (the lock word's address on PE 0; 0: a free slot),
     * so that clearing a lock it does not hold, or setting one it holds, is reported
     * (shmem_lock.c). Atomic exchanges and loads: bookkeeping, no edge (D4). */
    _Atomic uintptr_t locks_held[PGAS_LOCKS_HELD];
    pgas_registered *registered; /* nvshmemx_buffer_register */
    size_t n_registered;
    _Atomic int parked; /* threads parked on a word of this PE's heap */
    /* The words those threads wait on (0: a free slot), so that a write of a long range
     * wakes just the waiters inside it; a waiter that finds no free slot counts in
     * parked_unlisted, and while any does, a long write wakes every parked thread. */
    _Atomic uintptr_t parked_words[PGAS_PARKED_SLOTS];
    _Atomic int parked_unlisted;
    /* Set by shmem_init: messages name the shmem_ call a PE made, not the nvshmem_ one it
     * forwarded to (the OpenSHMEM layer is thin entry points over the same core). */
    _Atomic int openshmem_names;
    /* Threads the program created on this PE that still run (app_thread.c; OpenMP workers
     * for the length of their region). OpenSHMEM's quiet and barriers complete every thread's
     * default-context operations, but the checking mode's queues are per thread, so while
     * any runs, default-context puts are delivered at once (delivery.c, late_delivery). */
    _Atomic int program_threads;
    /* For waits on several words of this heap at once (wait_until_any and friends). */
    _Alignas(64) pgas_wake_bucket any_word_bucket;
    pgas_reuse_slot reuse[PGAS_REUSE_SLOTS]; /* checking mode, delivery.c */
    /* Grid syncs of this PE's cooperative kernels completed so far (pgas_grid_sync_arrive):
     * what orders one block's puts before another block's quiet. */
    _Atomic uint64_t grid_syncs;
} pgas_pe;

/* ---- threads ------------------------------------------------------------------------- */

typedef struct pgas_pending pgas_pending; /* delivery.c */

/* Checking mode: the undelivered operations of one thread on one communication context
 * (delivery.c), with the fence epoch they are issued in, and the reuse slots (indexes into
 * the PE's table) that its delivered but incomplete non-blocking puts armed, cleared by the
 * next quiet of that context on that thread. */
typedef struct pgas_queue {
    pgas_pending *pending;
    size_t n;
    size_t cap;
    uint32_t fence_epoch;
    int armed[PGAS_REUSE_SLOTS];
    int n_armed;
} pgas_queue;

/* An OpenSHMEM communication context (shmem_ctx.c; a shmem_ctx_t points to one). The record
 * of the thread that created it owns it until the job ends, so the handle of a destroyed
 * context still reads `destroyed` and its use is reported as misuse, never a use after
 * free. Only `destroyed` changes after creation (an atomic exchange, read relaxed). */
#define PGAS_CTX_MAGIC 0x637478736d656d75ull /* "umemsxtc": a pointer that is no context */
typedef struct pgas_ctx {
    uint64_t magic;
    _Atomic int destroyed;
    int pe;       /* the PE of the thread that created it */
    long options; /* SHMEM_CTX_PRIVATE, _SERIALIZED, _NOSTORE */
    /* the core team it was made from, and that team's geometry when the context was made:
     * PE numbers of its calls are team PEs, world PE = team_start + pe * team_stride */
    int team_id;
    int team_start;
    int team_stride;
    int team_size;
    const struct pgas_thread *creator;
    struct pgas_ctx *next_owned; /* the creator's list (pgas_thread.contexts) */
} pgas_ctx;

/* Where the program made a call: a return address into it (pc), or a file and line. */
typedef struct pgas_call_site {
    const void *pc;
    const char *file;
    int line;
} pgas_call_site;

typedef struct pgas_wait_record {
    _Atomic int active;
    _Atomic uintptr_t addr;
    _Atomic int kind;
    _Atomic int cmp;
    _Atomic uint64_t value;
    _Atomic(const char *) call;
    _Atomic(const char *) what;
    _Atomic uint64_t since_ns;
    _Atomic uint64_t fiber; /* the emulated thread that waits: x | y << 21 | z << 42, plus 1 */
    _Atomic uintptr_t caller; /* the return address into the program (PGAS_NOTE_CALLER), or 0 */
    /* the site a layer above pgas noted (pgas_thread_note_site), which the report names when
     * the caller above is 0 or lies in runtime code: a return address, or a file and line */
    _Atomic uintptr_t site_pc;
    _Atomic(const char *) site_file;
    _Atomic int site_line;
} pgas_wait_record;

struct pgas_thread {
    struct pgas_world *world;
    int pe;
    /* a PE's own thread (the one its main or body runs on), not a stream's or a block's: in
     * strict mode a device-only NVSHMEM call made here is an error (device_only.c) */
    bool host;
    /* ranks backend: the peers' records of the collective in progress were gathered
     * (pgas_agree_gather), until pgas_agree_end */
    bool agree_gathered;
    /* a thread the program created (app_thread.c): it may outlive its PE's main */
    bool app;
    /* deterministic mode: the starts of the threads this thread created and has not joined,
     * for its joins (app_thread.c); touched by this thread only */
    struct pgas_app_start *app_started;
    /* This PE's own heap as the backend maps it (its ptr(pe, 0)), cached at attach: the check
     * that an address is local, on every put, costs no call into the backend. */
    char *heap_base;
    /* This PE's granule map (heap_objects.c), cached at attach like heap_base; NULL when the
     * bounds check is off. */
    const _Atomic uint32_t *heap_map;
    int index; /* order of attachment within the job, for seeding */
    char label[PGAS_LABEL_LEN];
    pgas_wait_record wait;
    _Atomic int live;
    struct pgas_thread *next; /* the job's list of threads, for hang reports */
    /* checking mode: this thread's undelivered operations, one queue per communication
     * context it used: `queue` is the default context's, `q` the one the call in progress
     * issues to (&queue, or a context's while a shmem_ctx_ call runs: shmem_ctx.c) and
     * `ctx_queues` the contexts' (delivery.c); n_pending counts the operations of them all.
     * Touched by this thread only. */
    pgas_queue queue;
    pgas_queue *q;
    struct pgas_ctx_queue *ctx_queues;
    size_t n_pending;
    uint64_t rng;
    /* pes[pe].grid_syncs when this thread last left a grid sync (0: never): its quiet also
     * completes the puts other threads of the PE delivered before that sync (delivery.c) */
    uint64_t grid_syncs_seen;
    /* the communication contexts this thread created (shmem_ctx.c), freed with the job */
    struct pgas_ctx *contexts;
    /* deterministic mode: this thread's schedulable entity (sched.c); NULL when
     * free-running, so the mode costs one predictable branch on the hot paths */
    struct pgas_sched_entity *ent;
    /* the event log (events.h): this thread's log, NULL when the log is off (so the hooks
     * cost one predictable branch), and the put-with-signal being issued, whose signal's
     * resulting value delivery notes; touched by this thread only */
    struct pgas_ev_log *events;
    struct pgas_event *ev_writer;
    /* the API call in progress (pgas_require, pgas_thread_note_call): names runtime writes
     * in deterministic mode (traces, last writers); touched by this thread only */
    const char *api_call;
    /* where the program made the API call caller_call (PGAS_NOTE_CALLER): hang and deadlock
     * reports name the source line (sched_report.c); touched by this thread only */
    const void *caller;
    const char *caller_call;
    /* the program's position of the emulator's or the CUDA layer's call in progress
     * (pgas_thread_note_site), for the waits that call makes through runtime code; touched
     * by this thread only */
    pgas_call_site site;
    /* wait_until_any and test_any (p2p_sync.c): where the next scan of an ivars array starts,
     * one past the index the last call on that array found, so that a loop over the set
     * flags sees every one in turn; a few arrays, replaced in turn; touched by this thread
     * only */
    struct {
        const void *ivars;
        size_t next;
    } any_cursor[PGAS_ANY_CURSORS];
    int any_cursor_victim;
};

/* At the entry of an API call that may wait, after pgas_require: remembers the return
 * address into the program for the wait's record. A macro, because the address must be
 * taken in the API function itself. */
#define PGAS_NOTE_CALLER(t)                                                                   \
    ((t)->caller = __builtin_return_address(0), (t)->caller_call = (t)->api_call)

/* ---- the job ------------------------------------------------------------------------- */

typedef struct pgas_world {
    int n_pes;
    pgas_config config;
    size_t heap_size; /* bytes per PE, a multiple of PGAS_HEAP_ALIGN */
    const struct pgas_backend *backend; /* chosen when the job starts (backend.h) */
    bool backend_threads_layout;        /* backend->threads_layout: inlined (backend.h) */
    void *backend_state;                /* the backend's own, from its heap_map */
    pgas_pe *pes;
    pgas_team teams[PGAS_MAX_TEAMS];
    pgas_active_set active_sets[PGAS_MAX_ACTIVE_SETS]; /* active_set.c */
    _Atomic(struct pgas_thread *) threads;
    _Atomic int n_threads;   /* attached so far (indexes) */
    _Atomic int live_threads;
    /* threads the program created on a PE (app_thread.c) that have not finished: while any
     * has not, the job's records outlive the job, so that a late call is misuse with a
     * message, not a use after free */
    _Atomic int app_threads;
    bool spin_allowed_cached;
    uint64_t uid; /* what nvshmemx_get_uniqueid hands out */
    struct pgas_sched *sched; /* deterministic mode, else NULL (sched.c) */
    /* The per-PE copies of the program (image.h) when it was built with them, else NULL:
     * their globals are symmetric like the heap (heap.c's translation). */
    const struct pgas_image *image;
    /* The bounds check's granule maps of the PEs' heaps (heap_objects.c), one after the
     * other, or NULL when the check is off. */
    _Atomic uint32_t *heap_maps;
    _Atomic int hang_reported; /* a hang report has started (hang.c): one per job */
    struct pgas_ev_job *events; /* SHMEMU_EVENTS (events.h), else NULL */
} pgas_world;

/* Strict mode (SHMEMU_STRICT_DEVICE, device_only.c): fails, naming the call, when t is a PE's
 * host thread of an NVSHMEM program; a no-op otherwise. Called by the calls NVSHMEM declares
 * __device__ only (put-with-signal, signal_fetch, signal_wait_until, wait_until, test). */
void pgas_check_device_only(const pgas_thread *t, const char *call);

/* The ranks mpirun started (OMPI_COMM_WORLD_SIZE, PMI_SIZE), or 1 outside mpirun. */
int pgas_mpirun_size(void);
/* True when this process was started by mpirun (or another PMI launcher) as one rank. */
bool pgas_started_by_mpirun(void);

/* ---- the job's shared records (job_memory.c) ------------------------------------------ */

/* From now until pgas_job_memory_unshare, the job's records come from one MAP_SHARED
 * mapping of `bytes` (reserved, not committed) that processes forked from this one see at the
 * same address (the process backend). Returns 0, or -1 with a message in err. */
int pgas_job_memory_share(size_t bytes, char *err, size_t err_len);
/* Ends sharing (after every PE process has ended): records come from calloc again, and the
 * shared mapping is unmapped unless keep (threads of PE 0 still use it; then it stays). */
void pgas_job_memory_unshare(bool keep);
bool pgas_job_memory_shared(void);
/* calloc for the job's records (the world, its PEs, thread records, the process backend's
 * wake table): in the shared mapping while there is one, else calloc. NULL when full. */
void *pgas_job_calloc(size_t n, size_t size);
/* realloc for them (old_bytes: the record's size now, copied into the new one). */
void *pgas_job_realloc(void *p, size_t old_bytes, size_t new_bytes);
/* free for pgas_job_calloc's records (a no-op for shared ones: they go with the mapping). */
void pgas_job_free(void *p);
/* An anonymous read-write mapping of bytes (MAP_NORESERVE), shared with forked PEs while job
 * memory is shared, else private; MAP_FAILED on failure. */
void *pgas_job_map(size_t bytes);

/* ---- who am I (self.c, the bottom layer) --------------------------------------------- */

/* The calling thread's record, or NULL outside any PE. */
pgas_thread *pgas_current(void);
/* Makes t the calling thread's record (NULL: none): world.c's attach and detach. */
void pgas_set_current(pgas_thread *t);
/* A thread the program created on a PE that could not join it (app_thread.c: the
 * deterministic scheduler runs only the runtime's threads) notes why, for the message of
 * its first SHMEM call, and the thread that created it (whose PE's names the message uses);
 * NULL clears it. */
void pgas_set_no_pe_reason(const char *why, const pgas_thread *creator);
const char *pgas_no_pe_reason(const pgas_thread **creator);
/* Attaches the calling thread, which the program created, to PE pe of parent's job, as a
 * thread of the program (t->app; app_thread.c), scheduled in deterministic mode; slot as in
 * pgas_thread_attach_reusing, or NULL. Returns 0, or -1 if there is no such PE. */
int pgas_thread_attach_app(const pgas_thread *parent, int pe, const char *label,
                           pgas_thread **slot);
/* True while the calling thread is inside pgas_thread_create (thread_name.c): the
 * program's thread-creation wrappers let the runtime's own threads through. */
bool pgas_thread_creating_runtime(void);
/* Frees t's list of the starts of threads it created (app_thread.c), when the job is freed. */
/* The emulated thread the calling pthread runs now (0: none; see the fiber hook). */
uint64_t pgas_thread_current_fiber(void);
/* Calls the emulator's exit hook of this thread, if any (world.c, before detaching). */
void pgas_thread_run_exit_hook(void);

/* ---- the check every API call starts with, and addresses in messages (error.c) ------- */

/* The calling thread's record; fails with a message naming `call` outside a PE, or when
 * the PE has not called nvshmem_init. */
pgas_thread *pgas_require(const char *call);
/* Like pgas_require, but does not insist on nvshmem_init (queries, init itself). */
pgas_thread *pgas_require_attached(const char *call);
/* "0x... (PE p's symmetric heap + 0xoffset)", or "0x... (not in the symmetric heap)". */
void pgas_describe_address(const pgas_world *world, const volatile void *addr, char *out,
                           size_t len);

/* pgas_hb_before for the race checkers alone: the scheduler's own tokens (a deadlock
 * report's), which are no release of the program (the weak-memory mode publishes nothing). */
void pgas_hb_before_checkers(const volatile void *addr);
/* Called by pgas_hb_before (gpu_scope false) and pgas_hb_before_gpu (true) before their
 * annotation while set: the weak-memory mode's (weak.c)
 * publication of the releasing thread's buffered stores. A pointer, so that annotate.c, at
 * the bottom of the layers, depends on nothing above it. */
extern void (*_Atomic pgas_release_hook)(bool gpu_scope);
/* Called by pgas_hb_after while set: the weak-memory mode notes the acquire (weak.c). */
extern void (*_Atomic pgas_acquire_hook)(void);
/* Excludes runtime-only memory from DRD's race detection (checker_ignore.c). */
void pgas_checker_ignore(const volatile void *addr, size_t bytes);
/* For a job's early end (a hang report, a fatal error: events_write.c reads the event logs
 * that other threads may still append to, and the process then ends): helgrind stops
 * checking [addr, addr+bytes), and TSan ignores the calling thread's reads between begin and
 * end (annotate.c). Never on a path that goes on running the program. */
void pgas_checker_forget(const volatile void *addr, size_t bytes);
void pgas_checker_unchecked_reads(bool begin);

/* ---- heap (heap.c) ------------------------------------------------------------------- */

void pgas_heap_init(pgas_world *world);
void pgas_heap_destroy(pgas_world *world);
/* The PE whose heap holds addr (any PE's copy), or -1; the backend's owner (backend.h). */
int pgas_heap_owner(const pgas_world *world, const volatile void *addr);
/* True when addr is in the calling PE's own heap or, for a program with per-PE copies, in
 * its own copy of the program's globals: a symmetric address of this PE. */
bool pgas_symmetric_local(const pgas_thread *t, const volatile void *addr);
/* Translates the caller's symmetric address [addr, addr+bytes) to PE pe's copy, after
 * checking pe and the range; `what` names the argument in the message. */
char *pgas_heap_translate(const pgas_thread *self, const char *call, const char *what,
                          const void *addr, size_t bytes, int pe);
/* Checks that [addr, addr+bytes) lies in the caller's own heap. */
void pgas_heap_check_local(const pgas_thread *self, const char *call, const char *what,
                           const void *addr, size_t bytes);
void pgas_check_pe(const pgas_thread *self, const char *call, int pe);
void *pgas_heap_alloc(const char *call, size_t size, size_t alignment, bool zero);
void pgas_heap_free(const char *call, void *ptr);
/* shmem_realloc (OpenSHMEM 1.5): collective; ptr NULL allocates, size 0 frees; else resizes
 * ptr's object in place when it can, or moves it (its first min(old, new) bytes kept) to a
 * new object; returns the object, or NULL (ptr unchanged) when there is no room. */
void *pgas_heap_realloc(const char *call, void *ptr, size_t size);
/* The bounds check (heap_objects.c; world->heap_maps NULL when it is off). The heap calls
 * record each object (its heap offset, requested size and block) in the PE's granule map as
 * they make, resize and free it (a NULL map: nothing to do); pgas_heap_objects_check fails,
 * naming the object, unless [offset, offset+bytes) of the caller's heap (bytes > 0) lies
 * inside one live object. pgas_heap_map_ok is its fast path, for the put path. */
#define PGAS_HEAP_GRANULE_SHIFT 6           /* 64-byte granules: heap.c's HEAP_MIN_ALIGN */
#define PGAS_HEAP_MAP_FREED 0x80000000u     /* the granule's object was freed */
#define PGAS_HEAP_MAP_SAT 0x7fffffffu       /* "ends at least this far on" (>= 2 GiB) */
void pgas_heap_objects_init(pgas_world *world);
void pgas_heap_objects_destroy(pgas_world *world);
_Atomic uint32_t *pgas_heap_objects_map(const pgas_world *world, int pe);
void pgas_heap_objects_add(_Atomic uint32_t *map, size_t offset, size_t size);
void pgas_heap_objects_resize(_Atomic uint32_t *map, size_t offset, size_t old_block,
                              size_t size);
void pgas_heap_objects_free(_Atomic uint32_t *map, size_t offset, size_t block);
void pgas_heap_objects_check(const pgas_thread *t, const char *call, const char *what,
                             const void *addr, size_t offset, size_t bytes);
/* True when [offset, offset + bytes) (bytes > 0) of the PE's heap lies inside one live
 * object whose end the map word of its first granule knows; false sends the access to
 * pgas_heap_objects_check. */
static inline bool pgas_heap_map_ok(const _Atomic uint32_t *map, size_t offset, size_t bytes)
{
    uint32_t rem = atomic_load_explicit(&map[offset >> PGAS_HEAP_GRANULE_SHIFT],
                                        memory_order_relaxed);
    size_t in = offset & (((size_t)1 << PGAS_HEAP_GRANULE_SHIFT) - 1);
    return rem - 1u < PGAS_HEAP_MAP_SAT && in < rem && bytes <= rem - in;
}
/* t's PE has finished: fails, naming both sides, when another PE is in (or later enters) a
 * collective heap call that this PE never made. */
void pgas_heap_check_finished(pgas_thread *t);
/* For hang reports: when the PEs' collective heap-call counts differ, prints one line naming
 * the PE in the latest call, the call, its size and the PEs that have not made it. */
void pgas_heap_report_pending(const pgas_world *world, FILE *f, const char *indent);

/* ---- a wait's condition and clock (cond.c) ------------------------------------------- */

bool pgas_cmp_valid(int cmp);
const char *pgas_cmp_name(int cmp);
/* Loads the word at addr as kind (signed kinds sign-extended to 64 bits), with an acquire
 * for PGAS_ACQUIRE and PGAS_ACQ_REL, relaxed otherwise. */
uint64_t pgas_load_ordered(const volatile void *addr, pgas_kind kind, pgas_order order);
/* CLOCK_MONOTONIC in nanoseconds: when a wait began, and how long it has lasted. */
uint64_t pgas_now_ns(void);

/* ---- waiting and waking (park.c, hang.c) --------------------------------------------- */

void pgas_wake_range(const volatile void *addr, size_t bytes);
/* A process job's wake-up table lives in its shared records: share it before the job forks,
 * make it private again after every PE process has ended (park.c). */
void pgas_park_share_wake_table(void);
void pgas_park_private_wake_table(void);
/* A predicate wait over several words of PE pe's heap (wait_until_any and friends): woken
 * by a write anywhere in that heap. addr is the first word, for the hang report. */
void pgas_wait_heap_predicate(int pe, const volatile void *addr, bool (*ready)(void *ctx),
                              void *ctx, const char *call, const char *what);
/* Prints every thread's pending wait and exits with PGAS_HANG_EXIT_STATUS. */
_Noreturn void pgas_hang_report(pgas_world *world, const pgas_thread *reporter);

/* ---- ordering and delivery (delivery.c) ---------------------------------------------- */

/* Copies bytes to target (a translated address) as a put from the calling thread: at once,
 * or queued in checking mode. `nbi` keeps a reference to src (read at delivery), a
 * blocking put a snapshot. */
void pgas_deliver_put(pgas_thread *self, int pe, char *target, const void *src, size_t bytes,
                      bool nbi);
/* The same with a signal update after the data. */
void pgas_deliver_put_signal(pgas_thread *self, int pe, char *target, const void *src,
                             size_t bytes, uint64_t *sig_target, int sig_op, uint64_t signal,
                             bool nbi);
/* Copies bytes from a peer's translated address into local memory: at once, or (a get_nbi
 * in checking mode) queued until quiet or a random later point. */
void pgas_deliver_get(pgas_thread *self, int pe, char *local_dest, const char *remote_src,
                      size_t bytes, bool nbi);
void pgas_fence(pgas_thread *self);
/* nvshmem_quiet and what implies it (barriers, collectives, finalize): delivers everything
 * the thread queued and completes it, so its sources may be reused. */
void pgas_quiet(pgas_thread *self);
/* Delivers everything the thread queued for progress (a wait about to park, a _test call,
 * the end of an emulated thread) without completing it: in checking mode the sources of its
 * non-blocking puts stay in use until a pgas_quiet on this thread. */
void pgas_deliver_all(pgas_thread *self);
/* Delivers what must precede an operation on PE pe issued now: everything queued to pe
 * before the last fence (or everything queued to pe when all_to_pe). */
void pgas_deliver_before_op(pgas_thread *self, int pe, bool all_to_pe);
void pgas_pending_free(pgas_thread *self);
/* A record handed to a new thread (world.c): every queue's fence epoch and armed slots start
 * afresh (the queues are empty: detach delivered them). */
void pgas_queues_reset(pgas_thread *self);
/* The calling thread's queue for a communication context, made at its first use: a
 * shmem_ctx_ call points self->q at it while it runs (shmem_ctx.c). */
pgas_queue *pgas_ctx_queue(pgas_thread *self, const pgas_ctx *ctx);
/* Frees the thread's queue for ctx, which must be empty (a destroyed context's, after its
 * quiet), so that a program creating and destroying contexts keeps no dead queues. */
void pgas_ctx_queue_drop(pgas_thread *self, const pgas_ctx *ctx);

/* ---- RMA (rma.c) --------------------------------------------------------------------- */
/* The checked byte-level puts and gets under every typed entry point, for the shmem_ctx_
 * calls (shmem_ctx.c): `call` names the API call in messages; PEs are world PEs. */

/* nelems * elem_size, failing on overflow. */
size_t pgas_rma_bytes(const char *call, size_t nelems, size_t elem_size);
void pgas_rma_put(const char *call, void *dest, const void *source, size_t bytes, int pe,
                  bool nbi);
void pgas_rma_get(const char *call, void *dest, const void *source, size_t bytes, int pe,
                  bool nbi);
/* sig_op is an NVSHMEM_SIGNAL_* value. */
void pgas_rma_put_signal(const char *call, void *dest, const void *source, size_t bytes,
                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, bool nbi);
void pgas_rma_iput(const char *call, void *dest, const void *source, ptrdiff_t dst,
                   ptrdiff_t sst, size_t nelems, size_t elem_size, int pe);
void pgas_rma_iget(const char *call, void *dest, const void *source, ptrdiff_t dst,
                   ptrdiff_t sst, size_t nelems, size_t elem_size, int pe);

/* ---- signals and atomics (signal.c, amo.c) ------------------------------------------- */

bool pgas_signal_op_valid(int sig_op);
/* nvshmemx_signal_op under the name of the caller's call (sig_op: NVSHMEM_SIGNAL_*). */
void pgas_signal_op(const char *call, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
/* Applies a signal operation to the translated word, with order's annotations and wake;
 * returns the word's value after it (for the event log). */
uint64_t pgas_signal_apply(const pgas_world *world, int pe, uint64_t *sig_target, int sig_op,
                           uint64_t signal, pgas_order order);

typedef enum {
    PGAS_AMO_FETCH,
    PGAS_AMO_SET,
    PGAS_AMO_SWAP,
    PGAS_AMO_CSWAP,
    PGAS_AMO_ADD, /* inc is add 1 */
    PGAS_AMO_AND,
    PGAS_AMO_OR,
    PGAS_AMO_XOR
} pgas_amo_op;

/* Performs op on the size-byte word dest (symmetric, of PE pe); returns the old value. pc:
 * the program's call site, for the event log (events.h). */
uint64_t pgas_amo_at(const void *pc, const char *call, pgas_amo_op op, void *dest, int pe,
                     size_t size, uint64_t value, uint64_t cond);
/* pgas_amo_at from the entry point it is inlined into (its return address is the
 * program's: an AMO entry point passes too many arguments to jump on to pgas_amo_at). */
static inline __attribute__((always_inline)) uint64_t
pgas_amo(const char *call, pgas_amo_op op, void *dest, int pe, size_t size, uint64_t value,
         uint64_t cond)
{
    return pgas_amo_at(__builtin_return_address(0), call, op, dest, pe, size, value, cond);
}

/* ---- collectives (barrier.c, collective.c, team.c) ----------------------------------- */

pgas_team *pgas_team_get(const pgas_thread *self, const char *call, int team_id);
/* The team id of the active set (PE_start, logPE_stride, PE_size) of world PEs, made on
 * first use; fails with a message naming call when the set does not fit the job, the
 * caller is not in it, or PGAS_MAX_ACTIVE_SETS distinct sets are in use (active_set.c). */
int pgas_active_set_team(pgas_thread *t, const char *call, int pe_start, int log_pe_stride,
                         int pe_size);
/* The team of an active-set id (pgas_team_get's, for ids <= PGAS_ACTIVE_SET_ID(0)); NULL
 * when no such set was made. */
pgas_team *pgas_active_set_get(const pgas_thread *t, int team_id);
int pgas_team_my_rank(const pgas_team *team, int world_pe);
static inline int pgas_team_world_pe(const pgas_team *team, int rank)
{
    return team->start + rank * team->stride;
}
void pgas_teams_init(pgas_world *world);
/* The barrier of every collective: the backend's primitive between the happens-before
 * annotations (barrier.c). */
void pgas_barrier_wait(pgas_thread *self, pgas_barrier *barrier, int n_members,
                       const char *call);
/* Collective agreement (agree.c). A collective publishes its call before the team's first
 * barrier (pgas_agree_publish; on an OpenSHMEM PE it fails at once when a member of the
 * team is blocked in a collective of another team that includes this PE: a certain
 * deadlock), checks it after
 * that barrier (pgas_agree_check: fails naming two PEs and what differs, the same message
 * on every PE), and ends it after its last barrier (pgas_agree_end). */
void pgas_agree_publish(pgas_thread *t, const pgas_team *team, const pgas_coll_call *c);
void pgas_agree_check(pgas_thread *t, const pgas_team *team);
/* On a ranks backend (each process keeps its own records): copies every member's published
 * call and heap-call count into this process's records of them (an allgather over team),
 * so that pgas_agree_check and heap.c compare as they do in one process. pgas_agree_check
 * calls it when the thread has not this collective. */
void pgas_agree_gather(pgas_thread *t, const pgas_team *team);
void pgas_agree_end(pgas_thread *t);
/* PE pe's published value i (after the first barrier of the collective both are in). */
int64_t pgas_agree_value(const pgas_world *world, int pe, int i);
/* For hang and deadlock reports: the collective call each PE is in (or that it is in none),
 * unless every PE is in the same one. */
void pgas_agree_report(const pgas_world *world, FILE *f, const char *indent);
/* Combines n elements: acc[i] = acc[i] op in[i]. */
typedef void (*pgas_combine_fn)(void *acc, const void *in, size_t n);
int pgas_coll_reduce(const char *call, int team_id, void *dest, const void *source,
                     size_t nreduce, size_t elem_size, pgas_combine_fn combine);
/* source: team size blocks of nreduce elements; dest: the reduction of the caller's block. */
int pgas_coll_reducescatter(const char *call, int team_id, void *dest, const void *source,
                            size_t nreduce, size_t elem_size, pgas_combine_fn combine);
/* Prefix reduction over the team in PE order: PE k gets sources 0..k (inclusive) or 0..k-1
 * (exclusive; PE 0 gets zero bits). */
int pgas_coll_scan(const char *call, int team_id, void *dest, const void *source,
                   size_t nelems, size_t elem_size, pgas_combine_fn combine, bool inclusive);
int pgas_coll_broadcast(const char *call, int team_id, void *dest, const void *source,
                        size_t bytes, int root);
/* A barrier over the team: completes the caller's puts (quiet), then synchronizes. */
void pgas_coll_barrier(const char *call, int team_id);
/* Only synchronizes (no quiet). */
void pgas_coll_sync(const char *call, int team_id);
/* pgas_coll_broadcast that leaves the root's dest alone (OpenSHMEM's active-set form). */
int pgas_coll_broadcast_others(const char *call, int team_id, void *dest, const void *source,
                               size_t bytes, int root);
int pgas_coll_fcollect(const char *call, int team_id, void *dest, const void *source,
                       size_t bytes);
int pgas_coll_alltoall(const char *call, int team_id, void *dest, const void *source,
                       size_t bytes);
/* OpenSHMEM's collect: each PE contributes its own number of bytes; dest is the
 * concatenation in team PE order. */
int pgas_coll_collect(const char *call, int team_id, void *dest, const void *source,
                      size_t nelems, size_t elem_size);
/* OpenSHMEM's alltoalls: alltoall with element strides dst and sst (>= 1). */
int pgas_coll_alltoalls(const char *call, int team_id, void *dest, const void *source,
                        ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem_size);

/* ---- deterministic scheduling (sched.c, sched_trace.c, sched_report.c) --------------- */

/* A sync point of t: in deterministic mode, the scheduler may hand the turn to another
 * entity here. `writes`: the caller may have written memory others wait on since its last
 * sync point (so blocked waits are worth re-evaluating). */
void pgas_sched_point_slow(pgas_thread *t, const char *call, bool writes);
static inline void pgas_sched_point(pgas_thread *t, const char *call, bool writes)
{
    if (__builtin_expect(t->ent != NULL, 0))
        pgas_sched_point_slow(t, call, writes);
}
/* A runtime write of [addr, addr+bytes) by t (pgas_wake_range): blocked waits become worth
 * re-evaluating, and the words remember their last writer. Deterministic mode only. */
void pgas_sched_note_write(pgas_thread *t, const volatile void *addr, size_t bytes);
void pgas_sched_create(pgas_world *world);
void pgas_sched_destroy(pgas_world *world);
/* Registers t (on its own thread) and waits for its first turn. */
void pgas_sched_attach(pgas_thread *t, bool host);
/* t is finished: hands the turn on for good. */
void pgas_sched_detach(pgas_thread *t);
/* A failed wait check: t cannot run until memory changes (soft: a poll, which may also run
 * as a last resort when nothing else can). Returns when t has the turn again; true when it
 * was chosen as a last resort. */
bool pgas_sched_block(pgas_thread *t, const char *call, bool soft, uint64_t eval_epoch);
/* The same for a wait on one word, `*addr cmp value` (as kind): the scheduler evaluates it
 * itself and hands t the turn only once it holds (or as a soft wait's last resort). */
bool pgas_sched_block_value(pgas_thread *t, const char *call, bool soft,
                            const volatile void *addr, pgas_kind kind, int cmp,
                            uint64_t value);
/* The count that pgas_sched_block's eval_epoch takes: read it before evaluating the
 * condition, so that a write after the evaluation makes the wait a candidate again. */
uint64_t pgas_sched_epoch(const pgas_thread *t);
/* Describes the last runtime writer of the word at addr (deterministic mode), e.g. "PE 0
 * (kernel pack block 1, thread (0,0,0)) at decision 17"; "" when none is known. */
void pgas_last_writer_describe(const pgas_world *world, const volatile void *addr, char *out,
                               size_t len);
/* Prints every waiting thread of the job (what it waits for, the last writer of the word,
 * the wait-for cycle) to f; returns how many wait (idle stream threads not counted). */
int pgas_report_waits(pgas_world *world, FILE *f, const char *indent);
/* The program's source line of a return address into it (addr2line; sched_report.c): file,
 * line and function; false (and empty) when unknown or in the runtime's own code. Starts
 * a process: call it once per address, outside the hot paths (reports, the event log). */
bool pgas_source_line(uintptr_t pc, char *file, size_t file_len, int *line, char *func,
                      size_t func_len);
/* "PE p (label[, thread (x,y,z)])" for a thread and its wait record. */
void pgas_describe_waiter(const pgas_thread *t, char *out, size_t len);

/* ---- utilities ----------------------------------------------------------------------- */

static inline uint64_t pgas_rng_next(uint64_t *state)
{
    /* splitmix64: small, good enough to pick delivery orders */
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A thread the program created (app_thread.c): its start record, kept on the creator's
 * list until the creator joins it or the job is freed (world.c frees the list). */
struct pgas_app_start {
    const pgas_thread *parent; /* the creator; records live until the job is freed */
    pgas_world *world;
    int pe;
    void *(*fn)(void *);
    int (*c11_fn)(void *); /* thrd_create's function (a thrd_start_t), else NULL */
    void *arg;
    /* Deterministic mode: the start stays on its creator's list (pgas_thread.app_started,
     * touched by the creator only) until the creator joins the thread, or the job ends. */
    bool scheduled;
    uint32_t exited;             /* set by the thread (an exchange) as it leaves the schedule */
    pthread_t tid;               /* written by the creator once created */
    struct pgas_app_start *next; /* the creator's list */
};

#endif
