// The directed-rounding intrinsics (__fadd_ru, __dmul_rd, __fsqrt_rz, ...),
// which mostly step the round-to-nearest result by an ulp instead of
// switching the rounding mode, against the same operation run under
// fesetround: on random bit patterns, on operands built to give exact,
// cancelling, tied, underflowing and overflowing results, and on every pair
// of hand-picked corner values.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <bit>
#include <cfenv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace {

template <class T>
using bits_of = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

struct splitmix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

template <class T>
bool same_result(T expected, T actual) {
  if (std::isnan(expected)) return std::isnan(actual);
  return std::bit_cast<bits_of<T>>(expected) == std::bit_cast<bits_of<T>>(actual);
}

enum class operation { add, sub, mul, div, rcp, sqrt };
constexpr operation all_operations[] = {operation::add, operation::sub, operation::mul,
                                        operation::div, operation::rcp, operation::sqrt};
constexpr int directed_modes[] = {FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};

const char* name_of(operation op) {
  const char* names[] = {"add", "sub", "mul", "div", "rcp", "sqrt"};
  return names[static_cast<int>(op)];
}
const char* name_of_mode(int mode) { return mode == FE_TOWARDZERO ? "rz" : mode == FE_UPWARD ? "ru" : "rd"; }

/// The operation on each pair with the thread's rounding mode switched once
/// for the whole batch. Volatile operands and results keep every operation
/// between the two fesetround calls, and unfolded.
template <class T>
std::vector<T> reference(operation op, int mode, const std::vector<T>& a, const std::vector<T>& b) {
  std::vector<T> out(a.size());
  int saved = std::fegetround();
  std::fesetround(mode);
  for (std::size_t i = 0; i < a.size(); ++i) {
    volatile T x = a[i], y = b[i];
    volatile T r = 0;
    switch (op) {
      case operation::add:
        r = x + y;
        break;
      case operation::sub:
        r = x - y;
        break;
      case operation::mul:
        r = x * y;
        break;
      case operation::div:
        r = x / y;
        break;
      case operation::rcp:
        r = T(1) / x;
        break;
      case operation::sqrt:
        r = std::sqrt(T(x));
        break;
    }
    out[i] = r;
  }
  std::fesetround(saved);
  return out;
}

template <class F3>
auto by_mode(int mode, F3 rz, F3 ru, F3 rd) {
  return mode == FE_TOWARDZERO ? rz : mode == FE_UPWARD ? ru : rd;
}

float intrinsic(operation op, int mode, float a, float b) {
  switch (op) {
    case operation::add:
      return by_mode(mode, __fadd_rz, __fadd_ru, __fadd_rd)(a, b);
    case operation::sub:
      return by_mode(mode, __fsub_rz, __fsub_ru, __fsub_rd)(a, b);
    case operation::mul:
      return by_mode(mode, __fmul_rz, __fmul_ru, __fmul_rd)(a, b);
    case operation::div:
      return by_mode(mode, __fdiv_rz, __fdiv_ru, __fdiv_rd)(a, b);
    case operation::rcp:
      return by_mode(mode, __frcp_rz, __frcp_ru, __frcp_rd)(a);
    case operation::sqrt:
      return by_mode(mode, __fsqrt_rz, __fsqrt_ru, __fsqrt_rd)(a);
  }
  return 0;
}

double intrinsic(operation op, int mode, double a, double b) {
  switch (op) {
    case operation::add:
      return by_mode(mode, __dadd_rz, __dadd_ru, __dadd_rd)(a, b);
    case operation::sub:
      return by_mode(mode, __dsub_rz, __dsub_ru, __dsub_rd)(a, b);
    case operation::mul:
      return by_mode(mode, __dmul_rz, __dmul_ru, __dmul_rd)(a, b);
    case operation::div:
      return by_mode(mode, __ddiv_rz, __ddiv_ru, __ddiv_rd)(a, b);
    case operation::rcp:
      return by_mode(mode, __drcp_rz, __drcp_ru, __drcp_rd)(a);
    case operation::sqrt:
      return by_mode(mode, __dsqrt_rz, __dsqrt_ru, __dsqrt_rd)(a);
  }
  return 0;
}

template <class T>
std::string hex(T x) {
  char text[40];
  std::snprintf(text, sizeof text, "%a", static_cast<double>(x));
  return text;
}

