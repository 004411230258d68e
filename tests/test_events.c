/*
 * test_events.c: the event log (SHMEMU_EVENTS=FILE, docs/events.md). Small jobs run with
 * the log on and the file is read back by a small reader here: exact counts and order of
 * the events of a known program (a put-with-signal and the wait it satisfies, linked by
 * exactly one happens-before edge), source lines that point at this file's lines, a
 * kernel's launch and block events, barrier edges, byte-identical logs of two
 * deterministic runs with the same seed, and the refusals and early ends (an unwritable
 * file, the process backend, a hang, a fatal error).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "shmemu/emu.h"
#include "shmemu/kernel.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"

/* ---- a small reader of the log ------------------------------------------------------- */

typedef struct ev_file {
    char *text;
    char **lines; /* lines[0] is the header */
    int n;        /* lines, header included */
} ev_file;

static ev_file ev_read(const char *path)
{
    ev_file f = {0};
    FILE *in = fopen(path, "rb");
    assert_non_null(in);
    fseek(in, 0, SEEK_END);
    long len = ftell(in);
    fseek(in, 0, SEEK_SET);
    f.text = calloc((size_t)len + 1, 1);
    assert_int_equal(fread(f.text, 1, (size_t)len, in), (size_t)len);
    fclose(in);
    int cap = 16;
    f.lines = malloc((size_t)cap * sizeof *f.lines);
    for (char *p = f.text; *p != '\0';) {
        char *nl = strchr(p, '\n');
        assert_non_null(nl); /* every line ends with a newline */
        *nl = '\0';
        if (f.n == cap) {
            cap *= 2;
            f.lines = realloc(f.lines, (size_t)cap * sizeof *f.lines);
        }
        f.lines[f.n++] = p;
        p = nl + 1;
    }
    return f;
}

static void ev_free(ev_file *f)
{
    free(f->text);
    free(f->lines);
}

/* The number after "key": in line (the first occurrence), or missing. */
static long long num(const char *line, const char *key, long long missing)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(line, pat);
    return p != NULL ? strtoll(p + strlen(pat), NULL, 10) : missing;
}

/* True when "key":"value" is in line. */
static bool has(const char *line, const char *key, const char *value)
{
    char pat[256];
    snprintf(pat, sizeof pat, "\"%s\":\"%s\"", key, value);
    return strstr(line, pat) != NULL;
}

static bool is_op(const char *line, const char *op) { return has(line, "op", op); }

static int count_op(const ev_file *f, const char *op)
{
    int n = 0;
    for (int i = 1; i < f->n; i++)
        n += is_op(f->lines[i], op);
    return n;
}

/* The line of the only event of op (fails unless exactly one). */
static const char *only(const ev_file *f, const char *op)
{
    const char *found = NULL;
    for (int i = 1; i < f->n; i++)
        if (is_op(f->lines[i], op)) {
            assert_null(found);
            found = f->lines[i];
        }
    assert_non_null(found);
    return found;
}

/* The header and the numbering: "events" lines follow, seq 0..N-1 in order. */
static void check_frame(const ev_file *f, int npes)
{
    assert_true(f->n >= 1);
    assert_int_equal(num(f->lines[0], "shmemu_events", -1), 1);
    assert_int_equal(num(f->lines[0], "npes", -1), npes);
    assert_true(has(f->lines[0], "backend", "threads"));
    assert_int_equal(num(f->lines[0], "events", -1), f->n - 1);
    assert_int_equal(num(f->lines[0], "dropped", -1), 0);
    for (int i = 1; i < f->n; i++)
        assert_int_equal(num(f->lines[i], "seq", -1), i - 1);
}

static void path_for(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/shmemu-events-%d-%s.jsonl", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid(), name);
}

static int run_logged(const char *path, int n, int (*body)(void *))
{
    setenv("SHMEMU_EVENTS", path, 1);
    int rc = run_pes(n, body, NULL);
    unsetenv("SHMEMU_EVENTS");
    return rc;
}

/* ---- wait_until_any and _some --------------------------------------------------------- */

static int any_line, some_line, set_line;

