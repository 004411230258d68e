/*
 * shmemu_explore.c: bin/shmemu-explore, the schedule explorer (docs/sched.md, "Explore").
 *
 *   shmemu-explore [--strategy random|pct|rr|delay] [--bound B] [--first-seed S] [--pct-depth D]
 *                  [--trace FILE] [--timeout SEC] [--shrink-runs K] [--no-shrink] [--quiet]
 *                  [--ref-unset VAR]... [--result-pattern RE | --result-file PATH]
 *                  [--jobs J] N -- PROGRAM [ARGS...]
 *
 * With --strategy delay the runs are delay sets instead of seeds (explore_search.c: the
 * base schedule, then every set of at most B choice points in a fixed order), and every
 * exploration ends with its coverage (distinct schedules and switch pairs, explore_search.c).
 *
 * Every argument is checked first (explore_args.c): a bad one is a usage error (exit 2)
 * before anything runs. Then it runs PROGRAM once free-running (the reference; without the
 * variables named by --ref-unset, e.g. SHMEMU_BUG, so that a planted bug is checked against
 * correct code), then under the deterministic scheduler with seeds S, S+1, ... S+N-1 (each
 * a fresh process: SHMEMU_SCHED, SHMEMU_SEED and SHMEMU_TRACE_OUT in its environment, all
 * made by schedule_env) and stops at the first failure. J runs go at once (--jobs; default
 * one per CPU in the explorer's affinity mask), each pinned to a CPU of its own before it
 * execs, each with its own trace file in $TMPDIR (else /tmp); their output goes to memory
 * files. Whatever J is, the failure reported is the LOWEST failing seed's: once a run
 * fails, no later seed starts, the runs of later seeds are killed and reaped, and those of
 * earlier seeds run to their end. A run fails on:
 *   - a non-zero exit (an assertion aborts; a deadlock exits 3; a divergence 5) or a signal;
 *   - a checker report on its standard error (helgrind/DRD "Possible data race" or
 *     "Conflicting", ThreadSanitizer, AddressSanitizer, UBSan "runtime error");
 *   - a result that differs from the reference's. The result is what the program declares:
 *     the last standard-output line matching "checksum <value>" (by default), the last line
 *     matching --result-pattern RE, or the bytes of --result-file PATH. Other output (PEs
 *     printing in a schedule-dependent order) is not compared; the explorer says what it
 *     compared.
 * On failure the schedule is shrunk: the run's switches become a guide (SHMEMU_SCHED_GUIDE)
 * that replays it with the default "keep running the current entity"; the explorer drops
 * preemptions (switches away from an entity that could have gone on) while the run still
 * fails, all at once first, then in halves, quarters, ... (as delta debugging does), within
 * --shrink-runs runs, and reports how many it removed. The failing trace is saved and the one-line
 * replay command printed. Exit status: 0 when every seed passed, 1 on a failure, 2 on a
 * usage error or when the reference run itself fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../src/sched.h"
#include "explore_args.h"
#include "explore_search.h"

/* A run's declared result (explore_opts.result). */
typedef struct result {
    bool found;  /* the line was printed, or the file written */
    char *data;  /* malloc'ed */
    size_t len;
} result;

typedef struct run_result {
    bool failed;
    char reason[1024];
    result out;
    char *report;           /* a failed run's standard error from "shmemu: " on (malloc'ed) */
    bool have_hash;         /* the run wrote its trace: */
    uint64_t schedule_hash; /* the trace's "hash:" line, which names the schedule run */
} run_result;

/* The signal mask the explorer started with (its children get it back); the explorer
 * itself blocks SIGCHLD and waits for it (wait_any). */
static sigset_t start_mask;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* out = a followed by b; a path too long for out is a usage error. */
static void concat(char *out, size_t len, const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na + nb + 1 > len) {
        fprintf(stderr, "shmemu-explore: the path %s%s is too long\n", a, b);
        exit(2);
    }
    memcpy(out, a, na);
    memcpy(out + na, b, nb + 1);
}

/* The whole file, NUL-terminated; *len (if not NULL) its length; NULL if it cannot be
 * opened. */
