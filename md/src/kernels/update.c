/*
 * kernels/update.c: the Integration kernel of paper 000's Alg. 2 (docs/papers.md; velocity Verlet,
 * exact momentum): p += f (half kick; f = local + non-local forces, an integer add), and at the
 * start of a step also x += round(p · dt²/2m), the step's one rounding. Home atoms only: each
 * block a contiguous chunk, its threads striding over it (atoms are independent: any geometry gives
 * the same bits).
 */
#include "halo_dev.h"

KERNEL(md_update, md_update_args, a)
{
    md_tstamp_begin(a.ts);
    int32_t lo, hi;
    md_split(a.n_home, (int)blockIdx.x, (int)gridDim.x, &lo, &hi);
    const int32_t t0 = (int32_t)threadIdx.x, nt = (int32_t)blockDim.x;
    for (int d = 0; d < 3; d++) {
        int64_t *p = a.p[d];
        int64_t *x = a.x[d];
        const int64_t *fl = a.floc[d], *fn = a.fnl[d];
        for (int32_t i = lo + t0; i < hi; i += nt) {
            p[i] += fl[i] + fn[i];
            if (a.drift_too)
                x[i] += md_round_i64((double)p[i] * a.drift[a.type[i]]);
        }
    }
    md_tstamp_end(a.ts);
}
