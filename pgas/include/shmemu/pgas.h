/*
 * shmemu/pgas.h: shmemu's own interface to the PGAS runtime.
 *
 * Programs use nvshmem.h (or shmem.h). This header adds what NVSHMEM has no name for:
 *   1. starting N PEs from one call (tests, tools, embedding);
 *   2. the runtime's configuration, read from the environment;
 *   3. what tests and tools read back: the last deterministic job's statistics, wake-ups
 *      sent, threads parked.
 * The core that the CUDA emulator (emu/) builds on (attaching a pthread to a PE, waits that
 * park, wake-ups, happens-before annotations, the deterministic scheduler's hooks) is the
 * internal contract shmemu/internal/pgas_emu.h, which is not installed.
 *
 * Environment (read once, when a job starts; a bad value is an error that names the variable):
 *   SHMEMU_NPES=N              PEs started by a program built with bin/shmemu-cc (default 1).
 *   NVSHMEM_SYMMETRIC_SIZE=S   symmetric heap bytes per PE; suffix K, M, G or T (default 256M),
 *                              rounded up to a multiple of 2 MiB (the largest nvshmem_align).
 *   SHMEMU_HANG_TIMEOUT=SEC    a wait unsatisfied this long prints every PE's pending waits
 *                              and exits with status 3 (default 120; 0 = never).
 *   SHMEMU_CHECK_NBI=1         checking mode: puts are delivered late and reordered within
 *                              what fence/quiet/signal allow (docs/design.md D7).
 *   SHMEMU_CHECK_SEED=N        the seed of that reordering (default 1).
 *   SHMEMU_SPIN=N              polls before a wait parks on a futex (default 2000; under
 *                              valgrind, or with more waiters than cores, waits park at once).
 *   SHMEMU_NO_PTR=1            nvshmem_ptr returns NULL for every other PE, forcing the put
 *                              path (as between GPUs without NVLink).
 *   SHMEMU_STRICT_DEVICE=1     strict mode: a call NVSHMEM declares __device__ only
 *                              (put-with-signal, nvshmem_signal_fetch, _signal_wait_until,
 *                              _wait_until*, _test*) made from a PE's host thread ends the
 *                              program with a message naming it (nvcc would not compile it in
 *                              host code). Default off for C programs, on for programs built
 *                              by shmemu-nvcc (their cuda_runtime.h turns it on); 0 turns it
 *                              off. OpenSHMEM programs (shmem_init) are never flagged.
 *   SHMEMU_SCHED=S             deterministic mode (docs/sched.md): random, pct or rr; one
 *                              entity (PE host thread, block, stream thread) runs at a time
 *                              and the turn passes only at sync points.
 *   SHMEMU_SEED=N              its seed (default 1); SHMEMU_PCT_DEPTH=D (default 3),
 *                              SHMEMU_PCT_STEPS=K (default 2000).
 *   SHMEMU_TRACE_OUT=FILE      write the run's schedule to FILE; SHMEMU_REPLAY=FILE replays one
 *                              (and reports the first decision where the run departs from it).
 *   SHMEMU_SCHED_GUIDE=FILE    (bin/shmemu-explore's shrinker) run without preemptions except
 *                              the ones FILE lists.
 *   SHMEMU_SCHED_MAX_DECISIONS=N  decisions a trace can hold (default 4M).
 *   SHMEMU_SCHED_PIN=0         do not pin a deterministic job's threads to one CPU.
 *   bin/shmemu-explore N -- PROGRAM ARGS... runs N seeds of a program and stops at the first
 *                              failure, which it shrinks and saves as a trace.
 */
#ifndef SHMEMU_PGAS_H
#define SHMEMU_PGAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The default of SHMEMU_STRICT_DEVICE when it is unset: on (1) or off (0) sets it (before the
 * job starts; the CUDA layer turns it on for .cu programs), -1 only reads it. Returns the
 * default in force. */
int shmemu_strict_device_default(int on);

/* ---- starting PEs -------------------------------------------------------------------- */

/* Runs fn(arg) on n_pes PEs of a new job and waits for all of them. Each PE calls
 * nvshmem_init() (or shmem_init()) itself. Returns 0 when every PE returned 0, otherwise the
 * first non-zero return value in PE order. A job cannot be started from inside a PE.
 *
 * The PEs are threads of this process on the threads backend (the default). On the process
 * backend (SHMEMU_BACKEND=process; docs/pgas.md, "The process backend") PE 0 is a thread of
 * this process and PEs 1..N-1 are processes forked from it: what PE 0 writes reaches the
 * caller, what the others write to memory outside the symmetric heap does not (share it
 * through the heap, as the MD app gathers its results on PE 0). This process must not run
 * other threads when such a job starts. */
