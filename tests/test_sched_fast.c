/*
 * test_sched_fast.c: what makes exploration fast keeps every schedule and every result
 * (docs/sched.md, "Explore"):
 *   - shmemu-md's schedules (the trace's "hash:" and decision count) and checksums under
 *     random and pct, seeds 1 to 3, are those the per-process runs gave before the emulator
 *     stopped filling and shadowing all 48 KiB of shared memory per block and started
 *     marking fiber guard pages with madvise (values recorded with the build of commit
 *     ac6cef9; a deliberate change of the sync points changes them, as it changes the traces
 *     of tests/traces);
 *   - the same schedules come out of bin/shmemu-explore with --jobs 2 as with --jobs 1 (its
 *     runs log their seed and trace hash);
 *   - with several jobs the explorer still reports the LOWEST failing seed (a later seed
 *     that fails sooner is not reported), leaves no temporary file and refuses a bad --jobs;
 *   - every byte of a block's shared-memory allocations starts as 0xA5, a static array far
 *     into the 48 KiB included, and a race on such an array is still found (its shadow
 *     records grow with the allocations);
 *   - a fiber that runs 14 KiB past its stack dies on its guard page, free-running
 *     (mprotect) and under the scheduler (madvise(MADV_GUARD_INSTALL));
 *   - a deadlock's report is the same text on every run of its schedule (addresses aside).
 */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmemu/emu.h"
#include "shmemu/kernel.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"
#include "support/run_shell.h"

#define MD_ARGS "--cells 4 --pes 4 --dd 2x2x1 --halo fused --steps 1 --thermo 0"
#define MD_CHECKSUM "checksum 00868ff6105778e5"

/* The schedules of `shmemu-md MD_ARGS` recorded at commit ac6cef9 (one process per run). */
static const struct {
    const char *strategy;
    int seed;
    unsigned decisions;
    const char *hash;
} golden[] = {
    {"random", 1, 1777, "110ed42e3faa3a72"}, {"random", 2, 1776, "243ded00253703c9"},
    {"random", 3, 1775, "b6355bda861d78b7"}, {"pct", 1, 1859, "106642994f14db8e"},
    {"pct", 2, 1879, "78f41ef1d9c16c5f"},    {"pct", 3, 1872, "012fe73365c54367"},
};

/* A private folder for this test's files (removed with rm -rf by the caller). */
static void make_dir(char *out, size_t len, const char *what)
{
    snprintf(out, len, "/tmp/shmemu-test-sched-fast-%d-%s", (int)getpid(), what);
    if (mkdir(out, 0700) != 0)
        fail_msg("cannot make %s", out);
}

static void remove_dir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        print_error("cannot remove %s\n", dir);
}

static void write_script(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, 0700), 0);
}

/* The files left in dir (not . and ..). */
static int files_in(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* ---- schedules ------------------------------------------------------------------------ */

/* One run of shmemu-md as the explorer makes it (SHMEMU_SCHED, SHMEMU_SEED,
 * SHMEMU_TRACE_OUT): its trace's schedule and its checksum are the recorded ones. */
static void test_md_schedules_unchanged(void **state)
{
    (void)state;
    char dir[256], trace[400], cmd[2048];
    static char out[65536];
    make_dir(dir, sizeof dir, "plain");
    snprintf(trace, sizeof trace, "%s/run.trace", dir);
    for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++) {
        snprintf(cmd, sizeof cmd, "SHMEMU_SCHED=%s SHMEMU_SEED=%d SHMEMU_TRACE_OUT=%s %s %s "
                 "&& grep -a -e '^hash:' -e '^decisions:' %s", golden[i].strategy,
                 golden[i].seed, trace, SCHED_MD_BIN, MD_ARGS, trace);
        int rc = run_shell(cmd, out, sizeof out);
        char want_hash[64], want_dec[64];
        snprintf(want_hash, sizeof want_hash, "hash: %s", golden[i].hash);
        snprintf(want_dec, sizeof want_dec, "decisions: %u", golden[i].decisions);
        if (rc != 0 || strstr(out, MD_CHECKSUM) == NULL || strstr(out, want_hash) == NULL ||
            strstr(out, want_dec) == NULL)
            fail_msg("%s seed %d: exit %d; expected \"%s\", \"%s\" and \"%s\" as the runs "
                     "at commit ac6cef9 gave. Output:\n%s", golden[i].strategy, golden[i].seed,
                     rc, MD_CHECKSUM, want_hash, want_dec, out);
    }
    remove_dir(dir);
}

