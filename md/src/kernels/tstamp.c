/*
 * kernels/tstamp.c: empties the step's timestamp table (tstamp.h) in stream order, so that
 * the reset is ordered before the step's kernels on every stream the way their data is
 * (a host memset would not be, and the emulator has no cudaMemsetAsync).
 */
#include "tstamp.h"

KERNEL(md_tstamp_reset, md_tstamp_args, a)
{
    const int stride = (int)(gridDim.x * blockDim.x);
    for (int k = (int)(blockIdx.x * blockDim.x + threadIdx.x); k < a.n; k += stride) {
        a.slots[k].start = UINT64_MAX;
        a.slots[k].end = 0;
    }
    if (a.log != NULL && blockIdx.x == 0 && threadIdx.x == 0)
        (void)atom_exch(&a.log->n, 0ULL, SCOPE_GPU, ORDER_RELAXED);
}
