// A block run as regions: the region version of a stackless kernel, which
// weft-port writes for a kernel whose only waits are `__syncthreads();`
// statements that every thread of a block provably reaches together
// (docs/architecture.md, "Region versions"). Its body is split at those
// barriers into regions; each region is a loop over the block's threads,
// with threadIdx set for each, so that a barrier is the end of a loop
// instead of a suspension and a resume per thread: PoCL's way of running a
// work-group.
//
//   void weft_port_regions_k(weft::region_block& weft_block, float* out) {
//     struct weft_locals { unsigned t; };  // the locals that live across a barrier
//     auto weft_threads = weft_block.threads<weft_locals>();
//     weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
//       auto& t = weft_l.t; t = threadIdx.x; ...; return weft::region_go; });
//     weft_threads.barrier();  // the kernel's __syncthreads();
//     weft_threads.each(...);
//   }
//
// A region that returns region_exit ends its thread (its `return;`): the
// later regions skip it, which is a barrier's rule for exited threads
// (sm_70 and later: they count as arrived). The per-thread locals come
// from the worker's frame arena, as a stackless block's frames do; they are
// trivial, so a block that fails leaves nothing to destroy. The stackless
// executor runs such blocks (run_regions) with its own reports and fault
// landing; stackless_grid.hpp chooses the region version where it may.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

#include "weft/detail/base/builtin_variables.hpp"
#include "weft/detail/checks/race_check.hpp"
#include "weft/detail/coroutine_executor/frame_arena.hpp"

namespace weft::detail {

/// What a region returns for the thread it ran: go on to the next region,
/// or the thread returned.
enum class region_step : unsigned char { go, exit };

template <class Locals>
class region_threads;

/// The type region_threads::each counts a row's threads in: the type of
/// the region's own thread index (weft-port's choice, docs/architecture.md,
/// "Region versions"). GCC sees a region's index advance with the loop only
/// where converting the counter to it cannot wrap in its view: the kernel's
/// `int t = threadIdx.x` from an unsigned counter might (so `window[t + k]`
/// is not an affine access, and stays scalar), and it splits a loop at the
/// kernel's `if (t < stride)` only where `unsigned t` is the counter itself,
/// not a conversion of an int one.
template <class Counter>
struct thread_counter {};

/// One block's threads as the regions see them: how many, which exited.
class region_block {
 public:
  region_block(frame_arena& arena, dim3 block)
      : arena_(arena),
        block_(block),
        count_(block.x * block.y * block.z),
        linear_(block.y == 1 && block.z == 1),
        exited_(static_cast<unsigned char*>(arena.allocate(count_))) {
    std::memset(exited_, 0, count_);
  }
  region_block(const region_block&) = delete;
  region_block& operator=(const region_block&) = delete;
  ~region_block() { arena_.release(exited_); }

  /// The block's per-thread copies of the locals that live across a
  /// barrier, and the loop that runs a region over the threads.
  template <class Locals>
  region_threads<Locals> threads() {
    return region_threads<Locals>(*this);
  }

  frame_arena& arena() const { return arena_; }
  unsigned thread_count() const { return count_; }

 private:
  template <class Locals>
  friend class region_threads;

  frame_arena& arena_;
  dim3 block_;
  unsigned count_;
  bool linear_;
  bool any_exited_ = false;
  unsigned char* exited_;     // per thread (linear id): 1 once it returned
  unsigned start_ = 0;        // the linear id of the thread each() runs first
  bool ran_ = false;          // since the last barrier: a region ran a thread,
  unsigned last_ = 0;         // this one last,
  bool last_arrived_ = true;  // which did not return

  uint3 index_of(unsigned t) const { return {t % block_.x, t / block_.x % block_.y, t / (block_.x * block_.y)}; }
};

template <class Locals>
class region_threads {
  // Not constructed, not destroyed: what weft-port moves here is a builtin
  // arithmetic type, a CUDA vector type or a pointer, whose value before its
  // declaration runs is indeterminate in the kernel too.
  static_assert(std::is_trivially_default_constructible_v<Locals> && std::is_trivially_destructible_v<Locals>);
  static_assert(alignof(Locals) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "the frame arena's alignment");

