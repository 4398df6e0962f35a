// What the warp collectives compute once their lanes have met
// (detail/executor/warp_arithmetic.hpp), checked without a kernel: each
// test deposits the lanes' operands in a warp_exchange as the block
// executor does, and compares every lane's result with the rule in the
// CUDA Programming Guide ("Warp Shuffle Functions", "Warp Vote Functions",
// "Warp Match Functions", "Warp Reduce Functions"), written out here lane
// by lane in the guide's own terms.
#include <doctest/doctest.h>
#include <weft/detail/executor/warp_arithmetic.hpp>

#include <array>
#include <cstdint>
#include <utility>

using weft::detail::warp_exchange;
using weft::detail::warp_op;
using weft::detail::warp_results;

namespace {

constexpr unsigned full_mask = 0xffffffffu;
constexpr std::uint64_t untouched = 0xdeadbeefdeadbeefu;

// A warp at a collective. Lanes outside the mask keep a stale operand and
// result, which the computation must neither read nor overwrite.
struct warp {
  warp_exchange x{};

  warp() {
    for (unsigned lane = 0; lane < 32; ++lane) {
      x.operand[lane] = untouched;
      x.result[lane] = untouched;
      x.source[lane] = 0;
      x.width[lane] = 32;
    }
  }

  // What a lane brings, as block_executor::warp_collective stores it: the
  // lane or delta argument modulo 32, as PTX's shfl.sync takes it.
  void deposit(unsigned lane, std::uint64_t value, int lane_or_delta = 0, int width = 32) {
    x.operand[lane] = value;
    x.source[lane] = static_cast<std::uint8_t>(lane_or_delta & 31);
    x.width[lane] = static_cast<std::uint8_t>(width);
  }

  // Every lane of `mask` with value(lane) and the same lane or delta argument and width.
  template <class Value>
  void deposit_all(unsigned mask, Value value, int lane_or_delta = 0, int width = 32) {
    for (unsigned lane = 0; lane < 32; ++lane)
      if (mask >> lane & 1) deposit(lane, value(lane), lane_or_delta, width);
  }

  std::uint64_t result(unsigned lane) const { return x.result[lane]; }
};

// A distinct value per lane, so that a result names the lane it came from.
std::uint64_t value_of(unsigned lane) { return 1000 + lane; }

// The 32-bit results a kernel would see for int operands, which
// warp_functions.hpp passes sign-extended to 64 bits.
std::uint64_t as_int(int v) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(v)); }
int int_result(std::uint64_t r) { return static_cast<int>(r); }
unsigned unsigned_result(std::uint64_t r) { return static_cast<unsigned>(r); }

constexpr std::array<int, 6> widths{1, 2, 4, 8, 16, 32};

}  // namespace

TEST_CASE("__shfl_sync reads srcLane of the caller's width-lane segment, srcLane taken modulo width") {
  for (int width : widths) {
    for (int src_lane : {0, 1, 3, 5, 13, 31, 33, -1}) {
      warp w;
      w.deposit_all(full_mask, value_of, src_lane, width);
      warp_results(warp_op::shfl, full_mask, w.x);
      for (unsigned lane = 0; lane < 32; ++lane) {
        unsigned segment_start = lane / width * width;
        unsigned src = segment_start + static_cast<unsigned>(((src_lane % width) + width) % width);
        INFO("width " << width << ", srcLane " << src_lane << ", lane " << lane);
        CHECK(w.result(lane) == value_of(src));
      }
    }
  }
}

TEST_CASE("__shfl_up_sync reads lane minus delta, and a lane whose source is below its segment keeps its own value") {
  for (int width : widths) {
    for (int delta = 0; delta < 32; ++delta) {
      warp w;
      w.deposit_all(full_mask, value_of, delta, width);
      warp_results(warp_op::shfl_up, full_mask, w.x);
      for (unsigned lane = 0; lane < 32; ++lane) {
        bool in_segment = static_cast<int>(lane % width) - delta >= 0;
        INFO("width " << width << ", delta " << delta << ", lane " << lane);
        CHECK(w.result(lane) == (in_segment ? value_of(lane - delta) : value_of(lane)));
      }
    }
  }
}

