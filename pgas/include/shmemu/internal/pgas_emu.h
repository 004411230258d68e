/*
 * shmemu/internal/pgas_emu.h: the contract between pgas/ and the CUDA emulator emu/ (not
 * installed; pgas/src, emu/src and the tests that drive the core include it).
 *
 * pgas/ implements, emu/ calls: attaching the emulator's pthreads (blocks, stream threads)
 * to a PE; waits that spin, then park, with hang reports naming the call; wake-ups;
 * happens-before annotations for helgrind, DRD and TSan (docs/design.md D4); and the
 * deterministic scheduler's sync points and hooks (docs/sched.md). pgas/ knows nothing of
 * emu/ beyond the hooks emu/ installs here (wait, exit and fiber hooks).
 */
#ifndef SHMEMU_INTERNAL_PGAS_EMU_H
#define SHMEMU_INTERNAL_PGAS_EMU_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Memory order of an operation, as in C11 and PTX. Relaxed operations emit no
 * happens-before annotation, so a relaxed store where a release was needed is reported. */
typedef enum {
    PGAS_RELAXED = 0,
    PGAS_ACQUIRE,
    PGAS_RELEASE,
    PGAS_ACQ_REL
} pgas_order;

/* The width and signedness of a word being waited on. */
typedef enum {
    PGAS_KIND_NONE = 0, /* a predicate wait: no value to compare or print */
    PGAS_KIND_I8,
    PGAS_KIND_I16,
    PGAS_KIND_I32,
    PGAS_KIND_I64,
    PGAS_KIND_U8,
    PGAS_KIND_U16,
    PGAS_KIND_U32,
    PGAS_KIND_U64
} pgas_kind;

/* Attaches the calling pthread to PE pe of the job that the thread `parent` belongs to (the
 * emulator's block threads inherit their launching PE's job). label names the thread in hang
 * reports ("kernel pack block 3"); it is copied. Returns 0, or -1 if there is no such PE. */
typedef struct pgas_thread pgas_thread;
pgas_thread *pgas_thread_self(void);
int pgas_thread_attach(const pgas_thread *parent, int pe, const char *label);
/* pgas_thread_attach that reuses a record: *slot is NULL (a new record is made and stored
 * there) or a record whose thread has detached and whose detach happens before this call in
 * the program's own order (the emulator's stream joined that block before it started this
 * one), which this thread takes over. A record is 480 bytes and stays on the job's list
 * until the job ends, so a thread per block per launch, each with its own, grew a job
 * without bound. Reuse adds no ordering the program does not already have, so the race
 * checkers see the same edges. Deterministic mode always makes a new record. */
int pgas_thread_attach_reusing(const pgas_thread *parent, int pe, const char *label,
                               pgas_thread **slot);
void pgas_thread_detach(void);
/* pgas_thread_detach that sets *exited to 1 (an atomic exchange) after the thread's last
 * runtime operation (the quiet of its pending puts) and before it leaves the job: a thread
 * that joins this one waits for the flag first (in deterministic mode the join must not
 * block the holder of the turn while this thread still needs it). */
void pgas_thread_detach_notify(volatile uint32_t *exited);
void pgas_thread_set_label(const char *label);
/* pthread_create for the runtime's threads, and the naming of the calling thread as
 * "PE pe label", so that race checkers' reports can name PEs and blocks (thread_name.c). */
int pgas_thread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *),
                       void *arg);
void pgas_thread_name_self(int pe, const char *label);

/* Happens-before annotations on addr: "before" on the release side after the data is
 * written and before the flag is updated; "after" on the acquire side once the condition
 * holds. They drive helgrind, DRD (both through valgrind client requests) and TSan. */
void pgas_hb_before(const volatile void *addr);
/* pgas_hb_before for a release at GPU scope, on the scope's tag (emu/src/atomic.c): the
 * weak-memory mode (docs/sched.md) publishes the thread's stores to its own PE only. */
void pgas_hb_before_gpu(const volatile void *tag);
/* pgas_hb_after for an acquire at GPU scope, on the scope's tag (emu/src/atomic.c). */
void pgas_hb_after_gpu(const volatile void *tag);
void pgas_hb_after(const volatile void *addr);

/* Wakes the waiters parked on the word at addr (call after every store a waiter may watch;
 * the pgas signal and atomic calls do it themselves). Cheap when nobody is parked. */
void pgas_wake(const volatile void *addr);

/* Waits until `*addr cmp value` holds, comparing as kind; cmp takes NVSHMEM_CMP_* values.
 * Spins briefly, then parks; with order ACQUIRE (or ACQ_REL) annotates "after" on addr once
 * satisfied. `call` names the caller in hang reports. Returns the value that satisfied it. */
