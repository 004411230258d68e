/*
 * par_int.h: one PE's state in the parallel driver (par.c: steps; par_setup.c: search) and
 * the halo-variant table (par_fused.c, par_pulse.c, par_host.c, par_direct26.c, par_mpi.c).
 */
#ifndef MD_PAR_INT_H
#define MD_PAR_INT_H

#include <string.h>

#include "dd.h"
#include "kernels/halo.h"
#include "par.h"
#include "par_stats.h"

/* The force kernels' form when opt.force is auto (par.h): what is fast on each build; and
 * the direct path's bulk copies when opt.bulk is auto (on with a copy engine). */
#ifdef __CUDACC__
#define MD_FORCE_BUILD_DEFAULT MD_FORCE_THREADS
#define MD_BULK_BUILD_DEFAULT MD_BULK_ON
#else
#define MD_FORCE_BUILD_DEFAULT MD_FORCE_LOOP
#define MD_BULK_BUILD_DEFAULT MD_BULK_OFF
#endif

/* int64 per atom in the symmetric areas: pub (redistribution: id, type, wrapped x[3], p[3],
 * img[3]; the set-up exchange's rows are shorter) and gat (snapshot: id, type, x[3], p[3],
 * f[3], img[3]). */
enum { MD_PAR_PUB_ROW = 11, MD_PAR_GATHER_ROW = 14 };

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

/* --timing (par_timing.c): the kernels' per-block timestamps (kernels/tstamp.h) and a start
 * and an end event per phase; the sums of the counted steps. */
typedef struct md_par_timer {
    bool on;
    bool used[MD_NPHASE];      /* recorded in this step */
    bool capturing;            /* inside a --graph capture: events become graph nodes */
    cudaEvent_t ev[MD_NPHASE][2];
    double ms[MD_NPHASE];
    long steps;
    md_tslot *slots;           /* device [MD_NTROLE]: this step's stamps */
    md_tslot slots_h[MD_NTROLE]; /* the host's copy, after the step's synchronize */
    double dev_ns[MD_NDT];     /* device intervals (par.h md_dtime), ns, summed */
    /* --occupancy (PE 0): the block log the kernels append to, and the host's copy of the
     * last counted step's records (rec_h[rec_n], of rec_total appended; rec_step: its step). */
    md_blocklog *log;          /* device, or NULL */
    md_blockrec *rec_d;        /* device [rec_cap] */
    md_blockrec *rec_h;        /* host [rec_cap] */
    unsigned long long rec_cap, rec_n, rec_total;
    long rec_step;
    int sms;                   /* the device's SM count (0: unknown, the emulator unlimited) */
    bool gpu;                  /* a GPU (the CUDA build), not the emulator */
} md_par_timer;

/* on: stamps (--timing); occupancy: also the block log (--occupancy, implies on). */
void md_par_timer_init(md_par_timer *t, bool on, bool occupancy);
void md_par_timer_free(md_par_timer *t);
/* Records phase ph's start (end 0) or end (end 1) event on stream s. */
void md_par_timer_mark(md_par_timer *t, md_phase ph, int end, cudaStream_t s);
/* The timestamp slot that role r's kernels get: NULL when timing is off. */
md_tslot *md_par_timer_slot(md_par_timer *t, md_trole r);
/* At the start of a step, before its first kernel: empties the stamps on stream s (the
 * step's other streams wait for s). */
void md_par_timer_reset(md_par_timer *t, cudaStream_t s);
/* At the end of a step: synchronizes, adds this step's phases and device intervals when
 * count, and keeps its block records (step: its number). */
void md_par_timer_step(md_par_timer *t, bool count, long step);

typedef struct md_par_pe md_par_pe;

/* A halo variant: how the halo is set up at a search and how one step's coordinate halo
 * and force halo are issued. par.c picks one per run (halo_variant) and calls it once per
 * step, with the phase's timer marks around it; md_par_search calls its search after the
 * redistribution, and the search's halo test calls exchange_x too. One file per variant.
 * Adding one: a file defining its md_halo_ops, a value of md_halo_kind (par.h) and a case in
 * par.c's halo_variant. */
