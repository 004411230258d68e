/*
 * pairlist.c: cell binning and the pair search of one PE.
 *
 * Cells are at least rsearch/2 wide (rsearch >= rlist), so any two atoms closer than rlist
 * lie at most MD_SEARCH_REACH = 2 cells apart along each dimension. The search visits, for
 * each atom a, its own cell (atoms b after a) and half of the 124 neighbour offsets: one of
 * each pair o, -o. A pair (a, b) at the periodic image reached through offset o from a is
 * reached through -o from b, so every (pair, image) is met exactly once. Along a periodic
 * dimension the offsets are unwrapped: +2 and -2 may reach the same cell, but at two
 * different images, which is what we want (a dimension has at least four cells, since
 * the box is longer than 2 rsearch). Offsets are walked as rows along x: the cells of a row
 * at one image are consecutive in cell order, so their atoms form one contiguous run.
 *
 * Distances are computed from positions converted exactly to double (fixed.h), so r2 is
 * the same number the kernel and the brute-force oracle compute for the pair. The inner
 * loop keeps the accepted pairs by branch-free compaction.
 *
 * Found pairs are normalised to i < j (local indices) with the shift applied to x_i, then
 * bucketed by i (counting sort) and, within an i, sorted by (shift, j): the list order is a
 * function of the atom order only.
 */
#include "pairlist.h"

#include <stdlib.h>
#include <string.h>

#include "fixed.h"
#include "lj.h"
#include "md_assert.h"
#include "util.h"

static int64_t cell_edge_min(const md_region *reg)
{
    int64_t e = (reg->rsearch + MD_SEARCH_REACH - 1) / MD_SEARCH_REACH;
    return e > 0 ? e : 1;
}

void md_cellgrid_dims(const md_region *reg, int n[3])
{
    const int64_t edge = cell_edge_min(reg);
    for (int d = 0; d < 3; d++) {
        int64_t k = reg->extent[d] / edge;
        if (k < 1)
            k = 1;
        if (k > 8192)
            k = 8192;
        n[d] = (int)k;
    }
    /* Keep the grid modest: halve the finest dimension while there are more than 2^22
     * cells (cells only get wider, which is always correct). */
    while ((int64_t)n[0] * n[1] * n[2] > (1 << 22)) {
        int d = (n[0] >= n[1] && n[0] >= n[2]) ? 0 : (n[1] >= n[2] ? 1 : 2);
        n[d] = n[d] / 2;
        if (reg->periodic[d] && n[d] < 2 * MD_SEARCH_REACH)
            n[d] = 2 * MD_SEARCH_REACH;
    }
}

int32_t md_cell_index(const md_region *reg, const int n[3], const int64_t x[3])
{
    int32_t c[3];
    for (int d = 0; d < 3; d++) {
        int64_t rel = x[d] - reg->origin[d];
        if (rel < 0 || rel >= reg->extent[d])
            return -1;
        c[d] = (int32_t)(((__int128)rel * n[d]) / reg->extent[d]);
    }
    return (c[2] * n[1] + c[1]) * n[0] + c[0];
}

