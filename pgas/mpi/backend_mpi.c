/*
 * backend_mpi.c: the MPI backend: every PE is an MPI rank (docs/pgas.md, "The MPI backend").
 *
 * Built as a plugin of its own, $(BUILD)/lib/libshmemu_mpi.so, linked with Open MPI and with
 * nothing of the runtime (-z defs): the runtime loads it with dlopen when a job chooses this
 * backend (backend_mpi_load.c), so no other program or test of shmemu links MPI. The plugin
 * uses the runtime's headers for its records (the world, its teams) and the inline copies of
 * backend_threads.h, never a runtime function; what it needs of the runtime (the wake-up of
 * parked threads) the loader fills in.
 *
 * Layout. A job is the first n_pes ranks of MPI_COMM_WORLD (the job communicator, rank r =
 * PE r). Ranks that share memory form a node (MPI_Comm_split_type SHARED, cut further into
 * groups of SHMEMU_MPI_NODE_SIZE ranks to play several nodes on one machine). Every PE's
 * heap lies in the node's shared window (MPI_Win_allocate_shared), each rank's segment one
 * PGAS_HEAP_ALIGN larger than the heap so that the heap starts aligned in its own process;
 * a peer of the same node is reached by loads and stores at its segment's address in this
 * process (ptr; nvshmem_ptr works). A peer on another node is reached only through a window
 * over every heap (MPI_Win_create, passive target: MPI_Win_lock_all for the job's life):
 * ptr returns an address *token* for it, in a reserved inaccessible range (PROT_NONE), that
 * only this file's put, get and amo turn back into (PE, offset). A token is never loaded or
 * stored: the API layer asks `direct` first where it would (nvshmem_ptr, a reduction's
 * read, a lock's word), and a stray access faults at once instead of reading garbage.
 *
 * Atomicity. An AMO or signal update on memory this process maps (its own heap and globals,
 * a peer of its node) is a C atomic, as on the threads backend; one on a token is
 * MPI_Fetch_and_op / MPI_Compare_and_swap / MPI_Accumulate, complete when it returns. The two
 * are atomic against each other where the transport applies MPI's atomics at the target with
 * the CPU's atomic instructions: Open MPI's shared-memory transport does (vader's emulated
 * atomics), which is what several "nodes" on one machine use; so does a NIC whose atomics are
 * coherent with the host's. (All through MPI, even to oneself, would be the portable choice;
 * Open MPI 4.1's one-sided layer crashes on an atomic a rank aims at itself over shared
 * memory, docs/pgas.md.) Puts to another node are MPI_Put (a naturally aligned word of 1-8
 * bytes: MPI_Accumulate with MPI_REPLACE, so a waiter never sees half of it) followed by
 * MPI_Win_flush: a put is complete at the target when it returns, so quiet has nothing left
 * to do and a signal issued after the data is seen after it.
 *
 * Waiting. A put from another process does not wake this process's parked threads, so waits
 * poll (park.c, with short sleeps while the job runs on ranks) and call `progress` between
 * polls: an MPI_Iprobe, which drives the one-sided transfers that need the target's help.
 * Barriers are MPI_Ibarrier on the team's communicator, tested with short sleeps so that a
 * rank waiting for a barrier leaves the core to the others (jobs here often run more ranks
 * than cores).
 *
 * Threads: the emulated GPU's blocks make MPI calls from their own threads, so MPI is
 * initialized with MPI_THREAD_MULTIPLE; where the library gives less, every call of this
 * file takes one lock.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../src/backend.h"
#include "../src/backend_threads.h"
#include "nvshmem.h"

/* The state of the job this process takes part in (one at a time). */
typedef struct mpi_job {
    bool active;
    MPI_Comm job;  /* rank r is PE r */
    MPI_Comm node; /* the ranks of the job this process shares memory with */
    int me, n_pes;
    char **view;       /* per PE: its heap in this process, or NULL (another node) */
    int *node_rank;    /* per PE: its rank in node, or -1 */
    char *tokens;      /* n_pes * heap_size bytes, PROT_NONE: addresses of unreachable heaps */
    char *token_map;   /* the reservation tokens lies in (aligned inside it) */
    size_t token_bytes;
    size_t heap_size;
    MPI_Win shm_win, rma_win;
    bool rma_made; /* rma_win exists (a job of one PE has none) */
    /* The program's globals (a program built by shmemu-cc): this PE's copy, a window over
     * every PE's, and tokens for the other PEs' copies (one page-rounded stride each). */
    char *glob_base;
    size_t glob_bytes, glob_stride;
    char *gtokens;
    size_t gtoken_bytes;
    bool glob_win_made;
    MPI_Win glob_win;
} mpi_job;

