/*
 * test_md_stats.c: the halo traffic accounting (md/src/par_stats.c; md_par_opts.traffic,
 * shmemu-md --halo-stats) against what the runtime carried.
 *
 * This binary is linked with -Wl,--wrap= for nvshmem_putmem, nvshmem_putmem_nbi,
 * nvshmem_putmem_signal_nbi and nvshmemx_signal_op (md/md.mk), so every such call that md's
 * kernels and host halves make passes through a counter here (per calling PE: calls, bytes,
 * signal words) on its way to the runtime. The accounting is computed from the tables, not
 * at the calls, so the two are independent:
 *   - put-with-signal transport: fused, pulse, host and direct26 on 1D, 2D and 3D grids
 *     (and fused with two pulses in a dimension): each PE's counted calls, bytes and signal
 *     words over the whole run equal its accounted msgs, payload and signal words exactly;
 *   - direct transport: no such call during the run (the data moves by plain stores, which
 *     no wrapper sees), the coordinate exchange's payload and signal words equal the put
 *     path's on every PE (the same tables) and the force exchange's in total (the owner
 *     loads what the put path's holder puts);
 *   - the units on cases counted by hand (2 PEs, 1D: one pulse, two directions);
 *   - --halo-stats is an option of the parallel drivers only.
 */
#include <stdatomic.h>

#include "kernels/halo.h" /* md_xport */
#include "nvshmem.h"
#include "par.h"
#include "test_md_util.h"

enum { MAXPE = 8 };

/* ---- the wrappers ------------------------------------------------------------------------ */

typedef struct counted {
    atomic_llong calls, bytes, signals;
} counted;

static counted seen[MAXPE];

static void count(size_t bytes, int signal)
{
    const int me = nvshmem_my_pe();
    if (me < 0 || me >= MAXPE) { /* a kernel's thread: no cmocka assert here */
        fprintf(stderr, "test_md_stats: a put from PE %d, beyond the %d counted\n", me, MAXPE);
        abort();
    }
    atomic_fetch_add(&seen[me].calls, 1);
    atomic_fetch_add(&seen[me].bytes, (long long)bytes);
    atomic_fetch_add(&seen[me].signals, signal);
}

static void seen_reset(void)
{
    for (int r = 0; r < MAXPE; r++) {
        atomic_store(&seen[r].calls, 0);
        atomic_store(&seen[r].bytes, 0);
        atomic_store(&seen[r].signals, 0);
    }
}

