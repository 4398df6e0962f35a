// The user's name for the functions weft-port writes for a kernel: the
// stackless body of a kernel that stays `void` (C linkage, or its name used
// as a value), `weft_port_stackless_NAME` (tools/weft-port,
// void_kernel_body), and a region version, `weft_port_regions_NAME`, whose
// first parameter is the block (region_kernel.hpp); each in the kernel's
// own namespace. Reports of a bad access or a race name the line's
// function, which is then one of those: they name the kernel the user wrote.
#pragma once

#include <string>
#include <string_view>

namespace weft::detail {

inline constexpr std::string_view ported_body_prefix = "weft_port_stackless_";
inline constexpr std::string_view ported_regions_prefix = "weft_port_regions_";

/// `function` with weft-port's prefix taken off the unqualified name, if it
/// has it: "ns::weft_port_stackless_k(int*)" -> "ns::k(int*)". A region
/// version, or a region of it (a lambda inside it), is named as its kernel:
/// "ns::weft_port_regions_k(weft::detail::region_block&, int*)::{lambda...}"
/// -> "ns::k(int*)".
inline std::string user_function_name(std::string_view function) {
  std::string name(function);
  std::size_t start = 0;
  // The unqualified name begins after the last "::" before any parameter list.
  std::size_t open = name.find('(');
  std::size_t colons = name.rfind("::", open);
  if (colons != std::string::npos) start = colons + 2;
  std::string_view unqualified = std::string_view(name).substr(start);
  if (unqualified.starts_with(ported_body_prefix)) {
    name.erase(start, ported_body_prefix.size());
  } else if (unqualified.starts_with(ported_regions_prefix) && open != std::string::npos) {
    // Up to the region version's parameter list, less its block.
    std::size_t close = open, depth = 0;
    for (; close < name.size(); ++close) {
      if (name[close] == '(') ++depth;
      if (name[close] == ')' && --depth == 0) break;
    }
    if (close == name.size()) return name;
    std::string parameters = name.substr(open + 1, close - open - 1);
    std::size_t block_end = parameters.find("region_block&");
    if (block_end == std::string::npos) return name;
    block_end += std::string_view("region_block&").size();
    if (parameters.compare(block_end, 2, ", ") == 0) block_end += 2;
    parameters.erase(0, block_end);
    name = name.substr(0, start) +
           name.substr(start + ported_regions_prefix.size(), open - start - ported_regions_prefix.size()) + "(" +
           parameters + ")";
  }
  return name;
}

}  // namespace weft::detail