static mpi_job job;
static bool initialized_mpi; /* this plugin called MPI_Init_thread (and will finalize) */
static bool need_lock;       /* the library gave less than MPI_THREAD_MULTIPLE */
static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;

static void lock(void)
{
    if (need_lock)
        pthread_mutex_lock(&mpi_lock);
}
static void unlock(void)
{
    if (need_lock)
        pthread_mutex_unlock(&mpi_lock);
}

static void die_mpi(const char *what, int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    fprintf(stderr, "shmemu: SHMEMU_BACKEND=mpi: %s failed: %s\n", what, text);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

#define MPI_OK(call)                                                                         \
    do {                                                                                     \
        int rc_ = (call);                                                                    \
        if (rc_ != MPI_SUCCESS)                                                              \
            die_mpi(#call, rc_);                                                             \
    } while (0)

static void finalize_at_exit(void)
{
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Finalize();
}

/* Short sleeps for a rank that waits: most jobs here run more ranks than cores. */
static void nap(unsigned *spins)
{
    if (++*spins < 64) {
        sched_yield();
        return;
    }
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
}

/* ---- the job ------------------------------------------------------------------------- */

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0')
        return fallback;
    char *end;
    long x = strtol(v, &end, 10);
    if (*end != '\0' || x < 0 || x > 1 << 20) {
        fprintf(stderr, "shmemu: %s=%s: not a count; use a whole number >= 0\n", name, v);
        exit(2);
    }
    return (int)x;
}

static int mpi_job_begin(int n_pes, int *my_pe, char *err, size_t err_len)
{
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        int provided = 0;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
            snprintf(err, err_len, "MPI_Init_thread failed; start the program with mpirun");
            return -1;
        }
        initialized_mpi = true;
        need_lock = provided < MPI_THREAD_MULTIPLE;
        atexit(finalize_at_exit);
    } else {
        int provided = 0;
        MPI_Query_thread(&provided);
        need_lock = provided < MPI_THREAD_MULTIPLE;
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (n_pes > size) {
        snprintf(err, err_len, "a job of %d PEs needs %d MPI ranks, and %d were started; "
                               "start it with mpirun -np %d", n_pes, n_pes, size, n_pes);
        return -1;
    }
    MPI_Comm jc;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank < n_pes ? 0 : MPI_UNDEFINED, rank, &jc));
    *my_pe = rank < n_pes ? rank : -1;
    if (jc == MPI_COMM_NULL)
        return 0;
    memset(&job, 0, sizeof job);
    job.active = true;
    job.job = jc;
    job.me = rank;
    job.n_pes = n_pes;
    /* A node: the ranks sharing memory, cut into groups of SHMEMU_MPI_NODE_SIZE (0: all). */
    MPI_Comm shared;
    MPI_OK(MPI_Comm_split_type(jc, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared));
    int node_size = env_int("SHMEMU_MPI_NODE_SIZE", 0);
    int shared_rank;
    MPI_Comm_rank(shared, &shared_rank);
    MPI_OK(MPI_Comm_split(shared, node_size > 0 ? shared_rank / node_size : 0, rank, &job.node));
    MPI_Comm_free(&shared);
    return 0;
}

static int mpi_job_end(pgas_world *w, int result)
{
    (void)w;
    /* The first non-zero status in PE order, on every PE. */
    int *all = calloc((size_t)job.n_pes, sizeof *all);
    if (all == NULL) {
        fprintf(stderr, "shmemu: out of memory\n");
        exit(2);
    }
    MPI_OK(MPI_Allgather(&result, 1, MPI_INT, all, 1, MPI_INT, job.job));
    int first = 0;
    for (int p = 0; p < job.n_pes && first == 0; p++)
        first = all[p];
    free(all);
    return first;
}

