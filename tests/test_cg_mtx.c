/*
 * test_cg_mtx.c: the Matrix Market reader (cg_mtx_parse, cg/matrix.h) and the Poisson
 * generators:
 *   - accepted: symmetric and general-that-is-symmetric real files, integer and pattern
 *     fields, comments and blank lines anywhere after the banner, CRLF, upper-case words,
 *     no final newline; the CSR holds every invariant (cg_csr_check) and the values read;
 *     the general form of a matrix reads to the same CSR as its symmetric form;
 *   - refused, each with "NAME:LINE:" (or "NAME:") and words saying what and what to do:
 *     one case per error of cg/matrix.h's list (bad banner, array, complex, non-square,
 *     entry count mismatch both ways, index out of range, malformed and non-finite numbers,
 *     duplicates, an entry above the diagonal of a symmetric file, non-symmetric general
 *     files, missing and non-positive diagonal entries, empty and truncated files, overlong
 *     lines, NUL bytes), and every prefix of a valid file refused or accepted, never read
 *     beyond its length (the suite runs under ASan in check-asan);
 *   - the generators: sizes, entry counts, invariants, and their refusal of bad sizes.
 */
#include "test_cg_util.h"

#define BANNER "%%MatrixMarket matrix coordinate real symmetric\n"

/* 3 x 3 tridiagonal 2, -1: the 1-D Poisson matrix of size 3. */
static const char p3_sym[] = BANNER "% a comment\n3 3 5\n1 1 2\n2 1 -1\n2 2 2\n3 2 -1\n3 3 2\n";

static void assert_same_csr(const cg_csr *a, const cg_csr *b)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->nnz, b->nnz);
    assert_memory_equal(a->rowptr, b->rowptr, ((size_t)a->n + 1) * sizeof *a->rowptr);
    assert_memory_equal(a->col, b->col, (size_t)a->nnz * sizeof *a->col);
    assert_memory_equal(a->val, b->val, (size_t)a->nnz * sizeof *a->val);
}

static void test_accepted(void **state)
{
    (void)state;
    cg_csr ref, a;
    cg_error err;
    assert_int_equal(cg_poisson1d(&ref, 3, &err), 0);
    static const char *const same[] = {
        p3_sym,
        /* general, both triangles, any order */
        "%%MatrixMarket matrix coordinate real general\n3 3 7\n1 2 -1\n1 1 2\n2 1 -1\n"
        "3 3 2.0\n2 3 -1e0\n3 2 -1\n2 2 2\n",
        /* integer field, upper-case words, CRLF, blank lines and comments, no final \n */
        "%%MATRIXMARKET Matrix Coordinate Integer Symmetric\r\n%\r\n\r\n3 3 5\r\n"
        "% inside\r\n1 1 2\r\n\r\n2 1 -1\r\n2 2 +2\r\n3 2 -1\r\n3 3 2",
        /* tabs and extra spaces */
        BANNER "  3\t3  5  \n1\t1\t2\n 2 1 -1\n2 2 2\n3 2 -1\n3 3 2   \n",
    };
    for (size_t k = 0; k < sizeof same / sizeof *same; k++) {
        cgt_parse_ok(same[k], &a);
        assert_same_csr(&a, &ref);
        cg_csr_free(&a);
    }
    /* pattern: every entry 1 (the diagonal makes it acceptable) */
    cgt_parse_ok("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 3\n1 1\n2 1\n2 2\n",
                 &a);
    assert_int_equal(a.nnz, 4);
    for (int k = 0; k < 4; k++)
        assert_true(a.val[k] == 1.0);
    cg_csr_free(&a);
    /* values kept to the bit (strtod rounds correctly), info filled */
    cg_mtx_info info;
    const char *t = BANNER "2 2 3\n1 1 0.1\n2 1 1e-300\n2 2 0x1.8p1\n";
    assert_int_equal(cg_mtx_parse(t, strlen(t), "v.mtx", &a, &info, &err), 0);
    assert_string_equal(info.field, "real");
    assert_string_equal(info.symmetry, "symmetric");
    assert_int_equal(info.entries, 3);
    assert_true(a.val[0] == 0.1 && a.val[1] == 1e-300 && a.val[2] == 1e-300 && a.val[3] == 3.0);
    cg_csr_free(&a);
    /* the data file: 40 x 40, general form equal to the symmetric form */
    size_t len;
    char *buf = cgt_read_data("spd40.mtx", &len);
    assert_int_equal(cg_mtx_parse(buf, len, "spd40.mtx", &a, &info, &err), 0);
    assert_int_equal(cg_csr_check(&a, &err), 0);
    assert_int_equal(a.n, 40);
    free(buf);
    cg_csr_free(&a);
    cg_csr_free(&ref);
}