/* The explorer's runs with --jobs 1 and --jobs 2: each seed's schedule is the recorded one
 * (a wrapper logs the seed and the hash of the trace each run wrote), and the explorer
 * compared every checksum with the reference's (it passed). */
static void test_explorer_jobs_keep_schedules(void **state)
{
    (void)state;
    char dir[256], wrapper[400], log[400], cmd[2048], script[1024];
    static char out[65536];
    make_dir(dir, sizeof dir, "jobs");
    snprintf(wrapper, sizeof wrapper, "%s/md.sh", dir);
    snprintf(log, sizeof log, "%s/seeds.log", dir);
    snprintf(script, sizeof script,
             "#!/bin/sh\n%s \"$@\"; rc=$?\n"
             "if [ -n \"$SHMEMU_SEED\" ]; then\n"
             "  echo \"$SHMEMU_SCHED $SHMEMU_SEED $(grep -a '^hash:' \"$SHMEMU_TRACE_OUT\")\" "
             ">> %s\nfi\nexit $rc\n", SCHED_MD_BIN, log);
    write_script(wrapper, script);
    for (int jobs = 1; jobs <= 2; jobs++)
        for (int s = 0; s < 2; s++) {
            const char *strategy = s == 0 ? "random" : "pct";
            unlink(log);
            snprintf(cmd, sizeof cmd, "TMPDIR=%s %s --quiet --jobs %d --strategy %s 3 -- %s %s",
                     dir, SCHED_EXPLORE_BIN, jobs, strategy, wrapper, MD_ARGS);
            int rc = run_shell(cmd, out, sizeof out);
            if (rc != 0 || strstr(out, "3 seed(s) of") == NULL)
                fail_msg("--jobs %d --strategy %s: exit %d; expected 0 (3 seeds passed). "
                         "Output:\n%s", jobs, strategy, rc, out);
            FILE *f = fopen(log, "r");
            assert_non_null(f);
            char lines[4096];
            size_t n = fread(lines, 1, sizeof lines - 1, f);
            lines[n] = '\0';
            fclose(f);
            for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++) {
                if (strcmp(golden[i].strategy, strategy) != 0)
                    continue;
                char want[128];
                snprintf(want, sizeof want, "%s %d hash: %s\n", strategy, golden[i].seed,
                         golden[i].hash);
                if (strstr(lines, want) == NULL)
                    fail_msg("--jobs %d: no run gave \"%.*s\"; the runs logged:\n%s", jobs,
                             (int)strlen(want) - 1, want, lines);
            }
        }
    unlink(log);
    unlink(wrapper);
    if (files_in(dir) != 0)
        fail_msg("the explorer left files in its TMPDIR %s", dir);
    remove_dir(dir);
}

/* ---- the lowest failing seed --------------------------------------------------------- */

/* Seeds 3 and 4 fail; seed 3 takes longer than seed 4 and every passing seed: with two or
 * three runs at once seed 4 ends first, and seed 3 must still be the one reported. */
