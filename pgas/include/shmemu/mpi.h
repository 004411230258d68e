/*
 * shmemu/mpi.h: MPI beside shmemu on the MPI backend (docs/pgas.md, "The MPI backend").
 *
 * On the MPI backend (a program started by `mpirun -np N`, or SHMEMU_BACKEND=mpi) every PE
 * is an MPI rank and shmemu initializes MPI itself (MPI_THREAD_MULTIPLE where the library
 * gives it). A program that also speaks MPI, for its own messages beside the symmetric heap,
 * gets the job's communicator here: its rank r is PE r, and it holds exactly the job's PEs
 * (a job of fewer PEs than ranks runs on the first ranks). Include it only in code compiled
 * with MPI's headers (mpicc, or the flags of `pkg-config ompi-c`).
 */
#ifndef SHMEMU_MPI_H
#define SHMEMU_MPI_H

#include <mpi.h>

#include "shmemu/pgas.h" /* shmemu_mpi_job, shmemu_mpi_comm_handle */

#ifdef __cplusplus
extern "C" {
#endif

/* The communicator of the calling PE's job (rank == PE). Exits with a message naming the
 * backend when the job does not run on the MPI backend: check shmemu_mpi_job() first. The
 * communicator belongs to shmemu: do not free it. (The runtime is built without MPI's
 * headers; an Open MPI communicator is a pointer, handed through as one.) */
static inline MPI_Comm shmemu_mpi_comm(void) { return (MPI_Comm)shmemu_mpi_comm_handle(); }

#ifdef __cplusplus
}
#endif

#endif