static char *slurp_len(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t k;
    while (buf != NULL && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (cap - n - 1 == 0) {
            char *b = realloc(buf, cap * 2);
            if (b == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf == NULL) {
        fprintf(stderr, "shmemu-explore: out of memory reading %s\n", path);
        exit(2);
    }
    buf[n] = '\0';
    if (len != NULL)
        *len = n;
    return buf;
}

/* What was written to the memory file fd, NUL-terminated. */
static char *slurp_fd(int fd)
{
    struct stat st;
    size_t n = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
    char *buf = malloc(n + 1);
    if (buf == NULL) {
        fprintf(stderr, "shmemu-explore: out of memory reading a run's output\n");
        exit(2);
    }
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, buf + got, n - got, (off_t)got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    buf[got] = '\0';
    return buf;
}

/* The default result: a line holding the word "checksum", a separator (spaces, ':' or '=')
 * and a value. */
#define CHECKSUM_RE "(^|[^[:alnum:]_])checksum([[:space:]]*[:=][[:space:]]*|[[:space:]]+)[^[:space:]]"

/* What the runs' results are, for the messages. */
static void describe_result(const explore_opts *o, char *out, size_t len)
{
    switch (o->result) {
    case EXPLORE_RESULT_CHECKSUM:
        snprintf(out, len, "the last standard-output line matching \"checksum <value>\"");
        break;
    case EXPLORE_RESULT_PATTERN:
        snprintf(out, len, "the last standard-output line matching --result-pattern '%s'",
                 o->result_arg);
        break;
    case EXPLORE_RESULT_FILE:
        snprintf(out, len, "the bytes of --result-file %s", o->result_arg);
        break;
    }
}

/* The last line of out that matches re (without its newline). */
static result last_matching_line(const char *out, const regex_t *re)
{
    result r = {false, NULL, 0};
    const char *best = NULL;
    size_t best_len = 0;
    char *line = NULL;
    size_t cap = 0;
    for (const char *p = out; *p != '\0';) {
        const char *end = strchr(p, '\n');
        size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
        if (n + 1 > cap) {
            cap = 2 * (n + 1);
            free(line);
            line = malloc(cap);
            if (line == NULL)
                exit(2);
        }
        memcpy(line, p, n);
        line[n] = '\0';
        if (regexec(re, line, 0, NULL, 0) == 0) {
            best = p;
            best_len = n;
        }
        p += n + (end != NULL);
    }
    free(line);
    if (best != NULL) {
        r.found = true;
        r.len = best_len;
        r.data = strndup(best, best_len);
        if (r.data == NULL)
            exit(2);
    }
    return r;
}

static result get_result(const explore_opts *o, const char *out)
{
    if (o->result == EXPLORE_RESULT_FILE) {
        result r = {false, NULL, 0};
        r.data = slurp_len(o->result_arg, &r.len);
        r.found = r.data != NULL;
        return r;
    }
    regex_t re;
    if (regcomp(&re, o->result == EXPLORE_RESULT_PATTERN ? o->result_arg : CHECKSUM_RE,
                REG_EXTENDED | REG_NOSUB) != 0)
        exit(2); /* explore_parse_args compiled it already */
    result r = last_matching_line(out, &re);
    regfree(&re);
    return r;
}

/* Shows a result in a message: a line as it is, a file by its size. */
static void show_result(const explore_opts *o, const result *r, char *out, size_t len)
{
    if (!r->found)
        snprintf(out, len, o->result == EXPLORE_RESULT_FILE ? "no file" : "no such line");
    else if (o->result == EXPLORE_RESULT_FILE)
        snprintf(out, len, "%zu bytes", r->len);
    else
        snprintf(out, len, "\"%.200s\"", r->data);
}

static const char *const checker_patterns[] = {
    "Possible data race", "Conflicting load", "Conflicting store",
    "WARNING: ThreadSanitizer", "ERROR: AddressSanitizer", "runtime error:", NULL};

/* A run in progress: the child, where its output goes, when it must end. */
typedef struct run_proc {
    pid_t pid;           /* 0: no run */
    int out_fd, err_fd;  /* its standard output and error: memory files (memfd_create) */
    double deadline;
    bool timed_out;
} run_proc;

/* Starts the program with extra environment settings (NAME=VALUE strings, NULL-ended); cpu
 * >= 0 pins the child to that CPU before it execs (the scheduler then keeps all its threads
 * there, docs/sched.md "One CPU"). SIGCHLD is blocked in the explorer (main); the child
 * gets the signal mask the explorer started with. */
static void run_start(const explore_opts *o, char *const *env, int cpu, run_proc *p)
{
    if (o->result == EXPLORE_RESULT_FILE)
        unlink(o->result_arg); /* a run that writes no result must not see the last one's */
    /* memory files: nothing on disk to write back or to leave behind */
    int out_fd = memfd_create("shmemu-explore-out", MFD_CLOEXEC);
    int err_fd = memfd_create("shmemu-explore-err", MFD_CLOEXEC);
    if (out_fd < 0 || err_fd < 0) {
        fprintf(stderr, "shmemu-explore: cannot create the files for a run's output: %s\n",
                strerror(errno));
        exit(2);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "shmemu-explore: fork: %s\n", strerror(errno));
        exit(2);
    }
    if (pid == 0) {
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        sigprocmask(SIG_SETMASK, &start_mask, NULL);
        if (cpu >= 0) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            sched_setaffinity(0, sizeof one, &one); /* best effort: the CPU was allowed */
        }
        unsetenv("SHMEMU_SCHED");
        unsetenv("SHMEMU_REPLAY");
        unsetenv("SHMEMU_TRACE_OUT");
        unsetenv("SHMEMU_SCHED_GUIDE");
        unsetenv("SHMEMU_DELAYS");
        for (int k = 0; o->reference && k < o->n_ref_unset; k++)
            unsetenv(o->ref_unset[k]);
        if (o->reference) /* free-running: the weak-memory mode needs the scheduler */
            unsetenv("SHMEMU_MEMORY");
        for (char *const *e = env; *e != NULL; e++)
            putenv(*e);
        execvp(o->argv[0], o->argv);
        fprintf(stderr, "shmemu-explore: cannot run %s: %s\n", o->argv[0], strerror(errno));
        _exit(127);
    }
    p->out_fd = out_fd;
    p->err_fd = err_fd;
    p->pid = pid;
    p->deadline = now_s() + o->timeout_s;
    p->timed_out = false;
}

