/*
 * md/cuda/launch.h: the two ways the CUDA build starts its PEs (shmemu_launch, launch.cu):
 * forked processes bootstrapped with a unique id (launch.cu), or the MPI ranks mpirun started,
 * bootstrapped through MPI (launch_mpi.cu). Internal to the CUDA builds of md and cg (cg/cuda.mk
 * compiles these files too).
 */
#ifndef MD_CUDA_LAUNCH_H
#define MD_CUDA_LAUNCH_H

#include <errno.h>

/* The program's name for messages: both apps' CUDA builds (shmemu-md, shmemu-cg) link this
 * launcher (glibc's program_invocation_short_name). */
static inline const char *md_cuda_prog(void) { return program_invocation_short_name; }

/* Runs fn on this process's PE, checks for a CUDA error it left behind, and finalizes
 * NVSHMEM (launch.cu). Returns fn's status, or 1 for a CUDA error. */
int md_cuda_pe_run(int rank, int (*fn)(void *), void *arg);

/* Selects GPU (index mod the GPU count) for PE pe, one of `sharing` PEs that share this
 * machine's GPUs (index 0 warns when there are fewer GPUs than that). Returns 0, or 1 with a
 * message naming the PE (launch.cu). */
int md_cuda_select_gpu(int pe, int index, int sharing);

/* This process's rank when mpirun (Open MPI, or a PMIx/PMI launcher) started it, from the
 * launcher's environment; -1 otherwise (launch.cu). */
int md_cuda_mpirun_rank(void);

/* shmemu_launch for a process started by mpirun: this rank is PE MPI_COMM_WORLD rank; n_pes
 * must equal the number of ranks. Rank 0 returns the job's status (the first non-zero status
 * in rank order, or 0); every other rank exits with it here, so that only rank 0 goes on to
 * print the run's results (launch_mpi.cu). */
int md_cuda_launch_mpi(int n_pes, int (*fn)(void *), void *arg);

#endif
