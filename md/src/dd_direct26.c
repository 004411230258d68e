/*
 * dd_direct26.c: the direct ghost exchange's neighbours, send lists, search region and
 * pair-list split (direct26.h says what each is; par_direct26.c runs them at a search).
 */
#include <stdlib.h>
#include <string.h>

#include "direct26.h"
#include "util.h"

int md_d26_dirs(const md_grid *g, const int cell[3], md_d26_dir dirs[MD_D26_DIRS])
{
    int ndir = 0;
    for (int code = 0; code < MD_NSHIFT; code++) {
        if (code == MD_SHIFT_NONE)
            continue;
        md_d26_dir dr;
        memset(&dr, 0, sizeof dr);
        dr.code = code;
        bool ok = true;
        int to[3];
        for (int d = 0; d < 3; d++) {
            dr.delta[d] = md_shift_comp(code, d);
            if (dr.delta[d] != 0 && g->n[d] == 1)
                ok = false;
            to[d] = (cell[d] + dr.delta[d] + g->n[d]) % g->n[d];
            dr.shift[d] = dr.delta[d] > 0 && cell[d] == g->n[d] - 1 ? -g->box[d]
                          : dr.delta[d] < 0 && cell[d] == 0         ? g->box[d]
                                                                     : 0;
        }
        if (!ok)
            continue;
        dr.rank = md_grid_rank(g, to);
        dirs[ndir++] = dr;
    }
    return ndir;
}

bool md_d26_fits(const md_grid *g)
{
    for (int d = 0; d < 3; d++)
        if (g->npulse[d] > 1)
            return false;
    return true;
}

/* The bit mask (bit k: dirs[k]) of the directions whose boundary region holds x. */
static uint32_t dir_mask(const md_grid *g, const int cell[3], const int64_t x[3],
                         const md_d26_dir *dirs, int ndir)
{
    int near[3][3]; /* near[d][delta + 1]: within rhalo of that side (delta 0: always) */
    for (int d = 0; d < 3; d++) {
        const int64_t lo = g->bound[d][cell[d]], hi = g->bound[d][cell[d] + 1];
        near[d][0] = g->n[d] > 1 && x[d] < lo + g->rhalo;
        near[d][1] = 1;
        near[d][2] = g->n[d] > 1 && x[d] >= hi - g->rhalo;
    }
    uint32_t mask = 0;
    for (int k = 0; k < ndir; k++) {
        const int *dl = dirs[k].delta;
        if (near[0][dl[0] + 1] && near[1][dl[1] + 1] && near[2][dl[2] + 1])
            mask |= 1u << k;
    }
    return mask;
}

void md_d26_sends(const md_grid *g, const int cell[3], const md_atoms *at, int32_t n_home,
                  const md_d26_dir *dirs, int ndir, int32_t *start, int32_t **list,
                  int64_t *cap)
{
    /* 1. mark: each home atom's direction mask; 2. expand into (atom, direction) pairs;
     * 3. stable counting sort by direction; 4. the sorted atoms are the per-direction
     * send lists (start[] delimits them). */
    uint32_t *mask = md_xmalloc((size_t)(n_home > 0 ? n_home : 1) * sizeof *mask);
    int64_t npairs = 0;
    for (int32_t i = 0; i < n_home; i++) {
        const int64_t x[3] = {at->x[0][i], at->x[1][i], at->x[2][i]};
        mask[i] = dir_mask(g, cell, x, dirs, ndir);
        npairs += __builtin_popcount(mask[i]);
    }
    int32_t *pair_atom = md_xmalloc((size_t)(npairs > 0 ? npairs : 1) * sizeof *pair_atom);
    uint8_t *pair_dir = md_xmalloc((size_t)(npairs > 0 ? npairs : 1));
    int64_t count[MD_D26_DIRS + 1];
    memset(count, 0, sizeof count);
    int64_t q = 0;
    for (int32_t i = 0; i < n_home; i++)
        for (uint32_t m = mask[i]; m != 0; m &= m - 1) {
            const int k = __builtin_ctz(m);
            pair_atom[q] = i;
            pair_dir[q++] = (uint8_t)k;
            count[k + 1]++;
        }
    for (int k = 0; k < ndir; k++)
        count[k + 1] += count[k];
    for (int k = 0; k <= ndir; k++)
        start[k] = (int32_t)count[k];
    if (npairs > *cap) {
        *cap = npairs + npairs / 4 + 16;
        *list = md_xrealloc(*list, (size_t)*cap * sizeof **list);
    }
    for (int64_t p = 0; p < npairs; p++) /* stable: pairs in atom order within a direction */
        (*list)[count[pair_dir[p]]++] = pair_atom[p];
    free(pair_dir);
    free(pair_atom);
    free(mask);
}

void md_d26_region(const md_grid *g, const md_pe *pe, md_region *reg)
{
    md_pe_region(g, pe, reg); /* the eighth shell's: the domain and rhalo above it */
    for (int d = 0; d < 3; d++)
        if (!reg->periodic[d]) {
            reg->origin[d] -= g->rhalo;
            reg->extent[d] += g->rhalo;
        }
}

static void reserve(md_pairlist *pl, int64_t nent, int64_t npairs)
{
    if (nent > pl->cap_ent) {
        pl->cap_ent = nent + nent / 4 + 16;
        pl->ent = md_xrealloc(pl->ent, (size_t)pl->cap_ent * sizeof *pl->ent);
    }
    if (npairs > pl->cap_j) {
        pl->cap_j = npairs + npairs / 4 + 16;
        pl->j = md_xrealloc(pl->j, (size_t)pl->cap_j * sizeof *pl->j);
    }
}

void md_d26_split(const md_pairlist *nl, const int64_t *id, md_pairlist *own,
                  md_pairlist *other)
{
    md_pairlist *out[2] = {own, other};
    for (int w = 0; w < 2; w++) {
        reserve(out[w], nl->nent, nl->npairs);
        out[w]->nent = 0;
        out[w]->npairs = 0;
        memcpy(out[w]->shift_fx, nl->shift_fx, sizeof nl->shift_fx);
        memcpy(out[w]->shift, nl->shift, sizeof nl->shift);
    }
    for (int64_t e = 0; e < nl->nent; e++) {
        const md_ientry en = nl->ent[e];
        for (int w = 0; w < 2; w++) {
            md_pairlist *o = out[w];
            const int64_t begin = o->npairs;
            for (int64_t k = en.begin; k < en.end; k++) {
                const int32_t j = nl->j[k];
                if ((id[en.i] > id[j]) == (w == 1))
                    o->j[o->npairs++] = j;
            }
            if (o->npairs > begin) {
                md_ientry ne = en;
                ne.begin = begin;
                ne.end = o->npairs;
                o->ent[o->nent++] = ne;
            }
        }
    }
}