/* Kills a run that is past its deadline (it is reaped as any other). */
static void run_check_deadline(run_proc *p, double now)
{
    if (p->pid > 0 && !p->timed_out && now > p->deadline) {
        kill(p->pid, SIGKILL);
        p->timed_out = true;
    }
}

/* Waits until a child of the explorer ends, or until the earliest deadline of the runs
 * *procs[0, n) (then kills the runs past theirs and waits on). Returns the child reaped and
 * its status in *status; -1 when there is no child. */
static pid_t wait_any(run_proc *const *procs, int n, int *status)
{
    for (;;) {
        pid_t w = waitpid(-1, status, WNOHANG);
        if (w > 0 || (w < 0 && errno != EINTR))
            return w;
        double now = now_s(), first = now + 1.0;
        for (int i = 0; i < n; i++) {
            run_check_deadline(procs[i], now);
            if (procs[i]->pid > 0 && !procs[i]->timed_out && procs[i]->deadline < first)
                first = procs[i]->deadline;
        }
        double wait_s = first - now > 0 ? first - now : 0;
        struct timespec ts = {(time_t)wait_s, (long)((wait_s - (double)(time_t)wait_s) * 1e9)};
        sigset_t chld;
        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        sigtimedwait(&chld, NULL, &ts); /* SIGCHLD is blocked: it stays pending until here */
    }
}

/* Kills a run that is no longer needed, reaps it and removes its output. */
static void run_cancel(run_proc *p)
{
    if (p->pid <= 0)
        return;
    kill(p->pid, SIGKILL);
    while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    close(p->out_fd);
    close(p->err_fd);
    p->pid = 0;
}

/* The run's trace schedule hash (the trace's "hash:" line) into r, if it wrote a trace. */
static void read_schedule_hash(const char *trace_path, run_result *r)
{
    pgas_trace_header h;
    uint64_t *log = NULL, n = 0;
    char err[256];
    r->have_hash = pgas_trace_read(trace_path, &h, &log, &n, err, sizeof err) == 0;
    r->schedule_hash = r->have_hash ? h.schedule_hash : 0;
    free(log);
}

/* The first whole lines (at most 4000 bytes) of a failing run's report, without the run's
 * own "shmemu: replay:" lines, which name its temporary trace (the explorer prints the
 * command that replays the saved one); malloc'ed, NULL when nothing is left. */
