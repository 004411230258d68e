/*
 * mtx.c: the Matrix Market reader (cg/matrix.h, cg_mtx_parse): coordinate files of real,
 * integer or pattern entries, symmetric or general-that-is-symmetric, into a CSR matrix
 * that holds every invariant of cg/matrix.h.
 *
 * It reads a buffer, never beyond its length, line by line (no line longer than
 * CG_MTX_MAX_LINE), and refuses what it cannot use with "NAME:LINE: what; what to do".
 * Memory is bounded by the input: the entries go into an array that grows with the entries
 * actually read, and the size line's counts are checked against the bytes that follow it
 * before anything of their size is allocated (an entry takes at least 4 bytes, and every
 * row needs its diagonal entry, so rows <= entries <= bytes / 4).
 *
 * Duplicates are refused, not summed: some readers sum them, others keep the last, so the
 * file means different matrices to different programs. The diagonal check is the part of
 * positive definiteness that is cheap and certain (a_ii > 0 for every i); a matrix that
 * passes it may still be indefinite, which the solver detects (s.As <= 0).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cg/matrix.h"
#include "util.h"

typedef struct entry {
    int32_t i, j;   /* 0-based */
    double v;
    int64_t line;
} entry;

typedef struct reader {
    const char *p, *end;
    const char *name;
    int64_t line;      /* number of the line last returned */
    char buf[CG_MTX_MAX_LINE + 1];
    size_t len;        /* of buf's line */
} reader;

/* The next line into r->buf (NUL-terminated, without "\n" or "\r\n"). 1: a line, 0: end of
 * input, -1: error. */
static int next_line(reader *r, cg_error *err)
{
    if (r->p >= r->end)
        return 0;
    const char *s = r->p;
    const char *nl = memchr(s, '\n', (size_t)(r->end - s));
    const char *e = nl ? nl : r->end;
    r->p = nl ? nl + 1 : r->end;
    r->line++;
    size_t n = (size_t)(e - s);
    if (n > 0 && s[n - 1] == '\r')
        n--;
    if (n > CG_MTX_MAX_LINE)
        return cg_fail(err, "%s:%lld: line longer than %d bytes; a Matrix Market line holds a "
                       "banner, a comment or one entry: check that this is a Matrix Market "
                       "file", r->name, (long long)r->line, CG_MTX_MAX_LINE);
    if (memchr(s, '\0', n))
        return cg_fail(err, "%s:%lld: NUL byte in the line; this is not a text file: give a "
                       "Matrix Market (.mtx) text file", r->name, (long long)r->line);
    memcpy(r->buf, s, n);
    r->buf[n] = '\0';
    r->len = n;
    return 1;
}

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static bool blank(const char *s)
{
    return *skip_ws(s) == '\0';
}

/* Next whitespace-separated token of *s into tok (at most size - 1 bytes). false at end. */
static bool token(const char **s, char *tok, size_t size)
{
    const char *t = skip_ws(*s);
    if (*t == '\0')
        return false;
    size_t n = 0;
    while (t[n] && t[n] != ' ' && t[n] != '\t')
        n++;
    size_t k = n < size ? n : size - 1;
    memcpy(tok, t, k);
    tok[k] = '\0';
    *s = t + n;
    return true;
}

/* A non-negative decimal integer token, at most max. 0, or -1 if not one / too large. */
static int parse_count(const char *tok, long long max, long long *out)
{
    long long x = 0;
    const char *t = tok;
    if (*t == '+')
        t++;
    if (!isdigit((unsigned char)*t))
        return -1;
    for (; *t; t++) {
        if (!isdigit((unsigned char)*t))
            return -1;
        x = x * 10 + (*t - '0');
        if (x > max)
            return -2;
    }
    *out = x;
    return 0;
}