TEST_CASE(
    "__shfl_down_sync reads lane plus delta, and keeps the lane's own value when lane plus delta passes its segment") {
  for (int width : widths) {
    for (int delta = 0; delta < 32; ++delta) {
      warp w;
      w.deposit_all(full_mask, value_of, delta, width);
      warp_results(warp_op::shfl_down, full_mask, w.x);
      for (unsigned lane = 0; lane < 32; ++lane) {
        bool in_segment = static_cast<int>(lane % width) + delta < width;
        INFO("width " << width << ", delta " << delta << ", lane " << lane);
        CHECK(w.result(lane) == (in_segment ? value_of(lane + delta) : value_of(lane)));
      }
    }
  }
}

TEST_CASE("__shfl_xor_sync reads lane xor laneMask from its own or an earlier segment, never a later one") {
  // The guide: with width below warpSize, each group of width lanes "can
  // access elements from earlier groups", and an access to a later group
  // returns the caller's own value.
  for (int width : widths) {
    for (int lane_mask = 0; lane_mask < 32; ++lane_mask) {
      warp w;
      w.deposit_all(full_mask, value_of, lane_mask, width);
      warp_results(warp_op::shfl_xor, full_mask, w.x);
      for (unsigned lane = 0; lane < 32; ++lane) {
        unsigned src = lane ^ static_cast<unsigned>(lane_mask);
        bool later_group = src / width > lane / width;
        INFO("width " << width << ", laneMask " << lane_mask << ", lane " << lane);
        CHECK(w.result(lane) == (later_group ? value_of(lane) : value_of(src)));
      }
    }
  }
}

TEST_CASE("__shfl_xor_sync butterfly with width 16 stays inside each 16-lane segment") {
  for (int lane_mask : {1, 2, 4, 8}) {
    warp w;
    w.deposit_all(full_mask, value_of, lane_mask, 16);
    warp_results(warp_op::shfl_xor, full_mask, w.x);
    for (unsigned lane = 0; lane < 32; ++lane) {
      unsigned src = lane ^ static_cast<unsigned>(lane_mask);
      CHECK(src / 16 == lane / 16);
      CHECK(w.result(lane) == value_of(src));
    }
  }
}

TEST_CASE("shuffles whose lanes pass different arguments follow the same rules lane by lane") {
  // Each lane reads a lane of its own choosing (a gather), and for up and
  // down a delta and width of its own: not the uniform path.
  warp gather;
  for (unsigned lane = 0; lane < 32; ++lane) gather.deposit(lane, value_of(lane), static_cast<int>(31 - lane));
  CHECK_FALSE(weft::detail::same_shuffle_operands(gather.x));
  warp_results(warp_op::shfl, full_mask, gather.x);
  for (unsigned lane = 0; lane < 32; ++lane) CHECK(gather.result(lane) == value_of(31 - lane));

  warp down;
  for (unsigned lane = 0; lane < 32; ++lane) down.deposit(lane, value_of(lane), static_cast<int>(lane % 4), 8);
  warp_results(warp_op::shfl_down, full_mask, down.x);
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned delta = lane % 4;
    CHECK(down.result(lane) == (lane % 8 + delta < 8 ? value_of(lane + delta) : value_of(lane)));
  }
}

TEST_CASE("same_shuffle_operands tells a warp whose lanes all pass one argument and width") {
  warp w;
  w.deposit_all(full_mask, value_of, 3, 16);
  CHECK(weft::detail::same_shuffle_operands(w.x));
  for (unsigned lane = 0; lane < 32; ++lane) {
    warp other_source = w, other_width = w;
    other_source.deposit(lane, value_of(lane), 4, 16);
    other_width.deposit(lane, value_of(lane), 3, 8);
    INFO("lane " << lane);
    CHECK_FALSE(weft::detail::same_shuffle_operands(other_source.x));
    CHECK_FALSE(weft::detail::same_shuffle_operands(other_width.x));
  }
}

TEST_CASE("a shuffle over part of the warp reads 0 from a source lane outside the mask and leaves other lanes alone") {
  // Undefined in CUDA; an H100 returned 0 (tests/differential/warp_probe.cu,
  // outside_mask), and so does weft.
  const unsigned low_half = 0x0000ffffu;
  warp w;
  w.deposit_all(low_half, value_of, 20);
  warp_results(warp_op::shfl, low_half, w.x);
  for (unsigned lane = 0; lane < 16; ++lane) CHECK(w.result(lane) == 0);
  for (unsigned lane = 16; lane < 32; ++lane) CHECK(w.result(lane) == untouched);

  warp down;
  down.deposit_all(low_half, value_of, 1);
  warp_results(warp_op::shfl_down, low_half, down.x);
  for (unsigned lane = 0; lane < 15; ++lane) CHECK(down.result(lane) == value_of(lane + 1));
  CHECK(down.result(15) == 0);  // lane 16 is outside the mask
}

