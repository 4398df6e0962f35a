// Copies and sets as stream commands. A synchronous call (cudaMemcpy,
// cudaMemset) is a command of the default stream that the caller waits for;
// an asynchronous one (cudaMemcpyAsync...) is a command of its stream, and
// the call returns at once. Either way the bytes move on whichever thread
// finds the command ready: the caller itself when its stream has nothing
// pending, which makes the common case a plain memmove.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/checks/race_stream_copy.hpp"
#include "weft/detail/commands/command.hpp"
#include "weft/detail/commands/command_graph.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/runtime/caller_checks.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/stream_registry.hpp"

namespace weft::detail {

class host_task : public command {
 public:
  host_task(std::string what, int device, std::function<void()> work)
      : command(command_kind::host_task), what_(std::move(what)), device_(device), work_(std::move(work)) {}

  std::string describe() const override { return what_; }

  /// Skipped on a device that has faulted, whose later work fails in CUDA.
  void run_on_host() override {
    if (fault(device_).code() == cudaSuccess) work_();
  }

 private:
  std::string what_;
  int device_;
  std::function<void()> work_;
};

/// A copy or set that the race check traces (race_stream_copy.hpp): its
/// accesses are checked as it runs, against the commands that CUDA does not
/// order with it, which its place, given as it is linked in, tells apart.
class race_traced_host_task final : public host_task {
 public:
  race_traced_host_task(std::string what, int device, std::function<void()> work,
                        std::shared_ptr<race_stream_copy> traced)
      : host_task(std::move(what), device, std::move(work)), traced_(std::move(traced)) {
    launches_before = std::make_unique<race_launch_order>();
    traced_->launch().order_after(launches_before.get());
    race_serial = race_launch_order::unplaced;
  }
  void race_placed() override { traced_->launch().place(race_serial); }
  void run_on_host() override {
    traced_->run();
    host_task::run_on_host();
    traced_->finish();
  }

 private:
  std::shared_ptr<race_stream_copy> traced_;
};

/// A callback (cudaStreamAddCallback, cudaLaunchHostFunc): runs on the
/// device's host-function thread, in stream order.
class host_function final : public command {
 public:
  explicit host_function(std::function<void()> call) : command(command_kind::host_function), call_(std::move(call)) {}

  std::string describe() const override { return "host function"; }
  void run_on_host() override { call_(); }

 private:
  std::function<void()> call_;
};

/// Which stream a copy or set goes to, and whether the call waits for it.
struct placement {
  cudaStream_t stream = nullptr;
  bool asynchronous = false;
};
inline constexpr placement synchronous{};
inline placement asynchronous_on(cudaStream_t stream) { return {stream, true}; }

/// Enqueues `work` (already validated) as `where` says; `traced`: its
/// accesses, for the race check (null in other builds).
inline cudaError_t perform(placement where, std::string what, std::function<void()> work,
                           std::shared_ptr<race_stream_copy> traced = nullptr) {
  if (cudaError_t e = check_caller(!where.asynchronous)) return e;
  CUstream_st* stream = resolve_stream(where.stream);
  if (!stream) return record(cudaErrorInvalidResourceHandle);
  std::shared_ptr<host_task> task;
  if constexpr (race_check_build)
    if (traced)
      task =
          std::make_shared<race_traced_host_task>(std::move(what), stream->device, std::move(work), std::move(traced));
  if (!task) task = std::make_shared<host_task>(std::move(what), stream->device, std::move(work));
  runtime& device = runtime::get(stream->device);
  device.commands().enqueue(*stream, task);
  if (where.asynchronous) return cudaSuccess;
  device.wait_for(*task);
  return record(fault(stream->device).code());
}

}  // namespace weft::detail
