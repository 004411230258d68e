/*
 * kernels/update.c: the Integration kernel of Alg. 2 (velocity Verlet, exact momentum):
 * p += f (half kick; f = local + non-local forces, an integer add), and at the start of a
 * step also x += round(p · dt²/2m), the step's one rounding. Home atoms only, G blocks of
 * one thread, each a contiguous chunk.
 */
#include "halo_dev.h"

KERNEL(md_update, md_update_args, a)
{
    int32_t lo, hi;
    md_split(a.n_home, (int)blockIdx.x, (int)gridDim.x, &lo, &hi);
    for (int d = 0; d < 3; d++) {
        int64_t *p = a.p[d];
        int64_t *x = a.x[d];
        const int64_t *fl = a.floc[d], *fn = a.fnl[d];
        for (int32_t i = lo; i < hi; i++) {
            p[i] += fl[i] + fn[i];
            if (a.drift_too)
                x[i] += md_round_i64((double)p[i] * a.drift[a.type[i]]);
        }
    }
}
