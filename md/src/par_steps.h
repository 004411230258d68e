/*
 * par_steps.h: the steps of the parallel driver that order its streams and number its
 * exchanges, one function each, and the planted mistakes of each (md_bugs.h), as
 * kernels/halo_steps.h does for the kernels: par.c and par_setup.c read as the algorithm
 * (paper 000 Alg. 2, the pulse table), the plants live here.
 *
 *     if (md_bug(MD_BUG_X)) ...the mistake...; else ...the step...
 *
 * Under nvcc md_bug() is the constant false: each step compiles to its correct code alone.
 */
#ifndef MD_PAR_STEPS_H
#define MD_PAR_STEPS_H

#include "cuda_check.h"
#include "md_bugs.h"
#include "par_int.h"

/* ---- a step's streams (par.c forces) ----------------------------------------------------- */

/* The non-local stream starts after the update (the positions it reads and the halo it
 * sends are the updated ones). */
static inline void md_nonlocal_after_update(md_par_pe *c)
{
    if (md_bug(MD_BUG_NONLOCAL_NO_WAIT_UPDATE))
        return;
    MD_CUDA(cudaStreamWaitEvent(c->s_nl, c->ev_upd, 0));
}

/* The stream of the force halo: the non-local one, after the non-local force kernel that
 * fills the forces it sends. */
static inline cudaStream_t md_force_halo_stream(const md_par_pe *c)
{
    return md_bug(MD_BUG_F_SENT_BEFORE_NONLOCAL) ? c->s_loc : c->s_nl;
}

/* The update waits for the non-local stream (its forces and the returned halo forces). */
static inline void md_update_after_nonlocal(md_par_pe *c)
{
    if (md_bug(MD_BUG_UPDATE_NO_WAIT_NONLOCAL))
        return;
    MD_CUDA(cudaStreamWaitEvent(c->s_upd, c->ev_nl, 0));
}

/* ---- exchange numbers (par.c) ------------------------------------------------------------ */

/* Whether every coordinate exchange takes a new sequence number (the waits compare with it);
 * false only under the plant that freezes it. */
static inline bool md_x_seq_advances(void) { return !md_bug(MD_BUG_X_SEQ_NOT_INCREMENTED); }

/* ---- the device pulse table (par_setup.c) ------------------------------------------------ */

/* How many leading index-map entries a pulse packs at once: the home atoms, before the
 * wait for the earlier pulses that bring the rest. */
static inline int32_t md_pulse_n_indep(int32_t n_indep, int32_t send_size)
{
    if (md_bug(MD_BUG_X_DEP_OFFSET_OFF_BY_ONE) && n_indep < send_size)
        return n_indep + 1;
    return n_indep;
}

/* The integer a pulse adds to a coordinate along a dimension (+L across the periodic edge). */
static inline int64_t md_pulse_shift(int64_t coord_shift)
{
    return md_bug(MD_BUG_COORD_SHIFT_SIGN) ? -coord_shift : coord_shift;
}

#endif
