/*
 * kernels/halo_dev.h: the device functions both halo variants share (docs/papers.md: paper 000
 * Alg. 4, 5 and the transport of each path). Each transport lives in one function here:
 *   direct:      stores into the peer's memory through nvshmem_ptr, then a system-scope
 *                release store of the peer's signal (md_notify_x / md_notify_f); with bulk
 *                copies (md_dpulse.bulk_chunk > 0, --bulk-copy) the block gathers its
 *                entries into shared memory and one thread copies them into the peer with
 *                tma_st, and the owner reads its returned forces with tma_ld into shared
 *                memory (paper 000 §5.2: TMA stores and loads on NVLink);
 *   put-signal:  packed into a local staging buffer, then put-with-signal into the peer,
 *                and nvshmem_quiet before the staging buffer can be reused.
 */
#ifndef MD_KERNELS_HALO_DEV_H
#define MD_KERNELS_HALO_DEV_H

#include "halo.h"
#include "shmemu/bugs.h" /* the planted protocol bugs (shmemu_bug(): false in real runs) */

/* [lo, hi) of n items for part k of parts. */
DEVICE void md_split(int32_t n, int k, int parts, int32_t *lo, int32_t *hi)
{
    *lo = (int32_t)(((int64_t)n * k) / parts);
    *hi = (int32_t)(((int64_t)n * (k + 1)) / parts);
}

/* Where pulse m's packed coordinates go: the peer's halo slots (direct) or our staging. */
DEVICE int64_t *md_x_out(const md_dpulse *m, int d)
{
    return m->peer_x[0] ? m->peer_x[d] : m->xstage + (int64_t)d * m->send_size;
}

/* fence.proxy.async.global: orders this thread's global-memory accesses through the generic
 * proxy (loads, stores, the signal's release and acquire) with the bulk copies' (the async
 * proxy) on either side. The dialect (shmemu/kernel.h) has only the shared-memory form,
 * fence_proxy_async(); until it has this one, the CUDA build issues it here. The emulator's
 * bulk copies are plain copies by the issuing thread: nothing to order there. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define md_fence_proxy_async_global() asm volatile("fence.proxy.async.global;" ::: "memory")
#else
#define md_fence_proxy_async_global() ((void)0)
#endif

/* Bulk copies move 16-byte aligned runs of 16-byte multiples: two int64 elements. Of the
 * entries [lo, hi) of the global array base: [*a, *e) is the longest run that starts at a
 * 16-byte aligned element and holds an even count. The rest, [lo, *a) and [*e, hi), is at
 * most one element each (an int64 is 8-byte aligned), moved with plain stores or loads. */
DEVICE void md_bulk_run(const int64_t *base, int32_t lo, int32_t hi, int32_t *a, int32_t *e)
{
    int32_t s = lo + (((uintptr_t)(base + lo) & 15u) != 0 ? 1 : 0);
    if (s > hi)
        s = hi;
    *a = s;
    *e = s + ((hi - s) & ~(int32_t)1);
}

/* md_pack_x with bulk copies (direct path; all threads of the block call it with the same
 * range). Per component and chunk of at most bulk_chunk entries: the threads gather the
 * entries, with the shift, into shared memory (the values md_pack_x stores), fence it for
 * the copy engine, block barrier; thread 0 copies the chunk into the peer's halo slots
 * (tma_st: the copy, then the wait for its bulk group, then its mbarrier phase) and the
 * block barrier after it frees the buffer. When this returns, thread 0 has seen every copy
 * complete: the election and the signal's release store that follow publish them. */
