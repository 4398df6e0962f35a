// One way of computing a problem: weft running the CUDA-spelling kernel, the
// plain C++ loop, or OpenCL C on PoCL. The suite times run() and checks what
// read_result() copies out afterwards.
#pragma once

#include <memory>

#include "problem.hpp"

namespace weft_bench::suite {

class implementation {
 public:
  virtual ~implementation() = default;
  /// Computes the problem once, start to finish (what is timed): a kernel
  /// launch and its synchronisation, or the plain threads spawned and joined.
  virtual void run() = 0;
  /// Copies the last run's result (problem::output_count floats or ints) to `out`.
  virtual void read_result(void* out) = 0;
  /// Whether every run so far completed (a failed launch, an OpenCL error).
  virtual bool healthy() const = 0;
};

/// The kernel in CUDA spelling, launched through weft (`weft::launch<Kernel>`,
/// what weft-port writes for `Kernel<<<...>>>`), then cudaDeviceSynchronize.
std::unique_ptr<implementation> make_weft_implementation(const problem& p);

/// weft's SM workers: the plain loop gets as many threads.
unsigned weft_workers();

/// The same elements as a plain C++ loop, split over `threads` std::threads.
std::unique_ptr<implementation> make_plain_implementation(const problem& p, unsigned threads);

}  // namespace weft_bench::suite