typedef struct md_halo_ops {
    const char *name;
    bool graph_ok;  /* a step can be captured as a CUDA graph (no host wait inside it) */
    void (*exchange_x)(md_par_pe *c, cudaStream_t s); /* coordinate halo of a step, on s */
    void (*exchange_f)(md_par_pe *c, cudaStream_t s); /* force halo of a step, on s */
    /* Collective, after the redistribution and the home sort: the halo, the pair lists and
     * the device tables (md_par_pulse_search: the staged pulses). -1 on every PE if one
     * failed. */
    int (*search)(md_par_pe *c, md_error *err);
    /* The routes of the last search by transport (NULL: the pulse table's pulses, par.c). */
    void (*count_routes)(const md_par_pe *c, int *direct, int *signal, int *bulk);
    void (*release)(md_par_pe *c); /* at teardown, the variant's own buffers (or NULL) */
    /* What one coordinate exchange and one force exchange send from this PE with the last
     * search's tables (par_stats.h; md_par_search calls it after search). */
    void (*traffic)(const md_par_pe *c, md_step_traffic *t);
} md_halo_ops;

extern const md_halo_ops md_halo_fused; /* par_fused.c: paper 000 Alg. 3-6 */
extern const md_halo_ops md_halo_pulse; /* par_pulse.c: kernels per pulse */
extern const md_halo_ops md_halo_host;  /* par_host.c: CPU-initiated baseline */
extern const md_halo_ops md_halo_direct26; /* par_direct26.c: HOOMD's direct exchange */
extern const md_halo_ops md_halo_mpi;   /* par_mpi.c: the host baseline through MPI */

struct md_par_pe {
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
    int64_t *pub;              /* [1 + MD_PAR_PUB_ROW cap + 64]: redistribution, set-up exchange */
    int64_t *small;            /* [64]: offsets, statuses, sums */
    int64_t *gat;              /* [1 + MD_PAR_GATHER_ROW cap]: snapshot gather (opt.want) */
    int64_t *bounce;           /* [1 + MD_PAR_PUB_ROW cap + 64]: a peer's data to the host */
    /* device (plain). On a GPU the host reaches device and symmetric memory only through
     * cudaMemcpy (and md_par_sym_*), at search and output steps; the emulator's device
     * memory is host memory, and the same calls are plain copies there. */
    int64_t *ps;               /* [3 cap] home atoms' momenta (pe.at.p between searches) */
    int32_t *type;             /* [cap] home atoms' types */
    double *drift_d;           /* [ntypes] */
    md_lj *lj_d;
    md_pairlist *lists;        /* [2]: local, non-local, pointing at the arrays below */
    md_ientry *ent[2];
    int32_t *jlist[2];
    int64_t cap_ent[2], cap_jl[2];
    int32_t *imap;             /* [MD_KMAX_PULSES][cap] the pulses' index maps */
    md_dpulse hdp[MD_KMAX_PULSES]; /* the host's copy of dp */
    md_force_acc *acc_h;       /* [2][G] the host's copy of acc (after a synchronize) */
    int64_t *floc;             /* [3 cap] local forces */
    double *xd_loc, *xd_nl;    /* [3 cap] */
    int64_t *scratch;          /* [G][3][cap] */
    md_force_acc *acc;         /* [2][G] */
    md_dpulse *dp;             /* [MD_KMAX_PULSES] */
    int G;
    md_force_kind force;       /* loop or threads (opt.force resolved for this build) */
    const md_halo_ops *halo;   /* opt.halo's variant */
    uint64_t seq_x, seq_f;     /* the last coordinate and force exchange's number (halo.h) */
    bool seq_x_stuck;          /* planted bug x-seq-not-incremented (par.c pe_setup) */
    int64_t too_close;         /* sticky */
    int64_t halo_checks;
    cudaStream_t s_loc, s_nl, s_upd;
    cudaEvent_t ev_upd, ev_loc, ev_nl;
    md_par_timer timer;
    void *graph_exec;          /* --graph: the instantiated step (cudaGraphExec_t) */
    long graph_builds, graph_launches;
    struct md_par_d26 *d26;    /* --halo direct26's state (par_direct26.c); NULL otherwise */
    struct md_par_mpi *mpi;    /* --halo mpi's requests (par_mpi.c); NULL otherwise */
    md_step_traffic step_traffic; /* one step's exchanges with the current tables */
    md_run_traffic traffic;    /* this PE's sums over the run (par.c adds per exchange) */
};