/* ---- the progress thread ------------------------------------------------------------- */

/* A one-sided operation on memory a window does not share (another node's heap, and every
 * peer's globals, which each process keeps private) may need the target's MPI to act: where
 * there is no single-copy path between the processes (cross-memory attach refused, a network
 * without hardware atomics), Open MPI carries a put, get or atomic as a message the target
 * must handle. OpenSHMEM's progress rule wants it to complete while the target computes
 * without calling the library (a PE that polls a global with plain loads,
 * tests/process/nbi_flag.c; without this thread the initiator spun for ever, now and then).
 * So every rank of a job of several PEs runs a thread that lets MPI progress every
 * SHMEMU_MPI_PROGRESS_US microseconds (default 100; 0: no thread), from the heap's mapping
 * to its unmapping. */
#define PROGRESS_US_DEFAULT 100
static pthread_t progress_thread;
static atomic_bool progress_run;
static bool progress_started;

/* Lets MPI advance the one-sided operations aimed at this process. */
static void progress_once(void)
{
    int flag = 0;
    lock();
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, job.job, &flag, MPI_STATUS_IGNORE);
    unlock();
}

static void *progress_main(void *arg)
{
    long us = (long)(intptr_t)arg;
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    pthread_setname_np(pthread_self(), "mpi progress");
    while (atomic_load_explicit(&progress_run, memory_order_acquire)) {
        progress_once();
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void progress_start(void)
{
    int us = env_int("SHMEMU_MPI_PROGRESS_US", PROGRESS_US_DEFAULT);
    if (us == 0 || job.n_pes < 2)
        return;
    atomic_store_explicit(&progress_run, true, memory_order_release);
    int rc = pthread_create(&progress_thread, NULL, progress_main, (void *)(intptr_t)us);
    if (rc != 0) {
        fprintf(stderr, "shmemu: SHMEMU_BACKEND=mpi: cannot start the progress thread: %s\n",
                strerror(rc));
        exit(2);
    }
    progress_started = true;
}

static void progress_stop(void)
{
    if (!progress_started)
        return;
    atomic_store_explicit(&progress_run, false, memory_order_release);
    pthread_join(progress_thread, NULL);
    progress_started = false;
}

/* ---- heaps --------------------------------------------------------------------------- */

static int mpi_heap_map(pgas_world *w, char *err, size_t err_len)
{
    if (!job.active || w->n_pes != job.n_pes) {
        snprintf(err, err_len, "the MPI backend maps heaps only for the job it started");
        return -1;
    }
    size_t hs = w->heap_size;
    job.heap_size = hs;
    int n = w->n_pes;
    job.view = calloc((size_t)n, sizeof *job.view);
    job.node_rank = calloc((size_t)n, sizeof *job.node_rank);
    if (job.view == NULL || job.node_rank == NULL) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    /* This rank's segment of the node's shared window, its heap aligned inside. */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    char *seg = NULL;
    int rc = MPI_Win_allocate_shared((MPI_Aint)(hs + PGAS_HEAP_ALIGN), 1, info, job.node, &seg,
                                     &job.shm_win);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) {
        snprintf(err, err_len, "cannot allocate a shared window of %zu bytes per rank; set "
                               "NVSHMEM_SYMMETRIC_SIZE smaller", hs + PGAS_HEAP_ALIGN);
        return -1;
    }
    size_t pad = (PGAS_HEAP_ALIGN - (uintptr_t)seg % PGAS_HEAP_ALIGN) % PGAS_HEAP_ALIGN;
    /* Every PE's pad (its heap's place in its segment) and node rank, to everyone. */
    int node_rank, node_n;
    MPI_Comm_rank(job.node, &node_rank);
    MPI_Comm_size(job.node, &node_n);
    long long mine[2] = {(long long)pad, node_rank}, *all = calloc((size_t)n * 2, sizeof *all);
    if (all == NULL) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    MPI_OK(MPI_Allgather(mine, 2, MPI_LONG_LONG, all, 2, MPI_LONG_LONG, job.job));
    /* Which PEs are in this node: the node communicator's ranks, as job ranks. */
    int *members = calloc((size_t)node_n, sizeof *members);
    if (members == NULL) {
        free(all);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    MPI_OK(MPI_Allgather(&job.me, 1, MPI_INT, members, 1, MPI_INT, job.node));
    for (int p = 0; p < n; p++)
        job.node_rank[p] = -1;
    for (int r = 0; r < node_n; r++)
        job.node_rank[members[r]] = r;
    free(members);
    for (int p = 0; p < n; p++) {
        if (job.node_rank[p] < 0)
            continue;
        MPI_Aint bytes;
        int disp;
        char *base;
        MPI_OK(MPI_Win_shared_query(job.shm_win, job.node_rank[p], &bytes, &disp, &base));
        job.view[p] = base + all[2 * p];
    }
    free(all);
    /* No memset: the window's segment is a new shared-memory file, whose pages are zero;
     * touching every page of the heap here cost every job its whole heap in memory. */
    /* Tokens for the heaps of other nodes: inaccessible, aligned like a heap. */
    job.token_bytes = hs * (size_t)n + PGAS_HEAP_ALIGN;
    char *t = mmap(NULL, job.token_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (t == MAP_FAILED) {
        snprintf(err, err_len, "cannot reserve %zu bytes of address space for the heaps of "
                               "other nodes; set NVSHMEM_SYMMETRIC_SIZE smaller",
                 job.token_bytes);
        return -1;
    }
    job.token_map = t;
    job.tokens = t + (PGAS_HEAP_ALIGN - (uintptr_t)t % PGAS_HEAP_ALIGN) % PGAS_HEAP_ALIGN;
    /* Every heap as one RMA window, locked for the job's life (passive target). A job of one
     * PE has no peer to reach (and Open MPI 4.1 makes no window over one process). */
    job.rma_made = n > 1;
    if (job.rma_made) {
        MPI_OK(MPI_Win_create(job.view[job.me], (MPI_Aint)hs, 1, MPI_INFO_NULL, job.job,
                              &job.rma_win));
        MPI_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, job.rma_win));
    }
    w->backend_state = &job;
    MPI_OK(MPI_Barrier(job.job));
    progress_start();
    return 0;
}

static void mpi_heap_unmap(pgas_world *w)
{
    progress_stop();
    MPI_Barrier(job.job);
    if (job.glob_win_made) {
        if (job.n_pes > 1) {
            MPI_Win_unlock_all(job.glob_win);
            MPI_Win_free(&job.glob_win);
        }
        munmap(job.gtokens, job.gtoken_bytes);
        job.glob_win_made = false;
        job.gtokens = NULL;
        job.glob_base = NULL;
    }
    if (job.rma_made) {
        MPI_Win_unlock_all(job.rma_win);
        MPI_Win_free(&job.rma_win);
        job.rma_made = false;
    }
    MPI_Win_free(&job.shm_win);
    munmap(job.token_map, job.token_bytes);
    free(job.view);
    free(job.node_rank);
    job.view = NULL;
    job.node_rank = NULL;
    w->backend_state = NULL;
    MPI_Comm_free(&job.node);
    MPI_Comm_free(&job.job);
    job.active = false;
}


static char *mpi_ptr(const pgas_world *w, int pe, size_t offset)
{
    (void)w;
    if (job.view[pe] != NULL)
        return job.view[pe] + offset;
    return job.tokens + (size_t)pe * job.heap_size + offset;
}

static int mpi_owner(const pgas_world *w, const volatile void *addr, size_t *offset)
{
    (void)w;
    uintptr_t a = (uintptr_t)addr;
    uintptr_t own = (uintptr_t)job.view[job.me];
    if (a >= own && a - own < job.heap_size) {
        *offset = a - own;
        return job.me;
    }
    uintptr_t tk = (uintptr_t)job.tokens;
    if (a >= tk && a - tk < job.heap_size * (size_t)job.n_pes) {
        int pe = (int)((a - tk) / job.heap_size);
        if (job.view[pe] == NULL) {
            *offset = (a - tk) % job.heap_size;
            return pe;
        }
        return -1;
    }
    for (int p = 0; p < job.n_pes; p++) {
        uintptr_t b = (uintptr_t)job.view[p];
        if (b != 0 && a >= b && a - b < job.heap_size) {
            *offset = a - b;
            return p;
        }
    }
    return -1;
}

/* Where target (an address ptr or global_ptr returned for pe, or this PE's own global)
 * lies: the window and the displacement in pe's part of it. */
typedef struct where {
    MPI_Win win;
    MPI_Aint disp;
} where;

static bool in_range(uintptr_t a, const char *base, size_t bytes)
{
    return base != NULL && a >= (uintptr_t)base && a - (uintptr_t)base < bytes;
}

static where locate(int pe, const char *target)
{
    uintptr_t a = (uintptr_t)target;
    if (in_range(a, job.gtokens, job.glob_stride * (size_t)job.n_pes))
        return (where){job.glob_win, (MPI_Aint)((a - (uintptr_t)job.gtokens) % job.glob_stride)};
    if (in_range(a, job.glob_base, job.glob_bytes))
        return (where){job.glob_win, (MPI_Aint)(a - (uintptr_t)job.glob_base)};
    uintptr_t base = job.view[pe] != NULL ? (uintptr_t)job.view[pe]
                                          : (uintptr_t)(job.tokens + (size_t)pe * job.heap_size);
    return (where){job.rma_win, (MPI_Aint)(a - base)};
}

/* Whether target must go through MPI: a token (another node's heap, another PE's globals). */
static bool is_token(const char *target)
{
    uintptr_t a = (uintptr_t)target;
    return in_range(a, job.tokens, job.heap_size * (size_t)job.n_pes) ||
           in_range(a, job.gtokens, job.glob_stride * (size_t)job.n_pes);
}

static MPI_Datatype word_type(size_t bytes)
{
    switch (bytes) {
    case 1: return MPI_UINT8_T;
    case 2: return MPI_UINT16_T;
    case 4: return MPI_UINT32_T;
    default: return MPI_UINT64_T;
    }
}

static bool is_word(const char *target, size_t bytes)
{
    return bytes <= 8 && (bytes & (bytes - 1)) == 0 && (uintptr_t)target % bytes == 0;
}

/* MPI counts are ints: a large transfer goes in pieces. */
#define CHUNK ((size_t)1 << 30)

static void mpi_put(const pgas_world *w, int pe, char *target, const void *src, size_t bytes)
{
    if (!is_token(target)) {
        pgas_threads_put(w, pe, target, src, bytes);
        return;
    }
    where at = locate(pe, target);
    MPI_Aint disp = at.disp;
    lock();
    if (is_word(target, bytes)) {
        MPI_OK(MPI_Accumulate(src, 1, word_type(bytes), pe, disp, 1, word_type(bytes),
                              MPI_REPLACE, at.win));
    } else {
        for (size_t done = 0; done < bytes; done += CHUNK) {
            size_t n = bytes - done < CHUNK ? bytes - done : CHUNK;
            MPI_OK(MPI_Put((const char *)src + done, (int)n, MPI_BYTE, pe,
                           disp + (MPI_Aint)done, (int)n, MPI_BYTE, at.win));
        }
    }
    MPI_OK(MPI_Win_flush(pe, at.win));
    unlock();
}

static void mpi_get(const pgas_world *w, int pe, void *dest, const char *remote_src,
                    size_t bytes)
{
    if (!is_token(remote_src)) {
        pgas_threads_get(w, pe, dest, remote_src, bytes);
        return;
    }
    where at = locate(pe, remote_src);
    MPI_Aint disp = at.disp;
    lock();
    if (is_word(remote_src, bytes)) {
        MPI_OK(MPI_Get_accumulate(NULL, 0, word_type(bytes), dest, 1, word_type(bytes), pe,
                                  disp, 1, word_type(bytes), MPI_NO_OP, at.win));
    } else {
        for (size_t done = 0; done < bytes; done += CHUNK) {
            size_t n = bytes - done < CHUNK ? bytes - done : CHUNK;
            MPI_OK(MPI_Get((char *)dest + done, (int)n, MPI_BYTE, pe, disp + (MPI_Aint)done,
                           (int)n, MPI_BYTE, at.win));
        }
    }
    MPI_OK(MPI_Win_flush(pe, at.win));
    unlock();
}

/* An AMO through MPI: the runtime calls it where amo_via_backend (below) says so. */
/* The MPI operation of a fetch-and-op AMO (every op but CSWAP). */
static MPI_Op mpi_op_of(pgas_amo_op op)
{
    switch (op) {
    case PGAS_AMO_SET:
    case PGAS_AMO_SWAP: return MPI_REPLACE;
    case PGAS_AMO_ADD: return MPI_SUM;
    case PGAS_AMO_AND: return MPI_BAND;
    case PGAS_AMO_OR: return MPI_BOR;
    case PGAS_AMO_XOR: return MPI_BXOR;
    default: return MPI_NO_OP; /* PGAS_AMO_FETCH */
    }
}

static uint64_t mpi_amo(const pgas_world *w, int pe, char *target, size_t size, int op,
                        uint64_t value, uint64_t cond)
{
    (void)w;
    MPI_Datatype type = size == 4 ? MPI_UINT32_T : MPI_UINT64_T;
    where at = locate(pe, target);
    MPI_Aint disp = at.disp;
    uint32_t v32 = (uint32_t)value, c32 = (uint32_t)cond, o32 = 0;
    uint64_t v64 = value, c64 = cond, o64 = 0;
    void *v = size == 4 ? (void *)&v32 : (void *)&v64;
    void *c = size == 4 ? (void *)&c32 : (void *)&c64;
    void *o = size == 4 ? (void *)&o32 : (void *)&o64;
    lock();
    if ((pgas_amo_op)op == PGAS_AMO_CSWAP) {
        MPI_OK(MPI_Compare_and_swap(v, c, o, type, pe, disp, at.win));
    } else {
        /* Every other AMO is one fetch-and-op; FETCH sends nothing. */
        MPI_Op mop = mpi_op_of((pgas_amo_op)op);
        MPI_OK(MPI_Fetch_and_op(mop == MPI_NO_OP ? NULL : v, o, type, pe, disp, mop, at.win));
    }
    MPI_OK(MPI_Win_flush(pe, at.win));
    unlock();
    return size == 4 ? o32 : o64;
}

static bool mpi_amo_via_backend(const pgas_world *w, int pe, const char *target)
{
    (void)w;
    (void)pe;
    /* Only a token needs MPI: an AMO on memory this process maps (its own heap and globals,
     * a peer of its node) is a C atomic, as on the threads backend. See the header: MPI's
     * atomics arriving from other nodes are applied with the CPU's atomics there. */
    return is_token(target);
}

static void mpi_progress(const pgas_world *w)
{
    (void)w;
    progress_once();
}

static bool mpi_direct(const pgas_world *w, int pe, const char *addr)
{
    (void)w;
    return addr != NULL ? !is_token(addr) : job.view[pe] != NULL;
}

/* ---- the program's globals ----------------------------------------------------------- */

static int mpi_globals_map(pgas_world *w, char *data, size_t bytes, char *err, size_t err_len)
{
    (void)w;
    long page = sysconf(_SC_PAGESIZE);
    job.glob_base = data;
    job.glob_bytes = bytes;
    job.glob_stride = (bytes + (size_t)page - 1) / (size_t)page * (size_t)page;
    if (job.glob_stride == 0)
        job.glob_stride = (size_t)page;
    job.gtoken_bytes = job.glob_stride * (size_t)job.n_pes;
    char *t = mmap(NULL, job.gtoken_bytes, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (t == MAP_FAILED) {
        snprintf(err, err_len, "cannot reserve address space for the other PEs' globals");
        return -1;
    }
    job.gtokens = t;
    if (job.n_pes > 1) { /* one PE reaches only its own globals, directly */
        MPI_OK(MPI_Win_create(data, (MPI_Aint)bytes, 1, MPI_INFO_NULL, job.job, &job.glob_win));
        MPI_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, job.glob_win));
    }
    job.glob_win_made = true;
    return 0;
}

