// CUDA's mathematical functions (CUDA Math API): the C library's functions
// under CUDA's names and overloads, the functions only CUDA has, and the
// intrinsics (__expf, __fadd_rz, __saturatef, ...).
//
// Most of CUDA's math API is C's: sinf, expf, sqrtf, fmaf, and, as GNU
// extensions glibc declares for every C++ program, sincosf, sincos and
// exp10f. global_math_names.hpp adds std's float and double overloads to
// the global namespace (sin(float), abs(float)...), as CUDA's headers do, so
// `float y = sin(x);` computes in single precision there too.
//
// Accuracy: the C library's functions are at least as accurate as CUDA's
// (glibc's are within 1 ulp, CUDA's documented bounds are 1 to 4 ulp), so
// results can differ from a GPU's in the last bits. The fast intrinsics
// (__expf, __sinf, ...) are computed accurately too, well within CUDA's
// bounds for them; where CUDA documents a special behaviour of an intrinsic
// (__fdividef for huge divisors, __powf for negative bases, flushed
// subnormal results), weft reproduces it, as measured on an H100
// (tests/differential/device_functions_probe.expected).
#pragma once

#include <cfenv>
#include <cfloat>
#include <cmath>
#include <cstdlib>

#include "weft/cuda/device/math/directed_rounding.hpp"
#include "weft/cuda/device/math/global_math_names.hpp"

namespace weft::detail {

inline constexpr double pi_hi = 3.141592653589793;            // pi rounded to double
inline constexpr double pi_lo = 1.2246467991473532e-16;       // pi - pi_hi
inline constexpr double sqrt1_2_hi = 0.7071067811865476;      // sqrt(1/2) rounded to double
inline constexpr double sqrt1_2_lo = -4.833646656726457e-17;  // sqrt(1/2) - sqrt1_2_hi
inline constexpr double inv_sqrt_pi = 0.5641895835477563;     // 1/sqrt(pi)

/// sin(pi x) and cos(pi x), exact at integers and half-integers. Reduced to
/// pi t with |t| <= 1/4 (both steps exact), and pi t carried as a
/// double-double, so the result keeps nearly full precision.
/// Signed zeros follow IEEE 754's sinPi and cosPi: sinpi(n) has n's sign,
/// cospi(n + 1/2) is +0.
inline void sincospi(double x, double& s, double& c) {
  if (!std::isfinite(x)) {
    s = c = x - x;  // NaN for an infinity, and a NaN stays NaN
    return;
  }
  double r = std::remainder(x, 2.0);  // in [-1, 1]
  double n = std::round(2 * r);       // the quarter turn, -2 to 2
  double t = r - 0.5 * n;             // in [-1/4, 1/4]
  double p = pi_hi * t;
  double e = std::fma(pi_hi, t, -p) + pi_lo * t;
  double sp = std::sin(p), cp = std::cos(p);
  double st = sp + e * cp, ct = cp - e * sp;
  switch (static_cast<int>(n) & 3) {
    case 0:
      s = st, c = ct;
      break;
    case 1:
      s = ct, c = -st;
      break;
    case 2:
      s = -st, c = -ct;
      break;
    default:
      s = -ct, c = st;
  }
  if (s == 0) s = std::copysign(0.0, x);
  if (c == 0) c = 0.0;
}

/// sqrt(v[0]^2 + ... + v[n-1]^2) without intermediate overflow or underflow:
/// the components are scaled by a power of two (exactly) first. An infinite
/// component makes it +inf even beside a NaN, as with hypot. The sum of
/// squares is kept as a double-double and the square root corrected once,
/// so the result is within about half an ulp.
inline double scaled_norm(int n, const double* v) {
  double largest = 0;
  bool nan = false;
  for (int i = 0; i < n; ++i) {
    double a = std::fabs(v[i]);
    if (std::isinf(a)) return a;
    if (std::isnan(a))
      nan = true;
    else if (a > largest)
      largest = a;
  }
  if (nan) return NAN;
  if (largest == 0) return 0;
  int scale = std::ilogb(largest);
  double high = 0, low = 0;
  for (int i = 0; i < n; ++i) {
    double s = std::scalbn(v[i], -scale);
    double square = s * s;
    low += std::fma(s, s, -square);
    double sum = high + square;  // Fast2Sum: high and square are >= 0 and sum >= both
    low += high >= square ? (high - sum) + square : (square - sum) + high;
    high = sum;
  }
  double root = std::sqrt(high);
  root += (std::fma(-root, root, high) + low) / (2 * root);
  return std::scalbn(root, scale);
}

/// The same for float components: their squares cannot overflow a double.
inline float float_norm(int n, const float* v) {
  double sum = 0;
  bool nan = false;
  for (int i = 0; i < n; ++i) {
    if (std::isinf(v[i])) return INFINITY;
    nan |= std::isnan(v[i]);
    sum += double{v[i]} * v[i];
  }
  return nan ? NAN : static_cast<float>(std::sqrt(sum));
}

/// exp(x^2), with x^2 carried as a double-double: rounding x^2 alone would
/// cost about x^2 ulps.
inline double exp_of_square(double x) {
  double s = x * x;
  double t = std::fma(x, x, -s);
  double e = std::exp(s);
  return std::isinf(e) ? e : e + e * t;
}

/// exp(x^2) erfc(x), without the overflow and underflow of its factors.
inline double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < 0) return 2 * exp_of_square(x) - erfcx(-x);
  if (x < 26) return exp_of_square(x) * std::erfc(x);
  // The asymptotic series 1/(x sqrt(pi)) sum (-1)^k (2k-1)!! / (2x^2)^k,
  // converged to double precision after a dozen terms for x >= 26.
  double r = 1 / (2 * x * x);
  double term = 1, sum = 1;
  for (int k = 1; k <= 12; ++k) {
    term *= -(2 * k - 1) * r;
    sum += term;
  }
  return sum * inv_sqrt_pi / x;
}