typedef struct bad_case {
    const char *text;
    const char *where;  /* the message starts with this ("t.mtx:L:" or "t.mtx:") */
    const char *says;   /* and contains this */
} bad_case;

static const bad_case bad[] = {
    {"", "t.mtx:", "empty file"},
    {"\n", "t.mtx:", "empty file"},
    {"hello\n", "t.mtx:1:", "no Matrix Market banner"},
    {"%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", "t.mtx:1:", "bad banner"},
    {"%%MatrixMarket matrix coordinate real symmetric extra\n", "t.mtx:1:", "bad banner"},
    {"%%MatrixMarket vector coordinate real general\n", "t.mtx:1:", "object 'vector'"},
    {"%%MatrixMarket matrix array real symmetric\n2 2\n1\n0\n1\n", "t.mtx:1:",
     "'array' (dense) is not supported"},
    {"%%MatrixMarket matrix coordinate complex hermitian\n", "t.mtx:1:", "'complex'"},
    {"%%MatrixMarket matrix coordinate real hermitian\n", "t.mtx:1:", "'hermitian'"},
    {"%%MatrixMarket matrix coordinate real skew-symmetric\n", "t.mtx:1:",
     "never positive definite"},
    {"%%MatrixMarket matrix coordinate real weird\n", "t.mtx:1:", "unknown symmetry"},
    {"%%MatrixMarket matrix coordinate double general\n", "t.mtx:1:", "unknown field"},
    {BANNER, "t.mtx:", "size line"},
    {BANNER "% only comments\n", "t.mtx:", "size line"},
    {BANNER "3 3\n", "t.mtx:2:", "needs 3 numbers"},
    {BANNER "3 4 5\n", "t.mtx:2:", "not square"},
    {BANNER "3 3 -5\n", "t.mtx:2:", "not a non-negative whole number"},
    {BANNER "3 x 5\n", "t.mtx:2:", "not a non-negative whole number"},
    {BANNER "99999999999 99999999999 1\n", "t.mtx:2:", "too large"},
    {BANNER "3 3 5 7\n", "t.mtx:2:", "unexpected text"},
    {BANNER "0 0 0\n", "t.mtx:2:", "no rows"},
    {BANNER "3 3 2\n1 1 1\n2 2 1\n", "t.mtx:2:", "diagonal entry is missing"},
    {BANNER "3 3 1000\n1 1 1\n2 2 1\n3 3 1\n", "t.mtx:2:", "truncated"},
    {BANNER "3 3 4\n1 1 1\n2 2 1\n3 3 1\n", "t.mtx:5:", "ends after 3 of the 4 entries"},
    {BANNER "2 2 2\n1 1 1\n2 2 1\n2 1 0.5\n", "t.mtx:5:", "more entries than the 2"},
    {BANNER "2 2 3\n1 1 1\n3 1 1\n2 2 1\n", "t.mtx:4:", "row index 3 out of range"},
    {BANNER "2 2 3\n1 1 1\n2 0 1\n2 2 1\n", "t.mtx:4:", "column index 0 out of range"},
    {BANNER "2 2 3\n1 1 1\n2 -1 1\n2 2 1\n", "t.mtx:4:", "not a whole number"},
    {BANNER "2 2 3\n1 1 1\n2 1 1.0.0\n2 2 1\n", "t.mtx:4:", "'1.0.0' is not a number"},
    {BANNER "2 2 3\n1 1 1\n2 1 abc\n2 2 1\n", "t.mtx:4:", "is not a number"},
    {BANNER "2 2 3\n1 1 1\n2 1 nan\n2 2 1\n", "t.mtx:4:", "not finite"},
    {BANNER "2 2 3\n1 1 1\n2 1 -inf\n2 2 1\n", "t.mtx:4:", "not finite"},
    {BANNER "2 2 3\n1 1 1\n2 1 1e999\n2 2 1\n", "t.mtx:4:", "not finite"},
    {BANNER "2 2 3\n1 1 1\n2 1\n2 2 1\n", "t.mtx:4:", "has no value"},
    {BANNER "2 2 3\n1 1 1\n2\n2 2 1\n", "t.mtx:4:", "this line has 1 number"},
    {BANNER "2 2 3\n1 1 1\n2 1 1 9\n2 2 1\n", "t.mtx:4:", "unexpected text"},
    {BANNER "2 2 3\n1 1 1\n1 2 0.5\n2 2 1\n", "t.mtx:4:", "above the diagonal"},
    {BANNER "2 2 4\n1 1 1\n2 1 0.5\n2 2 1\n2 1 0.25\n", "t.mtx:6:",
     "repeats the one on line 4; duplicate entries are refused, not summed"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 1 0.5\n2 2 1\n",
     "t.mtx:4:", "no partner (1, 2)"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 1\n2 1 0.5\n1 2 0.25\n"
     "2 2 1\n", "t.mtx:5:", "(1, 2) = 0.25 but (2, 1) = 0.5 on line 4"},
    {BANNER "2 2 3\n1 1 1\n2 1 0.5\n2 2 0\n", "t.mtx:5:", "(2, 2) = 0 is not positive"},
    {BANNER "2 2 3\n1 1 -1\n2 1 0.5\n2 2 1\n", "t.mtx:3:", "(1, 1) = -1 is not positive"},
    {BANNER "3 3 3\n1 1 1\n3 1 0.5\n3 3 1\n", "t.mtx:", "row 2 has no diagonal entry"},
    {"%%MatrixMarket matrix coordinate integer symmetric\n1 1 1\n1 1 1.5\n", "t.mtx:3:",
     "not a whole number"},
    {"%%MatrixMarket matrix coordinate integer symmetric\n1 1 1\n1 1 99999999999999999\n",
     "t.mtx:3:", "2^53"},
    {"%%MatrixMarket matrix coordinate pattern symmetric\n1 1 1\n1 1 1\n", "t.mtx:3:",
     "pattern file has no values"},
};

