/*
 * app_thread.c: threads that the program creates on a PE belong to that PE.
 *
 * OpenSHMEM's thread levels let any thread of a PE call the library (SHMEM_THREAD_MULTIPLE):
 * a thread the program creates acts for the PE whose thread created it. bin/shmemu-cc links
 * the program with --wrap for pthread_create, thrd_create and libgomp's parallel-region
 * entry points (pgas/app/, shmemu/internal/app_thread.h), and those wrappers call here:
 *  - pthread_create and thrd_create: the new thread starts in app_main, which attaches it to
 *    its creator's PE (world.c, as the emulator's block threads attach), runs the program's
 *    function and detaches when the function returns, or through a cleanup handler when the
 *    thread exits (pthread_exit, thrd_exit) or is cancelled. A thread created by such a
 *    thread belongs to the same PE.
 *  - OpenMP: libgomp creates its workers itself, so the wrapper hands libgomp a box instead
 *    of the region's function; every thread of the team runs region_run, where a worker
 *    attaches to the PE for the region and detaches at its end. A worker keeps its record
 *    from region to region (libgomp reuses its threads), so a loop of regions does not grow
 *    the job.
 * The runtime's own threads (PE threads, the emulator's blocks and streams) are created
 * through pgas_thread_create, which the wrappers let through (pgas_thread_creating_runtime),
 * as are threads created outside any PE.
 *
 * Invariants. Attaching and detaching add no happens-before edge of their own (relaxed
 * counters, world.c): the checkers see the program's creation and join only (docs/design.md
 * D4). world->app_threads counts created threads that have not finished, so that the job's
 * records outlive the job while any still runs (world.c's launch): a call after the PE's
 * finalize, or after its main returned, is misuse with a message (pgas_require), never a use
 * after free.
 *
 * The deterministic scheduler (SHMEMU_SCHED, sched.c; shmemu-check's TSan runs) schedules a
 * thread from pthread_create or thrd_create as it schedules the emulator's: the creator waits
 * until the new thread is registered (spawn mark and wait), and the thread leaves the
 * schedule through an exit flag that the wrapped pthread_join and thrd_join wait for as a
 * sync point before they block, so that a join does not hold the turn the joined thread
 * needs. Such a thread may synchronize with the others only through SHMEM calls and joins
 * by its creator: a mutex or condition variable held across the turn would deadlock, and so
 * would a join by another thread. The starts wait on their creator's record (touched by it
 * alone) until it joins them, or until the job ends. OpenMP's workers
 * wait for each other in libgomp, out of the scheduler's sight, so under the scheduler they
 * are not attached: they run free of it, which is safe while they make no SHMEM call, and a
 * call is refused with a message saying so (error.c).
 *
 * Under valgrind a thread gets a stack of its own (unless the program gave one): glibc
 * hands a dead thread's cached stack and TLS to the next pthread_create of any PE, under a
 * lock helgrind and DRD do not see, and they would report the reuse as a race between PEs
 * (the emulator's blocks avoid glibc's cache the same way, emu/src/launch.c). Those stacks
 * are not unmapped: they stay until the process ends, under valgrind only.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "nvshmem.h"
#include "shmemu/internal/app_thread.h"
#include "shmemu/internal/checkers.h"
#include "shmemu/internal/pgas_emu.h"

static const char *const sched_reason =
    "an OpenMP thread, which belongs to no PE while the deterministic scheduler runs "
    "(SHMEMU_SCHED): libgomp's threads wait for each other where the scheduler cannot see. "
    "Make SHMEM calls outside the parallel region (or from pthread_create's threads), or run "
    "without SHMEMU_SCHED";

typedef struct pgas_app_start app_start;

/* A program thread of PE pe starts (+1) or ends (-1). In checking mode, before a thread
 * starts, the creating thread completes its queued default-context operations: while the
 * PE's threads run, its default-context puts are delivered at once (internal.h,
 * program_threads), and a quiet by the new thread could not complete what the creator had
 * queued. (Only the count's first step from 0 can find anything queued; later creations
 * find the queue empty.) Outside checking mode nothing is ever queued. */
static void program_threads_add(pgas_world *world, int pe, int delta)
{
    if (delta > 0 && world->config.check_nbi) {
        pgas_thread *self = pgas_current();
        if (self != NULL && self->q == &self->queue)
            pgas_quiet(self);
    }
    atomic_fetch_add_explicit(&world->pes[pe].program_threads, delta, memory_order_relaxed);
}