int md_cellgrid_build(md_cellgrid *g, const md_region *reg, const md_atoms *a, int32_t natoms,
                      md_error *err)
{
    md_cellgrid_dims(reg, g->n);
    g->ncells = g->n[0] * g->n[1] * g->n[2];
    if (g->ncells + 1 > g->cap_cells) {
        g->cap_cells = g->ncells + 1;
        g->start = md_xrealloc(g->start, (size_t)g->cap_cells * sizeof *g->start);
    }
    if (natoms > g->cap_atoms) {
        g->cap_atoms = natoms;
        size_t n = (size_t)natoms;
        g->atom = md_xrealloc(g->atom, n * sizeof *g->atom);
        g->cell_of = md_xrealloc(g->cell_of, n * sizeof *g->cell_of);
        for (int d = 0; d < 3; d++)
            g->xs[d] = md_xrealloc(g->xs[d], n * sizeof *g->xs[d]);
        g->zs = md_xrealloc(g->zs, n * sizeof *g->zs);
    }
    memset(g->start, 0, (size_t)(g->ncells + 1) * sizeof *g->start);
    for (int32_t i = 0; i < natoms; i++) {
        int64_t x[3] = {a->x[0][i], a->x[1][i], a->x[2][i]};
        int32_t c = md_cell_index(reg, g->n, x);
        if (c < 0) {
            int d = 0;
            while (d < 2 && x[d] - reg->origin[d] >= 0 && x[d] - reg->origin[d] < reg->extent[d])
                d++;
            return md_fail(err, "pair search: atom %lld (local %d) at %c = %.9f σ is outside "
                           "the search region [%.9f, %.9f) σ (internal error: atoms must be "
                           "wrapped and redistributed before a search)",
                           (long long)a->id[i], i, 'x' + d, md_pos_to_double(x[d]),
                           md_pos_to_double(reg->origin[d]),
                           md_pos_to_double(reg->origin[d] + reg->extent[d]));
        }
        g->cell_of[i] = c;
        g->start[c + 1]++;
    }
    for (int32_t c = 0; c < g->ncells; c++)
        g->start[c + 1] += g->start[c];
    /* Stable placement (atoms stay in increasing index within a cell); start[] is used as
     * the fill pointer and shifted back afterwards. */
    for (int32_t i = 0; i < natoms; i++) {
        int32_t k = g->start[g->cell_of[i]]++;
        g->atom[k] = i;
        for (int d = 0; d < 3; d++)
            g->xs[d][k] = md_pos_to_double(a->x[d][i]);
        g->zs[k] = a->zone[i];
    }
    for (int32_t c = g->ncells; c > 0; c--)
        g->start[c] = g->start[c - 1];
    g->start[0] = 0;
    return 0;
}

void md_cellgrid_free(md_cellgrid *g)
{
    free(g->start);
    free(g->atom);
    free(g->cell_of);
    for (int d = 0; d < 3; d++)
        free(g->xs[d]);
    free(g->zs);
    free(g->found[0]);
    free(g->found[1]);
    free(g->sorted);
    free(g->count);
    memset(g, 0, sizeof *g);
}

/* ---- collecting pairs ------------------------------------------------------------------ */

static inline void found_push(md_cellgrid *g, int which, int32_t i, int32_t j, int32_t shift)
{
    if (g->nfound[which] == g->cap_found[which]) {
        g->cap_found[which] = g->cap_found[which] ? 2 * g->cap_found[which] : 4096;
        g->found[which] = md_xrealloc(g->found[which],
                                      (size_t)g->cap_found[which] * sizeof *g->found[which]);
    }
    g->found[which][g->nfound[which]++] = (md_found){i, j, shift};
}

static void set_shifts(md_pairlist *pl, const md_region *reg)
{
    for (int code = 0; code < MD_NSHIFT; code++)
        for (int d = 0; d < 3; d++) {
            pl->shift_fx[code][d] = md_shift_comp(code, d) * reg->box[d];
            pl->shift[code][d] = md_pos_to_double(pl->shift_fx[code][d]);
        }
}

static inline bool before(const md_found *a, const md_found *b)
{
    return a->shift < b->shift || (a->shift == b->shift && a->j < b->j);
}

/* Turns found pairs (any order) into i-entries: bucket by i, sort each bucket by
 * (shift, j), one entry per run of equal shift. */
