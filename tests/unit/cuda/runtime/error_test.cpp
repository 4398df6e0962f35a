// Error reporting: cudaGetErrorName / cudaGetErrorString, the per-host-thread
// last error, and the sticky fault a failing kernel leaves, in the order CUDA
// 13 reported them on an H100 (tests/differential/error_codes_probe.expected).
#include <doctest/doctest.h>
#include <weft.hpp>

#include <stdexcept>
#include <string>
#include <thread>

namespace {

std::string name(int code) { return cudaGetErrorName(static_cast<cudaError_t>(code)); }
std::string text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace

TEST_CASE("cudaGetErrorName and cudaGetErrorString") {
  CHECK(name(719) == "cudaErrorLaunchFailure");
  CHECK(text(719) == "unspecified launch failure");
  CHECK(name(12345) == "unrecognized error code");
  CHECK(text(12345) == "unrecognized error code");
  CHECK(name(cudaSuccess) == "cudaSuccess");
  CHECK(text(cudaSuccess) == "no error");
  CHECK(name(cudaErrorInvalidValue) == "cudaErrorInvalidValue");
  CHECK(text(cudaErrorInvalidValue) == "invalid argument");
  CHECK(name(cudaErrorMemoryAllocation) == "cudaErrorMemoryAllocation");
  CHECK(text(cudaErrorMemoryAllocation) == "out of memory");
  CHECK(name(cudaErrorInvalidMemcpyDirection) == "cudaErrorInvalidMemcpyDirection");
  // The numeric values programs compare against.
  CHECK(cudaErrorInvalidValue == 1);
  CHECK(cudaErrorMemoryAllocation == 2);
  CHECK(cudaErrorInvalidMemcpyDirection == 21);
  CHECK(cudaErrorLaunchFailure == 719);
}

TEST_CASE("the last error survives successful calls until it is read") {
  REQUIRE(cudaGetLastError() == cudaSuccess);
  CHECK(cudaMalloc(static_cast<void**>(nullptr), 4) == cudaErrorInvalidValue);
  void* p = nullptr;
  CHECK(cudaMalloc(&p, 16) == cudaSuccess);
  CHECK(cudaFree(p) == cudaSuccess);
  CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue);
  // A later failure replaces it.
  CHECK(cudaMalloc(&p, std::size_t{1} << 60) == cudaErrorMemoryAllocation);
  CHECK(cudaGetLastError() == cudaErrorMemoryAllocation);
  CHECK(cudaPeekAtLastError() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("the last error belongs to the host thread that made the call") {
  REQUIRE(cudaGetLastError() == cudaSuccess);
  cudaError_t seen_there = cudaErrorUnknown, left_there = cudaErrorUnknown;
  std::thread other([&] {
    seen_there = cudaPeekAtLastError();
    cudaFree(reinterpret_cast<void*>(&seen_there));  // not device memory: fails
    left_there = cudaGetLastError();
  });
  other.join();
  CHECK(seen_there == cudaSuccess);
  CHECK(left_there == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);  // this thread never failed

  CHECK(cudaFree(reinterpret_cast<void*>(&left_there)) == cudaErrorInvalidValue);
  std::thread clean([&] { seen_there = cudaGetLastError(); });
  clean.join();
  CHECK(seen_there == cudaSuccess);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
}

TEST_CASE("a faulting kernel: what each later call reports, as on an H100") {
  // weft's stand-in for the probe's __trap(): an uncaught exception.
  auto trap = [] {
    if (threadIdx.x == 3) throw std::runtime_error("trap");
  };
  REQUIRE(cudaGetLastError() == cudaSuccess);
  CHECK(weft::launch(2, 32, trap) == cudaSuccess);
  CHECK(cudaPeekAtLastError() == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
  void* p = nullptr;
  CHECK(cudaMalloc(&p, 16) == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  int host_int = 0;
  CHECK(cudaMemcpy(&host_int, &host_int, 4, cudaMemcpyDefault) == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaMemset(p, 0, 4) == cudaErrorLaunchFailure);
  CHECK(cudaGetErrorName(cudaGetLastError()) == std::string("cudaErrorLaunchFailure"));
  CHECK_FALSE(weft::fault_message().empty());
  CHECK(cudaDeviceReset() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(weft::fault_message().empty());
  CHECK(cudaMalloc(&p, 16) == cudaSuccess);
  CHECK(cudaFree(p) == cudaSuccess);
}
