/*
 * test_md_par.c: the parallel driver (PE threads, halo kernels) against the serial
 * reference, bit for bit at every step:
 *   - 1 PE serial vs 2, 3, 4, 6, 8, 12 PEs in 1D, 2D and 3D, fused halo, auto transport;
 *   - pulse vs fused, direct vs put-signal, both pulse orders, two-pulse grids;
 *   - repeated runs give the same bits; total momentum exactly zero at every step;
 *   - halo contents: global ids encoded in the coordinates, every received slot checked
 *     (with its periodic shift) at every search, 1D/2D/3D and two pulses, each variant;
 *   - the CPU-initiated baseline (--halo host) and the thread-per-entry force kernels (the
 *     GPU's form, run here on the emulator's fibers) give the same bits;
 *   - --graph is refused by the CPU build, with the reason;
 *   - the direct path's bulk copies (--bulk-copy on: tma_st of the coordinates, tma_ld of
 *     the returned forces) give the store path's bits at every step, and the id-coded halo
 *     contents, in 1D, 2D, 3D and two pulses, fused, pulse and host, with chunks small
 *     enough (and block splits odd enough) to cross chunk and alignment boundaries;
 *   - --timing changes no bit, and its device intervals (per-block %globaltimer stamps)
 *     are sound: not negative, nested as defined, inside the step's events and wall time.
 * Under valgrind (helgrind, DRD) each test runs a sample of its grids and variants, fewer
 * steps, and at most one run of 8 PEs in the suite (docs/checking.md, "Cost").
 */
#include <math.h>

#include "kernels/halo.h" /* MD_BULK_SMEM */
#include "options.h"
#include "par.h"
#include "test_md_util.h"

#define MAXSTEPS 64

typedef struct rec {
    uint64_t sum[MAXSTEPS + 1];
    long n;
    int64_t mom_bad;
} rec;

static int record(const md_thermo *t, void *ctx)
{
    rec *r = ctx;
    if (t->step <= MAXSTEPS)
        r->sum[t->step] = t->checksum;
    r->n++;
    for (int d = 0; d < 3; d++)
        if (t->momentum[d] != 0)
            r->mom_bad++;
    return 0;
}

static const char *halo_str(md_halo_kind h)
{
    return h == MD_HALO_PULSE ? "pulse" : h == MD_HALO_HOST ? "host" : "fused";
}

/* Runs with options o (sample_every is set here) and requires ref at every step. */
static void par_run_opts(const md_system *sys, const md_params *par, int nx, int ny, int nz,
                         bool xyz, md_par_opts o, const uint64_t *ref)
{
    md_ddparams dd = md_test_ddparams(nx, ny, nz, xyz);
    o.sample_every = 1;
    const char *tr = o.transport == MD_TRANSPORT_SIGNAL ? "signal" : "direct";
    const char *fk = o.force == MD_FORCE_THREADS ? " threads"
                     : o.bulk == MD_BULK_ON     ? " bulk"
                                                : "";
    rec r;
    memset(&r, 0, sizeof r);
    md_par_result res;
    md_error err;
    if (md_par_run(sys, par, &dd, &o, record, &r, &res, &err) != 0)
        fail_msg("%dx%dx%d %s %s%s: %s", nx, ny, nz, halo_str(o.halo), tr, fk, err.msg);
    assert_int_equal(r.n, par->steps + 1);
    assert_int_equal(r.mom_bad, 0);
    for (long k = 0; k <= par->steps; k++)
        if (r.sum[k] != ref[k])
            fail_msg("%dx%dx%d %s %s %s%s, step %ld: checksum %016llx, serial %016llx", nx,
                     ny, nz, xyz ? "xyz" : "zyx", halo_str(o.halo), tr, fk, k,
                     (unsigned long long)r.sum[k], (unsigned long long)ref[k]);
    if (o.check_halo && res.pulses[0] + res.pulses[1] + res.pulses[2] > 0)
        assert_true(res.halo_checks > 0);
}

static void par_run(const md_system *sys, const md_params *par, int nx, int ny, int nz,
                    bool xyz, md_halo_kind halo, md_transport tr, bool check_halo,
                    const uint64_t *ref)
{
    md_par_opts o;
    md_par_opts_default(&o);
    o.halo = halo;
    o.transport = tr;
    o.check_halo = check_halo;
    par_run_opts(sys, par, nx, ny, nz, xyz, o, ref);
}