static void test_jobs_report_the_lowest_failing_seed(void **state)
{
    (void)state;
    char dir[256], prog[400], trace[400], cmd[2048];
    static char out[65536];
    make_dir(dir, sizeof dir, "lowest");
    snprintf(prog, sizeof prog, "%s/prog.sh", dir);
    snprintf(trace, sizeof trace, "%s/saved.trace", dir);
    write_script(prog, "#!/bin/sh\n"
                       "case \"$SHMEMU_SEED\" in\n"
                       "3) sleep 0.4; echo 'checksum bad3';;\n"
                       "4) echo 'checksum bad4'; exit 1;;\n"
                       "*) echo 'checksum good';;\n"
                       "esac\n");
    for (int jobs = 1; jobs <= 3; jobs++) {
        unlink(trace);
        snprintf(cmd, sizeof cmd, "TMPDIR=%s %s --jobs %d --trace %s 10 -- %s", dir,
                 SCHED_EXPLORE_BIN, jobs, trace, prog);
        int rc = run_shell(cmd, out, sizeof out);
        if (rc != 1 || strstr(out, "explore: seed 3 (random) failed after 3 run(s)") == NULL ||
            strstr(out, "\"checksum bad3\"") == NULL || strstr(out, "seed 4") != NULL ||
            access(trace, F_OK) != 0)
            fail_msg("--jobs %d: exit %d; expected 1, seed 3 reported as failing after 3 runs "
                     "(not seed 4) and the trace saved as %s. Output:\n%s", jobs, rc, trace,
                     out);
        unlink(trace);
        if (files_in(dir) != 1) /* prog.sh */
            fail_msg("--jobs %d left temporary files in its TMPDIR %s", jobs, dir);
    }
    remove_dir(dir);
}

/* ---- a deadlock's report is the same on every replay ----------------------------------- */

/* out without its addresses (0x...: ASLR moves them) and its wall-clock line. */
static void strip_unstable(char *out)
{
    char *w = out;
    for (const char *r = out; *r != '\0';) {
        if (r[0] == '0' && r[1] == 'x') {
            r += 2;
            while ((*r >= '0' && *r <= '9') || (*r >= 'a' && *r <= 'f'))
                r++;
            continue;
        }
        if (strncmp(r, "shmemu-md: ", 11) == 0 && strstr(r, " steps in ") != NULL &&
            strstr(r, " steps in ") < strchrnul(r, '\n')) {
            r = strchrnul(r, '\n');
            continue;
        }
        *w++ = *r++;
    }
    *w = '\0';
}

/* A planted bug that deadlocks three PEs (hosts, streams and kernels waiting): the report
 * lists the waiters in the order the schedule gave their entities, not the order the PE
 * threads happened to start in, and the last writer of each word is the same on every run
 * (the table of last writers once lost flags to ASLR-dependent collisions with put data). */
static void test_deadlock_report_replays_exactly(void **state)
{
    (void)state;
    char cmd[1024];
    static char first[65536], out[65536];
    snprintf(cmd, sizeof cmd,
             /* in a TSan build the plant's race is reported too, with thread numbers that
              * differ between runs; the report under test is shmemu's, so TSan's is off */
             "TSAN_OPTIONS=\"$TSAN_OPTIONS report_bugs=0\" "
             "SHMEMU_BUG=d26-ghost-seq-behind SHMEMU_SCHED=random SHMEMU_SEED=1 %s --cells 6,4,4 "
             "--pes 3 --dd 3x1x1 --halo direct26 --transport signal --steps 2 --thermo 0",
             SCHED_MD_BIN);
    for (int run = 0; run < 5; run++) {
        int rc = run_shell(cmd, run == 0 ? first : out, sizeof out);
        if (run == 0) {
            if (rc == 0 || strstr(first, "shmemu: deadlock (deterministic scheduler") == NULL ||
                strstr(first, "last writer: PE ") == NULL)
                fail_msg("expected a deadlock report naming last writers (exit != 0); exit %d. "
                         "Output:\n%s", rc, first);
            strip_unstable(first);
            continue;
        }
        strip_unstable(out);
        if (strcmp(out, first) != 0)
            fail_msg("run %d printed another report than run 1 (addresses aside).\nRun 1:\n%s"
                     "\nRun %d:\n%s", run + 1, first, run + 1, out);
    }
}