static char *report_lines(const char *rep)
{
    enum { MAX_REPORT = 4000 };
    char *out = malloc(MAX_REPORT + 8);
    if (out == NULL)
        return NULL;
    size_t n = 0;
    bool cut = false;
    for (const char *line = rep; *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) + 1 : strlen(line);
        if (strncmp(line, "shmemu: replay: ", 16) != 0) {
            if (n + len > MAX_REPORT) {
                cut = true;
                break;
            }
            memcpy(out + n, line, len);
            n += len;
        }
        line += len;
    }
    if (n > 0 && out[n - 1] != '\n')
        out[n++] = '\n';
    if (cut) {
        memcpy(out + n, "  ...\n", 6);
        n += 6;
    }
    out[n] = '\0';
    if (n == 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* Judges a run that ended with status (wait status) into *r: exit status, signals, checker
 * reports, the result against ref (NULL: none). trace_path: the trace it was asked to write
 * (NULL: none), whose schedule hash goes into r. The run's standard error from its report
 * on ("shmemu: ..."), at most 2000 bytes, is kept in r->report when it failed. */
static void run_finish(const explore_opts *o, run_proc *p, int status, const result *ref,
                       const char *trace_path, run_result *r)
{
    char *out = slurp_fd(p->out_fd), *err = slurp_fd(p->err_fd);
    close(p->out_fd);
    close(p->err_fd);
    bool timed_out = p->timed_out;
    p->pid = 0;
    r->failed = false;
    r->reason[0] = '\0';
    r->report = NULL;
    r->have_hash = false;
    r->schedule_hash = 0;
    r->out = get_result(o, out);
    if (trace_path != NULL)
        read_schedule_hash(trace_path, r);
    if (timed_out) {
        r->failed = true;
        snprintf(r->reason, sizeof r->reason, "did not finish in %g s", o->timeout_s);
    } else if (WIFSIGNALED(status)) {
        r->failed = true;
        snprintf(r->reason, sizeof r->reason, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        r->failed = true;
        int code = WEXITSTATUS(status);
        snprintf(r->reason, sizeof r->reason, "exit status %d%s", code,
                 code == PGAS_SCHED_DEADLOCK_EXIT ? " (deadlock or hang)"
                 : code == PGAS_SCHED_DIVERGED_EXIT ? " (replay diverged)" : "");
    }
    for (int i = 0; !r->failed && checker_patterns[i] != NULL; i++)
        if (strstr(err, checker_patterns[i]) != NULL) {
            r->failed = true;
            snprintf(r->reason, sizeof r->reason, "checker report (\"%s\")", checker_patterns[i]);
        }
    if (!r->failed && ref != NULL && ref->found &&
        (!r->out.found || r->out.len != ref->len || memcmp(r->out.data, ref->data, ref->len) != 0)) {
        r->failed = true;
        char what[600], got[256], want[256];
        describe_result(o, what, sizeof what);
        show_result(o, &r->out, got, sizeof got);
        show_result(o, ref, want, sizeof want);
        snprintf(r->reason, sizeof r->reason, "%s mismatch against the free-running reference "
                 "(compared %.400s: %.250s; the reference: %.250s)",
                 o->result == EXPLORE_RESULT_CHECKSUM ? "checksum" : "result", what, got, want);
    }
    if (r->failed) {
        const char *rep = strstr(err, "shmemu: ");
        r->report = report_lines(rep != NULL ? rep : err);
    }
    free(out);
    free(err);
}

/* Prints a failed run's report (unless --quiet) and frees what r holds. */
static void run_result_done(const explore_opts *o, run_result *r, bool print)
{
    if (print && r->failed && !o->quiet && r->report != NULL)
        fprintf(stderr, "%s", r->report);
    free(r->report);
    free(r->out.data);
    r->report = NULL;
    r->out.data = NULL;
}

/* Runs the program once, to the end (see run_start and run_finish); the failing run's
 * report is printed (unless --quiet) and freed, r->out is the caller's to free. */
static void run_once(const explore_opts *o, char *const *env, const result *ref,
                     const char *trace_path, run_result *r)
{
    run_proc p, *procs[] = {&p};
    run_start(o, env, -1, &p);
    int status = 0;
    for (;;) {
        pid_t w = wait_any(procs, 1, &status);
        if (w == p.pid)
            break;
        if (w < 0) {
            status = 0;
            break;
        }
    }
    run_finish(o, &p, status, ref, trace_path, r);
    if (r->failed && !o->quiet && r->report != NULL)
        fprintf(stderr, "%s", r->report);
    free(r->report);
    r->report = NULL;
}

/* ---- shrinking ----------------------------------------------------------------------- */

typedef struct guide_entry {
    uint32_t from;
    uint64_t yield;
    uint32_t target;
    bool preemption;
    bool dropped;
} guide_entry;

/* The switches of a trace as guide entries. */
static guide_entry *trace_switches(const char *path, size_t *n_out, long *preemptions)
{
    pgas_trace_header h;
    uint64_t *log = NULL, n = 0;
    char err[256];
    if (pgas_trace_read(path, &h, &log, &n, err, sizeof err) != 0) {
        fprintf(stderr, "shmemu-explore: cannot read the trace: %s\n", err);
        return NULL;
    }
    guide_entry *g = calloc(n + 1, sizeof *g);
    uint64_t *yields = calloc(65536, sizeof *yields);
    if (g == NULL || yields == NULL)
        exit(2);
    size_t used = 0;
    *preemptions = 0;
    for (uint64_t d = 0; d < n; d++) {
        uint32_t from = (uint32_t)(log[2 * d] >> 32), to = (uint32_t)log[2 * d];
        unsigned flags = (unsigned)(log[2 * d + 1] >> 16) & 0xffff;
        uint64_t y;
        if (flags & DEC_NOENT)
            y = from == PGAS_SCHED_NO_ENTITY ? 0 : UINT64_MAX;
        else
            y = from < 65536 ? yields[from]++ : 0;
        if ((flags & DEC_NOENT) || to != from) {
            g[used] = (guide_entry){from, y, to, (flags & DEC_PREEMPT) != 0, false};
            used++;
        }
        if (flags & DEC_PREEMPT)
            (*preemptions)++;
    }
    free(yields);
    free(log);
    *n_out = used;
    return g;
}

static void write_guide(const char *path, const guide_entry *g, size_t n)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "shmemu-explore: cannot write %s: %s\n", path, strerror(errno));
        exit(2);
    }
    for (size_t i = 0; i < n; i++)
        if (!g[i].dropped)
            fprintf(f, "%u %llu %u\n", g[i].from, (unsigned long long)g[i].yield, g[i].target);
    fclose(f);
}

