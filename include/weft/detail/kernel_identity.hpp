// What the runtime knows a kernel by: an identity for per-kernel attributes,
// and a readable name for error messages.
#pragma once

#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>

namespace weft::detail {

template <class Kernel>
struct kernel_tag {
  static constexpr char value = 0;
};

/// A `__global__` function is known by its address, a lambda or functor by its type.
template <class Kernel>
const void* kernel_identity(const Kernel& kernel) {
  if constexpr (std::is_pointer_v<Kernel>)
    return reinterpret_cast<const void*>(kernel);
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
std::string kernel_name(const Kernel& kernel) {
  if constexpr (std::is_pointer_v<Kernel>) {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<const void*>(kernel), &info) && info.dli_sname &&
        info.dli_saddr == reinterpret_cast<const void*>(kernel))
      return demangle(info.dli_sname);
  }
  return demangle(typeid(Kernel).name());
}

}  // namespace weft::detail
