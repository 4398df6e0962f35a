// Values registered under a kernel's address, such as the registrations
// weft-port writes after a .cu file's last line, and asked for at every
// launch.
#pragma once

#include <atomic>
#include <map>
#include <mutex>

namespace weft::detail {

template <class Value>
class address_registry {
 public:
  void add(const void* address, Value value) {
    std::lock_guard lock(mutex_);
    values_[address] = value;
    any_.store(true, std::memory_order_release);
  }

  /// `none` for an address nobody registered. Most programs register
  /// nothing (those not ported), and then pay no lock for asking.
  Value find(const void* address, Value none = {}) {
    if (!any_.load(std::memory_order_acquire)) return none;
    std::lock_guard lock(mutex_);
    auto it = values_.find(address);
    return it == values_.end() ? none : it->second;
  }

 private:
  std::mutex mutex_;
  std::map<const void*, Value> values_;
  std::atomic<bool> any_{false};
};

}  // namespace weft::detail