static char *mpi_global_ptr(const pgas_world *w, int pe, size_t offset)
{
    (void)w;
    return job.gtokens + (size_t)pe * job.glob_stride + offset;
}

/* ---- teams --------------------------------------------------------------------------- */

static MPI_Comm comm_of(const pgas_team *team) { return (MPI_Comm)team->backend_team; }

static void wait_request(MPI_Request *req)
{
    unsigned spins = 0;
    for (;;) {
        int done = 0;
        lock();
        MPI_OK(MPI_Test(req, &done, MPI_STATUS_IGNORE));
        unlock();
        if (done)
            return;
        nap(&spins);
    }
}

static void mpi_barrier(pgas_thread *t, pgas_barrier *b, int n_members, const char *call)
{
    (void)t;
    (void)n_members;
    (void)call;
    pgas_team *team = (pgas_team *)((char *)b - offsetof(pgas_team, barrier));
    if (team->size == 1)
        return; /* a team of this PE alone */
    MPI_Request req;
    lock();
    MPI_OK(MPI_Ibarrier(comm_of(team), &req));
    unlock();
    wait_request(&req);
    atomic_fetch_add_explicit(&b->generation, 1, memory_order_release);
}

static void mpi_teams_init(pgas_world *w)
{
    for (int i = 0; i < PGAS_TEAM_PREDEFINED; i++)
        w->teams[i].backend_team = (void *)job.job;
    /* The node teams: this node's PEs, when they are consecutive (mpirun's default
     * placement, and every SHMEMU_MPI_NODE_SIZE grouping). */
    int first = -1, count = 0;
    for (int p = 0; p < job.n_pes; p++)
        if (job.node_rank[p] >= 0) {
            if (first < 0)
                first = p;
            count++;
        }
    bool consecutive = true;
    for (int p = first; p < first + count; p++)
        consecutive = consecutive && job.node_rank[p] == p - first;
    if (!consecutive)
        return;
    for (int id = 1; id <= 2; id++) { /* NVSHMEM_TEAM_SHARED, NVSHMEMX_TEAM_NODE */
        w->teams[id].start = first;
        w->teams[id].stride = 1;
        w->teams[id].size = count;
        w->teams[id].backend_team = (void *)job.node;
    }
}

