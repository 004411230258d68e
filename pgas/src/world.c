/*
 * world.c: jobs and the threads that act for their PEs.
 *
 * shmemu_launch creates a job (its heap, PEs and teams), starts one pthread per PE, waits
 * for all of them and tears the job down. A PE thread and every thread attached to it later
 * (the emulator's blocks) find their job and PE through "who am I" (self.c): attaching here
 * sets it, detaching clears it.
 *
 * A program that calls nvshmem_init() on a thread that belongs to no job gets a job of one
 * PE, attached to that thread: that is how an ordinary NVSHMEM program runs as 1 PE when it
 * was not built with bin/shmemu-cc.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "events.h"
#include "image.h"
#include "nvshmem.h"
#include "ordering.h"

/* ---- jobs ---------------------------------------------------------------------------- */

/* A job of n_pes PEs on backend; for a process job, after pgas_process_job_begin (its
 * records then live in the memory the PE processes share). */
static pgas_world *world_create(int n_pes, const pgas_backend *backend)
{
    pgas_world *world = pgas_job_calloc(1, sizeof *world);
    if (world == NULL) {
        fprintf(stderr, "shmemu: out of memory creating a job of %d PEs\n", n_pes);
        exit(2);
    }
    world->n_pes = n_pes;
    pgas_config_read(&world->config);
    world->heap_size = world->config.heap_size;
    world->pes = pgas_job_calloc((size_t)n_pes, sizeof *world->pes);
    if (world->pes == NULL) {
        fprintf(stderr, "shmemu: out of memory creating a job of %d PEs\n", n_pes);
        exit(2);
    }
    for (int p = 0; p < n_pes; p++) {
        world->pes[p].id = p;
        atomic_init(&world->pes[p].init_status, NVSHMEM_STATUS_NOT_INITIALIZED);
    }
    pgas_ordering_choose(); /* before any PE thread: the active bug's table, if any */
    /* The backend is wired in here, at the top: the files below call it through
     * world->backend and never name the threads backend, which is built on park.c
     * (backend.h). */
    world->backend = backend;
    world->backend_threads_layout = backend->threads_layout;
    pgas_ev_job_begin(world); /* SHMEMU_EVENTS: refuses other backends, unwritable files */
    pgas_heap_init(world);
    pgas_teams_init(world);
    pgas_checker_ignore(world, sizeof *world);
    pgas_checker_ignore(world->pes, (size_t)n_pes * sizeof *world->pes);
    /* Spin-then-park only pays when every thread of the job can have a core. */
    world->spin_allowed_cached = !world->config.under_valgrind;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    world->uid = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^ (uint64_t)(uintptr_t)world;
    return world;
}

static void world_destroy(pgas_world *world)
{
    /* In a process job, a thread's queues and the starts it recorded were allocated in its
     * PE's process: only PE 0's, this process's, are freed here (the others went with their
     * processes); the records themselves go with the job's shared memory. */
    bool processes = world->backend->processes;
    pgas_thread *t = atomic_load(&world->threads);
    while (t != NULL) {
        pgas_thread *next = t->next;
        if (!processes || t->pe == 0) {
            pgas_pending_free(t);
            for (struct pgas_app_start *s = t->app_started, *n; s != NULL; s = n) {
                n = s->next;
                free(s);
            }
        }
        pgas_job_free(t);
        t = next;
    }
    for (int p = 0; p < world->n_pes; p++)
        pgas_job_free(world->pes[p].registered);
    pgas_heap_destroy(world);
    pgas_job_free(world->pes);
    pgas_job_free(world);
}

static pgas_thread *thread_attach_record(pgas_thread *t, pgas_world *world, int pe,
                                         const char *label);

/* Makes *slot's detached record (pgas_thread_attach_reusing) ready for its new thread:
 * its queue is empty (detach delivered it; the buffer is kept) and its wait has ended. */
