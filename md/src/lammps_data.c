/*
 * lammps_data.c: the LAMMPS data file reader (atom_style atomic), as a function over a buffer.
 *
 * The format (LAMMPS read_data): the first line is a title and is skipped; then header lines
 * "N atoms", "N atom types", "lo hi xlo xhi" (and y, z), until the first section keyword;
 * then sections, each a keyword line followed by its entries:
 *   Masses        "type mass"                  one per atom type
 *   Atoms         "id type x y z [ix iy iz]"   one per atom (image flags are accepted and
 *                                              ignored: positions are wrapped into the box)
 *   Velocities    "id vx vy vz"                one per atom (optional; zero when absent)
 *   Pair Coeffs   "type epsilon sigma"         optional; must be 1 1 (σ = ε = 1)
 * '#' starts a comment anywhere; blank lines are skipped. Everything else is an error that
 * names the file, the line, what is wrong and what to do, and the reader never reads past
 * the buffer (it need not be NUL-terminated): the shape a fuzzer wants.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixed.h"
#include "shmemu/md.h"
#include "util.h"

#define MAX_TOKENS 12
#define MAX_TOKEN_LEN 64
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
    while (end < r->len && r->buf[end] != '\n')
        end++;
    const char *s = r->buf + r->pos;
    size_t n = end - r->pos;
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

/* Copies a token into buf (NUL-terminated); false when it is too long. */
static bool tok_copy(const token *t, char *buf, size_t size)
{
    if (t->len + 1 > size)
        return false;
    memcpy(buf, t->s, t->len);
    buf[t->len] = '\0';
    return true;
}

static void tok_show(const token *t, char *buf, size_t size)
{
    size_t n = t->len < size - 4 ? t->len : size - 4;
    memcpy(buf, t->s, n);
    strcpy(buf + n, t->len > n ? "..." : "");
}

static bool parse_double(const token *t, double *out)
{
    char b[MAX_TOKEN_LEN + 1];
    if (!tok_copy(t, b, sizeof b))
        return false;
    char *end;
    errno = 0;
    double v = strtod(b, &end);
    if (end == b || *end != '\0' || !isfinite(v) || errno == ERANGE)
        return false;
    *out = v;
    return true;
}

static bool parse_int(const token *t, long long *out)
{
    char b[MAX_TOKEN_LEN + 1];
    if (!tok_copy(t, b, sizeof b))
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(b, &end, 10);
    if (end == b || *end != '\0' || errno == ERANGE)
        return false;
    *out = v;
    return true;
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
        bool triclinic = false;
        for (int k = 0; k < l->ntok && k < MAX_TOKENS; k++)
            triclinic |= tok_is(&l->tok[k], "xy") || tok_is(&l->tok[k], "xz") ||
                         tok_is(&l->tok[k], "yz");
        if (triclinic)
            return fail_at(r, l->number, "header: a triclinic box (xy xz yz) is not supported; "
                                         "give an orthorhombic box");
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

typedef enum section_kind { SEC_MASSES, SEC_ATOMS, SEC_VELOCITIES, SEC_PAIR_COEFFS } section_kind;

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
    double *vel[3];      /* velocities by atom slot, until converted */
    bool *mass_set;
    int32_t *slot_of;    /* sorted by id: index into atoms; built after Atoms */
    bool have_section[4];
    int32_t atoms_read;
    bool *vel_set;
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
    if (ps->mass_set[t - 1])
        return fail_at(r, l->number, "Masses: type %lld is given twice", t);
    ps->mass_set[t - 1] = true;
    ps->sys->mass[t - 1] = m;
    return 0;
}

