/*
 * lammps_data.c: the LAMMPS data file reader (atom_style atomic), as a function over a buffer.
 *
 * The format (LAMMPS read_data): the first line is a title and is skipped; then header lines
 * "N atoms", "N atom types", "lo hi xlo xhi" (and y, z), "xy xz yz" (tilts; only all zero
 * is accepted: the box is orthorhombic) until the first section keyword; then sections, each
 * a keyword line followed by its entries:
 *   Masses        "type mass"                  one per atom type
 *   Atoms         "id type x y z [ix iy iz]"   one per atom. As LAMMPS does in a periodic
 *                                              box, an atom outside the box is wrapped into
 *                                              it and its image flag counts the wrap: the
 *                                              stored image is the file's (0 when absent)
 *                                              plus the box lengths the atom moved, so
 *                                              x + img·L is the file's x + ix·L exactly, in
 *                                              fixed point (|img| <= 2^30, MD_IMAGE_MAX)
 *   Velocities    "id vx vy vz"                one per atom (optional; zero when absent)
 *   Pair Coeffs   "type epsilon sigma [rc]"    optional; epsilon = sigma = 1 (reduced LJ);
 *   PairIJ Coeffs "i j epsilon sigma [rc]"     a cut-off must equal the run's rc
 * '#' starts a comment anywhere; blank lines are skipped; a line ends at LF, CRLF or CR.
 * Everything else is an error that names the file, the line, what is wrong and what to do,
 * and the reader never reads past the buffer (it need not be NUL-terminated): the shape a
 * fuzzer wants.
 *
 * What the fixed-point state can hold (shmemu/md.h, fixed.h), with N atoms and time step dt.
 * The momentum unit is u = dt/2 · 2^-32 m σ/τ, so an atom of mass m and velocity v has
 * p = m v / u, an int64:
 *   - momentum: |p| <= MD_MOMENTUM_MAX = 2^52 (fixed.h: the limit every input shares, the
 *     checkpoint's too), and the kinetic energy is the exact sum of p² over 3N components
 *     in 128 bits (kinetic.h), so |p| <= P_MAX = min(2^52, 2^63 / sqrt(3N)) (3N P_MAX² <=
 *     2^126: room for the momenta to double during a run); the total momentum is summed in int64, so
 *     each component of Σp must stay below 2^62. A velocity beyond |v| <= P_MAX u / m is
 *     refused, naming the atom, its line, the component and the limit.
 *   - drift: a step moves an atom by round(p dt²/2m) position units; round() needs that
 *     below 2^63 for every p the state can hold, so dt²/2m <= 1: masses m >= dt²/2.
 *     An atom heavier than P_MAX dt²/2 cannot move at all (even p = P_MAX rounds to no
 *     displacement) and its kinetic energy vanishes: masses m <= P_MAX dt²/2.
 *   - per step, an atom may not travel as far as the largest box: |v| dt < 2^19 σ, so the
 *     unwrapped positions between two searches stay exact doubles (fixed.h).
 *   - positions: x - lo is converted to int64 units of 2^-32 σ before the exact integer
 *     wrap into the box, so |x - lo| < 2^30 σ (2^62 units: half the int64 range).
 */
#include "lammps_data.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixed.h"
#include "shmemu/md.h"
#include "util.h"

#define MAX_TOKENS 12
#define MAX_COORD 1073741824.0 /* 2^30 σ: the farthest x - lo that is wrapped (see top) */
#define MAX_STEP_SIGMA MD_MAX_BOX_SIGMA /* |v| dt below this (see top) */
#define MAX_ATOMS (INT32_MAX / 2)
#define MAX_TYPES 1000000

typedef struct token {
    const char *s;
    size_t len;
} token;

typedef struct line {
    int number;             /* 1-based line number */
    int ntok;               /* tokens before any comment (may exceed MAX_TOKENS) */
    token tok[MAX_TOKENS];
    const char *comment;    /* text after '#', or NULL */
    size_t comment_len;
} line;

typedef struct reader {
    const char *buf;
    size_t len, pos;
    int line_no;
    const char *name;
    md_error *err;
    bool pushed_back; /* the current line is read again by the next next_line() */
    line cur;
} reader;