static pgas_thread *take_over(pgas_thread *t)
{
    if (atomic_load(&t->live) != 0 || t->n_pending != 0 || atomic_load(&t->wait.active)) {
        fprintf(stderr, "shmemu: internal error: a thread record was handed on before its "
                        "thread detached\n");
        abort();
    }
    pgas_queues_reset(t);
    t->app = false;
    t->ent = NULL;
    t->api_call = NULL;
    t->site = (pgas_call_site){0};
    (void)atomic_exchange(&t->live, 1);
    return t;
}

static pgas_thread *thread_attach(pgas_world *world, int pe, const char *label,
                                  pgas_thread **slot)
{
    if (slot != NULL && *slot != NULL && (*slot)->world == world && world->sched == NULL)
        return thread_attach_record(take_over(*slot), world, pe, label);
    pgas_thread *t = pgas_job_calloc(1, sizeof *t);
    if (t == NULL) {
        fprintf(stderr, "shmemu: out of memory attaching a thread to PE %d\n", pe);
        exit(2);
    }
    atomic_init(&t->live, 1);
    pgas_checker_ignore(t, sizeof *t);
    /* Push onto the job's list; nodes stay until the job ends, so readers need no lock. */
    pgas_thread *head = atomic_load(&world->threads);
    do {
        t->next = head;
    } while (!atomic_compare_exchange_weak(&world->threads, &head, t));
    if (slot != NULL && world->sched == NULL)
        *slot = t;
    return thread_attach_record(t, world, pe, label);
}

/* The per-thread part of attaching, for a new record or a reused one. */
static pgas_thread *thread_attach_record(pgas_thread *t, pgas_world *world, int pe,
                                         const char *label)
{
    t->world = world;
    t->pe = pe;
    t->q = &t->queue; /* the default context's queue (delivery.c) */
    t->heap_base = pgas_be_ptr(world, pe, 0);
    t->heap_map = pgas_heap_objects_map(world, pe);
    t->index = atomic_fetch_add_explicit(&world->n_threads, 1, memory_order_relaxed);
    snprintf(t->label, sizeof t->label, "%s", label != NULL ? label : "host");
    pgas_thread_name_self(pe, t->label); /* for the race checkers' reports: thread_name.c */
    /* The checking-mode stream must not depend on which thread attached first: seed it from
     * the seed, the PE and the label ("host", "kernel K block B"), all fixed by the program. */
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *c = t->label; *c != '\0'; c++)
        h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    t->rng = world->config.check_seed * 0x9e3779b97f4a7c15ull ^ ((uint64_t)pe << 48) ^ h;
    /* Relaxed, like n_threads above: a seq_cst RMW is an acquire and a release to TSan, so
     * every thread's detach would happen before every later attach, on any PE, and hide a
     * kernel read racing with a later block's put (docs/design.md D4). */
    atomic_fetch_add_explicit(&world->live_threads, 1, memory_order_relaxed);
    pgas_ev_job_attach_thread(t);
    pgas_set_current(t);
    return t;
}

static void thread_detach(volatile uint32_t *exited)
{
    pgas_thread *self = pgas_current();
    if (self == NULL)
        return;
    pgas_deliver_all(self);
    if (exited != NULL) {
        (void)__atomic_exchange_n(exited, 1u, __ATOMIC_RELAXED);
        if (self->ent != NULL)
            pgas_sched_note_write(self, exited, sizeof *exited);
    }
    atomic_exchange(&self->live, 0);
    atomic_fetch_sub_explicit(&self->world->live_threads, 1, memory_order_relaxed);
    if (self->ent != NULL)
        pgas_sched_detach(self); /* hands the turn on for good */
    pgas_set_current(NULL);
}

int pgas_thread_attach_reusing(const pgas_thread *parent, int pe, const char *label,
                               pgas_thread **slot)
{
    if (parent == NULL || pe < 0 || pe >= parent->world->n_pes)
        return -1;
    pgas_thread *t = thread_attach(parent->world, pe, label, slot);
    if (t->world->sched != NULL)
        pgas_sched_attach(t, false);
    return 0;
}

int pgas_thread_attach(const pgas_thread *parent, int pe, const char *label)
{
    return pgas_thread_attach_reusing(parent, pe, label, NULL);
}

