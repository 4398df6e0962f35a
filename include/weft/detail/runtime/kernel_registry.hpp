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
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

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
template <class Result, class... Params>  // void, or a stackless kernel's thread
struct parameter_tuple<Result (*)(Params...)> {
  using type = std::tuple<std::decay_t<Params>...>;
};

/// Launches a kernel known by address only, from CUDA's array of pointers to
/// the arguments (cudaLaunchKernel).
using pointer_launcher = cudaError_t (*)(const void* func, const launch_config&, const launch_options&, void** args);

/// Makes a grid of a registered kernel from the launch's argument copies
/// (a parameter_tuple of the kernel, moved from).
using grid_maker = std::shared_ptr<grid_job> (*)(const launch_shape&, void* arguments);

// (`Body`: the stackless kernel that runs for a C-linkage one, kernel_identity.hpp.)
template <auto Function, auto Body = Function>
std::shared_ptr<grid_job> make_compiled_grid(const launch_shape& shape, void* arguments) {
  using kernel = global_function<Function, Body>;
  using copies = typename parameter_tuple<decltype(Function)>::type;
  return std::make_shared<kernel_grid<kernel, copies>>(shape, kernel{}, std::move(*static_cast<copies*>(arguments)));
}

/// A kernel's arguments copied once and launched many times: a kernel node
/// of a CUDA graph copies its arguments when it is added or set, and each
/// launch of an executable graph makes a fresh grid from those copies.
class bound_arguments {
 public:
  bound_arguments() = default;
  bound_arguments(const bound_arguments&) = delete;
  bound_arguments& operator=(const bound_arguments&) = delete;
  virtual ~bound_arguments() = default;

  virtual std::shared_ptr<grid_job> make_grid(const launch_shape& shape) const = 0;

  /// The kernel's name, for people (cudaGraphDebugDotPrint's labels).
  virtual std::string kernel_name() const = 0;

  /// CUDA's array of pointers to each argument (cudaGraphKernelNodeGetParams
  /// hands it out), pointing into the copies.
  void** pointers() const { return pointers_.empty() ? nullptr : pointers_.data(); }

 protected:
  mutable std::vector<void*> pointers_;
};

template <auto Function, auto Body = Function>
class bound_arguments_of final : public bound_arguments {
  using copies = typename parameter_tuple<decltype(Function)>::type;

 public:
  explicit bound_arguments_of(void** args)
      : copies_(read(args, std::make_index_sequence<std::tuple_size_v<copies>>{})) {
    std::apply([&](auto&... each) { (pointers_.push_back(static_cast<void*>(&each)), ...); }, copies_);
  }

  std::shared_ptr<grid_job> make_grid(const launch_shape& shape) const override {
    copies launch_copies = copies_;  // the grid consumes its copies; the node keeps its own
    return make_compiled_grid<Function, Body>(shape, &launch_copies);
  }

  std::string kernel_name() const override { return detail::kernel_name(global_function<Function>{}); }

 private:
  template <std::size_t... I>
  static copies read(void** args, std::index_sequence<I...>) {
    return copies(*static_cast<std::tuple_element_t<I, copies>*>(args[I])...);
  }

  copies copies_;
};

/// Copies a registered kernel's arguments from CUDA's array of pointers;
/// null when the kernel has parameters and `args` is null.
using argument_binder = std::shared_ptr<const bound_arguments> (*)(void** args);

template <auto Function, auto Body = Function>
std::shared_ptr<const bound_arguments> bind_arguments(void** args) {
  if (std::tuple_size_v < typename parameter_tuple<decltype(Function)>::type >> 0 && !args) return nullptr;
  return std::make_shared<bound_arguments_of<Function, Body>>(args);
}

struct registered_kernel {
  pointer_launcher launch = nullptr;
  grid_maker make_grid = nullptr;
  argument_binder bind = nullptr;
};

inline address_registry<registered_kernel>& kernel_registry() {
  static address_registry<registered_kernel> registry;
  return registry;
}

/// The grid of a launch. A __global__ function launched through its address
/// runs the grid compiled for it if it is registered, else calls the pointer
/// for each CUDA thread.
template <class Kernel, class Arguments>
std::shared_ptr<grid_job> make_grid(const launch_shape& shape, Kernel kernel, Arguments arguments) {
  if constexpr (std::is_pointer_v<Kernel>)
    if (grid_maker compiled = kernel_registry().find(kernel_identity(kernel)).make_grid)
      return compiled(shape, &arguments);
  return std::make_shared<kernel_grid<Kernel, Arguments>>(shape, std::move(kernel), std::move(arguments));
}

/// A launch of any kernel (a lambda, a functor, a __global__ function known
/// at compile time or by pointer) kept with copies of its arguments: what a
/// captured launch becomes, a kernel node launched once per graph launch.
template <class Kernel, class Arguments>
class bound_launch final : public bound_arguments {
 public:
  bound_launch(Kernel kernel, Arguments arguments) : kernel_(std::move(kernel)), copies_(std::move(arguments)) {
    std::apply([&](auto&... each) { (pointers_.push_back(const_cast<void*>(static_cast<const void*>(&each))), ...); },
               copies_);
  }

  std::shared_ptr<grid_job> make_grid(const launch_shape& shape) const override {
    return detail::make_grid(shape, kernel_, copies_);
  }

  std::string kernel_name() const override { return detail::kernel_name(kernel_); }

 private:
  Kernel kernel_;
  Arguments copies_;
};

}  // namespace weft::detail
