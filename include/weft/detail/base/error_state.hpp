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

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "weft/detail/base/cuda_vocabulary.hpp"

namespace weft::detail {

inline thread_local cudaError_t last_error = cudaSuccess;

/// Records a failed call's code as the host thread's last error, as every
/// cuda* function does, and passes the code through.
inline cudaError_t record(cudaError_t code) {
  if (code != cudaSuccess) last_error = code;
  return code;
}

class device_fault {
 public:
  /// The first fault wins; later ones are consequences of it.
  void raise(cudaError_t code, std::string message) {
    std::lock_guard lock(mutex_);
    if (code_ != cudaSuccess) return;
    code_ = code;
    message_ = std::move(message);
    std::fprintf(stderr, "weft: %s\n", message_.c_str());
  }

  cudaError_t code() const {
    std::lock_guard lock(mutex_);
    return code_;
  }

  std::string message() const {
    std::lock_guard lock(mutex_);
    return message_;
  }

  void clear() {
    std::lock_guard lock(mutex_);
    code_ = cudaSuccess;
    message_.clear();
  }

 private:
  mutable std::mutex mutex_;
  cudaError_t code_ = cudaSuccess;
  std::string message_;
};

/// The environment variable that sets the number of simulated devices.
inline constexpr const char* device_count_variable = "WEFT_DEVICES";

/// Read once per process, as CUDA enumerates devices once: WEFT_DEVICES, or 1.
inline int device_count() {
  static const int count = [] {
    if (const char* text = std::getenv(device_count_variable)) {
      char* end = nullptr;
      long n = std::strtol(text, &end, 10);
      if (end != text && *end == '\0' && n > 0 && n <= 64) return static_cast<int>(n);
      std::fprintf(stderr, "weft: ignoring %s=%s (expected a count from 1 to 64)\n", device_count_variable, text);
    }
    return 1;
  }();
  return count;
}

/// The host thread's current device (cudaSetDevice). An SM worker takes the
/// device of the grid it runs (see grid_job::run_blocks).
inline thread_local int current_device = 0;

/// The sticky fault of device `d`.
inline device_fault& fault(int d) {
  static const std::unique_ptr<device_fault[]> faults(new device_fault[static_cast<std::size_t>(device_count())]);
  return faults[static_cast<std::size_t>(d)];
}

/// The sticky fault of the calling thread's current device.
inline device_fault& fault() { return fault(current_device); }

}  // namespace weft::detail