/// The x >= 0 with erfc(x) = q, for 0 <= q <= 1/2. Newton's method on
/// log(erfc(x)) - log(q) = log(erfcx(x)) - x^2 - log(q), which stays
/// representable down to the smallest subnormal q. That function is concave
/// and decreasing, so from the upper bound sqrt(-log q) (erfc(x) <=
/// exp(-x^2)) the iterates decrease monotonically to the root.
inline double erfc_inverse_tail(double q) {
  if (q == 0) return INFINITY;
  double log_q = std::log(q);
  double x = std::sqrt(-log_q);
  for (int i = 0; i < 100; ++i) {
    double square = x * x;
    double square_low = std::fma(x, x, -square);
    double e = erfcx(x);
    double h = (std::log(e) - log_q) - square - square_low;
    double step = h * e / (2 * inv_sqrt_pi);
    x += step;
    if (std::fabs(step) <= 0x1p-52 * x) break;
  }
  return x;
}

/// The x with erf(x) = y.
inline double erfinv(double y) {
  if (std::isnan(y) || y == 0) return y;
  double a = std::fabs(y);
  if (a > 1) return NAN;
  double x;
  if (a <= 0.5) {
    // Newton's method on erf(x) = a from a lower bound (erf(x) <= 2x/sqrt(pi)):
    // erf is concave for x > 0, so the iterates increase to the root.
    x = a / (2 * inv_sqrt_pi);
    for (int i = 0; i < 100; ++i) {
      double step = (a - std::erf(x)) / (2 * inv_sqrt_pi * std::exp(-x * x));
      x += step;
      if (std::fabs(step) <= 0x1p-53 * x) break;
    }
  } else {
    x = erfc_inverse_tail(1 - a);  // exact: a is in [1/2, 1]
  }
  return std::copysign(x, y);
}

