/*
 * backend.h: the seam between the API layer and how PEs reach each other (docs/design.md D10).
 *
 * The API layer (rma.c, amo.c, signal.c, collective.c, heap.c, p2p_sync.c, shmem_*.c,
 * delivery.c) knows a symmetric address as "byte `offset` of PE p's heap" and never how the
 * heaps are laid out. Everything that depends on the layout, or on how a byte gets from one
 * PE to another, is an operation of a pgas_backend:
 *
 *   heap_map / heap_unmap   create and remove the job's heaps
 *   ptr                     (pe, offset) -> a pointer this thread may load and store, or NULL
 *   owner                   a pointer -> (pe, offset), the inverse of ptr
 *   put / get               bulk copies to and from a peer's heap
 *   wake                    wake the threads parked on words a write changed
 *   barrier                 the job-wide (and team-wide) barrier primitive
 *
 * Three backends exist: threads of one process (backend_threads.c), where every heap is a
 * slice of one mapping; processes forked from one (backend_process.c), the same layout in
 * shared memory; and MPI ranks (pgas/mpi/backend_mpi.c, a plugin loaded by
 * backend_mpi_load.c), whose entries below `ranks` carry what per-process records need. A backend is one file defining a `const pgas_backend` and one entry
 * in pgas_backends[] (backend.c); the job's backend is chosen once, when the job starts, and
 * kept in world->backend (docs/pgas.md, "Backends").
 *
 * What a backend may not do: create a happens-before edge. The release/acquire annotations
 * (pgas_hb_before/after, TSan's) stay in the API layer, on the addresses ptr returned, so the
 * race checkers see the same edges whichever backend runs (docs/design.md D4). A backend's
 * own words (barrier counters, wake buckets) follow internal.h's rule: atomic
 * read-modify-writes only.
 *
 * What still bypasses the seam (docs/pgas.md, "Backends", keeps this list):
 *   - delivery.c, amo.c and signal.c operate on the pointer ptr returned: a backend whose ptr
 *     returns NULL for a peer (MPI ranks on other hosts) needs those files to carry
 *     (pe, offset) instead, and the seam to grow atomic and signal operations;
 *   - waits (park.c, p2p_sync.c) poll the waiter's own heap with loads: a backend must make
 *     a peer's put visible there (true for shared memory; MPI needs a progress engine);
 *   - collectives (collective.c) copy with get, but reductions combine in place from ptr;
 *   - park.c keeps the per-PE parked-word lists in pgas_pe, and the team barriers' counters
 *     live in the job's pgas_barriers, both in process memory;
 *   - deterministic mode (sched*.c) assumes one process (the process backend refuses it); the
 *     emulator (emu/) runs per PE process.
 *
 * Layers (docs/design.md, "Layering"): this header, the seam, is below every file that
 * copies, wakes or meets at a barrier; the threads backend is above park.c, because its wake
 * is park.c's pgas_wake_range and its barrier waits with pgas_wait_value. So delivery.c
 * wakes parked waiters, and barrier.c waits, by calling up at run time, through the table
 * that world.c puts in world->backend when the job starts; none of them names a backend.
 */
#ifndef PGAS_BACKEND_H
#define PGAS_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/* Every PE's heap starts on this boundary at least, so an offset aligned to anything up to it
 * is an address aligned the same way on every PE (nvshmem_align relies on it; for more, heap.c
 * asks how aligned every PE's heap start is, and the threads backend aligns them to the
 * largest power of two dividing heap_size where it can). */
#define PGAS_HEAP_ALIGN ((size_t)2 << 20)

