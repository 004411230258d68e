/*
 * check.c: brute-force pair and halo oracles (check.h). Written for clarity, not speed:
 * they are the independent second opinion, so they share only the exact-arithmetic
 * helpers (md_r2, positions) with the code they check, never its search or its geometry.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include "fixed.h"
#include "util.h"

typedef struct pair_rec {
    int64_t a, b;   /* ids, a < b */
    int64_t d[3];   /* displacement x_a - x_b at the image used, position units */
} pair_rec;

static int cmp_pair(const void *p, const void *q)
{
    const pair_rec *x = p, *y = q;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return 0;
}

typedef struct rec_vec {
    pair_rec *v;
    int64_t n, cap;
} rec_vec;

static void rec_push(rec_vec *rv, pair_rec r)
{
    if (rv->n == rv->cap) {
        rv->cap = rv->cap ? 2 * rv->cap : 1024;
        rv->v = md_xrealloc(rv->v, (size_t)rv->cap * sizeof *rv->v);
    }
    rv->v[rv->n++] = r;
}

static int64_t min_image(int64_t d, int64_t len)
{
    int64_t h = len / 2;
    return md_wrap(d + h, len) - h;
}

static double r2_of(const int64_t d[3])
{
    return md_r2(md_pos_to_double(d[0]), md_pos_to_double(d[1]), md_pos_to_double(d[2]));
}

void md_check_pairs(const md_sim *s, double cut2, md_pair_report *rep)
{
    memset(rep, 0, sizeof *rep);
    md_system all;
    md_sim_gather(s, &all, NULL);
    const md_atoms *a = &all.atoms;
    rec_vec brute = {0}, listed = {0};
    for (int32_t i = 0; i < a->n; i++)
        for (int32_t j = i + 1; j < a->n; j++) {
            pair_rec r = {a->id[i], a->id[j], {0, 0, 0}};
            for (int d = 0; d < 3; d++)
                r.d[d] = min_image(a->x[d][i] - a->x[d][j], s->box.len[d]);
            if (r2_of(r.d) < cut2)
                rec_push(&brute, r);
        }
    for (int p = 0; p < s->grid.npes; p++) {
        const md_pe *pe = &s->pes[p];
        const md_pairlist *lists[2] = {&pe->local, &pe->nonlocal};
        for (int l = 0; l < 2; l++)
            for (int64_t e = 0; e < lists[l]->nent; e++) {
                const md_ientry *en = &lists[l]->ent[e];
                for (int64_t k = en->begin; k < en->end; k++) {
                    int32_t i = en->i, j = lists[l]->j[k];
                    pair_rec r;
                    bool flip = pe->at.id[i] > pe->at.id[j];
                    r.a = flip ? pe->at.id[j] : pe->at.id[i];
                    r.b = flip ? pe->at.id[i] : pe->at.id[j];
                    for (int d = 0; d < 3; d++) {
                        int64_t dd = pe->at.x[d][i] + lists[l]->shift_fx[en->shift][d] -
                                     pe->at.x[d][j];
                        r.d[d] = flip ? -dd : dd;
                    }
                    rec_push(&listed, r);
                }
            }
    }
    rep->brute = brute.n;
    rep->listed = listed.n;
    qsort(brute.v, (size_t)brute.n, sizeof *brute.v, cmp_pair);
    qsort(listed.v, (size_t)listed.n, sizeof *listed.v, cmp_pair);
    for (int64_t k = 0; k < listed.n; k++) {
        if (k > 0 && cmp_pair(&listed.v[k - 1], &listed.v[k]) == 0)
            rep->duplicates++;
        if (!(r2_of(listed.v[k].d) < cut2))
            rep->beyond++;
    }
    /* Merge: each brute pair must be listed, at the same displacement. */
    int64_t k = 0;
    for (int64_t b = 0; b < brute.n; b++) {
        while (k < listed.n && cmp_pair(&listed.v[k], &brute.v[b]) < 0)
            k++;
        if (k >= listed.n || cmp_pair(&listed.v[k], &brute.v[b]) != 0) {
            rep->missing++;
            continue;
        }
        if (memcmp(listed.v[k].d, brute.v[b].d, sizeof brute.v[b].d) != 0)
            rep->bad_displacement++;
    }
    free(brute.v);
    free(listed.v);
    md_system_free(&all);
}

/* ---- halo ------------------------------------------------------------------------------ */

typedef struct halo_rec {
    int64_t id;
    int64_t x[3];
} halo_rec;

static int cmp_halo(const void *p, const void *q)
{
    const halo_rec *x = p, *y = q;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    for (int d = 0; d < 3; d++)
        if (x->x[d] != y->x[d])
            return x->x[d] < y->x[d] ? -1 : 1;
    return 0;
}

static int32_t find_id(const md_atoms *a, int64_t id)
{
    int32_t lo = 0, hi = a->n - 1;
    while (lo <= hi) {
        int32_t m = lo + (hi - lo) / 2;
        if (a->id[m] == id)
            return m;
        if (a->id[m] < id)
            lo = m + 1;
        else
            hi = m - 1;
    }
    return -1;
}