/* Runs the guide; true when the run still fails (its trace left at trace_path). */
static bool guided_fails(const explore_opts *o, const result *ref, const guide_entry *g,
                         size_t n, const char *guide_path, const char *trace_path,
                         char *reason, size_t reason_len)
{
    write_guide(guide_path, g, n);
    char e1[700], e2[700];
    concat(e1, sizeof e1, "SHMEMU_SCHED_GUIDE=", guide_path);
    concat(e2, sizeof e2, "SHMEMU_TRACE_OUT=", trace_path);
    char *env[] = {e1, e2, NULL};
    explore_opts quiet = *o;
    quiet.quiet = true;
    run_result r;
    run_once(&quiet, env, ref, NULL, &r);
    free(r.out.data);
    if (r.failed)
        snprintf(reason, reason_len, "%s", r.reason);
    return r.failed;
}

static long count_preemptions(const char *trace_path)
{
    size_t n;
    long p = 0;
    guide_entry *g = trace_switches(trace_path, &n, &p);
    free(g);
    return g != NULL ? p : -1;
}

/* One round of shrinking the schedule of trace `from`: drops chunks of its preemptions
 * (all of them, then halves, quarters, ... down to single ones), keeping every drop under
 * which the run still fails. True when some guided run failed; its trace is left at best. */
static bool shrink_round(const explore_opts *o, const result *ref, const char *from,
                         const char *best, int *runs)
{
    size_t n = 0;
    long p = 0;
    guide_entry *g = trace_switches(from, &n, &p);
    size_t *pre = malloc((n + 1) * sizeof *pre), n_pre = 0;
    if (g == NULL || pre == NULL) {
        free(g);
        free(pre);
        return false;
    }
    char guide_path[700], try_trace[700], why[1024];
    concat(guide_path, sizeof guide_path, from, ".guide");
    concat(try_trace, sizeof try_trace, from, ".try");
    bool have_best = false;
    for (size_t j = 0; j < n; j++)
        if (g[j].preemption)
            pre[n_pre++] = j;
    for (size_t chunk = n_pre; chunk >= 1 && *runs < o->shrink_runs; chunk /= 2) {
        for (size_t at = 0; at < n_pre && *runs < o->shrink_runs; at += chunk) {
            size_t dropped_now = 0;
            for (size_t j = at; j < at + chunk && j < n_pre; j++)
                if (!g[pre[j]].dropped) {
                    g[pre[j]].dropped = true;
                    dropped_now++;
                }
            if (dropped_now == 0)
                continue;
            (*runs)++;
            if (guided_fails(o, ref, g, n, guide_path, try_trace, why, sizeof why)) {
                rename(try_trace, best);
                have_best = true;
            } else {
                for (size_t j = at; j < at + chunk && j < n_pre; j++)
                    g[pre[j]].dropped = false;
            }
        }
        if (chunk == 1)
            break;
    }
    free(pre);
    free(g);
    unlink(guide_path);
    unlink(try_trace);
    return have_best;
}

/* ---- the runs of the exploration ------------------------------------------------------- */

/* A schedule's environment: NAME=VALUE strings (vars) and the NULL-ended list of them that
 * run_start takes (env). */
#define SCHEDULE_ENV_MAX 8
typedef struct schedule_env_t {
    char vars[SCHEDULE_ENV_MAX][700];
    char *env[SCHEDULE_ENV_MAX + 1];
    int n;
} schedule_env_t;

/* Adds one NAME=VALUE; too many, or one too long, is a usage error of the explorer's. */
static void env_add(schedule_env_t *se, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void env_add(schedule_env_t *se, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = se->n < SCHEDULE_ENV_MAX
                ? vsnprintf(se->vars[se->n], sizeof se->vars[se->n], fmt, ap) : -1;
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof se->vars[0]) {
        fprintf(stderr, "shmemu-explore: an environment setting of the run is too long\n");
        exit(2);
    }
    se->env[se->n] = se->vars[se->n];
    se->env[++se->n] = NULL;
}

