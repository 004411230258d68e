/*
 * kernels/xport_bulk.h: the direct transport with bulk copies (MD_XPORT_BULK, --bulk-copy;
 * halo_dev.h dispatches here; paper 000 §5.2: TMA stores and loads on NVLink). The peer is
 * reached through nvshmem_ptr as in xport_direct.h, and the signals are that file's (a
 * system-scope release store each way); only the data moves differently: the block gathers
 * its coordinate entries into shared memory and one thread copies them into the peer with
 * tma_st, and the owner reads its returned forces with tma_ld into shared memory, in chunks
 * of md_dpulse.bulk_chunk elements (even, <= MD_BULK_SMEM). Included by halo_dev.h only,
 * after xport_direct.h.
 */
#ifndef MD_KERNELS_XPORT_BULK_H
#define MD_KERNELS_XPORT_BULK_H

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

/* Sends coordinates with bulk copies (all threads of the block call it with the same
 * range). Per component and chunk of at most bulk_chunk entries: the threads gather the
 * entries, with the shift, into shared memory (the values md_pack_x stores), fence it for
 * the copy engine, block barrier; thread 0 copies the chunk into the peer's halo slots
 * (tma_st: the copy, then the wait for its bulk group, then its mbarrier phase) and the
 * block barrier after it frees the buffer. When this returns, thread 0 has seen every copy
 * complete: the election and the signal's release store that follow publish them. */
DEVICE void md_bulk_pack_x(const md_dpulse *m, int64_t *const x[3], int32_t lo, int32_t hi)
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
        md_pack_range(m, out, xs, sh, lo, a); /* the unaligned head and odd tail */
        md_pack_range(m, out, xs, sh, e, hi);
        for (int32_t c0 = a; c0 < e; c0 += m->bulk_chunk) {
            const int32_t c1 = e - c0 < m->bulk_chunk ? e : c0 + m->bulk_chunk;
            for (int32_t s = c0 + t; s < c1; s += nt)
                SH_ST(md_xsmem, s - c0, xs[m->index_map[s]] + sh);
            fence_proxy_async(); /* this thread's shared stores, before the copy engine reads */
            md_block_gathered();
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

/* Adds returned forces with bulk copies (all threads of the block call it with the same
 * range, after the acquire of the owner's signal by thread 0 and a block barrier). Per
 * component and chunk: thread 0 arms the mbarrier with the chunk's bytes and copies the
 * chunk of the peer's halo forces into shared memory (tma_ld); every thread waits for that
 * phase, adds its entries with md_unpack_f's integer atomics, and a block barrier frees
 * the buffer for the next chunk. */
DEVICE void md_bulk_unpack_f(const md_dpulse *m, int64_t *const f[3], int32_t lo, int32_t hi)
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
        md_add_returned_range(m, dst, src, lo, a); /* the unaligned head and odd tail */
        md_add_returned_range(m, dst, src, e, hi);
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

/* The signals are the direct path's. */
DEVICE void md_bulk_notify_x(const md_dpulse *m, int64_t *const x[3], md_dsig *sig, int p,
                             uint64_t seq, int sig_op)
{
    md_direct_notify_x(m, x, sig, p, seq, sig_op);
}

DEVICE void md_bulk_return_f(const md_dpulse *m, int64_t *const f[3], md_dsig *sig, int p,
                             uint64_t seq, int sig_op)
{
    md_direct_return_f(m, f, sig, p, seq, sig_op);
}

#endif
