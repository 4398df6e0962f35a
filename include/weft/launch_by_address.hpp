// Launching a __global__ function known by its address (cudaLaunchKernel's
// `(void*)kernel`, a kernel node's `func`, and CUDA's array of pointers to
// the arguments), and the registration that makes it possible:
// weft::register_kernel<&k>() records how to launch k from its address and
// the grid compiled for k (detail/runtime/kernel_registry.hpp). The porting
// step writes it for each non-template kernel of a .cu file; a .cpp calls it
// itself, since nvcc's registration of every kernel has no equivalent there.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/runtime/kernel_registry.hpp"
#include "weft/launch.hpp"

namespace weft::detail {

template <class Result, class... Params, std::size_t... I>
cudaError_t launch_from_pointers(Result (*func)(Params...), const launch_config& config, const launch_options& options,
                                 void** args, std::index_sequence<I...>) {
  return launch_with(config, options, func, *static_cast<std::remove_cvref_t<Params>*>(args[I])...);
}

// Result: void, or a stackless kernel's thread (weft/stackless_kernel.hpp).
template <class Result, class... Params>
cudaError_t launch_registered(const void* func, const launch_config& config, const launch_options& options,
                              void** args) {
  auto typed = reinterpret_cast<Result (*)(Params...)>(const_cast<void*>(func));
  if (sizeof...(Params) > 0 && !args) return record(cudaErrorInvalidValue);
  return launch_from_pointers(typed, config, options, args, std::index_sequence_for<Params...>{});
}

template <class Result, class... Params>
constexpr pointer_launcher launcher_for(Result (*)(Params...)) {
  return &launch_registered<Result, Params...>;
}

/// weft::register_kernel's work (below).
template <auto Function, auto Body = Function>
bool register_kernel() {
  kernel_registry().add(reinterpret_cast<const void*>(Function),
                        {launcher_for(Function), &make_compiled_grid<Function, Body>, &bind_arguments<Function, Body>});
  return true;
}

template <class Kernel, class Body>
inline constexpr bool same_parameters = false;
template <class Result, class... Params>
inline constexpr bool same_parameters<void (*)(Params...), Result (*)(Params...)> = true;

template <class... Params>
cudaError_t launch_by_pointer(void (*func)(Params...), const launch_config& config, const launch_options& options,
                              void** args) {
  if (cudaError_t e = check_not_forked()) return e;
  if (!func) return record(cudaErrorInvalidDeviceFunction);
  return launch_registered<void, Params...>(reinterpret_cast<const void*>(func), config, options, args);
}

/// A kernel known by address only: launched if the porting step registered
/// it, else cudaErrorInvalidDeviceFunction (as CUDA reports for an address
/// that is no kernel).
inline cudaError_t launch_by_pointer(const void* func, const launch_config& config, const launch_options& options,
                                     void** args) {
  if (cudaError_t e = check_not_forked()) return e;
  pointer_launcher launcher = func ? kernel_registry().find(func).launch : nullptr;
  if (!launcher) return record(cudaErrorInvalidDeviceFunction);
  return launcher(func, config, options, args);
}

}  // namespace weft::detail

namespace weft {

/// Makes the __global__ function `Kernel` known by its address, as nvcc's
/// generated code makes every kernel known in CUDA: cudaLaunchKernel((void*)k,
/// ...), cudaLaunchCooperativeKernel, cudaLaunchKernelExC and kernel nodes
/// (cudaGraphAddKernelNode, cudaKernelNodeParams::func) then find its
/// parameter types, and every launch of k by address runs the grid compiled
/// for k. weft-port writes it after each .cu file for the file's non-template
/// kernels; in a .cpp, or for an instance of a kernel template, call it once
/// before such a launch, e.g. at namespace scope:
///
///   static const bool scale_registered = weft::register_kernel<&scale>();
///
/// Registering a kernel again changes nothing. Returns true.
template <auto Kernel>
requires std::is_function_v<std::remove_pointer_t<decltype(Kernel)>>
bool register_kernel() { return detail::register_kernel<Kernel>(); }

/// The same for a `void` kernel `Kernel` that stands for `StacklessBody`, a
/// stackless kernel with the same parameters: every launch of `Kernel` by
/// address (and through a pointer, `weft::launch(grid, block, Kernel, ...)`)
/// runs `StacklessBody`'s threads as coroutines, while attributes, cluster
/// shape and reports stay `Kernel`'s. This is how a kernel of C linkage,
/// which cannot itself be a coroutine (GCC names a coroutine's parts after
/// its symbol, which C linkage leaves unmangled), runs stackless; weft-port
/// writes it for an `extern "C"` kernel it converts:
///
///   extern "C++" weft::stackless_kernel scale_body(float* x) { ... co_await weft::syncthreads(); ... }
///   extern "C" void scale(float* x) { weft::run_on_fiber(scale_body(x)); }
///   static const bool scale_registered = weft::register_kernel<&scale, &scale_body>();
///
/// `Kernel`'s own body runs only where it is called directly (weft::launch<scale>).
template <auto Kernel, auto StacklessBody>
requires detail::same_parameters<decltype(Kernel), decltype(StacklessBody)>
bool register_kernel() { return detail::register_kernel<Kernel, StacklessBody>(); }

}  // namespace weft