DEVICE void md_pack_x_bulk(const md_dpulse *m, int64_t *const x[3], int32_t lo, int32_t hi)
{
    SHARED_ARRAY(int64_t, md_xsmem, MD_BULK_SMEM);
    SHARED_ARRAY(uint64_t, md_xbar, 1);
    const int32_t t = (int32_t)threadIdx.x, nt = (int32_t)blockDim.x;
    if (t == 0) {
        mbar_init(md_xbar, 1);
        fence_proxy_async();          /* the initialized mbarrier, for the copy engine */
        md_fence_proxy_async_global(); /* the peer's earlier reads of its slots (generic) */
    }
    __syncthreads();
    for (int d = 0; d < 3; d++) {
        int64_t *out = m->peer_x[d];
        const int64_t *xs = x[d];
        const int64_t sh = m->shift[d];
        int32_t a, e;
        md_bulk_run(out, lo, hi, &a, &e);
        for (int32_t s = lo + t; s < a; s += nt)
            out[s] = xs[m->index_map[s]] + sh;
        for (int32_t s = e + t; s < hi; s += nt)
            out[s] = xs[m->index_map[s]] + sh;
        for (int32_t c0 = a; c0 < e; c0 += m->bulk_chunk) {
            const int32_t c1 = e - c0 < m->bulk_chunk ? e : c0 + m->bulk_chunk;
            for (int32_t s = c0 + t; s < c1; s += nt)
                SH_ST(md_xsmem, s - c0, xs[m->index_map[s]] + sh);
            fence_proxy_async(); /* this thread's shared stores, before the copy engine reads */
            if (!shmemu_bug(SHMEMU_BUG_BULK_SYNC_MISSING))
                __syncthreads();
            if (t == 0) {
                const unsigned bytes = (unsigned)(c1 - c0) * (unsigned)sizeof(int64_t);
                const uint64_t token = mbar_arrive_expect_tx(md_xbar, bytes);
                tma_st(out + c0, md_xsmem, bytes, md_xbar);
                mbar_wait(md_xbar, token);
            }
            __syncthreads(); /* the copy has read the buffer: the next chunk may fill it */
        }
    }
    if (t == 0) {
        md_fence_proxy_async_global(); /* the copies, before the generic release that follows */
        mbar_inval(md_xbar);
    }
}

/* Packs index_map entries [lo, hi) with the pulse's periodic shift; threads stride. */
DEVICE void md_pack_x(const md_dpulse *m, int64_t *const x[3], int32_t lo, int32_t hi)
{
    if (m->bulk_chunk > 0) {
        md_pack_x_bulk(m, x, lo, hi);
        return;
    }
    for (int d = 0; d < 3; d++) {
        int64_t *out = md_x_out(m, d);
        const int64_t *xs = x[d];
        const int64_t sh = m->shift[d];
        for (int32_t s = lo + (int32_t)threadIdx.x; s < hi; s += (int32_t)blockDim.x)
            out[s] = xs[m->index_map[s]] + sh;
    }
}

/* Acquire-waits for our own signal word (written by a peer) to reach seq. */
DEVICE void md_wait_seq(uint64_t *word, uint64_t seq)
{
    nvshmem_signal_wait_until(word, NVSHMEM_CMP_EQ, seq);
}

/* Acquire-waits (GPU scope) for a word that blocks of this PE release. */
DEVICE void md_wait_local(const uint64_t *word, uint64_t seq)
{
    while (ld_acquire(word, SCOPE_GPU) != seq) {
    }
}

/* The coordinates of pulse p are packed (by every block, ordered before this thread by
 * the election or the kernel boundary): tell send_rank. sig_op SET for the fused kernel,
 * ADD 1 for the pulse kernels (put path); the direct path always stores seq. */