/* The environment of the exploration's run number k (0, 1, ... N-1: the seed
 * first_seed + k; for --strategy delay the k-th delay set of srch, with the seed
 * first_seed), which writes its trace to trace_path. Every setting that picks a run's
 * schedule is made here, and only here. Returns 0. */
static int schedule_env(const explore_opts *o, const explore_search *srch, long k,
                        const char *trace_path, schedule_env_t *se)
{
    se->n = 0;
    se->env[0] = NULL;
    char set[700];
    bool delay = explore_search_delays(srch, k, set, sizeof set);
    env_add(se, "SHMEMU_SCHED=%s", o->strategy);
    env_add(se, "SHMEMU_SEED=%llu", (unsigned long long)(o->first_seed +
                                                         (srch->delay ? 0 : (uint64_t)k)));
    env_add(se, "SHMEMU_PCT_DEPTH=%d", o->pct_depth);
    env_add(se, "SHMEMU_TRACE_OUT=%s", trace_path);
    if (delay)
        env_add(se, "SHMEMU_DELAYS=%s", set);
    return 0;
}

/* The CPUs the explorer may use (sched_getaffinity), at most max of them, into cpus;
 * returns how many (at least 1: CPU -1, "do not pin", when none can be read). */
static int usable_cpus(int *cpus, int max)
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE && n < max; c++)
            if (CPU_ISSET(c, &set))
                cpus[n++] = c;
    if (n == 0)
        cpus[n++] = -1;
    return n;
}

/* One of the runs at once: its CPU, its own trace file, the run in it. */
typedef struct worker {
    int cpu;
    char trace[512];
    run_proc proc;
    long k;              /* the run number it runs */
} worker;

/* The first failure of an exploration: the run number, the worker whose trace holds it. */
typedef struct first_failure {
    long k;               /* -1: none */
    int worker;
    run_result r;
} first_failure;

/* Runs the exploration's runs 0 .. N-1, at most jobs at once, each on its own CPU, and
 * finds the LOWEST failing run number, whatever jobs is: runs are started in order; once
 * one fails, no later one starts, runs after it are killed, and runs before it go on to
 * their end (one of them may fail too, and is then the first). *done counts the runs that
 * passed or failed (killed ones are not counted). Returns the first failure's k (its
 * result in *ff, its trace in workers[ff->worker].trace), or -1 when every run passed. */
static long explore_runs(const explore_opts *o, explore_search *srch, const result *ref,
                         worker *workers, int jobs, first_failure *ff, long *done)
{
    ff->k = -1;
    ff->worker = 0;
    long next = 0;
    int running = 0;
    for (;;) {
        for (int w = 0; w < jobs && next < explore_search_limit(srch, o) && ff->k < 0; w++) {
            if (workers[w].proc.pid > 0)
                continue;
            schedule_env_t se;
            schedule_env(o, srch, next, workers[w].trace, &se);
            /* removed, not emptied: the run must not see the last run's trace, and the
             * program's rename of its trace over an existing file makes ext4 write the
             * file out at once (auto_da_alloc), a millisecond per run */
            unlink(workers[w].trace);
            run_start(o, se.env, workers[w].cpu, &workers[w].proc);
            workers[w].k = next++;
            running++;
        }
        if (running == 0)
            break;
        run_proc *procs[EXPLORE_MAX_JOBS];
        for (int w = 0; w < jobs; w++)
            procs[w] = &workers[w].proc;
        int status = 0;
        pid_t pid = wait_any(procs, jobs, &status);
        if (pid < 0) {
            fprintf(stderr, "shmemu-explore: waiting for the runs: %s\n", strerror(errno));
            exit(2);
        }
        int w = 0;
        while (w < jobs && workers[w].proc.pid != pid)
            w++;
        if (w == jobs)
            continue; /* not a run of ours */
        running--;
        run_result r;
        run_finish(o, &workers[w].proc, status, ref, workers[w].trace, &r);
        (*done)++;
        char why[700];
        if (explore_search_record(srch, workers[w].k, r.failed, workers[w].trace, why,
                                  sizeof why) != 0) {
            fprintf(stderr, "shmemu-explore: %s\n", why);
            exit(2);
        }
        if (!r.failed || (ff->k >= 0 && workers[w].k > ff->k)) {
            run_result_done(o, &r, false);
            continue;
        }
        if (ff->k >= 0)
            run_result_done(o, &ff->r, false);
        ff->k = workers[w].k;
        ff->worker = w;
        ff->r = r;
        for (int v = 0; v < jobs; v++)
            if (workers[v].proc.pid > 0 && workers[v].k > ff->k) {
                run_cancel(&workers[v].proc);
                running--;
            }
    }
    return ff->k;
}

