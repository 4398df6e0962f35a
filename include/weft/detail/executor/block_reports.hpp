// What a failed block's report says, shared by both executors: the fiber
// block executor (block_executor_faults.hpp) and the stackless one
// (coroutine_executor/), so that a kernel fails with the same text
// whichever runs it. Free functions, cold and out of the hot paths.
#pragma once

#include <bit>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/text_format.hpp"

namespace weft::detail {

/// The four flavours of the block-wide barrier (CUDA guide, "Synchronization Functions").
enum class barrier_kind : unsigned char { sync, count, all, any };

/// What a barrier of `kind` returns to each thread, given how many of the
/// `arrivals` passed a nonzero predicate: __syncthreads_count the count,
/// _and whether all did, _or whether any did.
inline int barrier_result(barrier_kind kind, unsigned count, unsigned arrivals) noexcept {
  switch (kind) {
    case barrier_kind::count:
      return static_cast<int>(count);
    case barrier_kind::all:
      return count == arrivals;
    case barrier_kind::any:
      return count != 0;
    default:
      return 0;
  }
}

// Whether two source_locations are the same bytes: a call site's is one
// pointer to static data (GCC's and Clang's libraries), so that is one
// compare. Spelt as a load rather than memcmp, which GCC at -O1 (the level
// cuda-samples are built at) calls out of line: on every barrier arrival that
// call was 13-14% of matrixMul's and scan's time (docs/performance.md, log).
inline bool same_source_bytes(const std::source_location& a, const std::source_location& b) {
  if constexpr (sizeof(std::source_location) == sizeof(const void*) &&
                std::is_trivially_copyable_v<std::source_location>) {
    return std::bit_cast<const void*>(a) == std::bit_cast<const void*>(b);
  } else {
    return std::memcmp(&a, &b, sizeof(std::source_location)) == 0;
  }
}

/// Whether two call sites are one: the same bytes, or the same file, line and column.
inline bool same_call_site(const std::source_location& a, const std::source_location& b) {
  return same_source_bytes(a, b) ||
         (a.line() == b.line() && a.column() == b.column() &&
          (a.file_name() == b.file_name() || std::strcmp(a.file_name(), b.file_name()) == 0));
}

/// Thrown by device code that fails the way CUDA reports with a particular
/// code (a failed assert is cudaErrorAssert, __trap() cudaErrorLaunchFailure).
/// Any other exception escaping a thread is cudaErrorLaunchFailure.
struct kernel_fault {
  cudaError_t code;
  std::string what;
};

/// Why a block failed: the code the device faults with, and the report.
struct block_failure {
  cudaError_t code = cudaSuccess;
  std::string message;
  explicit operator bool() const { return code != cudaSuccess; }
};

namespace reports {

// "(3,0,0)"
[[gnu::cold]] inline std::string describe_index(uint3 i) {
  std::string text;
  append_format(text, "(%u,%u,%u)", i.x, i.y, i.z);
  return text;
}

// "thread (3,0,0)"
[[gnu::cold]] inline std::string describe_thread(uint3 t) {
  std::string text;
  append_format(text, "thread (%u,%u,%u)", t.x, t.y, t.z);
  return text;
}

// What escaped a CUDA thread, other than a kernel_fault.
[[gnu::cold]] inline std::string describe_exception(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    std::string text = "uncaught exception: ";
    text += e.what();
    return text;
  } catch (...) {
    return "uncaught exception of a type not derived from std::exception";
  }
}

[[gnu::cold]] inline const char* barrier_name(barrier_kind kind) {
  switch (kind) {
    case barrier_kind::count:
      return "__syncthreads_count";
    case barrier_kind::all:
      return "__syncthreads_and";
    case barrier_kind::any:
      return "__syncthreads_or";
    default:
      return "__syncthreads";
  }
}

// "a.cu:12:5"
[[gnu::cold]] inline std::string describe_site(std::source_location where) {
  std::string text;
  append_format(text, "%s:%u:%u", where.file_name(), static_cast<unsigned>(where.line()),
                static_cast<unsigned>(where.column()));
  return text;
}

// "; thread (0,0,0)", or "; thread (0,0,0) to thread (63,0,0)".
[[gnu::cold]] inline void append_threads(std::string& text, uint3 first, uint3 last, bool range) {
  append_format(text, "; thread (%u,%u,%u)", first.x, first.y, first.z);
  if (range) append_format(text, " to thread (%u,%u,%u)", last.x, last.y, last.z);
}

// Thread ids in increasing order. The reports sort only these, so qsort,
// which is compiled once into the C library, rather than an instantiation
// of std::sort in every program.
[[gnu::cold]] inline void sort_ids(std::vector<unsigned>& ids) {
  if (ids.size() < 2) return;  // an empty vector's data() may be null, which qsort must not get
  std::qsort(ids.data(), ids.size(), sizeof(unsigned), [](const void* a, const void* b) {
    unsigned x = *static_cast<const unsigned*>(a), y = *static_cast<const unsigned*>(b);
    return (x > y) - (x < y);
  });
}

}  // namespace reports

}  // namespace weft::detail
