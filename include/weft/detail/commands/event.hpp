// An event: the last record command enqueued for it. cudaEvent_t is a
// pointer to one (CUDA leaves CUevent_st opaque, so weft defines it).
// Handles are checked against the live events, as stream handles are.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>

#include "weft/detail/commands/command.hpp"

struct CUevent_st {
  int device = 0;
  unsigned flags = 0;

  std::shared_ptr<weft::detail::command> recorded() {
    std::lock_guard lock(mutex_);
    return recorded_;
  }
  void set_recorded(std::shared_ptr<weft::detail::command> c) {
    std::lock_guard lock(mutex_);
    recorded_ = std::move(c);
  }

 private:
  std::mutex mutex_;
  std::shared_ptr<weft::detail::command> recorded_;  // null until first recorded
};

namespace weft::detail {

class event_registry {
 public:
  static event_registry& get() {
    static event_registry registry;
    return registry;
  }

  CUevent_st* create(int device, unsigned flags) {
    auto e = std::make_unique<CUevent_st>();
    e->device = device;
    e->flags = flags;
    CUevent_st* handle = e.get();
    std::lock_guard lock(mutex_);
    live_.emplace(handle, std::move(e));
    return handle;
  }

  /// False when `e` was not live.
  bool destroy(CUevent_st* e) {
    std::lock_guard lock(mutex_);
    return live_.erase(e) != 0;
  }

  /// cudaDeviceReset: the device's events are destroyed.
  void destroy_all(int device) {
    std::lock_guard lock(mutex_);
    std::erase_if(live_, [&](const auto& entry) { return entry.first->device == device; });
  }

  bool live(CUevent_st* e) {
    std::lock_guard lock(mutex_);
    return live_.contains(e);
  }

 private:
  std::mutex mutex_;
  std::unordered_map<CUevent_st*, std::unique_ptr<CUevent_st>> live_;
};

}  // namespace weft::detail