typedef struct pgas_backend {
    const char *name;
    /* Every heap lies in one region, PE p's at region + p * heap_size, reachable at the same
     * address by every PE (the threads backend's layout, backend_threads.h): backend.h then
     * calls those translations and copies inline instead of through this table. */
    bool threads_layout;
    /* PEs 1..N-1 run in processes forked from PE 0's (backend_process.c): the job's
     * records, heaps and wake-ups live in shared memory (job_memory.c), and world.c starts
     * the PEs with pgas_process_run instead of as threads. */
    bool processes;
    /* Creates the heaps of world->n_pes PEs, world->heap_size bytes each (a multiple of
     * PGAS_HEAP_ALIGN, zero-filled), and whatever state the backend keeps
     * (world->backend_state). Returns 0, or -1 with a message for the user in err. Called
     * once per job, before any PE runs. */
    int (*heap_map)(pgas_world *world, char *err, size_t err_len);
    /* Undoes heap_map; called once, after every PE has finished. */
    void (*heap_unmap)(pgas_world *world);
    /* The address, usable by loads and stores of the calling thread, of byte `offset` of PE
     * pe's heap, or NULL when the calling thread cannot reach that heap directly (what
     * nvshmem_ptr then returns). 0 <= pe < n_pes and offset <= heap_size (the end address
     * is valid); the result is PGAS_HEAP_ALIGN-aligned at offset 0. Cheap: on every put. */
    char *(*ptr)(const pgas_world *world, int pe, size_t offset);
    /* The PE whose heap holds addr (any address ptr can return), with *offset set to the
     * byte's offset there; -1 (and *offset untouched) for an address in no heap.
     * ptr(owner(a, &o), o) == a for every such a. */
    int (*owner)(const pgas_world *world, const volatile void *addr, size_t *offset);
    /* Copies bytes from src (local memory) to target, an address from ptr for PE pe. A
     * naturally aligned word of 1, 2, 4 or 8 bytes is stored as one atomic exchange with
     * release order (a PE may wait_until on a word that a put writes); anything else is a
     * plain copy, which every race checker sees. Annotates nothing and wakes nobody. */
    void (*put)(const pgas_world *world, int pe, char *target, const void *src, size_t bytes);
    /* Copies bytes from remote_src, an address from ptr for PE pe, into local dest (a plain
     * copy; the ranges may overlap when pe is the caller). */
    void (*get)(const pgas_world *world, int pe, void *dest, const char *remote_src,
                size_t bytes);
    /* After a write to [addr, addr + bytes) (an address from ptr, or a runtime word): wakes
     * the threads parked on a word of it, so they look again. With nobody parked, it costs a
     * fence and a load. Creates no happens-before edge. */
    void (*wake)(const volatile void *addr, size_t bytes);
    /* Waits until n_members threads (one per member PE) have arrived at b; everything each
     * did before arriving happens before everything any does after leaving (the primitive
     * under barrier_all, sync, team barriers, collectives and collective allocation). */
    void (*barrier)(pgas_thread *t, pgas_barrier *b, int n_members, const char *call);

    /* ---- backends whose PEs are processes started by a launcher (mpirun): ranks ------- */
    /* Every process of the job runs one PE (world.c's launch_ranks); the job's records are
     * per process, and what PEs must agree on goes through team_* and allgather below.
     * Every entry from here on may be NULL where ranks is false. */
    bool ranks;
    /* Whether addr (an address ptr or global_ptr returned for pe; NULL: any of pe's heap)
     * may be loaded and stored by this thread; false: it is a token that only put, get and
     * amo take (NULL entry: every address is direct). */
    bool (*direct)(const pgas_world *w, int pe, const char *addr);
    /* Whether an AMO or signal update of PE pe's word must go through amo (MPI's atomics are
     * atomic only against each other); NULL entry: never, C atomics on ptr's address. */
    bool (*amo_via_backend)(const pgas_world *w, int pe, const char *target);
    /* op (a pgas_amo_op) on the size-byte (4 or 8) word target of PE pe, an address from
     * ptr; returns the old value. Complete at the target when it returns. */
    uint64_t (*amo)(const pgas_world *w, int pe, char *target, size_t size, int op,
                    uint64_t value, uint64_t cond);
    /* Lets one-sided transfers aimed at this process advance; waits call it between polls. */
    void (*progress)(const pgas_world *w);
    /* Collective over every process started: a job of n_pes PEs on the first n_pes of them.
     * Sets *my_pe (-1: this process has no PE in the job). 0, or -1 with a message. */
    int (*job_begin)(int n_pes, int *my_pe, char *err, size_t err_len);
    /* Collective over the job, after its PE ended with `result`: every PE's status, the
     * first non-zero in PE order (what the job returns on every process). */
    int (*job_end)(pgas_world *w, int result);
    /* The predefined teams' communicators (team->backend_team), after heap_map; the node
     * teams (SHARED, NODE) become the PEs of this PE's node. */
    void (*teams_init)(pgas_world *w);
    /* Collective over the members of team (its start, stride and size are set): makes its
     * communicator (team->backend_team), ranked as the team ranks its PEs. */
    void (*team_create)(pgas_team *team);
    /* Collective over team's members: frees what team_create made. */
    void (*team_free)(pgas_team *team);
    /* Collective over team's members: every member's `bytes` of mine, in team rank order. */
    void (*allgather)(const pgas_team *team, const void *mine, void *all, size_t bytes);
    /* Collective over the job: makes this PE's copy of the program's globals, [data, data +
     * bytes) (the same length in every process), reachable by the other PEs through put,
     * get and amo. 0, or -1 with a message. */
    int (*globals_map)(pgas_world *w, char *data, size_t bytes, char *err, size_t err_len);
    /* An address token for byte offset of PE pe's copy of the globals (pe is another PE):
     * put, get and amo take it. */
    char *(*global_ptr)(const pgas_world *w, int pe, size_t offset);
    /* The job's communicator, as an opaque handle (shmemu/mpi.h); NULL when none. */
    void *(*job_comm)(void);
} pgas_backend;

/* ---- the backends (backend.c) -------------------------------------------------------- */

