// Integer bit intrinsics (CUDA Math API, "Integer Intrinsics"), used beside
// the warp vote and match functions: population count, leading zeros, first
// set bit, bit reversal, byte permutation and funnel shifts.
#pragma once

#include <bit>
#include <cstdint>

/// Number of set bits.
inline int __popc(unsigned int x) { return std::popcount(x); }
inline int __popcll(unsigned long long x) { return std::popcount(x); }

/// Number of leading zero bits (32 for 0, 64 for 0 in the ll form).
inline int __clz(int x) { return std::countl_zero(static_cast<unsigned int>(x)); }
inline int __clzll(long long x) { return std::countl_zero(static_cast<unsigned long long>(x)); }

/// Position of the least significant set bit, counting from 1; 0 for 0.
inline int __ffs(int x) { return x == 0 ? 0 : std::countr_zero(static_cast<unsigned int>(x)) + 1; }
inline int __ffsll(long long x) { return x == 0 ? 0 : std::countr_zero(static_cast<unsigned long long>(x)) + 1; }

/// The bits in reverse order.
inline unsigned int __brev(unsigned int x) {
  x = (x >> 1 & 0x55555555u) | (x & 0x55555555u) << 1;
  x = (x >> 2 & 0x33333333u) | (x & 0x33333333u) << 2;
  x = (x >> 4 & 0x0f0f0f0fu) | (x & 0x0f0f0f0fu) << 4;
  x = (x >> 8 & 0x00ff00ffu) | (x & 0x00ff00ffu) << 8;
  return x >> 16 | x << 16;
}
inline unsigned long long __brevll(unsigned long long x) {
  return static_cast<unsigned long long>(__brev(static_cast<unsigned int>(x))) << 32 |
         __brev(static_cast<unsigned int>(x >> 32));
}

/// Byte n of the result is byte (s >> 4n) & 7 of the eight bytes y:x (x the
/// low four), as PTX prmt in its default mode.
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  unsigned long long bytes = static_cast<unsigned long long>(y) << 32 | x;
  unsigned int result = 0;
  for (int n = 0; n < 4; ++n) {
    unsigned int selector = s >> (4 * n) & 7;
    result |= static_cast<unsigned int>(bytes >> (8 * selector) & 0xff) << (8 * n);
  }
  return result;
}

/// The 64-bit value hi:lo shifted left by `shift` (modulo 32; clamped to 32 in
/// the c form), returning the high 32 bits.
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
  unsigned long long v = static_cast<unsigned long long>(hi) << 32 | lo;
  return static_cast<unsigned int>(v << (shift & 31) >> 32);
}
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
  unsigned long long v = static_cast<unsigned long long>(hi) << 32 | lo;
  return static_cast<unsigned int>(v << (shift < 32 ? shift : 32) >> 32);
}
/// The 64-bit value hi:lo shifted right by `shift` (modulo 32; clamped to 32
/// in the c form), returning the low 32 bits.
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
  unsigned long long v = static_cast<unsigned long long>(hi) << 32 | lo;
  return static_cast<unsigned int>(v >> (shift & 31));
}
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
  unsigned long long v = static_cast<unsigned long long>(hi) << 32 | lo;
  return static_cast<unsigned int>(v >> (shift < 32 ? shift : 32));
}

// ---- Integer arithmetic intrinsics ----
//
// The arithmetic is done in a wider type, where it cannot overflow, then
// narrowed as two's complement, so that every input gives CUDA's bits.

/// The low 32 bits of the product of the low 24 bits of x and y, sign-
/// extended from bit 23 (__mul24) or taken as unsigned (__umul24). Older
/// code used them because 24-bit products were faster on early GPUs.
inline int __mul24(int x, int y) {
  auto low24 = [](int v) {
    auto u = static_cast<std::int64_t>(static_cast<std::uint32_t>(v) & 0xffffffu);
    return u >= 0x800000 ? u - 0x1000000 : u;
  };
  return static_cast<int>(static_cast<std::uint32_t>(low24(x) * low24(y)));
}
inline unsigned int __umul24(unsigned int x, unsigned int y) {
  return static_cast<unsigned int>(std::uint64_t{x & 0xffffffu} * (y & 0xffffffu));
}

/// The high 32 (or 64) bits of the full product.
inline int __mulhi(int x, int y) {
  return static_cast<int>(static_cast<std::int64_t>(x) * static_cast<std::int64_t>(y) >> 32);
}
inline unsigned int __umulhi(unsigned int x, unsigned int y) {
  return static_cast<unsigned int>(std::uint64_t{x} * std::uint64_t{y} >> 32);
}
inline long long __mul64hi(long long x, long long y) {
  return static_cast<long long>(static_cast<__int128>(x) * static_cast<__int128>(y) >> 64);
}
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return static_cast<unsigned long long>(static_cast<unsigned __int128>(x) * static_cast<unsigned __int128>(y) >> 64);
}

/// |x - y| + z, the sum of absolute differences' step.
inline unsigned int __sad(int x, int y, unsigned int z) {
  std::int64_t d = static_cast<std::int64_t>(x) - y;
  return static_cast<unsigned int>((d < 0 ? -d : d) + z);
}
inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return (x > y ? x - y : y - x) + z; }

/// (x + y) >> 1 and (x + y + 1) >> 1 without overflow. The signed truncating
/// form, CUDA's int __hadd, is left out: weft's __hadd is __half's, found
/// by argument, and an int overload beside it would let `::__hadd(h1, h2)`
/// on halves compile to integer addition.
inline int __rhadd(int x, int y) { return static_cast<int>((static_cast<std::int64_t>(x) + y + 1) >> 1); }
inline unsigned int __uhadd(unsigned int x, unsigned int y) {
  return static_cast<unsigned int>((std::uint64_t{x} + y) >> 1);
}
inline unsigned int __urhadd(unsigned int x, unsigned int y) {
  return static_cast<unsigned int>((std::uint64_t{x} + y + 1) >> 1);
}
