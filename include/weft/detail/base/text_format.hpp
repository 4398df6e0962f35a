// Text for reports and descriptions, written with printf formats.
//
// The fault reports, the failure messages and the descriptions of commands
// are compiled into every program, though they run only when something goes
// wrong or is traced. Written as chains of std::string temporaries, which
// GCC expands inline at -O2, they took a tenth of the time that a ten-line
// kernel program takes to compile; a format and one out-of-line call per
// piece cost little (docs/performance.md, "Compile time").
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <string>

namespace weft::detail {

/// Appends `format`, printf-style, to `text`.
[[gnu::cold, gnu::format(printf, 2, 3)]] inline void append_format(std::string& text, const char* format, ...) {
  char piece[256];
  std::va_list arguments;
  va_start(arguments, format);
  int length = std::vsnprintf(piece, sizeof piece, format, arguments);
  va_end(arguments);
  if (length < 0) return;
  if (static_cast<std::size_t>(length) < sizeof piece) {
    text.append(piece, static_cast<std::size_t>(length));
    return;
  }
  // Longer than the buffer (a long file name): formatted again in place.
  std::size_t at = text.size();
  text.resize(at + static_cast<std::size_t>(length) + 1);
  va_start(arguments, format);
  std::vsnprintf(text.data() + at, static_cast<std::size_t>(length) + 1, format, arguments);
  va_end(arguments);
  text.resize(at + static_cast<std::size_t>(length));
}

}  // namespace weft::detail