static int entry_pair_coeff(reader *r, void *ctx)
{
    parse_state *ps = ctx;
    line *l = &r->cur;
    long long t;
    double eps, sig;
    if (l->ntok < 3 || l->ntok > 4)
        return fail_at(r, l->number, "Pair Coeffs: %d fields; each line is 'type epsilon sigma'",
                       l->ntok);
    if (!parse_int(&l->tok[0], &t))
        return bad_field(r, "Pair Coeffs", 0, "type", "an integer");
    if (!parse_double(&l->tok[1], &eps))
        return bad_field(r, "Pair Coeffs", 1, "epsilon", "a number");
    if (!parse_double(&l->tok[2], &sig))
        return bad_field(r, "Pair Coeffs", 2, "sigma", "a number");
    if (t < 1 || t > ps->h.ntypes)
        return fail_at(r, l->number, "Pair Coeffs: type %lld is outside 1..%lld", t,
                       ps->h.ntypes);
    if (eps != 1.0 || sig != 1.0)
        return fail_at(r, l->number, "Pair Coeffs: type %lld has epsilon %g sigma %g; this app "
                       "runs LJ in reduced units with epsilon = sigma = 1 for every type", t, eps,
                       sig);
    return 0;
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
    long long id, t, img;
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
        if (!parse_int(&l->tok[k], &img))
            return bad_field(r, "Atoms", k, names[k], "an integer image flag");
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
        const double lo = ps->h.lo[d], hi = ps->h.hi[d];
        if (!(x[d] >= lo && x[d] <= hi))
            return fail_at(r, l->number, "Atoms: atom %lld: %c = %.17g is outside the box "
                           "[%.17g, %.17g]; wrap the atoms into the box", id, 'x' + d, x[d], lo,
                           hi);
        int64_t xi = md_pos_from_double(x[d] - lo);
        if (xi < 0 || xi > sys->box.len[d])
            return fail_at(r, l->number, "Atoms: atom %lld: %c = %.17g is outside the box",
                           id, 'x' + d, x[d]);
        at->x[d][n] = xi == sys->box.len[d] ? 0 : xi;
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
    if (ps->vel_set[s])
        return fail_at(r, l->number, "Velocities: atom id %lld is given twice", id);
    ps->vel_set[s] = true;
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
        } else if (is_section_line(l)) {
            char shown[48];
            tok_show(&l->tok[0], shown, sizeof shown);
            return fail_at(r, l->number, "section '%s' is not supported: atom_style atomic with "
                           "LJ reads Masses, Atoms, Velocities and Pair Coeffs", shown);
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
            if (read_entries(r, name, ps->h.ntypes, "atom types", entry_pair_coeff, ps) != 0)
                return -1;
            break;
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

int md_lammps_parse(const char *buf, size_t len, const char *name, double dt, md_system *sys,
                    md_error *err)
{
    memset(sys, 0, sizeof *sys);
    reader r = {.buf = buf, .len = len, .name = name ? name : "(buffer)", .err = err};
    parse_state ps;
    memset(&ps, 0, sizeof ps);
    ps.sys = sys;
    int rc = -1;
    if (!(dt > 0.0)) {
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
    sys->ntypes = (int)ps.h.ntypes;
    sys->mass = md_xcalloc((size_t)sys->ntypes, sizeof *sys->mass);
    sys->dt = dt;
    ps.mass_set = md_xcalloc((size_t)sys->ntypes, sizeof *ps.mass_set);
    md_atoms_reserve(&sys->atoms, (int32_t)ps.h.natoms);
    for (int d = 0; d < 3; d++)
        ps.vel[d] = md_xcalloc((size_t)ps.h.natoms, sizeof *ps.vel[d]);
    ps.vel_set = md_xcalloc((size_t)ps.h.natoms, sizeof *ps.vel_set);
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
    md_atoms *at = &sys->atoms;
    double u = md_momentum_unit(dt);
    for (int32_t i = 0; i < at->n; i++)
        for (int d = 0; d < 3; d++)
            at->p[d][i] = md_round_i64(sys->mass[at->type[i]] * ps.vel[d][i] / u);
    md_atoms_permute(at, ps.slot_of, at->n);
    rc = 0;
out:
    for (int d = 0; d < 3; d++)
        free(ps.vel[d]);
    free(ps.vel_set);
    free(ps.mass_set);
    free(ps.slot_of);
    if (rc != 0)
        md_system_free(sys);
    return rc;
}

int md_lammps_read(const char *path, double dt, md_system *sys, md_error *err)
{
    memset(sys, 0, sizeof *sys);
    FILE *f = fopen(path, "rb");
    if (!f)
        return md_fail(err, "%s: cannot open: %s; check the path given to --data", path,
                       strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = md_xmalloc(cap);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            buf = md_xrealloc(buf, cap);
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return md_fail(err, "%s: read error; check the file", path);
    }
    int rc = md_lammps_parse(buf, len, path, dt, sys, err);
    free(buf);
    return rc;
}
