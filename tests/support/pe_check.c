/*
 * pe_check.c: per-PE failure recording, and starting PEs (or a forked child) from a test.
 *
 * The failure table is fixed-size and lock-free: a PE claims a slot with one atomic
 * fetch-add and fills it; the test thread reads the table only after shmemu_launch has
 * joined every PE thread, which orders the reads after the writes. No mutex, so that a
 * recorded failure adds no happens-before edge between PEs that could hide a race from
 * helgrind or DRD.
 */
#include "pe_check.h"

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "shmemu/internal/checkers.h"
#include "shmemu/pgas.h"

const int pe_counts[PE_COUNTS_MAX] = {1, 2, 3, 8};

int pe_counts_n(void)
{
    int n = pe_check_under_valgrind() ? PE_COUNTS_MAX - 1 : PE_COUNTS_MAX;
    /* On the MPI backend a job of k PEs needs k ranks: the counts mpirun -np gives. */
    int ranks = shmemu_launcher_size();
    while (ranks > 0 && n > 0 && pe_counts[n - 1] > ranks)
        n--;
    return n;
}

bool pe_check_under_valgrind(void) { return shmemu_under_valgrind(); }

bool pe_check_under_race_checker(void)
{
#ifdef SHMEMU_TSAN
    return true;
#else
    return pe_check_under_valgrind();
#endif
}

bool pe_check_own_allocator(void)
{
#if defined(SHMEMU_TSAN) || defined(SHMEMU_ASAN)
    return true;
#else
    return pe_check_under_valgrind();
#endif
}

int pe_check_scaled(int n, int div)
{
    if (!pe_check_under_valgrind())
        return n;
    int m = n / div;
    return m < 1 ? 1 : m;
}

/* ---- the failure table --------------------------------------------------------------- */

#define MAX_RECORDS 64
#define RECORD_TEXT 384

typedef struct failure_record {
    int pe;
    const char *file;
    int line;
    char text[RECORD_TEXT];
} failure_record;

/* The table lives in shared memory, mapped when the program starts: on the process backend
 * PEs 1..N-1 are forked processes, and their failures must reach the test thread too. */
typedef struct failure_table {
    _Atomic int n;
    failure_record records[MAX_RECORDS];
} failure_table;

static failure_table *table;

void *pe_check_shared_calloc(size_t bytes)
{
    void *m = mmap(NULL, bytes > 0 ? bytes : 1, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        fprintf(stderr, "pe_check: cannot map %zu bytes of shared memory: %s\n", bytes,
                strerror(errno));
        abort();
    }
    return m;
}

void pe_check_shared_free(void *p, size_t bytes)
{
    if (p != NULL)
        munmap(p, bytes > 0 ? bytes : 1);
}

__attribute__((constructor)) static void map_failure_table(void)
{
    table = pe_check_shared_calloc(sizeof *table);
}

static void record(const char *file, int line, const char *fmt, va_list ap)
{
    int slot = atomic_fetch_add(&table->n, 1);
    if (slot < MAX_RECORDS) {
        failure_record *r = &table->records[slot];
        r->pe = shmemu_my_pe();
        r->file = file;
        r->line = line;
        vsnprintf(r->text, sizeof r->text, fmt, ap);
    }
}

bool pe_check_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(file, line, fmt, ap);
    va_end(ap);
    return false;
}

bool pe_check_true(bool ok, const char *file, int line, const char *fmt, ...)
{
    if (ok)
        return true;
    va_list ap;
    va_start(ap, fmt);
    record(file, line, fmt, ap);
    va_end(ap);
    return false;
}

bool pe_check_eq_u64(const char *file, int line, const char *a_text, const char *b_text,
                     uint64_t a, uint64_t b)
{
    if (a == b)
        return true;
    return pe_check_fail(file, line, "%s == %s: %" PRIu64 " (0x%" PRIx64 ") != %" PRIu64
                                     " (0x%" PRIx64 ")",
                         a_text, b_text, a, a, b, b);
}

bool pe_check_eq_i64(const char *file, int line, const char *a_text, const char *b_text,
                     int64_t a, int64_t b)
{
    if (a == b)
        return true;
    return pe_check_fail(file, line, "%s == %s: %" PRId64 " != %" PRId64, a_text, b_text, a, b);
}

bool pe_check_eq_bits_double(const char *file, int line, const char *a_text,
                             const char *b_text, double a, double b)
{
    uint64_t ua, ub;
    memcpy(&ua, &a, sizeof ua);
    memcpy(&ub, &b, sizeof ub);
    if (ua == ub)
        return true;
    return pe_check_fail(file, line, "%s == %s (bits): %.17g (0x%016" PRIx64 ") != %.17g (0x%016"
                                     PRIx64 ")",
                         a_text, b_text, a, ua, b, ub);
}

