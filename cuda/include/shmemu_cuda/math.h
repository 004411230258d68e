/*
 * shmemu_cuda/math.h: CUDA's math names that the C and C++ libraries do not have.
 *
 * <cmath> gives the standard single- and double-precision functions (sinf, expf, fmaf, ...).
 * Here are CUDA's additions, computed in the precision of their type:
 *   fast intrinsics     __expf __exp10f __logf __log2f __log10f __sinf __cosf __tanf
 *                       __sincosf __powf __fdividef fdividef (the accurate functions: a CPU
 *                       run differs from a GPU run in the last bits of these);
 *   reciprocals         rsqrtf rsqrt rcbrtf rcbrt __frsqrt_rn __frcp_rn __drcp_rn;
 *   round-to-nearest    __fadd_rn __fsub_rn __fmul_rn __fdiv_rn __fsqrt_rn __fmaf_rn
 *                       __dadd_rn __dsub_rn __dmul_rn __ddiv_rn __dsqrt_rn __fma_rn (the
 *                       other rounding modes, _rz _ru _rd, are not provided);
 *   pi-scaled           sinpif cospif sincospif sinpi cospi sincospi;
 *   others              __saturatef exp10f (glibc) norm3df rnorm3df norm3d rnorm3d
 *                       norm4df rnorm4df norm4d rnorm4d rhypotf rhypot;
 *   special (math.cpp)  erfinvf erfinv erfcinvf erfcinv erfcxf erfcx normcdff normcdf
 *                       normcdfinvf normcdfinv cyl_bessel_i0f cyl_bessel_i0 cyl_bessel_i1f
 *                       cyl_bessel_i1 normf norm rnormf rnorm (norms of arrays);
 *   bit casts           __int_as_float __float_as_int __uint_as_float __float_as_uint
 *                       __longlong_as_double __double_as_longlong __double2hiint
 *                       __double2loint __hiloint2double;
 *   conversions         __float2int_rn/_rz/_rd/_ru __float2uint_rn/_rz __float2ll_rn/_rz
 *                       __double2int_rn/_rz __double2float_rn __int2float_rn
 *                       __uint2float_rn __ll2float_rn __int2double_rn;
 *   min and max         CUDA's global overloads for the integer and floating types.
 * The Bessel functions j0f j1f jnf y0f y1f ynf (and double) are glibc's.
 * Not provided (a compile error names them): half and bfloat16 (cuda_fp16.h, cuda_bf16.h),
 * SIMD video intrinsics (__vadd4, ...), the _rz/_ru/_rd arithmetic intrinsics.
 */
/* Included alone, this header first brings in the umbrella, which includes the layer's
 * headers (this one among them) in the order they need; then the guard below skips it. */
#include "../cuda_runtime.h"

#ifndef SHMEMU_CUDA_MATH_H
#define SHMEMU_CUDA_MATH_H

#include <cmath>
#include <cstdint>
#include <cstring>