static void small_system(md_system *sys, md_params *par, int cx, int cy, int cz)
{
    md_test_fcc(sys, cx, cy, cz, 1.44, 4242, 0.005);
    md_params_default(par);
    par->nstlist = 3;
    par->steps = md_test_scaled(7, 2);
}

static void test_matrix_fused(void **state)
{
    (void)state;
    static const int g[][3] = {{2, 2, 2}, {3, 1, 1}, {2, 2, 1}, {1, 2, 2}, {6, 1, 1},
                               {3, 2, 1}, {12, 1, 1}, {1, 2, 1}, {3, 2, 2}};
    md_system sys;
    md_params par;
    small_system(&sys, &par, 11, 4, 4);
    uint64_t ref[MAXSTEPS + 1];
    md_test_serial_checksums(&sys, &par, ref);
    /* Under valgrind one grid, 3x1x1 (3 PEs): a run of 8 PEs costs DRD a minute, and the
     * 3D grid 2x2x2 runs under valgrind in test_halo_contents. */
    size_t first = md_test_valgrind() ? 1 : 0;
    size_t n = md_test_valgrind() ? 2 : sizeof g / sizeof *g;
    for (size_t k = first; k < n; k++)
        par_run(&sys, &par, g[k][0], g[k][1], g[k][2], false, MD_HALO_FUSED,
                MD_TRANSPORT_AUTO, false, ref);
    md_system_free(&sys);
}

/* pulse vs fused, direct vs signal, orders; 4 and 8 PEs; repeated runs. */
static void test_variants(void **state)
{
    (void)state;
    md_system sys;
    md_params par;
    small_system(&sys, &par, 6, 6, 6);
    uint64_t ref[MAXSTEPS + 1];
    md_test_serial_checksums(&sys, &par, ref);
    static const int g[][3] = {{2, 2, 1}, {2, 1, 2}};
    int reps = md_test_valgrind() ? 1 : 2;
    for (int k = 0; k < (md_test_valgrind() ? 1 : 2); k++)
        for (int h = 0; h < 2; h++)
            for (int t = 1; t <= 2; t++)
                for (int rep = 0; rep < reps; rep++)
                    if (!md_test_valgrind() || t == 1 + h)
                    par_run(&sys, &par, g[k][0], g[k][1], g[k][2], rep == 1,
                            h ? MD_HALO_PULSE : MD_HALO_FUSED, (md_transport)t, false, ref);
    md_system_free(&sys);
}

/* Two pulses along x (domains thinner than rlist), alone and with y and z. */
static void test_two_pulses(void **state)
{
    (void)state;
    md_system sys;
    md_params par;
    small_system(&sys, &par, 8, 4, 4);
    uint64_t ref[MAXSTEPS + 1];
    md_test_serial_checksums(&sys, &par, ref);
    for (int h = 0; h < 2; h++)
        for (int t = 1; t <= 2; t++) {
            if (md_test_valgrind() && t != 2 - h)
                continue;
            par_run(&sys, &par, 4, 1, 1, false, h ? MD_HALO_PULSE : MD_HALO_FUSED,
                    (md_transport)t, true, ref);
            if (!md_test_valgrind())
                par_run(&sys, &par, 4, 2, 1, t == 2, h ? MD_HALO_PULSE : MD_HALO_FUSED,
                        (md_transport)t, true, ref);
        }
    md_system_free(&sys);
}

