// The C++ math overloads in the global namespace (float sin(float), abs,
// isnan, ...), which CUDA programs use unqualified in host and device code:
// what <math.h> gives a C++17 program, and what nvcc compiles against by
// default.
//
// Why not <math.h> itself: weft compiles as C++20, where libstdc++'s <math.h>
// also declares `using std::lerp;` at global scope. CUDA programs commonly
// define their own `float lerp(float, float, float)` (cuda-samples'
// helper_math.h does), which then conflicts. The list below is C++17's,
// without the mathematical special functions, which CUDA does not have.
#pragma once

#include <cmath>

using std::abs;
using std::acos;
using std::acosh;
using std::asin;
using std::asinh;
using std::atan;
using std::atan2;
using std::atanh;
using std::cbrt;
using std::ceil;
using std::copysign;
using std::cos;
using std::cosh;
using std::erf;
using std::erfc;
using std::exp;
using std::exp2;
using std::expm1;
using std::fabs;
using std::fdim;
using std::floor;
using std::fma;
using std::fmax;
using std::fmin;
using std::fmod;
using std::fpclassify;
using std::frexp;
using std::hypot;
using std::ilogb;
using std::isfinite;
using std::isgreater;
using std::isgreaterequal;
using std::isinf;
using std::isless;
using std::islessequal;
using std::islessgreater;
using std::isnan;
using std::isnormal;
using std::isunordered;
using std::ldexp;
using std::lgamma;
using std::llrint;
using std::llround;
using std::log;
using std::log10;
using std::log1p;
using std::log2;
using std::logb;
using std::lrint;
using std::lround;
using std::modf;
using std::nearbyint;
using std::nextafter;
using std::nexttoward;
using std::pow;
using std::remainder;
using std::remquo;
using std::rint;
using std::round;
using std::scalbln;
using std::scalbn;
using std::signbit;
using std::sin;
using std::sinh;
using std::sqrt;
using std::tan;
using std::tanh;
using std::tgamma;
using std::trunc;