static void emit_list(md_pairlist *pl, md_cellgrid *g, int which, int32_t natoms)
{
    const md_found *fv = g->found[which];
    const int64_t nf = g->nfound[which];
    if (natoms + 1 > g->cap_count) {
        g->cap_count = natoms + 1;
        g->count = md_xrealloc(g->count, (size_t)g->cap_count * sizeof *g->count);
    }
    if (nf > g->cap_sorted) {
        g->cap_sorted = nf;
        g->sorted = md_xrealloc(g->sorted, (size_t)nf * sizeof *g->sorted);
    }
    int64_t *count = g->count;
    md_found *sorted = g->sorted;
    memset(count, 0, ((size_t)natoms + 1) * sizeof *count);
    for (int64_t k = 0; k < nf; k++)
        count[fv[k].i + 1]++;
    for (int32_t i = 0; i < natoms; i++)
        count[i + 1] += count[i];
    for (int64_t k = 0; k < nf; k++) /* count[i] becomes the end of bucket i */
        sorted[count[fv[k].i]++] = fv[k];
    if (nf > pl->cap_j) {
        pl->cap_j = nf;
        pl->j = md_xrealloc(pl->j, (size_t)pl->cap_j * sizeof *pl->j);
    }
    pl->npairs = nf;
    pl->nent = 0;
    int64_t b = 0;
    for (int32_t i = 0; i < natoms; i++) {
        const int64_t e = count[i];
        for (int64_t k = b + 1; k < e; k++) { /* insertion sort: a few dozen per bucket */
            md_found t = sorted[k];
            int64_t m = k;
            while (m > b && before(&t, &sorted[m - 1])) {
                sorted[m] = sorted[m - 1];
                m--;
            }
            sorted[m] = t;
        }
        for (int64_t k = b; k < e;) {
            int64_t run = k;
            while (run < e && sorted[run].shift == sorted[k].shift)
                run++;
            if (pl->nent == pl->cap_ent) {
                pl->cap_ent = pl->cap_ent ? 2 * pl->cap_ent : 1024;
                pl->ent = md_xrealloc(pl->ent, (size_t)pl->cap_ent * sizeof *pl->ent);
            }
            pl->ent[pl->nent++] = (md_ientry){i, sorted[k].shift, k, run};
            for (int64_t q = k; q < run; q++)
                pl->j[q] = sorted[q].j;
            k = run;
        }
        b = e;
    }
}

/* A run of cells along x in one row of the stencil, at one periodic image: its atoms are
 * contiguous in cell order. */
typedef struct segment {
    int32_t b0, b1;     /* atoms [b0, b1) in cell order */
    bool self;          /* starts at the atom's own cell: take only atoms after it */
    double sd[3];       /* the image shift S of the b atoms, σ */
    int32_t code_a;     /* shift code when a is i: -S */
    int32_t code_b;     /* shift code when b is i: +S */
} segment;

/* The stencil of cell (cx, cy, cz): the cell itself and the cells after it in its x row,
 * then the 12 rows (oy, oz) after (0, 0) in (z, y) order, each 2·reach+1 cells long. */
static int cell_segments(const md_cellgrid *g, const md_region *reg, const int cc[3],
                         segment *seg)
{
    enum { R = MD_SEARCH_REACH };
    const int *n = g->n;
    int ns = 0;
    for (int oz = 0; oz <= R; oz++)
        for (int oy = (oz == 0 ? 0 : -R); oy <= R; oy++) {
            int ny = cc[1] + oy, nz = cc[2] + oz, shy = 0, shz = 0;
            if (ny < 0 || ny >= n[1]) {
                if (!reg->periodic[1])
                    continue;
                shy = ny < 0 ? -1 : 1;
                ny -= shy * n[1];
            }
            if (nz >= n[2]) {
                if (!reg->periodic[2])
                    continue;
                shz = 1;
                nz -= n[2];
            }
            const bool row0 = oz == 0 && oy == 0;
            int ux = cc[0] + (row0 ? 0 : -R);
            const int uend = cc[0] + R;
            while (ux <= uend) {
                /* the run of unwrapped cells at one image: [ux, last] */
                int shx = ux < 0 ? -1 : (ux >= n[0] ? 1 : 0);
                int last = shx < 0 ? -1 : (shx == 0 ? n[0] - 1 : 2 * n[0] - 1);
                if (last > uend)
                    last = uend;
                if (shx != 0 && !reg->periodic[0]) {
                    ux = last + 1;
                    continue;
                }
                const int c0 = ux - shx * n[0], c1 = last - shx * n[0];
                const int32_t row = (nz * n[1] + ny) * n[0];
                segment *sg = &seg[ns++];
                sg->b0 = g->start[row + c0];
                sg->b1 = g->start[row + c1 + 1];
                sg->self = row0 && ux == cc[0];
                sg->sd[0] = md_pos_to_double(shx * reg->box[0]);
                sg->sd[1] = md_pos_to_double(shy * reg->box[1]);
                sg->sd[2] = md_pos_to_double(shz * reg->box[2]);
                sg->code_a = md_shift_code(-shx, -shy, -shz);
                sg->code_b = md_shift_code(shx, shy, shz);
                ux = last + 1;
            }
        }
    return ns;
}

