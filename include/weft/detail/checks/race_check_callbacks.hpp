// The callbacks that -fsanitize-coverage=trace-loads,trace-stores calls for
// every plain load and store of instrumented code, handing each to the race
// check (race_check.hpp). They are ordinary extern "C" definitions, which
// must exist once in a program: include this header in exactly one
// translation unit of a race-check build. WEFT_SANITIZE=race does that for
// weft's targets and weft_add_cuda_executable (cmake/weft_race_check.cpp).
// They override the weak ones of the sanitizer runtime that Clang links.
//
// In any other build the header defines nothing.
#pragma once

#include <cstdint>

#include "weft/detail/checks/race_check.hpp"

#if defined(__has_feature)
#if __has_feature(coverage_sanitizer)

namespace weft::detail {

// The callback's return address is in the instrumented function, just after
// the access: the report's source line. Not instrumented itself.
[[clang::no_sanitize("coverage"), gnu::always_inline]] inline void race_traced(const void* address, unsigned size,
                                                                               bool write, const void* pc) {
  if (race_worker* worker = race_running) [[unlikely]]
    worker->access(address, size, write, pc);
}

}  // namespace weft::detail

extern "C" {
[[clang::no_sanitize("coverage")]] void __sanitizer_cov_load1(std::uint8_t* p) {
  weft::detail::race_traced(p, 1, false, __builtin_return_address(0));
}
[[clang::no_sanitize("coverage")]] void __sanitizer_cov_load2(std::uint16_t* p) {
  weft::detail::race_traced(p, 2, false, __builtin_return_address(0));
}
[[clang::no_sanitize("coverage")]] void __sanitizer_cov_load4(std::uint32_t* p) {
  weft::detail::race_traced(p, 4, false, __builtin_return_address(0));
}
[[clang::no_sanitize("coverage")]] void __sanitizer_cov_load8(std::uint64_t* p) {
  weft::detail::race_traced(p, 8, false, __builtin_return_address(0));
}
[[clang::no_sanitize("coverage")]] void __sanitizer_cov_load16(__int128* p) {
  weft::detail::race_traced(p, 16, false, __builtin_return_address(0));
}
[[clang::no_sanitize("coverage")]] void __sanitizer_cov_store1(std::uint8_t* p) {
  weft::detail::race_traced(p, 1, true, __builtin_return_address(0));
}
[[clang::no_sanitize("coverage")]] void __sanitizer_cov_store2(std::uint16_t* p) {
  weft::detail::race_traced(p, 2, true, __builtin_return_address(0));
}
[[clang::no_sanitize("coverage")]] void __sanitizer_cov_store4(std::uint32_t* p) {
  weft::detail::race_traced(p, 4, true, __builtin_return_address(0));
}
[[clang::no_sanitize("coverage")]] void __sanitizer_cov_store8(std::uint64_t* p) {
  weft::detail::race_traced(p, 8, true, __builtin_return_address(0));
}
[[clang::no_sanitize("coverage")]] void __sanitizer_cov_store16(__int128* p) {
  weft::detail::race_traced(p, 16, true, __builtin_return_address(0));
}
}

#endif
#endif