int shmemu_launch(int n_pes, int (*fn)(void *arg), void *arg);

/* The backend a job started now runs on: "threads" or "process" (SHMEMU_BACKEND). Exits with
 * a message when SHMEMU_BACKEND names no backend. */
const char *shmemu_backend_name(void);

/* Runs main_fn(argc, argv, envp) as the main of each of n_pes PE threads; used by the main()
 * that bin/shmemu-cc links in. Returns like shmemu_launch. */
int shmemu_launch_main(int n_pes, int (*main_fn)(int, char **, char **), int argc, char **argv,
                       char **envp);

/* Runs a program built with per-PE copies (bin/shmemu-cc's default): loads n_pes copies of
 * the shared object `elf` (elf_bytes long; its globals become per PE and symmetric, see
 * docs/pgas.md "Per-PE data") and runs copy p's main on PE p. Returns like shmemu_launch,
 * or 2 with a message when the copies cannot be made. The copies' files stay until
 * shmemu_image_remove_files (the main that shmemu-cc links in calls it at exit, after the
 * sanitizers' exit reports, which read debug information from them). */
int shmemu_launch_image(int n_pes, const unsigned char *elf, size_t elf_bytes, int argc,
                        char **argv, char **envp);
void shmemu_image_remove_files(void);

/* The PE count a program should start: SHMEMU_NPES, or 1. Exits with a message on a bad value. */
int shmemu_npes_from_env(void);

/* This thread's PE, or -1 when the thread belongs to no PE. */
int shmemu_my_pe(void);

/* What the last job run in deterministic mode did (for tests and tools). */
typedef struct shmemu_sched_stats {
    bool deterministic;
    int strategy;          /* 1 random, 2 pct, 3 rr, 4 guided (explore's shrinker) */
    uint64_t seed;
    uint64_t decisions;    /* scheduling decisions made */
    uint64_t switches;     /* decisions that changed the running entity */
    uint64_t preemptions;  /* ... while the previous one could still run */
    uint64_t schedule_hash; /* FNV-1a of the decision records: equal hashes, equal schedules */
    uint32_t entities;     /* entities registered (PE threads, blocks, streams) */
} shmemu_sched_stats;
/* Fills *out from the last job of this process that has ended; -1 if none was deterministic. */
int shmemu_sched_last_stats(shmemu_sched_stats *out);

/* How many times, since the process started, a write woke threads parked in a wait (one
 * per futex wake of a wait bucket, whoever it woke). A write wakes only the waiters whose
 * word it may have changed; tests use this to check that a long put beside a waiter's word
 * does not wake it (under valgrind each needless wake costs a context switch). */
uint64_t shmemu_wakes_sent(void);

/* How many threads are parked right now (asleep in a wait, not polling) on a word of PE
 * pe's symmetric heap; -1 when called outside a job or for a PE that does not exist. Tests
 * use it to act while a waiter sleeps instead of guessing how long parking takes. */
int shmemu_parked_on(int pe);

/* This process's rank among those mpirun started, where every PE is an MPI rank (started by
 * mpirun without SHMEMU_BACKEND, or SHMEMU_BACKEND=mpi); else 0. Rank r runs PE r of each
 * job, so a program that prints a job's results once prints where this is 0 (PE 0 gathers
 * them), as on the other backends the one process does. */
int shmemu_launcher_rank(void);
/* How many ranks mpirun started, where every PE is an MPI rank; else 0. A job of n PEs
 * needs n of them (it runs on the first n). */
int shmemu_launcher_size(void);
/* 1 when the calling thread's PE runs on the MPI backend (every PE an MPI rank), else 0
 * (threads or process backend, or no PE). shmemu/mpi.h has the job's communicator. */
int shmemu_mpi_job(void);
/* The MPI job's communicator as the runtime keeps it (an Open MPI handle); shmemu/mpi.h's
 * shmemu_mpi_comm() gives it its type. */
void *shmemu_mpi_comm_handle(void);

#ifdef __cplusplus
}
#endif

#endif