/* The box for a thread that the calling thread creates, or NULL: pass the call through. */
static app_start *app_start_new(const char *call)
{
    const pgas_thread *self = pgas_current();
    if (self == NULL || pgas_thread_creating_runtime())
        return NULL;
    app_start *s = malloc(sizeof *s);
    if (s == NULL) {
        fprintf(stderr, "shmemu: PE %d: %s: out of memory creating a thread\n", self->pe,
                call);
        exit(2);
    }
    s->parent = self;
    s->world = self->world;
    s->pe = self->pe;
    s->fn = NULL;
    s->c11_fn = NULL;
    s->arg = NULL;
    s->scheduled = self->world->sched != NULL;
    s->exited = 0;
    s->next = NULL;
    atomic_fetch_add_explicit(&self->world->app_threads, 1, memory_order_relaxed);
    program_threads_add(self->world, self->pe, 1);
    return s;
}

/* What a thread needs to leave its PE, on its own stack (the start may be freed). */
typedef struct app_exit {
    pgas_world *world;
    int pe;
    uint32_t *exited; /* deterministic mode: the start's flag, else NULL */
} app_exit;

static void app_leave(void *arg)
{
    const app_exit *x = arg;
    pgas_world *world = x->world;
    if (x->exited != NULL)
        pgas_thread_detach_notify(x->exited); /* hands the turn on for good */
    else
        pgas_thread_detach();
    program_threads_add(world, x->pe, -1);
    /* last: once no thread is left, launch may free the job */
    atomic_fetch_sub_explicit(&world->app_threads, 1, memory_order_relaxed);
}

static void *app_main(void *arg)
{
    app_start *start = arg;
    /* the fields the creator wrote before pthread_create (tid and next, which it writes
     * after, are its own: app_start_thread) */
    const pgas_thread *parent = start->parent;
    int pe = start->pe;
    void *(*fn)(void *) = start->fn;
    thrd_start_t c11_fn = start->c11_fn;
    void *fn_arg = start->arg;
    app_exit x = {start->world, pe, start->scheduled ? &start->exited : NULL};
    if (!start->scheduled)
        free(start);
    if (pgas_thread_attach_app(parent, pe, c11_fn != NULL ? "thrd" : "pthread", NULL) != 0)
        abort(); /* the creator's PE exists: attach cannot fail */
    void *result;
    pthread_cleanup_push(app_leave, &x);
    if (c11_fn != NULL)
        result = (void *)(intptr_t)c11_fn(fn_arg); /* what glibc's thrd_join reads back */
    else
        result = fn(fn_arg);
    pthread_cleanup_pop(1);
    return result;
}

/* Under valgrind, attr with a stack of the thread's own (see the top): in *own, which the
 * caller destroys; returns attr itself when the program gave a stack or outside valgrind. */