/* A bad --jobs is a usage error that names it, and nothing runs. */
static void test_bad_jobs_refused(void **state)
{
    (void)state;
    static const struct { const char *args, *want; } bad[] = {
        {"--jobs 0 3", "--jobs \"0\": use a whole number from 1 to 256"},
        {"--jobs 257 3", "--jobs \"257\": use a whole number from 1 to 256"},
        {"--jobs two 3", "--jobs \"two\""},
        {"--jobs -1 3", "--jobs \"-1\""},
        {"3 --jobs", "--jobs needs a value"},
        {"--jobs 2 --result-file r 3", "the runs at once would write the same file"},
    };
    char dir[256], mark[400], cmd[2048], out[8192];
    make_dir(dir, sizeof dir, "bad");
    snprintf(mark, sizeof mark, "%s/ran", dir);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, "%s %s -- touch %s", SCHED_EXPLORE_BIN, bad[i].args, mark);
        int rc = run_shell(cmd, out, sizeof out);
        if (rc != 2 || strstr(out, bad[i].want) == NULL || access(mark, F_OK) == 0)
            fail_msg("shmemu-explore %s: exit %d%s; expected exit 2 with \"%s\" and no run. "
                     "Output:\n%s", bad[i].args, rc,
                     access(mark, F_OK) == 0 ? " and the program ran" : "", bad[i].want, out);
    }
    remove_dir(dir);
}

/* ---- shared memory's first bytes ----------------------------------------------------- */

typedef unsigned char *byte_ptr; /* KERNEL takes its argument type as one token */

#define DYN_BYTES 40
#define SMALL_BYTES 100
#define LATE_BYTES 20000

/* Copies the first bytes of the dynamic area and of two static arrays, the second ending
 * far into the 48 KiB, to out; with race set, every thread writes one int of the late
 * array and reads its neighbour's with no __syncthreads between. */
typedef struct {
    byte_ptr out;
    int race;
} fill_args;

KERNEL(first_bytes, fill_args, a)
{
    EXTERN_SHARED(unsigned char, dyn);
    SHARED_ARRAY(unsigned char, small, SMALL_BYTES);
    SHARED_ARRAY(int, late, LATE_BYTES / 4);
    int t = (int)threadIdx.x;
    if (a.race) {
        SH_ST(late, LATE_BYTES / 4 - 32 + t, t);
        a.out[t] = (unsigned char)SH_LD(late, LATE_BYTES / 4 - 32 + (t + 1) % 32);
        return;
    }
    if (t != 0)
        return;
    unsigned char *o = a.out;
    memcpy(o, dyn, DYN_BYTES);
    memcpy(o + DYN_BYTES, small, SMALL_BYTES);
    memcpy(o + DYN_BYTES + SMALL_BYTES, late, LATE_BYTES);
}

enum { FILL_TOTAL = DYN_BYTES + SMALL_BYTES + LATE_BYTES };

static void run_first_bytes(int race, unsigned char *host)
{
    fill_args a = {NULL, race};
    assert_int_equal(cudaMalloc((void **)&a.out, FILL_TOTAL), cudaSuccess);
    cudaMemset(a.out, 0, FILL_TOTAL);
    LAUNCH(first_bytes, DIM3(1, 1, 1), DIM3(32, 1, 1), DYN_BYTES, NULL, a);
    cudaDeviceSynchronize();
    if (host != NULL)
        cudaMemcpy(host, a.out, FILL_TOTAL, cudaMemcpyDeviceToHost);
    cudaFree(a.out);
}

