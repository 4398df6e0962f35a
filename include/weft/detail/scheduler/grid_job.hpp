// One kernel launch: the kernel, its argument copies, the launch shape, and
// the counters through which SM workers claim and finish its blocks. A grid
// is a command of its stream; it completes when its last block finishes.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "weft/detail/base/builtin_variables.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/base/schedule_permutation.hpp"
#include "weft/detail/base/schedule_setting.hpp"
#include "weft/detail/base/text_format.hpp"
#include "weft/detail/checks/race_check.hpp"
#include "weft/detail/commands/command.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/executor/block_groups.hpp"
#include "weft/detail/fibers/fiber_sanitizer.hpp"
#include "weft/detail/scheduler/kernel_identity.hpp"
#include "weft/detail/scheduler/memory_check.hpp"
#include "weft/detail/scheduler/programmatic_launch.hpp"

// The memory check's hook, where AddressSanitizer is on (GCC says so with
// __SANITIZE_ADDRESS__, Clang with __has_feature): every program that
// launches kernels has it.
#if defined(__SANITIZE_ADDRESS__)
#include "weft/detail/scheduler/asan_error_hook.hpp"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#include "weft/detail/scheduler/asan_error_hook.hpp"
#endif
#endif

namespace weft::detail {

/// About as many blocks as an H100 keeps running at once (132 SMs with up
/// to 8 blocks of 256 threads or 32 small ones each: 1056 to 4224). Blocks of
/// a grid this small can rely on running side by side, and weft runs up to
/// this many at once when they wait for one another (sm_pool's watchdog).
/// A cooperative grid or a cluster gets the threads it needs at once,
/// whatever their number (sm_pool::submit); the launch checks bound it.
inline constexpr std::uint64_t resident_blocks = 2048;

struct launch_shape {
  dim3 grid;
  dim3 block;
  std::size_t dynamic_shared_bytes = 0;
  std::size_t stack_bytes = 0;
  int device = 0;            // the device the grid was launched on
  dim3 cluster{1, 1, 1};     // blocks per thread block cluster
  bool cooperative = false;  // cudaLaunchCooperativeKernel: grid.sync() is allowed
};

class grid_job : public command {
 public:
  explicit grid_job(launch_shape shape)
      : command(command_kind::grid),
        serial(next_serial()),
        shape_(shape),
        block_count_(volume(shape.grid)),
        schedule_(schedule_in_use()) {
    if (shape.cooperative || volume(shape.cluster) > 1) make_groups();
    if (schedule_.order != schedule_order::forward) [[unlikely]]
      permute_claims();
    if constexpr (race_check_build) make_race_launch();
  }

  /// Tells grids apart where an address cannot: a new grid may be allocated
  /// where a finished one was.
  const std::uint64_t serial;

  [[gnu::cold]] std::string describe() const override {
    std::string text = "kernel '" + kernel_name();
    const dim3 &g = shape_.grid, &b = shape_.block;
    append_format(text, "' <<<(%u,%u,%u), (%u,%u,%u)>>>", g.x, g.y, g.z, b.x, b.y, b.z);
    return text;
  }

  /// Blocks are claimed in chunks of consecutive blocks, so that workers do
  /// not contend on the counter for every block and each streams through
  /// neighbouring memory. Towards the end of the grid the chunks shrink
  /// (claim), so that the workers run out of blocks at about the same time
  /// instead of all but one waiting for its last chunk.
  /// Cooperative and cluster grids, and grids no larger than a GPU holds at
  /// once, are claimed a block at a time: their blocks may wait for one
  /// another, and a block claimed behind a waiting one could never start
  /// (see sm_pool's watchdog).
  void set_chunk_for(unsigned workers) {
    workers_ = std::max(workers, 1u);
    if (groups_ || block_count_ <= resident_blocks)
      chunk_ = 1;
    else
      chunk_ = std::clamp<std::uint64_t>(block_count_ / (8 * std::uint64_t{workers}), 1, 64);
  }

  /// How many of the grid's blocks must run at the same time, because
  /// they may wait for each other: all of a cooperative grid, a cluster's
  /// blocks, else 1.
  std::uint64_t gang_size() const {
    return shape_.cooperative ? block_count_ : std::min<std::uint64_t>(volume(shape_.cluster), block_count_);
  }

