// The arithmetic of the warp collectives: which lane each lane of a shuffle
// reads, and what a vote, match or reduction returns, computed from the
// operands the lanes deposited. Nothing here waits or knows a kernel: the
// rendezvous that gathers the operands (groups, parking, mask checks) is the
// block executor's (block_executor_warps.hpp), which calls warp_results
// once the last lane of a group has arrived. So the rules can be read, and
// tested, on their own (tests/unit/executor/warp_arithmetic_test.cpp).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

namespace weft::detail {

/// The warp collectives (CUDA guide, "Warp Shuffle Functions", "Warp Vote
/// Functions", "Warp Match Functions", "Warp Reduce Functions"). Lanes of one
/// group must call the same one.
enum class warp_op : unsigned char {
  sync,
  shfl,
  shfl_up,
  shfl_down,
  shfl_xor,
  ballot,
  any,
  all,
  match_any,
  match_all,
  reduce_add,
  reduce_min_signed,
  reduce_min_unsigned,
  reduce_max_signed,
  reduce_max_unsigned,
  reduce_and,
  reduce_or,
  reduce_xor,
};

/// What a lane brings to a warp collective: its operand (a shuffled value's
/// bits, a predicate, a key), the lane or delta argument, and the width.
struct warp_operand {
  std::uint64_t value = 0;
  int lane = 0;
  int width = 32;
};

/// What a lane gets back: the value, and match_all's predicate.
struct warp_result {
  std::uint64_t value = 0;
  int predicate = 0;
};

/// The lanes of `warp` that exist in a block of `threads`: the last warp of
/// a block may be partial.
inline unsigned lanes_in_block(unsigned threads, unsigned warp) {
  unsigned n = threads - warp * 32;
  return n >= 32 ? ~0u : (1u << n) - 1;
}

/// A warp's lanes' operands and results at a warp collective, side by side,
/// so that the lane completing a group reads and writes a few cache lines
/// instead of one per lane.
struct warp_exchange {
  std::uint64_t operand[32];
  std::uint64_t result[32];
  std::uint8_t source[32];  // a shuffle's lane or delta operand, modulo 32
  std::uint8_t width[32];   // a shuffle's segment width