/* PE 1 sets word 2 of PE 0's four to 5 with an atomic; PE 0 waits for any word to become 5.
 * Then PE 1 sets words 0 and 3 before a barrier, and PE 0 waits for some: both hold. */
static int any_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    long *w = nvshmem_calloc(4, sizeof *w);
    size_t idx[4];
    if (nvshmem_my_pe() == 1) {
        set_line = __LINE__; nvshmem_long_atomic_set(&w[2], 5, 0);
    } else {
        any_line = __LINE__; size_t i = nvshmem_long_wait_until_any(w, 4, NULL, NVSHMEM_CMP_EQ, 5);
        PE_CHECK_EQ_I64((long)i, 2);
    }
    nvshmem_barrier_all();
    if (nvshmem_my_pe() == 1) {
        nvshmem_long_atomic_set(&w[0], 5, 0);
        nvshmem_long_atomic_set(&w[3], 5, 0);
    }
    nvshmem_barrier_all(); /* both words set before the wait: it finds exactly two */
    if (nvshmem_my_pe() == 0) {
        const int skip[4] = {0, 1, 1, 0}; /* only 0 and 3 */
        some_line = __LINE__; size_t n = nvshmem_long_wait_until_some(w, 4, idx, skip, NVSHMEM_CMP_EQ, 5);
        PE_CHECK_EQ_I64((long)n, 2);
    }
    nvshmem_barrier_all();
    nvshmem_free(w);
    nvshmem_finalize();
    return 0;
}

/* wait_until_any: one wait_start, one wait_done on the word found, with the value seen and
 * the edge from PE 1's atomic; wait_until_some: a wait_done per word found. */
static void test_wait_any_some(void **state)
{
    (void)state;
    char path[256];
    path_for(path, sizeof path, "any");
    assert_int_equal(run_logged(path, 2, any_body), 0);
    ev_file f = ev_read(path);
    check_frame(&f, 2);
    int starts = 0, any_done = 0, some_done = 0;
    long long any_done_seq = -1, set_seq = -1;
    for (int i = 1; i < f.n; i++) {
        const char *l = f.lines[i];
        if (is_op(l, "wait_start")) {
            starts++;
            assert_true(num(l, "line", -1) == any_line || num(l, "line", -1) == some_line);
        }
        if (is_op(l, "wait_done")) {
            assert_int_equal(num(l, "seen", -1), 5);
            if (num(l, "line", -1) == any_line) {
                any_done++;
                any_done_seq = num(l, "seq", -1);
                assert_true(strstr(l, "\"off\":16") != NULL); /* word 2 of 8 bytes */
            } else {
                assert_int_equal(num(l, "line", -1), some_line);
                some_done++;
            }
        }
        if (num(l, "line", -1) == set_line && num(l, "pe", -1) == 1)
            set_seq = num(l, "seq", -1);
    }
    assert_int_equal(starts, 2);
    assert_int_equal(any_done, 1);
    assert_int_equal(some_done, 2);
    assert_true(set_seq >= 0 && any_done_seq >= 0);
    int edge = 0;
    for (int i = 1; i < f.n; i++)
        edge += is_op(f.lines[i], "hb") && num(f.lines[i], "from", -1) == set_seq &&
                num(f.lines[i], "to", -1) == any_done_seq;
    assert_int_equal(edge, 1);
    ev_free(&f);
    unlink(path);
}

/* ---- a put-with-signal and its wait --------------------------------------------------- */

static int put_line, wait_line;

static int signal_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(1, sizeof *sig);
    long *data = nvshmem_calloc(4, sizeof *data);
    long src[4] = {1, 2, 3, 4};
    if (nvshmem_my_pe() == 0) {
        put_line = __LINE__; nvshmem_long_put_signal(data, src, 4, sig, 7, NVSHMEM_SIGNAL_SET, 1);
    } else {
        wait_line = __LINE__; nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, 7);
        PE_CHECK_EQ_I64(data[3], 4);
    }
    nvshmem_barrier_all();
    nvshmem_free(data);
    nvshmem_free(sig);
    nvshmem_finalize();
    return 0;
}

