/*
 * backend.c: the table of backends and the choice of a job's backend (backend.h).
 *
 * Adding a backend: one file defining `const pgas_backend pgas_backend_NAME`, its extern
 * declaration in backend.h, and one entry below. tests/test_backend.c runs every entry
 * through the seam's contract.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "shmemu/env.h"
#include "shmemu/pgas.h"

const pgas_backend *const pgas_backends[] = {
    &pgas_backend_threads,
    &pgas_backend_process,
    NULL,
};

/* Set only by tests (pgas_backend_use), read when a job starts. */
static _Atomic(const pgas_backend *) next_job_backend;

const pgas_backend *pgas_backend_find(const char *name)
{
    for (size_t i = 0; pgas_backends[i] != NULL; i++)
        if (strcmp(pgas_backends[i]->name, name) == 0)
            return pgas_backends[i];
    if (strcmp(name, "mpi") == 0)
        return pgas_backend_mpi(NULL, 0);
    return NULL;
}

/* The MPI backend, or exit with why it cannot be loaded. */
static const pgas_backend *mpi_or_exit(const char *why)
{
    char err[2048];
    const pgas_backend *b = pgas_backend_mpi(err, sizeof err);
    if (b != NULL)
        return b;
    fprintf(stderr, "shmemu: %s: %s\n", why, err);
    exit(2);
}

void pgas_backend_use(const pgas_backend *b) { atomic_store(&next_job_backend, b); }

const pgas_backend *pgas_backend_for_new_job(void)
{
    const pgas_backend *b = atomic_load(&next_job_backend);
    if (b != NULL)
        return b;
    const char *name = shmemu_env_get("SHMEMU_BACKEND");
    if (name == NULL || name[0] == '\0') {
        /* A program mpirun started is one rank of a job of MPI ranks. */
        if (pgas_started_by_mpirun())
            return mpi_or_exit("started by mpirun, so every rank is one PE (SHMEMU_BACKEND=mpi; "
                               "set SHMEMU_BACKEND=threads to run all PEs in each rank)");
        return pgas_backends[0];
    }
    if (strcmp(name, "mpi") == 0)
        return mpi_or_exit("SHMEMU_BACKEND=mpi");
    if ((b = pgas_backend_find(name)) != NULL)
        return b;
    fprintf(stderr, "shmemu: SHMEMU_BACKEND=%s: no such backend; use", name);
    for (size_t i = 0; pgas_backends[i] != NULL; i++)
        fprintf(stderr, "%s %s%s", i == 0 ? "" : ",", pgas_backends[i]->name,
                i == 0 ? " (the default)" : "");
    fprintf(stderr, ", mpi\n");
    exit(2);
}

const char *shmemu_backend_name(void) { return pgas_backend_for_new_job()->name; }