uint64_t pgas_wait_value(const volatile void *addr, pgas_kind kind, int cmp, uint64_t value,
                         pgas_order order, const char *call);

/* Waits until ready(ctx) returns true, parking on addr's wake-ups between polls. `what`
 * describes the wait in hang reports ("mbarrier 0x... phase 2"). No annotation is made. */
void pgas_wait_predicate(const volatile void *addr, bool (*ready)(void *ctx), void *ctx,
                         const char *call, const char *what);

/* The emulator's hook into waits (per thread; NULL removes it). A thread that runs several
 * emulated GPU threads as fibers sets one: a wait whose condition is false calls hook(ctx)
 * before it parks. The hook may run other fibers; it returns true when the condition should
 * be checked again at once, false to let the thread park. */
void pgas_thread_set_wait_hook(bool (*hook)(void *ctx), void *ctx);

/* What a thread waits for, as its hang report would print it. */
typedef struct pgas_wait_info {
    const volatile void *addr;
    pgas_kind kind; /* PGAS_KIND_NONE for a predicate wait */
    int cmp;
    uint64_t value;
    const char *call;
    const char *what;  /* predicate waits: the description, or NULL */
    uint64_t since_ns; /* when this wait started (CLOCK_MONOTONIC) */
} pgas_wait_info;

/* Fills info and returns true when thread t is parked in (or polling in) a wait; false
 * otherwise. Read without locks: a snapshot, for reports and stall detection. */
bool pgas_thread_wait_info(const pgas_thread *t, pgas_wait_info *info);

/* True when `current cmp value` holds for kind (NVSHMEM_CMP_* values). */
bool pgas_compare(uint64_t current, pgas_kind kind, int cmp, uint64_t value);

/* Reads the word at addr (atomically, relaxed) widened to 64 bits according to kind. */
uint64_t pgas_load_kind(const volatile void *addr, pgas_kind kind);

/* ---- the event log (SHMEMU_EVENTS, docs/events.md) ----------------------------------- */
/* The count of jobs of this process whose event log is on: the emulator's stores and atomics
 * test it first (one load and one predictable branch when no log is on). */
extern int pgas_events_jobs;
static inline bool pgas_events_maybe(void)
{
    return __builtin_expect(__atomic_load_n(&pgas_events_jobs, __ATOMIC_RELAXED) != 0, 0);
}
/* A kernel's system-scope store (rmw false: "signal", sig_op set) or atomic (rmw: "amo",
 * named `name`) of size bytes at addr, with operand value: recorded when addr lies in a PE's
 * symmetric heap (the word a peer's wait watches) and the calling thread's job logs; call it
 * before the write (a write is numbered before any wait that sees it), then
 * pgas_events_after with the value the write left (the handle may be NULL: nothing).
 * pc: the program's return address. */
void *pgas_events_store(const volatile void *addr, unsigned size, uint64_t value, bool rmw,
                        const char *name, const void *pc);
void pgas_events_after(void *handle, uint64_t after);
/* The calling pthread is stream `stream`'s thread: its events say "where":"stream". */
void pgas_events_here_stream(int stream);
/* The host enqueues launch `launch` of kernel on stream (grid and block dimensions x,y,z);
 * pc: the program's return address. */
void pgas_events_launch(const char *kernel, unsigned launch, const unsigned grid[3],
                        const unsigned block[3], int stream, const void *pc);
/* The calling pthread starts (start) or ends block `block` (linear) of a launch on SM slot
 * sm: from its start to its end, its events say "where":"block" with the emulated thread
 * (linear, from the fiber hook and block_dim). Recorded when the job's log is on. */
void pgas_events_block(bool start, const char *kernel, unsigned launch, int block, int sm,
                       const unsigned block_dim[3]);
/* ---- deterministic scheduling (docs/sched.md) ---------------------------------------- */

/* True when the calling thread belongs to a job in deterministic mode. */
bool pgas_sched_enabled(void);
/* The count of jobs of this process in deterministic mode now. The emulator's hot paths (the
 * dialect's loads, stores and atomics) test pgas_sched_maybe() first: free-running, their
 * scheduler hooks cost one load and one predictable branch. */
extern int pgas_sched_jobs;
static inline bool pgas_sched_maybe(void)
{
    return __builtin_expect(__atomic_load_n(&pgas_sched_jobs, __ATOMIC_RELAXED) != 0, 0);
}
/* A sync point of the calling thread (the emulator's atomics, loads and stream calls):
 * in deterministic mode the scheduler may run another entity first. `writes`: the caller
 * may have written memory that others wait on since its previous sync point. */