TEST_CASE("__ballot_sync sets bit n for each lane n of the mask with a non-zero predicate") {
  const unsigned mask = 0x0f0f00ffu;
  warp w;
  w.deposit_all(mask, [](unsigned lane) { return lane % 3 == 0 ? 7u : 0u; });
  // A lane outside the mask with a non-zero stale operand does not vote.
  warp_results(warp_op::ballot, mask, w.x);
  unsigned expected = 0;
  for (unsigned lane = 0; lane < 32; ++lane)
    if ((mask >> lane & 1) && lane % 3 == 0) expected |= 1u << lane;
  for (unsigned lane = 0; lane < 32; ++lane) CHECK(w.result(lane) == (mask >> lane & 1 ? expected : untouched));
}

TEST_CASE("__any_sync and __all_sync evaluate the predicate over the mask's lanes only") {
  const unsigned mask = 0x000000f0u;
  warp none;
  none.deposit_all(mask, [](unsigned) { return 0u; });
  warp_results(warp_op::any, mask, none.x);
  CHECK(none.result(4) == 0);  // the stale operands outside the mask are non-zero

  warp one;
  one.deposit_all(mask, [](unsigned lane) { return lane == 6 ? 1u : 0u; });
  warp_results(warp_op::any, mask, one.x);
  for (unsigned lane = 4; lane < 8; ++lane) CHECK(one.result(lane) == 1);
  warp_results(warp_op::all, mask, one.x);
  for (unsigned lane = 4; lane < 8; ++lane) CHECK(one.result(lane) == 0);

  warp every;
  every.deposit_all(mask, [](unsigned) { return 1u; });
  every.x.operand[0] = 0;  // outside the mask: does not make __all_sync false
  warp_results(warp_op::all, mask, every.x);
  for (unsigned lane = 4; lane < 8; ++lane) CHECK(every.result(lane) == 1);
}

TEST_CASE("__match_any_sync returns to each lane the lanes of the mask holding the same value") {
  for (unsigned mask : {full_mask, 0x00ff00ffu, 0x80000001u}) {
    warp w;
    // Every lane holds lane % 3, those outside the mask too: they must not match.
    for (unsigned lane = 0; lane < 32; ++lane) w.x.operand[lane] = lane % 3;
    w.deposit_all(mask, [](unsigned lane) { return std::uint64_t{lane % 3}; });
    warp_results(warp_op::match_any, mask, w.x);
    for (unsigned lane = 0; lane < 32; ++lane) {
      if (!(mask >> lane & 1)) {
        CHECK(w.result(lane) == untouched);
        continue;
      }
      unsigned same = 0;
      for (unsigned other = 0; other < 32; ++other)
        if ((mask >> other & 1) && other % 3 == lane % 3) same |= 1u << other;
      INFO("mask " << mask << ", lane " << lane);
      CHECK(w.result(lane) == same);
    }
  }
}

TEST_CASE("__match_all_sync returns the mask when every lane of it holds the same value, else 0") {
  const unsigned mask = 0x00ffff00u;
  warp equal;
  equal.deposit_all(mask, [](unsigned) { return std::uint64_t{42}; });
  warp_results(warp_op::match_all, mask, equal.x);  // the stale operands outside the mask differ
  for (unsigned lane = 8; lane < 24; ++lane) CHECK(equal.result(lane) == mask);

  warp one_differs = equal;
  one_differs.deposit(17, 43);
  warp_results(warp_op::match_all, mask, one_differs.x);
  for (unsigned lane = 8; lane < 24; ++lane) CHECK(one_differs.result(lane) == 0);
}