static int banner(reader *r, cg_mtx_info *info, cg_error *err)
{
    static const char want[] = "'%%MatrixMarket matrix coordinate real symmetric' (or "
                               "general, integer, pattern)";
    int got = next_line(r, err);
    if (got < 0)
        return -1;
    if (got == 0 || (r->line == 1 && r->p >= r->end && blank(r->buf)))
        return cg_fail(err, "%s: empty file; a Matrix Market file starts with %s", r->name,
                       want);
    const char *s = r->buf;
    char tok[5][16]; /* longer words are unknown anyway (truncated in messages) */
    int n = 0;
    while (n < 5 && token(&s, tok[n], sizeof tok[n]))
        n++;
    if (n < 1 || strcasecmp(tok[0], "%%MatrixMarket") != 0)
        return cg_fail(err, "%s:1: no Matrix Market banner; the first line must be %s", r->name,
                       want);
    if (n < 5 || !blank(s))
        return cg_fail(err, "%s:1: bad banner: give 5 words, %s", r->name, want);
    if (strcasecmp(tok[1], "matrix") != 0)
        return cg_fail(err, "%s:1: object '%s' is not supported: only 'matrix'", r->name,
                       tok[1]);
    if (strcasecmp(tok[2], "array") == 0)
        return cg_fail(err, "%s:1: format 'array' (dense) is not supported: convert the file "
                       "to 'coordinate' (sparse)", r->name);
    if (strcasecmp(tok[2], "coordinate") != 0)
        return cg_fail(err, "%s:1: unknown format '%s': give 'coordinate'", r->name, tok[2]);
    if (strcasecmp(tok[3], "complex") == 0)
        return cg_fail(err, "%s:1: field 'complex' is not supported: CG here solves real "
                       "systems (give real, integer or pattern)", r->name);
    if (strcasecmp(tok[3], "real") && strcasecmp(tok[3], "integer") &&
        strcasecmp(tok[3], "pattern"))
        return cg_fail(err, "%s:1: unknown field '%s': give real, integer or pattern", r->name,
                       tok[3]);
    if (strcasecmp(tok[4], "skew-symmetric") == 0)
        return cg_fail(err, "%s:1: a skew-symmetric matrix has a zero diagonal and is never "
                       "positive definite: CG needs a symmetric positive definite matrix",
                       r->name);
    if (strcasecmp(tok[4], "hermitian") == 0)
        return cg_fail(err, "%s:1: symmetry 'hermitian' (complex) is not supported: give a "
                       "real symmetric matrix", r->name);
    if (strcasecmp(tok[4], "symmetric") && strcasecmp(tok[4], "general"))
        return cg_fail(err, "%s:1: unknown symmetry '%s': give symmetric or general", r->name,
                       tok[4]);
    for (int k = 3; k <= 4; k++)
        for (char *c = tok[k]; *c; c++)
            *c = (char)tolower((unsigned char)*c);
    snprintf(info->field, sizeof info->field, "%s", tok[3]);
    snprintf(info->symmetry, sizeof info->symmetry, "%s", tok[4]);
    return 0;
}

/* Skips comments and blank lines; 1 with the next other line in r->buf, 0 at end. */
static int content_line(reader *r, cg_error *err)
{
    for (;;) {
        int got = next_line(r, err);
        if (got <= 0)
            return got;
        if (r->buf[0] != '%' && !blank(r->buf))
            return 1;
    }
}

