/*
 * backend_process.c: the process backend: PEs 1..N-1 are processes forked from PE 0's
 * (SHMEMU_BACKEND=process, `shmemu-run --backend process`; docs/pgas.md, "The process
 * backend").
 *
 * Layout: the threads backend's, in shared memory. Before it forks, the launching thread
 * moves the job's records (the world, its PEs and teams, every thread record), the heaps,
 * the bounds check's maps and the wake-up table into one MAP_SHARED mapping
 * (job_memory.c), and futex calls become process-shared; for a program built with per-PE
 * copies, every copy's globals go into shared memory too (image.c). A fork keeps every
 * mapping at its address, so each PE process sees every heap, every copy of the globals and
 * every record where the others do: nvshmem_ptr works, a put is a store, an atomic is a C
 * atomic on shared memory, a wait parks on a process-shared futex, and the threads
 * backend's operations serve unchanged (backend_threads.c). What differs is that each PE
 * has its own address space for everything else: its malloc, its private globals, its
 * emulated GPU (emu/ runs per process, as a real GPU per PE process would).
 *
 * PE 0 runs on a thread of the launching process, so that what it writes reaches the
 * program that started the job (the MD app's results and output, a test's checks), as on
 * the threads backend. The launching thread watches the PE processes: one that dies (a
 * signal, a non-zero exit status, or exit(0) between its initialization and its finalize)
 * ends the job at once: the others are killed, a message names it, and the launching
 * process exits with its status. Each PE process has PR_SET_PDEATHSIG, so if PE 0's process
 * dies, the others follow. Nothing has a name in /dev/shm or on disk while the job runs, so
 * a job killed at any point leaves nothing behind.
 *
 * A PE process ends with _exit after flushing stdio, also when the program calls exit():
 * the exit handlers and destructors inherited from the launching process run once, in PE
 * 0's, as on the threads backend; handlers a PE registered itself run in its process.
 *
 * Layer: above job_memory.c, park.c and the threads backend, whose operations it reuses;
 * below world.c, which calls pgas_process_run.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "backend_threads.h"
#include "nvshmem.h"
#include "shmemu/env.h"

/* How much address space the job's shared records may take, SHMEMU_JOB_RECORDS_MB
 * (reserved, not committed: a thread record is a few KiB, and only what is written costs
 * memory). */
#define RECORDS_MB_DEFAULT 256
/* How often the launching thread looks at the PE processes. */
#define WATCH_NS 5000000L

const pgas_backend pgas_backend_process = {
    .name = "process",
    .processes = true,
    PGAS_THREADS_LAYOUT_OPS,
};

void pgas_process_job_begin(void)
{
    char err[256];
    size_t mb = (size_t)shmemu_env_int("SHMEMU_JOB_RECORDS_MB", 16, 1 << 20, RECORDS_MB_DEFAULT);
    if (pgas_job_memory_share(mb << 20, err, sizeof err) != 0) {
        fprintf(stderr, "shmemu: SHMEMU_BACKEND=process: %s\n", err);
        exit(2);
    }
    pgas_park_share_wake_table();
}

void pgas_process_job_end(bool keep_records)
{
    pgas_park_private_wake_table();
    pgas_job_memory_unshare(keep_records);
}

/* ---- a PE process ------------------------------------------------------------------- */

/* The program called exit(status) in a PE process: its own handlers have run (they were
 * registered after this one); skip the ones inherited from the launching process. */
static void pe_process_on_exit(int status, void *arg)
{
    (void)arg;
    fflush(NULL);
    _exit(status);
}