static void check_refused(const char *text, size_t len, const char *where, const char *says)
{
    cg_csr a;
    cg_mtx_info info;
    cg_error err;
    err.msg[0] = '\0';
    if (cg_mtx_parse(text, len, "t.mtx", &a, &info, &err) == 0)
        fail_msg("accepted, expected \"%s\": %.60s", says, text);
    if (strncmp(err.msg, where, strlen(where)) != 0 || !strstr(err.msg, says))
        fail_msg("expected \"%s ... %s\", got \"%s\"", where, says, err.msg);
    /* the place is exact: "t.mtx:" is not followed by a line number when none is expected */
    if (strcmp(where, "t.mtx:") == 0 && err.msg[6] >= '0' && err.msg[6] <= '9')
        fail_msg("expected no line number, got \"%s\"", err.msg);
}

static void test_refused(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        check_refused(bad[k].text, strlen(bad[k].text), bad[k].where, bad[k].says);
}

static void test_overlong_and_nul(void **state)
{
    (void)state;
    char buf[4096];
    strcpy(buf, BANNER "% ");
    int n = (int)strlen(buf);
    memset(buf + n, 'x', CG_MTX_MAX_LINE);
    strcpy(buf + n + CG_MTX_MAX_LINE, "\n1 1 1\n1 1 1\n");
    check_refused(buf, strlen(buf), "t.mtx:2:", "longer than 1024 bytes");
    /* exactly the limit is fine ("% " and 1022 more bytes: a comment) */
    memset(buf + n, 'x', CG_MTX_MAX_LINE - 2);
    strcpy(buf + n + CG_MTX_MAX_LINE - 2, "\n1 1 1\n1 1 1\n");
    cg_csr a;
    cgt_parse_ok(buf, &a);
    cg_csr_free(&a);
    static const char nul[] = BANNER "1 1 1\n1 1\0 1\n";
    check_refused(nul, sizeof nul - 1, "t.mtx:3:", "NUL byte");
}