static int size_line(reader *r, int32_t *n, int64_t *entries, cg_error *err)
{
    int got = content_line(r, err);
    if (got < 0)
        return -1;
    if (got == 0)
        return cg_fail(err, "%s: the file ends after the banner and comments: the size line "
                       "'rows columns entries' is missing (truncated file?)", r->name);
    const char *s = r->buf;
    char tok[3][32];
    long long v[3];
    static const char *const what[3] = {"rows", "columns", "entries"};
    for (int k = 0; k < 3; k++) {
        if (!token(&s, tok[k], sizeof tok[k]))
            return cg_fail(err, "%s:%lld: the size line needs 3 numbers 'rows columns "
                           "entries' (a coordinate file); found %d", r->name,
                           (long long)r->line, k);
        int rc = parse_count(tok[k], k < 2 ? CG_MAX_ROWS : CG_MAX_NNZ, &v[k]);
        if (rc == -1)
            return cg_fail(err, "%s:%lld: %s '%s' is not a non-negative whole number", r->name,
                           (long long)r->line, what[k], tok[k]);
        if (rc == -2)
            return cg_fail(err, "%s:%lld: %s '%s' is too large (at most %lld)", r->name,
                           (long long)r->line, what[k], tok[k],
                           k < 2 ? (long long)CG_MAX_ROWS : CG_MAX_NNZ);
    }
    if (!blank(s))
        return cg_fail(err, "%s:%lld: unexpected text after the size line's 3 numbers",
                       r->name, (long long)r->line);
    if (v[0] != v[1])
        return cg_fail(err, "%s:%lld: the matrix is %lld x %lld, not square: CG needs a "
                       "square (symmetric positive definite) matrix", r->name,
                       (long long)r->line, v[0], v[1]);
    if (v[0] < 1)
        return cg_fail(err, "%s:%lld: the matrix has no rows: give at least 1", r->name,
                       (long long)r->line);
    if (v[2] < v[0])
        return cg_fail(err, "%s:%lld: %lld rows but only %lld entries: some diagonal entry "
                       "is missing, so the matrix is not positive definite (CG needs every "
                       "a_ii > 0)", r->name, (long long)r->line, v[0], v[2]);
    /* "i j" and an end of line: at least 4 bytes an entry (3 for the last). */
    long long rest = (long long)(r->end - r->p);
    if (v[2] > (rest + 1) / 4)
        return cg_fail(err, "%s:%lld: the size line announces %lld entries but only %lld "
                       "bytes follow, too few for them (each takes at least 4): the file is "
                       "truncated or the count is wrong", r->name, (long long)r->line, v[2],
                       rest);
    *n = (int32_t)v[0];
    *entries = v[2];
    return 0;
}

/* One entry from r->buf. */
static int parse_entry(reader *r, int32_t n, const cg_mtx_info *info, entry *e,
                       cg_error *err)
{
    const char *s = r->buf;
    char tok[CG_MTX_MAX_LINE + 1];
    long long ij[2];
    static const char *const what[2] = {"row", "column"};
    bool pattern = info->field[0] == 'p';
    for (int k = 0; k < 2; k++) {
        if (!token(&s, tok, sizeof tok))
            return cg_fail(err, "%s:%lld: an entry is 'row column%s'; this line has %d number%s",
                           r->name, (long long)r->line, pattern ? "" : " value", k,
                           k == 1 ? "" : "s");
        int rc = parse_count(tok, n, &ij[k]);
        if (rc == -1)
            return cg_fail(err, "%s:%lld: %s index '%s' is not a whole number >= 1", r->name,
                           (long long)r->line, what[k], tok);
        if (rc == -2 || ij[k] < 1)
            return cg_fail(err, "%s:%lld: %s index %s out of range: the matrix has %d rows "
                           "and columns, indices 1 to %d", r->name, (long long)r->line,
                           what[k], tok, n, n);
    }
    double v = 1.0;
    if (!pattern) {
        if (!token(&s, tok, sizeof tok))
            return cg_fail(err, "%s:%lld: the entry (%lld, %lld) has no value ('row column "
                           "value' in a %s file)", r->name, (long long)r->line, ij[0], ij[1],
                           info->field);
        char *end;
        if (info->field[0] == 'i') {
            errno = 0;
            long long x = strtoll(tok, &end, 10);
            if (end == tok || *end != '\0' || errno == ERANGE ||
                x > (1LL << 53) || x < -(1LL << 53))
                return cg_fail(err, "%s:%lld: value '%s' is not a whole number of at most 2^53 "
                               "in magnitude (an integer file)", r->name, (long long)r->line,
                               tok);
            v = (double)x;
        } else {
            errno = 0;
            v = strtod(tok, &end);
            if (end == tok || *end != '\0')
                return cg_fail(err, "%s:%lld: value '%s' is not a number", r->name,
                               (long long)r->line, tok);
            if (!isfinite(v))
                return cg_fail(err, "%s:%lld: value '%s' is not finite (or beyond the "
                               "double range): give finite values", r->name,
                               (long long)r->line, tok);
        }
    }
    if (!blank(s))
        return cg_fail(err, "%s:%lld: unexpected text after the entry%s", r->name,
                       (long long)r->line, pattern ? " (a pattern file has no values)" : "");
    e->i = (int32_t)(ij[0] - 1);
    e->j = (int32_t)(ij[1] - 1);
    e->v = v;
    e->line = r->line;
    if (info->symmetry[0] == 's' && e->i < e->j)
        return cg_fail(err, "%s:%lld: entry (%lld, %lld) is above the diagonal; a symmetric "
                       "file holds the lower triangle only (row >= column): swap the indices "
                       "or declare the file 'general'", r->name, (long long)r->line, ij[0],
                       ij[1]);
    return 0;
}