/* Halo contents with ids in the coordinates: 1D, 2D, 3D, each variant and transport. */
static void test_halo_contents(void **state)
{
    (void)state;
    md_system sys;
    md_params par;
    small_system(&sys, &par, 6, 6, 6);
    par.steps = md_test_scaled(4, 2);
    uint64_t ref[MAXSTEPS + 1];
    md_test_serial_checksums(&sys, &par, ref);
    static const int g[][3] = {{2, 1, 1}, {1, 2, 2}, {2, 2, 2}};
    /* Under valgrind: fused direct on 2x2x2 (3D, 8 PEs) and pulse put-signal on 1x2x2 (y
     * and z pulses, 4 PEs); `make check-races` runs every variant on 2x2x2 under each tool. */
    for (size_t k = 0; k < 3; k++)
        for (int h = 0; h < 2; h++)
            for (int t = 1; t <= 2; t++)
                if (!md_test_valgrind() || ((int)k == 2 - h && t == 1 + h))
                    par_run(&sys, &par, g[k][0], g[k][1], g[k][2], false,
                            h ? MD_HALO_PULSE : MD_HALO_FUSED, (md_transport)t, true, ref);
    md_system_free(&sys);
}

/* The device intervals of --timing (par.h md_dtime, from the kernels' per-block stamps):
 * finite and not negative; local and non-local work within the step, non-overlap within
 * the non-local work; each step's device span inside its pair of step events (the events
 * bracket every kernel of the step, on the same clock in the emulator) and so the sum
 * within the step loop's wall time. A table never emptied between steps would make step
 * k's span cover steps 1..k, far beyond both. */
static void check_dtimes(const md_par_result *res, const char *what)
{
    const double *d = res->dtime_ms;
    for (int k = 0; k < MD_NDT; k++)
        if (!isfinite(d[k]) || d[k] < 0.0)
            fail_msg("%s: %s %g ms", what, md_par_dtime_name[k], d[k]);
    if (!(d[MD_DT_STEP] > 0.0 && d[MD_DT_LOCAL] > 0.0))
        fail_msg("%s: no device time (step %g, local %g ms)", what, d[MD_DT_STEP],
                 d[MD_DT_LOCAL]);
    if (!(d[MD_DT_NONLOCAL] > 0.0))
        fail_msg("%s: no non-local work", what);
    if (d[MD_DT_LOCAL] > d[MD_DT_STEP] || d[MD_DT_NONLOCAL] > d[MD_DT_STEP])
        fail_msg("%s: local %g or non-local %g ms beyond the step's %g ms", what,
                 d[MD_DT_LOCAL], d[MD_DT_NONLOCAL], d[MD_DT_STEP]);
    if (d[MD_DT_NONOVERLAP] > d[MD_DT_NONLOCAL])
        fail_msg("%s: non-overlap %g ms beyond the non-local work's %g ms", what,
                 d[MD_DT_NONOVERLAP], d[MD_DT_NONLOCAL]);
    if (d[MD_DT_STEP] > res->phase_ms[MD_PH_STEP] + 1e-3)
        fail_msg("%s: device step %g ms beyond the step events' %g ms", what, d[MD_DT_STEP],
                 res->phase_ms[MD_PH_STEP]);
    if (d[MD_DT_STEP] > 1e3 * res->seconds)
        fail_msg("%s: device step %g ms beyond the step loop's %g ms wall time", what,
                 d[MD_DT_STEP], 1e3 * res->seconds);
}

/* --timing (opt.phase_times): the same bits as the serial reference at every step (the
 * stamps never touch the physics), every step without a search counted, every phase timed
 * (times are wall clock on the emulator's events), and the device intervals sound. 1 PE
 * (no halo: the non-local work is the non-local force kernel) and 2 PEs with each halo,
 * both force-kernel forms. */
static void test_phase_times(void **state)
{
    (void)state;
    md_system sys;
    md_params par;
    small_system(&sys, &par, 6, 6, 6);
    uint64_t ref[MAXSTEPS + 1];
    md_test_serial_checksums(&sys, &par, ref);
    for (int h = 0; h < 5; h++) {
        const int pes = h == 0 ? 1 : 2;
        md_ddparams dd = md_test_ddparams(pes, 1, 1, false);
        md_par_opts o;
        md_par_opts_default(&o);
        o.halo = h == 3 ? MD_HALO_HOST : h == 2 ? MD_HALO_PULSE : MD_HALO_FUSED;
        o.force = h == 4 ? MD_FORCE_THREADS : MD_FORCE_AUTO;
        o.sample_every = 1;
        o.phase_times = true;
        char what[64];
        snprintf(what, sizeof what, "--timing, %d PE(s), %s%s", pes, halo_str(o.halo),
                 h == 4 ? ", threads" : "");
        rec r;
        memset(&r, 0, sizeof r);
        md_par_result res;
        md_error err;
        if (md_par_run(&sys, &par, &dd, &o, record, &r, &res, &err) != 0)
            fail_msg("%s: %s", what, err.msg);
        for (long k = 0; k <= par.steps; k++)
            if (r.sum[k] != ref[k])
                fail_msg("%s, step %ld: checksum %016llx, serial %016llx", what, k,
                         (unsigned long long)r.sum[k], (unsigned long long)ref[k]);
        assert_int_equal(res.timed_steps, par.steps - par.steps / par.nstlist);
        for (int ph = 0; ph < MD_NPHASE; ph++)
            assert_true(res.phase_ms[ph] >= 0.0);
        assert_true(res.phase_ms[MD_PH_STEP] > 0.0);
        check_dtimes(&res, what);
    }
    md_system_free(&sys);
}

