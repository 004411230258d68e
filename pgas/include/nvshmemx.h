/*
 * nvshmemx.h: NVSHMEM's extensions (the nvshmemx_ names) on CPU threads.
 *
 * Included by nvshmem.h; a program may include either or both, as with NVSHMEM.
 */
#ifndef SHMEMU_NVSHMEMX_H
#define SHMEMU_NVSHMEMX_H

#include "nvshmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bootstrap flags of nvshmemx_init_attr (NVSHMEM's values). */
enum flags {
    NVSHMEMX_INIT_THREAD_PES = 1,
    NVSHMEMX_INIT_WITH_MPI_COMM = 1 << 1,
    NVSHMEMX_INIT_WITH_SHMEM = 1 << 2,
    NVSHMEMX_INIT_WITH_UNIQUEID = 1 << 3
};

/* An opaque id that PEs share to join one job. In the threads backend it names the world the
 * calling thread belongs to; nvshmemx_get_uniqueid fills it, and nvshmemx_init_attr checks
 * that every PE passes the same one with its own rank. */
typedef struct {
    int version;
    char internal[124];
} nvshmemx_uniqueid_t;

#define NVSHMEMX_UNIQUEID_INITIALIZER {1, {0}}

typedef struct {
    int rank;
    int nranks;
    nvshmemx_uniqueid_t *uid;
} nvshmemx_uniqueid_args_t;

typedef struct {
    nvshmemx_uniqueid_args_t uid_args;
} nvshmemx_init_args_t;

typedef struct {
    void *mpi_comm;
    nvshmemx_init_args_t args;
} nvshmemx_init_attr_t;

#define NVSHMEMX_INIT_ATTR_INITIALIZER {NULL, {{0, 0, NULL}}}

/* Returns 0 on success. Accepted flags: 0, NVSHMEMX_INIT_THREAD_PES and
 * NVSHMEMX_INIT_WITH_UNIQUEID (rank and nranks must match this PE and the job).
 * NVSHMEMX_INIT_WITH_MPI_COMM and NVSHMEMX_INIT_WITH_SHMEM (bootstraps from an MPI or
 * OpenSHMEM job, which the threads backend has none of: its PEs are the threads shmemu-run
 * starts) print what to call instead and return non-zero, the PE left uninitialized. */
int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr);
int nvshmemx_get_uniqueid(nvshmemx_uniqueid_t *uniqueid);
int nvshmemx_set_attr_uniqueid_args(int myrank, int nranks, const nvshmemx_uniqueid_t *uniqueid,
                                    nvshmemx_init_attr_t *attr);
/* NVSHMEM's former names of nvshmem_init_thread and nvshmem_query_thread. */
int nvshmemx_init_thread(int requested, int *provided);
void nvshmemx_query_thread(int *provided);
/* One of NVSHMEM_STATUS_NOT_INITIALIZED, _IS_BOOTSTRAPPED, _IS_INITIALIZED for this PE. */
int nvshmemx_init_status(void);

/* Registers local memory [addr, addr+length) as an RMA source or destination buffer.
 * Returns 0, or non-zero (with a message) for overlapping or unknown buffers. */
int nvshmemx_buffer_register(void *addr, size_t length);
int nvshmemx_buffer_unregister(void *addr);
void nvshmemx_buffer_unregister_all(void);

/* Updates the signal word at sig_addr on PE pe: sig_op is NVSHMEM_SIGNAL_SET or _ADD. */
void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

#ifdef __cplusplus
}
#endif

#endif