int md_pairlist_build(md_pairlist *local, md_pairlist *nonlocal, md_cellgrid *g,
                      const md_region *reg, const md_atoms *a, int32_t natoms, int32_t n_home,
                      double rlist2, md_error *err)
{
    if (md_cellgrid_build(g, reg, a, natoms, err) != 0)
        return -1;
    set_shifts(local, reg);
    set_shifts(nonlocal, reg);
    g->nfound[0] = g->nfound[1] = 0;
    const int *n = g->n;
    const double *const xs0 = g->xs[0], *const xs1 = g->xs[1], *const xs2 = g->xs[2];
    const uint8_t *const zs = g->zs;
    segment seg[64];
    int32_t cap_acc = 0;
    int32_t *acc = NULL;
    for (int cz = 0; cz < n[2]; cz++)
        for (int cy = 0; cy < n[1]; cy++)
            for (int cx = 0; cx < n[0]; cx++) {
                const int32_t c = (cz * n[1] + cy) * n[0] + cx;
                const int cc[3] = {cx, cy, cz};
                const int nseg = cell_segments(g, reg, cc, seg);
                for (int s = 0; s < nseg; s++)
                    if (seg[s].b1 - seg[s].b0 > cap_acc) {
                        cap_acc = seg[s].b1 - seg[s].b0;
                        acc = md_xrealloc(acc, (size_t)cap_acc * sizeof *acc);
                    }
                for (int32_t ka = g->start[c]; ka < g->start[c + 1]; ka++) {
                    const int32_t ia = g->atom[ka];
                    const uint8_t zone_a = zs[ka];
                    for (int s = 0; s < nseg; s++) {
                        const segment *sg = &seg[s];
                        /* x_a - (x_b + S) = (x_a - S) - x_b: both steps exact */
                        const double xa = xs0[ka] - sg->sd[0];
                        const double ya = xs1[ka] - sg->sd[1];
                        const double za = xs2[ka] - sg->sd[2];
                        int32_t m = 0;
                        for (int32_t kb = sg->self ? ka + 1 : sg->b0; kb < sg->b1; kb++) {
                            const double r2 = md_r2(xa - xs0[kb], ya - xs1[kb], za - xs2[kb]);
                            acc[m] = kb;
                            /* eighth shell: a pair of atoms both above this PE along some
                             * dimension belongs to the PE above */
                            m += (r2 < rlist2) & ((zone_a & zs[kb]) == 0);
                        }
                        for (int32_t q = 0; q < m; q++) {
                            const int32_t ib = g->atom[acc[q]];
                            /* i = the lower index; the shift moves x_i next to x_j */
                            if (ia < ib)
                                found_push(g, ib < n_home ? 0 : 1, ia, ib, sg->code_a);
                            else
                                found_push(g, ia < n_home ? 0 : 1, ib, ia, sg->code_b);
                        }
                    }
                }
            }
    free(acc);
    emit_list(local, g, 0, natoms);
    emit_list(nonlocal, g, 1, natoms);
    md_pairlist_check(local, 0, n_home);
    md_pairlist_check(nonlocal, n_home, natoms);
    return 0;
}

void md_pairlist_check(const md_pairlist *pl, int32_t j_begin, int32_t j_end)
{
    MD_ASSERT(pl->nent >= 0 && pl->npairs >= 0 && pl->nent <= pl->npairs);
    int64_t next = 0;
    for (int64_t k = 0; k < pl->nent; k++) {
        const md_ientry *e = &pl->ent[k];
        MD_ASSERT(e->begin == next && e->end > e->begin);
        MD_ASSERT(e->i >= 0 && e->shift >= 0 && e->shift < MD_NSHIFT);
        /* one entry per (i, shift), in (i, shift) order */
        MD_ASSERT(k == 0 || e->i > e[-1].i || (e->i == e[-1].i && e->shift > e[-1].shift));
        for (int64_t q = e->begin; q < e->end; q++) {
            MD_ASSERT_HINT(pl->j[q] > e->i, "the pair list holds a pair with i >= j: a pair "
                           "would be computed twice or with itself (pairlist.c emit_list)");
            MD_ASSERT(pl->j[q] >= j_begin && pl->j[q] < j_end);
            MD_ASSERT(q == e->begin || pl->j[q] > pl->j[q - 1]);
        }
        next = e->end;
    }
    MD_ASSERT(next == pl->npairs);
}

void md_pairlist_free(md_pairlist *pl)
{
    free(pl->ent);
    free(pl->j);
    memset(pl, 0, sizeof *pl);
}
