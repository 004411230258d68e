/*
 * shmemu_explore.c: bin/shmemu-explore, the schedule explorer (docs/sched.md, "Explore").
 *
 *   shmemu-explore [--strategy random|pct|rr] [--first-seed S] [--pct-depth D]
 *                  [--trace FILE] [--timeout SEC] [--shrink-runs K] [--no-shrink] [--quiet]
 *                  [--ref-unset VAR]... [--result-pattern RE | --result-file PATH]
 *                  N -- PROGRAM [ARGS...]
 *
 * Every argument is checked first (explore_args.c): a bad one is a usage error (exit 2)
 * before anything runs. Then it runs PROGRAM once free-running (the reference; without the
 * variables named by --ref-unset, e.g. SHMEMU_BUG, so that a planted bug is checked against
 * correct code), then under the deterministic scheduler with seeds S, S+1, ... S+N-1 (each
 * a fresh process: SHMEMU_SCHED, SHMEMU_SEED and SHMEMU_TRACE_OUT in its environment) and
 * stops at the first failure:
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
#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../src/sched.h"
#include "explore_args.h"

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
} run_result;

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

static char *slurp(const char *path)
{
    char *s = slurp_len(path, NULL);
    return s != NULL ? s : strdup("");
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

/* Runs the program with extra environment settings (NAME=VALUE strings, NULL-ended). */
static void run_once(const explore_opts *o, char *const *env, const result *ref, run_result *r)
{
    if (o->result == EXPLORE_RESULT_FILE)
        unlink(o->result_arg); /* a run that writes no result must not see the last one's */
    char out_path[] = "/tmp/shmemu-explore-out.XXXXXX";
    char err_path[] = "/tmp/shmemu-explore-err.XXXXXX";
    int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
    if (out_fd < 0 || err_fd < 0) {
        fprintf(stderr, "shmemu-explore: cannot create temporary files: %s\n", strerror(errno));
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
        unsetenv("SHMEMU_SCHED");
        unsetenv("SHMEMU_REPLAY");
        unsetenv("SHMEMU_TRACE_OUT");
        unsetenv("SHMEMU_SCHED_GUIDE");
        for (int k = 0; o->reference && k < o->n_ref_unset; k++)
            unsetenv(o->ref_unset[k]);
        for (char *const *e = env; *e != NULL; e++)
            putenv(*e);
        execvp(o->argv[0], o->argv);
        fprintf(stderr, "shmemu-explore: cannot run %s: %s\n", o->argv[0], strerror(errno));
        _exit(127);
    }
    close(out_fd);
    close(err_fd);
    double deadline = now_s() + o->timeout_s;
    int status = 0;
    bool timed_out = false;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            status = 0;
            break;
        }
        if (now_s() > deadline && !timed_out) {
            kill(pid, SIGKILL);
            timed_out = true;
        }
        usleep(200);
    }
    char *out = slurp(out_path), *err = slurp(err_path);
    unlink(out_path);
    unlink(err_path);
    r->failed = false;
    r->reason[0] = '\0';
    r->out = get_result(o, out);
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
    if (r->failed && !o->quiet) {
        /* the first lines of the failing run's report */
        const char *p = strstr(err, "shmemu: ");
        if (p == NULL)
            p = err;
        fprintf(stderr, "%.*s", (int)(strlen(p) > 2000 ? 2000 : strlen(p)), p);
    }
    free(out);
    free(err);
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
    run_once(&quiet, env, ref, &r);
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

/* ---- main ---------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: shmemu-explore [--strategy random|pct|rr] [--first-seed S] [--pct-depth D]\n"
            "                      [--trace FILE] [--timeout SEC] [--shrink-runs K]\n"
            "                      [--no-shrink] [--quiet] [--ref-unset VAR]...\n"
            "                      [--result-pattern RE | --result-file PATH]\n"
            "                      N -- PROGRAM [ARGS...]\n"
            "  runs PROGRAM under N seeds of the deterministic scheduler, stops at the first\n"
            "  failure, shrinks it and prints the replay command (docs/sched.md).\n"
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
                                      "SHMEMU_PCT_DEPTH=", NULL};
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
    char what[600];
    describe_result(&o, what, sizeof what);

    /* the reference: free-running */
    char *none[] = {NULL};
    run_result ref;
    o.reference = true;
    run_once(&o, none, NULL, &ref);
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
    char tmp_trace[] = "/tmp/shmemu-explore-trace.XXXXXX";
    int fd = mkstemp(tmp_trace);
    if (fd < 0) {
        fprintf(stderr, "shmemu-explore: cannot create a temporary file\n");
        free(ref.out.data);
        return 2;
    }
    close(fd);
    double t0 = now_s();
    long done = 0;
    for (long k = 0; k < o.runs; k++) {
        uint64_t seed = o.first_seed + (uint64_t)k;
        char e1[64], e2[64], e3[64], e4[600];
        snprintf(e1, sizeof e1, "SHMEMU_SCHED=%s", o.strategy);
        snprintf(e2, sizeof e2, "SHMEMU_SEED=%llu", (unsigned long long)seed);
        snprintf(e3, sizeof e3, "SHMEMU_PCT_DEPTH=%d", o.pct_depth);
        concat(e4, sizeof e4, "SHMEMU_TRACE_OUT=", tmp_trace);
        char *env[] = {e1, e2, e3, e4, NULL};
        run_result r;
        run_once(&o, env, &ref.out, &r);
        free(r.out.data);
        done++;
        if (!r.failed)
            continue;
        double secs = now_s() - t0;
        printf("explore: seed %llu (%s) failed after %ld run(s) in %.2f s: %s\n",
               (unsigned long long)seed, o.strategy, done, secs, r.reason);
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
    unlink(tmp_trace);
    double secs = now_s() - t0;
    printf("explore: %ld seed(s) of %s passed in %.2f s (%.1f schedules/s)\n", done, o.strategy,
           secs, secs > 0 ? (double)done / secs : 0.0);
    fflush(stdout);
    free(ref.out.data);
    return 0;
}
