// From a cudaStream_t to the stream it names. The handles are checked
// against the live streams, so a destroyed or made-up handle is refused with
// cudaErrorInvalidResourceHandle instead of being followed.
//
// Here 0 names the legacy default stream of the current device. A
// translation unit built with CUDA_API_PER_THREAD_DEFAULT_STREAM means the
// calling host thread's own default stream by 0; its entry points say so with
// cudaStreamPerThread before they call this layer
// (cuda/runtime/default_stream.hpp), so that no inline function here has a
// body that depends on the macro.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/commands/event.hpp"
#include "weft/detail/commands/stream.hpp"
#include "weft/detail/runtime/runtime.hpp"

namespace weft::detail {

class stream_registry {
 public:
  static stream_registry& get() {
    static stream_registry registry;
    return registry;
  }

  void add(CUstream_st* s) {
    std::lock_guard lock(mutex_);
    live_.insert(s);
  }

  /// False when `s` was not live (destroyed already, or never created).
  bool remove(CUstream_st* s) {
    std::lock_guard lock(mutex_);
    return live_.erase(s) != 0;
  }

  bool live(CUstream_st* s) {
    std::lock_guard lock(mutex_);
    return live_.contains(s);
  }

  /// cudaDeviceReset: the device's streams are destroyed.
  void destroy_all(int device) {
    std::lock_guard lock(mutex_);
    std::erase_if(live_, [&](CUstream_st* s) {
      if (s->device != device) return false;
      runtime::get(device).commands().destroy_stream(*s);
      return true;
    });
  }

 private:
  std::mutex mutex_;
  std::unordered_set<CUstream_st*> live_;
};

// A host thread's per-thread default streams, one per device, created on
// first use and destroyed (after their work) when the thread exits.
class per_thread_streams {
 public:
  per_thread_streams() = default;
  per_thread_streams(const per_thread_streams&) = delete;
  per_thread_streams& operator=(const per_thread_streams&) = delete;
  ~per_thread_streams() {
    for (std::size_t d = 0; d < streams_.size(); ++d)
      if (streams_[d]) runtime::get(static_cast<int>(d)).commands().destroy_stream(*streams_[d]);
  }

  CUstream_st& on(int device) {
    if (streams_.empty()) streams_.resize(static_cast<std::size_t>(device_count()));
    auto& s = streams_[static_cast<std::size_t>(device)];
    if (!s) {
      s = runtime::get(device).commands().create_stream(0, 0);
      trace::per_thread_stream(device, s->id);
    }
    return *s;
  }

 private:
  std::vector<std::shared_ptr<CUstream_st>> streams_;
};

inline CUstream_st& per_thread_stream(int device) {
  static thread_local per_thread_streams streams;
  return streams.on(device);
}

/// The stream a handle names (on the current device for the special
/// handles), or null for a handle that names none.
inline CUstream_st* resolve_stream(cudaStream_t handle) {
  if (handle == nullptr || handle == cudaStreamLegacy) return &runtime::get().commands().legacy_stream();
  if (handle == cudaStreamPerThread) return &per_thread_stream(current_device);
  return stream_registry::get().live(handle) ? handle : nullptr;
}

/// The event a handle names, or null for a destroyed or made-up handle.
inline CUevent_st* live_event(cudaEvent_t event) { return event_registry::get().live(event) ? event : nullptr; }

}  // namespace weft::detail
