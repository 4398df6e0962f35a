// One kernel launch: the kernel, its argument copies, the launch shape, and
// the counters through which SM workers claim and finish its blocks.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <tuple>

#include "../cuda/builtins.hpp"
#include "block_executor.hpp"
#include "error_state.hpp"
#include "kernel_identity.hpp"

namespace weft::detail {

struct launch_shape {
  dim3 grid;
  dim3 block;
  std::size_t dynamic_shared_bytes = 0;
  std::size_t stack_bytes = 0;
};

class grid_job {
 public:
  explicit grid_job(launch_shape shape) : shape_(shape), block_count_(volume(shape.grid)) {}
  virtual ~grid_job() = default;

  /// The next unclaimed block, or block_count() when none is left.
  std::uint64_t claim() {
    auto b = next_block_.fetch_add(1, std::memory_order_relaxed);
    return b < block_count_ ? b : block_count_;
  }
  bool has_unclaimed_blocks() const { return next_block_.load(std::memory_order_relaxed) < block_count_; }
  std::uint64_t block_count() const { return block_count_; }

  /// Runs block `linear` on the calling worker. Once a block has failed, the
  /// grid's remaining blocks are skipped, as a faulting GPU kernel stops.
  void run_block(block_executor& executor, std::uint64_t linear) {
    if (failed_.load(std::memory_order_relaxed)) return;
    blockIdx = unflatten(linear, shape_.grid);
    blockDim = shape_.block;
    gridDim = shape_.grid;
    std::string failure = execute(executor);
    if (failure.empty()) return;
    failed_.store(true, std::memory_order_relaxed);
    fault().raise(cudaErrorLaunchFailure, "kernel '" + kernel_name() + "' failed in block (" +
                                              std::to_string(blockIdx.x) + "," + std::to_string(blockIdx.y) + "," +
                                              std::to_string(blockIdx.z) + "), " + failure);
  }

  /// Counts a finished block; true for the grid's last one.
  bool finish_block() { return finished_blocks_.fetch_add(1, std::memory_order_acq_rel) + 1 == block_count_; }

 protected:
  virtual std::string execute(block_executor& executor) = 0;
  // Only needed for a failure report, so not worked out at launch.
  virtual std::string kernel_name() const = 0;
  const launch_shape& shape() const { return shape_; }

 private:
  launch_shape shape_;
  std::uint64_t block_count_;
  std::atomic<std::uint64_t> next_block_{0};
  std::atomic<std::uint64_t> finished_blocks_{0};
  std::atomic<bool> failed_{false};
};

/// A grid of a particular kernel type: the kernel is called directly (no
/// std::function, no virtual call per thread), with each CUDA thread getting
/// its own copies of the by-value parameters as on a GPU.
template <class Kernel, class ArgumentTuple>
class kernel_grid final : public grid_job {
 public:
  kernel_grid(launch_shape shape, Kernel kernel, ArgumentTuple arguments)
      : grid_job(shape), kernel_(std::move(kernel)), arguments_(std::move(arguments)) {}

 private:
  std::string execute(block_executor& executor) override {
    auto body = [this] { std::apply(kernel_, arguments_); };
    return executor.run(body, shape().block, shape().stack_bytes, shape().dynamic_shared_bytes);
  }

  std::string kernel_name() const override { return detail::kernel_name(kernel_); }

  Kernel kernel_;
  ArgumentTuple arguments_;
};

}  // namespace weft::detail
