/*
 * par_int.h: one PE's state in the parallel driver (par.c: steps; par_setup.c: search).
 */
#ifndef MD_PAR_INT_H
#define MD_PAR_INT_H

#include "dd.h"
#include "kernels/halo.h"
#include "par.h"
#include "shmemu/emu.h"

typedef struct md_par_job {    /* shared by the PE threads, read-only while they run */
    const md_system *sys;      /* momenta in the run's dt unit */
    md_params par;
    md_ddparams dd;
    md_par_opts opt;
    md_par_sample_fn cb;
    void *cb_ctx;
    int32_t cap;               /* atoms per PE array (home + halo <= natoms, checked) */
    md_error err;              /* PE 0's error */
    md_par_result res;         /* filled by PE 0 */
} md_par_job;

typedef struct md_par_pe {
    md_par_job *job;
    int me, npes;
    md_grid grid;
    md_lj lj;
    md_pe pe;
    double *drift;             /* [ntypes] */
    /* symmetric */
    int64_t *xs, *fs;          /* [3 cap] each */
    md_dsig *sig;
    int64_t *xstage, *fbuf;    /* [total_pulses][3 cap] */
    int64_t *pub;              /* [1 + 8 cap]: redistribution and set-up exchange */
    int64_t *small;            /* [64]: offsets, statuses, sums */
    int64_t *gat;              /* [1 + 11 cap]: snapshot gather (only with opt.want) */
    /* device (plain) */
    int64_t *floc;             /* [3 cap] local forces */
    double *xd_loc, *xd_nl;    /* [3 cap] */
    int64_t *scratch;          /* [G][3][cap] */
    md_force_acc *acc;         /* [2][G] */
    md_dpulse *dp;             /* [MD_KMAX_PULSES] */
    int G;
    uint64_t seq_x, seq_f;
    int64_t too_close;         /* sticky */
    int64_t halo_checks;
    cudaStream_t s_loc, s_nl, s_upd;
    cudaEvent_t ev_upd, ev_loc, ev_nl;
} md_par_pe;

static inline int64_t *md_par_x(md_par_pe *c, int d) { return c->xs + (int64_t)d * c->job->cap; }
static inline int64_t *md_par_f(md_par_pe *c, int d) { return c->fs + (int64_t)d * c->job->cap; }

/* Search step (collective): redistribution, order, pulse table and its exchange, pair
 * lists, device pulse table, halo check. Returns -1 on every PE if one failed. */
int md_par_search(md_par_pe *c, md_error *err);
/* Collective "did any PE fail": every PE passes its status, all get the same answer. */
int md_par_any_failed(md_par_pe *c, int mine);
/* The coordinate halo of this step on the non-local stream (fused or pulses). */
void md_par_halo_x(md_par_pe *c);

#endif
