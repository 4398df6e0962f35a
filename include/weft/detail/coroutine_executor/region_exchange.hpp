// A warp shuffle in a region version: weft-port splits a shuffle statement
// of a stackless kernel (`v += __shfl_down_sync(0xffffffff, v, 16);`) where
// a barrier could stand, so that the region before it leaves each thread's
// operand in the block's exchange, and the region after it reads the
// source lane's (docs/architecture.md, "Region versions"). Every thread of
// the block reaches such a shuffle, none of them returned before it (the
// port refuses a kernel with a `return` and shuffles), so a warp's lanes
// are all there as the stackless executor's shuffle would need them.
#pragma once

#include <cstdint>
#include <type_traits>

#include "weft/detail/coroutine_executor/frame_arena.hpp"
#include "weft/detail/coroutine_executor/region_block.hpp"
#include "weft/detail/executor/warp_arithmetic.hpp"

namespace weft::detail {

/// One slot per thread of the block, indexed by its linear id.
class region_exchange {
 public:
  explicit region_exchange(region_block& block)
      : arena_(block.arena()),
        count_(block.thread_count()),
        slots_(static_cast<std::uint64_t*>(arena_.allocate(sizeof(std::uint64_t) * count_))) {}
  region_exchange(const region_exchange&) = delete;
  region_exchange& operator=(const region_exchange&) = delete;
  ~region_exchange() { arena_.release(slots_); }

  /// Thread `t` leaves its operand (promoted as CUDA's overloads take it).
  template <class T>
  void put(unsigned t, T value) {
    static_assert(std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8),
                  "a shuffle's operand: a 4- or 8-byte type, as __shfl*_sync takes");
    slots_[t] = to_bits(value);
  }

  /// What thread `t` gets from shuffle `op` with lane or delta `b` and
  /// `width`: its source lane's operand by CUDA's rules (shuffle_source,
  /// the one the executors use). A source lane past the block's end (a
  /// partial last warp, which the full mask means as the lanes that
  /// exist) gives 0, as the executors' source lane outside the mask does.
  template <class T>
  T get(warp_op op, unsigned t, unsigned b, unsigned width) const {
    unsigned lane = t % 32, source = t - lane + shuffle_source(op, lane, b & 31, width);
    return from_bits<T>(source < count_ ? slots_[source] : 0);
  }

 private:
  frame_arena& arena_;
  unsigned count_;
  std::uint64_t* slots_;
};

}  // namespace weft::detail
