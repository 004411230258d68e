/*
 * test_cg_solve.c: the serial CG (cg_solve_serial, cg/solve.h), its manufactured problem
 * and the checksum of x:
 *   - convergence on the Poisson matrices within the iteration counts measured (1-D of size
 *     N: at most N, the exact-arithmetic bound, and N is what it takes; 2-D on N x N: at
 *     most 3N + 2, measured 32 and 87 for N = 10 and 30; 3-D on N^3: at most 4N + 1,
 *     measured 33 and 45 for N = 8 and 12), with the true residual and the error small;
 *   - the checksum is stable: the Matrix Market file with its entries shuffled, and its
 *     general (both triangles) form, give the same CSR, the same residual history and the
 *     same checksum, bit for bit; two runs give the same history;
 *   - a simulated distributed CG (P = 1..8 parts through the halo plan, every dot product
 *     a merge of the parts' partial accumulators, in reverse part order) has the serial
 *     solver's residual history and x, bit for bit: what the emulated solvers must match;
 *   - a breakdown on an indefinite matrix with a positive diagonal; b = 0 converges at 0;
 *   - the manufactured solution has unit norm and depends on the seed; the checksum is
 *     FNV-1a over x's bytes (known values; -0.0 differs from 0.0).
 */
#include <math.h>

#include "test_cg_util.h"

typedef struct run {
    cg_result res;
    double hist[2001];
    uint64_t checksum;
    double error;
} run;

/* The manufactured problem on a, solved; max_iter <= 2000. */
static void solve(const cg_csr *a, uint64_t seed, double tol, int64_t max_iter, run *out)
{
    size_t n = (size_t)a->n;
    double *xs = malloc(n * sizeof *xs), *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x);
    double *r = malloc(n * sizeof *r);
    cg_manufactured(xs, a->n, seed);
    cg_spmv(a, xs, b);
    cg_solve_serial(a, b, x, tol, max_iter, out->hist, &out->res);
    out->checksum = cg_checksum(x, a->n);
    cg_spmv(a, x, r);
    for (size_t i = 0; i < n; i++) {
        r[i] = b[i] - r[i];  /* the true residual */
        xs[i] = x[i] - xs[i]; /* the error */
    }
    out->error = cg_norm2(xs, n);
    if (out->res.converged) /* the true residual agrees with the recurrence's */
        assert_true(cg_norm2(r, n) <= 10 * tol * cg_norm2(b, n));
    free(r);
    free(xs);
    free(b);
    free(x);
}

static void test_poisson_iterations(void **state)
{
    (void)state;
    static run r;
    cg_csr a;
    cg_error err;
    static const long n1[] = {10, 50, 200};
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(cg_poisson1d(&a, n1[k], &err), 0);
        solve(&a, 1, 1e-10, 2000, &r);
        assert_true(r.res.converged);
        assert_true(r.res.iterations <= n1[k]);
        assert_true(r.error < 1e-9);
        cg_csr_free(&a);
    }
    static const long n2[] = {10, 30};
    static const int64_t it2[] = {32, 87};
    for (size_t k = 0; k < 2; k++) {
        assert_int_equal(cg_poisson2d(&a, n2[k], &err), 0);
        solve(&a, 1, 1e-8, 2000, &r);
        assert_true(r.res.converged && r.res.residual <= 1e-8);
        assert_true(r.res.iterations <= 3 * n2[k] + 2);
        assert_int_equal(r.res.iterations, it2[k]); /* measured; the same on any IEEE host */
        assert_true(r.error < 1e-6);
        cg_csr_free(&a);
    }
    static const long n3[] = {8, 12};
    static const int64_t it3[] = {33, 45};
    for (size_t k = 0; k < 2; k++) {
        assert_int_equal(cg_poisson3d(&a, n3[k], &err), 0);
        solve(&a, 1, 1e-8, 2000, &r);
        assert_true(r.res.converged && r.res.residual <= 1e-8);
        assert_true(r.res.iterations <= 4 * n3[k] + 1);
        assert_int_equal(r.res.iterations, it3[k]);
        assert_true(r.error < 1e-6);
        cg_csr_free(&a);
    }
    /* too few iterations: not converged, and says so */
    assert_int_equal(cg_poisson1d(&a, 50, &err), 0);
    solve(&a, 1, 1e-10, 20, &r);
    assert_false(r.res.converged);
    assert_int_equal(r.res.iterations, 20);
    assert_true(r.res.residual > 1e-10);
    cg_csr_free(&a);
}