int pgas_thread_attach_app(const pgas_thread *parent, int pe, const char *label,
                           pgas_thread **slot)
{
    if (parent == NULL || pe < 0 || pe >= parent->world->n_pes)
        return -1;
    pgas_thread *t = thread_attach(parent->world, pe, label, slot);
    t->app = true;
    if (t->world->sched != NULL)
        pgas_sched_attach(t, false);
    return 0;
}

void pgas_thread_detach(void) { thread_detach(NULL); }

void pgas_thread_detach_notify(volatile uint32_t *exited) { thread_detach(exited); }

void pgas_thread_set_label(const char *label)
{
    pgas_thread *self = pgas_current();
    if (self != NULL)
        snprintf(self->label, sizeof self->label, "%s", label);
}

/* ---- launching ----------------------------------------------------------------------- */

typedef struct pe_start {
    pgas_world *world;
    int pe;
    int (*fn)(void *);
    void *fn_arg;
    int (*main_fn)(int, char **, char **);
    const pgas_image *image; /* non-NULL: PE p runs copy p's main */
    int argc;
    char **argv;
    char **envp;
    int result;
} pe_start;

static void *pe_thread_main(void *arg)
{
    pe_start *start = arg;
    pgas_thread *t = thread_attach(start->world, start->pe, "host", NULL);
    t->host = true;
    if (t->world->sched != NULL)
        pgas_sched_attach(t, true);
    if (start->fn != NULL)
        start->result = start->fn(start->fn_arg);
    else
        start->result = start->main_fn(start->argc, start->argv, start->envp);
    pgas_heap_check_finished(t);
    /* the emulator stops the PE's streams while the thread still belongs to the job */
    pgas_thread_run_exit_hook();
    thread_detach(NULL);
    return NULL;
}

/* One loaded copy of the program per PE (shmemu_launch_image, below). */
static pgas_image job_image;

/* PE p's start: the prototype's function or main (copy p's, for per-PE copies) on world. */
static void fill_start(pe_start *start, const pe_start *proto, pgas_world *world, int p)
{
    *start = *proto;
    start->world = world;
    start->pe = p;
    if (proto->image != NULL)
        start->main_fn = proto->image->copies[p - proto->image->first_pe].main_fn;
}

/* The PE thread's stack: as large as a main thread's usually is. */
#define PE_STACK_BYTES ((size_t)8 << 20)

/* The first non-zero result in PE order, or 0. */
static int job_result(const pe_start *starts, int n_pes)
{
    for (int p = 0; p < n_pes; p++)
        if (starts[p].result != 0)
            return starts[p].result;
    return 0;
}

/* A job on the process backend: the job's records, heaps and (for a program built with
 * per-PE copies) every copy's globals go into memory the PE processes share, then PEs
 * 1..N-1 are forked and PE 0 runs on a thread of this process (backend_process.c). */
static int launch_processes(int n_pes, const pe_start *proto, const pgas_backend *backend)
{
    pgas_process_job_begin();
    pgas_world *world = world_create(n_pes, backend);
    const pgas_config *config = &world->config;
    char err[512];
    bool refused = config->sched_strategy != PGAS_SCHED_OFF || config->replay[0] != '\0' ||
                   config->guide[0] != '\0';
    if (refused)
        snprintf(err, sizeof err, "the deterministic scheduler (SHMEMU_SCHED, SHMEMU_REPLAY) "
                                  "runs every PE in one process; use the threads backend (unset "
                                  "SHMEMU_BACKEND) to explore or replay schedules");
    else if (proto->image != NULL)
        refused = pgas_image_share_data(&job_image, err, sizeof err) != 0;
    if (refused) {
        fprintf(stderr, "shmemu: SHMEMU_BACKEND=process: %s\n", err);
        world_destroy(world);
        pgas_process_job_end(false);
        return 2;
    }
    world->image = proto->image;
    pe_start *starts = pgas_job_calloc((size_t)n_pes, sizeof *starts);
    if (starts == NULL) {
        fprintf(stderr, "shmemu: out of memory starting %d PEs\n", n_pes);
        exit(2);
    }
    for (int p = 0; p < n_pes; p++)
        fill_start(&starts[p], proto, world, p);
    pgas_process_run(world, pe_thread_main, starts, sizeof *starts, PE_STACK_BYTES);
    int result = job_result(starts, n_pes);
    /* PE 0's threads that the program created and never joined may still run: then the
     * job's shared records stay mapped (as a threads job's stay allocated). */
    bool keep = atomic_load_explicit(&world->app_threads, memory_order_relaxed) != 0;
    if (!keep)
        world_destroy(world);
    pgas_process_job_end(keep);
    return result;
}

