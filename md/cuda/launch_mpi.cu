/*
 * md/cuda/launch_mpi.cu: the CUDA build of the MD app started by mpirun (docs/gpu.md,
 * "Starting with mpirun"): `mpirun -np N build/cuda-md/shmemu-md --pes N ...`.
 *
 * Every MPI rank is one PE: PE r is MPI_COMM_WORLD rank r, on GPU (node-local rank mod the
 * node's GPU count), and NVSHMEM bootstraps through MPI (NVSHMEMX_INIT_WITH_MPI_COMM, the MPI
 * bootstrap plugin NVSHMEM ships, nvshmem_bootstrap_mpi.so), as NVSHMEM programs launched by
 * mpirun do. The parallel driver is the same as under the fork launcher: md_par_run calls
 * shmemu_launch(pes, pe_main, job) on every rank, pe_main runs once per rank.
 *
 * Only rank 0 speaks for the run: the other ranks' stdout goes to /dev/null from the start
 * (a constructor: the header lines are printed before the run), and after the run they exit
 * inside shmemu_launch with the job's status, so that only rank 0 prints the results, which
 * PE 0 holds. Errors on any rank still reach stderr, naming the PE.
 *
 * Built only where mpicxx is found (md/cuda.mk defines SHMEMU_WITH_MPI); without it,
 * launch.cu refuses a run under mpirun with a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <mpi.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include "md/cuda/launch.h"

__attribute__((constructor)) static void md_cuda_quiet_other_ranks(void)
{
    if (md_cuda_mpirun_rank() > 0 && freopen("/dev/null", "w", stdout) == NULL)
        fprintf(stderr, "%s (CUDA): rank %d: cannot silence stdout\n", md_cuda_prog(),
                md_cuda_mpirun_rank());
}

static void md_cuda_mpi_finalize(void)
{
    int done = 0;
    MPI_Finalized(&done);
    if (!done)
        MPI_Finalize();
}

int md_cuda_launch_mpi(int n_pes, int (*fn)(void *), void *arg)
{
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        MPI_Init(NULL, NULL);
        atexit(md_cuda_mpi_finalize);
    }
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != n_pes) {
        if (rank == 0)
            fprintf(stderr, "%s (CUDA): mpirun started %d ranks, but this run has %d PEs "
                    "(--pes, --dd): start it with mpirun -np %d\n", md_cuda_prog(), size, n_pes,
                    n_pes);
        if (rank != 0)
            exit(1);
        return 1;
    }
    /* The GPU: this rank's place among the ranks of its node. */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int local = 0, local_n = 1;
    MPI_Comm_rank(node, &local);
    MPI_Comm_size(node, &local_n);
    MPI_Comm_free(&node);
    int rc = md_cuda_select_gpu(rank, local, local_n);
    setenv("NVSHMEM_DISABLE_NVLS", "1", 1); /* never NVLink multicast (shared hosts) */
    if (rc == 0) {
        MPI_Comm world = MPI_COMM_WORLD;
        nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
        attr.mpi_comm = &world;
        if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr) != 0) {
            fprintf(stderr, "%s (CUDA): PE %d: NVSHMEM's MPI bootstrap failed; "
                    "NVSHMEM_DEBUG=INFO says why (NVSHMEM_BOOTSTRAP_MPI_PLUGIN names the "
                    "plugin built for this MPI)\n", md_cuda_prog(), rank);
            rc = 1;
        } else if (nvshmem_my_pe() != rank || nvshmem_n_pes() != n_pes) {
            fprintf(stderr, "%s (CUDA): PE %d: NVSHMEM says PE %d of %d; report it\n",
                    md_cuda_prog(), rank, nvshmem_my_pe(), nvshmem_n_pes());
            rc = 1;
        }
    }
    /* A rank that could not start must not leave the others waiting in NVSHMEM's init:
     * agree first, then run. */
    int any_failed = 0;
    MPI_Allreduce(&rc, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_failed == 0)
        rc = md_cuda_pe_run(rank, fn, arg);
    int *all = (int *)calloc((size_t)size, sizeof *all);
    MPI_Allgather(&rc, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    int status = 0;
    for (int r = 0; r < size && status == 0; r++)
        status = all[r];
    for (int r = 1; r < size && rank == 0; r++)
        if (all[r] != 0)
            fprintf(stderr, "%s (CUDA): PE %d exited with status %d\n", md_cuda_prog(), r, all[r]);
    free(all);
    if (rank != 0) {
        fflush(NULL);
        exit(status & 0x7f);
    }
    return status;
}