/* ---- main ---------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: shmemu-explore [--strategy random|pct|rr|delay] [--bound B] [--first-seed S]\n"
            "                      [--coverage-guided] [--pct-depth D]\n"
            "                      [--trace FILE] [--timeout SEC] [--shrink-runs K]\n"
            "                      [--no-shrink] [--quiet] [--ref-unset VAR]...\n"
            "                      [--result-pattern RE | --result-file PATH] [--jobs J]\n"
            "                      [--memory weak|default] N -- PROGRAM [ARGS...]\n"
            "  runs PROGRAM under N seeds of the deterministic scheduler, stops at the first\n"
            "  failure, shrinks it and prints the replay command (docs/sched.md).\n"
            "  J: runs at once, each on a CPU of its own (default: one per CPU the explorer\n"
            "  may use; 1 with --result-file); the failure reported is the lowest seed's.\n"
            "  delay: instead of seeds, every set of at most B delays (default 2) over the base\n"
            "  schedule's choice points, in a fixed order, N runs at most (SHMEMU_DELAYS);\n"
            "  --coverage-guided runs first the pairs whose first delay alone reached a new\n"
            "  switch pair.\n"
            "  --memory weak: the schedules run in the weak-memory mode (SHMEMU_MEMORY=weak:\n"
            "  stores become visible late and out of order, as a GPU allows).\n"
            "  S: 0 to 2^47 - 1 (default 1); D: 1 to 17 (default 3); SEC > 0 (default 120);\n"
            "  K: runs spent shrinking (default 60). The result compared with the free-running\n"
            "  reference: the last stdout line matching \"checksum <value>\" (default), the last\n"
            "  line matching the extended regular expression RE, or the bytes of the file PATH\n"
            "  (removed before each run).\n");
}

extern char **environ;

/* The program's command line, after the shmemu settings of this environment that the run
 * depends on (SHMEMU_NPES, SHMEMU_BUG, SHMEMU_CHECK_NBI, NVSHMEM_SYMMETRIC_SIZE, ...), each
 * quoted for the shell so that the line runs as printed. */
static void print_command(FILE *f, char **argv)
{
    static const char *const own[] = {"SHMEMU_SCHED=", "SHMEMU_SEED=", "SHMEMU_TRACE_OUT=",
                                      "SHMEMU_REPLAY=", "SHMEMU_SCHED_GUIDE=",
                                      "SHMEMU_PCT_DEPTH=", "SHMEMU_DELAYS=", NULL};
    for (char **e = environ; *e != NULL; e++) {
        if (strncmp(*e, "SHMEMU_", 7) != 0 && strncmp(*e, "NVSHMEM_", 8) != 0)
            continue;
        bool skip = false;
        for (int k = 0; own[k] != NULL; k++)
            skip = skip || strncmp(*e, own[k], strlen(own[k])) == 0;
        const char *eq = strchr(*e, '=');
        if (skip || eq == NULL)
            continue;
        fprintf(f, " %.*s", (int)(eq + 1 - *e), *e);
        pgas_sched_put_quoted(f, eq + 1);
    }
    for (char **a = argv; *a != NULL; a++) {
        fputc(' ', f);
        pgas_sched_put_quoted(f, *a);
    }
    fprintf(f, "\n");
}