/* spd40.mtx's text with its entry lines in a shuffled order (general: both triangles). */
static char *reordered(const char *text, bool general, uint64_t seed)
{
    const char *size_line = strstr(text, "\n40 40 ");
    assert_non_null(size_line);
    const char *body = strchr(size_line + 1, '\n') + 1;
    char *lines[600];
    int m = 0;
    for (const char *p = body; *p; m++) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        lines[m] = strndup(p, l);
        p += l + (e != NULL);
        if (general) { /* the mirrored entry, when off the diagonal */
            int i, j;
            char v[64];
            assert_int_equal(sscanf(lines[m], "%d %d %63s", &i, &j, v), 3);
            if (i != j) {
                char mirror[128];
                snprintf(mirror, sizeof mirror, "%d %d %s", j, i, v);
                lines[++m] = strdup(mirror);
            }
        }
    }
    uint64_t st = seed;
    cgt_shuffle(lines, (size_t)m, sizeof *lines, &st);
    size_t cap = strlen(text) * 3 + 256, len = 0;
    char *out = malloc(cap);
    len += (size_t)snprintf(out, cap, "%%%%MatrixMarket matrix coordinate real %s\n40 40 %d\n",
                            general ? "general" : "symmetric", m);
    for (int k = 0; k < m; k++) {
        len += (size_t)snprintf(out + len, cap - len, "%s\n", lines[k]);
        free(lines[k]);
    }
    return out;
}

static void test_checksum_stable(void **state)
{
    (void)state;
    size_t len;
    char *text = cgt_read_data("spd40.mtx", &len);
    cg_csr a0;
    cgt_parse_ok(text, &a0);
    static run r0, r;
    solve(&a0, 7, 1e-12, 2000, &r0);
    assert_true(r0.res.converged);
    for (int variant = 0; variant < 4; variant++) {
        char *t = reordered(text, variant >= 2, (uint64_t)variant + 100);
        cg_csr a;
        cgt_parse_ok(t, &a);
        free(t);
        assert_int_equal(a.nnz, a0.nnz);
        assert_memory_equal(a.col, a0.col, (size_t)a.nnz * sizeof *a.col);
        assert_memory_equal(a.val, a0.val, (size_t)a.nnz * sizeof *a.val);
        solve(&a, 7, 1e-12, 2000, &r);
        assert_int_equal(r.res.iterations, r0.res.iterations);
        assert_memory_equal(r.hist, r0.hist, (size_t)(r.res.iterations + 1) * sizeof *r.hist);
        assert_int_equal(r.checksum, r0.checksum);
        cg_csr_free(&a);
    }
    /* another seed: another solution */
    solve(&a0, 8, 1e-12, 2000, &r);
    assert_int_not_equal(r.checksum, r0.checksum);
    cg_csr_free(&a0);
    free(text);
}

/* Listing 1 over the parts of a plan, as the distributed solvers will run it: each part
 * keeps its local vectors (owned values in local order, then ghosts), fills s's ghosts
 * through the send lists before each SpMV, and reduces each dot product by merging the
 * parts' partial accumulators (in reverse part order: any order gives the same bits). */
enum { R, S, T, X }; /* the vectors dist_dot reads, by name */

typedef struct part_vecs {
    double *x, *r, *s, *t, *b;
} part_vecs;

static double dist_dot(const cg_plan *pl, part_vecs *v, int which_a, int which_b)
{
    cg_xsum total;
    cg_xsum_init(&total);
    for (int p = pl->nparts - 1; p >= 0; p--) {
        double *const vec[4] = {v[p].r, v[p].s, v[p].t, v[p].x};
        cg_xsum part;
        cg_xsum_init(&part);
        cg_xsum_add_dot(&part, vec[which_a], vec[which_b], (size_t)pl->parts[p].n_owned);
        cg_xsum_merge(&total, &part);
    }
    return cg_xsum_round(&total);
}

static void dist_spmv(const cg_plan *pl, part_vecs *v)
{
    for (int p = 0; p < pl->nparts; p++) /* halo: the puts of s */
        for (int k = 0; k < pl->parts[p].n_send; k++) {
            const cg_halo_send *h = &pl->parts[p].send[k];
            for (int32_t m = 0; m < h->count; m++)
                v[h->part].s[h->disp + m] = v[p].s[h->idx[m]];
        }
    for (int p = 0; p < pl->nparts; p++)
        cg_spmv(&pl->parts[p].a, v[p].s, v[p].t);
}