static void test_put_signal_wait(void **state)
{
    (void)state;
    char path[256];
    path_for(path, sizeof path, "signal");
    assert_int_equal(run_logged(path, 2, signal_body), 0);
    ev_file f = ev_read(path);
    check_frame(&f, 2);
    assert_true(has(f.lines[0], "order", "time"));
    const char *put = only(&f, "put_signal");
    const char *start = only(&f, "wait_start");
    const char *done = only(&f, "wait_done");
    assert_int_equal(count_op(&f, "put"), 0);
    /* who, where, what */
    assert_int_equal(num(put, "pe", -1), 0);
    assert_int_equal(num(put, "peer", -1), 1);
    assert_int_equal(num(put, "bytes", -1), 32);
    assert_int_equal(num(put, "value", -1), 7);
    assert_true(has(put, "sig_op", "set"));
    assert_true(has(put, "where", "host"));
    assert_true(strstr(put, "\"dst\":{\"obj\":\"heap@") != NULL);
    assert_int_equal(num(done, "pe", -1), 1);
    assert_int_equal(num(done, "seen", -1), 7);
    assert_true(has(done, "cmp", "eq"));
    /* the source lines are this file's */
    assert_int_equal(num(put, "line", -1), put_line);
    assert_int_equal(num(start, "line", -1), wait_line);
    assert_int_equal(num(done, "line", -1), wait_line);
    assert_true(strstr(put, "test_events.c\"") != NULL);
    /* order */
    long long s_put = num(put, "seq", -1), s_start = num(start, "seq", -1);
    long long s_done = num(done, "seq", -1);
    assert_true(s_start < s_done);
    assert_true(s_put < s_done);
    /* exactly one signal edge: that put_signal to that wait_done */
    int signal_edges = 0;
    for (int i = 1; i < f.n; i++) {
        const char *l = f.lines[i];
        if (!is_op(l, "hb") || !has(l, "kind", "signal"))
            continue;
        signal_edges++;
        assert_int_equal(num(l, "from", -1), s_put);
        assert_int_equal(num(l, "to", -1), s_done);
        assert_true(num(l, "seq", -1) > s_done);
    }
    assert_int_equal(signal_edges, 1);
    /* every barrier_done has one edge, from a barrier_start of its team and generation */
    int dones = 0, barrier_edges = 0;
    for (int i = 1; i < f.n; i++) {
        const char *l = f.lines[i];
        dones += is_op(l, "barrier_done");
        if (!is_op(l, "hb") || !has(l, "kind", "barrier"))
            continue;
        barrier_edges++;
        const char *from = f.lines[1 + num(l, "from", -1)];
        const char *to = f.lines[1 + num(l, "to", -1)];
        assert_true(is_op(from, "barrier_start"));
        assert_true(is_op(to, "barrier_done"));
        assert_int_equal(num(from, "generation", -1), num(to, "generation", -2));
        assert_true(has(from, "team", "world") && has(to, "team", "world"));
    }
    assert_true(dones >= 2 * 2); /* the barrier_all, at least, and the frees' */
    assert_int_equal(barrier_edges, dones);
    ev_free(&f);
    unlink(path);
}

/* ---- a kernel's blocks ---------------------------------------------------------------- */

typedef struct blocks_args {
    int unused;
} blocks_args;

KERNEL(three_blocks, blocks_args, a)
{
    (void)a;
    if (threadIdx.x == 2)
        nvshmem_fence();
}

