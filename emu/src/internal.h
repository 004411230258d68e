/*
 * internal.h: the emulator's data, shared by the files of emu/src.
 *
 * A PE that launches kernels has an emu_pe (owned by its host thread, found through a
 * thread-local pointer): its streams, its SM pool and its finished block records. Each
 * stream is a pthread that runs the stream's operations (emu_op) in order. A kernel
 * operation (emu_launch_rec) admits its blocks one by one into the PE's SM pool and starts
 * one pthread per block (emu_block). A block runs its threads (emu_thread) as fibers; the
 * block's scheduler runs on the block pthread's own stack and switches to a fiber until the
 * fiber blocks (barrier, warp collective, mbarrier wait) or asks to poll (a wait that would
 * park), then picks the next one.
 *
 * Invariants that keep the race checkers honest (docs/design.md D4):
 *   - Everything a block's fibers share is touched only on the block's pthread, so it needs
 *     no atomics; the checkers see one thread.
 *   - Words shared between pthreads for bookkeeping (SM pool, stream counters, grid
 *     barrier counters) are atomics, updated by read-modify-writes and read by loads,
 *     excluded from DRD, and create no happens-before edge. Edges exist only where CUDA
 *     promises them: launch -> kernel, kernel -> later work of its stream, event record ->
 *     event wait, grid_sync, and the user's own release/acquire operations.
 */
#ifndef EMU_INTERNAL_H
#define EMU_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <ucontext.h>

#include "shmemu/emu.h"
#include "shmemu/env.h"
#include "shmemu/kernel.h"
#include "shmemu/internal/pgas_emu.h"
#include "shmemu/internal/sizes.h"
#include "shmemu/pgas.h"

#define EMU_MAX_THREADS 1024
#define EMU_STATIC_SHARED (48u * 1024u) /* static shared memory per block, as CUDA */
#define EMU_MAX_DYNAMIC_SHARED (227u * 1024u)
#define EMU_MAX_SMS 4096 /* SM slots per PE; "no limit" means this many */
#define EMU_PRIORITY_LEVELS 6 /* CUDA priorities 0 (least) .. -5 (greatest) */
#define EMU_SEEN_MBARS 8
#define EMU_RESIDENCY_EXIT 4
#define EMU_STACK_CACHE 128 /* block stack mappings a stream keeps for reuse */
/* Stacks (launch.c maps a block's, block.c carves its fibers'): a guard page below each fiber
 * stack and one below the block pthread's own stack, which is 1 MiB (the block's own code
 * is the scheduler loop; the kernel runs on the fibers). A stream thread's stack is 1 MiB too. */
#define EMU_GUARD_BYTES SHMEMU_PAGE_SIZE
#define EMU_BLOCK_STACK_BYTES ((size_t)1 << 20)
#define EMU_STREAM_STACK_BYTES ((size_t)1 << 20)
/* Spin detection (atomic.c): a thread that reads the same value at the same address
 * spin_limit times in a row is spinning, and waits for the word to change. The limit starts
 * low (block.c) and doubles after each wait that timed out, up to a maximum; valgrind runs
 * every poll slowly, so it starts and stays lower there, and waits longer before a timeout.
 * Deterministic mode uses one limit natively and under valgrind, so that schedules replay. */
#define EMU_SPIN_LIMIT 64u
#define EMU_SPIN_LIMIT_VALGRIND 4u
#define EMU_SPIN_LIMIT_SCHED 8u
#define EMU_SPIN_LIMIT_MAX 4096u
#define EMU_SPIN_LIMIT_MAX_VALGRIND 64u
#define EMU_SPIN_TIMEOUT_NS 5000000ull           /* 5 ms */
#define EMU_SPIN_TIMEOUT_NS_VALGRIND 20000000ull /* 20 ms */

/* ---- fibers (fiber.c) -------------------------------------------------------------- */

typedef struct emu_fiber {
    ucontext_t ctx; /* where ucontext switching is used */
    void *sp;       /* the saved stack pointer (fast switch) */
    char *stack; /* NULL for a pthread's own context */
    size_t stack_size;
    unsigned vg_stack_id;
    void *tsan_fiber;
    void *asan_fake_stack;
    const void *asan_bottom; /* the stack this context runs on, for ASan */
    size_t asan_size;
} emu_fiber;

