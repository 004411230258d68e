/*
 * lj.c: the parameters of the LJ interaction (cut-offs and the energy shift).
 */
#include "lj.h"

void md_lj_init(md_lj *lj, double rc, double skin, bool shift)
{
    lj->rc = rc;
    lj->rc2 = rc * rc;
    lj->rlist = rc + skin;
    lj->rlist2 = lj->rlist * lj->rlist;
    double energy = 0.0;
    if (shift)
        (void)md_lj_pair(lj->rc2, 0.0, &energy);
    lj->shift = energy;
}