/* The CPU-initiated baseline: 1D, 2D and two pulses, direct and put-signal, halo contents
 * checked at every search. */
static void test_host_baseline(void **state)
{
    (void)state;
    md_system sys;
    md_params par;
    small_system(&sys, &par, 8, 4, 4);
    uint64_t ref[MAXSTEPS + 1];
    md_test_serial_checksums(&sys, &par, ref);
    static const int g[][3] = {{2, 1, 1}, {2, 2, 1}, {4, 1, 1}};
    for (size_t k = 0; k < 3; k++)
        for (int t = 1; t <= 2; t++)
            if (!md_test_valgrind() || (k == 1 && t == 2))
                par_run(&sys, &par, g[k][0], g[k][1], g[k][2], false, MD_HALO_HOST,
                        (md_transport)t, true, ref);
    md_system_free(&sys);
}

/* The GPU's force kernels (a thread per pair-list entry, integer atomics, warp sums of the
 * counters) and its update geometry, on the emulator: the pair loop's bits, on 1 PE (all
 * pairs local) and with halos in every variant; energies too (every step is an output). */
static void test_force_threads(void **state)
{
    (void)state;
    md_system sys;
    md_params par;
    small_system(&sys, &par, 6, 6, 6);
    par.steps = md_test_scaled(4, 2);
    uint64_t ref[MAXSTEPS + 1];
    md_test_serial_checksums(&sys, &par, ref);
    static const int g[][3] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 2}};
    for (size_t k = 0; k < 3; k++)
        for (int h = 0; h < 3; h++) {
            if (md_test_valgrind() && !(k == 1 && h == 0))
                continue;
            md_par_opts o;
            md_par_opts_default(&o);
            o.halo = h == 0 ? MD_HALO_FUSED : h == 1 ? MD_HALO_PULSE : MD_HALO_HOST;
            o.transport = h == 1 ? MD_TRANSPORT_SIGNAL : MD_TRANSPORT_AUTO;
            o.force = MD_FORCE_THREADS;
            o.force_blocks = 3; /* grid-stride over the entries (a GPU takes one per 128) */
            par_run_opts(&sys, &par, g[k][0], g[k][1], g[k][2], false, o, ref);
        }
    md_system_free(&sys);
}

/* Bulk copies on the direct path: at every step the same checksums as the serial reference
 * (which the store path matches: test_matrix_fused, test_variants), with the halo contents
 * id-checked at every search. chunk: elements per copy (0: the shared-memory buffer's
 * MD_BULK_SMEM; small ones cross many chunk boundaries); 3 blocks per pulse split the maps
 * at odd entries, so that blocks start on misaligned slots (a plain head) and end on odd
 * counts (a plain tail). Every route must have used bulk copies. */