static void mpi_team_create(pgas_team *team)
{
    int *ranks = malloc((size_t)team->size * sizeof *ranks);
    if (ranks == NULL) {
        fprintf(stderr, "shmemu: out of memory\n");
        exit(2);
    }
    for (int r = 0; r < team->size; r++)
        ranks[r] = team->start + r * team->stride;
    MPI_Group all, members;
    MPI_Comm c;
    lock();
    MPI_OK(MPI_Comm_group(job.job, &all));
    MPI_OK(MPI_Group_incl(all, team->size, ranks, &members));
    /* Collective over the members only: non-members of the team never call it. */
    MPI_OK(MPI_Comm_create_group(job.job, members, 0, &c));
    MPI_Group_free(&members);
    MPI_Group_free(&all);
    unlock();
    free(ranks);
    team->backend_team = (void *)c;
}

static void mpi_team_free(pgas_team *team)
{
    MPI_Comm c = comm_of(team);
    if (c != MPI_COMM_NULL && c != job.job) {
        lock();
        MPI_Comm_free(&c);
        unlock();
    }
    team->backend_team = NULL;
}

static void mpi_allgather(const pgas_team *team, const void *mine, void *all, size_t bytes)
{
    MPI_Request req;
    lock();
    MPI_OK(MPI_Iallgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, comm_of(team),
                          &req));
    unlock();
    wait_request(&req);
}

/* For shmemu/mpi.h: the job's communicator (the runtime hands it out). */
static void *mpi_job_comm(void) { return job.active ? (void *)job.job : NULL; }

/* What the loader (backend_mpi_load.c) finds with dlsym; it fills in wake. */
const pgas_backend pgas_backend_mpi_plugin = {
    .name = "mpi",
    .ranks = true,
    .heap_map = mpi_heap_map,
    .heap_unmap = mpi_heap_unmap,
    .ptr = mpi_ptr,
    .owner = mpi_owner,
    .put = mpi_put,
    .get = mpi_get,
    .barrier = mpi_barrier,
    .direct = mpi_direct,
    .amo_via_backend = mpi_amo_via_backend,
    .amo = mpi_amo,
    .progress = mpi_progress,
    .job_begin = mpi_job_begin,
    .job_end = mpi_job_end,
    .teams_init = mpi_teams_init,
    .team_create = mpi_team_create,
    .team_free = mpi_team_free,
    .allgather = mpi_allgather,
    .globals_map = mpi_globals_map,
    .global_ptr = mpi_global_ptr,
    .job_comm = mpi_job_comm,
};
