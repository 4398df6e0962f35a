// Initialisation and contexts: cuInit, primary contexts, cuCtx*.
//
// weft's device state is per device, not per context, so a context is a
// name for its device: every context of a device (its primary context and
// those cuCtxCreate makes) shares the device's memory, streams and kernels.
// Each host thread has a stack of current contexts, as in CUDA; making a
// context current also makes its device the runtime's current device.
//
// The runtime initialises the driver: once any runtime call has used a
// device, driver calls work without cuInit, and a thread with no context of
// its own uses the primary context of its runtime device (as CUDA's runtime
// makes the primary context current).
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "weft/cuda/driver/driver_types.hpp"
#include "weft/cuda/driver/error_api.hpp"
#include "weft/cuda/runtime/device_api.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/textures/arrays/array_registry.hpp"

struct CUctx_st {
  int device = 0;
  bool primary = false;
  unsigned flags = 0;
};

namespace weft::detail {

/// The process's contexts: one primary context per device, and those that
/// cuCtxCreate made and cuCtxDestroy has not destroyed.
class driver_contexts {
 public:
  static driver_contexts& get() {
    static driver_contexts contexts;
    return contexts;
  }

  std::atomic<bool> initialised{false};  // by cuInit

  CUcontext primary(int device) { return &primaries_[static_cast<std::size_t>(device)].context; }

  bool valid(CUcontext c) {
    if (!c) return false;
    std::lock_guard lock(mutex_);
    for (auto& p : primaries_)
      if (&p.context == c) return true;
    return created_.count(c) != 0;
  }

  CUcontext create(int device, unsigned flags) {
    std::lock_guard lock(mutex_);
    auto* c = new CUctx_st{device, false, flags};
    created_.insert(c);
    return c;
  }

  /// False if `c` is no context cuCtxCreate made (a primary context, or one
  /// already destroyed).
  bool destroy(CUcontext c) {
    std::lock_guard lock(mutex_);
    if (created_.erase(c) == 0) return false;
    delete c;
    return true;
  }

  int retains(int device) {
    std::lock_guard lock(mutex_);
    return primaries_[static_cast<std::size_t>(device)].retains;
  }
  void retain(int device) {
    std::lock_guard lock(mutex_);
    ++primaries_[static_cast<std::size_t>(device)].retains;
  }
  bool release(int device) {
    std::lock_guard lock(mutex_);
    auto& p = primaries_[static_cast<std::size_t>(device)];
    if (p.retains == 0) return false;
    --p.retains;
    return true;
  }

 private:
  struct primary_context {
    CUctx_st context;
    int retains = 0;
  };

  driver_contexts() : primaries_(static_cast<std::size_t>(device_count())) {
    for (int d = 0; d < device_count(); ++d) {
      primaries_[static_cast<std::size_t>(d)].context.device = d;
      primaries_[static_cast<std::size_t>(d)].context.primary = true;
    }
  }

  std::mutex mutex_;
  std::vector<primary_context> primaries_;
  std::set<CUcontext> created_;
};

/// The calling thread's stack of current contexts (cuCtxPushCurrent).
inline thread_local std::vector<CUcontext> context_stack;

inline bool driver_initialised() { return driver_contexts::get().initialised.load() || runtime_initialised().load(); }

/// The thread's current context: the top of its stack, unless the runtime
/// has since moved the thread to another device (cudaSetDevice makes that
/// device's primary context current); else, once the runtime is in use, the
/// primary context of the thread's device.
inline CUcontext current_context() {
  if (!context_stack.empty() && context_stack.back() && context_stack.back()->device == current_device)
    return context_stack.back();
  if (runtime_initialised().load()) return driver_contexts::get().primary(current_device);
  return context_stack.empty() ? nullptr : context_stack.back();
}

/// What every call that acts in the current context checks first; on
/// success the runtime's current device is the context's.
inline CUresult check_current_context() {
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  CUcontext c = current_context();
  if (!c || !driver_contexts::get().valid(c)) return CUDA_ERROR_INVALID_CONTEXT;
  current_device = c->device;
  return CUDA_SUCCESS;
}

/// What every call that names a device checks first.
inline CUresult check_driver_device(CUdevice dev) {
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  return valid_device(dev) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

/// Runs a runtime call on the driver's behalf: its code translated, and the
/// runtime's last error (cudaGetLastError) left as it was.
template <class Call>
CUresult through_runtime(Call call) {
  cudaError_t saved = last_error;
  cudaError_t e = call();
  last_error = saved;
  return driver_result(e);
}

inline void make_current(CUcontext c) {
  if (context_stack.empty())
    context_stack.push_back(c);
  else
    context_stack.back() = c;
  if (c) current_device = c->device;
}

}  // namespace weft::detail

/// Flags must be 0.
inline CUresult cuInit(unsigned int Flags) {
  if (Flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (weft::detail::in_forked_child()) {
    weft::detail::forked_child_error();  // says why, once
    return CUDA_ERROR_NOT_INITIALIZED;
  }
  weft::detail::driver_contexts::get().initialised = true;
  return CUDA_SUCCESS;
}

/// 13000: weft implements CUDA 13.0 and is its own driver.
inline CUresult cuDriverGetVersion(int* driverVersion) {
  if (!driverVersion) return CUDA_ERROR_INVALID_VALUE;
  *driverVersion = weft_driver_api_version;
  return CUDA_SUCCESS;
}

inline CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  using namespace weft::detail;
  if (CUresult r = check_driver_device(dev)) return r;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  driver_contexts::get().retain(dev);
  *pctx = driver_contexts::get().primary(dev);
  return CUDA_SUCCESS;
}

/// CUDA_ERROR_INVALID_CONTEXT if the primary context is not retained.
inline CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  using namespace weft::detail;
  if (CUresult r = check_driver_device(dev)) return r;
  return driver_contexts::get().release(dev) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

/// As cudaDeviceReset on that device: waits for it, destroys its streams and
/// events, frees its memory.
inline CUresult cuDevicePrimaryCtxReset(CUdevice dev) {
  using namespace weft::detail;
  if (CUresult r = check_driver_device(dev)) return r;
  int saved = current_device;
  current_device = dev;
  CUresult r = through_runtime([] { return reset_device_and_arrays(); });
  current_device = saved;
  return r;
}

/// The primary context is active once retained or used by the runtime.
inline CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  using namespace weft::detail;
  if (CUresult r = check_driver_device(dev)) return r;
  if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
  *flags = driver_contexts::get().primary(dev)->flags;
  *active = driver_contexts::get().retains(dev) > 0 || runtime_initialised().load() ? 1 : 0;
  return CUDA_SUCCESS;
}