/// The x with erfc(x) = q, for 0 <= q <= 2.
inline double erfcinv(double q) {
  if (std::isnan(q)) return q;
  if (q < 0 || q > 2) return NAN;
  if (q <= 0.5) return erfc_inverse_tail(q);
  if (q < 1.5) return erfinv(1 - q);  // 1 - q is exact here
  return -erfc_inverse_tail(2 - q);   // and so is 2 - q
}

/// The standard normal distribution function, 0.5 erfc(-x/sqrt(2)), with
/// x/sqrt(2) carried as a double-double: in the lower tail erfc is steep, and
/// rounding its argument alone would cost about x^2 ulps.
inline double normcdf(double x) {
  double s = x * sqrt1_2_hi;
  double r = std::erfc(-s);
  if (std::isfinite(s)) {
    double e = std::fma(x, sqrt1_2_hi, -s) + x * sqrt1_2_lo;
    r += e * 2 * inv_sqrt_pi * std::exp(-s * s);  // erfc(-(s + e)) to first order in e
  }
  return 0.5 * r;
}

inline double normcdfinv(double p) {
  double x = -0x1.6a09e667f3bcdp+0 * erfcinv(2 * p);  // -sqrt(2) erfcinv(2p)
  return x == 0 ? 0.0 : x;
}

/// A subnormal result of an intrinsic that flushes it to a zero of its sign.
inline float flush_subnormal(float x) { return std::fabs(x) < FLT_MIN ? std::copysign(0.0f, x) : x; }

}  // namespace weft::detail

// ---------------------------------------------------------------------------
// Functions of CUDA's math API that the C library lacks.

/// 1/sqrt(x): the quotient of two rounded values, then one Newton step on
/// 1 - x y^2 computed nearly exactly, which leaves it correctly rounded but
/// for rare cases.
inline double rsqrt(double x) {
  double y = 1 / std::sqrt(x);
  if (!std::isfinite(y) || y == 0) return y;
  double square = y * y;
  double residual = std::fma(-x, square, 1.0) - x * std::fma(y, y, -square);
  return y + 0.5 * y * residual;
}
/// In single precision: within 1.49 ulp of 1/sqrt(x) over every float
/// (checked exhaustively), inside CUDA's documented 2 ulp. A double square
/// root and division, converting there and back, take longer on x86 than
/// the float ones (docs/performance.md, Log, 2026-11-30, h-K).
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
/// 1/cbrt(x), corrected the same way through 1 - x y^3.
inline double rcbrt(double x) {
  double y = 1 / std::cbrt(x);
  if (!std::isfinite(y) || y == 0) return y;
  double square = y * y;
  double square_low = std::fma(y, y, -square);
  double cube = y * square;
  double cube_low = std::fma(y, square, -cube) + y * square_low;
  double residual = std::fma(-x, cube, 1.0) - x * cube_low;
  return y + y * residual / 3;
}
inline float rcbrtf(float x) { return static_cast<float>(1 / std::cbrt(double{x})); }

inline double sinpi(double x) {
  double s, c;
  weft::detail::sincospi(x, s, c);
  return s;
}
inline double cospi(double x) {
  double s, c;
  weft::detail::sincospi(x, s, c);
  return c;
}
inline void sincospi(double x, double* s, double* c) { weft::detail::sincospi(x, *s, *c); }
inline float sinpif(float x) { return static_cast<float>(sinpi(x)); }
inline float cospif(float x) { return static_cast<float>(cospi(x)); }
inline void sincospif(float x, float* s, float* c) {
  double sd, cd;
  weft::detail::sincospi(x, sd, cd);
  *s = static_cast<float>(sd);
  *c = static_cast<float>(cd);
}

/// CUDA's fdividef is plain division unless a program is built with
/// -use_fast_math, which weft does not model.
inline float fdividef(float x, float y) { return x / y; }

