// CUDA's two kinds of error state (CUDA guide, "Error Checking"):
// - the last error, per host thread: set by any runtime call that fails,
//   returned and reset by cudaGetLastError, returned by cudaPeekAtLastError;
// - a sticky device fault: a kernel that failed (uncaught exception, detected
//   deadlock) poisons the device, and every later call that uses the device
//   returns the fault until cudaDeviceReset. Measured on an H100 with CUDA 13
//   (tests/differential/error_codes_probe.expected): after a fault,
//   cudaGetLastError reports it once, while cudaMalloc and cudaMemcpy keep
//   returning it.
#pragma once

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/base/forked_child.hpp"

namespace weft::detail {

inline thread_local cudaError_t last_error = cudaSuccess;

/// Records a failed call's code as the host thread's last error, as every
/// cuda* function does, and passes the code through.
inline cudaError_t record(cudaError_t code) {
  if (code != cudaSuccess) last_error = code;
  return code;
}

/// cudaErrorInitializationError, recorded, in a process forked after weft
/// started its threads (forked_child.hpp); a call asks before anything else.
inline cudaError_t check_not_forked() { return in_forked_child() ? record(forked_child_error()) : cudaSuccess; }

class device_fault {
 public:
  /// The first fault wins; later ones are consequences of it.
  void raise(cudaError_t code, std::string message) {
    std::lock_guard lock(mutex_);
    if (code_.load(std::memory_order_relaxed) != cudaSuccess) return;
    message_ = std::move(message);
    code_.store(code, std::memory_order_release);
    std::fprintf(stderr, "weft: %s\n", message_.c_str());
  }

  /// Read without the lock: every launch and synchronisation asks. A forked
  /// child's devices all fail as uninitialised (forked_child.hpp).
  cudaError_t code() const {
    if (in_forked_child()) return forked_child_error();
    return code_.load(std::memory_order_acquire);
  }

  std::string message() const {
    std::lock_guard lock(mutex_);
    return message_;
  }

  void clear() {
    std::lock_guard lock(mutex_);
    code_.store(cudaSuccess, std::memory_order_release);
    message_.clear();
  }

 private:
  mutable std::mutex mutex_;
  std::atomic<cudaError_t> code_{cudaSuccess};
  std::string message_;
};

/// The sticky fault of device `d`.
inline device_fault& fault(int d) {
  static const std::unique_ptr<device_fault[]> faults(new device_fault[static_cast<std::size_t>(device_count())]);
  return faults[static_cast<std::size_t>(d)];
}

/// The sticky fault of the calling thread's current device.
inline device_fault& fault() { return fault(current_device); }

}  // namespace weft::detail
