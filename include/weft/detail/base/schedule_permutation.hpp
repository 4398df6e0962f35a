// The permutations behind WEFT_SCHEDULE (schedule_setting.hpp): of a
// block's threads, of the waiters a barrier releases, and of the order in
// which workers claim a grid's blocks. Each is drawn from the seed and what
// it permutes (the launch, the block), never from which worker runs it or
// when, so that random:<seed> replays the same orders.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <vector>

#include "weft/detail/base/schedule_setting.hpp"

namespace weft::detail {

/// A 64-bit mix (splitmix64's finaliser): nearby inputs give unrelated outputs.
constexpr std::uint64_t mix_bits(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Two values mixed into one seed (a launch's seed and a block's index, say).
constexpr std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t value) { return mix_bits(seed ^ mix_bits(value)); }

/// A small pseudo-random generator (splitmix64): the shuffles need speed and
/// replayability, not quality.
class schedule_random {
 public:
  explicit schedule_random(std::uint64_t seed = 0) : state_(seed) {}
  std::uint64_t next() { return mix_bits(state_ += 0x9e3779b97f4a7c15ull); }
  /// A number in [0, n); n > 0. The bias of the modulo is immaterial here.
  unsigned below(unsigned n) { return static_cast<unsigned>(next() % n); }

  /// Puts [first, last) in a random order (Fisher-Yates).
  void shuffle(unsigned* first, unsigned* last) {
    for (auto n = static_cast<unsigned>(last - first); n > 1; --n) std::swap(first[n - 1], first[below(n)]);
  }

 private:
  std::uint64_t state_;
};

/// A bijection of [0, n) that costs no memory, whatever n: the order in
/// which a grid's blocks are claimed (a grid may have billions). Identity
/// under forward, n-1-i under reverse, and under random a small Feistel
/// network on the next power of four above n, walked until it lands inside
/// [0, n) (at most 4 steps on average, since the power is below 4n).
class index_permutation {
 public:
  index_permutation() = default;  // the identity
  index_permutation(schedule_order order, std::uint64_t n, std::uint64_t seed) : order_(order), n_(n), seed_(seed) {
    unsigned bits = n <= 1 ? 2 : static_cast<unsigned>(std::bit_width(n - 1));
    half_bits_ = (bits + 1) / 2;
  }

  bool is_identity() const { return order_ == schedule_order::forward; }

  std::uint64_t operator()(std::uint64_t i) const {
    switch (order_) {
      case schedule_order::forward:
        return i;
      case schedule_order::reverse:
        return n_ - 1 - i;
      default:
        do i = feistel(i);
        while (i >= n_);
        return i;
    }
  }

 private:
  std::uint64_t feistel(std::uint64_t x) const {
    const std::uint64_t mask = (std::uint64_t{1} << half_bits_) - 1;
    std::uint64_t left = x >> half_bits_, right = x & mask;
    for (std::uint64_t round = 0; round < 4; ++round) {
      std::uint64_t next = left ^ (mix_seed(seed_ + round, right) & mask);
      left = right;
      right = next;
    }
    return left << half_bits_ | right;
  }

  schedule_order order_ = schedule_order::forward;
  std::uint64_t n_ = 0;
  std::uint64_t seed_ = 0;
  unsigned half_bits_ = 1;
};

}  // namespace weft::detail