/* Every backend, NULL-terminated; the first is the default. */
extern const pgas_backend *const pgas_backends[];
extern const pgas_backend pgas_backend_threads; /* backend_threads.c */
extern const pgas_backend pgas_backend_process; /* backend_process.c */
/* The MPI backend, loaded from its plugin on first use (backend_mpi_load.c): NULL, with a
 * message in err, when the plugin cannot be loaded (shmemu built without MPI). */
const pgas_backend *pgas_backend_mpi(char *err, size_t err_len);

/* The backend named `name`, or NULL. */
const pgas_backend *pgas_backend_find(const char *name);
/* Makes the jobs started from now on run on b (NULL: the default again). For tests: a
 * recording backend wraps another and counts what the API layer asks of it. */
void pgas_backend_use(const pgas_backend *b);
/* The backend a job starting now runs on (world.c): the one pgas_backend_use chose, else
 * SHMEMU_BACKEND's (threads or process), else the default. An unknown SHMEMU_BACKEND exits
 * with a message naming the backends. */
const pgas_backend *pgas_backend_for_new_job(void);

/* ---- starting the PEs of a process job (backend_process.c) --------------------------- */

/* Runs pe_main(starts + p * stride) for every PE p of w: PEs 1..N-1 each in a process
 * forked from this one (which must be single-threaded), PE 0 on a new thread of this
 * process, so that what PE 0 writes reaches the caller as on the threads backend. Returns
 * when every PE has ended. A PE process that dies (a signal, an exit with a non-zero status,
 * or exit(0) between its initialization and its finalize) ends the job at once: the other
 * PE processes are killed, a message names the PE, and this process exits with the dead
 * PE's status (128 + the signal's number for a signal). stack_bytes is PE 0's thread's
 * stack size. */
void pgas_process_run(pgas_world *w, void *(*pe_main)(void *), void *starts, size_t stride,
                      size_t stack_bytes);
/* Before a process job forks: puts the job's records in shared memory (job_memory.c), the
 * wake-up table with them (park.c), and makes futex calls process-shared. Exits with a
 * message on failure. */
void pgas_process_job_begin(void);
/* After every PE of a process job has ended: the next job's records are private again, and
 * this job's are unmapped unless keep_records (PE 0's threads still use them). */
void pgas_process_job_end(bool keep_records);

/* ---- dispatch: the API layer's only way to the layout -------------------------------- */

/* The threads backend's translation and copies are inlined here: on the default backend a
 * put pays one test for the seam, not an indirect call; any other backend (and a test's
 * recording backend) goes through its table. The test is of a flag the job sets when it
 * chooses its backend (world.c), not of the backend's address: a file that dispatches must
 * not depend on backend_threads.c, which sits above park.c. */
#include "backend_threads.h"
#define PGAS_BE_THREADS_LAYOUT(w) __builtin_expect((w)->backend_threads_layout, 1)

static inline char *pgas_be_ptr(const pgas_world *w, int pe, size_t offset)
{
    if (PGAS_BE_THREADS_LAYOUT(w))
        return pgas_threads_ptr(w, pe, offset);
    return w->backend->ptr(w, pe, offset);
}
static inline int pgas_be_owner(const pgas_world *w, const volatile void *addr, size_t *offset)
{
    if (PGAS_BE_THREADS_LAYOUT(w))
        return pgas_threads_owner(w, addr, offset);
    return w->backend->owner(w, addr, offset);
}
static inline void pgas_be_put(const pgas_world *w, int pe, char *target, const void *src,
                               size_t bytes)
{
    if (PGAS_BE_THREADS_LAYOUT(w))
        pgas_threads_put(w, pe, target, src, bytes);
    else
        w->backend->put(w, pe, target, src, bytes);
}
static inline void pgas_be_get(const pgas_world *w, int pe, void *dest, const char *remote_src,
                               size_t bytes)
{
    if (PGAS_BE_THREADS_LAYOUT(w))
        pgas_threads_get(w, pe, dest, remote_src, bytes);
    else
        w->backend->get(w, pe, dest, remote_src, bytes);
}
static inline void pgas_be_wake(const pgas_world *w, const volatile void *addr, size_t bytes)
{
    w->backend->wake(addr, bytes);
}
static inline bool pgas_be_direct(const pgas_world *w, int pe, const char *addr)
{
    return w->backend->direct == NULL || w->backend->direct(w, pe, addr);
}
/* Whether an AMO on target (an address from ptr for pe) goes through the backend's amo. */
static inline bool pgas_be_amo_remote(const pgas_world *w, int pe, const char *target)
{
    return w->backend->amo_via_backend != NULL && w->backend->amo_via_backend(w, pe, target);
}
static inline void pgas_be_progress(const pgas_world *w)
{
    if (w->backend->progress != NULL)
        w->backend->progress(w);
}
static inline void pgas_be_barrier(pgas_thread *t, pgas_barrier *b, int n_members,
                                   const char *call)
{
    t->world->backend->barrier(t, b, n_members, call);
}

#endif