void __real_nvshmem_putmem(void *dest, const void *source, size_t bytes, int pe);
void __real_nvshmem_putmem_nbi(void *dest, const void *source, size_t bytes, int pe);
void __real_nvshmem_putmem_signal_nbi(void *dest, const void *source, size_t bytes,
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void __real_nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void __wrap_nvshmem_putmem(void *dest, const void *source, size_t bytes, int pe);
void __wrap_nvshmem_putmem_nbi(void *dest, const void *source, size_t bytes, int pe);
void __wrap_nvshmem_putmem_signal_nbi(void *dest, const void *source, size_t bytes,
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void __wrap_nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

void __wrap_nvshmem_putmem(void *dest, const void *source, size_t bytes, int pe)
{
    count(bytes, 0);
    __real_nvshmem_putmem(dest, source, bytes, pe);
}

void __wrap_nvshmem_putmem_nbi(void *dest, const void *source, size_t bytes, int pe)
{
    count(bytes, 0);
    __real_nvshmem_putmem_nbi(dest, source, bytes, pe);
}

void __wrap_nvshmem_putmem_signal_nbi(void *dest, const void *source, size_t bytes,
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    count(bytes, 1);
    __real_nvshmem_putmem_signal_nbi(dest, source, bytes, sig_addr, signal, sig_op, pe);
}

void __wrap_nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    count(0, 1);
    __real_nvshmemx_signal_op(sig_addr, signal, sig_op, pe);
}

/* ---- runs -------------------------------------------------------------------------------- */

static const char *halo_name(md_halo_kind h)
{
    return h == MD_HALO_FUSED ? "fused" : h == MD_HALO_PULSE ? "pulse"
           : h == MD_HALO_HOST ? "host" : "direct26";
}

/* 2048 atoms (8^3 cells, 13.4 σ edges); under valgrind 7x4x4 (direct26's smallest 2x1x1
 * box, test_md_direct26.c). Searches every 3 steps, so the tables change during the run. */
static void system_of(md_system *sys, md_params *par)
{
    if (md_test_valgrind())
        md_test_fcc(sys, 7, 4, 4, 1.44, 777, 0.005);
    else
        md_test_fcc(sys, 8, 8, 8, 1.44, 777, 0.005);
    md_params_default(par);
    par->nstlist = 3;
    par->steps = md_test_scaled(7, 2);
}

/* One run of halo h over transport t on grid g; traffic[g's PEs] and the calls seen. */
static void run(const md_system *sys, const md_params *par, const int g[3], md_halo_kind h,
                md_transport t, md_run_traffic *traffic)
{
    md_par_opts o;
    md_par_opts_default(&o);
    o.halo = h;
    o.transport = t;
    o.traffic = traffic;
    md_ddparams dd = md_test_ddparams(g[0], g[1], g[2], false);
    md_par_result res;
    md_error err;
    seen_reset();
    if (md_par_run(sys, par, &dd, &o, NULL, NULL, &res, &err) != 0)
        fail_msg("%s %dx%dx%d: %s", halo_name(h), g[0], g[1], g[2], err.msg);
    /* every PE issued one force exchange per step and the step first_step */
    for (int r = 0; r < dd.pes; r++)
        assert_int_equal(traffic[r].nf, par->steps + 1);
}

/* ---- tests ------------------------------------------------------------------------------- */

static const int grids[][3] = {{2, 1, 1}, {3, 1, 1}, {2, 2, 1}, {1, 2, 2}, {2, 2, 2}, {5, 1, 1}};

/* The put-with-signal path: the runtime's calls, bytes and signal words = the accounting. */
static void test_signal_path_counted(void **state)
{
    (void)state;
    md_system sys;
    md_params par;
    system_of(&sys, &par);
    static const md_halo_kind halos[] = {MD_HALO_FUSED, MD_HALO_PULSE, MD_HALO_HOST,
                                         MD_HALO_DIRECT26};
    const size_t ng = md_test_valgrind() ? 1 : sizeof grids / sizeof *grids;
    int runs = 0;
    for (size_t k = 0; k < ng; k++)
        for (size_t v = 0; v < sizeof halos / sizeof *halos; v++) {
            const int *g = grids[k];
            /* 5x1x1: domains thinner than the halo (two pulses): direct26 refuses them */
            if (halos[v] == MD_HALO_DIRECT26 && g[0] == 5)
                continue;
            md_run_traffic tr[MAXPE];
            memset(tr, 0, sizeof tr);
            run(&sys, &par, g, halos[v], MD_TRANSPORT_SIGNAL, tr);
            for (int r = 0; r < g[0] * g[1] * g[2]; r++) {
                const md_traffic *x = &tr[r].sum.x, *f = &tr[r].sum.f;
                const long long msgs = x->msgs + f->msgs, bytes = x->payload + f->payload,
                                sigs = x->signals + f->signals;
                if (atomic_load(&seen[r].calls) != msgs || atomic_load(&seen[r].bytes) != bytes ||
                    atomic_load(&seen[r].signals) != sigs)
                    fail_msg("%s %dx%dx%d signal, PE %d: the runtime saw %lld calls, %lld "
                             "bytes, %lld signal words; accounted %lld, %lld, %lld",
                             halo_name(halos[v]), g[0], g[1], g[2], r,
                             (long long)atomic_load(&seen[r].calls),
                             (long long)atomic_load(&seen[r].bytes),
                             (long long)atomic_load(&seen[r].signals), msgs, bytes, sigs);
                assert_true(x->payload > 0 && x->msgs > 0); /* a run that sent something */
                assert_int_equal(x->barriers + f->barriers,
                                 halos[v] == MD_HALO_HOST ? (tr[r].nx + tr[r].nf) *
                                     (g[0] == 5 ? 2 : (g[0] > 1) + (g[1] > 1) + (g[2] > 1))
                                                          : 0);
            }
            runs++;
        }
    assert_true(runs >= 4);
    md_system_free(&sys);
}

/* The direct path: no runtime call; the same payload and signal words as the put path. */
static void test_direct_path_same_payload(void **state)
{
    (void)state;
    md_system sys;
    md_params par;
    system_of(&sys, &par);
    static const md_halo_kind halos[] = {MD_HALO_FUSED, MD_HALO_DIRECT26};
    static const int some[][3] = {{2, 1, 1}, {2, 2, 1}, {2, 2, 2}, {5, 1, 1}};
    const size_t ng = md_test_valgrind() ? 1 : sizeof some / sizeof *some;
    for (size_t k = 0; k < ng; k++)
        for (size_t v = 0; v < sizeof halos / sizeof *halos; v++) {
            const int *g = some[k];
            const int npes = g[0] * g[1] * g[2];
            if (halos[v] == MD_HALO_DIRECT26 && g[0] == 5)
                continue;
            md_run_traffic put[MAXPE], dir[MAXPE];
            memset(put, 0, sizeof put);
            memset(dir, 0, sizeof dir);
            run(&sys, &par, g, halos[v], MD_TRANSPORT_SIGNAL, put);
            run(&sys, &par, g, halos[v], MD_TRANSPORT_DIRECT, dir);
            int64_t fput = 0, fdir = 0;
            for (int r = 0; r < npes; r++) {
                assert_int_equal(atomic_load(&seen[r].calls), 0);
                assert_int_equal(dir[r].sum.x.payload, put[r].sum.x.payload);
                assert_int_equal(dir[r].sum.x.signals, put[r].sum.x.signals);
                assert_int_equal(dir[r].sum.f.signals, put[r].sum.f.signals);
                /* a range per component and the signal store: one more per send with data */
                assert_true(dir[r].sum.x.msgs > put[r].sum.x.msgs);
                fput += put[r].sum.f.payload;
                fdir += dir[r].sum.f.payload;
            }
            assert_int_equal(fdir, fput);
            if (halos[v] == MD_HALO_DIRECT26)
                assert_int_equal(fdir, 0); /* no force return */
        }
    md_system_free(&sys);
}

/* Counted by hand: 2 PEs along x. fused: one pulse each way per PE; direct26: two
 * directions (-x and +x, both the other PE), acknowledgements instead of forces. */
static void test_units_by_hand(void **state)
{
    (void)state;
    md_system sys;
    md_params par;
    system_of(&sys, &par);
    const int g[3] = {2, 1, 1};
    md_run_traffic tr[MAXPE];
    /* per exchange on each PE: {x msgs, x signal words, f msgs, f signal words} */
    static const struct {
        md_halo_kind h;
        md_transport t;
        int xm, xs, fm, fs;
    } want[] = {
        {MD_HALO_FUSED, MD_TRANSPORT_SIGNAL, 3, 1, 3, 1},    /* 2 puts + put-signal, each way */
        {MD_HALO_FUSED, MD_TRANSPORT_DIRECT, 4, 1, 4, 1},    /* 3 ranges + signal; signal + 3 loads */
        {MD_HALO_HOST, MD_TRANSPORT_SIGNAL, 3, 0, 3, 0},     /* 3 host puts, a barrier */
        {MD_HALO_DIRECT26, MD_TRANSPORT_SIGNAL, 6, 2, 2, 2}, /* per direction: 3; acks: 1 */
        {MD_HALO_DIRECT26, MD_TRANSPORT_DIRECT, 8, 2, 2, 2}, /* per direction: 4; acks: 1 */
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        memset(tr, 0, sizeof tr);
        run(&sys, &par, g, want[k].h, want[k].t, tr);
        for (int r = 0; r < 2; r++) {
            const md_run_traffic *t = &tr[r];
            assert_int_equal(t->nx, par.steps - par.steps / par.nstlist);
            assert_int_equal(t->sum.x.msgs, want[k].xm * t->nx);
            assert_int_equal(t->sum.x.signals, want[k].xs * t->nx);
            assert_int_equal(t->sum.f.msgs, want[k].fm * t->nf);
            assert_int_equal(t->sum.f.signals, want[k].fs * t->nf);
            assert_int_equal(t->sum.x.payload % 24, 0); /* whole atoms */
        }
    }
    /* the unit functions alone */
    md_traffic u;
    memset(&u, 0, sizeof u);
    md_traffic_send(&u, MD_XPORT_SIGNAL, 0, true); /* the signal op alone */
    assert_int_equal(u.msgs, 1);
    md_traffic_send(&u, MD_XPORT_DIRECT, 0, false); /* nothing at all */
    assert_int_equal(u.msgs, 1);
    md_traffic_send(&u, MD_XPORT_BULK, 10, true);
    md_traffic_load(&u, 5);
    assert_int_equal(u.msgs, 1 + 4 + 3);
    assert_int_equal(u.payload, 15 * 24);
    assert_int_equal(u.signals, 2);
    md_system_free(&sys);
}

static void test_option(void **state)
{
    (void)state;
    md_options o;
    md_error err;
    char *ok[] = {"shmemu-md", "--halo", "direct26", "--halo-stats"};
    assert_int_equal(md_options_parse(4, ok, &o, &err), 0);
    assert_true(o.halo_stats);
    char *serial[] = {"shmemu-md", "--halo", "serial", "--halo-stats"};
    assert_int_not_equal(md_options_parse(4, serial, &o, &err), 0);
    assert_non_null(strstr(err.msg, "--halo-stats"));
    char *valued[] = {"shmemu-md", "--halo-stats=1"};
    assert_int_not_equal(md_options_parse(2, valued, &o, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signal_path_counted),
        cmocka_unit_test(test_direct_path_same_payload),
        cmocka_unit_test(test_units_by_hand),
        cmocka_unit_test(test_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