_Noreturn static void run_pe_process(void *(*pe_main)(void *), void *start, pid_t launcher)
{
    /* Dies with the launching process (PE 0's); if that is already gone, do not start. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != launcher)
        _exit(128 + SIGKILL);
    on_exit(pe_process_on_exit, NULL);
    pe_main(start);
    fflush(NULL);
    _exit(0);
}

/* ---- PE 0 and the watch ------------------------------------------------------------- */

typedef struct pe0_run {
    void *(*pe_main)(void *);
    void *start;
    _Atomic int done;
} pe0_run;

/* The job this process is watching, for PE 0's exit handler (one job at a time). */
typedef struct watch {
    const pgas_world *w;
    pid_t *pids;
    _Atomic int running;  /* PE processes not yet ended, as the watch last saw */
    _Atomic int pe0_exit; /* PE 0 called exit(): the watch stops judging */
} watch;

static _Atomic(watch *) current_watch;

/* PE 0 called exit() while PE processes run: on the threads backend that ends every PE with
 * the process, after their output is flushed. Here: a PE 0 that has finalized (or never
 * initialized) waits for the others to end on their own (they have nothing left to wait on
 * it for); one that is still initialized ends them at once, as the threads backend would. */
static void launcher_on_exit(int status, void *arg)
{
    (void)arg;
    watch *wt = atomic_load(&current_watch);
    if (wt == NULL)
        return;
    atomic_store(&wt->pe0_exit, 1);
    if (atomic_load(&wt->w->pes[0].init_status) == NVSHMEM_STATUS_IS_INITIALIZED) {
        int n = wt->w->n_pes;
        for (int p = 1; p < n; p++)
            if (wt->pids[p] > 0)
                kill(wt->pids[p], SIGKILL);
        fprintf(stderr, "shmemu: PE 0 called exit(%d) between its initialization and its "
                        "finalize; the other PE processes were stopped (SHMEMU_BACKEND=process)\n",
                status);
        return;
    }
    while (atomic_load(&wt->running) > 0) {
        struct timespec ts = {0, WATCH_NS};
        nanosleep(&ts, NULL);
    }
}

static void *pe0_thread(void *arg)
{
    pe0_run *r = arg;
    r->pe_main(r->start);
    atomic_store(&r->done, 1);
    return NULL;
}

/* Kills every PE process still running and reaps it. */
static void kill_all(pid_t *pids, int n)
{
    for (int p = 1; p < n; p++)
        if (pids[p] > 0)
            kill(pids[p], SIGKILL);
    for (int p = 1; p < n; p++) {
        if (pids[p] <= 0)
            continue;
        while (waitpid(pids[p], NULL, 0) < 0 && errno == EINTR) {
        }
        pids[p] = 0;
    }
}

/* Ends the job because PE pe's process (pid) ended as `how`: the other PE processes are
 * killed, PE 0's output is flushed, and this process exits with `status`. */
_Noreturn static void end_job(pid_t *pids, int n, int pe, pid_t pid, const char *how, int status)
{
    int running = 0;
    for (int p = 1; p < n; p++)
        running += pids[p] > 0;
    kill_all(pids, n);
    fflush(NULL);
    fprintf(stderr, "shmemu: PE %d (process %d) %s; the job ends: %d other PE process%s "
                    "stopped, and PE 0's process exits with status %d (SHMEMU_BACKEND=process)\n",
            pe, (int)pid, how, running, running == 1 ? "" : "es", status);
    fflush(NULL);
    _exit(status);
}

/* PE pe's process has ended with wait status ws: a normal end, or the end of the job. */
static void judge(watch *wt, int pe, pid_t pid, int ws)
{
    if (atomic_load(&wt->pe0_exit))
        return; /* PE 0's exit handler decides: the process is ending */
    const pgas_world *w = wt->w;
    pid_t *pids = wt->pids;
    const int n = w->n_pes;
    char how[160];
    if (WIFSIGNALED(ws)) {
        int sig = WTERMSIG(ws);
        snprintf(how, sizeof how, "was killed by signal %d (%s)", sig, strsignal(sig));
        end_job(pids, n, pe, pid, how, 128 + sig);
    }
    int code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 1;
    bool returned = atomic_load(&w->pes[pe].finished) != 0;
    if (code != 0) {
        snprintf(how, sizeof how, "exited with status %d%s", code,
                 returned ? "" : " before its main function returned");
        end_job(pids, n, pe, pid, how, code);
    }
    if (!returned && atomic_load(&w->pes[pe].init_status) == NVSHMEM_STATUS_IS_INITIALIZED)
        end_job(pids, n, pe, pid,
                "called exit(0) between its initialization and its finalize (the other PEs "
                "cannot complete a collective or a wait on it)",
                1);
}

void pgas_process_run(pgas_world *w, void *(*pe_main)(void *), void *starts, size_t stride,
                      size_t stack_bytes)
{
    int n = w->n_pes;
    pid_t *pids = calloc((size_t)n, sizeof *pids);
    if (pids == NULL) {
        fprintf(stderr, "shmemu: out of memory starting %d PE processes\n", n);
        exit(2);
    }
    static _Atomic int handler_registered;
    if (atomic_exchange(&handler_registered, 1) == 0)
        on_exit(launcher_on_exit, NULL);
    watch wt = {.w = w, .pids = pids};
    atomic_init(&wt.running, n - 1);
    atomic_init(&wt.pe0_exit, 0);
    fflush(NULL); /* or each PE process would print what this one had buffered */
    pid_t launcher = getpid();
    for (int p = 1; p < n; p++) {
        pid_t pid = fork();
        if (pid == 0)
            run_pe_process(pe_main, (char *)starts + (size_t)p * stride, launcher);
        if (pid < 0) {
            int e = errno;
            kill_all(pids, n);
            fprintf(stderr, "shmemu: SHMEMU_BACKEND=process: cannot start the process of PE %d "
                            "of %d: %s; start fewer PEs or raise `ulimit -u`\n",
                    p, n, strerror(e));
            exit(2);
        }
        pids[p] = pid;
    }
    atomic_store(&current_watch, &wt);
    pe0_run r = {.pe_main = pe_main, .start = starts};
    atomic_init(&r.done, 0);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, stack_bytes);
    pthread_t pe0;
    int rc = pgas_thread_create(&pe0, &attr, pe0_thread, &r);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        kill_all(pids, n);
        fprintf(stderr, "shmemu: cannot start the thread of PE 0: %s\n", strerror(rc));
        exit(2);
    }
    for (;;) {
        int running = 0;
        for (int p = 1; p < n; p++) {
            if (pids[p] <= 0)
                continue;
            int ws;
            pid_t got = waitpid(pids[p], &ws, WNOHANG);
            if (got == pids[p]) {
                pid_t pid = pids[p];
                pids[p] = 0;
                judge(&wt, p, pid, ws);
            } else if (got < 0 && errno == ECHILD) {
                pids[p] = 0; /* reaped by someone else: nothing more to learn */
            } else {
                running++;
            }
        }
        atomic_store(&wt.running, running);
        if (running == 0 && atomic_load(&r.done))
            break;
        struct timespec ts = {0, WATCH_NS};
        nanosleep(&ts, NULL);
    }
    pthread_join(pe0, NULL);
    atomic_store(&current_watch, NULL);
    free(pids);
}