static void bulk_run(const md_system *sys, const md_params *par, int nx, int ny, int nz,
                     md_halo_kind halo, int blocks, int chunk, const uint64_t *ref)
{
    md_par_opts o;
    md_par_opts_default(&o);
    o.halo = halo;
    o.transport = MD_TRANSPORT_DIRECT;
    o.bulk = MD_BULK_ON;
    o.bulk_chunk = chunk;
    o.halo_blocks = blocks;
    o.check_halo = true;
    o.sample_every = 1;
    md_ddparams dd = md_test_ddparams(nx, ny, nz, false);
    rec r;
    memset(&r, 0, sizeof r);
    md_par_result res;
    md_error err;
    if (md_par_run(sys, par, &dd, &o, record, &r, &res, &err) != 0)
        fail_msg("%dx%dx%d %s bulk chunk %d: %s", nx, ny, nz, halo_str(halo), chunk, err.msg);
    assert_int_equal(r.n, par->steps + 1);
    assert_int_equal(r.mom_bad, 0);
    for (long k = 0; k <= par->steps; k++)
        if (r.sum[k] != ref[k])
            fail_msg("%dx%dx%d %s bulk chunk %d blocks %d, step %ld: checksum %016llx, "
                     "serial %016llx", nx, ny, nz, halo_str(halo), chunk, blocks, k,
                     (unsigned long long)r.sum[k], (unsigned long long)ref[k]);
    assert_true(res.halo_checks > 0);
    assert_true(res.direct_pulses > 0);
    assert_int_equal(res.bulk_pulses, res.direct_pulses);
    assert_int_equal(res.signal_pulses, 0);
}

static void test_bulk_copy(void **state)
{
    (void)state;
    md_system sys;
    md_params par;
    small_system(&sys, &par, 8, 4, 4);
    par.steps = md_test_scaled(7, 4);
    uint64_t ref[MAXSTEPS + 1];
    md_test_serial_checksums(&sys, &par, ref);
    static const struct {
        int g[3];
        md_halo_kind halo;
        int blocks, chunk;
    } run[] = {
        {{2, 1, 1}, MD_HALO_FUSED, 2, 0},  {{2, 2, 1}, MD_HALO_FUSED, 3, 6},
        {{2, 2, 2}, MD_HALO_FUSED, 3, 2},  {{4, 1, 1}, MD_HALO_PULSE, 3, 10},
        {{2, 1, 1}, MD_HALO_PULSE, 3, 4},  {{2, 2, 1}, MD_HALO_PULSE, 2, 0},
        {{2, 2, 2}, MD_HALO_PULSE, 3, 8},  {{4, 2, 1}, MD_HALO_FUSED, 3, 6},
        {{2, 2, 1}, MD_HALO_HOST, 3, 6},
    };
    /* Under valgrind: 2D fused and two-pulse pulse (4 PEs each), small chunks. */
    for (size_t k = 0; k < sizeof run / sizeof *run; k++)
        if (!md_test_valgrind() || k == 1 || k == 3)
            bulk_run(&sys, &par, run[k].g[0], run[k].g[1], run[k].g[2], run[k].halo,
                     run[k].blocks, run[k].chunk, ref);
    /* The driver refuses a chunk that is not whole 16-byte units, or more than the buffer. */
    md_ddparams dd = md_test_ddparams(2, 1, 1, false);
    static const int bad[] = {1, 3, -2, MD_BULK_SMEM + 2};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        md_par_opts o;
        md_par_opts_default(&o);
        o.bulk = MD_BULK_ON;
        o.bulk_chunk = bad[k];
        md_par_result res;
        md_error err;
        assert_int_not_equal(md_par_run(&sys, &par, &dd, &o, NULL, NULL, &res, &err), 0);
        assert_non_null(strstr(err.msg, "bulk_chunk"));
    }
    md_system_free(&sys);
}

/* The CPU build's default is the store path (auto: off); put-signal routes never use bulk
 * copies, whatever the option. */
static void test_bulk_default_off(void **state)
{
    (void)state;
    md_system sys;
    md_params par;
    small_system(&sys, &par, 6, 6, 6);
    par.steps = 2;
    md_ddparams dd = md_test_ddparams(2, 1, 1, false);
    for (int k = 0; k < 2; k++) {
        md_par_opts o;
        md_par_opts_default(&o);
        o.bulk = k == 0 ? MD_BULK_AUTO : MD_BULK_ON;
        o.transport = k == 0 ? MD_TRANSPORT_DIRECT : MD_TRANSPORT_SIGNAL;
        md_par_result res;
        md_error err;
        if (md_par_run(&sys, &par, &dd, &o, NULL, NULL, &res, &err) != 0)
            fail_msg("%s", err.msg);
        assert_int_equal(res.bulk_pulses, 0);
        assert_int_equal(res.direct_pulses + res.signal_pulses, 1);
        assert_int_equal(res.direct_pulses, k == 0 ? 1 : 0);
    }
    md_system_free(&sys);
}