static int fail_at(reader *r, int line_no, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail_at(reader *r, int line_no, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (line_no > 0)
        return md_fail(r->err, "%s:%d: %s", r->name, line_no, what);
    return md_fail(r->err, "%s: %s", r->name, what);
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

/* Reads the next line into r->cur. Returns 1, 0 at the end of the buffer, -1 on error. */
static int next_line(reader *r)
{
    if (r->pushed_back) {
        r->pushed_back = false;
        return 1;
    }
    if (r->pos >= r->len)
        return 0;
    line *l = &r->cur;
    memset(l, 0, sizeof *l);
    l->number = ++r->line_no;
    size_t end = r->pos;
    while (end < r->len && r->buf[end] != '\n' && r->buf[end] != '\r')
        end++;
    const char *s = r->buf + r->pos;
    size_t n = end - r->pos;
    /* LF, CRLF or CR (old Mac files) ends the line */
    if (end < r->len && r->buf[end] == '\r' && end + 1 < r->len && r->buf[end + 1] == '\n')
        end++;
    r->pos = end < r->len ? end + 1 : end;
    if (memchr(s, '\0', n))
        return fail_at(r, l->number, "the line contains a NUL byte; this is not a text data file");
    const char *hash = memchr(s, '#', n);
    if (hash) {
        l->comment = hash + 1;
        l->comment_len = n - (size_t)(hash + 1 - s);
        n = (size_t)(hash - s);
    }
    size_t i = 0;
    while (i < n) {
        while (i < n && is_space(s[i]))
            i++;
        if (i >= n)
            break;
        size_t b = i;
        while (i < n && !is_space(s[i]))
            i++;
        if (l->ntok < MAX_TOKENS) {
            l->tok[l->ntok].s = s + b;
            l->tok[l->ntok].len = i - b;
        }
        l->ntok++;
    }
    return 1;
}

/* Next line with tokens (skips blank and comment-only lines). */
static int next_nonblank(reader *r)
{
    for (;;) {
        int rc = next_line(r);
        if (rc <= 0)
            return rc;
        if (r->cur.ntok > 0)
            return 1;
    }
}

static bool tok_is(const token *t, const char *word)
{
    size_t n = strlen(word);
    return t->len == n && memcmp(t->s, word, n) == 0;
}

/* A token as a C string: in the caller's small buffer, or on the heap when it is longer
 * (numbers of any length are accepted, e.g. 40-digit mantissas). Free with tok_cstr_free. */
static char *tok_cstr(const token *t, char *small, size_t size)
{
    char *b = t->len + 1 <= size ? small : md_xmalloc(t->len + 1);
    memcpy(b, t->s, t->len);
    b[t->len] = '\0';
    return b;
}

static void tok_cstr_free(char *b, const char *small)
{
    if (b != small)
        free(b);
}

static void tok_show(const token *t, char *buf, size_t size)
{
    size_t n = t->len < size - 4 ? t->len : size - 4;
    memcpy(buf, t->s, n);
    strcpy(buf + n, t->len > n ? "..." : "");
}

/* A finite number; an underflow to a subnormal or zero is a number too (strtod's ERANGE
 * with a result below DBL_MIN), an overflow to infinity is not. */
static bool parse_double(const token *t, double *out)
{
    char small[96];
    char *b = tok_cstr(t, small, sizeof small);
    char *end;
    errno = 0;
    double v = strtod(b, &end);
    bool ok = end != b && *end == '\0' && isfinite(v) && !(errno == ERANGE && fabs(v) > 1.0);
    tok_cstr_free(b, small);
    if (ok)
        *out = v;
    return ok;
}

static bool parse_int(const token *t, long long *out)
{
    char small[96];
    char *b = tok_cstr(t, small, sizeof small);
    char *end;
    errno = 0;
    long long v = strtoll(b, &end, 10);
    bool ok = end != b && *end == '\0' && errno != ERANGE;
    tok_cstr_free(b, small);
    if (ok)
        *out = v;
    return ok;
}

static int bad_field(reader *r, const char *section, int field, const char *field_name,
                     const char *want)
{
    char shown[48];
    tok_show(&r->cur.tok[field], shown, sizeof shown);
    return fail_at(r, r->cur.number, "%s: field %d (%s) is not %s: '%s'", section, field + 1,
                   field_name, want, shown);
}

/* A line starts a section when its first token starts with a letter. */
static bool is_section_line(const line *l)
{
    return l->ntok > 0 && isalpha((unsigned char)l->tok[0].s[0]);
}

/* ---- header ---------------------------------------------------------------------------- */

typedef struct header {
    long long natoms, ntypes;
    bool have_atoms, have_types, have_box[3];
    double lo[3], hi[3];
} header;

static int parse_header(reader *r, header *h)
{
    /* The first line is a title. */
    if (next_line(r) <= 0)
        return fail_at(r, 0, "the file is empty; a LAMMPS data file starts with a title line "
                             "and a header (e.g. '100 atoms')");
    for (;;) {
        int rc = next_nonblank(r);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return fail_at(r, r->line_no, "the file ends inside the header: no Masses or Atoms "
                                          "section");
        line *l = &r->cur;
        if (is_section_line(l)) {
            r->pushed_back = true;
            return 0;
        }
        /* "N atoms", "N atom types", "lo hi xlo xhi", "a b c xy xz yz", "N bonds" ... */
        if (l->ntok == 2 && tok_is(&l->tok[1], "atoms")) {
            if (!parse_int(&l->tok[0], &h->natoms) || h->natoms < 1 || h->natoms > MAX_ATOMS)
                return fail_at(r, l->number, "header: '%.*s atoms' needs a count from 1 to %d",
                               (int)l->tok[0].len, l->tok[0].s, MAX_ATOMS);
            h->have_atoms = true;
            continue;
        }
        if (l->ntok == 3 && tok_is(&l->tok[1], "atom") && tok_is(&l->tok[2], "types")) {
            if (!parse_int(&l->tok[0], &h->ntypes) || h->ntypes < 1 || h->ntypes > MAX_TYPES)
                return fail_at(r, l->number, "header: 'N atom types' needs a count from 1 to %d",
                               MAX_TYPES);
            h->have_types = true;
            continue;
        }
        if (l->ntok == 4 && l->tok[2].len == 3 && l->tok[3].len == 3 &&
            l->tok[2].s[1] == 'l' && l->tok[2].s[2] == 'o' && l->tok[3].s[1] == 'h' &&
            l->tok[3].s[2] == 'i' && l->tok[2].s[0] == l->tok[3].s[0] &&
            l->tok[2].s[0] >= 'x' && l->tok[2].s[0] <= 'z') {
            int d = l->tok[2].s[0] - 'x';
            if (!parse_double(&l->tok[0], &h->lo[d]) || !parse_double(&l->tok[1], &h->hi[d]))
                return fail_at(r, l->number, "header: '%clo %chi' needs two numbers",
                               'x' + d, 'x' + d);
            if (!(h->hi[d] > h->lo[d]))
                return fail_at(r, l->number, "header: %chi (%g) must be larger than %clo (%g)",
                               'x' + d, h->hi[d], 'x' + d, h->lo[d]);
            h->have_box[d] = true;
            continue;
        }
        if (l->ntok == 6 && tok_is(&l->tok[3], "xy") && tok_is(&l->tok[4], "xz") &&
            tok_is(&l->tok[5], "yz")) {
            /* Tilt factors: LAMMPS makes a triclinic box even when all are zero; with zero
             * tilt that box is the orthorhombic one, so it is accepted. */
            double tilt[3];
            for (int k = 0; k < 3; k++)
                if (!parse_double(&l->tok[k], &tilt[k]))
                    return fail_at(r, l->number, "header: 'xy xz yz' needs three numbers");
            if (tilt[0] != 0.0 || tilt[1] != 0.0 || tilt[2] != 0.0)
                return fail_at(r, l->number, "header: tilt factors xy %g xz %g yz %g: "
                               "triclinic boxes are not supported; give an orthorhombic box "
                               "(all tilts 0)", tilt[0], tilt[1], tilt[2]);
            continue;
        }
        bool triclinic = false;
        for (int k = 0; k < l->ntok && k < MAX_TOKENS; k++)
            triclinic |= tok_is(&l->tok[k], "xy") || tok_is(&l->tok[k], "xz") ||
                         tok_is(&l->tok[k], "yz") || tok_is(&l->tok[k], "avec") ||
                         tok_is(&l->tok[k], "bvec") || tok_is(&l->tok[k], "cvec");
        if (triclinic)
            return fail_at(r, l->number, "header: a triclinic box line ('xy xz yz' is "
                                         "'a b c xy xz yz'; avec/bvec/cvec boxes) is not "
                                         "supported; give an orthorhombic box");
        if ((l->ntok == 2 || l->ntok == 3) &&
            (tok_is(&l->tok[1], "bonds") || tok_is(&l->tok[1], "angles") ||
             tok_is(&l->tok[1], "dihedrals") || tok_is(&l->tok[1], "impropers") ||
             tok_is(&l->tok[1], "bond") || tok_is(&l->tok[1], "angle") ||
             tok_is(&l->tok[1], "dihedral") || tok_is(&l->tok[1], "improper") ||
             tok_is(&l->tok[1], "ellipsoids") || tok_is(&l->tok[1], "lines") ||
             tok_is(&l->tok[1], "triangles") || tok_is(&l->tok[1], "bodies"))) {
            long long v;
            if (!parse_int(&l->tok[0], &v))
                return fail_at(r, l->number, "header: '%.*s' is not a count", (int)l->tok[0].len,
                               l->tok[0].s);
            if (v != 0)
                return fail_at(r, l->number, "header: %lld %.*s: atom_style atomic has no "
                               "molecular topology; give 0 or remove the line", v,
                               (int)l->tok[1].len, l->tok[1].s);
            continue;
        }
        if (l->ntok >= 2 && tok_is(&l->tok[0], "extra"))
            continue; /* "extra bond per atom" and the like: nothing to reserve here */
        char shown[48];
        tok_show(&l->tok[l->ntok > 1 ? 1 : 0], shown, sizeof shown);
        return fail_at(r, l->number, "header: unknown line ('%s ...'); expected 'N atoms', "
                                     "'N atom types' or 'lo hi xlo xhi'", shown);
    }
}

/* ---- sections -------------------------------------------------------------------------- */

typedef enum section_kind {
    SEC_MASSES,
    SEC_ATOMS,
    SEC_VELOCITIES,
    SEC_PAIR_COEFFS,
    SEC_PAIRIJ_COEFFS,
    SEC_COUNT
} section_kind;

/* Reads exactly `count` entries of a section; each is handed to fn. After them, the next
 * non-blank line must be a section keyword or the end of the file. */
typedef int (*entry_fn)(reader *r, void *ctx);

static int read_entries(reader *r, const char *section, long long count, const char *unit,
                        entry_fn fn, void *ctx)
{
    int header_line = r->cur.number;
    for (long long k = 0; k < count; k++) {
        int rc = next_nonblank(r);
        if (rc < 0)
            return -1;
        if (rc == 0 || is_section_line(&r->cur))
            return fail_at(r, rc == 0 ? r->line_no : r->cur.number,
                           "%s (line %d) has %lld entries, but the header says %lld %s; fix "
                           "the header count or the section", section, header_line, k, count,
                           unit);
        if (fn(r, ctx) != 0)
            return -1;
    }
    int rc = next_nonblank(r);
    if (rc < 0)
        return -1;
    if (rc == 1) {
        if (!is_section_line(&r->cur))
            return fail_at(r, r->cur.number, "%s (line %d) has more than the %lld entries the "
                           "header's %s count says; fix the header count or the section",
                           section, header_line, count, unit);
        r->pushed_back = true;
    }
    return 0;
}

typedef struct parse_state {
    header h;
    md_system *sys;
    double dt;           /* τ: the run's time step (momentum unit) */
    double rc;           /* σ: the run's cut-off; <= 0 when the caller did not say */
    double pmax;         /* P_MAX (see top), momentum units */
    double *vel[3];      /* velocities by atom slot, until converted */
    int *vel_line;       /* the file line of each slot's velocity (0: none) */
    bool *mass_set;
    int32_t *slot_of;    /* sorted by id: index into atoms; built after Atoms */
    bool have_section[SEC_COUNT];
    int32_t atoms_read;
    uint8_t *pair_seen;  /* PairIJ Coeffs: bit per (i <= j) pair */
} parse_state;

static int entry_mass(reader *r, void *ctx)
{
    parse_state *ps = ctx;
    line *l = &r->cur;
    long long t;
    double m;
    if (l->ntok != 2)
        return fail_at(r, l->number, "Masses: %d fields; each line is 'type mass'", l->ntok);
    if (!parse_int(&l->tok[0], &t))
        return bad_field(r, "Masses", 0, "type", "an integer");
    if (!parse_double(&l->tok[1], &m))
        return bad_field(r, "Masses", 1, "mass", "a number");
    if (t < 1 || t > ps->h.ntypes)
        return fail_at(r, l->number, "Masses: type %lld is outside 1..%lld (the header's atom "
                       "types)", t, ps->h.ntypes);
    if (!(m > 0.0))
        return fail_at(r, l->number, "Masses: type %lld has mass %g; masses must be positive",
                       t, m);
    /* Limits of the fixed-point state (see the top of this file). */
    double mmin = 0.5 * ps->dt * ps->dt, mmax = ps->pmax * mmin;
    if (m < mmin)
        return fail_at(r, l->number, "Masses: type %lld has mass %g, below the limit %g "
                       "(dt²/2 at dt %g): one momentum unit would move it more than one "
                       "position unit per step and the fixed-point drift could overflow; "
                       "scale the masses (LJ reduced units: type 1 is usually 1) or shorten "
                       "--dt", t, m, mmin, ps->dt);
    if (m > mmax)
        return fail_at(r, l->number, "Masses: type %lld has mass %g, above the limit %g "
                       "(P_MAX dt²/2 at dt %g, P_MAX = %.0f momentum units for %lld atoms): "
                       "no momentum the fixed-point state can hold would move it; scale the "
                       "masses (LJ reduced units: type 1 is usually 1)", t, m, mmax, ps->dt,
                       ps->pmax, ps->h.natoms);
    if (ps->mass_set[t - 1])
        return fail_at(r, l->number, "Masses: type %lld is given twice", t);
    ps->mass_set[t - 1] = true;
    ps->sys->mass[t - 1] = m;
    return 0;
}

/* The coefficients after the type(s) of a Pair Coeffs or PairIJ Coeffs line, from field
 * `first`: epsilon sigma [cut-off] (lj/cut). what: "type 2" or "types 1 2". */
static int pair_coeffs(reader *r, const parse_state *ps, const char *section, int first,
                       const char *what)
{
    line *l = &r->cur;
    double eps, sig, cut;
    if (!parse_double(&l->tok[first], &eps))
        return bad_field(r, section, first, "epsilon", "a number");
    if (!parse_double(&l->tok[first + 1], &sig))
        return bad_field(r, section, first + 1, "sigma", "a number");
    if (eps != 1.0 || sig != 1.0)
        return fail_at(r, l->number, "%s: %s has epsilon %g sigma %g; this app runs LJ in "
                       "reduced units with epsilon = sigma = 1 for every type", section, what,
                       eps, sig);
    if (l->ntok == first + 3) { /* a per-type cut-off: honoured only if it is the run's */
        if (!parse_double(&l->tok[first + 2], &cut))
            return bad_field(r, section, first + 2, "cut-off", "a number");
        if (ps->rc <= 0.0)
            return fail_at(r, l->number, "%s: %s gives a cut-off (%g) and the reader was not "
                           "told the run's cut-off, so it cannot honour it; remove the cut-off "
                           "column", section, what, cut);
        if (cut != ps->rc)
            return fail_at(r, l->number, "%s: %s has cut-off %.17g, but the run's --rc is "
                           "%.17g; this app uses one cut-off for every pair: give --rc %.17g "
                           "or remove the cut-off column", section, what, cut, ps->rc, cut);
    }
    return 0;
}

static int entry_pair_coeff(reader *r, void *ctx)
{
    parse_state *ps = ctx;
    line *l = &r->cur;
    long long t;
    if (l->ntok < 3 || l->ntok > 4)
        return fail_at(r, l->number, "Pair Coeffs: %d fields; each line is 'type epsilon sigma "
                       "[cut-off]'", l->ntok);
    if (!parse_int(&l->tok[0], &t))
        return bad_field(r, "Pair Coeffs", 0, "type", "an integer");
    if (t < 1 || t > ps->h.ntypes)
        return fail_at(r, l->number, "Pair Coeffs: type %lld is outside 1..%lld", t,
                       ps->h.ntypes);
    char what[40];
    snprintf(what, sizeof what, "type %lld", t);
    return pair_coeffs(r, ps, "Pair Coeffs", 1, what);
}

/* PairIJ Coeffs: one line per pair of types i <= j (what write_data pair ij writes). */
static int entry_pairij_coeff(reader *r, void *ctx)
{
    parse_state *ps = ctx;
    line *l = &r->cur;
    long long i, j;
    if (l->ntok < 4 || l->ntok > 5)
        return fail_at(r, l->number, "PairIJ Coeffs: %d fields; each line is 'i j epsilon "
                       "sigma [cut-off]'", l->ntok);
    if (!parse_int(&l->tok[0], &i))
        return bad_field(r, "PairIJ Coeffs", 0, "i", "an integer");
    if (!parse_int(&l->tok[1], &j))
        return bad_field(r, "PairIJ Coeffs", 1, "j", "an integer");
    if (i < 1 || j < 1 || i > ps->h.ntypes || j > ps->h.ntypes)
        return fail_at(r, l->number, "PairIJ Coeffs: types %lld %lld: each must be in 1..%lld",
                       i, j, ps->h.ntypes);
    if (i > j)
        return fail_at(r, l->number, "PairIJ Coeffs: types %lld %lld: give each pair once with "
                       "i <= j (%lld %lld)", i, j, j, i);
    /* index of (i, j) among the pairs i <= j, row by row */
    long long n = ps->h.ntypes;
    long long k = (i - 1) * n - (i - 1) * (i - 2) / 2 + (j - i);
    if (ps->pair_seen[k / 8] & (1u << (k % 8)))
        return fail_at(r, l->number, "PairIJ Coeffs: the pair %lld %lld is given twice", i, j);
    ps->pair_seen[k / 8] |= (uint8_t)(1u << (k % 8));
    char what[64];
    snprintf(what, sizeof what, "types %lld %lld", i, j);
    return pair_coeffs(r, ps, "PairIJ Coeffs", 2, what);
}

static int entry_atom(reader *r, void *ctx)
{
    parse_state *ps = ctx;
    line *l = &r->cur;
    md_system *sys = ps->sys;
    md_atoms *at = &sys->atoms;
    if (l->ntok != 5 && l->ntok != 8)
        return fail_at(r, l->number, "Atoms: %d fields; atom_style atomic lines are "
                       "'id type x y z' or 'id type x y z ix iy iz'", l->ntok);
    long long id, t, img[3] = {0, 0, 0};
    double x[3];
    static const char *names[8] = {"id", "type", "x", "y", "z", "ix", "iy", "iz"};
    if (!parse_int(&l->tok[0], &id))
        return bad_field(r, "Atoms", 0, names[0], "an integer");
    if (!parse_int(&l->tok[1], &t))
        return bad_field(r, "Atoms", 1, names[1], "an integer");
    for (int d = 0; d < 3; d++)
        if (!parse_double(&l->tok[2 + d], &x[d]))
            return bad_field(r, "Atoms", 2 + d, names[2 + d], "a number");
    for (int k = 5; k < l->ntok; k++)
        if (!parse_int(&l->tok[k], &img[k - 5]) || img[k - 5] < -MD_IMAGE_MAX ||
            img[k - 5] > MD_IMAGE_MAX)
            return bad_field(r, "Atoms", k, names[k], "an integer image flag of at most 2^30 "
                             "in size");
    if (id < 1 || id > INT64_MAX / 2)
        return fail_at(r, l->number, "Atoms: atom id %lld; ids must be positive", id);
    if (t < 1 || t > ps->h.ntypes)
        return fail_at(r, l->number, "Atoms: atom %lld has type %lld, outside 1..%lld (the "
                       "header's atom types)", id, t, ps->h.ntypes);
    int32_t n = ps->atoms_read;
    at->id[n] = id;
    at->type[n] = (int32_t)(t - 1);
    at->zone[n] = 0;
    for (int d = 0; d < 3; d++) {
        /* Periodic in every dimension: an atom outside the box is wrapped into it, exactly,
         * in integer units (as LAMMPS remaps it; x = hi wraps to lo). */
        const double rel = x[d] - ps->h.lo[d];
        if (!(fabs(rel) < MAX_COORD))
            return fail_at(r, l->number, "Atoms: atom %lld: %c = %.17g is too far outside the "
                           "box (%.3g σ from %clo): the fixed-point positions wrap atoms into "
                           "the box only from within %.0f σ (2^30); wrap the atom into the box",
                           id,
                           'x' + d, x[d], rel, 'x' + d, MAX_COORD);
        const int64_t u = md_pos_from_double(rel);
        const long long moved = md_wrap_count(u, sys->box.len[d]);
        if (llabs(img[d] + moved) > MD_IMAGE_MAX)
            return fail_at(r, l->number, "Atoms: atom %lld: image flag %c%c %lld plus the %lld "
                           "box lengths the wrap moves it is beyond ±2^30; wrap the atom "
                           "into the box and give its image flag", id, 'i', 'x' + d, img[d],
                           moved);
        at->x[d][n] = md_wrap(u, sys->box.len[d]);
        at->img[d][n] = (int32_t)(img[d] + moved); /* x + img·len = u + i·len exactly */
        at->p[d][n] = 0;
        at->f[d][n] = 0;
    }
    ps->atoms_read++;
    at->n = ps->atoms_read;
    return 0;
}

static int cmp_slot_by_id(const void *a, const void *b, void *ctx)
{
    const int64_t *id = ctx;
    int64_t x = id[*(const int32_t *)a], y = id[*(const int32_t *)b];
    return (x > y) - (x < y);
}

static int32_t find_slot(const parse_state *ps, int64_t id)
{
    const md_atoms *at = &ps->sys->atoms;
    int32_t lo = 0, hi = at->n - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int64_t v = at->id[ps->slot_of[mid]];
        if (v == id)
            return ps->slot_of[mid];
        if (v < id)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static int entry_velocity(reader *r, void *ctx)
{
    parse_state *ps = ctx;
    line *l = &r->cur;
    if (l->ntok != 4)
        return fail_at(r, l->number, "Velocities: %d fields; each line is 'id vx vy vz'",
                       l->ntok);
    long long id;
    double v[3];
    static const char *names[4] = {"id", "vx", "vy", "vz"};
    if (!parse_int(&l->tok[0], &id))
        return bad_field(r, "Velocities", 0, names[0], "an integer");
    for (int d = 0; d < 3; d++)
        if (!parse_double(&l->tok[1 + d], &v[d]))
            return bad_field(r, "Velocities", 1 + d, names[1 + d], "a number");
    int32_t s = find_slot(ps, id);
    if (s < 0)
        return fail_at(r, l->number, "Velocities: atom id %lld is not in the Atoms section", id);
    if (ps->vel_line[s])
        return fail_at(r, l->number, "Velocities: atom id %lld is given twice (line %d)", id,
                       ps->vel_line[s]);
    ps->vel_line[s] = l->number;
    for (int d = 0; d < 3; d++)
        ps->vel[d][s] = v[d];
    return 0;
}

static int parse_sections(reader *r, parse_state *ps)
{
    md_system *sys = ps->sys;
    for (;;) {
        int rc = next_nonblank(r);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return 0;
        line *l = &r->cur;
        section_kind kind;
        const char *name;
        int words = 1;
        if (tok_is(&l->tok[0], "Masses")) {
            kind = SEC_MASSES;
            name = "Masses";
        } else if (tok_is(&l->tok[0], "Atoms")) {
            kind = SEC_ATOMS;
            name = "Atoms";
        } else if (tok_is(&l->tok[0], "Velocities")) {
            kind = SEC_VELOCITIES;
            name = "Velocities";
        } else if (l->ntok >= 2 && tok_is(&l->tok[0], "Pair") && tok_is(&l->tok[1], "Coeffs")) {
            kind = SEC_PAIR_COEFFS;
            name = "Pair Coeffs";
            words = 2;
        } else if (l->ntok >= 2 && tok_is(&l->tok[0], "PairIJ") &&
                   tok_is(&l->tok[1], "Coeffs")) {
            kind = SEC_PAIRIJ_COEFFS;
            name = "PairIJ Coeffs";
            words = 2;
        } else if (is_section_line(l)) {
            char shown[48];
            tok_show(&l->tok[0], shown, sizeof shown);
            return fail_at(r, l->number, "section '%s' is not supported: atom_style atomic with "
                           "LJ reads Masses, Atoms, Velocities, Pair Coeffs and PairIJ "
                           "Coeffs", shown);
        } else {
            return fail_at(r, l->number, "expected a section keyword (Masses, Atoms, "
                                         "Velocities), found an entry line");
        }
        if (l->ntok != words)
            return fail_at(r, l->number, "'%s' must be alone on its line (comments after '#' "
                                         "are fine)", name);
        if (ps->have_section[kind])
            return fail_at(r, l->number, "section %s appears twice", name);
        ps->have_section[kind] = true;
        switch (kind) {
        case SEC_MASSES:
            if (read_entries(r, name, ps->h.ntypes, "atom types", entry_mass, ps) != 0)
                return -1;
            break;
        case SEC_PAIR_COEFFS:
            if (ps->have_section[SEC_PAIRIJ_COEFFS])
                return fail_at(r, l->number, "Pair Coeffs and PairIJ Coeffs both appear; "
                                             "give one of them");
            if (read_entries(r, name, ps->h.ntypes, "atom types", entry_pair_coeff, ps) != 0)
                return -1;
            break;
        case SEC_PAIRIJ_COEFFS: {
            if (ps->have_section[SEC_PAIR_COEFFS])
                return fail_at(r, l->number, "Pair Coeffs and PairIJ Coeffs both appear; "
                                             "give one of them");
            long long n = ps->h.ntypes, pairs = n * (n + 1) / 2;
            /* a line is at least 8 bytes ("1 1 1 1\n"): bound the count by the input */
            if ((double)pairs * 8.0 > (double)r->len)
                return fail_at(r, l->number, "PairIJ Coeffs: %lld atom types need %lld lines, "
                               "more than a file of %zu bytes holds; use Pair Coeffs (one line "
                               "per type)", n, pairs, r->len);
            ps->pair_seen = md_xcalloc((size_t)(pairs + 7) / 8, 1);
            if (read_entries(r, name, pairs, "atom types (n(n+1)/2 pairs)", entry_pairij_coeff,
                             ps) != 0)
                return -1;
            break;
        }
        case SEC_ATOMS: {
            if (l->comment) {
                /* "Atoms # atomic": another style's columns would be misread. */
                char style[32] = "";
                size_t i = 0, k = 0;
                while (i < l->comment_len && is_space(l->comment[i]))
                    i++;
                while (i < l->comment_len && !is_space(l->comment[i]) && k + 1 < sizeof style)
                    style[k++] = l->comment[i++];
                style[k] = '\0';
                if (k > 0 && strcmp(style, "atomic") != 0)
                    return fail_at(r, l->number, "Atoms section is for atom_style %s; this app "
                                   "reads atom_style atomic ('id type x y z')", style);
            }
            if (read_entries(r, name, ps->h.natoms, "atoms", entry_atom, ps) != 0)
                return -1;
            /* ids must be unique: sort slots by id. */
            int32_t n = sys->atoms.n;
            ps->slot_of = md_xmalloc((size_t)n * sizeof *ps->slot_of);
            for (int32_t i = 0; i < n; i++)
                ps->slot_of[i] = i;
            qsort_r(ps->slot_of, (size_t)n, sizeof *ps->slot_of, cmp_slot_by_id, sys->atoms.id);
            for (int32_t i = 1; i < n; i++)
                if (sys->atoms.id[ps->slot_of[i]] == sys->atoms.id[ps->slot_of[i - 1]]) {
                    int32_t a = ps->slot_of[i - 1], b = ps->slot_of[i]; /* entry order */
                    return fail_at(r, 0, "Atoms: atom id %lld appears more than once (Atoms "
                                   "entries %d and %d); ids must be unique",
                                   (long long)sys->atoms.id[b], (a < b ? a : b) + 1,
                                   (a < b ? b : a) + 1);
                }
            break;
        }
        case SEC_COUNT:
            break;
        case SEC_VELOCITIES:
            if (!ps->have_section[SEC_ATOMS])
                return fail_at(r, l->number, "Velocities comes before Atoms; put the Atoms "
                                             "section first");
            if (read_entries(r, name, ps->h.natoms, "atoms", entry_velocity, ps) != 0)
                return -1;
            break;
        }
    }
}

/* Velocities -> fixed-point momenta, refusing what the state cannot hold (see top). */
static int convert_velocities(reader *r, parse_state *ps)
{
    md_system *sys = ps->sys;
    md_atoms *at = &sys->atoms;
    const double u = md_momentum_unit(ps->dt);
    __int128 total[3] = {0, 0, 0};
    for (int32_t i = 0; i < at->n; i++) {
        if (!ps->vel_line[i])
            continue;
        const double m = sys->mass[at->type[i]];
        const double vmax = fmin(ps->pmax * u / m, MAX_STEP_SIGMA / ps->dt);
        for (int d = 0; d < 3; d++) {
            const double v = ps->vel[d][i];
            if (!(fabs(v) <= vmax)) {
                char why[128];
                if (vmax < MAX_STEP_SIGMA / ps->dt)
                    snprintf(why, sizeof why, "the momentum m·v may be at most %.4g units of "
                             "(dt/2)·2^-32 m σ/τ with %d atoms", ps->pmax, at->n);
                else
                    snprintf(why, sizeof why, "one step may not travel 2^19 σ");
                return fail_at(r, ps->vel_line[i], "Velocities: atom %lld: v%c = %g is beyond "
                               "the fixed-point limit |v%c| <= %.6g for mass %g at dt %g (%s); "
                               "check the units (LJ reduced: σ/τ)", (long long)at->id[i],
                               'x' + d, v, 'x' + d, vmax, m, ps->dt, why);
            }
            at->p[d][i] = md_round_i64(m * v / u);
            total[d] += at->p[d][i];
        }
    }
    for (int d = 0; d < 3; d++)
        if (total[d] > ((__int128)1 << 62) || total[d] < -((__int128)1 << 62))
            return fail_at(r, 0, "Velocities: the total momentum along %c is %.3g momentum "
                           "units, beyond the fixed-point limit 2^62 of the momentum sum; "
                           "remove the drift of the centre of mass", 'x' + d,
                           (double)total[d]);
    return 0;
}

static int parse(const char *buf, size_t len, const char *name, double dt, double rc,
                 md_system *sys, md_error *err)
{
    memset(sys, 0, sizeof *sys);
    reader r = {.buf = buf, .len = len, .name = name ? name : "(buffer)", .err = err};
    parse_state ps;
    memset(&ps, 0, sizeof ps);
    ps.sys = sys;
    ps.dt = dt;
    ps.rc = rc;
    int rc_out = -1;
    if (!(dt > 0.0 && dt < INFINITY)) {
        md_fail(err, "%s: the time step must be positive (got %g)", r.name, dt);
        goto out;
    }
    if (parse_header(&r, &ps.h) != 0)
        goto out;
    if (!ps.h.have_atoms) {
        fail_at(&r, 0, "header: no 'N atoms' line; add one");
        goto out;
    }
    if (!ps.h.have_types) {
        fail_at(&r, 0, "header: no 'N atom types' line; add one (e.g. '1 atom types')");
        goto out;
    }
    for (int d = 0; d < 3; d++) {
        if (!ps.h.have_box[d]) {
            fail_at(&r, 0, "header: no '%clo %chi' line; give the box, e.g. '0 10 %clo %chi'",
                    'x' + d, 'x' + d, 'x' + d, 'x' + d);
            goto out;
        }
        double l = ps.h.hi[d] - ps.h.lo[d];
        if (!(l < MD_MAX_BOX_SIGMA)) {
            fail_at(&r, 0, "header: the box edge along %c (%g) is larger than %g", 'x' + d, l,
                    MD_MAX_BOX_SIGMA);
            goto out;
        }
        sys->box.len[d] = md_pos_from_double(l);
        sys->box.lo[d] = ps.h.lo[d];
        if (sys->box.len[d] < 1) {
            fail_at(&r, 0, "header: the box edge along %c (%g) is too small", 'x' + d, l);
            goto out;
        }
    }
    /* Before allocating for the header's counts: an Atoms line is at least 10 bytes and a
     * Masses line 4, so a short file cannot hold what a huge count promises. */
    if ((double)ps.h.natoms * 10.0 > (double)len) {
        fail_at(&r, 0, "header: %lld atoms cannot fit in a file of %zu bytes; fix the "
                "'atoms' count", ps.h.natoms, len);
        goto out;
    }
    if ((double)ps.h.ntypes * 4.0 > (double)len) {
        fail_at(&r, 0, "header: %lld atom types cannot fit in a file of %zu bytes; fix the "
                "'atom types' count", ps.h.ntypes, len);
        goto out;
    }
    ps.pmax = fmin((double)MD_MOMENTUM_MAX, floor(ldexp(1.0, 63) / sqrt(3.0 * (double)ps.h.natoms)));
    sys->ntypes = (int)ps.h.ntypes;
    sys->mass = md_xcalloc((size_t)sys->ntypes, sizeof *sys->mass);
    sys->dt = dt;
    ps.mass_set = md_xcalloc((size_t)sys->ntypes, sizeof *ps.mass_set);
    md_atoms_reserve(&sys->atoms, (int32_t)ps.h.natoms);
    for (int d = 0; d < 3; d++)
        ps.vel[d] = md_xcalloc((size_t)ps.h.natoms, sizeof *ps.vel[d]);
    ps.vel_line = md_xcalloc((size_t)ps.h.natoms, sizeof *ps.vel_line);
    if (parse_sections(&r, &ps) != 0)
        goto out;
    if (!ps.have_section[SEC_MASSES]) {
        fail_at(&r, 0, "no Masses section; add one with a mass for each of the %lld atom types",
                ps.h.ntypes);
        goto out;
    }
    if (!ps.have_section[SEC_ATOMS]) {
        fail_at(&r, 0, "no Atoms section; the header says %lld atoms", ps.h.natoms);
        goto out;
    }
    for (int t = 0; t < sys->ntypes; t++)
        if (!ps.mass_set[t]) {
            fail_at(&r, 0, "Masses: type %d has no mass", t + 1);
            goto out;
        }
    /* Momenta in fixed point, then order atoms by id. */
    if (convert_velocities(&r, &ps) != 0)
        goto out;
    md_atoms_permute(&sys->atoms, ps.slot_of, sys->atoms.n);
    rc_out = 0;
out:
    for (int d = 0; d < 3; d++)
        free(ps.vel[d]);
    free(ps.vel_line);
    free(ps.mass_set);
    free(ps.slot_of);
    free(ps.pair_seen);
    if (rc_out != 0)
        md_system_free(sys);
    return rc_out;
}

int md_lammps_parse(const char *buf, size_t len, const char *name, double dt, md_system *sys,
                    md_error *err)
{
    return parse(buf, len, name, dt, 0.0, sys, err);
}

int md_lammps_parse_run(const char *buf, size_t len, const char *name, const md_params *par,
                        md_system *sys, md_error *err)
{
    if (!(par->rc > 0.0)) {
        memset(sys, 0, sizeof *sys);
        return md_fail(err, "%s: the cut-off must be positive (got %g)", name ? name : "(buffer)",
                       par->rc);
    }
    return parse(buf, len, name, par->dt, par->rc, sys, err);
}

/* Reads all of fd (a regular file or a pipe), at most max_bytes. */
static int read_all(int fd, const char *path, uint64_t max_bytes, char **out, size_t *out_len,
                    md_error *err)
{
    size_t cap = 1 << 16, len = 0;
    char *buf = md_xmalloc(cap);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            buf = md_xrealloc(buf, cap);
        }
        ssize_t got = read(fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            return md_fail(err, "%s: read error: %s; check the file given to --data", path,
                           strerror(e));
        }
        if (got == 0)
            break;
        len += (size_t)got;
        if (len > max_bytes) {
            free(buf);
            return md_fail(err, "%s: more than %llu bytes; a data file is at most that large "
                           "(MD_LAMMPS_MAX_BYTES); give the right file to --data", path,
                           (unsigned long long)max_bytes);
        }
    }
    *out = buf;
    *out_len = len;
    return 0;
}

int md_lammps_read_bounded(const char *path, double dt, double rc, uint64_t max_bytes,
                           md_system *sys, md_error *err)
{
    memset(sys, 0, sizeof *sys);
    if (!path || !*path)
        return md_fail(err, "--data: empty file name; give the path of a LAMMPS data file");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return md_fail(err, "%s: cannot open: %s; check the path given to --data", path,
                       strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return md_fail(err, "%s: cannot stat: %s; check the path given to --data", path,
                       strerror(e));
    }
    const char *why = NULL;
    if (S_ISDIR(st.st_mode))
        why = "is a directory";
    else if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
        why = "is not a regular file or a pipe (a device or socket may never end)";
    else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_bytes)
        why = "is larger than the largest data file read (MD_LAMMPS_MAX_BYTES)";
    if (why) {
        close(fd);
        return md_fail(err, "%s: %s; --data needs a LAMMPS data file of at most %llu bytes",
                       path, why, (unsigned long long)max_bytes);
    }
    char *buf = NULL;
    size_t len = 0;
    int bad = read_all(fd, path, max_bytes, &buf, &len, err);
    close(fd);
    if (bad)
        return -1;
    int rc_out = parse(buf, len, path, dt, rc, sys, err);
    free(buf);
    return rc_out;
}

int md_lammps_read(const char *path, double dt, md_system *sys, md_error *err)
{
    return md_lammps_read_bounded(path, dt, 0.0, MD_LAMMPS_MAX_BYTES, sys, err);
}

int md_lammps_read_run(const char *path, const md_params *par, md_system *sys, md_error *err)
{
    if (!(par->rc > 0.0)) {
        memset(sys, 0, sizeof *sys);
        return md_fail(err, "%s: the cut-off must be positive (got %g)", path ? path : "--data",
                       par->rc);
    }
    return md_lammps_read_bounded(path, par->dt, par->rc, MD_LAMMPS_MAX_BYTES, sys, err);
}
