/*
 * test_md_bugs.c: the catalogue of planted protocol bugs (md_bugs.h, shmemu/bugs.h).
 *   - the registry: md's catalogue registered before the runtime's, names unique and well
 *     formed over both, md's entries one per md_bug_id in order, every entry's plant present
 *     in the file it names (the text md_bug(MD_BUG_<NAME>), or shmemu_bug(SHMEMU_BUG_<NAME>)
 *     for the runtime's and the driver's), every entry configured, the bulk-copy plants
 *     with --bulk-copy on, direct26's (d26-) with --halo direct26; pgas's installed headers
 *     name nothing of md;
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
#include <dirent.h>
#include <errno.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "md_bugs.h"
#include "par.h"
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

/* The plant text of bug b: "<fn>(<PREFIX><NAME>)", NAME its name in upper case with '_'
 * for '-'. */
static void plant_text(const shmemu_bug_info *b, const char *fn, const char *prefix, char *out,
                       size_t size)
{
    int k = snprintf(out, size, "%s(%s", fn, prefix);
    for (const char *c = b->name; *c && k < (int)size - 2; c++)
        out[k++] = *c == '-' ? '_' : (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
    out[k++] = ')';
    out[k] = '\0';
}

static void test_catalogue(void **state)
{
    (void)state;
    size_t n = shmemu_bug_count(), n_md;
    const shmemu_bug_info *md = md_bugs_catalogue(&n_md);
    assert_int_equal(n_md, MD_BUG_END - MD_BUG_X_DEP_WAIT_MISSING);
    assert_int_equal(n, n_md + SHMEMU_BUG_RT_END - 1);
    assert_true(n >= 30);
    assert_null(shmemu_bug_entry(n));
    for (size_t i = 0; i < n; i++) {
        const shmemu_bug_info *b = shmemu_bug_entry(i);
        /* md's first, in md_bug_id order, then the runtime's in shmemu_bug_id order. */
        if (i < n_md) {
            assert_ptr_equal(b, &md[i]);
            assert_int_equal(b->id, MD_BUG_X_DEP_WAIT_MISSING + (int)i);
        } else {
            assert_int_equal(b->id, (int)(i - n_md) + 1);
        }
        assert_non_null(b->name);
        assert_true(strlen(b->name) >= 3);
        for (const char *c = b->name; *c; c++)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
                fail_msg("bug %zu: name '%s' has '%c'; use a-z, 0-9 and '-'", i, b->name, *c);
        assert_true(strlen(b->what) > 10);
        if (b->config == NULL || strstr(b->config, "--pes") == NULL)
            fail_msg("bug '%s' has no shmemu-md configuration", b->name);
        /* A plant on the direct path's bulk copies runs only with them on (the CPU build's
         * default is off). */
        if (strncmp(b->name, "bulk-", 5) == 0 && strstr(b->config, "--bulk-copy on") == NULL)
            fail_msg("bug '%s': its configuration '%s' lacks --bulk-copy on", b->name,
                     b->config);
        /* direct26's plants (its own steps) run with its exchange. */
        if (strncmp(b->name, "d26-", 4) == 0 && strstr(b->config, "--halo direct26") == NULL)
            fail_msg("bug '%s': its configuration '%s' lacks --halo direct26", b->name,
                     b->config);
        for (size_t j = 0; j < i; j++)
            if (strcmp(shmemu_bug_entry(j)->name, b->name) == 0)
                fail_msg("bug name '%s' appears twice", b->name);
        assert_ptr_equal(shmemu_bug_by_name(b->name), b);
        assert_ptr_equal(shmemu_bug_by_id(b->id), b);
        /* The plant is where the catalogue says: the file names the bug's id in a check. */
        char path[1024], md_text[256], rt_text[256];
        snprintf(path, sizeof path, "%s/../../%s", MD_TEST_DATA_DIR, b->file);
        plant_text(b, "md_bug", "MD_BUG_", md_text, sizeof md_text);
        plant_text(b, "shmemu_bug", "SHMEMU_BUG_", rt_text, sizeof rt_text);
        char *src = read_file(path);
        if (src == NULL)
            fail_msg("bug '%s': its plant file %s cannot be read", b->name, path);
        if (strstr(src, md_text) == NULL && strstr(src, rt_text) == NULL)
            fail_msg("bug '%s': %s holds neither %s nor %s", b->name, b->file, md_text, rt_text);
        free(src);
    }
    assert_null(shmemu_bug_by_name("no-such-bug"));
    assert_null(shmemu_bug_by_name(""));
    assert_null(shmemu_bug_by_id(MD_BUG_END));
    /* A second registration of md's catalogue is refused (names and ids taken). */
    assert_int_equal(shmemu_bug_register(md, n_md), -1);
    assert_int_equal(shmemu_bug_count(), n);
}

/* pgas's installed headers (make install: every .h of pgas/include/shmemu) carry nothing of md:
 * no md file, no md bug name or id, no shmemu-md argument. */
static void test_runtime_headers_generic(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/../../pgas/include/shmemu", MD_TEST_DATA_DIR);
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n_md, seen = 0;
    const shmemu_bug_info *md = md_bugs_catalogue(&n_md);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 2, ".h") != 0)
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *src = read_file(path);
        assert_non_null(src);
        seen++;
        static const char *md_words[] = {"md/", "MD_BUG", "md_bug", "--halo", "--pes",
                                         "halo_", "par.c"};
        for (size_t i = 0; i < sizeof md_words / sizeof *md_words; i++)
            if (strstr(src, md_words[i]) != NULL)
                fail_msg("installed header %s names md: '%s'", e->d_name, md_words[i]);
        for (size_t i = 0; i < n_md; i++)
            if (strstr(src, md[i].name) != NULL)
                fail_msg("installed header %s names md's bug '%s'", e->d_name, md[i].name);
        free(src);
    }
    closedir(d);
    assert_true(seen >= 2);
}