/// The scheduling flags are kept and reported back; host threads always
/// wait the way weft waits (spin, then sleep).
inline CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) {
  using namespace weft::detail;
  if (CUresult r = check_driver_device(dev)) return r;
  if ((flags & ~static_cast<unsigned>(CU_CTX_FLAGS_MASK)) != 0) return CUDA_ERROR_INVALID_VALUE;
  driver_contexts::get().primary(dev)->flags = flags;
  return CUDA_SUCCESS;
}

/// CUDA 13's signature. The new context shares its device's state with the
/// device's other contexts (see the top of this file) and becomes current.
inline CUresult cuCtxCreate(CUcontext* pctx, CUctxCreateParams* ctxCreateParams, unsigned int flags, CUdevice dev) {
  using namespace weft::detail;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  *pctx = nullptr;
  if (CUresult r = check_driver_device(dev)) return r;
  if ((flags & ~static_cast<unsigned>(CU_CTX_FLAGS_MASK)) != 0) return CUDA_ERROR_INVALID_VALUE;
  if (ctxCreateParams && (ctxCreateParams->execAffinityParams || ctxCreateParams->numExecAffinityParams != 0 ||
                          ctxCreateParams->cigParams))
    return CUDA_ERROR_NOT_SUPPORTED;
  *pctx = driver_contexts::get().create(dev, flags);
  context_stack.push_back(*pctx);
  current_device = dev;
  return CUDA_SUCCESS;
}

/// Waits for the context's device; the context leaves this thread's stack.
/// A primary context cannot be destroyed (CUDA_ERROR_INVALID_CONTEXT).
inline CUresult cuCtxDestroy(CUcontext ctx) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  if (!driver_contexts::get().valid(ctx) || ctx->primary) return CUDA_ERROR_INVALID_CONTEXT;
  runtime::get(ctx->device).synchronize();
  std::erase(context_stack, ctx);
  driver_contexts::get().destroy(ctx);
  return CUDA_SUCCESS;
}

inline CUresult cuCtxGetCurrent(CUcontext* pctx) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  *pctx = current_context();
  return CUDA_SUCCESS;
}

/// Replaces the top of the thread's stack; null pops it.
inline CUresult cuCtxSetCurrent(CUcontext ctx) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!ctx) {
    if (!context_stack.empty()) context_stack.pop_back();
    return CUDA_SUCCESS;
  }
  if (!driver_contexts::get().valid(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  make_current(ctx);
  return CUDA_SUCCESS;
}

inline CUresult cuCtxPushCurrent(CUcontext ctx) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  if (!driver_contexts::get().valid(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  context_stack.push_back(ctx);
  current_device = ctx->device;
  return CUDA_SUCCESS;
}

/// CUDA_ERROR_INVALID_CONTEXT when the thread's stack is empty.
inline CUresult cuCtxPopCurrent(CUcontext* pctx) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  if (context_stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  if (pctx) *pctx = context_stack.back();
  context_stack.pop_back();
  if (!context_stack.empty() && context_stack.back()) current_device = context_stack.back()->device;
  return CUDA_SUCCESS;
}

inline CUresult cuCtxGetDevice(CUdevice* device) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  *device = current_device;
  return CUDA_SUCCESS;
}

inline CUresult cuCtxGetFlags(unsigned int* flags) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  if (!flags) return CUDA_ERROR_INVALID_VALUE;
  *flags = current_context()->flags;
  return CUDA_SUCCESS;
}

/// Waits for all work of the context's device, as cudaDeviceSynchronize.
inline CUresult cuCtxSynchronize() {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([] { return cudaDeviceSynchronize(); });
}

/// 3020, what CUDA reports for every context made by the current API; a
/// null ctx means the current context.
inline CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int* version) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  if (!ctx) ctx = current_context();
  if (!driver_contexts::get().valid(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  *version = 3020;
  return CUDA_SUCCESS;
}
