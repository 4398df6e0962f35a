// The suite's OpenCL side: one context, queue and program on the first CPU
// device found (PoCL's), the program built once per run, and an
// implementation per problem. Without OpenCL at build time, opencl_absent.cpp
// defines the same functions and every PoCL column says "not built".
#pragma once

#include <memory>
#include <string>

#include "implementation.hpp"

namespace weft_bench::suite {

class opencl_session;

struct opencl_status {
  bool available = false;
  std::string description;   // the device and its thread count, or why there is none
  std::string absence;       // without a device, the table's word: "not built", "no device", "failed"
  double build_seconds = 0;  // clBuildProgram of every kernel, not in any timing
};

/// Opens the device and builds the kernels. `threads` is what PoCL is asked
/// for (POCL_MAX_PTHREAD_COUNT, set before the first OpenCL call unless the
/// environment already has it).
std::shared_ptr<opencl_session> open_opencl(unsigned threads, opencl_status& status);

/// The problem on that device: inputs written once, each run an
/// NDRange launch and clFinish.
std::unique_ptr<implementation> make_opencl_implementation(const std::shared_ptr<opencl_session>& session,
                                                           const problem& p);

}  // namespace weft_bench::suite