inline double erfinv(double x) { return weft::detail::erfinv(x); }
inline double erfcinv(double x) { return weft::detail::erfcinv(x); }
inline double erfcx(double x) { return weft::detail::erfcx(x); }
inline double normcdf(double x) { return weft::detail::normcdf(x); }
inline double normcdfinv(double x) { return weft::detail::normcdfinv(x); }
inline float erfinvf(float x) { return static_cast<float>(weft::detail::erfinv(x)); }
inline float erfcinvf(float x) { return static_cast<float>(weft::detail::erfcinv(x)); }
inline float erfcxf(float x) { return static_cast<float>(weft::detail::erfcx(x)); }
inline float normcdff(float x) { return static_cast<float>(weft::detail::normcdf(x)); }
inline float normcdfinvf(float x) { return static_cast<float>(weft::detail::normcdfinv(x)); }

/// Modified Bessel functions of the first kind, orders 0 and 1 (I0 is even,
/// I1 odd; std::cyl_bessel_i only takes x >= 0).
inline double cyl_bessel_i0(double x) { return std::cyl_bessel_i(0.0, std::fabs(x)); }
inline double cyl_bessel_i1(double x) { return std::copysign(std::cyl_bessel_i(1.0, std::fabs(x)), x); }
inline float cyl_bessel_i0f(float x) { return static_cast<float>(cyl_bessel_i0(x)); }
inline float cyl_bessel_i1f(float x) { return static_cast<float>(cyl_bessel_i1(x)); }

// Euclidean norms and their reciprocals.
inline double norm(int dim, const double* p) { return weft::detail::scaled_norm(dim, p); }
inline double norm3d(double a, double b, double c) {
  const double v[] = {a, b, c};
  return weft::detail::scaled_norm(3, v);
}
inline double norm4d(double a, double b, double c, double d) {
  const double v[] = {a, b, c, d};
  return weft::detail::scaled_norm(4, v);
}
inline double rnorm(int dim, const double* p) { return 1 / norm(dim, p); }
inline double rnorm3d(double a, double b, double c) { return 1 / norm3d(a, b, c); }
inline double rnorm4d(double a, double b, double c, double d) { return 1 / norm4d(a, b, c, d); }
inline double rhypot(double x, double y) { return 1 / std::hypot(x, y); }
inline float normf(int dim, const float* p) { return weft::detail::float_norm(dim, p); }
inline float norm3df(float a, float b, float c) {
  const float v[] = {a, b, c};
  return weft::detail::float_norm(3, v);
}
inline float norm4df(float a, float b, float c, float d) {
  const float v[] = {a, b, c, d};
  return weft::detail::float_norm(4, v);
}
inline float rnormf(int dim, const float* p) { return static_cast<float>(1 / double{normf(dim, p)}); }
inline float rnorm3df(float a, float b, float c) { return static_cast<float>(1 / double{norm3df(a, b, c)}); }
inline float rnorm4df(float a, float b, float c, float d) {
  return static_cast<float>(1 / double{norm4df(a, b, c, d)});
}
inline float rhypotf(float x, float y) { return static_cast<float>(1 / std::hypot(double{x}, double{y})); }

// CUDA's float overloads of double functions that C++ does not overload.
// clang-format off
inline float rsqrt(float x) { return rsqrtf(x); }
inline float rcbrt(float x) { return rcbrtf(x); }
inline float sinpi(float x) { return sinpif(x); }
inline float cospi(float x) { return cospif(x); }
inline void sincospi(float x, float* s, float* c) { sincospif(x, s, c); }
inline void sincos(float x, float* s, float* c) { sincosf(x, s, c); }
inline float exp10(float x) { return exp10f(x); }
inline float erfinv(float x) { return erfinvf(x); }
inline float erfcinv(float x) { return erfcinvf(x); }
inline float erfcx(float x) { return erfcxf(x); }
inline float normcdf(float x) { return normcdff(x); }
inline float normcdfinv(float x) { return normcdfinvf(x); }
inline float j0(float x) { return j0f(x); }
inline float j1(float x) { return j1f(x); }
inline float y0(float x) { return y0f(x); }
inline float y1(float x) { return y1f(x); }
// clang-format on

