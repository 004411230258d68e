/*
 * dd_grid.c: choosing and checking the grid of domains, its boundaries and its pulses.
 *
 * Automatic choice: among the factorisations pes = nx·ny·nz whose domains are at least
 * rhalo/2 thick along every decomposed dimension (at most two pulses), take the one with
 * the smallest halo volume per domain, Π(w_d + h_d) - Π w_d with w_d the domain width and
 * h_d = rhalo where the dimension is decomposed (0 otherwise). Ties (within 1e-9) go to
 * fewer pulses, then to more domains along x, then along y: a function of the inputs only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dd.h"
#include "fixed.h"
#include "util.h"

int64_t md_halo_depth(double rlist)
{
    /* r2 < rlist2 in double admits distances up to rlist·(1 + ~1e-15); 2^-40 covers it. */
    double r = rlist * MD_POS_SCALE;
    return (int64_t)ceil(r + r * 0x1p-40) + 2;
}

static int64_t bound_at(int64_t len, int n, int c)
{
    /* ceil(c·len / n) */
    __int128 num = (__int128)c * len;
    return (int64_t)((num + n - 1) / n);
}

static int64_t min_width(int64_t len, int n)
{
    int64_t w = INT64_MAX;
    for (int c = 0; c < n; c++) {
        int64_t x = bound_at(len, n, c + 1) - bound_at(len, n, c);
        if (x < w)
            w = x;
    }
    return w;
}

/* Pulses needed along a dimension (0 with one domain); > 2 means impossible. */
static int pulses_needed(int64_t len, int n, int64_t rhalo)
{
    if (n == 1)
        return 0;
    int64_t w = min_width(len, n);
    int64_t np = (rhalo + w - 1) / w;
    return np > 1000 ? 1000 : (int)np;
}

int md_grid_choose(int pes, const int64_t box[3], int64_t rhalo, int n[3], md_error *err)
{
    double best = INFINITY;
    int best_n[3] = {0, 0, 0}, best_pulses = 0;
    for (int nx = 1; nx <= pes; nx++) {
        if (pes % nx)
            continue;
        for (int ny = 1; ny <= pes / nx; ny++) {
            if ((pes / nx) % ny)
                continue;
            int nz = pes / nx / ny;
            int cand[3] = {nx, ny, nz}, pulses = 0;
            bool ok = true;
            double inner = 1.0, outer = 1.0;
            for (int d = 0; d < 3; d++) {
                int np = pulses_needed(box[d], cand[d], rhalo);
                if (np > 2 || (cand[d] > 1 && np >= cand[d]))
                    ok = false;
                pulses += np;
                double w = md_pos_to_double(box[d]) / cand[d];
                inner *= w;
                outer *= w + (cand[d] > 1 ? md_pos_to_double(rhalo) : 0.0);
            }
            if (!ok)
                continue;
            double cost = outer - inner;
            bool better = cost < best * (1.0 - 1e-9);
            bool tie = !better && cost <= best * (1.0 + 1e-9);
            if (better || (tie && (pulses < best_pulses ||
                                   (pulses == best_pulses &&
                                    (nx > best_n[0] || (nx == best_n[0] && ny > best_n[1])))))) {
                best = cost;
                best_pulses = pulses;
                best_n[0] = nx;
                best_n[1] = ny;
                best_n[2] = nz;
            }
        }
    }
    if (best_n[0] == 0)
        return md_fail(err, "--pes %d: no grid of %d domains fits this box (%.4g x %.4g x %.4g "
                       "σ): every decomposed dimension needs domains at least rlist/2 = %.4g σ "
                       "thick (two pulses at most); use fewer PEs or a larger system",
                       pes, pes, md_pos_to_double(box[0]), md_pos_to_double(box[1]),
                       md_pos_to_double(box[2]), md_pos_to_double(rhalo) / 2);
    memcpy(n, best_n, sizeof best_n);
    return 0;
}