/// Every operation in every directed mode on the pairs (a[i], b[i]), against
/// the reference; the number of mismatches, the first few reported.
template <class T>
int mismatches(const std::vector<T>& a, const std::vector<T>& b) {
  int count = 0;
  for (operation op : all_operations) {
    for (int mode : directed_modes) {
      std::vector<T> expected = reference(op, mode, a, b);
      for (std::size_t i = 0; i < a.size(); ++i) {
        T actual = intrinsic(op, mode, a[i], b[i]);
        if (same_result(expected[i], actual)) continue;
        if (++count > 8) continue;
        std::string call = std::string(name_of(op)) + "_" + name_of_mode(mode) + "(" + hex(a[i]) + ", " + hex(b[i]);
        MESSAGE(call << ") = " << hex(actual) << ", expected " << hex(expected[i]));
      }
    }
  }
  CHECK(std::fegetround() == FE_TONEAREST);
  return count;
}

template <class T>
T from_bits(bits_of<T> bits) {
  return std::bit_cast<T>(bits);
}

/// A random value whose significand has only `bits` significant bits, with
/// a binary exponent in [low, high].
template <class T>
T short_value(splitmix64& rng, int bits, int low, int high) {
  auto significand = static_cast<T>((rng.next() >> (64 - bits)) | 1);
  int exponent = low + static_cast<int>(rng.next() % static_cast<std::uint64_t>(high - low + 1));
  T value = std::ldexp(significand, exponent - bits);
  return rng.next() & 1 ? -value : value;
}

/// Pairs drawn from several families: any bit pattern (all exponents, both
/// signs, subnormals, infinities, NaN); near-cancelling pairs and x, -x;
/// short significands, whose sums, products, quotients and square roots are
/// often exact; pairs an exact half ulp apart (ties); and operands around
/// the underflow and overflow thresholds.
template <class T>
void random_operands(std::size_t n, std::uint64_t seed, std::vector<T>& a, std::vector<T>& b) {
  using limits = std::numeric_limits<T>;
  constexpr int digits = limits::digits;
  constexpr int max_exponent = limits::max_exponent;  // 128, 1024
  constexpr int min_exponent = limits::min_exponent;  // -125, -1021
  constexpr int bit_count = 8 * sizeof(T);
  splitmix64 rng{seed};
  a.resize(n);
  b.resize(n);
  auto any = [&] { return from_bits<T>(static_cast<bits_of<T>>(rng.next())); };
  for (std::size_t i = 0; i < n; ++i) {
    T x = any(), y = any();
    switch (i % 8) {
      case 0:
        break;
      case 1: {  // y close to -x, or exactly -x, or x itself
        auto bits = std::bit_cast<bits_of<T>>(x) ^ static_cast<bits_of<T>>(rng.next() % 16);
        y = from_bits<T>(bits);
        if (rng.next() & 1) y = -y;
        break;
      }
      case 2:
        x = short_value<T>(rng, 1 + rng.next() % (digits / 2), min_exponent - digits, max_exponent);
        y = short_value<T>(rng, 1 + rng.next() % (digits / 2), min_exponent - digits, max_exponent);
        break;
      case 3: {  // y = x * y' exactly, so y / y' and sqrt(x * x) are exact
        T c = short_value<T>(rng, digits / 2, -30, 30);
        T d = short_value<T>(rng, digits / 2, min_exponent / 2, max_exponent / 2);
        if (rng.next() & 1) {
          x = c * d;
          y = c;
        } else {
          x = d * d;
          y = d;
        }
        break;
      }
      case 4: {  // y near half an ulp of x (ties and near-ties in sums)
        int exponent = std::ilogb(x);
        if (exponent < min_exponent || exponent >= max_exponent) break;
        int k = static_cast<int>(rng.next() % 5) - 2;
        y = std::ldexp(static_cast<T>(1 + rng.next() % 4), exponent - digits + k);
        if (rng.next() & 1) y = -y;
        break;
      }
      case 5:    // exponents near the subnormal range
      case 6: {  // near the largest finite values, and products / quotients crossing them
        bool low = i % 8 == 5;
        auto exponent_field = [&] {
          std::uint64_t span = 2 * digits + 8;
          std::uint64_t e = rng.next() % span;
          return low ? e : (2 * max_exponent - 1) - span + e + 1;
        };
        auto place = [&](T v, std::uint64_t e) {
          auto bits = std::bit_cast<bits_of<T>>(v);
          bits_of<T> sign = bits & (bits_of<T>(1) << (bit_count - 1));
          bits_of<T> fraction = bits & ((bits_of<T>(1) << (digits - 1)) - 1);
          if (rng.next() % 4 == 0) fraction &= ~((bits_of<T>(1) << (digits - 1 - 3)) - 1);
          return from_bits<T>(sign | static_cast<bits_of<T>>(e << (digits - 1)) | fraction);
        };
        x = place(x, exponent_field());
        if (rng.next() & 1) {
          y = place(y, exponent_field());
        } else {
          // Scaled to land the product or quotient near the threshold.
          std::uint64_t bias = max_exponent - 1;
          std::uint64_t e = rng.next() % (2 * digits + 8);
          y = place(y, low ? bias - e / 2 : bias + e / 2 - digits);
          if (rng.next() & 1) y = T(1) / y;
        }
        break;
      }
      case 7: {  // around 2^-900 and 2^-960 for doubles, where the FMA path ends
        int exponent = sizeof(T) == 8 ? (rng.next() & 1 ? -900 : -960) : min_exponent + 5;
        exponent += static_cast<int>(rng.next() % 9) - 4;
        x = std::ldexp(std::abs(short_value<T>(rng, digits, 1, 1)), exponent);
        if (rng.next() & 1) x = std::ldexp(T(1), exponent);
        x = std::nextafter(x, rng.next() & 1 ? limits::infinity() : T(0));
        y = short_value<T>(rng, digits, -3, 3);
        if (rng.next() & 1) std::swap(x, y);
        break;
      }
    }
    a[i] = x;
    b[i] = y;
  }
}