static void dist_cg(const cg_csr *a, int np, uint64_t seed, double tol, const run *ref)
{
    cg_plan pl;
    cg_error err;
    assert_int_equal(cg_plan_contiguous(a, np, &pl, &err), 0);
    size_t n = (size_t)a->n;
    double *xs = malloc(n * sizeof *xs), *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x);
    cg_manufactured(xs, a->n, seed);
    cg_spmv(a, xs, b);
    part_vecs v[8];
    for (int p = 0; p < np; p++) {
        const cg_part *pt = &pl.parts[p];
        size_t m = (size_t)pt->n_owned + (size_t)pt->n_ghost + 1;
        v[p].x = calloc(m, sizeof(double));
        v[p].r = calloc(m, sizeof(double));
        v[p].s = calloc(m, sizeof(double));
        v[p].t = calloc(m, sizeof(double));
        v[p].b = calloc(m, sizeof(double));
        for (int32_t l = 0; l < pt->n_owned; l++) {
            v[p].b[l] = b[pt->global[l]];
            v[p].r[l] = v[p].b[l] - 0.0; /* r0 = b - A x0, x0 = 0, t = A x0 = 0 */
            v[p].s[l] = v[p].r[l];
        }
    }
    double rho = dist_dot(&pl, v, R, R);
    const double stop = tol * sqrt(rho);
    int64_t k = 0;
    bool converged = false;
    while (!converged && k < 2000) {
        k++;
        dist_spmv(&pl, v);
        double gamma = dist_dot(&pl, v, S, T);
        double alpha = rho / gamma;
        for (int p = 0; p < np; p++)
            for (int32_t l = 0; l < pl.parts[p].n_owned; l++) {
                v[p].x[l] = alpha * v[p].s[l] + v[p].x[l];
                v[p].r[l] = -alpha * v[p].t[l] + v[p].r[l];
            }
        double rho_k = dist_dot(&pl, v, R, R);
        assert_same_double(sqrt(rho_k) / sqrt(ref->res.rho0), ref->hist[k]);
        if (sqrt(rho_k) <= stop) {
            converged = true;
            break;
        }
        double beta = rho_k / rho;
        for (int p = 0; p < np; p++)
            for (int32_t l = 0; l < pl.parts[p].n_owned; l++)
                v[p].s[l] = beta * v[p].s[l] + v[p].r[l];
        rho = rho_k;
    }
    assert_true(converged);
    assert_int_equal(k, ref->res.iterations);
    for (int p = 0; p < np; p++) { /* gather x in global order */
        for (int32_t l = 0; l < pl.parts[p].n_owned; l++)
            x[pl.parts[p].global[l]] = v[p].x[l];
        free(v[p].x);
        free(v[p].r);
        free(v[p].s);
        free(v[p].t);
        free(v[p].b);
    }
    assert_int_equal(cg_checksum(x, a->n), ref->checksum);
    cg_plan_free(&pl);
    free(xs);
    free(b);
    free(x);
}

static void test_distributed_history(void **state)
{
    (void)state;
    size_t len;
    char *text = cgt_read_data("spd40.mtx", &len);
    cg_csr mats[3];
    cg_error err;
    cgt_parse_ok(text, &mats[0]);
    assert_int_equal(cg_poisson2d(&mats[1], 9, &err), 0);
    assert_int_equal(cg_poisson3d(&mats[2], 5, &err), 0);
    static run ref;
    for (int m = 0; m < 3; m++) {
        solve(&mats[m], 3, 1e-10, 2000, &ref);
        assert_true(ref.res.converged);
        for (int np = 1; np <= 8; np++)
            dist_cg(&mats[m], np, 3, 1e-10, &ref);
        cg_csr_free(&mats[m]);
    }
    free(text);
}

static void test_breakdown_and_zero(void **state)
{
    (void)state;
    cg_csr a;
    /* [[1, 2], [2, 1]]: positive diagonal, eigenvalues 3 and -1 */
    cgt_parse_ok("%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1\n2 1 2\n"
                 "2 2 1\n", &a);
    double b[2] = {1.0, -1.0}, x[2], hist[11];
    cg_result res;
    cg_solve_serial(&a, b, x, 1e-8, 10, hist, &res);
    assert_true(res.breakdown);
    assert_false(res.converged);
    assert_int_equal(res.iterations, 0);
    double z[2] = {0.0, 0.0};
    cg_solve_serial(&a, z, x, 1e-8, 10, hist, &res);
    assert_true(res.converged);
    assert_int_equal(res.iterations, 0);
    assert_true(x[0] == 0.0 && x[1] == 0.0);
    cg_csr_free(&a);
}

static void test_manufactured_and_checksum(void **state)
{
    (void)state;
    double v[1000], w[1000];
    cg_manufactured(v, 1000, 1);
    assert_true(fabs(cg_norm2(v, 1000) - 1.0) < 1e-15);
    cg_manufactured(w, 1000, 2);
    assert_int_not_equal(cg_checksum(v, 1000), cg_checksum(w, 1000));
    cg_manufactured(w, 1000, 1);
    assert_int_equal(cg_checksum(v, 1000), cg_checksum(w, 1000));
    /* FNV-1a reference values (computed independently, in Python) */
    double zero = 0.0, pair[2] = {1.0, -0.0};
    assert_int_equal(cg_checksum(&zero, 1), 0xa8c7f832281a39c5ull);
    assert_int_equal(cg_checksum(pair, 2), 0x2f12dcea1c5dde38ull);
    pair[1] = 0.0;
    assert_int_not_equal(cg_checksum(pair, 2), 0x2f12dcea1c5dde38ull);
    assert_int_equal(cg_hash(1, 2), cg_hash(1, 2));
    assert_int_not_equal(cg_hash(1, 2), cg_hash(2, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_poisson_iterations),
        cmocka_unit_test(test_checksum_stable),
        cmocka_unit_test(test_distributed_history),
        cmocka_unit_test(test_breakdown_and_zero),
        cmocka_unit_test(test_manufactured_and_checksum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