/* Every prefix of a valid file: refused with a message naming the file, or accepted (only
 * when it ends inside the last entry's value, which a cut cannot be told from; "3.60" of
 * "3.602443" is a number too); never a read beyond len (the prefix is copied into a buffer
 * of exactly its length, which ASan checks). */
static void test_prefixes(void **state)
{
    (void)state;
    size_t len;
    char *full = cgt_read_data("spd40.mtx", &len);
    size_t last_value = (size_t)(strrchr(full, ' ') - full) + 1;
    int accepted = 0;
    for (size_t k = 0; k <= len; k++) {
        char *p = malloc(k ? k : 1);
        assert_non_null(p);
        memcpy(p, full, k);
        cg_csr a;
        cg_mtx_info info;
        cg_error err;
        err.msg[0] = '\0';
        if (cg_mtx_parse(p, k, "t.mtx", &a, &info, &err) == 0) {
            accepted++;
            assert_true(k > last_value);
            cg_csr_free(&a);
        } else {
            assert_true(strncmp(err.msg, "t.mtx:", 6) == 0);
        }
        free(p);
    }
    assert_int_equal(accepted, (int)(len - last_value));
    free(full);
}

static void test_generators(void **state)
{
    (void)state;
    cg_csr a;
    cg_error err;
    for (long n = 1; n <= 7; n++) {
        assert_int_equal(cg_poisson1d(&a, n, &err), 0);
        assert_int_equal(a.n, n);
        assert_int_equal(a.nnz, 3 * n - 2);
        assert_int_equal(cg_csr_check(&a, &err), 0);
        cg_csr_free(&a);
        assert_int_equal(cg_poisson2d(&a, n, &err), 0);
        assert_int_equal(a.n, n * n);
        assert_int_equal(a.nnz, n * n + 4 * n * (n - 1)); /* 2 directions, 2 sides */
        assert_int_equal(cg_csr_check(&a, &err), 0);
        for (int64_t k = a.rowptr[0]; k < a.rowptr[1]; k++) /* row 0: 4, then -1s */
            assert_true(a.val[k] == (a.col[k] == 0 ? 4.0 : -1.0));
        cg_csr_free(&a);
        assert_int_equal(cg_poisson3d(&a, n, &err), 0);
        assert_int_equal(a.n, n * n * n);
        assert_int_equal(a.nnz, n * n * n + 6 * n * n * (n - 1));
        assert_int_equal(cg_csr_check(&a, &err), 0);
        cg_csr_free(&a);
    }
    /* an interior row of the 3-D matrix: the 6 neighbours at +-1, +-n, +-n^2 */
    assert_int_equal(cg_poisson3d(&a, 4, &err), 0);
    int32_t r = 1 + 4 * 1 + 16 * 1;
    int32_t want[7] = {r - 16, r - 4, r - 1, r, r + 1, r + 4, r + 16};
    assert_int_equal(a.rowptr[r + 1] - a.rowptr[r], 7);
    for (int k = 0; k < 7; k++)
        assert_int_equal(a.col[a.rowptr[r] + k], want[k]);
    cg_csr_free(&a);
    assert_int_equal(cg_poisson1d(&a, 0, &err), -1);
    assert_non_null(strstr(err.msg, "--poisson1d 0: give a grid size from 1 to"));
    assert_int_equal(cg_poisson3d(&a, 100000, &err), -1);
    assert_non_null(strstr(err.msg, "--poisson3d 100000"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepted),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_overlong_and_nul),
        cmocka_unit_test(test_prefixes),
        cmocka_unit_test(test_generators),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
