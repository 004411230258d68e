/*
 * test_md_asserts.c: the invariant checks fire, and a failed allocation names what to change.
 *   - MD_ASSERT (md/src/md_assert.h): md_pairlist_check accepts a well-formed list and, in a
 *     forked child, aborts on a pair with i > j and on entries that do not tile the pairs,
 *     printing "shmemu: assertion failed: <expr> (file:line, function)" and a hint (every
 *     search of the other md suites runs it on real lists);
 *   - PGAS_ASSERT (shmemu/internal/assert.h): pgas_heap_check_blocks accepts a covering
 *     block list and aborts on overlapping blocks and on a hole;
 *   - md/src/cuda_check.h: bin/shmemu-md with a symmetric heap too small for its buffers
 *     exits with status 2 naming the PE, the buffer, its bytes and NVSHMEM_SYMMETRIC_SIZE.
 * In a build with -DSHMEMU_NDEBUG the checks compile to nothing: the dying children are
 * skipped there. (An md suite, test_md_*, so that it links the md library and libshmemu.)
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "../pgas/src/internal.h"
#include "pairlist.h"
#include "test_md_util.h"

/* ---- running a check that must die ------------------------------------------------------ */

/* Runs fn(arg) in a child with stderr captured into out; returns the wait status. */
static int run_in_child(void (*fn)(const void *), const void *arg, char *out, size_t len)
{
    char name[] = "/tmp/test_md_asserts.XXXXXX";
    int fd = mkstemp(name);
    assert_true(fd >= 0);
    unlink(name);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fd, 2);
        signal(SIGABRT, SIG_DFL);
        fn(arg);
        _exit(0);
    }
    int st = 0;
    assert_true(waitpid(pid, &st, 0) == pid);
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, out, len - 1);
    out[n > 0 ? n : 0] = '\0';
    close(fd);
    return st;
}

/* fn(arg) must abort with each needle in its stderr. */
static void expect_abort(void (*fn)(const void *), const void *arg, const char *const *needles)
{
#ifdef SHMEMU_NDEBUG
    (void)fn;
    (void)arg;
    (void)needles;
    skip();
#else
    char err[4096];
    int st = run_in_child(fn, arg, err, sizeof err);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGABRT)
        fail_msg("the check did not abort (status %d); stderr: %s", st, err);
    for (; *needles; needles++)
        md_test_contains(err, *needles);
#endif
}

/* ---- pair lists --------------------------------------------------------------------------- */

/* A list of atoms [0, 10): entries (1, shift 13: j 2 4), (1, shift 14: j 3), (5, 13: j 9). */
typedef struct list_case {
    md_ientry ent[3];
    int32_t j[4];
} list_case;

static void list_of(md_pairlist *pl, list_case *lc)
{
    memset(pl, 0, sizeof *pl);
    pl->ent = lc->ent;
    pl->nent = pl->cap_ent = 3;
    pl->j = lc->j;
    pl->npairs = pl->cap_j = 4;
}

static list_case good_list(void)
{
    list_case lc = {{{1, 13, 0, 2}, {1, 14, 2, 3}, {5, 13, 3, 4}}, {2, 4, 3, 9}};
    return lc;
}

static void check_list(const void *arg)
{
    list_case lc = *(const list_case *)arg;
    md_pairlist pl;
    list_of(&pl, &lc);
    md_pairlist_check(&pl, 0, 10);
}

static void test_pairlist_check(void **state)
{
    (void)state;
    list_case lc = good_list();
    check_list(&lc); /* well formed: returns */

    lc.j[3] = 4; /* the pair (5, 4): i > j */
    const char *const i_above_j[] = {"shmemu: assertion failed: pl->j[q] > e->i",
                                     "pairlist.c:", "md_pairlist_check)",
                                     "computed twice", NULL};
    expect_abort(check_list, &lc, i_above_j);

    lc = good_list();
    lc.ent[1].begin = 1; /* overlaps the first entry's pairs */
    const char *const overlap[] = {"assertion failed: e->begin == next", "report it", NULL};
    expect_abort(check_list, &lc, overlap);
}

/* ---- the symmetric heap's block list -------------------------------------------------------- */

typedef struct heap_case {
    pgas_heap_block b[3];
    size_t n;
} heap_case;

static void check_heap(const void *arg)
{
    heap_case hc = *(const heap_case *)arg;
    pgas_heap_allocator a = {.blocks = hc.b, .n_blocks = hc.n, .cap_blocks = 3};
    pgas_heap_check_blocks(&a, 4096);
}

static void test_heap_check(void **state)
{
    (void)state;
    heap_case hc = {{{0, 1024, false}, {1024, 1024, true}, {2048, 2048, false}}, 3};
    check_heap(&hc); /* covering: returns */

    heap_case overlap = hc;
    overlap.b[1].offset = 512;
    const char *const o[] = {"shmemu: PE -1: assertion failed: b->offset == next",
                             "heap.c:", "pgas_heap_check_blocks)", "pgas layer", NULL};
    expect_abort(check_heap, &overlap, o);

    heap_case hole = hc;
    hole.b[2].size = 1024; /* ends at 3072 of 4096 */
    const char *const h[] = {"assertion failed: next == heap_size", NULL};
    expect_abort(check_heap, &hole, h);

    heap_case unmerged = hc;
    unmerged.b[2].free = true; /* two free neighbours */
    const char *const u[] = {"assertion failed: i == 0 || !(b->free && b[-1].free)", NULL};
    expect_abort(check_heap, &unmerged, u);
}

/* ---- a symmetric heap too small --------------------------------------------------------- */

static void test_heap_too_small(void **state)
{
    (void)state;
    char prog[600];
    if (!md_test_find_program(prog, sizeof prog))
        fail_msg("shmemu-md not found next to this test nor in bin/ (md.mk builds it first)");
    /* 13^3 cells: 8788 atoms, cap 8852; pub and bounce take (1 + 11 cap + 64) int64 each,
     * and bounce no longer fits the smallest heap (2 MiB, the rounding unit). */
    char cmd[800];
    snprintf(cmd, sizeof cmd,
             "NVSHMEM_SYMMETRIC_SIZE=2M '%s' --cells 13 --pes 2 --steps 1 2>&1 >/dev/null",
             prog);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char err[8192];
    size_t n = fread(err, 1, sizeof err - 1, p);
    err[n] = '\0';
    int st = pclose(p);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 2)
        fail_msg("want exit status 2, got %d; stderr: %s", st, err);
    md_test_contains(err, "shmemu-md: PE ");
    md_test_contains(err, "symmetric buffer \"bounce\" (779496 bytes)");
    md_test_contains(err, "raise NVSHMEM_SYMMETRIC_SIZE");
    md_test_contains(err, "now 2M");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairlist_check),
        cmocka_unit_test(test_heap_check),
        cmocka_unit_test(test_heap_too_small),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