  /// The next chunk of unclaimed blocks; empty when none is left. Once
  /// fewer blocks are left than two full chunks for every worker, a claim
  /// takes half a worker's share of what is left (guided self-scheduling):
  /// the last claims are single blocks, so no worker is left with more than
  /// a block to run after the others have found none.
  std::pair<std::uint64_t, std::uint64_t> claim() {
    std::uint64_t first = next_block_.load(std::memory_order_relaxed);
    for (;;) {
      if (first >= block_count_) return {block_count_, block_count_};
      std::uint64_t size = std::clamp<std::uint64_t>((block_count_ - first) / (2 * std::uint64_t{workers_}), 1, chunk_);
      if (next_block_.compare_exchange_weak(first, first + size, std::memory_order_relaxed))
        return {first, first + size};
    }
  }
  bool has_unclaimed_blocks() const { return unclaimed_blocks() != 0; }
  std::uint64_t block_count() const { return block_count_; }
  std::uint64_t unclaimed_blocks() const {
    return block_count_ - std::min(next_block_.load(std::memory_order_relaxed), block_count_);
  }

  /// Runs blocks [first, end) on the calling worker. Once a block has
  /// failed, the grid's remaining blocks are skipped, as a faulting GPU kernel
  /// stops.
  void run_blocks(block_executor& executor, std::uint64_t first, std::uint64_t end) {
    // Runtime calls made by the kernel (a launch from device code, say) go to
    // the grid's device, as they would on a GPU.
    current_device = shape_.device;
    if (watches_launch_ && begun_.fetch_add(end - first, std::memory_order_acq_rel) + (end - first) == block_count_)
      command_graph::fire(*this, completion_port::launch_completion);
    programmatic_scope& scope = running_programmatic;
    scope = {this, &triggered_, block_count_, triggers_at_start_, ~std::uint64_t{0}, 0};
    if (triggers_at_start_) count_triggered_blocks(*this, triggered_, block_count_, end - first);
    if (!groups_) {
      run_range(executor, first, end, claim_order_);
    } else {
      // Claims are one block each here (see set_chunk_for).
      std::uint64_t claim = permuted_group_claim(first);
      std::uint64_t block = groups_->block_of(claim);
      groups_->run_member(claim, block, describe_block(block), executor, shape_.dynamic_shared_bytes,
                          [&] { run_range(executor, block, block + 1, {}); });
    }
    // A block that exits without triggering triggers as it exits.
    if (!triggers_at_start_)
      count_triggered_blocks(*this, triggered_, block_count_, end - first - scope.triggered_here);
    scope.grid = nullptr;
  }

  /// The dynamic shared memory each block of the launch has, in bytes.
  std::size_t dynamic_shared_bytes() const { return shape_.dynamic_shared_bytes; }

  /// Programmatic dependent launch: every block triggers as it begins
  /// (cudaLaunchAttributeProgrammaticEvent's triggerAtBlockStart), and the
  /// launch completion point is wanted. Set before the grid is enqueued.
  void trigger_at_block_start() { triggers_at_start_ = true; }
  void watch_launch_completion() { watches_launch_ = true; }

  /// When the pool took the grid, for WEFT_WORKER_STATS (worker_tally.hpp).
  std::int64_t submitted_ns = 0;

  void race_placed() override { race_->place(race_serial); }

  /// Counts finished blocks; true when they were the grid's last ones.
  bool finish_blocks(std::uint64_t count) {
    bool last = finished_blocks_.fetch_add(count, std::memory_order_acq_rel) + count == block_count_;
    if constexpr (race_check_build)
      if (last) race_->finish(true);
    return last;
  }

 protected:
  virtual block_failure execute(block_executor& executor, const block_range& blocks) = 0;
  // Only needed for a failure report, so not worked out at launch.
  virtual std::string kernel_name() const = 0;
  const launch_shape& shape() const { return shape_; }

