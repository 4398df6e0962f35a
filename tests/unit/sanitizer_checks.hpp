// Which sanitizer this build of the tests runs under (WEFT_SANITIZE), for
// the few tests that cannot run under one: each is skipped in that build
// only, where it is defined, with the reason beside it, and listed in
// docs/debugging.md ("Sanitizer builds").
#pragma once

#include <weft/detail/fibers/fiber_sanitizer.hpp>

namespace weft_test {

inline constexpr bool under_address_sanitizer = weft::detail::fiber_sanitizer::address_sanitizer;

// ThreadSanitizer does not follow a jump out of a signal handler: weft's
// recovery from a fault in kernel code leaves TSan believing that the
// worker is still in the handler, so it reports every later allocation as
// a "signal-unsafe call inside of a signal" and the process then crashes.
// Tests whose kernels fault on purpose are skipped under TSan. So are
// tests that keep thousands of CUDA threads parked at once (a cluster of
// 8 blocks of 1024 threads, cooperative grids of 132 x k blocks, the
// largest cooperative grid): TSan keeps a shadow call stack and clocks for
// each fiber, and that many exhaust the process's memory mappings
// ("ThreadSanitizer failed to allocate", errno 12).
inline constexpr bool under_thread_sanitizer = weft::detail::fiber_sanitizer::thread_sanitizer;

}  // namespace weft_test