int main(int argc, char **argv)
{
    explore_opts o;
    char err[512];
    if (explore_parse_args(argc, argv, &o, err, sizeof err) != 0) {
        fprintf(stderr, "shmemu-explore: %s\n", err);
        usage(stderr);
        return 2;
    }
    if (o.help) {
        usage(stdout);
        return 0;
    }
    /* --memory weak: every schedule (not the free-running reference) runs in the weak-memory
     * mode, and the printed replay commands carry it */
    if (o.weak_memory)
        setenv("SHMEMU_MEMORY", "weak", 1);
    char what[600];
    describe_result(&o, what, sizeof what);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    signal(SIGCHLD, SIG_DFL); /* not ignored: ended runs must stay to be reaped */
    sigprocmask(SIG_BLOCK, &chld, &start_mask);

    /* the reference: free-running */
    char *none[] = {NULL};
    run_result ref;
    o.reference = true;
    run_once(&o, none, NULL, NULL, &ref);
    o.reference = false;
    if (ref.failed) {
        fprintf(stderr, "shmemu-explore: the free-running reference run fails (%s); fix that "
                        "first\n", ref.reason);
        free(ref.out.data);
        return 2;
    }
    if (!ref.out.found && o.result != EXPLORE_RESULT_CHECKSUM) {
        fprintf(stderr, "shmemu-explore: the free-running reference run %s; check %s\n",
                o.result == EXPLORE_RESULT_FILE ? "wrote no result file" :
                "printed no line matching the pattern", what);
        return 2;
    }
    char shown[256];
    show_result(&o, &ref.out, shown, sizeof shown);
    if (ref.out.found)
        printf("explore: comparing %s with the reference's: %s\n", what, shown);
    else
        printf("explore: the reference printed no line matching \"checksum <value>\": no output "
               "is compared, only exit status, signals and checker reports (choose a result "
               "with --result-pattern or --result-file)\n");
    int cpus[EXPLORE_MAX_JOBS];
    int n_cpus = usable_cpus(cpus, EXPLORE_MAX_JOBS);
    int jobs = o.jobs > 0 ? o.jobs : o.result == EXPLORE_RESULT_FILE ? 1 : n_cpus;
    if (jobs > o.runs)
        jobs = (int)o.runs;
    worker workers[EXPLORE_MAX_JOBS];
    const char *tmp_dir = getenv("TMPDIR"); /* the runs' traces: $TMPDIR, else /tmp */
    if (tmp_dir == NULL || tmp_dir[0] == '\0' || strlen(tmp_dir) > 400)
        tmp_dir = "/tmp";
    for (int w = 0; w < jobs; w++) {
        workers[w] = (worker){.cpu = cpus[w % n_cpus], .k = -1};
        snprintf(workers[w].trace, sizeof workers[w].trace, "%s/shmemu-explore-trace.XXXXXX",
                 tmp_dir);
        int fd = mkstemp(workers[w].trace);
        if (fd < 0) {
            fprintf(stderr, "shmemu-explore: cannot create a temporary file: %s\n",
                    strerror(errno));
            for (int v = 0; v < w; v++)
                unlink(workers[v].trace);
            free(ref.out.data);
            return 2;
        }
        close(fd);
    }
    double t0 = now_s();
    long done = 0;
    first_failure ff;
    explore_search srch;
    explore_search_init(&srch, &o);
    if (explore_runs(&o, &srch, &ref.out, workers, jobs, &ff, &done) >= 0) {
        run_result r = ff.r;
        char name[800];
        explore_search_name(&srch, &o, ff.k, name, sizeof name);
        done = ff.k + 1; /* the seeds up to the failing one, whatever ran beside them */
        char tmp_trace[512];
        snprintf(tmp_trace, sizeof tmp_trace, "%s", workers[ff.worker].trace);
        int keep = open(tmp_trace, O_WRONLY | O_CREAT | O_CLOEXEC, 0600); /* none written: empty */
        if (keep >= 0)
            close(keep);
        for (int w = 0; w < jobs; w++)
            if (w != ff.worker)
                unlink(workers[w].trace);
        run_result_done(&o, &r, true);
        double secs = now_s() - t0;
        printf("explore: %s failed after %ld run(s) in %.2f s: %s\n", name, done, secs,
               r.reason);
        explore_coverage_print(stdout, &srch.coverage);
        explore_search_free(&srch);
        long before = count_preemptions(tmp_trace);
        long after = before;
        int shrink_done = 0;
        char final_trace[600];
        concat(final_trace, sizeof final_trace, tmp_trace, "");
        if (o.shrink && before > 0) {
            /* rounds: each starts from the best failing schedule of the previous one */
            char cur[700], best[700], kept[700];
            concat(cur, sizeof cur, tmp_trace, "");
            concat(best, sizeof best, tmp_trace, ".best");
            concat(kept, sizeof kept, tmp_trace, ".kept");
            for (int round = 0; round < 4 && shrink_done < o.shrink_runs; round++) {
                if (!shrink_round(&o, &ref.out, cur, best, &shrink_done))
                    break;
                long b = count_preemptions(best);
                if (b < 0 || b >= after)
                    break;
                after = b;
                rename(best, kept);
                concat(cur, sizeof cur, kept, "");
                concat(final_trace, sizeof final_trace, kept, "");
            }
            unlink(best);
        }
        if (rename(final_trace, o.trace) != 0) {
            fprintf(stderr, "shmemu-explore: cannot save the trace as %s: %s\n", o.trace,
                    strerror(errno));
            free(ref.out.data);
            return 1;
        }
        if (strcmp(final_trace, tmp_trace) != 0)
            unlink(tmp_trace);
        if (o.shrink)
            printf("explore: shrunk from %ld to %ld preemption(s) (%ld fewer) in %d run(s)\n",
                   before, after, before - after, shrink_done);
        printf("explore: trace saved as %s; replay with:\n  SHMEMU_REPLAY=", o.trace);
        pgas_sched_put_quoted(stdout, o.trace);
        print_command(stdout, o.argv);
        fflush(stdout);
        free(ref.out.data);
        return 1;
    }
    for (int w = 0; w < jobs; w++)
        unlink(workers[w].trace);
    double secs = now_s() - t0;
    explore_search_print_pass(stdout, &srch, &o, done, secs);
    explore_search_free(&srch);
    fflush(stdout);
    free(ref.out.data);
    return 0;
}