TEST_CASE("__reduce_add_sync sums the mask's lanes, wrapping as 32-bit arithmetic does") {
  warp w;
  w.deposit_all(full_mask, [](unsigned lane) { return as_int(static_cast<int>(lane) - 10); });
  warp_results(warp_op::reduce_add, full_mask, w.x);
  int sum = 0;
  for (int lane = 0; lane < 32; ++lane) sum += lane - 10;
  for (unsigned lane = 0; lane < 32; ++lane) CHECK(int_result(w.result(lane)) == sum);

  const unsigned mask = 0x0000ff00u;
  warp part;
  part.deposit_all(mask, [](unsigned lane) { return std::uint64_t{lane}; });
  warp_results(warp_op::reduce_add, mask, part.x);
  CHECK(unsigned_result(part.result(8)) == 8u + 9 + 10 + 11 + 12 + 13 + 14 + 15);

  warp big;
  big.deposit_all(full_mask, [](unsigned) { return std::uint64_t{0xffffffffu}; });
  warp_results(warp_op::reduce_add, full_mask, big.x);
  CHECK(unsigned_result(big.result(0)) == 32u * 0xffffffffu);  // modulo 2^32
}

TEST_CASE("__reduce_min_sync and __reduce_max_sync compare int operands as signed and unsigned ones as unsigned") {
  const unsigned mask = 0x000000ffu;
  auto values = [](unsigned lane) { return static_cast<int>(lane) * 3 - 12; };  // -12 ... 9

  warp signed_min;
  signed_min.deposit_all(mask, [&](unsigned lane) { return as_int(values(lane)); });
  warp signed_max = signed_min;
  warp_results(warp_op::reduce_min_signed, mask, signed_min.x);
  warp_results(warp_op::reduce_max_signed, mask, signed_max.x);
  CHECK(int_result(signed_min.result(3)) == -12);
  CHECK(int_result(signed_max.result(3)) == 9);

  warp unsigned_min;
  unsigned_min.deposit_all(mask, [&](unsigned lane) { return std::uint64_t{static_cast<unsigned>(values(lane))}; });
  warp unsigned_max = unsigned_min;
  warp_results(warp_op::reduce_min_unsigned, mask, unsigned_min.x);
  warp_results(warp_op::reduce_max_unsigned, mask, unsigned_max.x);
  CHECK(unsigned_result(unsigned_min.result(3)) == 0u);                         // lane 4
  CHECK(unsigned_result(unsigned_max.result(3)) == static_cast<unsigned>(-3));  // lane 3: 0xfffffffd
}

TEST_CASE("__reduce_and_sync, __reduce_or_sync and __reduce_xor_sync combine the mask's lanes bitwise") {
  const unsigned mask = 0x11111111u;  // lanes 0, 4, 8, ..., 28
  auto bits = [](unsigned lane) { return std::uint64_t{0x100u | (1u << (lane / 4))}; };
  unsigned all_and = 0xffffffffu, all_or = 0, all_xor = 0;
  for (unsigned lane = 0; lane < 32; lane += 4) {
    all_and &= static_cast<unsigned>(bits(lane));
    all_or |= static_cast<unsigned>(bits(lane));
    all_xor ^= static_cast<unsigned>(bits(lane));
  }
  for (auto [op, expected] : {std::pair{warp_op::reduce_and, all_and}, std::pair{warp_op::reduce_or, all_or},
                              std::pair{warp_op::reduce_xor, all_xor}}) {
    warp w;
    w.deposit_all(mask, bits);
    warp_results(op, mask, w.x);
    for (unsigned lane = 0; lane < 32; lane += 4) CHECK(unsigned_result(w.result(lane)) == expected);
    CHECK(w.result(1) == untouched);
  }
  CHECK(all_and == 0x100u);
  CHECK(all_or == 0x1ffu);
  CHECK(all_xor == 0xffu);  // bit 8 eight times cancels out
}

TEST_CASE("a reduction over a single lane returns that lane's value") {
  for (warp_op op : {warp_op::reduce_add, warp_op::reduce_min_signed, warp_op::reduce_max_unsigned, warp_op::reduce_and,
                     warp_op::reduce_or, warp_op::reduce_xor}) {
    warp w;
    w.deposit(9, as_int(-7));
    warp_results(op, 1u << 9, w.x);
    CHECK(int_result(w.result(9)) == -7);
  }
}

TEST_CASE("__syncwarp computes nothing") {
  warp w;
  w.deposit_all(full_mask, value_of);
  warp_results(warp_op::sync, full_mask, w.x);
  for (unsigned lane = 0; lane < 32; ++lane) CHECK(w.result(lane) == untouched);
}