static int fill_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    static unsigned char host[FILL_TOTAL];
    run_first_bytes(0, host);
    size_t bad = FILL_TOTAL;
    for (size_t i = 0; i < FILL_TOTAL && bad == FILL_TOTAL; i++)
        if (host[i] != 0xA5)
            bad = i;
    PE_CHECK_MSG(bad == FILL_TOTAL, "byte %zu of the shared allocations (dynamic %d, then %d, "
             "then %d bytes) starts as 0x%02x, not 0xA5", bad, DYN_BYTES, SMALL_BYTES,
             LATE_BYTES, bad < FILL_TOTAL ? host[bad] : 0);
    nvshmem_finalize();
    return 0;
}

static void race_scenario(void *arg)
{
    (void)arg;
    nvshmem_init();
    run_first_bytes(1, NULL);
    nvshmem_finalize();
}

static void test_shared_memory_first_bytes(void **state)
{
    (void)state;
    run_pes(1, fill_body, NULL);
    expect_child_failure(race_scenario, NULL, 1, "shared-memory race");
}

/* ---- fiber stack guards --------------------------------------------------------------- */

typedef int *int_ptr;

/* About 560 bytes of stack a call. */
static int __attribute__((noinline)) deep(int n)
{
    volatile char buf[512];
    buf[0] = (char)n;
    buf[511] = (char)n;
    return n == 0 ? buf[0] : deep(n - 1) + buf[511];
}

/* Thread 1 of the block needs about 78 KiB of its 64 KiB fiber stack: it runs past its guard
 * page by some 14 KiB, into the top of thread 0's stack (which has ended) if the guard is
 * missing, where nothing would notice. */
KERNEL(overflowing, int_ptr, out)
{
    out[threadIdx.x] = threadIdx.x == 1 ? deep(140) : 0;
}

static int overflow_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *out = NULL;
    cudaMalloc((void **)&out, 2 * sizeof(int));
    LAUNCH(overflowing, DIM3(1, 1, 1), DIM3(2, 1, 1), 0, NULL, out);
    cudaDeviceSynchronize();
    cudaFree(out);
    nvshmem_finalize();
    return 0;
}

static int overflow_child(void *arg)
{
    const char *strategy = arg;
    if (strategy != NULL) {
        setenv("SHMEMU_SCHED", strategy, 1);
        setenv("SHMEMU_SEED", "1", 1);
    }
    setenv("SHMEMU_EMU_STACK", "65536", 1);
    return shmemu_launch(1, overflow_body, NULL);
}

/* A fiber that overflows its stack dies on the guard page (SIGSEGV), free-running (mprotect)
 * and under the scheduler (madvise(MADV_GUARD_INSTALL) where the kernel has it). */
static void test_fiber_stack_guard(void **state)
{
    (void)state;
    if (pe_check_own_allocator()) { /* valgrind, or a sanitizer build */
        print_message("under valgrind or a sanitizer, which handle stacks and faults their "
                      "own way: the guard pages are checked by the native build\n");
        skip();
    }
    static const char *const modes[] = {NULL, "random"};
    for (size_t i = 0; i < 2; i++) {
        char out[8192];
        int status = run_child(overflow_child, (void *)modes[i], child_time_limit(), out,
                               sizeof out, NULL);
        /* a sanitizer build reports the fault itself, and exits or aborts */
        bool segv = status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
        bool reported = status != -1 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0) &&
                        (strstr(out, "SEGV") != NULL || strstr(out, "stack-overflow") != NULL);
        if (!segv && !reported)
            fail_msg("%s: a fiber 14 KiB past its 64 KiB stack ended with status 0x%x; "
                     "expected SIGSEGV on its guard page. Output:\n%s",
                     modes[i] != NULL ? "SHMEMU_SCHED=random" : "free-running", status, out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_md_schedules_unchanged),
        cmocka_unit_test(test_explorer_jobs_keep_schedules),
        cmocka_unit_test(test_jobs_report_the_lowest_failing_seed),
        cmocka_unit_test(test_bad_jobs_refused),
        cmocka_unit_test(test_deadlock_report_replays_exactly),
        cmocka_unit_test(test_shared_memory_first_bytes),
        cmocka_unit_test(test_fiber_stack_guard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
