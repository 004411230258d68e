/*
 * wrap_pthread.c: the program's pthread_create and pthread_join, linked into it by
 * bin/shmemu-cc with -Wl,--wrap=pthread_create,--wrap=pthread_join (libshmemu_app.a;
 * shmemu/internal/app_thread.h says why). The real functions (__real_X: libc's, or a
 * sanitizer's interceptor) are handed to the runtime, which calls them.
 */
#include "shmemu/internal/app_thread.h"

int __real_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                          void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                          void *(*fn)(void *), void *arg);

int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                          void *(*fn)(void *), void *arg)
{
    return shmemu_app_pthread_create(__real_pthread_create, thread, attr, fn, arg);
}

int __real_pthread_join(pthread_t thread, void **result);
int __wrap_pthread_join(pthread_t thread, void **result);

int __wrap_pthread_join(pthread_t thread, void **result)
{
    return shmemu_app_pthread_join(__real_pthread_join, thread, result);
}
