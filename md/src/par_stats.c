/*
 * par_stats.c: the halo variants' traffic (par_stats.h has the units and what is counted):
 * what one step's exchanges send, read off the tables the kernels use, which each variant's
 * `traffic` op calls at a search; the gather of every PE's sums at the end of a run; the
 * --halo-stats lines.
 *
 * What the kernels send per route (kernels/halo_dev.h and the transports' files):
 *   staged coordinates (fused, pulse: md_notify_x after md_pack_x), per pulse: send_size
 *     atoms to send_rank and its signal word sig_x[p];
 *   staged force return (md_return_f, md_unpack_f), per pulse: put-with-signal: the
 *     recv_size halo slots' forces into recv_rank's fbuf with sig_f[p]; direct: the signal
 *     word only, and the owner loads its send_size atoms' forces from our slots;
 *   host baseline (par_host.c), per pulse and exchange: the same data without signal
 *     words (host nvshmem_putmem on the put path), and one barrier;
 *   MPI baseline (par_mpi.c), per pulse and exchange: the same data as one MPI message
 *     (a persistent send started) where it is not empty; no signal words, no barriers;
 *   direct26 (kernels/halo_direct26.c), per neighbour direction: send_size atoms with the
 *     signal word x[slot]; the acknowledgement is one signal word ack[slot], a release
 *     store on a direct route, a signal op on a put-with-signal one.
 */
#include "par_stats.h"

#include <inttypes.h>
#include <string.h>

#include "cuda_check.h"
#include "kernels/halo_direct26.h"
#include "par_int.h"

/* Coordinates and forces travel as three int64 components per atom. */
static const int64_t COMPONENTS = 3, ATOM_BYTES = 3 * (int64_t)sizeof(int64_t);

void md_traffic_send(md_traffic *t, int xport, int32_t n, bool signal)
{
    t->payload += (int64_t)n * ATOM_BYTES;
    t->signals += signal;
    if (xport == MD_XPORT_SIGNAL) /* two puts and a put-with-signal, or the signal op */
        t->msgs += n > 0 ? COMPONENTS : signal;
    else /* a range per component, and the signal store */
        t->msgs += (n > 0 ? COMPONENTS : 0) + signal;
}

void md_traffic_load(md_traffic *t, int32_t n)
{
    t->payload += (int64_t)n * ATOM_BYTES;
    t->msgs += n > 0 ? COMPONENTS : 0;
}

void md_traffic_add(md_traffic *sum, const md_traffic *t)
{
    sum->msgs += t->msgs;
    sum->payload += t->payload;
    sum->signals += t->signals;
    sum->barriers += t->barriers;
}

/* The staged variants' exchanges from the device pulse table; host: the CPU-initiated
 * baseline's (no signal words, a barrier per pulse). */
static void pulse_traffic(const md_par_pe *c, bool host, md_step_traffic *t)
{
    memset(t, 0, sizeof *t);
    for (int p = 0; p < c->grid.total_pulses; p++) {
        const md_dpulse *m = &c->hdp[p];
        md_traffic_send(&t->x, m->xport, m->send_size, !host);
        if (m->xport == MD_XPORT_SIGNAL) {
            md_traffic_send(&t->f, m->xport, m->recv_size, !host);
        } else {
            if (!host)
                md_traffic_send(&t->f, m->xport, 0, true);
            md_traffic_load(&t->f, m->send_size);
        }
        t->x.barriers += host;
        t->f.barriers += host;
    }
}

void md_par_pulse_traffic(const md_par_pe *c, md_step_traffic *t)
{
    pulse_traffic(c, false, t);
}

void md_par_host_traffic(const md_par_pe *c, md_step_traffic *t)
{
    pulse_traffic(c, true, t);
}

void md_par_mpi_traffic(const md_par_pe *c, md_step_traffic *t)
{
    memset(t, 0, sizeof *t);
    for (int p = 0; p < c->grid.total_pulses; p++) {
        const md_dpulse *m = &c->hdp[p];
        t->x.msgs += m->send_size > 0; /* one message: the three components in one datatype */
        t->x.payload += (int64_t)m->send_size * ATOM_BYTES;
        t->f.msgs += m->recv_size > 0;
        t->f.payload += (int64_t)m->recv_size * ATOM_BYTES;
    }
}

void md_par_d26_traffic(const struct md_d26_nbr *nbr, int n, md_step_traffic *t)
{
    memset(t, 0, sizeof *t);
    for (int k = 0; k < n; k++) {
        md_traffic_send(&t->x, nbr[k].m.xport, nbr[k].m.send_size, true);
        md_traffic_send(&t->f, nbr[k].m.xport, 0, true); /* the acknowledgement */
    }
}

void md_par_traffic_gather(md_par_pe *c)
{
    md_par_sym_write(c, c->pub, &c->traffic, sizeof c->traffic);
    nvshmem_barrier_all();
    if (c->me == 0)
        for (int r = 0; r < c->npes; r++)
            md_par_sym_read(c, &c->job->opt.traffic[r], c->pub, sizeof c->traffic, r);
    nvshmem_barrier_all(); /* pub is free again */
}

/* ---- --halo-stats ------------------------------------------------------------------------ */

static double mean(int64_t sum, int64_t n)
{
    return n > 0 ? (double)sum / (double)n : 0.0;
}

/* One PE's (or all PEs') means: coordinate exchange, force exchange, their sum per step. */
static void print_line(FILE *f, const char *who, const md_run_traffic *r)
{
    const md_traffic *x = &r->sum.x, *fr = &r->sum.f;
    const double xm = mean(x->msgs, r->nx), xb = mean(x->payload, r->nx),
                 xs = 8 * mean(x->signals, r->nx);
    const double fm = mean(fr->msgs, r->nf), fb = mean(fr->payload, r->nf),
                 fs = 8 * mean(fr->signals, r->nf);
    const double bar = mean(x->barriers, r->nx) + mean(fr->barriers, r->nf);
    fprintf(f, "# traffic %5s %9.2f %11.1f %8.1f %9.2f %11.1f %8.1f %9.2f %11.1f %8.1f %8.2f\n",
            who, xm, xb, xs, fm, fb, fs, xm + fm, xb + fb, xs + fs, bar);
}

void md_run_traffic_print(FILE *f, const md_run_traffic *run, int npes)
{
    md_run_traffic all;
    memset(&all, 0, sizeof all);
    for (int r = 0; r < npes; r++) {
        md_traffic_add(&all.sum.x, &run[r].sum.x);
        md_traffic_add(&all.sum.f, &run[r].sum.f);
    }
    all.nx = npes > 0 ? run[0].nx : 0; /* every PE runs the same exchanges */
    all.nf = npes > 0 ? run[0].nf : 0;
    fprintf(f, "# halo traffic (par_stats.h), issued by each PE, mean per exchange over %" PRId64
            " coordinate exchanges (the steps without a search) and %" PRId64 " force "
            "exchanges (every step; direct26: acknowledgements); step = one of each; msgs: "
            "NVSHMEM calls reaching a peer on put-with-signal routes, peer ranges of a "
            "component and signal stores on direct routes; bytes: payload, signal words (8 B)\n",
            all.nx, all.nf);
    fprintf(f, "# traffic    PE    x msgs     x bytes  x sig B    f msgs     f bytes  f sig B "
            "step msgs  step bytes step sig barriers\n");
    char who[16];
    for (int r = 0; r < npes; r++) {
        snprintf(who, sizeof who, "%d", r);
        print_line(f, who, &run[r]);
    }
    print_line(f, "all", &all);
}