// ---------------------------------------------------------------------------
// Integer and mixed min/max, with the overloads CUDA's headers declare. A
// signed and an unsigned operand compare as unsigned, as C++'s usual
// arithmetic conversions would have them; floating-point min/max are the
// GPU's fminf/fmaxf: a NaN operand yields the other one, and -0 counts as
// less than +0 (IEEE 754's minimumNumber and maximumNumber), where the C
// library's fminf/fmaxf may return either zero, as Clang's inline code does.

namespace weft::detail {
template <class F>
F minimum_number(F a, F b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <class F>
F maximum_number(F a, F b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
}  // namespace weft::detail

inline int min(int a, int b) { return a < b ? a : b; }
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline long long int llmin(long long int a, long long int b) { return a < b ? a : b; }
inline unsigned long long int ullmin(unsigned long long int a, unsigned long long int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long int llmax(long long int a, long long int b) { return a > b ? a : b; }
inline unsigned long long int ullmax(unsigned long long int a, unsigned long long int b) { return a > b ? a : b; }

// clang-format off
inline unsigned int min(unsigned int a, unsigned int b) { return umin(a, b); }
inline unsigned int min(int a, unsigned int b) { return umin(static_cast<unsigned int>(a), b); }
inline unsigned int min(unsigned int a, int b) { return umin(a, static_cast<unsigned int>(b)); }
inline long int min(long int a, long int b) { return a < b ? a : b; }
inline unsigned long int min(unsigned long int a, unsigned long int b) { return a < b ? a : b; }
inline unsigned long int min(long int a, unsigned long int b) { return min(static_cast<unsigned long int>(a), b); }
inline unsigned long int min(unsigned long int a, long int b) { return min(a, static_cast<unsigned long int>(b)); }
inline long long int min(long long int a, long long int b) { return llmin(a, b); }
inline unsigned long long int min(unsigned long long int a, unsigned long long int b) { return ullmin(a, b); }
inline unsigned long long int min(long long int a, unsigned long long int b) { return ullmin(static_cast<unsigned long long int>(a), b); }
inline unsigned long long int min(unsigned long long int a, long long int b) { return ullmin(a, static_cast<unsigned long long int>(b)); }
inline float min(float a, float b) { return weft::detail::minimum_number(a, b); }
inline double min(double a, double b) { return weft::detail::minimum_number(a, b); }
inline double min(float a, double b) { return weft::detail::minimum_number<double>(a, b); }
inline double min(double a, float b) { return weft::detail::minimum_number<double>(a, b); }

inline unsigned int max(unsigned int a, unsigned int b) { return umax(a, b); }
inline unsigned int max(int a, unsigned int b) { return umax(static_cast<unsigned int>(a), b); }
inline unsigned int max(unsigned int a, int b) { return umax(a, static_cast<unsigned int>(b)); }
inline long int max(long int a, long int b) { return a > b ? a : b; }
inline unsigned long int max(unsigned long int a, unsigned long int b) { return a > b ? a : b; }
inline unsigned long int max(long int a, unsigned long int b) { return max(static_cast<unsigned long int>(a), b); }
inline unsigned long int max(unsigned long int a, long int b) { return max(a, static_cast<unsigned long int>(b)); }
inline long long int max(long long int a, long long int b) { return llmax(a, b); }
inline unsigned long long int max(unsigned long long int a, unsigned long long int b) { return ullmax(a, b); }
inline unsigned long long int max(long long int a, unsigned long long int b) { return ullmax(static_cast<unsigned long long int>(a), b); }
inline unsigned long long int max(unsigned long long int a, long long int b) { return ullmax(a, static_cast<unsigned long long int>(b)); }
inline float max(float a, float b) { return weft::detail::maximum_number(a, b); }
inline double max(double a, double b) { return weft::detail::maximum_number(a, b); }
inline double max(float a, double b) { return weft::detail::maximum_number<double>(a, b); }
inline double max(double a, float b) { return weft::detail::maximum_number<double>(a, b); }
// clang-format on

// ---------------------------------------------------------------------------
// Intrinsics (CUDA Math API, "Single Precision Intrinsics" and "Double
// Precision Intrinsics").

// The fast approximations, computed accurately (see the top of this file).
// glibc's <math.h> declares functions of these names as extern "C" and
// noexcept (its internal aliases, which libm does not export), so these
// definitions take the same linkage and exception specification.
extern "C" {
inline float __expf(float x) noexcept { return expf(x); }
inline float __exp10f(float x) noexcept { return exp10f(x); }
inline float __logf(float x) noexcept { return logf(x); }
inline float __log2f(float x) noexcept { return log2f(x); }
inline float __log10f(float x) noexcept { return log10f(x); }
inline float __tanhf(float x) noexcept { return tanhf(x); }
/// A GPU computes exp2(y * log2(x)), so a negative x gives NaN even for an
/// integral y, and __powf(0, 0) is NaN; weft keeps those results.
inline float __powf(float x, float y) noexcept {
  return static_cast<float>(std::exp2(double{y} * std::log2(double{x})));
}
/// Subnormal results are flushed to a zero of their sign, as CUDA documents.
inline float __sinf(float x) noexcept { return weft::detail::flush_subnormal(sinf(x)); }
inline float __cosf(float x) noexcept { return weft::detail::flush_subnormal(cosf(x)); }
inline float __tanf(float x) noexcept { return weft::detail::flush_subnormal(tanf(x)); }
/// Subnormal input and results are flushed to zeros of their sign.
inline void __sincosf(float x, float* s, float* c) noexcept {
  x = weft::detail::flush_subnormal(x);
  sincosf(x, s, c);
  *s = weft::detail::flush_subnormal(*s);
  *c = weft::detail::flush_subnormal(*c);
}
}

/// x * (1/y) with the reciprocal flushed to zero when it would be subnormal,
/// as a GPU computes it: for 2^126 < |y| < 2^128 the result is 0, or NaN
/// for an infinite x.
inline float __fdividef(float x, float y) {
  if (std::fabs(y) > 0x1p126f && std::isfinite(y)) return x * std::copysign(0.0f, y);
  return x / y;
}

/// x clamped to [+0, 1]; NaN gives +0.
inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : x > 0.0f ? x : 0.0f; }

/// 1/sqrt(x), correctly rounded: the double estimate is off by far less than
/// half a float ulp, except near a rounding midpoint, which an exact test of
/// the neighbouring midpoints (m^2 x - 1, its sign exact through one fma)
/// settles.
inline float __frsqrt_rn(float x) {
  if (!(x > 0) || std::isinf(x)) return static_cast<float>(1 / std::sqrt(double{x}));
  float y = static_cast<float>(1 / std::sqrt(double{x}));
  double half_ulp = 0.5 * (double{std::nextafter(y, INFINITY)} - y);
  double above = y + half_ulp, below = y - half_ulp;
  if (std::fma(above * above, double{x}, -1.0) < 0) return std::nextafter(y, INFINITY);
  if (std::fma(below * below, double{x}, -1.0) > 0) return std::nextafter(y, 0.0f);
  return y;
}

// The IEEE operations in each rounding mode. None of them is ever contracted
// into a fused multiply-add, and the directed ones mostly need no rounding
// mode switch (see directed_rounding.hpp).
// clang-format off
inline float __fadd_rn(float a, float b) { return weft::detail::rounded<FE_TONEAREST>([](float x, float y) { return x + y; }, a, b); }
inline float __fadd_rz(float a, float b) { return weft::detail::add_rounded<FE_TOWARDZERO>(a, b); }
inline float __fadd_ru(float a, float b) { return weft::detail::add_rounded<FE_UPWARD>(a, b); }
inline float __fadd_rd(float a, float b) { return weft::detail::add_rounded<FE_DOWNWARD>(a, b); }
inline float __fsub_rn(float a, float b) { return weft::detail::rounded<FE_TONEAREST>([](float x, float y) { return x - y; }, a, b); }
inline float __fsub_rz(float a, float b) { return weft::detail::sub_rounded<FE_TOWARDZERO>(a, b); }
inline float __fsub_ru(float a, float b) { return weft::detail::sub_rounded<FE_UPWARD>(a, b); }
inline float __fsub_rd(float a, float b) { return weft::detail::sub_rounded<FE_DOWNWARD>(a, b); }
inline float __fmul_rn(float a, float b) { return weft::detail::rounded<FE_TONEAREST>([](float x, float y) { return x * y; }, a, b); }
inline float __fmul_rz(float a, float b) { return weft::detail::mul_rounded<FE_TOWARDZERO>(a, b); }
inline float __fmul_ru(float a, float b) { return weft::detail::mul_rounded<FE_UPWARD>(a, b); }
inline float __fmul_rd(float a, float b) { return weft::detail::mul_rounded<FE_DOWNWARD>(a, b); }
inline float __fdiv_rn(float a, float b) { return weft::detail::rounded<FE_TONEAREST>([](float x, float y) { return x / y; }, a, b); }
inline float __fdiv_rz(float a, float b) { return weft::detail::div_rounded<FE_TOWARDZERO>(a, b); }
inline float __fdiv_ru(float a, float b) { return weft::detail::div_rounded<FE_UPWARD>(a, b); }
inline float __fdiv_rd(float a, float b) { return weft::detail::div_rounded<FE_DOWNWARD>(a, b); }
inline float __frcp_rn(float a) { return weft::detail::rounded<FE_TONEAREST>([](float x) { return 1.0f / x; }, a); }
inline float __frcp_rz(float a) { return weft::detail::div_rounded<FE_TOWARDZERO>(1.0f, a); }
inline float __frcp_ru(float a) { return weft::detail::div_rounded<FE_UPWARD>(1.0f, a); }
inline float __frcp_rd(float a) { return weft::detail::div_rounded<FE_DOWNWARD>(1.0f, a); }
inline float __fsqrt_rn(float a) { return weft::detail::rounded<FE_TONEAREST>([](float x) { return std::sqrt(x); }, a); }
inline float __fsqrt_rz(float a) { return weft::detail::sqrt_rounded<FE_TOWARDZERO>(a); }
inline float __fsqrt_ru(float a) { return weft::detail::sqrt_rounded<FE_UPWARD>(a); }
inline float __fsqrt_rd(float a) { return weft::detail::sqrt_rounded<FE_DOWNWARD>(a); }
inline float __fmaf_rn(float a, float b, float c) { return weft::detail::rounded<FE_TONEAREST>([](float x, float y, float z) { return std::fma(x, y, z); }, a, b, c); }
inline float __fmaf_rz(float a, float b, float c) { return weft::detail::rounded<FE_TOWARDZERO>([](float x, float y, float z) { return std::fma(x, y, z); }, a, b, c); }
inline float __fmaf_ru(float a, float b, float c) { return weft::detail::rounded<FE_UPWARD>([](float x, float y, float z) { return std::fma(x, y, z); }, a, b, c); }
inline float __fmaf_rd(float a, float b, float c) { return weft::detail::rounded<FE_DOWNWARD>([](float x, float y, float z) { return std::fma(x, y, z); }, a, b, c); }
// The _ieee variants differ from the others only under -ftz=true, which weft does not model.
inline float __fmaf_ieee_rn(float a, float b, float c) { return __fmaf_rn(a, b, c); }
inline float __fmaf_ieee_rz(float a, float b, float c) { return __fmaf_rz(a, b, c); }
inline float __fmaf_ieee_ru(float a, float b, float c) { return __fmaf_ru(a, b, c); }
inline float __fmaf_ieee_rd(float a, float b, float c) { return __fmaf_rd(a, b, c); }

inline double __dadd_rn(double a, double b) { return weft::detail::rounded<FE_TONEAREST>([](double x, double y) { return x + y; }, a, b); }
inline double __dadd_rz(double a, double b) { return weft::detail::add_rounded<FE_TOWARDZERO>(a, b); }
inline double __dadd_ru(double a, double b) { return weft::detail::add_rounded<FE_UPWARD>(a, b); }
inline double __dadd_rd(double a, double b) { return weft::detail::add_rounded<FE_DOWNWARD>(a, b); }
inline double __dsub_rn(double a, double b) { return weft::detail::rounded<FE_TONEAREST>([](double x, double y) { return x - y; }, a, b); }
inline double __dsub_rz(double a, double b) { return weft::detail::sub_rounded<FE_TOWARDZERO>(a, b); }
inline double __dsub_ru(double a, double b) { return weft::detail::sub_rounded<FE_UPWARD>(a, b); }
inline double __dsub_rd(double a, double b) { return weft::detail::sub_rounded<FE_DOWNWARD>(a, b); }
inline double __dmul_rn(double a, double b) { return weft::detail::rounded<FE_TONEAREST>([](double x, double y) { return x * y; }, a, b); }
inline double __dmul_rz(double a, double b) { return weft::detail::mul_rounded<FE_TOWARDZERO>(a, b); }
inline double __dmul_ru(double a, double b) { return weft::detail::mul_rounded<FE_UPWARD>(a, b); }
inline double __dmul_rd(double a, double b) { return weft::detail::mul_rounded<FE_DOWNWARD>(a, b); }
inline double __ddiv_rn(double a, double b) { return weft::detail::rounded<FE_TONEAREST>([](double x, double y) { return x / y; }, a, b); }
inline double __ddiv_rz(double a, double b) { return weft::detail::div_rounded<FE_TOWARDZERO>(a, b); }
inline double __ddiv_ru(double a, double b) { return weft::detail::div_rounded<FE_UPWARD>(a, b); }
inline double __ddiv_rd(double a, double b) { return weft::detail::div_rounded<FE_DOWNWARD>(a, b); }
inline double __drcp_rn(double a) { return weft::detail::rounded<FE_TONEAREST>([](double x) { return 1.0 / x; }, a); }
inline double __drcp_rz(double a) { return weft::detail::div_rounded<FE_TOWARDZERO>(1.0, a); }
inline double __drcp_ru(double a) { return weft::detail::div_rounded<FE_UPWARD>(1.0, a); }
inline double __drcp_rd(double a) { return weft::detail::div_rounded<FE_DOWNWARD>(1.0, a); }
inline double __dsqrt_rn(double a) { return weft::detail::rounded<FE_TONEAREST>([](double x) { return std::sqrt(x); }, a); }
inline double __dsqrt_rz(double a) { return weft::detail::sqrt_rounded<FE_TOWARDZERO>(a); }
inline double __dsqrt_ru(double a) { return weft::detail::sqrt_rounded<FE_UPWARD>(a); }
inline double __dsqrt_rd(double a) { return weft::detail::sqrt_rounded<FE_DOWNWARD>(a); }
inline double __fma_rn(double a, double b, double c) { return weft::detail::rounded<FE_TONEAREST>([](double x, double y, double z) { return std::fma(x, y, z); }, a, b, c); }
inline double __fma_rz(double a, double b, double c) { return weft::detail::rounded<FE_TOWARDZERO>([](double x, double y, double z) { return std::fma(x, y, z); }, a, b, c); }
inline double __fma_ru(double a, double b, double c) { return weft::detail::rounded<FE_UPWARD>([](double x, double y, double z) { return std::fma(x, y, z); }, a, b, c); }
inline double __fma_rd(double a, double b, double c) { return weft::detail::rounded<FE_DOWNWARD>([](double x, double y, double z) { return std::fma(x, y, z); }, a, b, c); }
// clang-format on
