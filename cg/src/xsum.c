/*
 * xsum.c: the exact long accumulator of cg/xsum.h (format, ranges and normal form there).
 *
 * Every operation on the limbs is an integer add, subtract or shift: nothing is rounded
 * until cg_xsum_round, which reads the top 53 bits, the round bit and a sticky bit and
 * rounds to nearest, ties to even, once. A double is split into its integer mantissa and
 * exponent from its bits (no frexp, no FMA), so the same code gives the same integer on
 * any IEEE machine, a GPU included. Every function is host and device code (CG_HD, xsum.h):
 * the CUDA build (cg/cuda.mk) compiles this file with nvcc for both.
 */
#include "cg/xsum.h"

#include <math.h>
#include <string.h>

#define DIGIT_MASK 0xffffffffull

/* x = m * 2^e exactly, m < 2^53 (m = 0 for zeros). Returns 0, or 1 for NaN, 2 for +inf,
 * 3 for -inf. */
CG_HD static int split_double(double x, uint64_t *m, int *e, int *neg)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    unsigned expf = (unsigned)(bits >> 52) & 0x7ffu;
    uint64_t frac = bits & ((1ull << 52) - 1);
    *neg = (int)(bits >> 63);
    *m = 0;
    *e = 0;
    if (expf == 0x7ffu)
        return frac ? 1 : (*neg ? 3 : 2);
    if (expf == 0) {
        *m = frac;
        *e = -1074;
    } else {
        *m = frac | (1ull << 52);
        *e = (int)expf - 1075;
    }
    return 0;
}

CG_HD static void count_nonfinite(cg_xsum *s, int kind)
{
    if (kind == 1)
        s->nan++;
    else if (kind == 2)
        s->pinf++;
    else
        s->ninf++;
}

/* Carry propagation: every limb but the top one into [0, 2^32); the value is unchanged. */
CG_HD static void normalize(cg_xsum *s)
{
    int64_t carry = 0;
    for (int k = 0; k < CG_XSUM_LIMBS - 1; k++) {
        int64_t v = s->limb[k] + carry;
        int64_t low = (int64_t)((uint64_t)v & DIGIT_MASK);
        s->limb[k] = low;
        carry = (v - low) / ((int64_t)1 << CG_XSUM_DIGIT_BITS); /* exact: a multiple */
    }
    s->limb[CG_XSUM_LIMBS - 1] += carry;
    s->pending = 0;
}

CG_HD static void count_add(cg_xsum *s)
{
    if (++s->pending >= CG_XSUM_PENDING_MAX)
        normalize(s);
}

/* S += sign * v * 2^pos, v < 2^54, pos >= 0 and pos + 86 below the top limb's end: at most
 * 2^33 added to any limb. */
CG_HD static void add_u64_at(cg_xsum *s, int neg, uint64_t v, int pos)
{
    int k = pos / CG_XSUM_DIGIT_BITS, r = pos % CG_XSUM_DIGIT_BITS;
    uint64_t lo = (v & DIGIT_MASK) << r; /* < 2^63 */
    uint64_t hi = (v >> 32) << r;        /* < 2^54 */
    int64_t d0 = (int64_t)(lo & DIGIT_MASK);
    int64_t d1 = (int64_t)(lo >> 32) + (int64_t)(hi & DIGIT_MASK);
    int64_t d2 = (int64_t)(hi >> 32);
    if (neg) {
        s->limb[k] -= d0;
        s->limb[k + 1] -= d1;
        s->limb[k + 2] -= d2;
    } else {
        s->limb[k] += d0;
        s->limb[k + 1] += d1;
        s->limb[k + 2] += d2;
    }
}

CG_HD void cg_xsum_init(cg_xsum *s)
{
    memset(s, 0, sizeof *s);
}

CG_HD void cg_xsum_add(cg_xsum *s, double x)
{
    uint64_t m;
    int e, neg;
    int kind = split_double(x, &m, &e, &neg);
    if (kind) {
        count_nonfinite(s, kind);
        return;
    }
    if (m == 0)
        return;
    add_u64_at(s, neg, m, e - CG_XSUM_LSB);
    count_add(s);
}

