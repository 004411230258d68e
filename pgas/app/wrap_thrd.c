/*
 * wrap_thrd.c: the program's C11 thrd_create and thrd_join, linked into it by bin/shmemu-cc
 * with -Wl,--wrap=thrd_create,--wrap=thrd_join (libshmemu_app.a; shmemu/internal/app_thread.h
 * says why). A file of its own, so that only programs that call them pull it in.
 */
#include "shmemu/internal/app_thread.h"

int __real_thrd_create(thrd_t *thread, thrd_start_t fn, void *arg);
int __wrap_thrd_create(thrd_t *thread, thrd_start_t fn, void *arg);

int __wrap_thrd_create(thrd_t *thread, thrd_start_t fn, void *arg)
{
    return shmemu_app_thrd_create(__real_thrd_create, thread, fn, arg);
}

int __real_thrd_join(thrd_t thread, int *result);
int __wrap_thrd_join(thrd_t thread, int *result);

int __wrap_thrd_join(thrd_t thread, int *result)
{
    return shmemu_app_thrd_join(__real_thrd_join, thread, result);
}