void pgas_sched_sync_point(const char *call, bool writes);
/* A poll (a _test or query call, or the emulator's spinning load) that found `ready`
 * false: in deterministic mode the caller gives the turn away until memory changes, or
 * until nothing else can run (so a polling loop cannot starve the others). No-op when
 * ready, or when free-running. */
void pgas_sched_poll(const char *call, bool ready);
/* pgas_wait_predicate for a poll (a spinning load): in deterministic mode the thread runs
 * again when memory changed, or as a last resort when nothing else can run; returns false
 * in that case (the condition may still be false). Free-running: pgas_wait_predicate,
 * returning true. */
bool pgas_wait_predicate_soft(const volatile void *addr, bool (*ready)(void *ctx), void *ctx,
                              const char *call, const char *what);
/* pgas_wait_value (relaxed, no annotation) as a poll: in deterministic mode it returns
 * false when resumed as a last resort with the condition still false. */
bool pgas_wait_value_soft(const volatile void *addr, pgas_kind kind, int cmp, uint64_t value,
                          const char *call);
/* Called by the emulator's wait hook when it lets the thread park while other fibers of the
 * same thread also poll (deterministic mode then re-evaluates them all after each write). */
void pgas_thread_note_other_pollers(void);
/* Names the call the calling thread is in (the emulator's dialect operations), for the
 * deterministic scheduler's traces and last-writer reports. */
void pgas_thread_note_call(const char *call);
/* Notes where the program made the emulator's or the CUDA layer's call in progress, for the
 * "called at" line of hang and deadlock reports, when that call waits through runtime code
 * (a block or warp call whose first thread makes the pgas call, a grid sync, a spinning
 * load): a return address into the program (pc; __builtin_return_address(0) taken in the
 * exported function the program called; resolved to its line when a report is printed) or a
 * file and line. A wait names the noted site when its own API call's return address is
 * missing or lies in runtime code. Clear it with (NULL, NULL, 0) when the call returns. The
 * note is per pthread: note it right before the wait, after the call's last fiber switch
 * (the waits keep it for their own fiber across the switches they make). */
void pgas_thread_note_site(const void *pc, const char *file, int line);
/* A grid sync (emu's grid_sync, on the block's thread 0). Before arriving, the block's
 * queued puts are delivered for progress (as a wait about to park delivers them); the last
 * block to arrive counts the sync on the PE (release) before it lets the others go; leaving,
 * each block notes the count (leave). From then on a quiet by the block also completes the
 * puts the other blocks of the PE delivered before the sync: the paper-002 pattern of one
 * thread's quiet, after a grid sync, on behalf of every block's puts (the sync orders their
 * issue before the quiet). */
void pgas_grid_sync_arrive(void);
void pgas_grid_sync_release(void);
void pgas_grid_sync_leave(void);
/* A store the runtime made without pgas_wake (a thread's exit flag): in deterministic mode
 * the waits on those bytes become candidates again, without a switch here. */
void pgas_sched_note_store(const volatile void *addr, size_t bytes);
/* Creating a thread that will attach (pgas_thread_attach): take a mark before
 * pthread_create and wait with it after, so that in deterministic mode the new thread is
 * registered (in a deterministic order) before its creator goes on. No-ops otherwise. */
uint32_t pgas_sched_spawn_mark(void);
void pgas_sched_spawn_wait(uint32_t mark);
/* A synchronizing load (a dialect load) read addr: in the weak-memory mode (SHMEMU_MEMORY,
 * docs/sched.md) noted for its report of stores seen late. No-op otherwise. */
void pgas_sched_observe(const volatile void *addr);
/* The calling thread has joined another (a block's or a stream thread's exit seen): in the
 * weak-memory mode an acquire of what the joined thread published. No-op otherwise. */
void pgas_sched_joined(void);
/* A fence of the calling thread (gpu scope, or system scope when sys): in the weak-memory
 * mode its buffered stores are published at that scope, as at a release. No-op otherwise. */
void pgas_sched_fence(bool sys);
/* A kernel's release at gpu or system scope is about to happen: in the weak-memory mode, a
 * sync point when the calling thread has stores to publish (a GPU may stall any warp just
 * before its release, and other threads may read in between). No-op otherwise. */
void pgas_sched_before_release(void);
/* Called on a PE's host thread when its main (or shmemu_launch fn) returns, before the
 * thread leaves the job: the emulator drains and stops the PE's streams there. */
void pgas_thread_set_exit_hook(void (*hook)(void));
/* Names the emulated thread (fiber) running on this pthread for wait records: returns
 * x | y << 21 | z << 42, plus 1 (0: none). */
void pgas_thread_set_fiber_hook(uint64_t (*fiber)(void *ctx), void *ctx);

#ifdef __cplusplus
}
#endif

#endif