template <class T>
std::vector<T> corner_values() {
  using limits = std::numeric_limits<T>;
  constexpr int digits = limits::digits;
  T tiny = limits::denorm_min(), smallest = limits::min(), largest = limits::max();
  T one = 1, inf = limits::infinity();
  std::vector<T> values = {T(0),
                           tiny,
                           2 * tiny,
                           3 * tiny,
                           smallest - tiny,
                           smallest,
                           smallest + tiny,
                           smallest * T(1.5),
                           std::sqrt(smallest),
                           std::nextafter(std::sqrt(smallest), T(0)),
                           std::ldexp(one, -digits),
                           std::ldexp(one, -digits - 1),
                           std::ldexp(T(3), -digits - 1),
                           T(0.5),
                           one,
                           std::nextafter(one, T(2)),
                           std::nextafter(one, T(0)),
                           T(1.5),
                           T(2),
                           T(3),
                           T(0.1),
                           one / 3,
                           std::sqrt(T(2)),
                           std::sqrt(largest),
                           std::nextafter(std::sqrt(largest), inf),
                           largest / 2,
                           std::ldexp(one, limits::max_exponent - 1),
                           std::nextafter(largest, T(0)),
                           largest,
                           inf,
                           limits::quiet_NaN()};
  if constexpr (sizeof(T) == 8) {
    for (int e : {-900, -960, -969, -1000})
      for (T v : {std::ldexp(one, e), std::nextafter(std::ldexp(one, e), T(0)), std::ldexp(T(1.75), e)})
        values.push_back(v);
  }
  std::size_t positive = values.size();
  for (std::size_t i = 0; i < positive; ++i) values.push_back(-values[i]);
  return values;
}

template <class T>
int corner_mismatches() {
  std::vector<T> values = corner_values<T>(), a, b;
  for (T x : values)
    for (T y : values) {
      a.push_back(x);
      b.push_back(y);
    }
  return mismatches(a, b);
}

/// static_cast<To> of each value with the rounding mode switched once for
/// the batch, as reference() does.
template <class To, class From>
std::vector<To> reference_conversion(int mode, const std::vector<From>& from) {
  std::vector<To> out(from.size());
  int saved = std::fegetround();
  std::fesetround(mode);
  for (std::size_t i = 0; i < from.size(); ++i) {
    volatile From x = from[i];
    volatile To r = static_cast<To>(x);
    out[i] = r;
  }
  std::fesetround(saved);
  return out;
}

template <class To, class From>
int conversion_mismatches(const char* name, To (*rz)(From), To (*ru)(From), To (*rd)(From),
                          const std::vector<From>& values) {
  int count = 0;
  for (int mode : directed_modes) {
    std::vector<To> expected = reference_conversion<To>(mode, values);
    auto convert = by_mode(mode, rz, ru, rd);
    for (std::size_t i = 0; i < values.size(); ++i) {
      To actual = convert(values[i]);
      if (same_result(expected[i], actual)) continue;
      if (++count > 8) continue;
      std::string call = std::string(name) + "_" + name_of_mode(mode) + "(" + std::to_string(values[i]);
      MESSAGE(call << ") = " << hex(actual) << ", expected " << hex(expected[i]));
    }
  }
  CHECK(std::fegetround() == FE_TONEAREST);
  return count;
}

