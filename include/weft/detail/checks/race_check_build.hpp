// race_check_build: whether this translation unit is compiled for weft's
// race check (WEFT_SANITIZE=race, race_check.hpp). Clang says so for
// -fsanitize-coverage; GCC 12 has neither the instrumentation nor
// __has_feature. A header of its own, so that untraced_read.hpp, which
// race_check.hpp uses, can ask too.
#pragma once

namespace weft::detail {

#if defined(__has_feature)
#if __has_feature(coverage_sanitizer)
inline constexpr bool race_check_build = true;
#else
inline constexpr bool race_check_build = false;
#endif
#else
inline constexpr bool race_check_build = false;
#endif

}  // namespace weft::detail