/* A job on a ranks backend (MPI): every process started runs this; the first n_pes of
 * them each run one PE, on a thread of their own (a PE's stack, as on the other backends),
 * and every one returns the job's status. */
static int launch_ranks(int n_pes, const pe_start *proto, const pgas_backend *backend)
{
    char err[512];
    int me = -1;
    if (backend->job_begin(n_pes, &me, err, sizeof err) != 0) {
        fprintf(stderr, "shmemu: SHMEMU_BACKEND=%s: %s\n", backend->name, err);
        return 2;
    }
    if (me < 0)
        return 0; /* a rank beyond the job's PEs takes no part */
    pgas_world *world = world_create(n_pes, backend);
    backend->teams_init(world);
    const pgas_config *config = &world->config;
    if (config->sched_strategy != PGAS_SCHED_OFF || config->replay[0] != '\0' ||
        config->guide[0] != '\0') {
        fprintf(stderr, "shmemu: SHMEMU_BACKEND=%s: the deterministic scheduler (SHMEMU_SCHED, "
                        "SHMEMU_REPLAY) runs every PE in one process; use the threads backend "
                        "(unset SHMEMU_BACKEND, run without mpirun) to explore or replay "
                        "schedules\n", backend->name);
        exit(2);
    }
    if (proto->image != NULL) {
        /* The one copy this process loaded is its PE's; its globals become reachable by the
         * other PEs through the backend. */
        job_image.first_pe = me;
        if (backend->globals_map(world, job_image.copies[0].data, job_image.data_bytes, err,
                                 sizeof err) != 0) {
            fprintf(stderr, "shmemu: SHMEMU_BACKEND=%s: %s\n", backend->name, err);
            exit(2);
        }
        /* Loaded: the file is no longer needed, so a rank killed now leaves none behind (no
         * race checker runs on this backend to read its debug information later). */
        pgas_image_remove_files(&job_image);
    }
    world->image = proto->image;
    pe_start start;
    fill_start(&start, proto, world, me);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, PE_STACK_BYTES);
    pthread_t thread;
    int rc = pgas_thread_create(&thread, &attr, pe_thread_main, &start);
    if (rc != 0) {
        fprintf(stderr, "shmemu: cannot start the thread of PE %d: %s\n", me, strerror(rc));
        exit(2);
    }
    pthread_attr_destroy(&attr);
    pthread_join(thread, NULL);
    int result = backend->job_end(world, start.result);
    if (atomic_load_explicit(&world->app_threads, memory_order_relaxed) == 0)
        world_destroy(world);
    return result;
}

static int launch(int n_pes, pe_start *proto)
{
    const pgas_thread *self = pgas_current();
    if (self != NULL)
        pgas_fail("shmemu_launch", "cannot start a job from inside PE %d; launch from a thread "
                                   "that is no PE", self->pe);
    if (n_pes < 1 || n_pes > SHMEMU_MAX_PES) {
        fprintf(stderr, "shmemu: shmemu_launch: %d PEs requested; use 1 to %d\n", n_pes,
                SHMEMU_MAX_PES);
        return 2;
    }
    const pgas_backend *backend = pgas_backend_for_new_job();
    if (backend->processes)
        return launch_processes(n_pes, proto, backend);
    if (backend->ranks)
        return launch_ranks(n_pes, proto, backend);
    pgas_world *world = world_create(n_pes, backend);
    world->image = proto->image;
    pgas_sched_create(world);
    pe_start *starts = calloc((size_t)n_pes, sizeof *starts);
    pthread_t *threads = calloc((size_t)n_pes, sizeof *threads);
    if (starts == NULL || threads == NULL) {
        fprintf(stderr, "shmemu: out of memory starting %d PEs\n", n_pes);
        exit(2);
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, PE_STACK_BYTES);
    for (int p = 0; p < n_pes; p++) {
        fill_start(&starts[p], proto, world, p);
        int rc = pgas_thread_create(&threads[p], &attr, pe_thread_main, &starts[p]);
        if (rc != 0) {
            fprintf(stderr, "shmemu: cannot start the thread of PE %d of %d: %s\n", p, n_pes,
                    strerror(rc));
            exit(2);
        }
    }
    pthread_attr_destroy(&attr);
    for (int p = 0; p < n_pes; p++)
        pthread_join(threads[p], NULL);
    int result = job_result(starts, n_pes);
    free(threads);
    free(starts);
    pgas_sched_destroy(world);
    /* Threads the program created may outlive their PEs (app_thread.c): while any has not
     * finished, the job stays allocated, so that its calls fail with a message (and its
     * event log is written at exit). */
    if (atomic_load_explicit(&world->app_threads, memory_order_relaxed) == 0) {
        pgas_ev_job_end(world);
        world_destroy(world);
    }
    return result;
}