bool pe_check_eq_bits_float(const char *file, int line, const char *a_text, const char *b_text,
                            float a, float b)
{
    uint32_t ua, ub;
    memcpy(&ua, &a, sizeof ua);
    memcpy(&ub, &b, sizeof ub);
    if (ua == ub)
        return true;
    return pe_check_fail(file, line, "%s == %s (bits): %.9g (0x%08" PRIx32 ") != %.9g (0x%08"
                                     PRIx32 ")",
                         a_text, b_text, (double)a, ua, (double)b, ub);
}

bool pe_check_eq_ptr(const char *file, int line, const char *a_text, const char *b_text,
                     const void *a, const void *b)
{
    if (a == b)
        return true;
    return pe_check_fail(file, line, "%s == %s: %p != %p", a_text, b_text, a, b);
}

bool pe_check_mem(const char *file, int line, const char *a_text, const char *b_text,
                  const void *a, const void *b, size_t bytes)
{
    const unsigned char *pa = a, *pb = b;
    for (size_t i = 0; i < bytes; i++) {
        if (pa[i] != pb[i])
            return pe_check_fail(file, line, "%s == %s (%zu bytes): first difference at byte "
                                             "%zu: 0x%02x != 0x%02x",
                                 a_text, b_text, bytes, i, pa[i], pb[i]);
    }
    return true;
}

int pe_check_failures(void) { return atomic_load(&table->n); }

void pe_check_reset(void) { atomic_store(&table->n, 0); }

void pe_check_assert_clean(const char *context)
{
    int n = atomic_load(&table->n);
    if (n == 0)
        return;
    int shown = n < MAX_RECORDS ? n : MAX_RECORDS;
    for (int i = 0; i < shown; i++) {
        const failure_record *r = &table->records[i];
        print_error("%s:%d: PE %d%s%s: check failed: %s\n", r->file, r->line, r->pe,
                    context != NULL ? ", " : "", context != NULL ? context : "", r->text);
    }
    if (n > shown)
        print_error("... and %d more failures\n", n - shown);
    pe_check_reset();
    fail_msg("%d PE check(s) failed%s%s", n, context != NULL ? " at " : "",
             context != NULL ? context : "");
}

/* ---- starting PEs -------------------------------------------------------------------- */

/* After a launch of n PEs that returned rc: fails the test on recorded failures or rc. */
static void check_run(int n, int rc)
{
    char context[32];
    snprintf(context, sizeof context, "%d PE%s", n, n == 1 ? "" : "s");
    pe_check_assert_clean(context);
    if (rc != 0)
        fail_msg("shmemu_launch(%d PEs) returned %d: a PE body returned non-zero", n, rc);
}

int run_pes(int n, int (*body)(void *), void *arg)
{
    pe_check_reset();
    int rc = shmemu_launch(n, body, arg);
    check_run(n, rc);
    return rc;
}

void run_pes_each(int (*body)(void *), void *arg)
{
    for (int i = 0; i < PE_COUNTS_N; i++)
        run_pes(pe_counts[i], body, arg);
}

/* Reads what fd's file holds, from its start. */
static void read_all(int fd, char *out, size_t out_len)
{
    size_t used = 0;
    if (out_len == 0)
        return;
    if (lseek(fd, 0, SEEK_SET) == 0) {
        while (used + 1 < out_len) {
            ssize_t got = read(fd, out + used, out_len - 1 - used);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                break;
            used += (size_t)got;
        }
    }
    out[used] = '\0';
}

int run_pes_capture(int n, int (*body)(void *), void *arg, char *out, size_t out_len)
{
    char path[] = "/tmp/shmemu-stderr-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        fail_msg("mkstemp(%s): %s", path, strerror(errno));
    unlink(path);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    pe_check_reset();
    int rc = shmemu_launch(n, body, arg);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    read_all(fd, out, out_len);
    close(fd);
    if (pe_check_failures() != 0 || rc != 0)
        print_error("stderr of the PEs:\n----\n%s----\n", out);
    check_run(n, rc);
    return rc;
}

void assert_contains(const char *text, const char *needle)
{
    if (strstr(text, needle) != NULL)
        return;
    print_error("text:\n----\n%s----\n", text);
    fail_msg("the text above lacks \"%s\"", needle);
}

/* ---- forked children ----------------------------------------------------------------- */

double child_time_limit(void) { return pe_check_under_valgrind() ? 300.0 : 60.0; }

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

