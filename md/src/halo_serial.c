/*
 * halo_serial.c: the per-step halo exchange of every PE, applied in one process.
 *
 * This is the reference semantics of the pulse table that the GPU halo kernels (pulse by
 * pulse, or fused as in paper 000 Alg. 3-6; docs/papers.md) must reproduce: coordinates forward in
 * pulse order, forces backward in reverse pulse order. Within a pulse the PEs are independent;
 * between pulses, forwarding makes pulse p read what pulse q < p wrote (dep_mask).
 */
#include "dd.h"

void md_halo_x_serial(const md_grid *g, md_pe *pes)
{
    for (int p = 0; p < g->total_pulses; p++) {
        for (int r = 0; r < g->npes; r++) {
            const md_pe *src = &pes[r];
            const md_pulse *sp = &src->pulse[p];
            md_pe *dst = &pes[sp->send_rank];
            const int32_t off = dst->pulse[p].atom_offset;
            for (int d = 0; d < 3; d++) {
                const int64_t *x = src->at.x[d];
                int64_t *y = dst->at.x[d] + off;
                const int64_t shift = sp->coord_shift[d];
                for (int32_t s = 0; s < sp->send_size; s++)
                    y[s] = x[sp->index_map[s]] + shift;
            }
        }
    }
}

void md_halo_f_serial(const md_grid *g, md_pe *pes)
{
    for (int p = g->total_pulses - 1; p >= 0; p--) {
        for (int r = 0; r < g->npes; r++) {
            const md_pe *rcv = &pes[r]; /* received coordinates in pulse p: returns forces */
            const md_pulse *rp = &rcv->pulse[p];
            md_pe *owner = &pes[rp->recv_rank];
            const md_pulse *op = &owner->pulse[p];
            for (int d = 0; d < 3; d++) {
                const int64_t *f = rcv->at.f[d] + rp->atom_offset;
                int64_t *o = owner->at.f[d];
                for (int32_t s = 0; s < op->send_size; s++)
                    o[op->index_map[s]] += f[s];
            }
        }
    }
}
