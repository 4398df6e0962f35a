// The user's name for the stackless body that weft-port writes for a kernel
// that stays `void` (C linkage, or its name used as a value): the body is
// `weft_port_stackless_NAME` (tools/weft-port, void_kernel_body), in the
// kernel's own namespace. Reports of a bad access or a race name the line's
// function, which is then the body: they name the kernel the user wrote.
#pragma once

#include <string>
#include <string_view>

namespace weft::detail {

inline constexpr std::string_view ported_body_prefix = "weft_port_stackless_";

/// `function` with weft-port's prefix taken off the unqualified name, if it
/// has it: "ns::weft_port_stackless_k(int*)" -> "ns::k(int*)".
inline std::string user_function_name(std::string_view function) {
  std::string name(function);
  std::size_t start = 0;
  // The unqualified name begins after the last "::" before any parameter list.
  std::size_t open = name.find('(');
  std::size_t colons = name.rfind("::", open);
  if (colons != std::string::npos) start = colons + 2;
  if (std::string_view(name).substr(start).starts_with(ported_body_prefix))
    name.erase(start, ported_body_prefix.size());
  return name;
}

}  // namespace weft::detail