 public:
  explicit region_threads(region_block& block)
      : block_(block), locals_(static_cast<Locals*>(block.arena_.allocate(sizeof(Locals) * block.count_))) {}
  region_threads(const region_threads&) = delete;
  region_threads& operator=(const region_threads&) = delete;
  ~region_threads() { block_.arena_.release(locals_); }

  /// Runs `region(locals)` for each thread of the block that has not
  /// returned, with threadIdx naming it, in the block's order of the
  /// moment (barrier()). The threads of a row are counted in `Counter`,
  /// the type in which the region reads threadIdx.x (thread_counter).
  // Always inline: in a race-check build the regions are then traced as
  // the region version's own code (race_check.hpp), never left in a copy
  // of this loop, which is weft's and untraced, however large they are.
  template <class Counter, class Region>
  [[gnu::always_inline]] void each(thread_counter<Counter>, Region&& region) {
    static_assert(std::is_same_v<Counter, int> || std::is_same_v<Counter, unsigned>);
    region_block& b = block_;
    const unsigned count = b.count_, start = b.start_;
    bool arrived = true, ran = false;  // of the thread that ran last
    unsigned last = start;
    // `name_thread` sets threadIdx (its .x at least) to thread t's.
    auto run = [&](unsigned t, auto name_thread) __attribute__((always_inline)) {
      // The race check's callbacks read threadIdx from memory, and take a
      // thread's loads and stores one by one: each thread's accesses stay
      // between these fences, none merged with another thread's (a store
      // every thread makes, kept once after the loop, would hide their
      // race). threadIdx is stored inside them, first: the region's reads
      // of it are then that store's value, where a fence between them
      // made each a traced load (a block reduction's thread made two
      // callbacks a step for threadIdx, most of its check). The store
      // still precedes the region's accesses: the passes before the
      // instrumentation move no store below a load or store of other
      // memory in straight-line code, and after it each access is a call.
      if constexpr (race_check_build) std::atomic_signal_fence(std::memory_order_seq_cst);
      name_thread();
      arrived = region(locals_[t]) == region_step::go;
      if constexpr (race_check_build) std::atomic_signal_fence(std::memory_order_seq_cst);
      if (!arrived) [[unlikely]]
        exit(t);
      last = t;
      ran = true;
    };
    if (b.linear_ && !b.any_exited_) {
      threadIdx = {start, 0, 0};
      // set_builtin_x: a store the race check does not trace. Not in the
      // rows below: there, threadIdx.x stored inside the fences, with
      // a 6-byte untraced store or a plain one, made the tiled matmul's check take
      // 5-19 % more CPU (2026-12-01, alternated runs; the cause not found).
      for (Counter t = static_cast<Counter>(start); t < static_cast<Counter>(count); ++t)
        run(static_cast<unsigned>(t), [&] { set_builtin_x(threadIdx, static_cast<unsigned>(t), 0, 0); });
      for (Counter t = 0; t < static_cast<Counter>(start); ++t)
        run(static_cast<unsigned>(t), [&] { set_builtin_x(threadIdx, static_cast<unsigned>(t), 0, 0); });
    } else if (!b.any_exited_) {
      // Row by row, threadIdx.y and .z fixed in a row and the inner loop a
      // counted loop over threadIdx.x with no exited test and no carry into
      // .y and .z: cheaper per thread, and one the compiler can vectorise
      // where the region's accesses allow (a 32x8 block is eight rows;
      // the transpose's, strided in its tile, stay scalar). The block's
      // order from `start` is the rest of its row, the rows after it, the
      // rows before it (wrapping), then the start of its row. (One loop for
      // the two ends, which a one-row block's loops above keep apart: so
      // nested, GCC no longer splits a loop at `if (t < stride)`.)
      const unsigned width = b.block_.x, rows = count / width;
      const unsigned first_row = start / width, first_x = start % width;
      const unsigned segments = rows + (first_x != 0 ? 1 : 0);
      for (unsigned i = 0; i < segments; ++i) {
        const unsigned row = first_row + i < rows ? first_row + i : first_row + i - rows;
        const unsigned from = i == 0 ? first_x : 0, to = i == rows ? first_x : width;
        const unsigned row_start = row * width;
        threadIdx = {from, row % b.block_.y, row / b.block_.y};
        for (Counter x = static_cast<Counter>(from); x < static_cast<Counter>(to); ++x) {
          threadIdx.x = static_cast<unsigned>(x);
          run(row_start + static_cast<unsigned>(x), [] {});
        }
      }
    } else {
      uint3 index = b.index_of(start);
      for (unsigned i = 0, t = start; i < count; ++i) {
        if (!b.exited_[t]) run(t, [&] { threadIdx = index; });
        if (++t == count) {
          t = 0;
          index = {0, 0, 0};
        } else if (++index.x == b.block_.x) {
          index.x = 0;
          if (++index.y == b.block_.y) {
            index.y = 0;
            ++index.z;
          }
        }
      }
    }
    if (ran) {
      b.ran_ = true;
      b.last_ = last;
      b.last_arrived_ = arrived;
    }
  }

