// The __global__ functions a program has registered (weft-port registers
// every non-template kernel of a .cu file): what is needed to launch one
// that is known only by its address, and a grid of it compiled for it.
//
// A kernel launched through its address is called through a pointer for
// every CUDA thread. A registered kernel's grid is instantiated for the
// function itself (global_function<F>), so that launches by address run the
// same directly-calling loop as `weft::launch<F>`; this is what makes a
// ported program's launches of kernels declared in a header fast too.
#pragma once

#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "weft/detail/base/address_registry.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/scheduler/grid_job.hpp"
#include "weft/detail/scheduler/kernel_identity.hpp"

namespace weft {
struct launch_config;
}

namespace weft::detail {

struct launch_options;

/// The copies a launch of a __global__ function keeps: its own parameter
/// types, so that arguments convert as they do at a CUDA launch.
template <class Function>
struct parameter_tuple;
template <class... Params>
struct parameter_tuple<void (*)(Params...)> {
  using type = std::tuple<std::decay_t<Params>...>;
};

/// Launches a kernel known by address only, from CUDA's array of pointers to
/// the arguments (cudaLaunchKernel).
using pointer_launcher = cudaError_t (*)(const void* func, const launch_config&, const launch_options&, void** args);

/// Makes a grid of a registered kernel from the launch's argument copies
/// (a parameter_tuple of the kernel, moved from).
using grid_maker = std::shared_ptr<grid_job> (*)(const launch_shape&, void* arguments);

template <auto Function>
std::shared_ptr<grid_job> make_compiled_grid(const launch_shape& shape, void* arguments) {
  using kernel = global_function<Function>;
  using copies = typename parameter_tuple<decltype(Function)>::type;
  return std::make_shared<kernel_grid<kernel, copies>>(shape, kernel{}, std::move(*static_cast<copies*>(arguments)));
}

struct registered_kernel {
  pointer_launcher launch = nullptr;
  grid_maker make_grid = nullptr;
};

inline address_registry<registered_kernel>& kernel_registry() {
  static address_registry<registered_kernel> registry;
  return registry;
}

}  // namespace weft::detail