int64_t md_check_halo(const md_sim *s, bool search_step, md_error *err)
{
    const md_grid *g = &s->grid;
    md_system all;
    md_sim_gather(s, &all, NULL);
    const md_atoms *a = &all.atoms;
    int64_t problems = 0;
    int *owner_of = md_xmalloc((size_t)(a->n ? a->n : 1) * sizeof *owner_of);
    for (int q = 0; q < g->npes; q++)
        for (int32_t h = 0; h < s->pes[q].n_home; h++)
            owner_of[find_id(a, s->pes[q].at.id[h])] = q;
    for (int r = 0; r < g->npes; r++) {
        const md_pe *pe = &s->pes[r];
        int64_t lo[3], up[3];
        for (int d = 0; d < 3; d++) {
            lo[d] = g->bound[d][pe->cell[d]];
            up[d] = g->bound[d][pe->cell[d] + 1];
        }
        /* Every slot: the owner's current position plus the route's shift. */
        for (int32_t i = pe->n_home; i < pe->at.n; i++) {
            int32_t o = find_id(a, pe->at.id[i]);
            if (o < 0) {
                if (!problems++)
                    md_fail(err, "PE %d: halo slot %d holds id %lld, which no PE owns", r, i,
                            (long long)pe->at.id[i]);
                continue;
            }
            int owner = owner_of[o];
            int ocell[3];
            md_grid_cell(g, owner, ocell);
            for (int d = 0; d < 3; d++) {
                bool above = (pe->at.zone[i] >> d) & 1;
                int64_t k = (g->n[d] > 1 && above && ocell[d] <= pe->cell[d]) ? 1 : 0;
                int64_t want = a->x[d][o] + k * g->box[d];
                if (pe->at.x[d][i] != want && !problems++)
                    md_fail(err, "PE %d: halo slot %d (atom %lld) has %c = %lld, expected %lld "
                            "(owner PE %d, shift %lld box)", r, i, (long long)pe->at.id[i],
                            'x' + d, (long long)pe->at.x[d][i], (long long)want, owner,
                            (long long)k);
                else if (pe->at.x[d][i] != want)
                    problems++;
            }
        }
        if (!search_step)
            continue;
        /* At a search step: the halo set is exactly the eighth-shell atoms within rhalo. */
        int64_t cap = 1024, ne = 0, nh = pe->at.n - pe->n_home;
        halo_rec *exp = md_xmalloc((size_t)cap * sizeof *exp);
        for (int32_t i = 0; i < a->n; i++) {
            int kmin[3], kmax[3];
            for (int d = 0; d < 3; d++) {
                kmin[d] = g->n[d] > 1 ? -1 : 0;
                kmax[d] = g->n[d] > 1 ? 1 : 0;
            }
            for (int kz = kmin[2]; kz <= kmax[2]; kz++)
                for (int ky = kmin[1]; ky <= kmax[1]; ky++)
                    for (int kx = kmin[0]; kx <= kmax[0]; kx++) {
                        int k[3] = {kx, ky, kz};
                        halo_rec h = {a->id[i], {0, 0, 0}};
                        bool in = true, above = false;
                        for (int d = 0; d < 3; d++) {
                            h.x[d] = a->x[d][i] + k[d] * g->box[d];
                            if (g->n[d] == 1)
                                continue;
                            if (h.x[d] < lo[d] || h.x[d] >= up[d] + g->rhalo)
                                in = false;
                            if (h.x[d] >= up[d])
                                above = true;
                        }
                        if (!in || !above)
                            continue;
                        if (ne == cap) {
                            cap *= 2;
                            exp = md_xrealloc(exp, (size_t)cap * sizeof *exp);
                        }
                        exp[ne++] = h;
                    }
        }
        halo_rec *got = md_xmalloc((size_t)(nh ? nh : 1) * sizeof *got);
        for (int64_t i = 0; i < nh; i++) {
            got[i].id = pe->at.id[pe->n_home + i];
            for (int d = 0; d < 3; d++)
                got[i].x[d] = pe->at.x[d][pe->n_home + i];
        }
        qsort(exp, (size_t)ne, sizeof *exp, cmp_halo);
        qsort(got, (size_t)nh, sizeof *got, cmp_halo);
        if (ne != nh || (ne > 0 && memcmp(exp, got, (size_t)ne * sizeof *exp) != 0)) {
            int64_t k = 0;
            while (k < ne && k < nh && cmp_halo(&exp[k], &got[k]) == 0)
                k++;
            if (!problems++)
                md_fail(err, "PE %d: the halo holds %lld atoms, the eighth shell within rhalo "
                        "has %lld; first difference at sorted entry %lld (expected id %lld, "
                        "found id %lld)", r, (long long)nh, (long long)ne, (long long)k,
                        k < ne ? (long long)exp[k].id : -1LL,
                        k < nh ? (long long)got[k].id : -1LL);
        }
        free(exp);
        free(got);
    }
    free(owner_of);
    md_system_free(&all);
    return problems;
}
