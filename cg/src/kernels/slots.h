/*
 * kernels/slots.h: the first stage of every exact reduction (cg-mono, pcg-mono, cg-host).
 *
 * Each thread of the grid packs its exact accumulator(s) (cg/xsum.h: `words` int64 words) into
 * its slot, slots + (global thread) * words. Summing those slots word by word gives the
 * grid's exact total (int64 adds of packed accumulators are exact for up to 2^30 parts).
 * Left to one block, that is gridDim * blockDim * words loads by one block: on an H100 with
 * 64 blocks of 256 threads, about 1 ms per reduction, most of an iteration. So each block
 * first sums its own threads' slots into its first slot (cg_block_slots_sum), and the last
 * stage reads one slot per block (cg_slots_stride: blockDim slots apart). The exact total,
 * and so the rounded result, is the same whatever the grouping.
 */
#ifndef CG_KERNELS_SLOTS_H
#define CG_KERNELS_SLOTS_H

#include <stdint.h>

#include "cg/par.h"
#include "cg/xsum.h"
#include "shmemu/kernel.h"

/* Every cg kernel is declared CG_KERNEL: launchable with blocks of up to CG_PAR_MAX_THREADS
 * (1024, --threads' limit) threads on a GPU. Without the bound nvcc gives the kernels that
 * hold an exact accumulator more registers per thread than a 1024-thread block can have,
 * and such launches fail ("too many resources requested", H100, 2026-11-27). */
#define CG_KERNEL(name, T, arg) KERNEL_BOUNDED(name, T, arg, CG_PAR_MAX_THREADS)

/* Every thread of the block, after each has packed its slot: a block barrier, then thread w
 * adds word w of the block's slots into the block's first slot (each word is read and written
 * by one thread only). The caller's next grid-wide barrier publishes the block sums. */
DEVICE void cg_block_slots_sum(int64_t *slots, int words)
{
    __syncthreads();
    int64_t *const first = slots + (int64_t)blockIdx.x * blockDim.x * words;
    for (int w = (int)threadIdx.x; w < words; w += (int)blockDim.x) {
        int64_t sum = first[w];
        for (int t = 1; t < (int)blockDim.x; t++)
            sum += first[(int64_t)t * words + w];
        first[w] = sum;
    }
}

/* The last stage (one thread): a reduced packed accumulator (CG_XSUM_WORDS words, summed
 * over all PEs by the collective) unpacked and rounded once: the correctly rounded exact sum. */
DEVICE double cg_slots_round(const long long *total)
{
    int64_t words[CG_XSUM_WORDS];
    for (int w = 0; w < CG_XSUM_WORDS; w++)
        words[w] = total[w];
    cg_xsum s;
    cg_xsum_unpack(&s, words);
    return cg_xsum_round(&s);
}

#endif