DEVICE void md_notify_x(const md_dpulse *m, int64_t *const x[3], md_dsig *sig, int p,
                        uint64_t seq, int sig_op)
{
    if (m->peer_x[0]) {
        /* Direct: the data went straight into the peer; a system-scope release store
         * publishes it (the peer acquire-waits on the same word). */
        if (shmemu_bug(SHMEMU_BUG_X_NOTIFY_RELAXED))
            st_relaxed(m->peer_sig_x, seq, SCOPE_SYS);
        else
            st_release(m->peer_sig_x, seq, SCOPE_SYS);
        return;
    }
    const uint64_t v = sig_op == NVSHMEM_SIGNAL_SET ? seq : 1;
    const size_t bytes = (size_t)m->send_size * sizeof(int64_t);
    const int to = shmemu_bug(SHMEMU_BUG_X_PUT_WRONG_PE) ? m->recv_rank : m->send_rank;
    if (bytes == 0) {
        nvshmemx_signal_op(&sig->sig_x[p], v, sig_op, to);
        return;
    }
    if (shmemu_bug(SHMEMU_BUG_X_SIGNAL_BEFORE_DATA)) {
        nvshmemx_signal_op(&sig->sig_x[p], v, sig_op, to);
        for (int d = 0; d < 3; d++)
            nvshmem_putmem_nbi(x[d] + m->remote_offset, m->xstage + d * (int64_t)m->send_size,
                               bytes, to);
        nvshmem_quiet();
        return;
    }
    /* Three component ranges, one signal: fence orders the first two puts before the
     * put-with-signal, whose signal then covers all three. */
    nvshmem_putmem_nbi(x[0] + m->remote_offset, m->xstage, bytes, to);
    nvshmem_putmem_nbi(x[1] + m->remote_offset, m->xstage + m->send_size, bytes, to);
    if (!shmemu_bug(SHMEMU_BUG_X_FENCE_MISSING))
        nvshmem_fence();
    nvshmem_putmem_signal_nbi(x[2] + m->remote_offset, m->xstage + 2 * (int64_t)m->send_size,
                              bytes, &sig->sig_x[p], v, sig_op, to);
    if (!shmemu_bug(SHMEMU_BUG_X_QUIET_MISSING))
        nvshmem_quiet(); /* the staging buffer is reusable (next step) once this returns */
}

/* Our halo slots of pulse p hold their final forces: give them to recv_rank (the owner).
 * Direct: the owner reads them from our memory (a get, as paper 000 does with tma_ld), so
 * we only publish with a system-scope release store. (Paper 000 uses a relaxed store for
 * the first force pulse, whose data was written by an earlier kernel; here the forces
 * were written by the non-local kernel and the unpacks of later pulses, and the release is
 * what carries them to the owner's acquire: a relaxed store would leave them racing for
 * helgrind, DRD and TSan, which see no kernel-boundary flush across PEs.) Put path: our
 * slots go into the owner's fbuf with the signal. */
