/*
 * fixed.h: conversions between double and the fixed-point formats of shmemu/md.h.
 *
 * One rounding rule everywhere: round to nearest, ties to even (the IEEE default mode,
 * which shmemu never changes). On x86-64 that is one cvtsd2si (the MXCSR default), under
 * CUDA __double2ll_rn, elsewhere llrint; all three give the same integer for every double
 * in range. Out of range (|x| >= 2^63) or NaN is the caller's business: the force kernel
 * refuses pairs closer than MD_R_MIN first, so it never gets there.
 *
 * Positions convert to double exactly: a position is an integer below 2^53 (the box is
 * limited to 2^19 σ), and multiplying by 2^-32 only changes the exponent. The difference of
 * two such doubles closer than 2^20 σ is exact too, so a kernel that subtracts converted
 * positions sees exactly the integer displacement, on every PE and every path.
 */
#ifndef MD_FIXED_H
#define MD_FIXED_H

#include <float.h>
#include <math.h>
#include <stdint.h>

#include "shmemu/md.h"

#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#error "md needs double arithmetic evaluated in double (FLT_EVAL_METHOD 0): use SSE2, not x87"
#endif

#if defined(__CUDACC__)
#define MD_HD __host__ __device__
#else
#define MD_HD
#endif

#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
#include <emmintrin.h>
#endif

/* round(x) to nearest, ties to even, as int64. */
MD_HD static inline int64_t md_round_i64(double x)
{
#if defined(__CUDA_ARCH__)
    return __double2ll_rn(x);
#elif defined(__x86_64__)
    return _mm_cvtsd_si64(_mm_set_sd(x));
#else
    return (int64_t)llrint(x);
#endif
}

/* Fixed point -> double. Exact for positions (see above). */
MD_HD static inline double md_pos_to_double(int64_t x) { return (double)x * MD_POS_UNIT; }

/* σ -> position units, rounded to nearest even. */
MD_HD static inline int64_t md_pos_from_double(double x) { return md_round_i64(x * MD_POS_SCALE); }

MD_HD static inline double md_force_to_double(int64_t f) { return (double)f / MD_FORCE_SCALE; }
MD_HD static inline double md_energy_to_double(int64_t e) { return (double)e / MD_ENERGY_SCALE; }

/* The largest momentum component the state accepts, in momentum units, from a data file,
 * a lattice start or a checkpoint: (double)p, which the drift and the dump use, is exact
 * up to 2^52, and p + f of a half kick stays far from int64's end. (A data file may be held
 * tighter still, by the exact kinetic sum over its atoms: lammps_data.c.) */
#define MD_MOMENTUM_MAX (INT64_C(1) << 52)

/* Momentum unit (m σ/τ per unit) for a time step: dt/2 · 2^-32. */
static inline double md_momentum_unit(double dt) { return 0.5 * dt / MD_FORCE_SCALE; }

/* Floor division and the periodic wrap of a position into [0, len). */
static inline int64_t md_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t md_wrap(int64_t x, int64_t len)
{
    int64_t r = x % len;
    return r < 0 ? r + len : r;
}
/* The box lengths the wrap of x moves it by: md_wrap(x, len) = x - md_wrap_count * len. A
 * wrap of a home atom adds this to its image flag, so x + img·len stays the same. */
static inline int64_t md_wrap_count(int64_t x, int64_t len) { return md_floor_div(x, len); }

#endif
