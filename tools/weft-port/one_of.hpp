// one_of: whether a name is one of the words of a fixed list.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string_view>

namespace weft_port_tool {

// Whether `name` is one of the words of a fixed list.
template <std::size_t N>
bool one_of(const std::string_view (&words)[N], std::string_view name) {
  return std::find(std::begin(words), std::end(words), name) != std::end(words);
}

}  // namespace weft_port_tool
