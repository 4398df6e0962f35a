// What the runtime knows a kernel by: an identity for per-kernel attributes,
// and a readable name for error messages.
#pragma once

#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>

namespace weft::detail {

template <class Kernel>
struct kernel_tag {
  static constexpr char value = 0;
};

/// A `__global__` function known at compile time (`weft::launch<VecAdd>`).
/// Launched through its address, a kernel is a run-time value, the same type
/// for every kernel of one signature: the executor's per-thread loop must
/// call it indirectly for every CUDA thread. As a template argument it gets
/// a loop of its own, into which the compiler can inline it.
//
/// `Body`, where it is not the function itself, is a stackless kernel that
/// runs in its place: a kernel of C linkage cannot be a coroutine (GCC names
/// a coroutine's parts after its symbol, which C linkage leaves unmangled),
/// so its stackless version has C++ linkage and the C-named kernel keeps
/// the identity (attributes, cluster shape, name in reports).
template <auto Function, auto Body = Function>
struct global_function {
  static_assert(std::is_pointer_v<decltype(Function)> && std::is_function_v<std::remove_pointer_t<decltype(Function)>>,
                "weft::launch<kernel> takes a __global__ function");
  static constexpr auto function = Function;
  // What the function returns: nothing for a __global__ function, a thread
  // for a stackless kernel (weft/stackless_kernel.hpp).
  template <class... Args>
  decltype(auto) operator()(Args&&... args) const {
    return Body(std::forward<Args>(args)...);
  }
};

template <class Kernel>
inline constexpr bool is_global_function = false;
template <auto Function, auto Body>
inline constexpr bool is_global_function<global_function<Function, Body>> = true;

/// The address of a `__global__` function, whichever way it was launched.
template <class Kernel>
const void* function_address(const Kernel& kernel) {
  if constexpr (is_global_function<Kernel>)
    return reinterpret_cast<const void*>(Kernel::function);
  else
    return reinterpret_cast<const void*>(kernel);
}

/// A `__global__` function is known by its address (also when launched as a
/// template argument, so that cudaFuncSetAttribute applies to both), a
/// lambda or functor by its type.
template <class Kernel>
const void* kernel_identity(const Kernel& kernel) {
  if constexpr (std::is_pointer_v<Kernel> || is_global_function<Kernel>)
    return function_address(kernel);
  else
    return &kernel_tag<Kernel>::value;
}

inline std::string demangle(const char* symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(symbol, nullptr, nullptr, &status), std::free);
  return status == 0 && text ? text.get() : symbol;
}

/// The function's name where the executable exports it (weft's CMake target
/// links with -rdynamic for this), else the kernel's C++ type.
template <class Kernel>
std::string kernel_name_looked_up(const Kernel& kernel) {
  if constexpr (std::is_pointer_v<Kernel> || is_global_function<Kernel>) {
    const void* address = function_address(kernel);
    Dl_info info{};
    if (::dladdr(address, &info) && info.dli_sname && info.dli_saddr == address) return demangle(info.dli_sname);
  }
  std::string type = demangle(typeid(Kernel).name());
  // A function named at compile time (one with internal linkage has no
  // exported symbol) is spelled in its wrapper's type: keep just its name.
  std::string_view wrapper = "weft::detail::global_function<&";
  if (is_global_function<Kernel> && type.starts_with(wrapper) && type.ends_with('>')) {
    // "f, &body": the function, then its body, itself unless a stackless
    // body stands in for it.
    std::string both = type.substr(wrapper.size(), type.size() - wrapper.size() - 1);
    std::size_t half = both.size() >= 3 ? (both.size() - 3) / 2 : 0;
    if (both.size() >= 3 && both.compare(half, 3, ", &") == 0 && both.compare(0, half, both, half + 3) == 0)
      return both.substr(0, half);
    std::size_t body = both.find(", &");
    return body == std::string::npos ? both : both.substr(0, body);
  }
  return type;
}

/// kernel_name_looked_up, once per kernel known by its type: the race check
/// names every launch that leaves records (dladdr and demangling, 1 % of a
/// vector add's launch at 2^14 threads). A function pointer is looked up
/// each time.
template <class Kernel>
std::string kernel_name(const Kernel& kernel) {
  if constexpr (std::is_pointer_v<Kernel>) {
    return kernel_name_looked_up(kernel);
  } else {
    static const std::string name = kernel_name_looked_up(kernel);
    return name;
  }
}

}  // namespace weft::detail