  /// A lane arriving at a collective leaves its operand here. Each field
  /// is read before any store: a byte store may alias `o`, and GCC then
  /// loaded the width back from memory after it instead of storing the
  /// constant 32 it had just written there.
  void stage(unsigned lane, const warp_operand& o) {
    std::uint64_t value = o.value;
    int b = o.lane, w = o.width;
    operand[lane] = value;
    source[lane] = static_cast<std::uint8_t>(b & 31);
    width[lane] = static_cast<std::uint8_t>(w);
  }
};

// A shuffled value's bits, zero-extended to 64, and back.
template <class T>
std::uint64_t to_bits(T v) {
  if constexpr (sizeof(T) == 8)
    return std::bit_cast<std::uint64_t>(v);
  else
    return std::bit_cast<std::uint32_t>(v);
}
template <class T>
T from_bits(std::uint64_t b) {
  if constexpr (sizeof(T) == 8)
    return std::bit_cast<T>(b);
  else
    return std::bit_cast<T>(static_cast<std::uint32_t>(b));
}

/// The lane whose value `lane` reads, by CUDA's shfl.sync rules (PTX ISA,
/// "shfl.sync"): lanes form segments of `width`; `b` is the lane or delta
/// operand, already taken modulo 32; up and down past the segment's edge,
/// and xor past its end, read the caller's own value.
inline unsigned shuffle_source(warp_op op, unsigned lane, unsigned b, unsigned width) {
  unsigned first = lane & ~(width - 1), last = first + width - 1;
  switch (op) {
    case warp_op::shfl_up:
      return lane >= first + b ? lane - b : lane;
    case warp_op::shfl_down:
      return lane + b <= last ? lane + b : lane;
    case warp_op::shfl_xor:
      return (lane ^ b) <= last ? lane ^ b : lane;
    default:
      return first | (b & (width - 1));
  }
}

/// Whether every lane of the warp shuffles with the same lane or delta
/// operand and width, the common case, compared eight lanes at a time.
inline bool same_shuffle_operands(const warp_exchange& x) {
  std::uint64_t source[4], width[4];
  std::memcpy(source, x.source, sizeof source);
  std::memcpy(width, x.width, sizeof width);
  std::uint64_t first_source = source[0] & 0xff, first_width = width[0] & 0xff;
  std::uint64_t all_source = first_source * 0x0101010101010101u, all_width = first_width * 0x0101010101010101u;
  return ((source[0] ^ all_source) | (source[1] ^ all_source) | (source[2] ^ all_source) | (source[3] ^ all_source) |
          (width[0] ^ all_width) | (width[1] ^ all_width) | (width[2] ^ all_width) | (width[3] ^ all_width)) == 0;
}

/// The loop of shuffle_whole_warp for one kind of shuffle: the kind a
/// constant, so that choosing a lane's source is a compare and a move, not
/// a switch per lane.
template <warp_op op>
void shuffle_whole_warp_as(warp_exchange& x, unsigned b, unsigned width) {
  for (unsigned lane = 0; lane < 32; ++lane) x.result[lane] = x.operand[shuffle_source(op, lane, b, width)];
}

/// A shuffle of all 32 lanes with one operand and width: every source lane
/// is in the mask, and the loop has no per-lane decoding. Up and down over
/// the whole warp (reductions and scans) are two block copies: lanes past
/// the edge keep their own values.
inline void shuffle_whole_warp(warp_op op, warp_exchange& x) {
  unsigned b = x.source[0], width = x.width[0];
  if (width == 32 && op == warp_op::shfl_down) {
    std::memcpy(x.result, x.operand + b, (32 - b) * sizeof x.operand[0]);
    std::memcpy(x.result + (32 - b), x.operand + (32 - b), b * sizeof x.operand[0]);
    return;
  }
  if (width == 32 && op == warp_op::shfl_up) {
    std::memcpy(x.result + b, x.operand, (32 - b) * sizeof x.operand[0]);
    std::memcpy(x.result, x.operand, b * sizeof x.operand[0]);
    return;
  }
  switch (op) {
    case warp_op::shfl_up:
      return shuffle_whole_warp_as<warp_op::shfl_up>(x, b, width);
    case warp_op::shfl_down:
      return shuffle_whole_warp_as<warp_op::shfl_down>(x, b, width);
    case warp_op::shfl_xor:
      return shuffle_whole_warp_as<warp_op::shfl_xor>(x, b, width);
    default:
      return shuffle_whole_warp_as<warp_op::shfl>(x, b, width);
  }
}

/// The one result every lane of a vote, match_all or reduction gets
/// (match_all: the mask if all operands are equal, else 0).
inline std::uint64_t uniform_result(warp_op op, const std::uint64_t* operand, unsigned mask) {
  unsigned first = static_cast<unsigned>(std::countr_zero(mask));
  std::uint64_t acc = operand[first];
  unsigned ballot = 0;
  bool all_equal = true;
  for (unsigned m = mask; m != 0; m &= m - 1) {
    unsigned lane = static_cast<unsigned>(std::countr_zero(m));
    std::uint64_t v = operand[lane];
    if (v != 0) ballot |= 1u << lane;
    all_equal &= v == acc;
    switch (op) {
      case warp_op::reduce_add:
        if (lane != first) acc += v;
        break;
      case warp_op::reduce_min_signed:
        acc = static_cast<std::int64_t>(v) < static_cast<std::int64_t>(acc) ? v : acc;
        break;
      case warp_op::reduce_max_signed:
        acc = static_cast<std::int64_t>(v) > static_cast<std::int64_t>(acc) ? v : acc;
        break;
      case warp_op::reduce_min_unsigned:
        acc = std::min(acc, v);
        break;
      case warp_op::reduce_max_unsigned:
        acc = std::max(acc, v);
        break;
      case warp_op::reduce_and:
        acc &= v;
        break;
      case warp_op::reduce_or:
        acc |= v;
        break;
      case warp_op::reduce_xor:
        if (lane != first) acc ^= v;
        break;
      default:
        break;
    }
  }
  switch (op) {
    case warp_op::ballot:
      return ballot;
    case warp_op::any:
      return ballot != 0;
    case warp_op::all:
      return ballot == mask;
    case warp_op::match_all:
      return all_equal ? mask : 0u;
    default:
      return acc;
  }
}

/// Every lane of `mask` gets its result of `op` in x.result, from the
/// operands its lanes deposited. Lanes outside the mask are neither read
/// nor written. Always inlined into the block executor's complete_group,
/// where this code was written before it moved here: otherwise GCC inlines
/// complete_group into warp_collective instead and calls this, which moves
/// the warp benchmark's one call per completed group elsewhere.
[[gnu::always_inline]] inline void warp_results(warp_op op, unsigned mask, warp_exchange& x) {
  switch (op) {
    case warp_op::sync:
      break;
    case warp_op::shfl:
    case warp_op::shfl_up:
    case warp_op::shfl_down:
    case warp_op::shfl_xor:
      if (mask == ~0u && same_shuffle_operands(x)) {
        shuffle_whole_warp(op, x);
        break;
      }
      for (unsigned m = mask; m != 0; m &= m - 1) {
        unsigned lane = static_cast<unsigned>(std::countr_zero(m));
        unsigned source = shuffle_source(op, lane, x.source[lane], x.width[lane]);
        // A source lane outside the mask is undefined in CUDA; weft gives
        // 0, as an H100 did (tests/differential/warp_probe.expected).
        x.result[lane] = mask >> source & 1 ? x.operand[source] : 0;
      }
      break;
    case warp_op::match_any:
      for (unsigned m = mask; m != 0; m &= m - 1) {
        unsigned lane = static_cast<unsigned>(std::countr_zero(m)), same = 0;
        for (unsigned o = mask; o != 0; o &= o - 1) {
          unsigned other = static_cast<unsigned>(std::countr_zero(o));
          if (x.operand[other] == x.operand[lane]) same |= 1u << other;
        }
        x.result[lane] = same;
      }
      break;
    default: {
      std::uint64_t r = uniform_result(op, x.operand, mask);
      for (unsigned m = mask; m != 0; m &= m - 1) x.result[std::countr_zero(m)] = r;
    }
  }
}

}  // namespace weft::detail
