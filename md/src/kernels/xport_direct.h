/*
 * kernels/xport_direct.h: the direct transport (MD_XPORT_DIRECT; halo_dev.h dispatches here).
 * The peer's memory is ours to address through nvshmem_ptr (md_dpulse.peer_x, peer_f, the
 * signal words): coordinates are stored straight into send_rank's halo slots and published
 * with a system-scope release store of its sig_x[p] (its acquire-wait pairs with it); the
 * returned forces are not moved at all: our halo slots stay where they are, a release store
 * of recv_rank's sig_f[p] says they are final, and the owner reads them from our memory (a
 * get, as paper 000 does with tma_ld). Signals always carry seq (SET), whatever sig_op.
 * Included by halo_dev.h only (it needs md_add_returned_f).
 */
#ifndef MD_KERNELS_XPORT_DIRECT_H
#define MD_KERNELS_XPORT_DIRECT_H

/* Packs index_map entries [lo, hi) with the pulse's shift into the peer's halo slots. */
DEVICE void md_direct_pack_x(const md_dpulse *m, int64_t *const x[3], int32_t lo, int32_t hi)
{
    for (int d = 0; d < 3; d++)
        md_pack_range(m, m->peer_x[d], x[d], m->shift[d], lo, hi);
}

/* The data went straight into the peer: a system-scope release store publishes it. */
DEVICE void md_direct_notify_x(const md_dpulse *m, int64_t *const x[3], md_dsig *sig, int p,
                               uint64_t seq, int sig_op)
{
    (void)x, (void)sig, (void)p, (void)sig_op;
    md_publish_x(m->peer_sig_x, seq);
}

/* Our halo slots hold their final forces: the owner reads them, we only publish. (Paper 000
 * uses a relaxed store for the first force pulse, whose data was written by an earlier
 * kernel; here the forces were written by the non-local kernel and the unpacks of later
 * pulses, and the release is what carries them to the owner's acquire: a relaxed store
 * would leave them racing for helgrind, DRD and TSan, which see no kernel-boundary flush
 * across PEs.) */
DEVICE void md_direct_return_f(const md_dpulse *m, int64_t *const f[3], md_dsig *sig, int p,
                               uint64_t seq, int sig_op)
{
    (void)f, (void)sig, (void)p, (void)sig_op;
    md_publish_f(m->owner_sig_f, seq);
}

/* Adds the forces of index_map entries [lo, hi), read from the peer's halo slots. */
DEVICE void md_direct_unpack_f(const md_dpulse *m, int64_t *const f[3], int32_t lo, int32_t hi)
{
    for (int d = 0; d < 3; d++)
        md_add_returned_range(m, f[d], m->peer_f[d], lo, hi);
}

#endif
