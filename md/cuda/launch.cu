/*
 * md/cuda/launch.cu: shmemu_launch (shmemu/pgas.h) for the CUDA build: one process per PE,
 * one GPU each, NVSHMEM bootstrapped with a unique id. Both apps' CUDA builds link it (md/cuda.mk,
 * cg/cuda.mk); messages name the program (md_cuda_prog).
 *
 * The parallel driver (md/src/par.c) is the same source as on the CPU: md_par_run calls
 * shmemu_launch(pes, pe_main, job), and pe_main calls nvshmem_init() and
 * nvshmem_finalize() itself. Here:
 *   - PEs 1 .. n-1 are forked children; PE 0 stays in the calling process, so what pe_main
 *     writes into the job on PE 0 (the result, the error) is where md_par_run reads it.
 *     The fork comes before any CUDA call in any process (a forked CUDA context is unusable).
 *   - PE 0 selects GPU 0, takes a unique id (nvshmemx_get_uniqueid) and writes it into one
 *     pipe per child; PE r selects GPU r (r mod the GPU count, with a warning when PEs share
 *     one) and initializes NVSHMEM with the id (NVSHMEMX_INIT_WITH_UNIQUEID) before fn.
 *     pe_main's own nvshmem_init() is then a nested call, which NVSHMEM allows (each init
 *     matched by a finalize).
 *   - NVLink multicast stays off (NVSHMEM_DISABLE_NVLS=1, set before initialization).
 * Returns 0 when every PE returned 0, else the first non-zero status in PE order (a child
 * killed by a signal counts as 128 + the signal).
 *
 * Under mpirun (an Open MPI, PMIx or PMI rank in the environment) nothing is forked: every
 * rank is one PE and NVSHMEM bootstraps through MPI (launch_mpi.cu).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include "md/cuda/launch.h"
#include "shmemu/pgas.h"

int md_cuda_mpirun_rank(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *v = getenv(names[i]);
        if (v != NULL && v[0] != '\0')
            return atoi(v);
    }
    return -1;
}

int md_cuda_select_gpu(int pe, int index, int sharing)
{
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev < 1) {
        fprintf(stderr, "%s (CUDA): PE %d: no GPU (%s); run the CUDA build on a GPU "
                "machine, or bin/%s on a CPU\n", md_cuda_prog(), pe,
                e != cudaSuccess ? cudaGetErrorString(e) : "0 devices", md_cuda_prog());
        return 1;
    }
    if (index == 0 && sharing > ndev)
        fprintf(stderr, "%s (CUDA): warning: %d PEs on %d GPUs: PEs share GPUs (run them "
                "under MPS; docs/gpu.md)\n", md_cuda_prog(), sharing, ndev);
    if ((e = cudaSetDevice(index % ndev)) != cudaSuccess) {
        fprintf(stderr, "%s (CUDA): PE %d: cudaSetDevice(%d): %s\n", md_cuda_prog(), pe,
                index % ndev, cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

/* Selects the PE's GPU and initializes NVSHMEM with the shared id. Returns 0 or 1. */
static int md_cuda_pe_start(int rank, int n_pes, nvshmemx_uniqueid_t *id)
{
    if (md_cuda_select_gpu(rank, rank, n_pes) != 0)
        return 1;
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    int rc = nvshmemx_set_attr_uniqueid_args(rank, n_pes, id, &attr);
    if (rc == 0)
        rc = nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
    if (rc != 0) {
        fprintf(stderr, "%s (CUDA): PE %d: NVSHMEM initialization with the unique id "
                "failed (%d); NVSHMEM_DEBUG=INFO says why\n", md_cuda_prog(), rank, rc);
        return 1;
    }
    if (nvshmem_my_pe() != rank || nvshmem_n_pes() != n_pes) {
        fprintf(stderr, "%s (CUDA): PE %d: NVSHMEM says PE %d of %d; report it\n",
                md_cuda_prog(), rank, nvshmem_my_pe(), nvshmem_n_pes());
        return 1;
    }
    return 0;
}

/* Runs fn on this process's PE; reports a CUDA error left behind. */
int md_cuda_pe_run(int rank, int (*fn)(void *), void *arg)
{
    int rc = fn(arg);
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e != cudaSuccess) {
        fprintf(stderr, "%s (CUDA): PE %d: CUDA error: %s\n", md_cuda_prog(), rank,
                cudaGetErrorString(e));
        if (rc == 0)
            rc = 1;
    }
    nvshmem_finalize();
    return rc;
}

