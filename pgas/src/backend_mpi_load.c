/*
 * backend_mpi_load.c: finds the MPI backend's plugin and hands its table to the runtime.
 *
 * The MPI backend (pgas/mpi/backend_mpi.c) is a shared object of its own, linked with Open
 * MPI, so that only a job on it loads MPI: no program, test or sanitizer build of shmemu
 * links it otherwise. It is looked for in SHMEMU_MPI_PLUGIN (a path), else beside the
 * shared libshmemu.so that holds this code (an install moved with DESTDIR, or copied), else in
 * the library folders this runtime was built for (the build's lib/ and the install's
 * PREFIX/lib, SHMEMU_PLUGIN_DIRS from the Makefile). The plugin calls nothing of the runtime; the one
 * operation it needs from here, waking this process's parked threads, is filled in below.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "shmemu/env.h"

#ifndef SHMEMU_PLUGIN_DIRS
#define SHMEMU_PLUGIN_DIRS ""
#endif
#define PLUGIN_NAME "libshmemu_mpi.so"

static pgas_backend loaded;
static const pgas_backend *loaded_ok;
static char load_error[2048];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void *open_plugin(void)
{
    const char *path = shmemu_env_get("SHMEMU_MPI_PLUGIN");
    if (path != NULL && path[0] != '\0') {
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (h == NULL)
            snprintf(load_error, sizeof load_error, "SHMEMU_MPI_PLUGIN=%s cannot be loaded: %s",
                     path, dlerror());
        return h;
    }
    char dirs[1536];
    snprintf(dirs, sizeof dirs, "%s", SHMEMU_PLUGIN_DIRS);
    Dl_info self;
    if (dladdr((void *)pgas_backend_mpi, &self) != 0 && self.dli_fname != NULL &&
        strstr(self.dli_fname, ".so") != NULL) {
        const char *slash = strrchr(self.dli_fname, '/');
        if (slash != NULL)
            snprintf(dirs, sizeof dirs, "%.*s:%s", (int)(slash - self.dli_fname), self.dli_fname,
                     SHMEMU_PLUGIN_DIRS);
    }
    char *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d != NULL; d = strtok_r(NULL, ":", &save)) {
        char file[1664];
        snprintf(file, sizeof file, "%s/%s", d, PLUGIN_NAME);
        void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
        if (h != NULL)
            return h;
        const char *why = dlerror();
        if (why != NULL && strstr(why, "No such file") == NULL) {
            snprintf(load_error, sizeof load_error, "%s cannot be loaded: %s", file, why);
            return NULL;
        }
    }
    snprintf(load_error, sizeof load_error,
             "no MPI backend plugin (%s) in %s; `make libs` builds it where Open MPI's mpicc "
             "is found (Debian: apt-get install libopenmpi-dev openmpi-bin), or set "
             "SHMEMU_MPI_PLUGIN to the plugin's path",
             PLUGIN_NAME, SHMEMU_PLUGIN_DIRS[0] != '\0' ? SHMEMU_PLUGIN_DIRS : "(no folder)");
    return NULL;
}

static void load(void)
{
    void *h = open_plugin();
    if (h == NULL)
        return;
    const pgas_backend *table = dlsym(h, "pgas_backend_mpi_plugin");
    if (table == NULL) {
        snprintf(load_error, sizeof load_error, "%s has no MPI backend table (%s); rebuild shmemu",
                 PLUGIN_NAME, dlerror());
        return;
    }
    loaded = *table;
    /* Threads of this process that wait on a word this process wrote: park.c's wake-ups.
     * Waiters in other processes poll (park.c: a ranks job sleeps briefly). */
    loaded.wake = pgas_backend_threads.wake;
    loaded_ok = &loaded;
}

const pgas_backend *pgas_backend_mpi(char *err, size_t err_len)
{
    pthread_once(&load_once, load);
    if (loaded_ok == NULL && err != NULL)
        snprintf(err, err_len, "%s", load_error);
    return loaded_ok;
}

/* ---- shmemu/mpi.h -------------------------------------------------------------------- */

int shmemu_mpi_job(void)
{
    const pgas_thread *t = pgas_current();
    return t != NULL && t->world->backend->job_comm != NULL;
}

void *shmemu_mpi_comm_handle(void)
{
    const char *call = "shmemu_mpi_comm";
    const pgas_thread *t = pgas_require(call);
    void *comm = t->world->backend->job_comm != NULL ? t->world->backend->job_comm() : NULL;
    if (comm == NULL)
        pgas_fail(call, "this job runs on the %s backend, where PEs are not MPI ranks; start "
                        "the program with mpirun -np N (or SHMEMU_BACKEND=mpi)",
                  t->world->backend->name);
    return comm;
}