/* --graph needs CUDA graphs: the CPU build says so instead of running without them. */
static void test_graph_refused(void **state)
{
    (void)state;
    md_system sys;
    md_params par;
    small_system(&sys, &par, 6, 6, 6);
    md_ddparams dd = md_test_ddparams(2, 1, 1, false);
    md_par_opts o;
    md_par_opts_default(&o);
    o.graph = true;
    md_par_result res;
    md_error err;
    assert_int_not_equal(md_par_run(&sys, &par, &dd, &o, NULL, NULL, &res, &err), 0);
    assert_non_null(strstr(err.msg, "--graph"));
    assert_non_null(strstr(err.msg, "CUDA build"));
    md_system_free(&sys);
}

/* The command line of the options above: values, and errors that name the fix. */
static void test_options(void **state)
{
    (void)state;
    md_options o;
    md_error err;
    char *ok[] = {"shmemu-md", "--halo", "host", "--force-kernel", "threads", "--graph=x"};
    assert_int_not_equal(md_options_parse(6, ok, &o, &err), 0); /* --graph takes no value */
    assert_non_null(strstr(err.msg, "--graph"));
    assert_int_equal(md_options_parse(5, ok, &o, &err), 0);
    assert_int_equal(o.halo, MD_HALO_HOST);
    assert_int_equal(o.force, MD_FORCE_THREADS);
    char *graph_host[] = {"shmemu-md", "--halo", "host", "--graph"};
    assert_int_not_equal(md_options_parse(4, graph_host, &o, &err), 0);
    assert_non_null(strstr(err.msg, "--halo fused or pulse"));
    char *graph[] = {"shmemu-md", "--graph", "--force-kernel", "loop"};
    assert_int_equal(md_options_parse(4, graph, &o, &err), 0);
    assert_true(o.graph);
    assert_int_equal(o.force, MD_FORCE_LOOP);
    char *bad[] = {"shmemu-md", "--force-kernel", "warp"};
    assert_int_not_equal(md_options_parse(3, bad, &o, &err), 0);
    assert_non_null(strstr(err.msg, "give loop, threads or auto"));
    char *serial[] = {"shmemu-md", "--halo", "serial", "--force-kernel", "threads"};
    assert_int_not_equal(md_options_parse(5, serial, &o, &err), 0);
    assert_non_null(strstr(err.msg, "--halo serial runs no kernels"));
    char *bulk[] = {"shmemu-md", "--bulk-copy", "on", "--bulk-copy=off"};
    assert_int_equal(md_options_parse(3, bulk, &o, &err), 0);
    assert_int_equal(o.bulk, MD_BULK_ON);
    assert_int_equal(md_options_parse(4, bulk, &o, &err), 0);
    assert_int_equal(o.bulk, MD_BULK_OFF);
    assert_int_equal(md_options_parse(1, bulk, &o, &err), 0);
    assert_int_equal(o.bulk, MD_BULK_AUTO);
    char *bulk_bad[] = {"shmemu-md", "--bulk-copy", "yes"};
    assert_int_not_equal(md_options_parse(3, bulk_bad, &o, &err), 0);
    assert_non_null(strstr(err.msg, "--bulk-copy 'yes': give on, off or auto"));
    char *bulk_serial[] = {"shmemu-md", "--halo", "serial", "--bulk-copy", "on"};
    assert_int_not_equal(md_options_parse(5, bulk_serial, &o, &err), 0);
    assert_non_null(strstr(err.msg, "--halo serial runs no kernels"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_fused),
        cmocka_unit_test(test_variants),
        cmocka_unit_test(test_two_pulses),
        cmocka_unit_test(test_halo_contents),
        cmocka_unit_test(test_phase_times),
        cmocka_unit_test(test_host_baseline),
        cmocka_unit_test(test_force_threads),
        cmocka_unit_test(test_bulk_copy),
        cmocka_unit_test(test_bulk_default_off),
        cmocka_unit_test(test_graph_refused),
        cmocka_unit_test(test_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
