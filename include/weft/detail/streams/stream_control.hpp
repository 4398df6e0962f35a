// Creating a stream, asking whether its work is done, and waiting for it.
// The order a stream keeps is the command graph's
// (detail/commands/command_graph.hpp).
#pragma once

#include <algorithm>
#include <memory>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/commands/command_graph.hpp"
#include "weft/detail/commands/stream.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/streams/stream_registry.hpp"

namespace weft::detail {

/// The priorities an H100 offers: 0 (least urgent, the default) to -5.
inline constexpr int least_stream_priority = 0;
inline constexpr int greatest_stream_priority = -5;

inline cudaError_t create_stream(cudaStream_t* stream, unsigned flags, int priority) {
  if (!stream) return record(cudaErrorInvalidValue);
  *stream = nullptr;  // on every other path, so that compilers see it set
  if (cudaError_t e = check_device()) return e;
  if ((flags & ~cudaStreamNonBlocking) != 0) return record(cudaErrorInvalidValue);
  // Out-of-range priorities are clamped, as CUDA does.
  priority = std::clamp(priority, greatest_stream_priority, least_stream_priority);
  // A kernel may create only non-blocking streams (CUDA's device runtime).
  if (running_block && flags != cudaStreamNonBlocking) return record(cudaErrorInvalidValue);
  auto s = runtime::get().commands().create_stream(flags, priority);
  s->device_created = running_block != nullptr;
  stream_registry::get().add(s.get());
  // The graph keeps the stream until it is destroyed and its work is done.
  *stream = s.get();
  return cudaSuccess;
}

/// The stream's work is done (the legacy stream's: with every blocking stream's).
inline bool stream_done(CUstream_st& s) {
  auto& commands = runtime::get(s.device).commands();
  if (!s.legacy) return commands.last_pending(s) == nullptr;
  return commands.legacy_idle();
}

/// Waits for the stream's work (the legacy stream's: and that of every
/// blocking stream before it); returns the device's fault, if any. A last
/// kernel of one block may run on the calling thread (runtime::wait_for).
inline cudaError_t synchronize_stream(CUstream_st& s) {
  runtime& device = runtime::get(s.device);
  if (s.legacy) {
    auto point = std::make_shared<marker>("synchronize");
    device.commands().enqueue(s, point);
    device.wait_for(*point);
  } else if (auto last = device.commands().last_pending(s)) {
    device.wait_for(*last);
  }
  return fault(s.device).code();
}

}  // namespace weft::detail
