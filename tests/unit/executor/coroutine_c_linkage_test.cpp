// A kernel of C linkage runs stackless through a stackless body of C++
// linkage that its `void` kernel stands for (weft::register_kernel<&k,
// &body>, weft/launch_by_address.hpp), as weft-port converts `extern "C"`
// kernels: launched by address and through its pointer, it runs on the
// stackless executor, gives what fibers give, and keeps its C name in
// reports and its attributes.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/launch_by_address.hpp>
#include <weft/stackless_kernel.hpp>

#include "device_buffer.hpp"
#include "stackless_failure.hpp"
#include "stackless_scope.hpp"

#include <string>
#include <vector>

namespace {

constexpr unsigned c_linkage_threads = 64;

// The stackless body: a block sum, and whether the thread ran as a coroutine.
weft::stackless_kernel c_linkage_block_sum_body(const int* in, int* out, int* ran_stackless) {
  __shared__ int c_linkage_partial[c_linkage_threads];
  unsigned t = threadIdx.x;
  c_linkage_partial[t] = in[blockIdx.x * c_linkage_threads + t];
  co_await weft::syncthreads();
  for (unsigned half = c_linkage_threads / 2; half > 0; half /= 2) {
    if (t < half) c_linkage_partial[t] += c_linkage_partial[t + half];
    co_await weft::syncthreads();
  }
  if (t == 0) {
    out[blockIdx.x] = c_linkage_partial[0];
    ran_stackless[blockIdx.x] = weft::detail::running_stackless_block != nullptr;
  }
}

weft::stackless_kernel c_linkage_divergent_body(int* out) {
  if (threadIdx.x < 32)
    co_await weft::syncthreads();
  else
    co_await weft::syncthreads();
  out[threadIdx.x] = 1;
}

}  // namespace

extern "C" void weft_test_c_linkage_block_sum(const int* in, int* out, int* ran_stackless) {
  weft::run_on_fiber(c_linkage_block_sum_body(in, out, ran_stackless));
}
extern "C" void weft_test_c_linkage_divergent(int* out) { weft::run_on_fiber(c_linkage_divergent_body(out)); }

namespace {

[[maybe_unused]] const bool c_linkage_block_sum_registered =
    weft::register_kernel<&weft_test_c_linkage_block_sum, &c_linkage_block_sum_body>();
[[maybe_unused]] const bool c_linkage_divergent_registered =
    weft::register_kernel<&weft_test_c_linkage_divergent, &c_linkage_divergent_body>();

struct c_linkage_run {
  std::vector<int> by_address, through_pointer, stackless_by_address, stackless_through_pointer;
  bool operator==(const c_linkage_run&) const = default;
};

c_linkage_run run_c_linkage_block_sum(unsigned blocks) {
  std::vector<int> in(blocks * c_linkage_threads);
  for (unsigned i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i % 13);
  device_buffer<int> d_in(in), sums_a(blocks), sums_p(blocks), flags_a(blocks), flags_p(blocks);
  void* args[] = {&d_in.p, &sums_a.p, &flags_a.p};
  REQUIRE(cudaLaunchKernel(reinterpret_cast<const void*>(&weft_test_c_linkage_block_sum), dim3(blocks),
                           dim3(c_linkage_threads), args, 0, nullptr) == cudaSuccess);
  REQUIRE(weft::launch(blocks, c_linkage_threads, weft_test_c_linkage_block_sum, d_in.p, sums_p.p, flags_p.p) ==
          cudaSuccess);
  return {sums_a.to_host(), sums_p.to_host(), flags_a.to_host(), flags_p.to_host()};
}

}  // namespace

TEST_CASE("a C-linkage kernel registered with a stackless body runs it stackless, by address and through its pointer") {
  constexpr unsigned blocks = 6;
  auto [on_coroutines, on_fibers] = on_both_executors([&] { return run_c_linkage_block_sum(blocks); });
  std::vector<int> expected(blocks);
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < c_linkage_threads; ++t) expected[b] += static_cast<int>((b * c_linkage_threads + t) % 13);
  CHECK(on_coroutines.by_address == expected);
  CHECK(on_coroutines.through_pointer == expected);
  CHECK(on_coroutines.stackless_by_address == std::vector<int>(blocks, 1));
  CHECK(on_coroutines.stackless_through_pointer == std::vector<int>(blocks, 1));
  CHECK(on_fibers.by_address == expected);
  CHECK(on_fibers.through_pointer == expected);
  CHECK(on_fibers.stackless_by_address == std::vector<int>(blocks, 0));
}

TEST_CASE("a C-linkage kernel called directly runs its stackless body on fibers") {
  constexpr unsigned blocks = 2;
  stackless_scope scope(stackless_executor::coroutines);
  std::vector<int> in(blocks * c_linkage_threads, 1);
  device_buffer<int> d_in(in), sums(blocks), flags(blocks);
  REQUIRE(weft::launch<weft_test_c_linkage_block_sum>(blocks, c_linkage_threads, d_in.p, sums.p, flags.p) ==
          cudaSuccess);
  CHECK(sums.to_host() == std::vector<int>(blocks, static_cast<int>(c_linkage_threads)));
  CHECK(flags.to_host() == std::vector<int>(blocks, 0));
}

TEST_CASE("a C-linkage kernel's stackless body fails with the fibers' report, under the kernel's C name") {
  auto fail = [] {
    return stackless_failure_of([] {
      device_buffer<int> out(64);
      void* args[] = {&out.p};
      return cudaLaunchKernel(reinterpret_cast<const void*>(&weft_test_c_linkage_divergent), dim3(1), dim3(64), args, 0,
                              nullptr);
    });
  };
  auto [on_coroutines, on_fibers] = on_both_executors(fail);
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines.code != cudaSuccess);
  CHECK(on_coroutines.report.find("kernel 'weft_test_c_linkage_divergent'") != std::string::npos);
}