int shmemu_launch(int n_pes, int (*fn)(void *arg), void *arg)
{
    pe_start proto = {.fn = fn, .fn_arg = arg};
    return launch(n_pes, &proto);
}

int shmemu_launch_main(int n_pes, int (*main_fn)(int, char **, char **), int argc, char **argv,
                       char **envp)
{
    pe_start proto = {.main_fn = main_fn, .argc = argc, .argv = argv, .envp = envp};
    return launch(n_pes, &proto);
}

/* One loaded copy of the program per PE, for the job's life and the process's: the copies'
 * code must stay mapped while anything may still call it (exit handlers, destructors). */
static pgas_image job_image;

int shmemu_launch_image(int n_pes, const unsigned char *elf, size_t elf_bytes, int argc,
                        char **argv, char **envp)
{
    if (n_pes < 1 || n_pes > SHMEMU_MAX_PES) {
        fprintf(stderr, "shmemu: shmemu_launch: %d PEs requested; use 1 to %d\n", n_pes,
                SHMEMU_MAX_PES);
        return 2;
    }
    if (job_image.n_copies != 0) {
        fprintf(stderr, "shmemu: shmemu_launch_image: the program's copies are loaded already; "
                        "a process runs one such job\n");
        return 2;
    }
    char err[512];
    /* On a ranks backend (MPI) this process runs one PE: one copy. */
    int copies = pgas_backend_for_new_job()->ranks ? 1 : n_pes;
    if (pgas_image_load(&job_image, elf, elf_bytes, copies, argc > 0 ? argv[0] : "program", err,
                        sizeof err) != 0) {
        fprintf(stderr, "shmemu: starting %d PEs: %s\n", n_pes, err);
        return 2;
    }
    pe_start proto = {.image = &job_image, .argc = argc, .argv = argv, .envp = envp};
    return launch(n_pes, &proto);
}

void shmemu_image_remove_files(void) { pgas_image_remove_files(&job_image); }

/* ---- initialization ------------------------------------------------------------------ */

/* A thread outside any job that calls nvshmem_init becomes PE 0 of a job of one. */
static pgas_thread *attach_implicit_job(const char *call)
{
    int n = shmemu_npes_from_env();
    if (n != 1)
        pgas_fail(call, "SHMEMU_NPES=%d, but this program's main() was not started as PE "
                        "threads; build it with bin/shmemu-cc (which links shmemu's main) or "
                        "start PEs with shmemu_launch()", n);
    const pgas_backend *backend = pgas_backend_for_new_job();
    int me = 0;
    if (backend->ranks) {
        /* A plain build under mpirun: every rank is one PE of a job of all of them. */
        char err[512];
        n = pgas_mpirun_size();
        if (backend->job_begin(n, &me, err, sizeof err) != 0 || me < 0)
            pgas_fail(call, "SHMEMU_BACKEND=%s: %s", backend->name, err);
    }
    pgas_world *world = world_create(n, backend);
    if (backend->ranks)
        backend->teams_init(world);
    pgas_thread *t = thread_attach(world, me, "host", NULL);
    t->host = true;
    return t;
}