/// Nonzero integers of every bit length (zero, +0 in every mode, is checked
/// apart: some compilers' unsigned conversions give -0 when rounding down).
template <class I>
std::vector<I> random_integers(std::size_t n, std::uint64_t seed) {
  splitmix64 rng{seed};
  std::vector<I> values(n);
  for (auto& v : values) {
    auto bits = rng.next() >> (rng.next() % 64);
    if (rng.next() % 4 == 0) bits |= ~std::uint64_t{0} << (rng.next() % 64);  // long runs of ones
    v = static_cast<I>(bits);
    if (v == 0) v = 1;
  }
  return values;
}

/// Doubles of any bit pattern, near floats and half-way between them, and
/// around float's overflow and subnormal thresholds.
std::vector<double> random_doubles_for_float(std::size_t n, std::uint64_t seed) {
  splitmix64 rng{seed};
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    double x = std::bit_cast<double>(rng.next());
    switch (i % 4) {
      case 0:
        break;
      case 1: {
        double f = std::bit_cast<float>(static_cast<std::uint32_t>(rng.next()));
        std::int64_t offsets[] = {0, 1, -1, std::int64_t{1} << 28, -(std::int64_t{1} << 28)};
        std::uint64_t bits = std::bit_cast<std::uint64_t>(f) + offsets[rng.next() % 5];
        x = std::bit_cast<double>(bits + (rng.next() % 3) - 1);
        break;
      }
      case 2:
      case 3: {
        std::uint64_t exponent = i % 4 == 2 ? 1023 + 120 + rng.next() % 12 : 1023 - 160 + rng.next() % 40;
        std::uint64_t bits = std::bit_cast<std::uint64_t>(x) & 0x800fffffffffffffull;
        if (rng.next() & 1) bits &= ~((std::uint64_t{1} << (rng.next() % 52)) - 1);
        x = std::bit_cast<double>(bits | exponent << 52);
        break;
      }
    }
    values[i] = x;
  }
  return values;
}

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }
bool same_bits(float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }

}  // namespace

TEST_CASE("float directed-rounding intrinsics match fesetround on random operands") {
  std::vector<float> a, b;
  random_operands<float>(std::size_t{1} << 21, 1, a, b);
  CHECK(mismatches(a, b) == 0);
}

TEST_CASE("double directed-rounding intrinsics match fesetround on random operands") {
  std::vector<double> a, b;
  random_operands<double>(std::size_t{1} << 21, 2, a, b);
  CHECK(mismatches(a, b) == 0);
}

TEST_CASE("directed-rounding intrinsics match fesetround on every pair of corner values") {
  CHECK(corner_mismatches<float>() == 0);
  CHECK(corner_mismatches<double>() == 0);
}

TEST_CASE("directed-rounding intrinsics keep IEEE 754's zeros, infinities and overflow results") {
  constexpr double dmax = std::numeric_limits<double>::max(), dtiny = std::numeric_limits<double>::denorm_min();
  constexpr float fmax = std::numeric_limits<float>::max(), ftiny = std::numeric_limits<float>::denorm_min();
  constexpr double dinf = std::numeric_limits<double>::infinity();
  constexpr float finf = std::numeric_limits<float>::infinity();
  // An exact zero sum is -0 when rounding down, +0 otherwise.
  CHECK(same_bits(__dadd_rd(1.5, -1.5), -0.0));
  CHECK(same_bits(__dadd_ru(1.5, -1.5), 0.0));
  CHECK(same_bits(__fsub_rd(2.0f, 2.0f), -0.0f));
  CHECK(same_bits(__fsub_rz(2.0f, 2.0f), 0.0f));
  CHECK(same_bits(__dadd_rd(0.0, 0.0), 0.0));
  CHECK(same_bits(__dadd_rd(-0.0, 0.0), -0.0));
  // Zero products and quotients take the operands' signs in every mode.
  CHECK(same_bits(__dmul_ru(0.0, -3.0), -0.0));
  CHECK(same_bits(__fmul_rd(-0.0f, -2.0f), 0.0f));
  CHECK(same_bits(__ddiv_rz(-0.0, 5.0), -0.0));
  CHECK(same_bits(__fdiv_ru(1.0f, -finf), -0.0f));
  CHECK(same_bits(__dsqrt_rd(-0.0), -0.0));
  CHECK(std::isnan(__dsqrt_ru(-1.0)));
  CHECK(std::isnan(__fsqrt_rz(-ftiny)));
  // Division by zero, and reciprocals of values too small to invert.
  CHECK(__ddiv_ru(1.0, 0.0) == dinf);
  CHECK(__ddiv_rd(-1.0, 0.0) == -dinf);
  CHECK(__drcp_rz(dtiny) == dmax);
  CHECK(__drcp_ru(dtiny) == dinf);
  CHECK(__frcp_rd(-ftiny) == -finf);
  CHECK(__frcp_ru(-ftiny) == -fmax);
  // Overflow gives the largest finite value toward zero, infinity away.
  CHECK(__dadd_rz(dmax, dmax) == dmax);
  CHECK(__dadd_ru(-dmax, -dmax) == -dmax);
  CHECK(__dmul_rd(-dmax, 2.0) == -dinf);
  CHECK(__fmul_rz(fmax, -2.0f) == -fmax);
  CHECK(__fadd_ru(fmax, std::ldexp(1.0f, 102)) == finf);  // a quarter ulp past FLT_MAX
  CHECK(__fadd_rn(fmax, std::ldexp(1.0f, 102)) == fmax);
  // Underflow: the smallest subnormal away from zero, zero of the right sign toward it.
  CHECK(__dmul_ru(dtiny, 0.5) == dtiny);
  CHECK(same_bits(__dmul_rd(dtiny, 0.5), 0.0));
  CHECK(same_bits(__dmul_rz(-dtiny, 0.5), -0.0));
  CHECK(__dmul_rd(-dtiny, 0.5) == -dtiny);
  CHECK(same_bits(__fdiv_ru(-ftiny, 3.0f), -0.0f));
  CHECK(__fdiv_rd(-ftiny, 3.0f) == -ftiny);
  CHECK(std::fegetround() == FE_TONEAREST);
}