_Noreturn static void child_main(int (*fn)(void *), void *arg, int err_fd)
{
    /* A failure table of its own: the inherited one is shared with the test process, which
     * must not see the failures a child is expected to have. */
    table = pe_check_shared_calloc(sizeof *table);
    /* The child must die of its own faults: undo cmocka's handlers, and write no core
     * file (valgrind's vgcore included) for the aborts that the misuse tests expect. */
    static const int sigs[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGSYS, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    if (dup2(err_fd, STDERR_FILENO) < 0)
        _exit(126);
    close(err_fd);
    setvbuf(stderr, NULL, _IONBF, 0);
    int rc = fn(arg);
    fflush(NULL);
    _exit(rc == 0 ? 0 : (rc & 0xff) != 0 ? rc & 0xff : 1);
}


int run_child(int (*fn)(void *), void *arg, double limit_s, char *out, size_t out_len,
              double *elapsed_s)
{
    char path[] = "/tmp/shmemu-child-stderr-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        fail_msg("mkstemp(%s): %s", path, strerror(errno));
    unlink(path); /* the descriptor keeps the file while parent and child need it */
    fflush(NULL);
    double start = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        fail_msg("fork: %s", strerror(errno));
    }
    if (pid == 0)
        child_main(fn, arg, fd);

    int status = 0;
    bool killed = false;
    for (;;) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid)
            break;
        if (done < 0 && errno != EINTR) {
            close(fd);
            fail_msg("waitpid: %s", strerror(errno));
        }
        if (!killed && now_s() - start > limit_s) {
            kill(pid, SIGKILL);
            killed = true;
        }
        struct timespec tick = {0, 5 * 1000 * 1000};
        nanosleep(&tick, NULL);
    }
    if (elapsed_s != NULL)
        *elapsed_s = now_s() - start;
    read_all(fd, out, out_len);
    close(fd);
    return killed ? -1 : status;
}

/* The scenario as a PE body of a job started inside the child. */
typedef struct scenario_call {
    void (*scenario)(void *);
    void *arg;
    int n_pes;
} scenario_call;

static int scenario_body(void *p)
{
    const scenario_call *call = p;
    call->scenario(call->arg);
    return 0;
}

static int scenario_child(void *p)
{
    const scenario_call *call = p;
    return shmemu_launch(call->n_pes, scenario_body, p);
}

/* "exited with status 3", "killed by signal 6 (Aborted)", ... */
static void describe_status(int status, char *out, size_t len)
{
    if (status == -1)
        snprintf(out, len, "did not finish and was killed after %.0f s", child_time_limit());
    else if (WIFEXITED(status))
        snprintf(out, len, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(out, len, "was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(out, len, "ended with wait status 0x%x", (unsigned)status);
}

void expect_child_failure_any(void (*scenario)(void *), void *arg, int n_pes,
                              const char *const *alternatives)
{
    static char err[64 * 1024];
    /* A misuse scenario ends its process with a message; what it checks is that message,
     * which the native, ASan and TSan runs check. Under valgrind every forked child runs
     * instrumented too, for minutes a suite and nothing a race checker could add, so it is
     * not run there, and the suite says so once (docs/checking.md, "Cost"). */
    if (pe_check_under_valgrind()) {
        static bool said;
        if (!said)
            fprintf(stderr, "pe_check: misuse scenarios (forked children that must fail) are "
                            "checked natively and under ASan and TSan, not under valgrind\n");
        said = true;
        return;
    }
    scenario_call call = {scenario, arg, n_pes};
    int status = run_child(scenario_child, &call, child_time_limit(), err, sizeof err, NULL);
    char how[96];
    describe_status(status, how, sizeof how);
    bool failed_properly = status != -1 &&
                           ((WIFEXITED(status) && WEXITSTATUS(status) != 0) ||
                            (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT));
    bool said_it = false;
    for (const char *const *a = alternatives; *a != NULL; a++)
        said_it = said_it || strstr(err, *a) != NULL;
    if (failed_properly && said_it)
        return;
    print_error("child (%d PE%s) %s; its stderr:\n----\n%s----\n", n_pes, n_pes == 1 ? "" : "s",
                how, err);
    if (!failed_properly)
        fail_msg("the child %s; expected a non-zero exit or SIGABRT", how);
    fail_msg("the child's stderr lacks \"%s\"%s", alternatives[0],
             alternatives[0] != NULL && alternatives[1] != NULL ? " (or an alternative)" : "");
}

void expect_child_failure(void (*scenario)(void *), void *arg, int n_pes,
                          const char *expected_substring)
{
    const char *const alternatives[] = {expected_substring, NULL};
    expect_child_failure_any(scenario, arg, n_pes, alternatives);
}
