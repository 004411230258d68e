/*
 * test_sched_md.c: the MD app under the deterministic scheduler (docs/sched.md).
 *   - every strategy gives the free-running checksum at every step, bit for bit, for the
 *     fused and the per-pulse halo kernels on 4 PEs in 2D;
 *   - the traces checked in under tests/traces/ replay: the same schedule (hash) and the
 *     recorded checksums at every step. A change of the program's sync points makes the
 *     replay report its first divergent decision and fail here; `make sched-traces`
 *     records the traces again (SCHED_RECORD=1), after such a change was meant.
 */
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include "par.h"
#include "shmemu/pgas.h"
#include "support/sched_env.h"
#include "test_md_util.h"

#define STEPS 3

typedef struct rec {
    uint64_t sum[STEPS + 1];
    long n;
} rec;

static int record(const md_thermo *t, void *ctx)
{
    rec *r = ctx;
    if (t->step >= 0 && t->step <= STEPS)
        r->sum[t->step] = t->checksum;
    r->n++;
    return 0;
}

static void small_system(md_system *sys, md_params *par)
{
    md_test_fcc(sys, 4, 4, 4, 1.44, 4242, 0.005);
    md_params_default(par);
    par->nstlist = 2;
    par->steps = STEPS;
}

/* One run of 2x2x1 PEs; the scheduler is whatever the environment says. */
static void run_md(md_halo_kind halo, rec *r, shmemu_sched_stats *st)
{
    md_system sys;
    md_params par;
    small_system(&sys, &par);
    md_ddparams dd = md_test_ddparams(2, 2, 1, false);
    md_par_opts o;
    md_par_opts_default(&o);
    o.halo = halo;
    o.sample_every = 1;
    memset(r, 0, sizeof *r);
    md_par_result res;
    md_error err;
    if (md_par_run(&sys, &par, &dd, &o, record, r, &res, &err) != 0)
        fail_msg("md_par_run: %s", err.msg);
    assert_int_equal(r->n, STEPS + 1);
    if (st != NULL)
        assert_int_equal(shmemu_sched_last_stats(st), 0);
    md_system_free(&sys);
}

static void test_every_strategy_gives_free_bits(void **state)
{
    (void)state;
    static const char *const strategies[] = {"random", "pct", "rr"};
    for (int h = 0; h < 2; h++) {
        md_halo_kind halo = h ? MD_HALO_PULSE : MD_HALO_FUSED;
        rec ref, got;
        clear_sched();
        run_md(halo, &ref, NULL);
        for (int k = 0; k < 3; k++) {
            if (md_test_valgrind() && k != h)
                continue; /* one strategy per variant under valgrind */
            set_sched(strategies[k], 1 + k);
            shmemu_sched_stats st;
            run_md(halo, &got, &st);
            clear_sched();
            assert_true(st.deterministic);
            assert_true(st.decisions > 100);
            for (int s = 0; s <= STEPS; s++)
                if (got.sum[s] != ref.sum[s])
                    fail_msg("%s halo, %s seed %d, step %d: checksum %016llx, free-running "
                             "%016llx", h ? "pulse" : "fused", strategies[k], 1 + k, s,
                             (unsigned long long)got.sum[s], (unsigned long long)ref.sum[s]);
        }
    }
}

/* ---- the recorded traces ------------------------------------------------------------- */

typedef struct recorded {
    const char *name;
    md_halo_kind halo;
    const char *strategy;
    int seed;
} recorded;

static const recorded traces[] = {
    {"md_fused_2x2_random7", MD_HALO_FUSED, "random", 7},
    {"md_pulse_2x2_pct3", MD_HALO_PULSE, "pct", 3},
};

static void paths(const recorded *t, char *trace, char *expect, size_t len)
{
    snprintf(trace, len, "%s/%s.trace", SCHED_TRACE_DIR, t->name);
    snprintf(expect, len, "%s/%s.expect", SCHED_TRACE_DIR, t->name);
}

/* Writes the expected checksums whole: a temporary file, then rename. */
static void write_expect(const char *path, const rec *r, uint64_t hash)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        fail_msg("cannot write %s: %s", tmp, strerror(errno));
    fprintf(f, "schedule %016llx\n", (unsigned long long)hash);
    for (int s = 0; s <= STEPS; s++)
        fprintf(f, "step %d checksum %016llx\n", s, (unsigned long long)r->sum[s]);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        fail_msg("cannot write %s", path);
}

static void read_expect(const char *path, rec *r, uint64_t *hash)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        fail_msg("cannot open %s (record the traces with `make sched-traces`)", path);
    unsigned long long h = 0, v = 0;
    int step = 0;
    if (fscanf(f, "schedule %llx\n", &h) != 1)
        fail_msg("%s: no schedule line", path);
    *hash = h;
    for (int s = 0; s <= STEPS; s++) {
        if (fscanf(f, "step %d checksum %llx\n", &step, &v) != 2 || step != s)
            fail_msg("%s: step %d is missing", path, s);
        r->sum[s] = v;
    }
    fclose(f);
}

static void test_recorded_traces_replay(void **state)
{
    (void)state;
    bool record_mode = getenv("SCHED_RECORD") != NULL;
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        const recorded *t = &traces[i];
        char trace[512], expect[512];
        paths(t, trace, expect, sizeof trace);
        rec got;
        shmemu_sched_stats st;
        clear_sched();
        if (record_mode) {
            set_sched(t->strategy, t->seed);
            setenv("SHMEMU_TRACE_OUT", trace, 1);
            run_md(t->halo, &got, &st);
            clear_sched();
            write_expect(expect, &got, st.schedule_hash);
            printf("recorded %s (%llu decisions)\n", trace, (unsigned long long)st.decisions);
            continue;
        }
        rec want;
        uint64_t hash;
        read_expect(expect, &want, &hash);
        setenv("SHMEMU_REPLAY", trace, 1);
        run_md(t->halo, &got, &st);
        clear_sched();
        assert_int_equal(st.seed, (uint64_t)t->seed);
        if (st.schedule_hash != hash)
            fail_msg("%s: the replay made schedule %016llx, the trace %016llx", t->name,
                     (unsigned long long)st.schedule_hash, (unsigned long long)hash);
        for (int s = 0; s <= STEPS; s++)
            if (got.sum[s] != want.sum[s])
                fail_msg("%s, step %d: checksum %016llx, recorded %016llx", t->name, s,
                         (unsigned long long)got.sum[s], (unsigned long long)want.sum[s]);
    }
}

int main(void)
{
    clear_sched();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_strategy_gives_free_bits),
        cmocka_unit_test(test_recorded_traces_replay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