/* Makes `self` the context of the calling pthread (the scheduler). */
void emu_fiber_init_main(emu_fiber *self);
/* Prepares f to run entry() on its own stack (stack_size bytes at stack). */
void emu_fiber_make(emu_fiber *f, char *stack, size_t stack_size, void (*entry)(void));
/* Names f "PE pe block_label thread t" for ThreadSanitizer's reports (fiber_name.c). */
void emu_fiber_name(emu_fiber *f, int pe, const char *block_label, int thread);
/* Switches from `from` to `to`; returns when something switches back to `from`. */
void emu_fiber_switch(emu_fiber *from, emu_fiber *to);
/* The last switch of a finished fiber (it never resumes). */
_Noreturn void emu_fiber_exit(emu_fiber *from, emu_fiber *to);
/* To be called first thing by a fiber's entry function. */
void emu_fiber_started(emu_fiber *self);
void emu_fiber_destroy(emu_fiber *f);
void emu_fiber_destroy_main(emu_fiber *self);
/* Registers the pthread's own stack with valgrind again: DRD takes the stack registered
 * last as the thread's own, so this follows every fiber stack registration. */
void emu_fiber_reassert_main(emu_fiber *self);
size_t emu_fiber_stack_size(void);

/* ---- shared memory (shared.c) -------------------------------------------------------- */

typedef struct emu_shadow {
    uint16_t writer; /* thread + 1; 0: none; EMU_SHADOW_TMA: a bulk copy */
    uint16_t reader; /* thread + 1 of the last reader; 0: none */
    uint8_t wmask, rmask; /* bytes of the 4-byte granule written / read */
    uint32_t w_bar, w_warp, w_seq;
    uint32_t r_bar, r_warp, r_seq;
} emu_shadow;
#define EMU_SHADOW_TMA 0xffffu

typedef struct emu_shared_alloc {
    const void *site;
    const char *name;
    size_t offset;
    size_t bytes;
} emu_shared_alloc;

/* ---- mbarriers (mbarrier.c) ------------------------------------------------------- */

typedef struct emu_mbar {
    uint64_t *addr; /* NULL: slot free */
    unsigned expected;
    unsigned pending;
    int64_t tx;
    uint64_t phase;          /* completed phases */
    uint64_t complete_seq;   /* block sync sequence at the last completion */
    uint64_t complete_epoch; /* block barrier epoch at the last completion */
    const char *init_file;
    int init_line;
} emu_mbar;

/* ---- threads and blocks (block.c) ------------------------------------------------------- */

typedef enum {
    EMU_RUNNABLE = 0,
    EMU_AT_BARRIER,
    EMU_AT_WARP,
    EMU_AT_MBAR,
    EMU_POLLING,
    EMU_DONE
} emu_thread_state;

struct emu_block;

typedef struct emu_thread {
    emu_thread_view view;
    emu_fiber fiber;
    struct emu_block *block;
    int tid; /* linear index in the block */
    emu_thread_state state;
    bool baton; /* passed the turn to other pollers since this thread last parked */
    /* where it waits */
    const char *wait_file;
    int wait_line;
    /* warp collective in progress */
    int warp_op;
    unsigned warp_mask;
    uint64_t warp_value;
    int warp_arg;
    uint64_t warp_result;
    /* mbarrier wait */
    int mbar_slot;
    uint64_t mbar_target; /* wait until phase > target */
    /* what it has observed, for the hazard checks */
    struct {
        int slot;
        uint64_t phase; /* completed phases it has seen */
    } seen[EMU_SEEN_MBARS];
    int seen_next;
    uint64_t mbar_seen_seq;
    /* fences: after one, relaxed writes act as releases at this scope (-1: none) */
    int fenced_scope;
    const volatile void *relaxed_loads[4];
    int relaxed_scopes[4];
    int n_relaxed_loads;
    /* spin detection for loads and CAS */
    const volatile void *spin_addr;
    uint64_t spin_value;
    unsigned spin_count;
    unsigned spin_limit;
    /* the last acquire poll that annotated its edge: a reread of the same value skips it */
    const volatile void *acq_poll_addr;
    uint64_t acq_poll_value;
} emu_thread;

