// The text of opencl_kernels.cl, built into weft_bench by CMake.
#pragma once

namespace weft_bench::suite {
extern const char* const opencl_kernel_source;
}