  /// The same, counted in int: a region whose index is an int (`int t =
  /// threadIdx.x;`), or that reads none.
  template <class Region>
  [[gnu::always_inline]] void each(Region&& region) {
    each(thread_counter<int>{}, static_cast<Region&&>(region));
  }

  /// The linear id of the thread whose locals are `locals`.
  unsigned thread_of(const Locals& locals) const { return static_cast<unsigned>(&locals - locals_); }

  /// Every thread that has not returned is at the barrier (its
  /// `__syncthreads();`): the next regions run the threads in the stackless
  /// executor's order (stackless_block_executor::run_block), so that a
  /// kernel whose result depends on the order (a race, the first thread to
  /// fail) gives the same where a region is a whole stretch between
  /// barriers: the thread whose arrival completed the barrier first, then
  /// the others in the order they arrived. That is the block's order
  /// rotated, starting at start_.
  void barrier() {
    region_block& b = block_;
    // For the race check, a block barrier that every thread passed, as
    // the stackless executor's (complete_barrier).
    if constexpr (race_check_build) race_block_synced();
    if (!b.ran_) {  // no region ran since the last barrier: the threads arrived in order
      for (unsigned i = 1; i <= b.count_; ++i) {
        unsigned t = (b.start_ + b.count_ - i) % b.count_;
        if (!b.exited_[t]) {
          b.start_ = t;
          break;
        }
      }
    } else if (b.last_arrived_) {
      b.start_ = b.last_;
    }
    b.ran_ = false;
  }

 private:
  void exit(unsigned t) {
    block_.exited_[t] = 1;
    block_.any_exited_ = true;
  }

  region_block& block_;
  Locals* locals_;
};

/// The region version's type for a stackless kernel `Result (*)(Params...)`.
template <class Kernel>
struct region_function;
template <class Result, class... Params>
struct region_function<Result (*)(Params...)> {
  using type = void (*)(region_block&, Params...);
};

/// The region version registered for the kernel `Kernel` (its address):
/// set once, as the program starts, by weft::register_region_version.
template <auto Kernel>
inline typename region_function<decltype(Kernel)>::type region_version_of = nullptr;

/// What a region version needs of a launch's blocks: nothing, or that each
/// warp's lanes share threadIdx.x / 32 (and .y, .z), where weft-port split
/// shuffles under a warp's `if` that tests it: a warp whose lanes disagree
/// would shuffle with lanes that are not there.
enum class region_shape : unsigned char { any, warps_in_rows };

/// Whether every warp of a block of this shape lies in one row of it:
/// blockDim.x a multiple of 32 (the rows are whole warps), or a block of
/// one row. Else a warp's lanes can straddle two rows (48 x 2: lanes 32-47
/// of row 0 and 0-15 of row 1), whose threadIdx.x / 32 differ.
constexpr bool warps_lie_in_rows(dim3 block) { return block.x % 32 == 0 || (block.y == 1 && block.z == 1); }

/// What the region version registered for `Kernel` needs of its blocks.
template <auto Kernel>
inline region_shape region_shape_of = region_shape::any;

}  // namespace weft::detail
