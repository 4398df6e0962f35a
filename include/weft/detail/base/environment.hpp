// weft's settings from the environment (WEFT_DEVICES, WEFT_WORKERS): each
// read the same way, so that a bad value is refused with the same warning
// whichever variable it is in.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>

namespace weft::detail {

/// The variable `name` as a whole number in [low, high]; nothing if it is
/// not set. Anything else (not a number, trailing text, out of range) is
/// ignored with a warning on stderr: a typo should not silently change how
/// a program runs, nor stop it.
inline std::optional<long> bounded_integer_variable(const char* name, long low, long high) {
  const char* text = std::getenv(name);
  if (!text) return std::nullopt;
  char* end = nullptr;
  long n = std::strtol(text, &end, 10);
  if (end != text && *end == '\0' && n >= low && n <= high) return n;
  std::fprintf(stderr, "weft: ignoring %s=%s (expected a count from %ld to %ld)\n", name, text, low, high);
  return std::nullopt;
}

}  // namespace weft::detail
