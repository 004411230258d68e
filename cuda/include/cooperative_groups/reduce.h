/*
 * cooperative_groups/reduce.h: cg::reduce over a tile (a butterfly of shuffles: every rank
 * gets the result) or a coalesced group (combined in rank order), with CUDA's operators:
 * plus, less (minimum), greater (maximum), bit_and, bit_or, bit_xor.
 */
#ifndef SHMEMU_CUDA_CG_REDUCE_H
#define SHMEMU_CUDA_CG_REDUCE_H

#include "cuda_runtime.h"
#include "shmemu_cuda/cg.h"

namespace cooperative_groups {

template <class T> struct plus {
    T operator()(const T &a, const T &b) const { return a + b; }
};
template <class T> struct less {
    T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
template <class T> struct greater {
    T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
    T operator()(const T &a, const T &b) const { return a & b; }
};
template <class T> struct bit_or {
    T operator()(const T &a, const T &b) const { return a | b; }
};
template <class T> struct bit_xor {
    T operator()(const T &a, const T &b) const { return a ^ b; }
};

template <unsigned int Size, class P, class T, class Op>
inline T reduce(const thread_block_tile<Size, P> &g, T value, Op op)
{
    for (unsigned offset = Size / 2; offset > 0; offset /= 2)
        value = op(value, g.shfl_xor(value, offset));
    return value;
}

template <class T, class Op> inline T reduce(const coalesced_group &g, T value, Op op)
{
    T acc = g.shfl(value, 0);
    for (unsigned r = 1; r < g.size(); r++)
        acc = op(acc, g.shfl(value, r));
    return acc;
}

} // namespace cooperative_groups

#endif
