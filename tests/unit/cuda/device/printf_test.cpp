// printf in kernels: C's printf, whose output from one call is never split
// by another thread's, even with many blocks printing long lines at once on
// several workers (see include/weft/cuda/device/control/device_printf.hpp for why).
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstring>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "device_buffer.hpp"
#include "stdout_capture.hpp"
#include "stream_gates.hpp"

namespace {

// Each line says who printed it and carries a body only that thread would
// print: a run of one letter, of a length that varies from line to line so
// that lines straddle the stream buffer's boundaries at every offset.
__device__ int body_length(unsigned block, unsigned thread, int k) {
  return 100 + (block * 131 + thread * 17 + k * 7) % 900;
}
__device__ char body_letter(unsigned block, unsigned thread, int k) { return 'a' + (block + thread + k) % 26; }

__global__ void print_lines(int lines_per_thread) {
  char body[1001];
  for (int k = 0; k < lines_per_thread; ++k) {
    int length = body_length(blockIdx.x, threadIdx.x, k);
    std::memset(body, body_letter(blockIdx.x, threadIdx.x, k), length);
    body[length] = '\0';
    printf("weft-printf %u %u %d %d %s end\n", blockIdx.x, threadIdx.x, k, length, body);
    if (k % 2 == 0) __syncthreads();  // the block's other threads print in between
  }
}

}  // namespace

TEST_CASE("lines printed by concurrent CUDA threads never interleave") {
  exact_workers pool(4);
  constexpr unsigned blocks = 48, threads = 64;
  constexpr int lines_per_thread = 4;
  std::string output = capture_stdout([&] {
    REQUIRE(weft::launch(blocks, threads, print_lines, lines_per_thread) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  });
  std::istringstream lines(output);
  std::set<std::tuple<unsigned, unsigned, int>> seen;
  int malformed = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string tag, body, end;
    unsigned block = 0, thread = 0;
    int k = 0, length = 0;
    fields >> tag >> block >> thread >> k >> length >> body >> end;
    bool whole = tag == "weft-printf" && !fields.fail() && fields.peek() == EOF && end == "end" && block < blocks &&
                 thread < threads && k < lines_per_thread && length == body_length(block, thread, k) &&
                 body.size() == static_cast<std::size_t>(length) &&
                 body.find_first_not_of(body_letter(block, thread, k)) == std::string::npos &&
                 seen.emplace(block, thread, k).second;
    if (!whole && ++malformed <= 3) {
      INFO("line: " << line.substr(0, 200));
      CHECK(whole);
    }
  }
  CHECK(malformed == 0);
  CHECK(seen.size() == std::size_t{blocks} * threads * lines_per_thread);
}

__global__ void printf_result(int* result) { *result = printf("%d %s %.2f\n", 42, "x", 1.5); }

TEST_CASE("printf in a kernel formats and returns as C's printf") {
  device_buffer<int> result(1);
  std::string output = capture_stdout([&] {
    REQUIRE(weft::launch(1, 1, printf_result, result.p) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  });
  CHECK(output == "42 x 1.50\n");
  CHECK(result.to_host()[0] == 10);  // characters written; CUDA's printf would return 3, its argument count
}