 private:
  // The race check's shadow of this launch's global memory (race_check.hpp).
  [[gnu::cold]] void make_race_launch() {
    race_ = std::make_unique<race_launch>(shape_.grid, shape_.block, shape_.device, [this] { return kernel_name(); });
    if (volume(shape_.cluster) > 1) race_->set_clustered();
    // The order CUDA gives it among other launches, made as the grid is
    // linked into its stream (command_graph).
    launches_before = std::make_unique<race_launch_order>();
    race_->order_after(launches_before.get());
    // A launch from a kernel is placed as its parent; one from the host when
    // it is linked in (race_placed).
    race_serial = race_launching ? race_->family() : race_launch_order::unplaced;
    race_summary_at_exit();
  }

  // Out of the constructor, which every kernel's grid inlines.
  [[gnu::cold]] void make_groups() {
    groups_ = std::make_unique<block_groups>(shape_.grid, shape_.cluster, shape_.cooperative);
  }

  // WEFT_SCHEDULE other than forward: the order in which claims take
  // blocks. A grid without groups maps claim numbers to blocks through
  // claim_order_ (the executor does, block by block). A cooperative or
  // cluster grid permutes its clusters (each block its own cluster when the
  // grid has none), and the blocks of a cluster among themselves: a
  // cluster's blocks stay claimed one after another, since they must all run
  // at once and the pool has threads for one cluster at a time.
  [[gnu::cold]] void permute_claims() {
    launch_ = next_launch_under_schedule();
    std::uint64_t claims = groups_ ? block_count_ / volume(shape_.cluster) : block_count_;
    claim_order_ = index_permutation(schedule_.order, claims, launch_seed());
  }
  std::uint64_t launch_seed() const { return mix_seed(schedule_.seed, launch_); }

  std::uint64_t permuted_group_claim(std::uint64_t k) const {
    if (claim_order_.is_identity()) return k;
    std::uint64_t size = volume(shape_.cluster), cluster = k / size;
    index_permutation ranks(schedule_.order, size, mix_seed(launch_seed(), cluster));
    return claim_order_(cluster) * size + ranks(k % size);
  }

  void run_range(block_executor& executor, std::uint64_t first, std::uint64_t end, const index_permutation& order) {
    if (failed_.load(std::memory_order_relaxed)) return;
    // A device that has faulted runs no more kernels, as a GPU context
    // with a sticky error does not.
    if (fault(shape_.device).code() != cudaSuccess) return;
    if constexpr (race_check_build) race_launching = race_.get();
    block_failure failure = execute(executor, {shape_.grid, shape_.block, first, end, schedule_, launch_, order});
    if constexpr (race_check_build) race_launching = nullptr;
    if (!failure) return;
    failed_.store(true, std::memory_order_relaxed);
    raise_fault(failure);
  }

  [[gnu::cold]] void raise_fault(const block_failure& failure) {
    std::string text = "kernel '" + kernel_name();
    text += "' failed in ";
    text += failure.message;
    fault(shape_.device).raise(failure.code, std::move(text));
  }

  // "block (3,0,0)"
  std::string describe_block(std::uint64_t linear) const {
    std::string text;
    append_format(text, "block (%u,%u,%u)", static_cast<unsigned>(linear % shape_.grid.x),
                  static_cast<unsigned>(linear / shape_.grid.x % shape_.grid.y),
                  static_cast<unsigned>(linear / shape_.grid.x / shape_.grid.y));
    return text;
  }

  launch_shape shape_;
  std::uint64_t block_count_;
  std::uint64_t chunk_ = 1;
  unsigned workers_ = 1;  // the pool's, for claim's shrinking chunks
  std::atomic<std::uint64_t> next_block_{0};
  std::atomic<std::uint64_t> finished_blocks_{0};
  std::atomic<bool> failed_{false};
  std::atomic<std::uint64_t> triggered_{0};  // blocks that triggered or exited
  std::atomic<std::uint64_t> begun_{0};      // blocks begun, counted when watches_launch_
  bool triggers_at_start_ = false;
  bool watches_launch_ = false;
  std::unique_ptr<block_groups> groups_;  // for cooperative and cluster launches
  schedule_setting schedule_;             // WEFT_SCHEDULE when the grid was launched
  std::uint64_t launch_ = 0;              // the grid's number under its schedule (not forward)
  index_permutation claim_order_{};       // see permute_claims
  std::unique_ptr<race_launch> race_;     // in a race-check build

  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> counter{0};
    return counter.fetch_add(1, std::memory_order_relaxed) + 1;
  }
};

