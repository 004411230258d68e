/*
 * math.cpp: the CUDA math functions that neither C nor C++ has and that need more than one
 * expression (shmemu_cuda/math.h declares them): the inverse error functions, the scaled
 * complementary error function, the normal distribution and its inverse, the modified Bessel
 * functions of order 0 and 1, and the norms of arrays.
 *
 * Every function computes in double; the float forms round its result. Accuracy aims at a
 * few ulps of double, not at the bits a GPU returns (docs: CPU and GPU runs may differ in the
 * last bits of math functions). Domains follow CUDA: erfinv(+-1) = +-inf, erfcinv(0) = +inf,
 * erfcinv(2) = -inf, NaN outside; normcdfinv(0) = -inf, normcdfinv(1) = +inf.
 */
#include <cmath>
#include <limits>

#include "cuda_runtime.h"

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kTwoOverSqrtPi = 1.1283791670955126; /* 2 / sqrt(pi) */

/* A start within 0.2% (Winitzki's approximation) from ln = log(1 - y^2), then Newton's
 * steps on f(x) = erf(x) - y (or erfc(x) - y, when the caller passes complementary). */
double winitzki(double ln)
{
    const double a = 0.147, t = 2.0 / (M_PI * a) + ln / 2.0;
    return std::sqrt(std::sqrt(t * t - ln / a) - t);
}

double erfinv_d(double y)
{
    if (std::isnan(y) || y < -1.0 || y > 1.0)
        return kNaN;
    if (y == 1.0 || y == -1.0)
        return std::copysign(kInf, y);
    if (y == 0.0)
        return y;
    double x = std::copysign(winitzki(std::log1p(-y * y)), y);
    for (int i = 0; i < 8; i++) {
        double dx = (std::erf(x) - y) / (kTwoOverSqrtPi * std::exp(-x * x));
        x -= dx;
        if (std::fabs(dx) <= 1e-16 * std::fabs(x))
            break;
    }
    return x;
}

double erfcinv_d(double y)
{
    if (std::isnan(y) || y < 0.0 || y > 2.0)
        return kNaN;
    if (y == 0.0)
        return kInf;
    if (y == 2.0)
        return -kInf;
    if (y > 1.0)
        return -erfcinv_d(2.0 - y); /* exact: Sterbenz */
    if (y > 0.0625)
        return erfinv_d(1.0 - y);
    /* small y: Newton's steps on erfc itself, which keeps y's relative precision */
    double x = winitzki(std::log(y * (2.0 - y)));
    for (int i = 0; i < 50; i++) {
        double dx = (std::erfc(x) - y) / (-kTwoOverSqrtPi * std::exp(-x * x));
        x -= dx;
        if (std::fabs(dx) <= 1e-16 * x)
            break;
    }
    return x;
}

/* exp(x * x) with the rounding error of the square carried (x * x = hi + lo exactly). */
double exp_square(double x)
{
    double hi = x * x, lo = std::fma(x, x, -hi);
    return std::exp(hi) * std::exp(lo);
}

double erfcx_d(double x)
{
    if (std::isnan(x))
        return x;
    if (x < 0.0)
        return 2.0 * exp_square(x) - erfcx_d(-x); /* overflows to +inf below about -26.6 */
    if (x < 2.0)
        return exp_square(x) * std::erfc(x);
    /* erfc's continued fraction: erfcx(x) = (1/sqrt(pi)) / (x + (1/2)/(x + 1/(x + ...))) */
    double k = x;
    for (int n = 60; n >= 1; n--)
        k = x + (n / 2.0) / k;
    return 1.0 / (std::sqrt(M_PI) * k);
}

/* I0 and I1 by their power series: every term is positive, so the sum keeps full relative
 * precision at any x (it needs about |x| + 30 terms). */
double bessel_i_d(int order, double x)
{
    double ax = std::fabs(x);
    if (std::isnan(x))
        return x;
    if (ax > 713.0)
        return order == 0 ? kInf : std::copysign(kInf, x);
    double q = ax * ax / 4.0;
    double term = order == 0 ? 1.0 : ax / 2.0, sum = term;
    for (int k = 1; k < 4000; k++) {
        term *= q / (static_cast<double>(k) * (k + order));
        sum += term;
        if (term < sum * 1e-17)
            break;
    }
    return order == 0 ? sum : std::copysign(sum, x);
}

/* sqrt of the sum of squares, scaled by the largest magnitude (no overflow or underflow). */
template <class T> double norm_d(int dim, const T *p)
{
    double big = 0.0;
    for (int i = 0; i < dim; i++) {
        if (std::isinf(p[i]))
            return kInf;
        big = std::fmax(big, std::fabs(static_cast<double>(p[i])));
    }
    if (big == 0.0 || std::isnan(big))
        return big;
    double s = 0.0;
    for (int i = 0; i < dim; i++) {
        double r = static_cast<double>(p[i]) / big;
        s += r * r;
    }
    return big * std::sqrt(s);
}

} // namespace

double erfinv(double y) { return erfinv_d(y); }
float erfinvf(float y) { return static_cast<float>(erfinv_d(y)); }
double erfcinv(double y) { return erfcinv_d(y); }
float erfcinvf(float y) { return static_cast<float>(erfcinv_d(y)); }
double erfcx(double x) { return erfcx_d(x); }
float erfcxf(float x) { return static_cast<float>(erfcx_d(x)); }
double normcdf(double x) { return 0.5 * std::erfc(-x * M_SQRT1_2); }
float normcdff(float x) { return static_cast<float>(normcdf(x)); }
double normcdfinv(double p) { return -M_SQRT2 * erfcinv_d(2.0 * p); }
float normcdfinvf(float p) { return static_cast<float>(normcdfinv(p)); }
double cyl_bessel_i0(double x) { return bessel_i_d(0, x); }
float cyl_bessel_i0f(float x) { return static_cast<float>(bessel_i_d(0, x)); }
double cyl_bessel_i1(double x) { return bessel_i_d(1, x); }
float cyl_bessel_i1f(float x) { return static_cast<float>(bessel_i_d(1, x)); }
double norm(int dim, const double *p) { return norm_d(dim, p); }
float normf(int dim, const float *p) { return static_cast<float>(norm_d(dim, p)); }
double rnorm(int dim, const double *p) { return 1.0 / norm_d(dim, p); }
float rnormf(int dim, const float *p) { return static_cast<float>(1.0 / norm_d(dim, p)); }