int md_grid_setup(md_grid *g, const int64_t box[3], const md_ddparams *dd, double rlist,
                  md_error *err)
{
    memset(g, 0, sizeof *g);
    g->rhalo = md_halo_depth(rlist);
    memcpy(g->box, box, sizeof g->box);
    for (int d = 0; d < 3; d++)
        if (box[d] <= 2 * g->rhalo)
            return md_fail(err, "the box edge along %c (%.6g σ) must be longer than 2 rlist = "
                           "2 (rc + skin) = %.6g σ; use more unit cells, or a smaller rc or "
                           "skin", 'x' + d, md_pos_to_double(box[d]), 2 * rlist);
    bool given = dd->grid[0] || dd->grid[1] || dd->grid[2];
    if (dd->pes < 1)
        return md_fail(err, "--pes %d: give at least 1 PE", dd->pes);
    if (given) {
        long prod = 1;
        for (int d = 0; d < 3; d++) {
            if (dd->grid[d] < 1)
                return md_fail(err, "--dd %dx%dx%d: every count must be at least 1",
                               dd->grid[0], dd->grid[1], dd->grid[2]);
            prod *= dd->grid[d];
        }
        if (prod != dd->pes)
            return md_fail(err, "--dd %dx%dx%d has %ld domains but --pes is %d; make them "
                           "agree (or leave one out)", dd->grid[0], dd->grid[1], dd->grid[2],
                           prod, dd->pes);
        memcpy(g->n, dd->grid, sizeof g->n);
    } else if (md_grid_choose(dd->pes, box, g->rhalo, g->n, err) != 0) {
        return -1;
    }
    g->npes = dd->pes;
    /* Pulse order: a permutation of {0, 1, 2}. */
    int seen = 0;
    for (int k = 0; k < 3; k++) {
        if (dd->order[k] < 0 || dd->order[k] > 2 || (seen & (1 << dd->order[k])))
            return md_fail(err, "dimension order {%d,%d,%d} is not a permutation of x, y, z",
                           dd->order[0], dd->order[1], dd->order[2]);
        seen |= 1 << dd->order[k];
        g->order[k] = dd->order[k];
    }
    for (int d = 0; d < 3; d++) {
        int np = pulses_needed(box[d], g->n[d], g->rhalo);
        if (np > 2 || (g->n[d] > 1 && np >= g->n[d])) {
            double w = md_pos_to_double(min_width(box[d], g->n[d]));
            md_fail(err, "--dd %dx%dx%d: domains along %c are %.4g σ thick, but the halo "
                    "(rlist = %.4g σ) would need %d pulses; at most 2 are supported, so domains "
                    "must be at least rlist/2 = %.4g σ thick: use fewer domains along %c",
                    g->n[0], g->n[1], g->n[2], 'x' + d, w, rlist, np, rlist / 2, 'x' + d);
            return -1;
        }
        g->npulse[d] = np;
        g->bound[d] = md_xmalloc(((size_t)g->n[d] + 1) * sizeof *g->bound[d]);
        for (int c = 0; c <= g->n[d]; c++)
            g->bound[d][c] = bound_at(box[d], g->n[d], c);
    }
    g->total_pulses = 0;
    for (int k = 0; k < 3; k++) {
        int d = g->order[k];
        for (int q = 0; q < g->npulse[d]; q++) {
            g->pulse_dim[g->total_pulses] = d;
            g->pulse_k[g->total_pulses] = q;
            g->total_pulses++;
        }
    }
    return 0;
}

void md_grid_free(md_grid *g)
{
    for (int d = 0; d < 3; d++)
        free(g->bound[d]);
    memset(g, 0, sizeof *g);
}

int md_grid_rank(const md_grid *g, const int cell[3])
{
    return cell[0] + g->n[0] * (cell[1] + g->n[1] * cell[2]);
}

void md_grid_cell(const md_grid *g, int rank, int cell[3])
{
    cell[0] = rank % g->n[0];
    cell[1] = (rank / g->n[0]) % g->n[1];
    cell[2] = rank / (g->n[0] * g->n[1]);
}

int md_grid_owner(const md_grid *g, const int64_t x[3])
{
    int cell[3];
    for (int d = 0; d < 3; d++)
        cell[d] = (int)(((__int128)x[d] * g->n[d]) / g->box[d]);
    return md_grid_rank(g, cell);
}
