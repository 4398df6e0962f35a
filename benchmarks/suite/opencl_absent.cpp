// Built instead of opencl_runner.cpp when CMake finds no OpenCL.
#include "opencl_runner.hpp"

namespace weft_bench::suite {

class opencl_session {};

std::shared_ptr<opencl_session> open_opencl(unsigned, opencl_status& status) {
  status.available = false;
  status.description = "not built (CMake found no OpenCL)";
  status.absence = "not built";
  return nullptr;
}

std::unique_ptr<implementation> make_opencl_implementation(const std::shared_ptr<opencl_session>&, const problem&) {
  return nullptr;
}

}  // namespace weft_bench::suite