TEST_CASE("directed-rounding conversions to float and double match fesetround") {
  constexpr std::size_t n = std::size_t{1} << 20;
  CHECK(conversion_mismatches("__int2float", __int2float_rz, __int2float_ru, __int2float_rd,
                              random_integers<int>(n, 3)) == 0);
  CHECK(conversion_mismatches("__uint2float", __uint2float_rz, __uint2float_ru, __uint2float_rd,
                              random_integers<unsigned>(n, 4)) == 0);
  CHECK(conversion_mismatches("__ll2float", __ll2float_rz, __ll2float_ru, __ll2float_rd,
                              random_integers<long long>(n, 5)) == 0);
  CHECK(conversion_mismatches("__ull2float", __ull2float_rz, __ull2float_ru, __ull2float_rd,
                              random_integers<unsigned long long>(n, 6)) == 0);
  CHECK(conversion_mismatches("__ll2double", __ll2double_rz, __ll2double_ru, __ll2double_rd,
                              random_integers<long long>(n, 7)) == 0);
  CHECK(conversion_mismatches("__ull2double", __ull2double_rz, __ull2double_ru, __ull2double_rd,
                              random_integers<unsigned long long>(n, 8)) == 0);
  std::vector<double> doubles = random_doubles_for_float(4 * n, 9);
  for (double x : corner_values<double>()) doubles.push_back(x);
  for (float x : corner_values<float>()) {
    doubles.push_back(x);
    doubles.push_back(std::nextafter(double{x}, 0.0));
    doubles.push_back(std::nextafter(double{x}, 1e300));
  }
  CHECK(conversion_mismatches("__double2float", __double2float_rz, __double2float_ru, __double2float_rd, doubles) == 0);
  for (long long x : {LLONG_MIN, LLONG_MAX, LLONG_MIN + 1, -1LL, 1LL, (1LL << 53) + 1, (1LL << 24) + 1}) {
    CHECK(conversion_mismatches("__ll2float", __ll2float_rz, __ll2float_ru, __ll2float_rd, std::vector{x}) == 0);
    CHECK(conversion_mismatches("__ll2double", __ll2double_rz, __ll2double_ru, __ll2double_rd, std::vector{x}) == 0);
  }
  for (unsigned long long x : {ULLONG_MAX, ULLONG_MAX - 1, 1ULL << 63, (1ULL << 63) + 1, 1ULL}) {
    CHECK(conversion_mismatches("__ull2float", __ull2float_rz, __ull2float_ru, __ull2float_rd, std::vector{x}) == 0);
    CHECK(conversion_mismatches("__ull2double", __ull2double_rz, __ull2double_ru, __ull2double_rd, std::vector{x}) ==
          0);
  }
  CHECK(same_bits(__ull2double_rd(0), 0.0));
  CHECK(same_bits(__int2float_rd(0), 0.0f));
}