static int kernel_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    blocks_args a = {0};
    LAUNCH(three_blocks, DIM3(3, 1, 1), DIM3(4, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    nvshmem_finalize();
    return 0;
}

static void test_kernel_blocks(void **state)
{
    (void)state;
    char path[256];
    path_for(path, sizeof path, "kernel");
    assert_int_equal(run_logged(path, 1, kernel_body), 0);
    ev_file f = ev_read(path);
    check_frame(&f, 1);
    const char *launch = only(&f, "launch");
    assert_true(has(launch, "kernel", "three_blocks"));
    assert_true(strstr(launch, "\"grid\":[3,1,1],\"block_dim\":[4,1,1]") != NULL);
    long long id = num(launch, "launch", -1), s_launch = num(launch, "seq", -1);
    assert_int_equal(count_op(&f, "block_start"), 3);
    assert_int_equal(count_op(&f, "block_end"), 3);
    long long started[3] = {-1, -1, -1}, ended[3] = {-1, -1, -1};
    int fences[3] = {0, 0, 0};
    for (int i = 1; i < f.n; i++) {
        const char *l = f.lines[i];
        bool s = is_op(l, "block_start"), e = is_op(l, "block_end");
        if (is_op(l, "fence")) {
            assert_true(has(l, "where", "block"));
            assert_int_equal(num(l, "thread", -9), 2);
            long long b = num(l, "block", -1);
            assert_true(b >= 0 && b < 3);
            fences[b]++;
        }
        if (!s && !e)
            continue;
        assert_true(has(l, "where", "block") && has(l, "kernel", "three_blocks"));
        assert_int_equal(num(l, "launch", -1), id);
        assert_int_equal(num(l, "thread", -9), -1);
        assert_true(num(l, "sm", -1) >= 0);
        long long b = num(l, "block", -1);
        assert_true(b >= 0 && b < 3);
        long long *slot = s ? &started[b] : &ended[b];
        assert_int_equal(*slot, -1); /* once per block */
        *slot = num(l, "seq", -1);
        assert_true(*slot > s_launch);
    }
    for (int b = 0; b < 3; b++) {
        assert_true(started[b] >= 0 && started[b] < ended[b]);
        assert_int_equal(fences[b], 1);
    }
    ev_free(&f);
    unlink(path);
}

/* ---- deterministic runs --------------------------------------------------------------- */

static int ring_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    uint64_t *sig = nvshmem_calloc(1, sizeof *sig);
    int *data = nvshmem_calloc(1, sizeof *data);
    for (int round = 1; round <= 2; round++) {
        nvshmem_int_put_signal(data, &me, 1, sig, (uint64_t)round, NVSHMEM_SIGNAL_SET,
                               (me + 1) % n);
        nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, (uint64_t)round);
        nvshmem_barrier_all();
    }
    nvshmem_free(data);
    nvshmem_free(sig);
    nvshmem_finalize();
    return 0;
}

static char *slurp(const char *path)
{
    ev_file f = ev_read(path);
    free(f.lines);
    return f.text;
}

static void test_deterministic_identical(void **state)
{
    (void)state;
    char a[256], b[256];
    path_for(a, sizeof a, "sched-a");
    path_for(b, sizeof b, "sched-b");
    setenv("SHMEMU_SCHED", "random", 1);
    setenv("SHMEMU_SEED", "5", 1);
    assert_int_equal(run_logged(a, 3, ring_body), 0);
    assert_int_equal(run_logged(b, 3, ring_body), 0);
    unsetenv("SHMEMU_SCHED");
    unsetenv("SHMEMU_SEED");
    char *x = slurp(a), *y = slurp(b);
    assert_string_equal(x, y);
    free(x);
    free(y);
    ev_file f = ev_read(a);
    check_frame(&f, 3);
    assert_true(has(f.lines[0], "order", "sched") && has(f.lines[0], "sched", "random"));
    assert_int_equal(num(f.lines[0], "seed", -1), 5);
    for (int i = 1; i < f.n; i++)
        if (!is_op(f.lines[i], "hb"))
            assert_int_equal(num(f.lines[i], "t", -1), i - 1); /* t is the order */
    assert_int_equal(count_op(&f, "put_signal"), 6);
    assert_int_equal(count_op(&f, "wait_done"), 6);
    /* every wait_done acquired from the put_signal whose value it saw, sent to its PE */
    for (int i = 1; i < f.n; i++) {
        const char *w = f.lines[i];
        if (!is_op(w, "wait_done"))
            continue;
        int edges = 0;
        for (int j = i + 1; j < f.n; j++) {
            const char *l = f.lines[j];
            if (!is_op(l, "hb") || num(l, "to", -1) != i - 1)
                continue;
            edges++;
            const char *from = f.lines[1 + num(l, "from", -1)];
            assert_true(is_op(from, "put_signal") && has(l, "kind", "signal"));
            assert_int_equal(num(from, "peer", -1), num(w, "pe", -2));
            assert_int_equal(num(from, "value", -1), num(w, "seen", -2));
        }
        assert_int_equal(edges, 1);
    }
    ev_free(&f);
    unlink(a);
    unlink(b);
}