static inline int64_t *md_par_x(md_par_pe *c, int d) { return c->xs + (int64_t)d * c->job->cap; }
static inline int64_t *md_par_f(md_par_pe *c, int d) { return c->fs + (int64_t)d * c->job->cap; }

/* The number of the next coordinate exchange (from 1). */
static inline uint64_t md_par_next_seq_x(md_par_pe *c)
{
    if (!(c->seq_x_stuck && c->seq_x > 0))
        ++c->seq_x;
    return c->seq_x;
}

/* The halo kernels' arguments for exchange number seq, stamping role r's timer slot. */
static inline md_halo_args md_par_halo_args(md_par_pe *c, uint64_t seq, md_trole r)
{
    md_halo_args a;
    memset(&a, 0, sizeof a);
    a.pulses = c->dp;
    a.npulse = c->grid.total_pulses;
    for (int d = 0; d < 3; d++) {
        a.x[d] = md_par_x(c, d);
        a.f[d] = md_par_f(c, d);
    }
    a.sig = c->sig;
    a.seq = seq;
    a.ts = md_par_timer_slot(&c->timer, r);
    return a;
}

/* The variants' traffic ops (par_stats.c): the staged pulse table (fused, pulse), the host
 * baseline's, the MPI baseline's, direct26's neighbour table (n directions). */
void md_par_pulse_traffic(const md_par_pe *c, md_step_traffic *t);
void md_par_host_traffic(const md_par_pe *c, md_step_traffic *t);
/* --halo mpi's: a message per non-empty send, no signal words, no barriers. */
void md_par_mpi_traffic(const md_par_pe *c, md_step_traffic *t);
struct md_d26_nbr;
void md_par_d26_traffic(const struct md_d26_nbr *nbr, int n, md_step_traffic *t);
/* Collective, at the end of a run with opt.traffic: PE 0 gets every PE's sums. */
void md_par_traffic_gather(md_par_pe *c);

/* Search step (collective): redistribution, order, then the variant's search. Returns -1
 * on every PE if one failed. */
int md_par_search(md_par_pe *c, md_error *err);
/* The staged variants' search (fused, pulse, host): pulse table and its exchange, pair
 * lists, device pulse table, halo check. */
int md_par_pulse_search(md_par_pe *c, md_error *err);
/* Pair list h to the device: its arrays grown as needed (named `name` if that fails) and
 * copied; *dev gets h with the device pointers. */
void md_par_upload_list(const md_pairlist *h, md_ientry **ent, int32_t **jl,
                        int64_t *cap_ent, int64_t *cap_jl, md_pairlist *dev, const char *name);
/* The local list and `nonlocal` (the list the non-local force kernel runs) to the device. */
void md_par_device_lists(md_par_pe *c, const md_pairlist *nonlocal);
/* After a search: home and halo positions, home momenta and types to the device. */
void md_par_upload_state(md_par_pe *c);
/* --check's halo test, common part (collective): every home atom's coordinates become its
 * id code (id * 8 + dimension), the run's exchange_x fills the halo; returns what the PE
 * then holds, [3][at.n] (free with md_par_halo_codes_done, which also restores the
 * positions and counts the slots checked). */
int64_t *md_par_halo_codes(md_par_pe *c);
void md_par_halo_codes_done(md_par_pe *c, int64_t *code);
/* Collective "did any PE fail": every PE passes its status, all get the same answer. */
int md_par_any_failed(md_par_pe *c, int mine);
/* Host side of symmetric memory (search and output steps): write this PE's sym[0, bytes)
 * from src; read PE pe's sym[0, bytes) into dst (through nvshmem_getmem into bounce). */
void md_par_sym_write(md_par_pe *c, void *sym, const void *src, size_t bytes);
void md_par_sym_read(md_par_pe *c, void *dst, const void *sym, size_t bytes, int pe);
/* --graph (par_graph.c): false on the emulator. begin: the update stream starts capturing;
 * launch: ends the capture and launches the step's graph (instantiated once, updated after);
 * -1 with err on a CUDA error. */
bool md_par_graph_available(void);
void md_par_graph_begin(md_par_pe *c);
int md_par_graph_launch(md_par_pe *c, md_error *err);
void md_par_graph_free(md_par_pe *c);
/* An event record that stays a node of the graph being captured (par_timing.c). */
void md_par_event_record_captured(cudaEvent_t ev, cudaStream_t s);

#endif
