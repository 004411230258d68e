/*
 * kernels/xport_signal.h: the put-with-signal transport (MD_XPORT_SIGNAL; halo_dev.h
 * dispatches here), for peers that nvshmem_ptr does not reach. Coordinates are packed into
 * our staging buffer (md_dpulse.xstage, [3][send_size]) and put into send_rank's halo slots
 * with the signal; our halo slots' forces are put into recv_rank's fbuf with the signal, and
 * the owner adds them from its own fbuf. nvshmem_quiet before returning: the staging buffer
 * (and our force slots) may be rewritten once the exchange is delivered. sig_op SET stores
 * seq (fused kernels), ADD adds 1 per exchange (pulse kernels): the word equals seq either
 * way (halo.h). Included by halo_dev.h only.
 */
#ifndef MD_KERNELS_XPORT_SIGNAL_H
#define MD_KERNELS_XPORT_SIGNAL_H

/* Packs index_map entries [lo, hi) with the pulse's shift into our staging buffer. */
DEVICE void md_signal_pack_x(const md_dpulse *m, int64_t *const x[3], int32_t lo, int32_t hi)
{
    for (int d = 0; d < 3; d++)
        md_pack_range(m, m->xstage + (int64_t)d * m->send_size, x[d], m->shift[d], lo, hi);
}

/* The staged coordinates go to send_rank's halo slots with their signal (md_put_staged_x:
 * three component ranges, one signal), then quiet. */
DEVICE void md_signal_notify_x(const md_dpulse *m, int64_t *const x[3], md_dsig *sig, int p,
                               uint64_t seq, int sig_op)
{
    const uint64_t v = sig_op == NVSHMEM_SIGNAL_SET ? seq : 1;
    const int to = md_x_dest(m);
    if (m->send_size == 0) {
        nvshmemx_signal_op(&sig->sig_x[p], v, sig_op, to);
        return;
    }
    md_put_staged_x(x, m->remote_offset, m->xstage, m->send_size, &sig->sig_x[p], v, sig_op, to);
    md_quiet_x();
}

/* Our halo slots of the pulse go into the owner's (recv_rank's) fbuf with the signal. */
DEVICE void md_signal_return_f(const md_dpulse *m, int64_t *const f[3], md_dsig *sig, int p,
                               uint64_t seq, int sig_op)
{
    const uint64_t v = sig_op == NVSHMEM_SIGNAL_SET ? seq : 1;
    const int32_t n = m->recv_size; /* the owner's send_size for this pulse */
    const size_t bytes = (size_t)n * sizeof(int64_t);
    if (bytes == 0) {
        nvshmemx_signal_op(&sig->sig_f[p], v, sig_op, m->recv_rank);
        return;
    }
    nvshmem_putmem_nbi(m->fbuf, f[0] + m->atom_offset, bytes, m->recv_rank);
    nvshmem_putmem_nbi(m->fbuf + n, f[1] + m->atom_offset, bytes, m->recv_rank);
    nvshmem_fence();
    nvshmem_putmem_signal_nbi(m->fbuf + 2 * (int64_t)n, f[2] + m->atom_offset, bytes,
                              &sig->sig_f[p], v, sig_op, m->recv_rank);
    nvshmem_quiet();
}

/* Adds the forces of index_map entries [lo, hi), put into our fbuf by send_rank. */
DEVICE void md_signal_unpack_f(const md_dpulse *m, int64_t *const f[3], int32_t lo, int32_t hi)
{
    for (int d = 0; d < 3; d++)
        md_add_returned_range(m, f[d], m->fbuf + (int64_t)d * m->send_size, lo, hi);
}

#endif
