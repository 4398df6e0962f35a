// The helper type of `extern __shared__` arrays at namespace scope.
#pragma once

#include <string_view>

namespace weft_port_tool {

// `extern __shared__ T name[]` at namespace scope becomes an object of this
// type: each use converts to a T* to the running block's dynamic shared
// memory, so indexing, pointer arithmetic, passing it on, casts and `&name`
// read as they do for the array. Guarded: ported headers may bring it too.
inline constexpr std::string_view extern_shared_helper = R"(#ifndef WEFT_PORT_EXTERN_SHARED
#define WEFT_PORT_EXTERN_SHARED
namespace weft_port {
// weft-port: what `extern __shared__ T name[];` at namespace scope became. Each use converts to a T* to
// the running block's dynamic shared memory, as the array does.
template <class T>
struct extern_shared {
  operator T*() const { return weft::dynamic_shared<T>(); }
  template <class U>
  explicit operator U*() const { return reinterpret_cast<U*>(weft::dynamic_shared<T>()); }
  auto operator&() const -> T (*)[] { return reinterpret_cast<T (*)[]>(weft::dynamic_shared<T>()); }
};
}  // namespace weft_port
#endif
)";

}  // namespace weft_port_tool