CG_HD void cg_xsum_add_product(cg_xsum *s, double a, double b)
{
    uint64_t ma, mb;
    int ea, eb, na, nb;
    int ka = split_double(a, &ma, &ea, &na);
    int kb = split_double(b, &mb, &eb, &nb);
    if (ka || kb) {
        /* IEEE: NaN if either is NaN or inf * 0; else an infinity of the product's sign. */
        int zero_a = !ka && ma == 0, zero_b = !kb && mb == 0;
        if (ka == 1 || kb == 1 || zero_a || zero_b)
            count_nonfinite(s, 1);
        else
            count_nonfinite(s, (na ^ nb) ? 3 : 2);
        return;
    }
    if (ma == 0 || mb == 0)
        return;
    /* m = h 2^26 + l with l < 2^26, h < 2^27: four partial products below 2^54. */
    uint64_t ah = ma >> 26, al = ma & ((1ull << 26) - 1);
    uint64_t bh = mb >> 26, bl = mb & ((1ull << 26) - 1);
    int neg = na ^ nb;
    int pos = ea + eb - CG_XSUM_LSB; /* >= 2 * -1074 + 2176 = 28 */
    add_u64_at(s, neg, al * bl, pos);
    add_u64_at(s, neg, ah * bl + al * bh, pos + 26); /* < 2^54 */
    add_u64_at(s, neg, ah * bh, pos + 52);
    count_add(s);
}

CG_HD void cg_xsum_merge(cg_xsum *s, const cg_xsum *t)
{
    cg_xsum u = *t;
    normalize(&u);
    normalize(s);
    for (int k = 0; k < CG_XSUM_LIMBS; k++)
        s->limb[k] += u.limb[k];
    s->nan += u.nan;
    s->pinf += u.pinf;
    s->ninf += u.ninf;
    normalize(s);
}

/* Bit b of the non-negative normalized magnitude held in digits d: 32 bits a limb, the top
 * limb read as a whole (63 bits). */
CG_HD static int bit_at(const int64_t *d, int b)
{
    int k = b / CG_XSUM_DIGIT_BITS;
    if (k > CG_XSUM_LIMBS - 1)
        k = CG_XSUM_LIMBS - 1;
    return (int)(((uint64_t)d[k] >> (b - k * CG_XSUM_DIGIT_BITS)) & 1u);
}

/* Any bit below b set? */
CG_HD static int any_below(const int64_t *d, int b)
{
    if (b <= 0)
        return 0;
    int k = b / CG_XSUM_DIGIT_BITS;
    if (k > CG_XSUM_LIMBS - 1)
        k = CG_XSUM_LIMBS - 1;
    int r = b - k * CG_XSUM_DIGIT_BITS; /* < 63 */
    for (int j = 0; j < k; j++)
        if (d[j] != 0)
            return 1;
    return r && ((uint64_t)d[k] & ((1ull << r) - 1)) != 0;
}

/* Highest set bit of a normalized non-negative magnitude, or -1 for zero. Below the top
 * limb every digit has 32 bits; the top limb is read whole. */
CG_HD static int top_bit(const int64_t *d)
{
    int top = CG_XSUM_LIMBS - 1;
    while (top >= 0 && d[top] == 0)
        top--;
    if (top < 0)
        return -1;
    int h = top * CG_XSUM_DIGIT_BITS + (top == CG_XSUM_LIMBS - 1 ? 62 : 31);
    while (!bit_at(d, h))
        h--;
    return h;
}

/* The normalized magnitude of s into *mag; returns 1 when s is negative. */
CG_HD static int magnitude(cg_xsum *s, cg_xsum *mag)
{
    normalize(s);
    *mag = *s;
    int neg = mag->limb[CG_XSUM_LIMBS - 1] < 0;
    if (neg) {
        for (int k = 0; k < CG_XSUM_LIMBS; k++) /* wraps, never traps, at INT64_MIN */
            mag->limb[k] = (int64_t)(0 - (uint64_t)mag->limb[k]);
        normalize(mag);
    }
    return neg;
}

