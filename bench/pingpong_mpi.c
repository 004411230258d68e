/*
 * pingpong_mpi.c: MPI_Send / MPI_Recv of 8 bytes between ranks 0 and 1, the CPU-initiated
 * baseline. Run under `mpirun -np 2 --bind-to core` (bench/run.sh records the exact line).
 */
#include <mpi.h>

#include "bench_common.h"

static void round_trip(int rank, uint64_t *msg)
{
    if (rank == 0) {
        MPI_Send(msg, 1, MPI_UINT64_T, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(msg, 1, MPI_UINT64_T, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(msg, 1, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        (*msg)++;
        MPI_Send(msg, 1, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong_mpi: needs exactly 2 ranks, got %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (bench_bound_core() < 0)
        fprintf(stderr, "pingpong_mpi: rank %d is not bound to one core (use --bind-to core)\n",
                rank);
    long iters = bench_ping_iters();
    size_t batches = (size_t)(iters / PING_BATCH);
    double *per_rt_ns = calloc(batches, sizeof *per_rt_ns);
    uint64_t msg = 0;
    int bad = 0;

    for (long i = 0; i < PING_WARMUP; i++)
        round_trip(rank, &msg);
    MPI_Barrier(MPI_COMM_WORLD);
    for (size_t b = 0; b < batches; b++) {
        uint64_t t0 = bench_now_ns();
        for (long i = 0; i < PING_BATCH; i++) {
            uint64_t sent = msg;
            round_trip(rank, &msg);
            bad |= rank == 0 && msg != sent + 1;
        }
        per_rt_ns[b] = (double)(bench_now_ns() - t0) / (double)PING_BATCH;
    }
    if (bad)
        fprintf(stderr, "pingpong_mpi: wrong value received\n");
    if (rank == 0 && !bad)
        bench_report_pingpong("mpi", per_rt_ns, batches);
    free(per_rt_ns);
    MPI_Finalize();
    return bad;
}
