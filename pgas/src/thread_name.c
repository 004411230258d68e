/*
 * thread_name.c: tells the race checkers which PE, block or stream each runtime thread is.
 *
 * helgrind, DRD and ThreadSanitizer name threads by numbers of their own ("thread #3",
 * "thread 3", "T3"). bin/shmemu-check turns them into "PE 1 host", "PE 0 kernel pack
 * block 2" or "PE 1 stream 0" (docs/checking.md):
 *  - TSan prints a thread's pthread name, and keeps the whole of it even where the kernel
 *    keeps 15 bytes: every runtime thread but the process's main one names itself.
 *  - Under valgrind with SHMEMU_THREAD_MAP=1, every runtime thread prints, when it attaches
 *    and before any access of the program, "shmemu-thread: #H drd D is NAME" into valgrind's
 *    log. D is DRD's number, asked of DRD (0 under helgrind); DRD reuses a number after a
 *    join, so the latest line for D before a report names its thread. H is helgrind's,
 *    which helgrind gives in the order threads are created (the main thread is #1) and does
 *    not tell: pgas_thread_create creates the runtime's threads one at a time under a lock
 *    that no checker sees (it must add no ordering between the creators: that would hide
 *    races), counts them, and hands each thread its number. Threads the program creates
 *    itself are not counted; shmemu-check notices from helgrind's creation stacks.
 * Without valgrind and SHMEMU_THREAD_MAP, pgas_thread_create is pthread_create.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/drd.h>

#include "internal.h"
#include "shmemu/env.h"
#include "shmemu/internal/checkers.h"

/* helgrind's number of this thread: 0 when unknown (not created by pgas_thread_create). */
static _Thread_local long helgrind_number;

/* The hidden creation lock and count: atomic exchanges only (an RMW is a read to helgrind,
 * relaxed gives TSan no edge) and ignored by DRD. */
static int create_lock;
static long threads_created = 1; /* helgrind's #1 is the main thread */

/* SHMEMU_THREAD_MAP under valgrind, read before main() (like SHMEMU_BUG): every thread
 * starts after it, so no checker sees a race on it. */
static bool map_on;

__attribute__((constructor)) static void thread_map_read(void)
{
    map_on = shmemu_under_valgrind() && shmemu_env_bool("SHMEMU_THREAD_MAP", false);
    if (map_on) {
        pgas_checker_ignore(&create_lock, sizeof create_lock);
        pgas_checker_ignore(&threads_created, sizeof threads_created);
    }
}

typedef struct {
    void *(*fn)(void *);
    void *arg;
    long number;
} start_box;

static void *numbered_start(void *arg)
{
    start_box box = *(start_box *)arg;
    free(arg);
    helgrind_number = box.number;
    return box.fn(box.arg);
}

/* Set while this thread is inside pgas_thread_create: in a program linked with
 * --shmemu-globals=shared the runtime's pthread_create is the program's too, wrapped
 * (app_thread.c), and the wrapper lets the runtime's own threads through. */
static _Thread_local bool creating;

bool pgas_thread_creating_runtime(void) { return creating; }

static int create_numbered(pthread_t *thread, const pthread_attr_t *attr,
                           void *(*fn)(void *), void *arg);

int pgas_thread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *),
                       void *arg)
{
    creating = true;
    int rc = create_numbered(thread, attr, fn, arg);
    creating = false;
    return rc;
}

static int create_numbered(pthread_t *thread, const pthread_attr_t *attr,
                           void *(*fn)(void *), void *arg)
{
    if (!map_on)
        return pthread_create(thread, attr, fn, arg);
    start_box *box = malloc(sizeof *box);
    if (box == NULL)
        return pthread_create(thread, attr, fn, arg);
    box->fn = fn;
    box->arg = arg;
    while (__atomic_exchange_n(&create_lock, 1, __ATOMIC_RELAXED) != 0)
        sched_yield();
    box->number = __atomic_add_fetch(&threads_created, 1, __ATOMIC_RELAXED);
    int rc = pthread_create(thread, attr, numbered_start, box);
    if (rc != 0) {
        __atomic_sub_fetch(&threads_created, 1, __ATOMIC_RELAXED);
        free(box);
    }
    (void)__atomic_exchange_n(&create_lock, 0, __ATOMIC_RELAXED);
    return rc;
}

void pgas_thread_name_self(int pe, const char *label)
{
    char name[96];
    snprintf(name, sizeof name, "PE %d %s", pe, label != NULL ? label : "host");
    bool main_thread = getpid() == gettid();
    if (!main_thread) {
        /* the kernel keeps 15 bytes (ps, gdb); TSan keeps the second, whole name */
        char shortname[16];
        memcpy(shortname, name, sizeof shortname - 1);
        shortname[sizeof shortname - 1] = '\0';
        (void)pthread_setname_np(pthread_self(), shortname);
        (void)pthread_setname_np(pthread_self(), name);
    }
    if (map_on) {
        long number = main_thread ? 1 : helgrind_number;
        VALGRIND_PRINTF("shmemu-thread: #%ld drd %d is %s\n", number, (int)DRD_GET_DRD_THREADID,
                        name);
    }
}