/* |S| * 2^(CG_XSUM_LSB + shift) rounded to nearest, ties to even, subnormals included. */
CG_HD static double round_magnitude(const int64_t *d, int shift)
{
    int h = top_bit(d);
    if (h < 0)
        return 0.0;
    /* Mantissa bits [l, h]; l no lower than 2^-1074's bit (subnormal results). */
    const int l_min = -1074 - CG_XSUM_LSB - shift;
    int l = h - 52 > l_min ? h - 52 : l_min;
    uint64_t m = 0;
    for (int b = h; b >= l; b--)
        m = (m << 1) | (uint64_t)(b >= 0 && bit_at(d, b));
    int round = l >= 1 && l - 1 <= h && bit_at(d, l - 1);
    int sticky = any_below(d, l - 1);
    if (round && (sticky || (m & 1u)))
        m++; /* may reach 2^53: still exact in a double */
    return ldexp((double)m, l + CG_XSUM_LSB + shift); /* exact, or +inf on overflow */
}

/* NaN or an infinity when non-finite terms were added; else 0 and *v untouched. */
CG_HD static int nonfinite(const cg_xsum *s, double *v)
{
    if (s->nan || (s->pinf && s->ninf))
        *v = NAN;
    else if (s->pinf)
        *v = INFINITY;
    else if (s->ninf)
        *v = -INFINITY;
    else
        return 0;
    return 1;
}

CG_HD double cg_xsum_round(cg_xsum *s)
{
    double v;
    if (nonfinite(s, &v))
        return v;
    cg_xsum mag;
    int neg = magnitude(s, &mag);
    v = round_magnitude(mag.limb, 0);
    return neg ? -v : v;
}

CG_HD double cg_xsum_sqrt(cg_xsum *s)
{
    double v;
    if (nonfinite(s, &v))
        return sqrt(v);
    cg_xsum mag;
    if (magnitude(s, &mag))
        return NAN;
    int h = top_bit(mag.limb);
    if (h < 0)
        return 0.0;
    /* S 2^LSB = (S 2^(LSB - 2k)) 2^(2k) with the first factor in [1, 4): its rounding and
     * square root neither overflow nor underflow, and the scaling by 2^k is exact. */
    int e = h + CG_XSUM_LSB;
    int k = (e >= 0 ? e : e - 1) / 2; /* floor(e / 2) */
    return ldexp(sqrt(round_magnitude(mag.limb, -2 * k)), k);
}

CG_HD void cg_xsum_pack(cg_xsum *s, int64_t out[CG_XSUM_WORDS])
{
    normalize(s);
    memcpy(out, s->limb, sizeof s->limb);
    out[CG_XSUM_LIMBS] = s->nan;
    out[CG_XSUM_LIMBS + 1] = s->pinf;
    out[CG_XSUM_LIMBS + 2] = s->ninf;
}

CG_HD void cg_xsum_unpack(cg_xsum *s, const int64_t in[CG_XSUM_WORDS])
{
    memcpy(s->limb, in, sizeof s->limb);
    s->nan = in[CG_XSUM_LIMBS];
    s->pinf = in[CG_XSUM_LIMBS + 1];
    s->ninf = in[CG_XSUM_LIMBS + 2];
    normalize(s);
}

CG_HD void cg_xsum_add_dot(cg_xsum *s, const double *x, const double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cg_xsum_add_product(s, x[i], y[i]);
}

CG_HD double cg_dot(const double *x, const double *y, size_t n)
{
    cg_xsum s;
    cg_xsum_init(&s);
    cg_xsum_add_dot(&s, x, y, n);
    return cg_xsum_round(&s);
}

CG_HD double cg_norm2(const double *x, size_t n)
{
    cg_xsum s;
    cg_xsum_init(&s);
    cg_xsum_add_dot(&s, x, x, n);
    return cg_xsum_sqrt(&s);
}
