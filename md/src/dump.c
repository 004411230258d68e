/*
 * dump.c: trajectory frames (formats and crash behaviour: dump.h).
 */
#include "dump.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixed.h"
#include "outpath.h"
#include "util.h"

int md_dump_format_parse(const char *name, md_dump_format *fmt, md_error *err)
{
    if (!strcmp(name, "xyz") || !strcmp(name, "extxyz")) {
        *fmt = MD_DUMP_XYZ;
        return 0;
    }
    if (!strcmp(name, "lammps")) {
        *fmt = MD_DUMP_LAMMPS;
        return 0;
    }
    return md_fail(err, "--dump-format '%s': give xyz (extended XYZ) or lammps (LAMMPS dump)",
                   name);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

int md_dump_format_from_path(const char *path, md_dump_format *fmt, md_error *err)
{
    if (ends_with(path, ".xyz") || ends_with(path, ".extxyz")) {
        *fmt = MD_DUMP_XYZ;
        return 0;
    }
    if (ends_with(path, ".lammpstrj") || ends_with(path, ".dump")) {
        *fmt = MD_DUMP_LAMMPS;
        return 0;
    }
    return md_fail(err, "--dump %s: cannot tell the format from the name; end it in .xyz "
                   "(extended XYZ) or .lammpstrj/.dump (LAMMPS), or give --dump-format "
                   "xyz|lammps", path);
}

/* ---- formatting ----------------------------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t len, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = 2 * b->cap + (n > 0 ? (size_t)n : 0) + 256;
        b->s = md_xrealloc(b->s, b->cap);
    }
}

/* The element symbols, in order of atomic number (1 H .. 118 Og). */
static const char *const elements[118] = {
    "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg", "Al", "Si", "P",
    "S",  "Cl", "Ar", "K",  "Ca", "Sc", "Ti", "V",  "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn",
    "Ga", "Ge", "As", "Se", "Br", "Kr", "Rb", "Sr", "Y",  "Zr", "Nb", "Mo", "Tc", "Ru", "Rh",
    "Pd", "Ag", "Cd", "In", "Sn", "Sb", "Te", "I",  "Xe", "Cs", "Ba", "La", "Ce", "Pr", "Nd",
    "Pm", "Sm", "Eu", "Gd", "Tb", "Dy", "Ho", "Er", "Tm", "Yb", "Lu", "Hf", "Ta", "W",  "Re",
    "Os", "Ir", "Pt", "Au", "Hg", "Tl", "Pb", "Bi", "Po", "At", "Rn", "Fr", "Ra", "Ac", "Th",
    "Pa", "U",  "Np", "Pu", "Am", "Cm", "Bk", "Cf", "Es", "Fm", "Md", "No", "Lr", "Rf", "Db",
    "Sg", "Bh", "Hs", "Mt", "Ds", "Rg", "Cn", "Nh", "Fl", "Mc", "Lv", "Ts", "Og"};

const char *md_dump_species(int type)
{
    /* Atomic numbers of the noble gases in the order types take them. */
    static const int noble[6] = {18, 10, 36, 54, 2, 86};
    int k = (type - 1) % 118;
    if (k < 0)
        k += 118;
    if (k < 6)
        return elements[noble[k] - 1];
    k -= 6; /* the k-th element that is not one of the six */
    for (int z = 1;; z++) {
        bool is_noble = false;
        for (int j = 0; j < 6; j++)
            is_noble |= noble[j] == z;
        if (!is_noble && k-- == 0)
            return elements[z - 1];
    }
}

char *md_dump_format_frame(const md_system *sys, long step, md_dump_format fmt, size_t *len)
{
    const md_atoms *a = &sys->atoms;
    const md_box *box = &sys->box;
    sbuf b = {NULL, 0, 0};
    b.cap = 256 + (size_t)a->n * 180;
    b.s = md_xmalloc(b.cap);
    double lx = md_pos_to_double(box->len[0]), ly = md_pos_to_double(box->len[1]),
           lz = md_pos_to_double(box->len[2]);
    const double unit = md_momentum_unit(sys->dt);
    if (fmt == MD_DUMP_XYZ) {
        sb_printf(&b, "%d\n", a->n);
        sb_printf(&b, "Lattice=\"%.17g 0 0 0 %.17g 0 0 0 %.17g\" Origin=\"%.17g %.17g %.17g\" "
                  "Properties=species:S:1:pos:R:3:vel:R:3:id:I:1:type:I:1:image:I:3 "
                  "Time=%.17g Step=%ld "
                  "pbc=\"T T T\"\n", lx, ly, lz, box->lo[0], box->lo[1], box->lo[2],
                  (double)step * sys->dt, step);
    } else {
        sb_printf(&b, "ITEM: TIMESTEP\n%ld\nITEM: NUMBER OF ATOMS\n%d\n"
                  "ITEM: BOX BOUNDS pp pp pp\n", step, a->n);
        for (int d = 0; d < 3; d++)
            sb_printf(&b, "%.17g %.17g\n", box->lo[d],
                      box->lo[d] + md_pos_to_double(box->len[d]));
        sb_printf(&b, "ITEM: ATOMS id type x y z ix iy iz vx vy vz\n");
    }
    for (int32_t i = 0; i < a->n; i++) {
        double x[3], v[3];
        long long im[3]; /* between searches x drifts out of the box: the wrap counts too */
        const double m = sys->mass[a->type[i]];
        for (int d = 0; d < 3; d++) {
            x[d] = box->lo[d] + md_pos_to_double(md_wrap(a->x[d][i], box->len[d]));
            im[d] = (long long)a->img[d][i] + md_wrap_count(a->x[d][i], box->len[d]);
            v[d] = (double)a->p[d][i] * unit / m;
        }
        if (fmt == MD_DUMP_XYZ)
            sb_printf(&b, "%s %.17g %.17g %.17g %.17g %.17g %.17g %lld %d %lld %lld %lld\n",
                      md_dump_species(a->type[i] + 1), x[0], x[1], x[2], v[0], v[1], v[2],
                      (long long)a->id[i], a->type[i] + 1, im[0], im[1], im[2]);
        else
            sb_printf(&b, "%lld %d %.17g %.17g %.17g %lld %lld %lld %.17g %.17g %.17g\n",
                      (long long)a->id[i], a->type[i] + 1, x[0], x[1], x[2], im[0], im[1],
                      im[2], v[0], v[1], v[2]);
    }
    *len = b.len;
    return b.s;
}

/* ---- the file ------------------------------------------------------------------------- */

int md_dump_open(md_dump *d, const char *path, md_dump_format fmt, md_error *err)
{
    memset(d, 0, sizeof *d);
    d->fd = -1;
    if (md_outpath_check_target("--dump", path, err) != 0)
        return -1;
    /* O_NONBLOCK: should a FIFO appear after the check, the open fails instead of waiting
     * for a reader; the fstat then refuses anything that is not a regular file. */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0)
        return md_fail(err, "--dump %s: cannot create: %s; check that the directory exists "
                       "and is writable", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return md_fail(err, "--dump %s is not a regular file; give the path of a new or "
                       "regular file", path);
    }
    d->fd = fd;
    d->path = md_xmalloc(strlen(path) + 1);
    strcpy(d->path, path);
    d->fmt = fmt;
    return 0;
}

int md_dump_frame(md_dump *d, const md_system *sys, long step, md_error *err)
{
    size_t len;
    char *s = md_dump_format_frame(sys, step, d->fmt, &len);
    /* One write() per frame: earlier frames are never touched again. */
    const char *p = s;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(d->fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            free(s);
            return md_fail(err, "--dump %s: writing the frame of step %ld failed: %s; free "
                           "some space or choose another path (frames before it are intact)",
                           d->path, step, strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    free(s);
    d->frames++;
    return 0;
}

int md_dump_close(md_dump *d, md_error *err)
{
    int rc = 0;
    if (d->fd >= 0 && close(d->fd) != 0)
        rc = md_fail(err, "--dump %s: closing failed: %s", d->path, strerror(errno));
    free(d->path);
    memset(d, 0, sizeof *d);
    d->fd = -1;
    return rc;
}