static void init_this_pe(const char *call)
{
    pgas_thread *self = pgas_current();
    if (self == NULL)
        self = attach_implicit_job(call);
    pgas_pe *pe = &self->world->pes[self->pe];
    /* NVSHMEM and OpenSHMEM 1.5 both say a second initialization in a program is undefined
     * (OpenSHMEM 1.6 adds reference counting; shmem.h claims 1.5): report it. */
    if (atomic_load(&pe->init_status) == NVSHMEM_STATUS_IS_INITIALIZED)
        pgas_fail(call, "this PE is already initialized; a second initialization is undefined in "
                        "NVSHMEM and OpenSHMEM 1.5: initialize once per PE, at the start");
    if (atomic_exchange(&pe->init_calls, 1) != 0)
        pgas_fail(call, "this PE was initialized and finalized before; NVSHMEM and OpenSHMEM "
                        "1.5 allow one initialization per program: initialize once at the "
                        "start and finalize once at the end");
    atomic_store(&pe->init_status, NVSHMEM_STATUS_IS_INITIALIZED);
    /* SHMEM_VERSION, SHMEM_INFO, NVSHMEM_INFO: once per job (PE 0 initializes once), before
     * the barrier, so that the lines come before anything a PE prints after initializing. */
    const pgas_config *config = &self->world->config;
    if (self->pe == 0 && (config->print_info || config->print_version))
        pgas_config_print(config, config->print_info);
    /* nvshmem_init is collective: no PE leaves before every PE has its heap ready. */
    pgas_team *world_team = &self->world->teams[0];
    pgas_barrier_wait(self, &world_team->barrier, world_team->size, call);
}

void nvshmem_init(void) { init_this_pe("nvshmem_init"); }

/* Every PE's threads may call the runtime at once (the host thread, the threads the program
 * creates on it: app_thread.c, the emulator's streams and blocks), so every level is
 * provided, as NVSHMEM_THREAD_MULTIPLE. */
int nvshmem_init_thread(int requested, int *provided)
{
    const char *call = "nvshmem_init_thread";
    if (requested < NVSHMEM_THREAD_SINGLE || requested > NVSHMEM_THREAD_MULTIPLE) {
        pgas_complain(call, "unknown thread level %d; use NVSHMEM_THREAD_SINGLE (%d), "
                            "NVSHMEM_THREAD_FUNNELED (%d), NVSHMEM_THREAD_SERIALIZED (%d) or "
                            "NVSHMEM_THREAD_MULTIPLE (%d)", requested, NVSHMEM_THREAD_SINGLE,
                      NVSHMEM_THREAD_FUNNELED, NVSHMEM_THREAD_SERIALIZED,
                      NVSHMEM_THREAD_MULTIPLE);
        return 1;
    }
    init_this_pe(call);
    if (provided != NULL)
        *provided = NVSHMEM_THREAD_MULTIPLE;
    return 0;
}

void nvshmem_query_thread(int *provided)
{
    if (provided != NULL)
        *provided = NVSHMEM_THREAD_MULTIPLE;
}

int nvshmemx_init_thread(int requested, int *provided)
{
    return nvshmem_init_thread(requested, provided);
}

void nvshmemx_query_thread(int *provided) { nvshmem_query_thread(provided); }

