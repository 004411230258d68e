/*
 * cg/xsum.h: reproducible dot products and norms: an exact long accumulator, rounded once.
 *
 * Why (docs/cg.md, "Exactness"; docs/design.md D3): a floating-point sum depends on the order
 * and grouping of its terms, so a dot product computed over 1 PE and over 8, or by a CPU
 * loop and by GPU blocks, gives different bits. Here every term is added EXACTLY into a
 * fixed-point integer that covers the whole range of a product of two doubles; only the
 * final value is rounded, once, to the nearest double (ties to even). The exact sum does
 * not depend on the order, so neither does its rounding: the result is the correctly
 * rounded value of the exact dot product, whatever the partition, order or hardware.
 *
 * Format. The accumulator is a signed integer S (the sum is S * 2^CG_XSUM_LSB) held in
 * CG_XSUM_LIMBS int64 limbs of CG_XSUM_DIGIT_BITS (32) bits each, least significant first:
 *     S = sum_k limb[k] * 2^(32 k).
 * A product a*b of doubles is m_a*m_b * 2^(e_a+e_b) with integer mantissas m < 2^53 and
 * exponents e >= -1074 (subnormals included): its exact value is an integer multiple of
 * 2^-2148 below 2^2048. CG_XSUM_LSB = -2176 (a multiple of 32 below -2148) and 134 limbs
 * reach 2^2112: 64 bits of room above the largest product for carries of sums of up to
 * 2^63 terms. No product is ever rounded: m_a*m_b is formed as four 26/27-bit partial
 * products in 64-bit integers (no FMA, no __int128), each added as 32-bit digits.
 *
 * Normal form: limb[k] in [0, 2^32) for k < top, the top limb signed (two's complement
 * sign of S). Between normalizations a limb may hold any int64: each add puts at most 2^35
 * into a limb, and the accumulator normalizes itself (carry propagation) every
 * CG_XSUM_PENDING_MAX adds, so no limb can overflow.
 *
 * Mergeable: two accumulators add limb by limb (cg_xsum_merge), exactly. The serialized form
 * (cg_xsum_pack) is a fixed array of CG_XSUM_WORDS int64 in normal form; such arrays from up
 * to 2^30 parts may simply be summed element by element with int64 adds (e.g. an
 * nvshmem_longlong_sum_reduce of CG_XSUM_WORDS elements, or atomics on a GPU) and unpacked:
 * the result is the exact sum of all parts. Non-finite terms are counted (NaN, +inf, -inf
 * words, summable too): a sum with a NaN, or with both infinities, is NaN; with one kind of
 * infinity, that infinity.
 */
#ifndef CG_XSUM_H
#define CG_XSUM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Host and device code: under nvcc (the CUDA build, cg/cuda.mk) every function here is
 * __host__ __device__ (the kernels accumulate per thread with the same integer code that
 * the CPU runs); empty in the C build. */
#if defined(__CUDACC__)
#define CG_HD __host__ __device__
#else
#define CG_HD
#endif

#define CG_XSUM_DIGIT_BITS 32
#define CG_XSUM_LSB (-2176)     /* weight of bit 0 of limb 0: 2^-2176 */
#define CG_XSUM_LIMBS 134       /* 134 * 32 = 4288 bits: 2^-2176 .. 2^2112 */
#define CG_XSUM_WORDS (CG_XSUM_LIMBS + 3) /* serialized: limbs, then NaN, +inf, -inf counts */
#define CG_XSUM_PENDING_MAX (1 << 20) /* adds between normalizations (limit: 2^27) */

typedef struct cg_xsum {
    int64_t limb[CG_XSUM_LIMBS]; /* S = sum limb[k] 2^(32k); value = S * 2^CG_XSUM_LSB */
    int64_t nan, pinf, ninf;     /* counts of non-finite terms (NaN also for inf * 0) */
    int32_t pending;             /* adds since the last normalization */
} cg_xsum;

/* An empty (zero) accumulator. */
CG_HD void cg_xsum_init(cg_xsum *s);
/* s += x, exactly. */
CG_HD void cg_xsum_add(cg_xsum *s, double x);
/* s += a * b, exactly (the product is not rounded). */
CG_HD void cg_xsum_add_product(cg_xsum *s, double a, double b);
/* s += t, exactly (t unchanged). */
CG_HD void cg_xsum_merge(cg_xsum *s, const cg_xsum *t);
/* The exact sum rounded to the nearest double, ties to even (overflow gives +-inf; an
 * exact zero gives +0.0). s is normalized in place but its value is unchanged. */
CG_HD double cg_xsum_round(cg_xsum *s);
/* The square root of the exact sum: sqrt of the exact sum scaled by an even power of two
 * 2^-2k into [1, 4), rounded once, times 2^k. Equal to sqrt(cg_xsum_round(s)) whenever that
 * rounding neither overflows nor underflows, and finite beyond (sums of squares above
 * DBL_MAX). NaN for a negative sum. */
CG_HD double cg_xsum_sqrt(cg_xsum *s);

/* Fixed-size serialized form, normalized: out[CG_XSUM_WORDS]. Arrays of packed parts may be
 * summed element-wise with int64 adds (up to 2^30 of them) and unpacked: the exact total. */
CG_HD void cg_xsum_pack(cg_xsum *s, int64_t out[CG_XSUM_WORDS]);
CG_HD void cg_xsum_unpack(cg_xsum *s, const int64_t in[CG_XSUM_WORDS]);

/* Reproducible reductions over vectors (exact, rounded once): sum_i x[i] * y[i], and the
 * 2-norm cg_xsum_sqrt of sum_i x[i]^2: the same bits wherever they are computed. */
CG_HD double cg_dot(const double *x, const double *y, size_t n);
CG_HD double cg_norm2(const double *x, size_t n);
/* The same, accumulated into s (for partial sums that are merged later). */
CG_HD void cg_xsum_add_dot(cg_xsum *s, const double *x, const double *y, size_t n);

#ifdef __cplusplus
}
#endif

#endif