static int entry_cmp(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    if (a->i != b->i)
        return a->i < b->i ? -1 : 1;
    if (a->j != b->j)
        return a->j < b->j ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

/* The entry (i, j) in the sorted array, or NULL. */
static const entry *find(const entry *e, int64_t m, int32_t i, int32_t j)
{
    entry key = {i, j, 0.0, 0};
    int64_t lo = 0, hi = m;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (entry_cmp(&e[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m && e[lo].i == i && e[lo].j == j ? &e[lo] : NULL;
}

/* Checks the sorted entries; keeps only the lower triangle (in place), *m updated. */
static int check_entries(const char *name, int32_t n, bool general, entry *e, int64_t *m,
                         cg_error *err)
{
    for (int64_t k = 1; k < *m; k++)
        if (e[k].i == e[k - 1].i && e[k].j == e[k - 1].j)
            return cg_fail(err, "%s:%lld: entry (%d, %d) repeats the one on line %lld; "
                           "duplicate entries are refused, not summed (readers disagree on "
                           "what they mean): remove one or sum them into one entry", name,
                           (long long)e[k].line, e[k].i + 1, e[k].j + 1,
                           (long long)e[k - 1].line);
    if (general) {
        for (int64_t k = 0; k < *m; k++) {
            if (e[k].i == e[k].j)
                continue;
            const entry *t = find(e, *m, e[k].j, e[k].i);
            if (!t)
                return cg_fail(err, "%s:%lld: the general matrix is not symmetric: entry "
                               "(%d, %d) has no partner (%d, %d); CG needs a symmetric "
                               "matrix", name, (long long)e[k].line, e[k].i + 1, e[k].j + 1,
                               e[k].j + 1, e[k].i + 1);
            if (t->v != e[k].v)
                return cg_fail(err, "%s:%lld: the general matrix is not symmetric: entry "
                               "(%d, %d) = %.17g but (%d, %d) = %.17g on line %lld; CG needs a "
                               "symmetric matrix", name, (long long)e[k].line, e[k].i + 1,
                               e[k].j + 1, e[k].v, t->i + 1, t->j + 1, t->v,
                               (long long)t->line);
        }
        int64_t w = 0;
        for (int64_t k = 0; k < *m; k++)
            if (e[k].i >= e[k].j)
                e[w++] = e[k];
        *m = w;
    }
    /* Sorted by row, the diagonal is each row's last lower-triangle entry. */
    int64_t k = 0;
    for (int32_t r = 0; r < n; r++) {
        while (k < *m && e[k].i < r)
            k++;
        int64_t last = k;
        while (last < *m && e[last].i == r)
            last++;
        if (last == k || e[last - 1].j != r)
            return cg_fail(err, "%s: row %d has no diagonal entry: a zero diagonal entry means "
                           "the matrix is not positive definite, and CG needs a symmetric "
                           "positive definite matrix", name, r + 1);
        if (!(e[last - 1].v > 0))
            return cg_fail(err, "%s:%lld: diagonal entry (%d, %d) = %.17g is not positive: "
                           "the matrix is not positive definite, and CG needs a symmetric "
                           "positive definite matrix", name, (long long)e[last - 1].line,
                           r + 1, r + 1, e[last - 1].v);
        k = last;
    }
    return 0;
}

/* CSR of the symmetric matrix whose lower triangle is e (sorted by row, then column):
 * filling in that order leaves each row's columns ascending (cg/matrix.h). */
static void build_csr(int32_t n, const entry *e, int64_t m, cg_csr *a)
{
    a->n = n;
    a->rowptr = cg_xcalloc((size_t)n + 1, sizeof *a->rowptr);
    for (int64_t k = 0; k < m; k++) {
        a->rowptr[e[k].i + 1]++;
        if (e[k].i != e[k].j)
            a->rowptr[e[k].j + 1]++;
    }
    for (int32_t r = 0; r < n; r++)
        a->rowptr[r + 1] += a->rowptr[r];
    a->nnz = a->rowptr[n];
    a->col = cg_xmalloc((size_t)a->nnz * sizeof *a->col);
    a->val = cg_xmalloc((size_t)a->nnz * sizeof *a->val);
    int64_t *pos = cg_xmalloc((size_t)n * sizeof *pos);
    memcpy(pos, a->rowptr, (size_t)n * sizeof *pos);
    for (int64_t k = 0; k < m; k++) {
        int64_t p = pos[e[k].i]++;
        a->col[p] = e[k].j;
        a->val[p] = e[k].v;
        if (e[k].i != e[k].j) {
            p = pos[e[k].j]++;
            a->col[p] = e[k].i;
            a->val[p] = e[k].v;
        }
    }
    free(pos);
}

int cg_mtx_parse(const char *buf, size_t len, const char *name, cg_csr *a, cg_mtx_info *info,
                 cg_error *err)
{
    memset(a, 0, sizeof *a);
    memset(info, 0, sizeof *info);
    reader *r = cg_xmalloc(sizeof *r);
    r->p = buf;
    r->end = buf + len;
    r->name = name;
    r->line = 0;
    entry *e = NULL;
    int rc = -1;
    int32_t n = 0;
    int64_t want = 0, m = 0, cap = 0;
    if (banner(r, info, err) != 0 || size_line(r, &n, &want, err) != 0)
        goto out;
    info->entries = want;
    for (;;) {
        int got = content_line(r, err);
        if (got < 0)
            goto out;
        if (got == 0)
            break;
        if (m == want) {
            cg_fail(err, "%s:%lld: more entries than the %lld the size line announces: fix "
                    "the count or remove the extra lines", name, (long long)r->line,
                    (long long)want);
            goto out;
        }
        if (m == cap) {
            cap = cap ? 2 * cap : 1024;
            if (cap > want)
                cap = want;
            entry *g = realloc(e, (size_t)cap * sizeof *e);
            if (!g) {
                cg_fail(err, "%s: out of memory for %lld entries", name, (long long)cap);
                goto out;
            }
            e = g;
        }
        if (parse_entry(r, n, info, &e[m], err) != 0)
            goto out;
        m++;
    }
    if (m < want) {
        cg_fail(err, "%s:%lld: the file ends after %lld of the %lld entries the size line "
                "announces: the file is truncated or the count is wrong", name,
                (long long)r->line, (long long)m, (long long)want);
        goto out;
    }
    qsort(e, (size_t)m, sizeof *e, entry_cmp);
    if (check_entries(name, n, info->symmetry[0] == 'g', e, &m, err) != 0)
        goto out;
    build_csr(n, e, m, a);
    rc = 0;
out:
    free(e);
    free(r);
    return rc;
}

int cg_mtx_read(const char *path, cg_csr *a, cg_mtx_info *info, cg_error *err)
{
    memset(a, 0, sizeof *a);
    FILE *f = fopen(path, "rb");
    if (!f)
        return cg_fail(err, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = cg_xmalloc(cap);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            char *g = realloc(buf, cap);
            if (!g) {
                free(buf);
                fclose(f);
                return cg_fail(err, "%s: out of memory reading the file", path);
            }
            buf = g;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    int rc = bad ? cg_fail(err, "%s: read error", path)
                 : cg_mtx_parse(buf, len, path, a, info, err);
    free(buf);
    return rc;
}