int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr)
{
    const char *call = "nvshmemx_init_attr";
    const unsigned known = NVSHMEMX_INIT_THREAD_PES | NVSHMEMX_INIT_WITH_UNIQUEID;
    if (flags & ~known) {
        /* No MPI or OpenSHMEM job exists to bootstrap from: the PEs are this process's
         * threads, started by shmemu-run (or SHMEMU_NPES), and already form the job. */
        pgas_complain(call, "flags 0x%x are not supported by the threads backend: "
                            "NVSHMEMX_INIT_WITH_MPI_COMM and NVSHMEMX_INIT_WITH_SHMEM "
                            "bootstrap from an MPI or OpenSHMEM job, and here every PE is a "
                            "thread that shmemu-run -n N starts; call nvshmem_init() (or "
                            "nvshmemx_init_attr with 0, NVSHMEMX_INIT_THREAD_PES or "
                            "NVSHMEMX_INIT_WITH_UNIQUEID) instead", flags & ~known);
        return 1;
    }
    if (flags & NVSHMEMX_INIT_WITH_UNIQUEID) {
        if (attr == NULL || attr->args.uid_args.uid == NULL) {
            pgas_complain(call, "NVSHMEMX_INIT_WITH_UNIQUEID needs attr with a unique id; call "
                                "nvshmemx_set_attr_uniqueid_args first");
            return 1;
        }
        pgas_thread *self = pgas_current();
        if (self == NULL)
            self = attach_implicit_job(call);
        const nvshmemx_uniqueid_args_t *u = &attr->args.uid_args;
        uint64_t uid;
        memcpy(&uid, u->uid->internal, sizeof uid);
        if (uid != self->world->uid) {
            pgas_complain(call, "the unique id does not belong to this job; share the id that "
                                "nvshmemx_get_uniqueid returned inside this job");
            return 1;
        }
        if (u->nranks != self->world->n_pes || u->rank != self->pe) {
            pgas_complain(call, "rank %d of %d does not match this PE (PE %d of %d); pass "
                                "nvshmem's own PE and PE count", u->rank, u->nranks, self->pe,
                          self->world->n_pes);
            return 1;
        }
    }
    init_this_pe(call);
    return 0;
}

int nvshmemx_get_uniqueid(nvshmemx_uniqueid_t *uniqueid)
{
    const char *call = "nvshmemx_get_uniqueid";
    if (uniqueid == NULL) {
        pgas_complain(call, "uniqueid is NULL; pass the address of an nvshmemx_uniqueid_t");
        return 1;
    }
    pgas_thread *self = pgas_current();
    if (self == NULL)
        self = attach_implicit_job(call);
    memset(uniqueid, 0, sizeof *uniqueid);
    uniqueid->version = 1;
    memcpy(uniqueid->internal, &self->world->uid, sizeof self->world->uid);
    return 0;
}

int nvshmemx_set_attr_uniqueid_args(int myrank, int nranks, const nvshmemx_uniqueid_t *uniqueid,
                                    nvshmemx_init_attr_t *attr)
{
    if (attr == NULL || uniqueid == NULL) {
        pgas_complain("nvshmemx_set_attr_uniqueid_args", "attr and uniqueid must not be NULL");
        return 1;
    }
    attr->args.uid_args.rank = myrank;
    attr->args.uid_args.nranks = nranks;
    attr->args.uid_args.uid = (nvshmemx_uniqueid_t *)(uintptr_t)uniqueid;
    return 0;
}

int nvshmemx_init_status(void)
{
    const pgas_thread *self = pgas_current();
    if (self == NULL)
        return NVSHMEM_STATUS_NOT_INITIALIZED;
    return atomic_load(&self->world->pes[self->pe].init_status);
}

void nvshmem_finalize(void)
{
    const char *call = "nvshmem_finalize";
    pgas_thread *t = pgas_require(call);
    pgas_quiet(t);
    pgas_team *world_team = &t->world->teams[0];
    pgas_barrier_wait(t, &world_team->barrier, world_team->size, call);
    atomic_store(&t->world->pes[t->pe].init_status, NVSHMEM_STATUS_NOT_INITIALIZED);
}

int nvshmem_my_pe(void) { return pgas_require("nvshmem_my_pe")->pe; }

int nvshmem_n_pes(void) { return pgas_require("nvshmem_n_pes")->world->n_pes; }

void nvshmem_info_get_version(int *major, int *minor)
{
    if (major != NULL)
        *major = NVSHMEM_MAJOR_VERSION;
    if (minor != NULL)
        *minor = NVSHMEM_MINOR_VERSION;
}

void nvshmem_info_get_name(char *name)
{
    if (name != NULL)
        snprintf(name, NVSHMEM_MAX_NAME_LEN, "%s", NVSHMEM_VENDOR_STRING);
}

void nvshmem_global_exit(int status)
{
    fflush(NULL);
    _exit(status);
}