/* ---- refusals and early ends ---------------------------------------------------------- */

typedef struct child_case {
    const char *events;
    const char *backend;
    int (*body)(void *);
    const char *hang_timeout; /* SHMEMU_HANG_TIMEOUT, or NULL */
} child_case;

static int child_main(void *arg)
{
    const child_case *c = arg;
    setenv("SHMEMU_EVENTS", c->events, 1);
    if (c->backend != NULL)
        setenv("SHMEMU_BACKEND", c->backend, 1);
    if (c->hang_timeout != NULL)
        setenv("SHMEMU_HANG_TIMEOUT", c->hang_timeout, 1);
    return shmemu_launch(2, c->body, NULL);
}

static int hang_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(1, sizeof *sig);
    if (nvshmem_my_pe() == 1) {
        nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, 9);
    }
    nvshmem_barrier_all();
    nvshmem_finalize();
    return 0;
}

static int misuse_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *x = nvshmem_malloc(sizeof *x);
    nvshmem_int_p(x, 1, 99); /* no PE 99 */
    nvshmem_finalize();
    return 0;
}

static int quiet_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    nvshmem_finalize();
    return 0;
}

static void test_refusals(void **state)
{
    (void)state;
    char out[8192];
    child_case bad_file = {"/nonexistent-dir/x/events.jsonl", NULL, quiet_body, NULL};
    int st = run_child(child_main, &bad_file, child_time_limit(), out, sizeof out, NULL);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    assert_contains(out, "SHMEMU_EVENTS=/nonexistent-dir/x/events.jsonl cannot be written");
    char path[256];
    path_for(path, sizeof path, "process");
    child_case process = {path, "process", quiet_body, NULL};
    st = run_child(child_main, &process, child_time_limit(), out, sizeof out, NULL);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    assert_contains(out, "the event log records the threads backend only");
    assert_int_equal(access(path, F_OK), -1);
}

static void test_early_ends(void **state)
{
    (void)state;
    char out[16384], path[256];
    path_for(path, sizeof path, "hang");
    child_case hang = {path, NULL, hang_body, "1"};
    int st = run_child(child_main, &hang, child_time_limit(), out, sizeof out, NULL);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    ev_file f = ev_read(path);
    check_frame(&f, 2);
    const char *h = only(&f, "hang");
    assert_true(strstr(h, "SHMEMU_HANG_TIMEOUT") != NULL);
    assert_true(strstr(h, "\"waits\":[{\"pe\":") != NULL);
    /* PE 1's wait, with the line of its call (hang_line, which only the child set) */
    const char *w = strstr(h, "\"value\":9,\"seen\":0");
    assert_non_null(w);
    const char *start = NULL;
    for (int i = 1; i < f.n; i++)
        if (is_op(f.lines[i], "wait_start") && num(f.lines[i], "value", -1) == 9)
            start = f.lines[i];
    assert_non_null(start);
    assert_int_equal(count_op(&f, "wait_done"), 0);
    assert_int_equal(num(w, "line", -1), num(start, "line", -2));
    assert_true(strstr(start, "test_events.c\"") != NULL);
    ev_free(&f);
    unlink(path);

    path_for(path, sizeof path, "error");
    child_case misuse = {path, NULL, misuse_body, NULL};
    st = run_child(child_main, &misuse, child_time_limit(), out, sizeof out, NULL);
    assert_false(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    f = ev_read(path);
    check_frame(&f, 2);
    const char *e = only(&f, "error");
    assert_true(strstr(e, "nvshmem_int_p") != NULL && strstr(e, "99") != NULL);
    assert_true(num(e, "seq", -1) == f.n - 2); /* the last event */
    ev_free(&f);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_signal_wait),
        cmocka_unit_test(test_wait_any_some),
        cmocka_unit_test(test_kernel_blocks),
        cmocka_unit_test(test_deterministic_identical),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_early_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
