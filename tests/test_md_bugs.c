/*
 * test_md_bugs.c: the catalogue of planted protocol bugs (shmemu/bugs.h).
 *   - the registry: names unique and well formed, one entry per id in order, every entry's
 *     plant present in the file it names (the text shmemu_bug(SHMEMU_BUG_<NAME>)), the
 *     bulk-copy plants configured with --bulk-copy on;
 *   - SHMEMU_BUG parsing: empty is no bug, each name its bug, an unknown name an error
 *     that names the value and lists every name; in a child process, an unknown name stops
 *     the program before main() with status 2, a known one is active in main();
 *   - plants that corrupt data without a race are caught by the checksum: with the bug the
 *     parallel run differs from the 1-PE reference at some step, without it (same process,
 *     same system) it matches at every step. These plants are race-free by construction
 *     (the data is wrong, the ordering right), so this suite stays clean under helgrind,
 *     DRD and TSan; the racy plants are measured by scripts/detection-matrix.sh.
 * (An md suite, test_md_*, so that it links the md library.)
 */
#include <errno.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "par.h"
#include "shmemu/bugs.h"
#include "test_md_util.h"

/* This program's path (argv[0]): test_env runs it again. Not /proc/self/exe, which under
 * valgrind is the tool. */
static const char *self_path;

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            cap *= 2;
            char *b = realloc(buf, cap);
            if (b == NULL) {
                free(buf);
                buf = NULL;
            }
            buf = b;
        }
    }
    fclose(f);
    if (buf != NULL)
        buf[n] = '\0';
    return buf;
}