static int md_cuda_read_all(int fd, void *buf, size_t bytes)
{
    char *p = (char *)buf;
    while (bytes > 0) {
        ssize_t n = read(fd, p, bytes);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        bytes -= (size_t)n;
    }
    return 0;
}

static int md_cuda_write_all(int fd, const void *buf, size_t bytes)
{
    const char *p = (const char *)buf;
    while (bytes > 0) {
        ssize_t n = write(fd, p, bytes);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        bytes -= (size_t)n;
    }
    return 0;
}

/* Every PE of the CUDA build is a process (forked here, or an MPI rank). */
extern "C" const char *shmemu_backend_name(void) { return "process"; }

/* shmemu/pgas.h's: this process's rank when mpirun started it (every rank one PE,
 * launch_mpi.cu), else 0. main.c and main_par.c let rank 0 alone print and write files. */
extern "C" int shmemu_launcher_rank(void)
{
    const int r = md_cuda_mpirun_rank();
    return r > 0 ? r : 0;
}

extern "C" int shmemu_launch(int n_pes, int (*fn)(void *arg), void *arg)
{
    if (n_pes < 1) {
        fprintf(stderr, "%s (CUDA): %d PEs: need at least 1\n", md_cuda_prog(), n_pes);
        return 1;
    }
    if (md_cuda_mpirun_rank() >= 0) { /* every rank is one PE (launch_mpi.cu) */
#ifdef SHMEMU_WITH_MPI
        return md_cuda_launch_mpi(n_pes, fn, arg);
#else
        fprintf(stderr, "%s (CUDA): started by mpirun, but built without MPI (no mpicxx "
                "when it was built): rebuild with Open MPI's mpicxx on PATH (Debian: apt-get "
                "install libopenmpi-dev), or start it without mpirun: it forks one process per "
                "PE itself\n", md_cuda_prog());
        return 1;
#endif
    }
    setenv("NVSHMEM_DISABLE_NVLS", "1", 1); /* never NVLink multicast (shared hosts) */
    fflush(stdout);
    fflush(stderr);
    pid_t *pid = (pid_t *)calloc((size_t)n_pes, sizeof *pid);
    int *wfd = (int *)calloc((size_t)n_pes, sizeof *wfd);
    for (int r = 1; r < n_pes; r++) {
        int fd[2];
        if (pipe(fd) != 0) {
            fprintf(stderr, "%s (CUDA): pipe: %s\n", md_cuda_prog(), strerror(errno));
            n_pes = r; /* the children so far get EOF and exit */
            break;
        }
        pid[r] = fork();
        if (pid[r] == 0) {
            close(fd[1]);
            for (int k = 1; k < r; k++)
                close(wfd[k]);
            nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
            int rc = md_cuda_read_all(fd[0], &id, sizeof id) != 0;
            close(fd[0]);
            if (rc == 0)
                rc = md_cuda_pe_start(r, n_pes, &id);
            if (rc == 0)
                rc = md_cuda_pe_run(r, fn, arg);
            fflush(stdout);
            fflush(stderr);
            _exit(rc & 0x7f);
        }
        close(fd[0]);
        wfd[r] = fd[1];
        if (pid[r] < 0) {
            fprintf(stderr, "%s (CUDA): fork: %s\n", md_cuda_prog(), strerror(errno));
            close(fd[1]);
            n_pes = r;
            break;
        }
    }
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    int rc0 = cudaSetDevice(0) != cudaSuccess;
    if (rc0 == 0 && nvshmemx_get_uniqueid(&id) != 0) {
        fprintf(stderr, "%s (CUDA): nvshmemx_get_uniqueid failed\n", md_cuda_prog());
        rc0 = 1;
    }
    for (int r = 1; r < n_pes; r++) {
        if (rc0 == 0 && md_cuda_write_all(wfd[r], &id, sizeof id) != 0)
            rc0 = 1;
        close(wfd[r]);
    }
    if (rc0 == 0)
        rc0 = md_cuda_pe_start(0, n_pes, &id);
    if (rc0 == 0)
        rc0 = md_cuda_pe_run(0, fn, arg);
    int rc = rc0;
    for (int r = 1; r < n_pes; r++) {
        int st = 0;
        while (waitpid(pid[r], &st, 0) < 0 && errno == EINTR) {
        }
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        if (code != 0)
            fprintf(stderr, "%s (CUDA): PE %d exited with status %d\n", md_cuda_prog(), r, code);
        if (rc == 0)
            rc = code;
    }
    free(pid);
    free(wfd);
    return rc;
}