DEVICE void md_notify_f(const md_dpulse *m, int64_t *const f[3], md_dsig *sig, int p,
                        uint64_t seq, int sig_op, int direct)
{
    if (direct) {
        if (shmemu_bug(SHMEMU_BUG_F_NOTIFY_RELAXED))
            st_relaxed(m->owner_sig_f, seq, SCOPE_SYS);
        else
            st_release(m->owner_sig_f, seq, SCOPE_SYS);
        return;
    }
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

/* Adds one returned force v to dst[i] as md_unpack_f does (with its plants, so that they
 * act on the bulk-copy path too). */
DEVICE void md_add_returned_f(int64_t *dst, int32_t i, int64_t src)
{
    const int64_t v = shmemu_bug(SHMEMU_BUG_F_UNPACK_NEGATED) ? -src : src;
    if (v != 0 && shmemu_bug(SHMEMU_BUG_F_UNPACK_PLAIN_ADD))
        dst[i] += v;
    else if (v != 0)
        atom_add(&dst[i], v, SCOPE_GPU, ORDER_RELAXED);
}

/* md_unpack_f with bulk copies (direct path; all threads of the block call it with the same
 * range, after the acquire of the owner's signal by thread 0 and a block barrier). Per
 * component and chunk: thread 0 arms the mbarrier with the chunk's bytes and copies the
 * chunk of the peer's halo forces into shared memory (tma_ld); every thread waits for that
 * phase, adds its entries with md_unpack_f's integer atomics, and a block barrier frees
 * the buffer for the next chunk. */
DEVICE void md_unpack_f_bulk(const md_dpulse *m, int64_t *const f[3], int32_t lo, int32_t hi)
{
    SHARED_ARRAY(int64_t, md_fsmem, MD_BULK_SMEM);
    SHARED_ARRAY(uint64_t, md_fbar, 1);
    const int32_t t = (int32_t)threadIdx.x, nt = (int32_t)blockDim.x;
    if (t == 0) {
        mbar_init(md_fbar, 1);
        fence_proxy_async();          /* the initialized mbarrier, for the copy engine */
        md_fence_proxy_async_global(); /* the acquired forces (generic), for the copies */
    }
    __syncthreads();
    unsigned phase = 0;
    for (int d = 0; d < 3; d++) {
        const int64_t *src = m->peer_f[d];
        int64_t *dst = f[d];
        int32_t a, e;
        md_bulk_run(src, lo, hi, &a, &e);
        for (int32_t s = lo + t; s < a; s += nt)
            md_add_returned_f(dst, m->index_map[s], src[s]);
        for (int32_t s = e + t; s < hi; s += nt)
            md_add_returned_f(dst, m->index_map[s], src[s]);
        for (int32_t c0 = a; c0 < e; c0 += m->bulk_chunk) {
            const int32_t c1 = e - c0 < m->bulk_chunk ? e : c0 + m->bulk_chunk;
            if (t == 0) {
                const unsigned bytes = (unsigned)(c1 - c0) * (unsigned)sizeof(int64_t);
                (void)mbar_arrive_expect_tx(md_fbar, bytes);
                tma_ld(md_fsmem, src + c0, bytes, md_fbar);
            }
            mbar_wait_parity(md_fbar, phase & 1u);
            phase++;
            for (int32_t s = c0 + t; s < c1; s += nt)
                md_add_returned_f(dst, m->index_map[s], SH_LD(md_fsmem, s - c0));
            __syncthreads(); /* every thread has read the buffer: the next copy may fill it */
        }
    }
    if (t == 0)
        mbar_inval(md_fbar);
}

/* Adds the returned forces of index_map entries [lo, hi) (threads stride). Integer atomics:
 * pulses unpack concurrently into shared atoms, and any order gives the same bits. */
DEVICE void md_unpack_f(const md_dpulse *m, int64_t *const f[3], int32_t lo, int32_t hi)
{
    if (m->bulk_chunk > 0) {
        md_unpack_f_bulk(m, f, lo, hi);
        return;
    }
    for (int d = 0; d < 3; d++) {
        const int64_t *src = m->peer_f[0] ? m->peer_f[d] : m->fbuf + (int64_t)d * m->send_size;
        int64_t *dst = f[d];
        for (int32_t s = lo + (int32_t)threadIdx.x; s < hi; s += (int32_t)blockDim.x) {
            const int64_t v = shmemu_bug(SHMEMU_BUG_F_UNPACK_NEGATED) ? -src[s] : src[s];
            if (v != 0 && shmemu_bug(SHMEMU_BUG_F_UNPACK_PLAIN_ADD))
                dst[m->index_map[s]] += v;
            else if (v != 0)
                atom_add(&dst[m->index_map[s]], v, SCOPE_GPU, ORDER_RELAXED);
        }
    }
}

/* Last-block election (Alg. 5 lines 2-4): every block of the pulse increments with
 * acq_rel (release: its writes; acquire: the earlier blocks' writes, for the last one);
 * true in the block that completes the count. Call from one thread after a block barrier. */
DEVICE int md_elect_last(uint64_t *counter, int nblocks)
{
    const uint64_t old = shmemu_bug(SHMEMU_BUG_ELECT_RELAXED)
                             ? atom_add(counter, (uint64_t)1, SCOPE_GPU, ORDER_RELAXED)
                             : atom_add(counter, (uint64_t)1, SCOPE_GPU, ORDER_ACQ_REL);
    return (old + 1) % (uint64_t)nblocks == 0;
}

#endif