template <class Kernel, class ArgumentTuple>
struct callable_as_const;
template <class Kernel, class... Arguments>
struct callable_as_const<Kernel, std::tuple<Arguments...>> : std::is_invocable<const Kernel&, Arguments&...> {};

/// Whether one call of the kernel is a thread of a stackless kernel
/// (weft/stackless_kernel.hpp), which runs on the stackless executor.
template <class Kernel, class ArgumentTuple>
struct returns_stackless_thread;
template <class Kernel, class... Arguments>
    struct returns_stackless_thread<Kernel, std::tuple<Arguments...>> : std::bool_constant < requires {
  typename std::invoke_result_t<Kernel&, Arguments&...>::stackless_thread_marker;
} > {};

/// A grid of a particular kernel type: the kernel is called directly (no
/// std::function, no virtual call per thread), with each CUDA thread getting
/// its own copies of the by-value parameters as on a GPU.
template <class Kernel, class ArgumentTuple>
class kernel_grid final : public grid_job {
 public:
  kernel_grid(launch_shape shape, Kernel kernel, ArgumentTuple arguments)
      : grid_job(shape), kernel_(std::move(kernel)), arguments_(std::move(arguments)) {}

 private:
  block_failure execute(block_executor& executor, const block_range& blocks) override {
    if constexpr (returns_stackless_thread<Kernel, ArgumentTuple>::value) {
      // Declared by the header that declares the stackless thread type
      // (coroutine_executor/stackless_grid.hpp), found by argument-dependent
      // lookup: programs without stackless kernels do not compile it.
      return run_stackless_kernel(executor, blocks, kernel_, arguments_,
                                  stack_bytes(sizeof(Kernel) + sizeof(ArgumentTuple)), shape().dynamic_shared_bytes);
    } else if constexpr (callable_as_const<Kernel, ArgumentTuple>::value) {
      auto body = [kernel = kernel_, arguments = arguments_]() mutable { call_kernel(kernel, arguments); };
      return executor.run(body, blocks, stack_bytes(sizeof body), shape().dynamic_shared_bytes);
    } else {
      // A mutable lambda may change its captures, which in CUDA are part of
      // the kernel's by-value parameters: each thread starts from the
      // launch's copy.
      auto body = [kernel = kernel_, arguments = arguments_]() mutable {
        Kernel own = kernel;
        call_kernel(own, arguments);
      };
      return executor.run(body, blocks, stack_bytes(sizeof body), shape().dynamic_shared_bytes);
    }
  }

  /// A GPU keeps kernel parameters in constant memory, not on a thread's
  /// stack; here they are copied onto the stack that runs the threads (the
  /// executor's private copy of the body, and the by-value parameters of
  /// each call, up to twice through a forwarding wrapper). CUDA allows
  /// 32764 bytes of parameters, so the stack gets room for those copies on
  /// top of the per-thread size cudaLimitStackSize sets. A few hundred
  /// bytes of copies are left to that size's slack, which keeps the stack
  /// size, and so the executor's pooled stacks, the same from launch to
  /// launch. ASan copies each by-value argument once more, into a local of
  /// the callee that it can surround with redzones: twice the call copies.
  /// The race check passes them by value once more, into the traced call
  /// (weft_traced::call_kernel).
  std::size_t stack_bytes(std::size_t body_bytes) const {
    constexpr std::size_t call_copies = (fiber_sanitizer::address_sanitizer ? 4 : 2) + (race_check_build ? 1 : 0);
    std::size_t copies = body_bytes + call_copies * sizeof(ArgumentTuple);
    return shape().stack_bytes + (copies > 4096 ? copies : 0);
  }

  std::string kernel_name() const override { return detail::kernel_name(kernel_); }

  Kernel kernel_;
  ArgumentTuple arguments_;
};

}  // namespace weft::detail