static void test_parse(void **state)
{
    (void)state;
    char msg[4096];
    int id = -1;
    assert_int_equal(shmemu_bug_parse(NULL, &id, msg, sizeof msg), 0);
    assert_int_equal(id, SHMEMU_BUG_NONE);
    id = -1;
    assert_int_equal(shmemu_bug_parse("", &id, msg, sizeof msg), 0);
    assert_int_equal(id, SHMEMU_BUG_NONE);
    const size_t n = shmemu_bug_count();
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(shmemu_bug_parse(shmemu_bug_entry(i)->name, &id, msg, sizeof msg), 0);
        assert_int_equal(id, shmemu_bug_entry(i)->id);
    }
    /* Unknown names, including near misses: an error naming the value, listing the names. */
    static const char *bad[] = {"bogus", "X-NOTIFY-RELAXED", "x-notify-relaxed ", "x_notify_relaxed"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        msg[0] = '\0';
        id = -1;
        assert_int_equal(shmemu_bug_parse(bad[i], &id, msg, sizeof msg), -1);
        assert_int_equal(id, SHMEMU_BUG_NONE);
        assert_non_null(strstr(msg, bad[i]));
        for (size_t j = 0; j < n; j++)
            if (strstr(msg, shmemu_bug_entry(j)->name) == NULL)
                fail_msg("the error for '%s' does not list '%s': %s", bad[i],
                         shmemu_bug_entry(j)->name, msg);
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
    assert_int_equal(run_child("rt-fence-noop", out, sizeof out), 0); /* the runtime's */
    assert_non_null(strstr(out, "active: rt-fence-noop"));
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

static void plant_caught(int bug, int nx, int ny, int nz, md_transport tr)
{
    md_system sys;
    md_test_fcc(&sys, 4, 4, 4, 1.44, 4242, 0.005);
    md_params par;
    md_params_default(&par);
    par.steps = md_test_scaled(4, 2);
    uint64_t ref[16];
    md_test_serial_checksums(&sys, &par, ref);
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
    plant_caught(MD_BUG_COORD_SHIFT_SIGN, 2, 1, 1, MD_TRANSPORT_DIRECT);
}

static void test_unpack_negated(void **state)
{
    (void)state;
    /* 2D: forwarded atoms too; both transports (the unpack is shared). */
    plant_caught(MD_BUG_F_UNPACK_NEGATED, 2, 2, 1, MD_TRANSPORT_DIRECT);
    plant_caught(MD_BUG_F_UNPACK_NEGATED, 2, 2, 1, MD_TRANSPORT_SIGNAL);
}

int main(int argc, char **argv)
{
    self_path = argv[0];
    if (argc == 2 && strcmp(argv[1], "--print-active-bug") == 0) { /* test_env's child */
        const int id = shmemu_bug_active();
        printf("active: %s\n", id == SHMEMU_BUG_NONE ? "none" : shmemu_bug_by_id(id)->name);
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalogue),
        cmocka_unit_test(test_runtime_headers_generic),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_coord_shift_sign),
        cmocka_unit_test(test_unpack_negated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
