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
//     weft_threads.each(...);  // after the barrier
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

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

#include "weft/detail/base/builtin_variables.hpp"
#include "weft/detail/coroutine_executor/frame_arena.hpp"

namespace weft::detail {

/// What a region returns for the thread it ran: go on to the next region,
/// or the thread returned.
enum class region_step : unsigned char { go, exit };

template <class Locals>
class region_threads;

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

 private:
  template <class Locals>
  friend class region_threads;

  frame_arena& arena_;
  dim3 block_;
  unsigned count_;
  bool linear_;
  bool any_exited_ = false;
  unsigned char* exited_;  // per thread (linear id): 1 once it returned
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
  /// returned, in the order of their linear ids, with threadIdx naming it.
  template <class Region>
  void each(Region&& region) {
    region_block& b = block_;
    if (b.linear_ && !b.any_exited_) {
      threadIdx = {0, 0, 0};
      for (unsigned t = 0; t < b.count_; ++t) {
        threadIdx.x = t;
        if (region(locals_[t]) == region_step::exit) [[unlikely]]
          exit(t);
      }
      return;
    }
    unsigned t = 0;
    for (unsigned z = 0; z < b.block_.z; ++z)
      for (unsigned y = 0; y < b.block_.y; ++y)
        for (unsigned x = 0; x < b.block_.x; ++x, ++t) {
          if (b.exited_[t]) continue;
          threadIdx = {x, y, z};
          if (region(locals_[t]) == region_step::exit) exit(t);
        }
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

}  // namespace weft::detail
