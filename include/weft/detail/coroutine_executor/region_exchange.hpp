// A warp shuffle in a region version: weft-port splits a shuffle statement
// of a stackless kernel (`v += __shfl_down_sync(0xffffffff, v, 16);`) where
// a barrier could stand, so that the region before it leaves each thread's
// operand in the block's exchange, and the region after it reads the
// source lane's (docs/architecture.md, "Region versions"). Every thread of
// the block reaches such a shuffle, none of them returned before it (the
// port refuses a kernel with a `return` and shuffles), so a warp's lanes
// are all there as the stackless executor's shuffle would need them.
// cg::reduce over a tile is split the same way (reduce).
#pragma once

#include <algorithm>
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
        slots_(static_cast<std::uint64_t*>(arena_.allocate(sizeof(std::uint64_t) * count_))),
        unreduced_(static_cast<unsigned char*>(arena_.allocate(count_))) {}
  region_exchange(const region_exchange&) = delete;
  region_exchange& operator=(const region_exchange&) = delete;
  ~region_exchange() {
    arena_.release(unreduced_);
    arena_.release(slots_);
  }

  /// Thread `t` leaves its operand (promoted as CUDA's overloads take it).
  template <class T>
  void put(unsigned t, T value) {
    static_assert(std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8),
                  "a shuffle's operand: a 4- or 8-byte type, as __shfl*_sync takes");
    slots_[t] = to_bits(value);
    unreduced_[t] = 1;
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

  /// What thread `t` gets from cg::reduce(tile, operand, op) over its tile
  /// of `Size` threads, every thread's operand put: the executors' result
  /// bit for bit (cooperative_groups/reduce.hpp), so that a sum of floats
  /// does not change with the executor. `OneInstruction` (a 32-bit
  /// integer's sum, minimum, maximum or bitwise operation, whose order does
  /// not matter) folds the lanes that exist, as redux.sync does; any other op runs the executors'
  /// butterfly for every lane, each lane combining its own value with its
  /// partner's at distances Size/2 down to 1, a missing partner (past the
  /// block's end) giving 0 bits as its shuffle does. The first thread of a
  /// tile to ask reduces the whole tile, since a region runs the threads
  /// in the block's order of the moment, which may start mid-tile.
  template <class T, unsigned Size, bool OneInstruction, class Op>
  T reduce(unsigned t, Op op) {
    unsigned first = t - t % Size;
    if (unreduced_[first]) {
      unreduced_[first] = 0;
      unsigned present = std::min(Size, count_ - first);
      T lanes[Size];
      for (unsigned l = 0; l < Size; ++l) lanes[l] = from_bits<T>(l < present ? slots_[first + l] : 0);
      if constexpr (OneInstruction) {
        T folded = lanes[0];
        for (unsigned l = 1; l < present; ++l) folded = static_cast<T>(op(folded, lanes[l]));
        std::fill_n(lanes, present, folded);
      } else {
        for (unsigned distance = Size / 2; distance > 0; distance /= 2) {
          T next[Size];
          for (unsigned l = 0; l < Size; ++l)
            next[l] = static_cast<T>(op(lanes[l], (l ^ distance) < present ? lanes[l ^ distance] : from_bits<T>(0)));
          std::copy_n(next, Size, lanes);
        }
      }
      for (unsigned l = 0; l < present; ++l) slots_[first + l] = to_bits(lanes[l]);
    }
    return from_bits<T>(slots_[t]);
  }

 private:
  frame_arena& arena_;
  unsigned count_;
  std::uint64_t* slots_;
  unsigned char* unreduced_;  // per thread: put since its tile was last reduced
};

}  // namespace weft::detail