static void test_catalogue(void **state)
{
    (void)state;
    size_t n;
    const shmemu_bug_info *cat = shmemu_bug_catalogue(&n);
    assert_int_equal(n, SHMEMU_BUG_COUNT - 1);
    assert_true(n >= 20);
    for (size_t i = 0; i < n; i++) {
        const shmemu_bug_info *b = &cat[i];
        assert_int_equal(b->id, (int)i + 1);
        assert_non_null(b->name);
        assert_true(strlen(b->name) >= 3);
        for (const char *c = b->name; *c; c++)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
                fail_msg("bug %zu: name '%s' has '%c'; use a-z, 0-9 and '-'", i, b->name, *c);
        assert_true(strlen(b->what) > 10);
        assert_true(strstr(b->config, "--pes") != NULL);
        /* A plant on the direct path's bulk copies runs only with them on (the CPU build's
         * default is off). */
        if (strncmp(b->name, "bulk-", 5) == 0 && strstr(b->config, "--bulk-copy on") == NULL)
            fail_msg("bug '%s': its configuration '%s' lacks --bulk-copy on", b->name,
                     b->config);
        for (size_t j = 0; j < i; j++)
            if (strcmp(cat[j].name, b->name) == 0)
                fail_msg("bug name '%s' appears twice", b->name);
        assert_ptr_equal(shmemu_bug_by_name(b->name), b);
        /* The plant is where the catalogue says: the file holds shmemu_bug(<enum>), and
         * the enum's name is the bug's name in upper case with '_' for '-'. */
        char path[1024], needle[256];
        snprintf(path, sizeof path, "%s/../../%s", MD_TEST_DATA_DIR, b->file);
        int k = snprintf(needle, sizeof needle, "shmemu_bug(SHMEMU_BUG_");
        for (const char *c = b->name; *c && k < (int)sizeof needle - 2; c++)
            needle[k++] = *c == '-' ? '_' : (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
        needle[k++] = ')';
        needle[k] = '\0';
        char *src = read_file(path);
        if (src == NULL)
            fail_msg("bug '%s': its plant file %s cannot be read", b->name, path);
        if (strstr(src, needle) == NULL)
            fail_msg("bug '%s': %s does not contain %s", b->name, b->file, needle);
        free(src);
    }
    assert_null(shmemu_bug_by_name("no-such-bug"));
    assert_null(shmemu_bug_by_name(""));
}

static void test_parse(void **state)
{
    (void)state;
    char msg[4096];
    shmemu_bug_id id = SHMEMU_BUG_COUNT;
    assert_int_equal(shmemu_bug_parse(NULL, &id, msg, sizeof msg), 0);
    assert_int_equal(id, SHMEMU_BUG_NONE);
    id = SHMEMU_BUG_COUNT;
    assert_int_equal(shmemu_bug_parse("", &id, msg, sizeof msg), 0);
    assert_int_equal(id, SHMEMU_BUG_NONE);
    size_t n;
    const shmemu_bug_info *cat = shmemu_bug_catalogue(&n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(shmemu_bug_parse(cat[i].name, &id, msg, sizeof msg), 0);
        assert_int_equal(id, cat[i].id);
    }
    /* Unknown names, including near misses: an error naming the value, listing the names. */
    static const char *bad[] = {"bogus", "X-NOTIFY-RELAXED", "x-notify-relaxed ", "x_notify_relaxed"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        msg[0] = '\0';
        id = SHMEMU_BUG_COUNT;
        assert_int_equal(shmemu_bug_parse(bad[i], &id, msg, sizeof msg), -1);
        assert_int_equal(id, SHMEMU_BUG_NONE);
        assert_non_null(strstr(msg, bad[i]));
        for (size_t j = 0; j < n; j++)
            if (strstr(msg, cat[j].name) == NULL)
                fail_msg("the error for '%s' does not list '%s': %s", bad[i], cat[j].name, msg);
    }
    /* A short buffer is cut, never overrun. */
    char small[24];
    memset(small, 'Z', sizeof small);
    assert_int_equal(shmemu_bug_parse("bogus", &id, small, 16), -1);
    assert_true(memchr(small, '\0', 16) != NULL);
    assert_int_equal(small[16], 'Z');
    /* This process runs without SHMEMU_BUG: correct code. */
    assert_int_equal(shmemu_bug_active(), SHMEMU_BUG_NONE);
}

/* Runs this program with SHMEMU_BUG=value and argument --print-active-bug; returns the
 * exit status and its standard error (first bytes) in err. */
static int run_child(const char *value, char *err, size_t errsize)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    char var[256];
    snprintf(var, sizeof var, "SHMEMU_BUG=%s", value);
    char *envp[] = {var, NULL};
    char *argv[] = {"test_md_bugs", "--print-active-bug", NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, self_path, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    assert_int_equal(rc, 0);
    size_t n = 0;
    ssize_t got;
    while (n + 1 < errsize && (got = read(fd[0], err + n, errsize - n - 1)) > 0)
        n += (size_t)got;
    err[n] = '\0';
    close(fd[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_env(void **state)
{
    (void)state;
    char out[8192];
    assert_int_equal(run_child("no-such-bug", out, sizeof out), 2);
    assert_non_null(strstr(out, "SHMEMU_BUG=no-such-bug is not a planted bug"));
    assert_non_null(strstr(out, "coord-shift-sign"));
    assert_null(strstr(out, "active:")); /* stopped before main() */
    assert_int_equal(run_child("x-notify-relaxed", out, sizeof out), 0);
    assert_non_null(strstr(out, "active: x-notify-relaxed"));
    assert_int_equal(run_child("", out, sizeof out), 0);
    assert_non_null(strstr(out, "active: none"));
}

/* ---- plants caught by the checksum ---------------------------------------------------- */

typedef struct rec {
    uint64_t sum[16];
    long n;
} rec;

static int record(const md_thermo *t, void *ctx)
{
    rec *r = ctx;
    if (t->step >= 0 && t->step < 16)
        r->sum[t->step] = t->checksum;
    r->n++;
    return 0;
}

/* Steps 0..par->steps of sys on grid nx x ny x nz; returns how many steps' checksums
 * differ from ref. */
static long differing_steps(const md_system *sys, const md_params *par, int nx, int ny, int nz,
                            md_transport tr, const uint64_t *ref)
{
    md_ddparams dd = md_test_ddparams(nx, ny, nz, false);
    md_par_opts o;
    md_par_opts_default(&o);
    o.halo = MD_HALO_FUSED;
    o.transport = tr;
    o.sample_every = 1;
    rec r;
    memset(&r, 0, sizeof r);
    md_par_result res;
    md_error err;
    if (md_par_run(sys, par, &dd, &o, record, &r, &res, &err) != 0)
        fail_msg("%dx%dx%d: %s", nx, ny, nz, err.msg);
    assert_int_equal(r.n, par->steps + 1);
    long bad = 0;
    for (long k = 0; k <= par->steps; k++)
        bad += r.sum[k] != ref[k];
    return bad;
}

static void plant_caught(shmemu_bug_id bug, int nx, int ny, int nz, md_transport tr)
{
    md_system sys;
    md_test_fcc(&sys, 4, 4, 4, 1.44, 4242, 0.005);
    md_params par;
    md_params_default(&par);
    par.steps = md_test_scaled(4, 2);
    uint64_t ref[16];
    md_sim *s = md_test_sim(&sys, &par, 1, 1, 1, false);
    ref[0] = md_sim_checksum(s);
    for (long k = 1; k <= par.steps; k++) {
        md_test_step(s, false);
        ref[k] = md_sim_checksum(s);
    }
    md_sim_destroy(s);
    /* Control: correct code matches at every step. */
    assert_int_equal(shmemu_bug_active(), SHMEMU_BUG_NONE);
    assert_int_equal(differing_steps(&sys, &par, nx, ny, nz, tr, ref), 0);
    /* The plant: some step's checksum differs (step 0 is the set-up exchange, done by the
     * host, so the halo kernels first run at step 1). */
    shmemu_bug_select(bug);
    long bad = differing_steps(&sys, &par, nx, ny, nz, tr, ref);
    shmemu_bug_select(SHMEMU_BUG_NONE);
    if (bad == 0)
        fail_msg("bug %d on %dx%dx%d: every checksum matches the reference: the plant no "
                 "longer changes the data", (int)bug, nx, ny, nz);
    md_system_free(&sys);
}

static void test_coord_shift_sign(void **state)
{
    (void)state;
    plant_caught(SHMEMU_BUG_COORD_SHIFT_SIGN, 2, 1, 1, MD_TRANSPORT_DIRECT);
}

static void test_unpack_negated(void **state)
{
    (void)state;
    /* 2D: forwarded atoms too; both transports (the unpack is shared). */
    plant_caught(SHMEMU_BUG_F_UNPACK_NEGATED, 2, 2, 1, MD_TRANSPORT_DIRECT);
    plant_caught(SHMEMU_BUG_F_UNPACK_NEGATED, 2, 2, 1, MD_TRANSPORT_SIGNAL);
}

int main(int argc, char **argv)
{
    self_path = argv[0];
    if (argc == 2 && strcmp(argv[1], "--print-active-bug") == 0) { /* test_env's child */
        shmemu_bug_id id = shmemu_bug_active();
        size_t n;
        const shmemu_bug_info *cat = shmemu_bug_catalogue(&n);
        printf("active: %s\n", id == SHMEMU_BUG_NONE ? "none" : cat[id - 1].name);
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalogue),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_coord_shift_sign),
        cmocka_unit_test(test_unpack_negated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
