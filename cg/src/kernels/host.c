/*
 * kernels/host.c: cg-host's kernels (kernels/host.h), one per operation of paper 002's
 * Listing 2. Grid-stride loops, so any grid gives the same bits: each row's SpMV sum is
 * cg_spmv's expression, each update cg_solve_serial's, and each dot product exact (every
 * thread packs its cg_xsum; the slots, then the PEs' partials, are summed as integer words).
 */
#include "kernels/host.h"
#include "kernels/slots.h"

DEVICE int64_t cgh_gtid(void)
{
    return (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
}

DEVICE int64_t cgh_gsize(void)
{
    return (int64_t)gridDim.x * blockDim.x;
}

CG_KERNEL(cgh_spmv, cg_host_args, a)
{
    if (a.st->done)
        return;
    for (int64_t i = a.lo + cgh_gtid(); i < a.hi; i += cgh_gsize()) {
        double sum = 0.0;
        for (int64_t k = a.rowptr[i]; k < a.rowptr[i + 1]; k++)
            sum += a.val[k] * a.s[a.col[k]];
        a.t[i] = sum;
    }
}

CG_KERNEL(cgh_init, cg_host_args, a)
{
    for (int64_t i = cgh_gtid(); i < a.n_owned; i += cgh_gsize()) {
        a.r[i] = a.b[i] - a.t[i];
        a.s[i] = a.r[i];
    }
}

CG_KERNEL(cgh_pack, cg_host_args, a)
{
    for (int64_t j = cgh_gtid(); j < a.send_total; j += cgh_gsize())
        a.sendbuf[j] = a.s[a.send_idx[j]];
}

CG_KERNEL(cgh_dot, cg_host_args, a)
{
    if (a.st->done)
        return;
    cg_xsum acc;
    cg_xsum_init(&acc);
    for (int64_t i = cgh_gtid(); i < a.n_owned; i += cgh_gsize())
        cg_xsum_add_product(&acc, a.u[i], a.v[i]);
    cg_xsum_pack(&acc, a.slots + cgh_gtid() * CG_XSUM_WORDS);
    cg_block_slots_sum(a.slots, CG_XSUM_WORDS); /* cgh_slots_sum reads the blocks' sums */
}

CG_KERNEL(cgh_slots_sum, cg_host_args, a)
{
    if (a.st->done)
        return;
    for (int64_t w = cgh_gtid(); w < CG_XSUM_WORDS; w += cgh_gsize()) {
        long long sum = 0;
        for (int64_t j = 0; j < a.nslots; j += a.block_threads)
            sum += a.slots[j * CG_XSUM_WORDS + w];
        a.partial[w] = sum;
    }
}

CG_KERNEL(cgh_scalar, cg_host_args, a)
{
    if (a.st->done || cgh_gtid() != 0)
        return;
    cg_host_step(a.st, a.which, cg_slots_round(a.total), a.tol, a.history);
}

CG_KERNEL(cgh_update, cg_host_args, a)
{
    if (a.st->done)
        return;
    const double alpha = a.st->alpha;
    for (int64_t i = cgh_gtid(); i < a.n_owned; i += cgh_gsize()) {
        a.x[i] = alpha * a.s[i] + a.x[i];
        a.r[i] = -alpha * a.t[i] + a.r[i];
    }
}

CG_KERNEL(cgh_direction, cg_host_args, a)
{
    if (a.st->done)
        return;
    const double beta = a.st->beta;
    for (int64_t i = cgh_gtid(); i < a.n_owned; i += cgh_gsize())
        a.s[i] = beta * a.s[i] + a.r[i];
}