inline float __expf(float x) { return ::expf(x); }
inline float __exp10f(float x) { return ::exp10f(x); }
inline float __logf(float x) { return ::logf(x); }
inline float __log2f(float x) { return ::log2f(x); }
inline float __log10f(float x) { return ::log10f(x); }
inline float __sinf(float x) { return ::sinf(x); }
inline float __cosf(float x) { return ::cosf(x); }
inline float __tanf(float x) { return ::tanf(x); }
inline void __sincosf(float x, float *s, float *c)
{
    *s = ::sinf(x);
    *c = ::cosf(x);
}
inline float __powf(float x, float y) { return ::powf(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float fdividef(float x, float y) { return x / y; }

inline float rsqrtf(float x) { return 1.0f / ::sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / ::sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / ::cbrtf(x); }
inline double rcbrt(double x) { return 1.0 / ::cbrt(x); }
inline float __frsqrt_rn(float x) { return 1.0f / ::sqrtf(x); }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline double __drcp_rn(double x) { return 1.0 / x; }

inline float __fadd_rn(float x, float y) { return x + y; }
inline float __fsub_rn(float x, float y) { return x - y; }
inline float __fmul_rn(float x, float y) { return x * y; }
inline float __fdiv_rn(float x, float y) { return x / y; }
inline float __fsqrt_rn(float x) { return ::sqrtf(x); }
inline float __fmaf_rn(float x, float y, float z) { return ::fmaf(x, y, z); }
inline double __dadd_rn(double x, double y) { return x + y; }
inline double __dsub_rn(double x, double y) { return x - y; }
inline double __dmul_rn(double x, double y) { return x * y; }
inline double __ddiv_rn(double x, double y) { return x / y; }
inline double __dsqrt_rn(double x) { return ::sqrt(x); }
inline double __fma_rn(double x, double y, double z) { return ::fma(x, y, z); }

inline float sinpif(float x) { return ::sinf(static_cast<float>(M_PI) * x); }
inline float cospif(float x) { return ::cosf(static_cast<float>(M_PI) * x); }
inline void sincospif(float x, float *s, float *c)
{
    *s = sinpif(x);
    *c = cospif(x);
}
inline double sinpi(double x) { return ::sin(M_PI * x); }
inline double cospi(double x) { return ::cos(M_PI * x); }
inline void sincospi(double x, double *s, double *c)
{
    *s = sinpi(x);
    *c = cospi(x);
}

/* Clamped to [0, 1]; NaN gives 0. */
inline float __saturatef(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }
inline float norm3df(float a, float b, float c) { return ::sqrtf(a * a + b * b + c * c); }
inline float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
inline double norm3d(double a, double b, double c) { return ::sqrt(a * a + b * b + c * c); }
inline double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }

namespace shmemu_cuda {
namespace detail {
template <class To, class From> inline To bit_cast(From v)
{
    static_assert(sizeof(To) == sizeof(From), "same size");
    To t;
    std::memcpy(&t, &v, sizeof t);
    return t;
}
} // namespace detail
} // namespace shmemu_cuda

inline float __int_as_float(int x) { return ::shmemu_cuda::detail::bit_cast<float>(x); }
inline int __float_as_int(float x) { return ::shmemu_cuda::detail::bit_cast<int>(x); }
inline float __uint_as_float(unsigned int x) { return ::shmemu_cuda::detail::bit_cast<float>(x); }
inline unsigned int __float_as_uint(float x)
{
    return ::shmemu_cuda::detail::bit_cast<unsigned int>(x);
}
inline double __longlong_as_double(long long x)
{
    return ::shmemu_cuda::detail::bit_cast<double>(x);
}
inline long long __double_as_longlong(double x)
{
    return ::shmemu_cuda::detail::bit_cast<long long>(x);
}
inline int __double2hiint(double x) { return static_cast<int>(__double_as_longlong(x) >> 32); }
inline int __double2loint(double x) { return static_cast<int>(__double_as_longlong(x)); }
inline double __hiloint2double(int hi, int lo)
{
    return __longlong_as_double(static_cast<long long>(
        (static_cast<unsigned long long>(static_cast<unsigned>(hi)) << 32) |
        static_cast<unsigned>(lo)));
}

inline float rhypotf(float x, float y) { return 1.0f / ::hypotf(x, y); }
inline double rhypot(double x, double y) { return 1.0 / ::hypot(x, y); }
inline double norm4d(double a, double b, double c, double d)
{
    return ::hypot(::hypot(a, b), ::hypot(c, d));
}
inline float norm4df(float a, float b, float c, float d)
{
    return static_cast<float>(norm4d(a, b, c, d));
}
inline double rnorm4d(double a, double b, double c, double d) { return 1.0 / norm4d(a, b, c, d); }
inline float rnorm4df(float a, float b, float c, float d)
{
    return static_cast<float>(1.0 / norm4d(a, b, c, d));
}

/* CUDA's special functions (cuda/src/math.cpp). */
double erfinv(double y);
float erfinvf(float y);
double erfcinv(double y);
float erfcinvf(float y);
double erfcx(double x);
float erfcxf(float x);
double normcdf(double x);
float normcdff(float x);
double normcdfinv(double p);
float normcdfinvf(float p);
double cyl_bessel_i0(double x);
float cyl_bessel_i0f(float x);
double cyl_bessel_i1(double x);
float cyl_bessel_i1f(float x);
/* sqrt(p[0]^2 + ... + p[dim-1]^2) and its reciprocal */
double norm(int dim, const double *p);
float normf(int dim, const float *p);
double rnorm(int dim, const double *p);
float rnormf(int dim, const float *p);

inline int __float2int_rn(float x) { return static_cast<int>(::nearbyintf(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline int __float2int_rd(float x) { return static_cast<int>(::floorf(x)); }
inline int __float2int_ru(float x) { return static_cast<int>(::ceilf(x)); }
inline unsigned int __float2uint_rn(float x) { return static_cast<unsigned>(::nearbyintf(x)); }
inline unsigned int __float2uint_rz(float x) { return static_cast<unsigned>(x); }
inline long long __float2ll_rn(float x) { return static_cast<long long>(::nearbyintf(x)); }
inline long long __float2ll_rz(float x) { return static_cast<long long>(x); }
inline int __double2int_rn(double x) { return static_cast<int>(::nearbyint(x)); }
inline int __double2int_rz(double x) { return static_cast<int>(x); }
inline float __double2float_rn(double x) { return static_cast<float>(x); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline float __uint2float_rn(unsigned int x) { return static_cast<float>(x); }
inline float __ll2float_rn(long long x) { return static_cast<float>(x); }
inline double __int2double_rn(int x) { return static_cast<double>(x); }

#define SHMEMU_CUDA_MINMAX_(R, A, B)                                                           \
    inline R min(A a, B b)                                                                     \
    {                                                                                          \
        R x = static_cast<R>(a), y = static_cast<R>(b);                                        \
        return x < y ? x : y;                                                                  \
    }                                                                                          \
    inline R max(A a, B b)                                                                     \
    {                                                                                          \
        R x = static_cast<R>(a), y = static_cast<R>(b);                                        \
        return x > y ? x : y;                                                                  \
    }
SHMEMU_CUDA_MINMAX_(int, int, int)
SHMEMU_CUDA_MINMAX_(unsigned int, unsigned int, unsigned int)
SHMEMU_CUDA_MINMAX_(unsigned int, int, unsigned int)
SHMEMU_CUDA_MINMAX_(unsigned int, unsigned int, int)
SHMEMU_CUDA_MINMAX_(long, long, long)
SHMEMU_CUDA_MINMAX_(unsigned long, unsigned long, unsigned long)
SHMEMU_CUDA_MINMAX_(unsigned long, long, unsigned long)
SHMEMU_CUDA_MINMAX_(unsigned long, unsigned long, long)
SHMEMU_CUDA_MINMAX_(long long, long long, long long)
SHMEMU_CUDA_MINMAX_(unsigned long long, unsigned long long, unsigned long long)
SHMEMU_CUDA_MINMAX_(unsigned long long, long long, unsigned long long)
SHMEMU_CUDA_MINMAX_(unsigned long long, unsigned long long, long long)
#undef SHMEMU_CUDA_MINMAX_
inline float min(float a, float b) { return ::fminf(a, b); }
inline float max(float a, float b) { return ::fmaxf(a, b); }
inline double min(double a, double b) { return ::fmin(a, b); }
inline double max(double a, double b) { return ::fmax(a, b); }
inline double min(float a, double b) { return ::fmin(a, b); }
inline double max(float a, double b) { return ::fmax(a, b); }
inline double min(double a, float b) { return ::fmin(a, b); }
inline double max(double a, float b) { return ::fmax(a, b); }

#endif