typedef struct emu_warp {
    unsigned arrived;
    uint32_t epoch;
} emu_warp;

struct emu_launch_rec;

typedef struct emu_block {
    struct emu_launch_rec *launch;
    dim3 idx;
    int linear;
    int n_threads;
    int n_warps;
    emu_thread *threads;
    emu_warp *warps;
    emu_fiber sched;
    int current; /* running thread, -1 in the scheduler */
    int n_done;
    /* __syncthreads */
    int bar_arrived;
    uint32_t bar_epoch;
    const char *bar_file;
    int bar_line;
    uint64_t seq; /* counts sync events (barriers, warp syncs, mbarrier phases) */
    /* shared memory */
    char *smem;
    size_t smem_size;
    size_t dyn_size;
    size_t static_used;
    emu_shared_alloc *allocs;
    size_t n_allocs, cap_allocs;
    emu_shadow *shadow;   /* one per granule of [0, n_shadow * 4): the allocations so far */
    size_t n_shadow;
    size_t smem_filled;   /* smem[0, smem_filled) holds its first 0xA5 bytes (shadow_cover) */
    bool hazards;
    emu_mbar *mbars;
    size_t n_mbars;
    /* fiber stacks, and the block pthread's own stack (mapped by the stream thread) */
    char *stacks;
    size_t stacks_bytes;
    char *own_stack;
    size_t own_stack_bytes;
    /* residency and records */
    int sm;
    uint64_t admitted;
    uint64_t grid_syncs;
    pgas_thread *pt;
    pgas_thread **record_slot; /* its stream's record for block `linear` */
    uint64_t start_ns, end_ns;
    pthread_t pthread;
    _Atomic uint32_t exited; /* set just before the pthread leaves the job (deterministic
                              * mode: the stream thread waits for it before joining) */
    char label[64];
} emu_block;

/* The block scheduler's two moves, inline here because mbarrier.c needs them and block.c
 * (which runs the scheduler) calls mbarrier.c: blocks the current thread t in state st until
 * the scheduler makes it runnable again; makes thread t runnable (called from another fiber
 * of the block). */
static inline void emu_block_park(emu_thread *t, emu_thread_state st)
{
    t->state = st;
    emu_fiber_switch(&t->fiber, &t->block->sched);
}

static inline void emu_block_release(emu_thread *t) { t->state = EMU_RUNNABLE; }

/* The lanes of t's warp that exist (a block's last warp may be partial). */
unsigned emu_warp_lanes(const emu_thread *t);
void *emu_block_main(void *arg);


/* ---- errors (error.c) ------------------------------------------------------------------ */