static const pthread_attr_t *own_stack(const pthread_attr_t *attr, pthread_attr_t *own,
                                       bool *made)
{
    *made = false;
    if (!shmemu_under_valgrind())
        return attr;
    size_t bytes = (size_t)8 << 20;
    if (attr != NULL) {
        void *given = NULL;
        size_t given_bytes = 0;
        if (pthread_attr_getstack(attr, &given, &given_bytes) == 0 && given != NULL)
            return attr; /* the program's own stack: glibc does not cache it */
        pthread_attr_getstacksize(attr, &bytes);
    }
    long page_size = sysconf(_SC_PAGESIZE);
    size_t page = page_size > 0 ? (size_t)page_size : 4096;
    bytes = (bytes + page - 1) / page * page;
    char *map = mmap(NULL, bytes + page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (map == MAP_FAILED)
        return attr;
    mprotect(map, page, PROT_NONE); /* a guard page below the stack */
    if (attr != NULL)
        *own = *attr; /* the program's settings; never destroyed: it shares their storage */
    else
        pthread_attr_init(own);
    pthread_attr_setstack(own, map + page, bytes);
    *made = attr == NULL;
    return own;
}

/* Starts s's thread with pgas_thread_create; in deterministic mode, registered before the
 * creator goes on, and its start put on the creator's list for the joins. */
static int app_start_thread(app_start *s, pthread_t *thread, const pthread_attr_t *attr)
{
    pthread_attr_t own;
    bool made;
    const pthread_attr_t *use = own_stack(attr, &own, &made);
    bool scheduled = s->scheduled; /* free-running, the thread frees s: read it first */
    uint32_t mark = pgas_sched_spawn_mark();
    int rc = pgas_thread_create(thread, use, app_main, s);
    if (made)
        pthread_attr_destroy(&own);
    if (rc != 0) {
        program_threads_add(s->world, s->pe, -1);
        atomic_fetch_sub_explicit(&s->world->app_threads, 1, memory_order_relaxed);
        free(s);
        return rc;
    }
    if (scheduled) { /* only this thread reads s->tid and s->next */
        pgas_thread *self = pgas_current();
        s->tid = *thread;
        s->next = self->app_started;
        self->app_started = s;
    }
    pgas_sched_spawn_wait(mark);
    return 0;
}

/* Before a join blocks: in deterministic mode, when the calling thread created the thread,
 * wait (a sync point) until it has left the schedule, so that the joiner does not hold the
 * turn that thread needs. Returns the thread's start, off the list, for the caller to free
 * once the join has returned; else NULL. */
static app_start *app_before_join(pthread_t thread, const char *call)
{
    pgas_thread *self = pgas_current();
    if (self == NULL || self->app_started == NULL)
        return NULL;
    for (app_start **link = &self->app_started; *link != NULL; link = &(*link)->next) {
        app_start *s = *link;
        if (pthread_equal(s->tid, thread)) {
            pgas_wait_value(&s->exited, PGAS_KIND_U32, NVSHMEM_CMP_NE, 0, PGAS_RELAXED, call);
            *link = s->next;
            return s;
        }
    }
    return NULL;
}

int shmemu_app_pthread_create(shmemu_pthread_create_fn real, pthread_t *thread,
                              const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    app_start *s = app_start_new("pthread_create");
    if (s == NULL)
        return real(thread, attr, fn, arg);
    s->fn = fn;
    s->arg = arg;
    return app_start_thread(s, thread, attr);
}

int shmemu_app_pthread_join(shmemu_pthread_join_fn real, pthread_t thread, void **result)
{
    app_start *s = app_before_join(thread, "pthread_join");
    int rc = real(thread, result);
    free(s); /* after the join: the thread's last touch of it happens before */
    return rc;
}

/* glibc's thrd_join is pthread_join plus a conversion; the join is made through pthread_join
 * (real is not called), because ThreadSanitizer intercepts pthread_join and not thrd_join,
 * and would miss the join's ordering. */
int shmemu_app_thrd_join(shmemu_thrd_join_fn real, thrd_t thread, int *result)
{
    (void)real;
    app_start *s = app_before_join((pthread_t)thread, "thrd_join");
    void *value = NULL;
    int rc = pthread_join((pthread_t)thread, &value);
    free(s);
    if (rc == 0 && result != NULL)
        *result = (int)(intptr_t)value;
    return rc == 0 ? thrd_success : thrd_error;
}

int shmemu_app_thrd_create(shmemu_thrd_create_fn real, thrd_t *thread, thrd_start_t fn,
                           void *arg)
{
    _Static_assert(sizeof(thrd_t) == sizeof(pthread_t), "glibc's thrd_t is a pthread_t");
    app_start *s = app_start_new("thrd_create");
    if (s == NULL)
        return real(thread, fn, arg);
    s->c11_fn = fn;
    s->arg = arg;
    int rc = app_start_thread(s, (pthread_t *)thread, NULL);
    return rc == 0 ? thrd_success : rc == ENOMEM || rc == EAGAIN ? thrd_nomem : thrd_error;
}

/* ---- OpenMP parallel regions --------------------------------------------------------- */

typedef struct app_region {
    const pgas_thread *parent;
    int pe;
    void (*fn)(void *);
    void *data;
} app_region;

/* A libgomp worker's record, kept from region to region: the same pthread takes it over,
 * so reuse orders nothing that the thread itself does not. */
static _Thread_local pgas_thread *worker_record;

void *shmemu_app_region_begin(void (*fn)(void *), void *data)
{
    const pgas_thread *self = pgas_current();
    if (self == NULL)
        return NULL;
    app_region *r = malloc(sizeof *r);
    if (r == NULL) {
        fprintf(stderr, "shmemu: PE %d: out of memory starting an OpenMP parallel region\n",
                self->pe);
        exit(2);
    }
    *r = (app_region){.parent = self, .pe = self->pe, .fn = fn, .data = data};
    program_threads_add(self->world, self->pe, 1);
    return r;
}

void shmemu_app_region_run(void *box)
{
    const app_region *r = box;
    if (pgas_current() != NULL) { /* the thread that started the region, or a nested one's */
        r->fn(r->data);
        return;
    }
    if (r->parent->world->sched != NULL) {
        pgas_set_no_pe_reason(sched_reason, r->parent);
        r->fn(r->data);
        pgas_set_no_pe_reason(NULL, NULL);
        return;
    }
    if (pgas_thread_attach_app(r->parent, r->pe, "OpenMP thread", &worker_record) != 0)
        abort(); /* the starter's PE exists: attach cannot fail */
    r->fn(r->data);
    pgas_thread_detach();
}

void shmemu_app_region_end(void *box)
{
    if (box == NULL)
        return;
    const app_region *r = box;
    program_threads_add(r->parent->world, r->pe, -1);
    free(box);
}
