/*
 * shmemu/internal/app_thread.h: the contract between the runtime (pgas/src/app_thread.c) and
 * the thread-creation wrappers that bin/shmemu-cc links into the program (pgas/app/, the
 * archive libshmemu_app.a; not installed as a header).
 *
 * A thread that a PE's code creates belongs to that PE. shmemu-cc links the program with
 * --wrap of pthread_create, pthread_join, thrd_create, thrd_join and libgomp's entry points for
 * parallel regions, so the program's own calls reach the wrappers (__wrap_X), which hand the
 * real function (__real_X) to these calls. The runtime's own threads are created through
 * pgas_thread_create and pass through untouched, as do threads created outside any PE.
 * Nothing here adds ordering between threads beyond the creation itself (docs/design.md D4).
 */
#ifndef SHMEMU_INTERNAL_APP_THREAD_H
#define SHMEMU_INTERNAL_APP_THREAD_H

#include <pthread.h>
#include <threads.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*shmemu_pthread_create_fn)(pthread_t *, const pthread_attr_t *,
                                        void *(*)(void *), void *);
typedef int (*shmemu_thrd_create_fn)(thrd_t *, thrd_start_t, void *);
typedef int (*shmemu_pthread_join_fn)(pthread_t, void **);
typedef int (*shmemu_thrd_join_fn)(thrd_t, int *);

/* pthread_create on behalf of the program: the new thread runs fn(arg) attached to the
 * creator's PE, and leaves the PE when fn returns or the thread exits. real is called when
 * the creator belongs to no PE, or is the runtime creating its own thread. */
int shmemu_app_pthread_create(shmemu_pthread_create_fn real, pthread_t *thread,
                              const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
/* thrd_create on behalf of the program, the same way (thrd_t is pthread_t in glibc). */
int shmemu_app_thrd_create(shmemu_thrd_create_fn real, thrd_t *thread, thrd_start_t fn,
                           void *arg);
/* pthread_join and thrd_join on behalf of the program: under the deterministic scheduler
 * they first wait, as a sync point, until the joined thread has left the schedule; then
 * they join (thrd_join through pthread_join, which ThreadSanitizer intercepts). */
int shmemu_app_pthread_join(shmemu_pthread_join_fn real, pthread_t thread, void **result);
int shmemu_app_thrd_join(shmemu_thrd_join_fn real, thrd_t thread, int *result);

/* An OpenMP parallel region (or teams region) that a PE starts: region_begin returns a box
 * to hand to libgomp in place of (fn, data), with shmemu_app_region_run as the function, or
 * NULL when the caller belongs to no PE (then pass fn and data on unchanged). Each thread of
 * the team runs shmemu_app_region_run(box): the PE's own thread runs fn(data) as it is, a
 * worker attaches to the PE for fn(data) and leaves it after. region_end frees the box once
 * the region has ended. */
void *shmemu_app_region_begin(void (*fn)(void *), void *data);
void shmemu_app_region_run(void *box);
void shmemu_app_region_end(void *box);

#ifdef __cplusplus
}
#endif

#endif