/* "shmemu: PE p: kernel K block (x,y,z) thread (x,y,z): <message>" then abort. */
_Noreturn void emu_fail(const emu_thread *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
_Noreturn void emu_fail_block(const emu_block *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "shmemu: PE p: call: message" without aborting. */
void emu_complain(const char *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Exits (2) after a failed mmap/mprotect of stacks (err: its errno), naming the cause when
 * the process is within EMU_MAPPINGS_MARGIN of its limit on mappings (vm.max_map_count):
 * every fiber stack takes two, so about 32 live 1024-thread blocks reach the default limit
 * long before memory runs out. */
enum { EMU_MAPPINGS_MARGIN = 4096 };
_Noreturn void emu_fail_mapping(const char *what, size_t bytes, int err);
/* The calling host thread's last CUDA error := e; returns e, for `return emu_set_error(...)`. */
cudaError_t emu_set_error(cudaError_t e);
/* Excludes runtime-only words from DRD. */
void emu_checker_ignore(const volatile void *addr, size_t bytes);
void emu_describe_thread(const emu_thread *t, char *out, size_t len);

/* ---- shared memory (shared.c) ---------------------------------------------------------- */

void emu_shared_setup(emu_block *b, size_t dyn_size);
void emu_shared_teardown(emu_block *b);
/* The shared allocation that holds [p, p+bytes), or NULL. */
const emu_shared_alloc *emu_shared_find(const emu_block *b, const void *p, size_t bytes);
void emu_shared_check_range(emu_thread *t, const void *p, size_t bytes, bool write,
                            const char *what, const char *file, int line);
void emu_shared_mark_tma(emu_block *b, const void *p, size_t bytes, int slot, uint64_t phase);

/* ---- mbarriers (mbarrier.c) ------------------------------------------------------------ */

void emu_mbar_teardown(emu_block *b);

/* ---- atomics (atomic.c) -------------------------------------------------------------- */

void emu_annotate_release(const volatile void *addr, int scope);
void emu_annotate_acquire(const volatile void *addr, int scope);

/* ---- launches, streams, SM pool (launch.c, stream.c, event.c, sm_pool.c) --------------- */

typedef struct emu_pe emu_pe;
typedef struct emu_stream emu_stream;

typedef struct emu_launch_rec {
    const emu_kernel *kernel;
    dim3 grid, block;
    size_t dyn_smem;
    bool coop;
    void *args;
    unsigned id;
    emu_stream *stream;
    emu_pe *pe;
    int n_blocks;
    emu_block *blocks;
    /* grid barrier */
    _Atomic uint64_t grid_arrived;
    _Atomic uint64_t grid_generation;
    char grid_token[2];
    bool timing;
} emu_launch_rec;

typedef enum {
    EMU_OP_LAUNCH,
    EMU_OP_EVENT_RECORD,
    EMU_OP_EVENT_WAIT,
    EMU_OP_PUT,
    EMU_OP_GET,
    EMU_OP_SIGNAL,
    EMU_OP_SIGNAL_WAIT,
    EMU_OP_QUIET,
    EMU_OP_BARRIER_ALL,
    EMU_OP_SYNC_ALL,
    EMU_OP_BARRIER_TEAM,
    EMU_OP_COLL, /* a team collective: run(op) makes it */
    EMU_OP_STOP
} emu_op_kind;

typedef struct emu_op {
    _Atomic(struct emu_op *) next;
    emu_op_kind kind;
    uint64_t seq;
    emu_launch_rec *launch;
    struct emu_event *event;
    uint64_t event_gen;
    /* NVSHMEM stream calls */
    void *dest;
    const void *source;
    size_t bytes;
    int pe;
    bool nbi;
    uint64_t *sig_addr;
    uint64_t signal;
    int sig_op; /* 0: no signal */
    int cmp;
    int team;
    size_t nelems;                        /* EMU_OP_COLL: nelems or nreduce; root in pe */
    void (*run)(const struct emu_op *op); /* EMU_OP_COLL: calls the typed collective */
    void *owned; /* freed once the operation has run */
    size_t owned_bytes; /* its size: set it with owned, or a capture refuses the operation
                         * (a graph's replay copies owned; capture.c, graph.c) */
} emu_op;

/* ---- stream capture (capture.c) and graphs (graph.c) ------------------------------------ */

/* A set of graph nodes (their indices), in the order they were added, without repeats. */
typedef struct emu_deps {
    int *ids;
    int n, cap;
} emu_deps;

/* One recorded operation. Its op is a template (never enqueued itself: graph.c enqueues
 * copies); lane is the capture's stream it was issued to (0: the origin); deps are nodes
 * that come earlier in the graph's list, so the list order is a topological order. */
typedef struct emu_graph_node {
    emu_op *op;
    int lane;
    emu_deps deps;
} emu_graph_node;

struct emu_graph {
    emu_pe *pe;
    int refs; /* the handle cudaStreamEndCapture returned, and each exec made from it */
    emu_graph_node *nodes;
    int n_nodes, cap_nodes;
    int n_lanes;
    int *lane_priority; /* n_lanes: the priority of the stream each lane was captured from */
};

/* A capture sequence: begun on origin, joined by the streams that waited on its events
 * (streams[lane]); the host thread of the PE that began it owns it (CUDA: the PE's process).
 * Kept on the PE's list (emu_pe.captures) until cudaStreamEndCapture. */
typedef struct emu_capture {
    emu_pe *pe;
    uint64_t id;
    int mode; /* cudaStreamCaptureMode */
    pthread_t thread;
    bool invalidated;
    struct emu_graph *graph;
    struct emu_stream **streams; /* [0] the origin */
    int n_streams, cap_streams;
    struct emu_capture *next;
} emu_capture;

struct emu_stream {
    emu_pe *pe;
    int id;
    int priority;
    int level; /* 0 = highest priority */
    pthread_t pthread;
    emu_op stub;
    _Atomic(emu_op *) tail;
    emu_op *head;            /* consumer side */
    _Atomic uint64_t enqueued;  /* ops queued so far */
    _Atomic uint64_t completed; /* ops finished so far */
    _Atomic uint32_t doorbell;  /* futex word the idle stream thread sleeps on */
    _Atomic uint32_t exited;    /* set just before the stream thread leaves the job */
    struct emu_stream *next; /* the PE's list (host thread only) */
    /* block stack mappings kept for reuse (stream thread only; launch.c) */
    char *cached[EMU_STACK_CACHE];
    size_t cached_bytes[EMU_STACK_CACHE];
    int n_cached;
    /* the pgas thread records of this stream's blocks, block i of every launch taking
     * slot i over (pgas_thread_attach_reusing): the stream joined the block that last
     * held it before it starts the next (stream thread grows it; launch.c) */
    pgas_thread **block_records;
    int n_block_records;
    /* host thread only: creation flags; while capturing, the capture, this stream's lane in
     * it and the nodes the next operation issued to it depends on (capture.c) */
    unsigned flags;
    emu_capture *capture;
    int lane;
    emu_deps cap_deps;
    struct emu_stream *next_spare; /* a graph lane kept for reuse: emu_pe.spare_lanes */
};

struct emu_event {
    emu_pe *pe;
    _Atomic uint64_t recorded; /* records requested (host) */
    _Atomic uint64_t done;     /* records completed (stream thread) */
    uint64_t time_ns;
    unsigned flags;
    /* host thread only: last recorded in the capture with this id (0: not), after the
     * nodes cap_deps (capture.c) */
    uint64_t capture_id;
    emu_deps cap_deps;
};

typedef struct emu_record_chunk {
    struct emu_record_chunk *next;
    size_t n;
    emu_block_record records[];
} emu_record_chunk;

typedef struct emu_sm_pool {
    _Atomic int limit; /* 0: EMU_MAX_SMS */
    _Atomic int in_use;
    _Atomic int waiting[EMU_PRIORITY_LEVELS];
    _Atomic uint32_t changed; /* wake word for admission waits */
    _Atomic uint64_t admitted;
    /* Per SM slot, what the residency check reads. Kept here, not in the blocks, because a
     * finished kernel's blocks are freed while another stream's thread may be looking. */
    _Atomic int slot_state[EMU_MAX_SMS]; /* 0 free, 1 admitted, 2 running */
    _Atomic(pgas_thread *) slot_thread[EMU_MAX_SMS];
    _Atomic(const char *) slot_kernel[EMU_MAX_SMS];
    _Atomic uint64_t slot_block[EMU_MAX_SMS]; /* x | y << 21 | z << 42 */
    _Atomic int slot_sleeping[EMU_MAX_SMS];   /* every fiber blocked: the pthread parks */
    _Atomic uint64_t slot_progress[EMU_MAX_SMS]; /* writes and satisfied spins */
} emu_sm_pool;

struct emu_pe {
    int pe;
    pgas_thread *host;
    emu_stream *streams; /* every stream, the default one first */
    int next_stream_id;
    _Atomic unsigned next_launch;
    bool timing;
    char trace_path[512];
    double stall_s;
    emu_sm_pool pool;
    _Atomic(emu_record_chunk *) records;
    /* Set by its maker (stream.c): drains and joins the streams and writes the trace.
     * current.c calls it when the PE ends (a hook: the bottom layer ends what layers above
     * put on the device). */
    void (*end)(emu_pe *pe);
    /* host thread only: the active capture sequences and the last capture id (capture.c) */
    emu_capture *captures;
    uint64_t last_capture_id;
    /* streams that ran the lanes of destroyed graph execs, for the next ones (graph.c) */
    emu_stream *spare_lanes;
};

/* ---- who am I (current.c): the bottom layer --------------------------------------------- */

/* The block this pthread runs (block.c sets it while it runs one), or NULL. */
void emu_block_set_current(emu_block *b);
emu_block *emu_block_current(void);
emu_thread *emu_thread_current(void); /* NULL outside a kernel */
/* The calling emulated thread; a device call made outside a kernel (call names it) aborts. */
emu_thread *emu_thread_require(const char *call);
/* The calling host thread's device, or NULL before the PE's first CUDA call. */
emu_pe *emu_pe_current(void);
/* Makes the calling host thread's device, with its settings (SHMEMU_EMU_SMS, _STALL,
 * _TRACE), and aborts for a call (named by call) made inside a kernel or on a thread that is
 * no PE. end(pe) runs when the PE ends (emu_pe.end). */
emu_pe *emu_pe_create(const char *call, void (*end)(emu_pe *pe));

/* ---- group calls (group.c) --------------------------------------------------------------- */

/* A block or warp call (nvshmemx_*_block, _warp) synchronizes its group at entry and exit;
 * begin returns true on the one thread that issues the operation (group_coll.c uses them). */
bool emu_group_begin(bool warp, const char *call);
void emu_group_end(bool warp, const char *call);
/* The one thread's pgas call of a block or warp call (stmt), with the program's call site
 * noted for hang reports (pgas_thread_note_site): the pgas call's own return address is in
 * emu/src. A macro: the return address is taken in the exported function that expands it. */
#define EMU_GROUP_LEADER_CALL(stmt)                                                           \
    do {                                                                                      \
        pgas_thread_note_site(__builtin_return_address(0), NULL, 0);                          \
        stmt;                                                                                 \
        pgas_thread_note_site(NULL, NULL, 0);                                                 \
    } while (0)

/* The body of a _block/_warp call of the NVSHMEM API: the group meets (emu_group_begin), its
 * leader makes the call, and the group meets again before any member returns. EMU_GROUP_RET
 * returns the leader's result to every member (0 to the others). */
#define EMU_GROUP_DO(warp, name, op)                                                          \
    do {                                                                                      \
        if (emu_group_begin((warp), (name)))                                                  \
            EMU_GROUP_LEADER_CALL(op);                                                        \
        emu_group_end((warp), (name));                                                        \
    } while (0)
#define EMU_GROUP_RET(warp, name, op)                                                         \
    do {                                                                                      \
        int rc_ = 0;                                                                          \
        if (emu_group_begin((warp), (name)))                                                  \
            EMU_GROUP_LEADER_CALL(rc_ = (op));                                                \
        emu_group_end((warp), (name));                                                        \
        return rc_;                                                                           \
    } while (0)

/* ---- SM pool (sm_pool.c) ----------------------------------------------------------------- */

/* Admits one block of priority level (waits), returns its SM slot. */
int emu_sm_acquire(emu_pe *pe, emu_launch_rec *L, int block_index);
void emu_sm_publish(emu_pe *pe, int sm, emu_block *b);
void emu_sm_note_sleeping(const emu_block *b, bool sleeping);
void emu_sm_note_progress(const emu_block *b);
/* The `call` of the waits a spinning load (atomic.c) turns into (its start time keeps
 * renewing, so the stall check counts only its progress). */
extern const char emu_spin_call[];
void emu_sm_release(emu_pe *pe, int sm);
void emu_sm_register_waiting(emu_pe *pe, int level, int n);
/* emu.h's emu_set_sm_limit (pe.c checks sms first), emu_blocks_waiting_for_sm and
 * emu_wait_blocks_waiting_for_sm, on the device pe. */
void emu_sm_set_limit(emu_pe *pe, int sms);
int emu_sm_waiting(emu_pe *pe);
void emu_sm_wait_waiting(emu_pe *pe, int n);

/* ---- records and traces (trace.c) -------------------------------------------------------- */

void emu_records_add(emu_pe *pe, emu_launch_rec *L);
/* emu.h's emu_block_records and emu_trace_write, on the device pe. */
size_t emu_records_copy(emu_pe *pe, emu_block_record *out, size_t max);
int emu_trace_save(emu_pe *pe, const char *path);
/* At the device's end: writes the trace SHMEMU_EMU_TRACE asked for, frees the records. */
void emu_trace_end(emu_pe *pe);

/* ---- stream capture (capture.c) ---------------------------------------------------------- */

void emu_deps_add(emu_deps *d, int id);
void emu_deps_add_all(emu_deps *d, const emu_deps *from);
void emu_deps_free(emu_deps *d);
/* Frees an operation that will never run (a rejected or recorded one), with its launch. */
void emu_op_discard(emu_op *op);
/* Begins a capture sequence on s (not capturing) for the calling host thread. */
emu_capture *emu_capture_begin(emu_pe *pe, emu_stream *s, int mode);
/* The active capture of pe with this id, or NULL. */
emu_capture *emu_capture_find(emu_pe *pe, uint64_t id);
/* Marks c invalidated and says why (once): call is the API call, what the reason. */
void emu_capture_invalidate(emu_capture *c, const char *call, const char *what);
/* Takes every stream of c out of capture mode and frees c; returns its graph (the caller
 * owns it). */
struct emu_graph *emu_capture_end(emu_capture *c);
/* Work issued to a capturing stream: recorded as a node of its capture's graph (op is
 * taken), or, if the capture is invalidated, discarded with that error. */
cudaError_t emu_capture_record(emu_stream *s, emu_op *op);
/* cudaEventRecord on a capturing stream: the event now stands for s's current nodes. */
cudaError_t emu_capture_event_record(emu_stream *s, struct emu_event *e);
/* cudaStreamWaitEvent where s is capturing or e was recorded in an active capture: joins s
 * to that capture or adds e's nodes to s's dependencies. *handled is false when neither
 * holds (an ordinary wait). */
cudaError_t emu_capture_event_wait(emu_pe *pe, emu_stream *s, struct emu_event *e,
                                   bool *handled);
/* A call that waits for s (cudaStreamSynchronize, cudaStreamQuery): cudaSuccess, or, when
 * s is capturing, invalidates the capture and returns cudaErrorStreamCaptureUnsupported. */
cudaError_t emu_capture_stream_sync(emu_stream *s, const char *call);
/* The same for a captured event (cudaEventSynchronize, cudaEventQuery):
 * cudaErrorCapturedEvent. */
cudaError_t emu_capture_event_sync(struct emu_event *e, const char *call);
void emu_graph_free(struct emu_graph *g);

/* ---- launches and streams (launch.c, stream.c: the one import cycle) --------------------- */

/* The calling host thread's device, made on its first CUDA call (call names it) with its
 * default stream. */
emu_pe *emu_stream_device(const char *call);
/* A PE's streams (the host thread creates, waits for and frees them) and their operation
 * queue. */
emu_stream *emu_stream_new(emu_pe *pe, int priority);
emu_stream *emu_stream_resolve(emu_pe *pe, cudaStream_t s);
void emu_stream_wait_done(emu_stream *s, const char *call);
void emu_stream_free(emu_pe *pe, emu_stream *s);
/* Queues op on s; on a capturing stream, records it instead (capture.c), and returns that
 * error if the capture is invalidated. */
cudaError_t emu_stream_enqueue(emu_stream *s, emu_op *op);
emu_op *emu_op_new(emu_op_kind kind);
/* A fresh copy of a recorded launch, queued on s (graph replay). */
emu_launch_rec *emu_launch_copy(const emu_launch_rec *L, emu_stream *s);
/* The stream thread runs a launch (admits, starts and joins its blocks) and frees it. */
void emu_run_launch(emu_launch_rec *L);
void emu_launch_free(emu_launch_rec *L);
/* Unmaps a stream's cached block stacks (when the stream ends). */
void emu_stack_cache_drop(emu_stream *s);

static inline uint64_t emu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
