// Region versions (weft/region_kernel.hpp): a stackless kernel's blocks run
// as loops over their threads between barriers, where weft-port wrote and
// registered one. The region versions here are written as weft-port writes
// them (tests/port/cases/regions.expected); each is checked against its
// stackless kernel run with region versions off (WEFT_EXECUTOR=stackless)
// and on fibers: the same results, the same order of threads after each
// barrier, the same reports for an exception and a fault.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/region_kernel.hpp>
#include <weft/stackless_groups.hpp>
#include <weft/stackless_kernel.hpp>

#include "sanitizer_checks.hpp"
#include "stackless_failure.hpp"
#include "stackless_scope.hpp"
#include "text_checks.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// How many blocks the region versions below ran: whether they were chosen.
std::atomic<int> region_blocks_run{0};

// Region versions on or off (WEFT_EXECUTOR=stackless) for a scope.
class region_scope {
 public:
  explicit region_scope(bool on) : saved_(weft::detail::region_versions_enabled().load()) {
    weft::detail::region_versions_enabled() = on;
  }
  region_scope(const region_scope&) = delete;
  region_scope& operator=(const region_scope&) = delete;
  ~region_scope() { weft::detail::region_versions_enabled() = saved_; }

 private:
  bool saved_;
};

// A block sum with a thread's index kept across the barriers, and threads
// past `active` returning before the first barrier.
weft::stackless_kernel region_test_sum(const int* in, int* out, unsigned active) {
  __shared__ int partial[64];
  unsigned t = threadIdx.x;
  partial[t] = 0;
  if (t >= active) co_return;
  partial[t] = in[blockIdx.x * blockDim.x + t];
  co_await weft::syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride && t + stride < active) partial[t] += partial[t + stride];
    co_await weft::syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

void region_test_sum_regions(weft::region_block& weft_block, const int* in, int* out, unsigned active) {
  ++region_blocks_run;
  struct weft_locals {
    unsigned t;
  };
  auto weft_threads = weft_block.threads<weft_locals>();
  __shared__ int partial[64];
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    auto& t = weft_l.t;
    t = threadIdx.x;
    partial[t] = 0;
    if (t >= active) return weft::region_exit;
    partial[t] = in[blockIdx.x * blockDim.x + t];
    return weft::region_go;
  });
  weft_threads.barrier();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
      auto& t = weft_l.t;
      if (t < stride && t + stride < active) partial[t] += partial[t + stride];
      return weft::region_go;
    });
    weft_threads.barrier();
  }
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    auto& t = weft_l.t;
    if (t == 0) out[blockIdx.x] = partial[0];
    return weft::region_go;
  });
}
[[maybe_unused]] const bool region_test_sum_registered =
    weft::register_region_version<&region_test_sum, &region_test_sum_regions>();

// Shuffles as weft-port splits them, in blocks of 8 x 3 x 2 threads: the
// second warp is partial (16 lanes, numbered across y and z). Up by 3 in
// segments of 8 lanes; down by 20, which a lane of the partial warp reads
// past its end (0, the executors' value for a lane outside the mask).
weft::stackless_kernel region_test_shuffles(int* out) {
  unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  int value = static_cast<int>(t * t % 97) + 1;
  int below = co_await weft::shfl_up_sync(0xffffffffu, value, 3, 8);
  int next = co_await weft::shfl_down_sync(0xffffffffu, value, 20);
  out[blockIdx.x * 48 + t] = below * 1000 + next;
}

void region_test_shuffles_regions(weft::region_block& weft_block, int* out) {
  ++region_blocks_run;
  struct weft_locals {
    unsigned t;
    int value;
    int below;
  };
  auto weft_threads = weft_block.threads<weft_locals>();
  weft::region_exchange weft_exchange(weft_block);
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    auto& t = weft_l.t;
    auto& value = weft_l.value;
    t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    value = static_cast<int>(t * t % 97) + 1;
    return weft::region_go;
  });
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    weft_exchange.put(weft_threads.thread_of(weft_l), +(weft_l.value));
    return weft::region_go;
  });
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    weft_l.below = weft_exchange.get<int>(weft::region_shfl_up, weft_threads.thread_of(weft_l), 3u, 8);
    weft_exchange.put(weft_threads.thread_of(weft_l), +(weft_l.value));
    return weft::region_go;
  });
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    int next = weft_exchange.get<int>(weft::region_shfl_down, weft_threads.thread_of(weft_l), 20u, 32);
    out[blockIdx.x * 48 + weft_l.t] = weft_l.below * 1000 + next;
    return weft::region_go;
  });
}
[[maybe_unused]] const bool region_test_shuffles_registered =
    weft::register_region_version<&region_test_shuffles, &region_test_shuffles_regions>();

// cg::reduce as weft-port splits it, in blocks of 8 x 3 x 2 threads whose
// second tile is partial (16 lanes): a float sum (the executors' butterfly,
// a missing partner reading 0) and an integer minimum (over the lanes there
// are), every thread's result kept.
weft::stackless_kernel region_test_tile_reduce(int* out) {
  auto block = cooperative_groups::this_thread_block();
  auto tile = cooperative_groups::tiled_partition<32>(block);
  unsigned t = block.thread_rank();
  float share = 1.0f / static_cast<float>(t + 3) + (t % 5 == 0 ? 3.0e6f : 0.0f);
  float sum = co_await weft::reduce(tile, share, cooperative_groups::plus<float>());
  int low = co_await weft::reduce(tile, static_cast<int>(t * 37 % 11) - 20, cooperative_groups::less<int>());
  out[blockIdx.x * 96 + t] = std::bit_cast<int>(sum);
  out[blockIdx.x * 96 + 48 + t] = low;
}

void region_test_tile_reduce_regions(weft::region_block& weft_block, int* out) {
  ++region_blocks_run;
  struct weft_locals {
    float sum;
  };
  auto weft_threads = weft_block.threads<weft_locals>();
  weft::region_exchange weft_exchange(weft_block);
  auto share_of = [](unsigned t) { return 1.0f / static_cast<float>(t + 3) + (t % 5 == 0 ? 3.0e6f : 0.0f); };
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    weft_exchange.put(weft_threads.thread_of(weft_l), share_of(weft_threads.thread_of(weft_l)));
    return weft::region_go;
  });
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    weft_l.sum = weft::region_reduce<float, 32>(weft_exchange, weft_threads.thread_of(weft_l),
                                                cooperative_groups::plus<float>());
    return weft::region_go;
  });
  // Its own region, as weft-port writes it: the tile's operands change
  // only once every thread has its sum.
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    unsigned t = weft_threads.thread_of(weft_l);
    weft_exchange.put(t, static_cast<int>(t * 37 % 11) - 20);
    return weft::region_go;
  });
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    unsigned t = weft_threads.thread_of(weft_l);
    int low = weft::region_reduce<int, 32>(weft_exchange, t, cooperative_groups::less<int>());
    out[blockIdx.x * 96 + t] = std::bit_cast<int>(weft_l.sum);
    out[blockIdx.x * 96 + 48 + t] = low;
    return weft::region_go;
  });
}
[[maybe_unused]] const bool region_test_tile_reduce_registered =
    weft::register_region_version<&region_test_tile_reduce, &region_test_tile_reduce_regions>();

// Shuffles under a warp's `if` that tests threadIdx.x / 32, as weft-port
// splits them: the condition sets each thread's flag, and the regions in
// the `if` run the threads whose flag is set. Only where each warp lies in
// one row of the block do a warp's lanes agree; elsewhere (48 x 2) the
// stackless kernel runs, and its shuffle fails the launch.
weft::stackless_kernel region_test_warp_if(int* out) {
  unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  int value = static_cast<int>(t % 13) + 1;
  if (threadIdx.x / 32 == 0) {
    value += co_await weft::shfl_down_sync(0xffffffffu, value, 1);
  }
  out[blockIdx.x * 128 + t] = value;
}

void region_test_warp_if_regions(weft::region_block& weft_block, int* out) {
  ++region_blocks_run;
  struct weft_locals {
    unsigned t;
    int value;
    bool weft_if1;
  };
  auto weft_threads = weft_block.threads<weft_locals>();
  weft::region_exchange weft_exchange(weft_block);
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    weft_l.t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    weft_l.value = static_cast<int>(weft_l.t % 13) + 1;
    return weft::region_go;
  });
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    weft_l.weft_if1 = static_cast<bool>(threadIdx.x / 32 == 0);
    return weft::region_go;
  });
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    if (!weft_l.weft_if1) return weft::region_go;
    weft_exchange.put(weft_threads.thread_of(weft_l), +(weft_l.value));
    return weft::region_go;
  });
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    if (!weft_l.weft_if1) return weft::region_go;
    weft_l.value += weft_exchange.get<int>(weft::region_shfl_down, weft_threads.thread_of(weft_l), 1u, 32);
    return weft::region_go;
  });
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    out[blockIdx.x * 128 + weft_l.t] = weft_l.value;
    return weft::region_go;
  });
}
[[maybe_unused]] const bool region_test_warp_if_registered =
    weft::register_region_version<&region_test_warp_if, &region_test_warp_if_regions, weft::region_warps_in_rows>();

// Each thread writes down when it runs: after a barrier that starts the
// body, after two barriers with nothing between them, after the thread that
// ran last returned, and after another returned. The log is the order the
// threads ran in.
weft::stackless_kernel region_test_order(int* log, int* next) {
  co_await weft::syncthreads();
  log[(*next)++] = static_cast<int>((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);
  co_await weft::syncthreads();
  co_await weft::syncthreads();
  log[(*next)++] = static_cast<int>((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);
  if ((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x == blockDim.x * blockDim.y * blockDim.z - 4)
    co_return;
  co_await weft::syncthreads();
  log[(*next)++] = static_cast<int>((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);
  if ((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x == blockDim.x * blockDim.y * blockDim.z - 6)
    co_return;
  co_await weft::syncthreads();
  log[(*next)++] = static_cast<int>((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);
}

void region_test_order_regions(weft::region_block& weft_block, int* log, int* next) {
  ++region_blocks_run;
  struct weft_locals {};
  auto weft_threads = weft_block.threads<weft_locals>();
  weft_threads.barrier();
  weft_threads.each([&](weft_locals&) -> weft::region_step {
    log[(*next)++] = static_cast<int>((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);
    return weft::region_go;
  });
  weft_threads.barrier();
  weft_threads.barrier();
  weft_threads.each([&](weft_locals&) -> weft::region_step {
    log[(*next)++] = static_cast<int>((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);
    if ((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x == blockDim.x * blockDim.y * blockDim.z - 4)
      return weft::region_exit;
    return weft::region_go;
  });
  weft_threads.barrier();
  weft_threads.each([&](weft_locals&) -> weft::region_step {
    log[(*next)++] = static_cast<int>((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);
    if ((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x == blockDim.x * blockDim.y * blockDim.z - 6)
      return weft::region_exit;
    return weft::region_go;
  });
  weft_threads.barrier();
  weft_threads.each([&](weft_locals&) -> weft::region_step {
    log[(*next)++] = static_cast<int>((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);
    return weft::region_go;
  });
}
[[maybe_unused]] const bool region_test_order_registered =
    weft::register_region_version<&region_test_order, &region_test_order_regions>();

// Blocks of several rows: each thread records its threadIdx in shared
// memory, counted in unsigned (it reads threadIdx.x itself); the threads
// whose linear id is `quitter` modulo 7 return; after the barrier each
// reads its neighbour's record.
weft::stackless_kernel region_test_rows(int* out, unsigned quitter) {
  __shared__ int records[64];
  unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  records[t] = static_cast<int>(threadIdx.x + 10 * threadIdx.y + 100 * threadIdx.z);
  if (t % 7 == quitter) co_return;
  co_await weft::syncthreads();
  out[blockIdx.x * 64 + t] = records[(t + 1) % (blockDim.x * blockDim.y * blockDim.z)] * 1000 + records[t];
}

void region_test_rows_regions(weft::region_block& weft_block, int* out, unsigned quitter) {
  ++region_blocks_run;
  struct weft_locals {};
  auto weft_threads = weft_block.threads<weft_locals>();
  __shared__ int records[64];
  weft_threads.each(weft::region_counted_unsigned, [&](weft_locals&) -> weft::region_step {
    unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    records[t] = static_cast<int>(threadIdx.x + 10 * threadIdx.y + 100 * threadIdx.z);
    if (t % 7 == quitter) return weft::region_exit;
    return weft::region_go;
  });
  weft_threads.barrier();
  weft_threads.each(weft::region_counted_unsigned, [&](weft_locals&) -> weft::region_step {
    unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    out[blockIdx.x * 64 + t] = records[(t + 1) % (blockDim.x * blockDim.y * blockDim.z)] * 1000 + records[t];
    return weft::region_go;
  });
}
[[maybe_unused]] const bool region_test_rows_registered =
    weft::register_region_version<&region_test_rows, &region_test_rows_regions>();

// Thread 5 of block (2,0,0) throws between two barriers.
weft::stackless_kernel region_test_throwing() {
  co_await weft::syncthreads();
  if (blockIdx.x == 2 && threadIdx.x == 5) throw std::runtime_error("thread five gave up");
  co_await weft::syncthreads();
}

void region_test_throwing_regions(weft::region_block& weft_block) {
  ++region_blocks_run;
  struct weft_locals {};
  auto weft_threads = weft_block.threads<weft_locals>();
  weft_threads.barrier();
  weft_threads.each([&](weft_locals&) -> weft::region_step {
    if (blockIdx.x == 2 && threadIdx.x == 5) throw std::runtime_error("thread five gave up");
    return weft::region_go;
  });
  weft_threads.barrier();
}
[[maybe_unused]] const bool region_test_throwing_registered =
    weft::register_region_version<&region_test_throwing, &region_test_throwing_regions>();

__attribute__((no_sanitize("integer-divide-by-zero"))) weft::stackless_kernel region_test_dividing(const int* divisors,
                                                                                                   int* quotients) {
  co_await weft::syncthreads();
  quotients[threadIdx.x] = 1000 / divisors[threadIdx.x];
}

__attribute__((no_sanitize("integer-divide-by-zero"))) void region_test_dividing_regions(weft::region_block& weft_block,
                                                                                         const int* divisors,
                                                                                         int* quotients) {
  ++region_blocks_run;
  struct weft_locals {};
  auto weft_threads = weft_block.threads<weft_locals>();
  weft_threads.barrier();
  weft_threads.each([&](weft_locals&) __attribute__((no_sanitize("integer-divide-by-zero")))->weft::region_step {
    quotients[threadIdx.x] = 1000 / divisors[threadIdx.x];
    return weft::region_go;
  });
}
[[maybe_unused]] const bool region_test_dividing_registered =
    weft::register_region_version<&region_test_dividing, &region_test_dividing_regions>();

// A kernel whose name weft-port finds used as a value stays a void kernel
// that forwards to its stackless body (weft::register_kernel<&k, &body>);
// its region version is registered under the void kernel's address, which
// a launch by address looks up.
void region_test_sum_by_address(const int* in, int* out, unsigned active) {
  weft::run_on_fiber(region_test_sum(in, out, active));
}
[[maybe_unused]] const bool region_test_sum_by_address_registered =
    weft::register_kernel<&region_test_sum_by_address, &region_test_sum>() &&
    weft::register_region_version<&region_test_sum_by_address, &region_test_sum_regions>();

// A kernel template's region version, registered for each instance the
// program makes as weft-port writes it: the stackless kernel takes the
// address of a static member of a class template declared before it and
// defined after, whose initialization registers the instance.
template <class T, int size>
struct region_test_template_registration;

template <class T, int size>
weft::stackless_kernel region_test_template_sum(const T* in, T* out) {
  (void)&region_test_template_registration<T, size>::registered;
  __shared__ T partial[size];
  T mine = in[blockIdx.x * size + threadIdx.x];
  partial[threadIdx.x] = mine;
  co_await weft::syncthreads();
  for (unsigned stride = size / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] = mine = mine + partial[threadIdx.x + stride];
    co_await weft::syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = mine;
}

template <class T, int size>
void region_test_template_sum_regions(weft::region_block& weft_block, const T* in, T* out) {
  ++region_blocks_run;
  struct weft_locals {
    T mine;
  };
  auto weft_threads = weft_block.threads<weft_locals>();
  __shared__ T partial[size];
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    auto& mine = weft_l.mine;
    mine = in[blockIdx.x * size + threadIdx.x];
    partial[threadIdx.x] = mine;
    return weft::region_go;
  });
  weft_threads.barrier();
  for (unsigned stride = size / 2; stride > 0; stride /= 2) {
    weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
      auto& mine = weft_l.mine;
      if (threadIdx.x < stride) partial[threadIdx.x] = mine = mine + partial[threadIdx.x + stride];
      return weft::region_go;
    });
    weft_threads.barrier();
  }
  weft_threads.each([&](weft_locals& weft_l) -> weft::region_step {
    auto& mine = weft_l.mine;
    if (threadIdx.x == 0) out[blockIdx.x] = mine;
    return weft::region_go;
  });
}

template <class T, int size>
struct region_test_template_registration {
  static const bool registered;
};
template <class T, int size>
const bool region_test_template_registration<T, size>::registered =
    weft::register_region_version<&region_test_template_sum<T, size>, &region_test_template_sum_regions<T, size>>();

struct region_test_run {
  std::vector<int> values;
  int blocks_as_regions;
  bool operator==(const region_test_run&) const = default;
};

// Runs `launch(device_values)` with `count` ints on the device, under the
// choice of executor: what it left there, and how many blocks ran as regions.
template <class Launch>
region_test_run run_with(bool regions, stackless_executor executor, std::size_t count, Launch launch) {
  stackless_scope scope(executor);
  region_scope region_choice(regions);
  int* values = nullptr;
  REQUIRE(cudaMalloc(&values, count * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemset(values, 0, count * sizeof(int)) == cudaSuccess);
  int before = region_blocks_run;
  REQUIRE(launch(values) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  region_test_run run{std::vector<int>(count), region_blocks_run - before};
  REQUIRE(cudaMemcpy(run.values.data(), values, count * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(cudaFree(values) == cudaSuccess);
  return run;
}

// Runs `launch` as regions, as the stackless kernel and on fibers, and
// checks that each of the `blocks` blocks (`threads` inputs of `in` each)
// left the sum of its first `active` inputs, the same in all three runs,
// and that only the first ran as regions.
template <class Launch>
void check_block_sums_three_ways(Launch launch, const std::vector<int>& in, unsigned blocks, unsigned threads,
                                 unsigned active) {
  region_test_run regions = run_with(true, stackless_executor::coroutines, blocks, launch);
  region_test_run stackless = run_with(false, stackless_executor::coroutines, blocks, launch);
  region_test_run fibers = run_with(true, stackless_executor::fibers, blocks, launch);
  CHECK(regions.blocks_as_regions == static_cast<int>(blocks));
  CHECK(stackless.blocks_as_regions == 0);
  CHECK(fibers.blocks_as_regions == 0);
  for (unsigned b = 0; b < blocks; ++b) {
    int expected = 0;
    for (unsigned t = 0; t < active; ++t) expected += in[b * threads + t];
    CHECK(regions.values[b] == expected);
  }
  CHECK(regions.values == stackless.values);
  CHECK(regions.values == fibers.values);
}

}  // namespace

TEST_CASE("a stackless kernel's region version runs its blocks, unless WEFT_EXECUTOR is stackless or fibers") {
  constexpr unsigned blocks = 4, threads = 64;
  std::vector<int> in(blocks * threads);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i % 7) + 1;
  int* device_in = nullptr;
  REQUIRE(cudaMalloc(&device_in, in.size() * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemcpy(device_in, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
  for (unsigned active : {64u, 50u, 1u}) {
    CAPTURE(active);
    auto launch = [&](int* out) { return weft::launch<region_test_sum>(blocks, threads, device_in, out, active); };
    check_block_sums_three_ways(launch, in, blocks, threads, active);
  }
  CHECK(cudaFree(device_in) == cudaSuccess);
}

TEST_CASE("a void kernel forwarding to a stackless body runs its region version when launched by address") {
  constexpr unsigned blocks = 3, threads = 64;
  std::vector<int> in(blocks * threads);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i % 5) + 2;
  int* device_in = nullptr;
  REQUIRE(cudaMalloc(&device_in, in.size() * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemcpy(device_in, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
  unsigned active = 50;
  auto launch = [&](int* out) {
    void* args[] = {&device_in, &out, &active};
    return cudaLaunchKernel(reinterpret_cast<const void*>(&region_test_sum_by_address), dim3(blocks), dim3(threads),
                            args, 0, nullptr);
  };
  check_block_sums_three_ways(launch, in, blocks, threads, active);
  CHECK(cudaFree(device_in) == cudaSuccess);
}

TEST_CASE("each instance of a kernel template that the program launches runs its region version") {
  constexpr unsigned blocks = 3, threads = 64;
  std::vector<int> in(blocks * threads);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i % 11) - 3;
  int* device_in = nullptr;
  REQUIRE(cudaMalloc(&device_in, in.size() * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemcpy(device_in, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
  for (unsigned size : {64u, 32u}) {
    CAPTURE(size);
    auto launch = [&](int* out) {
      return size == 64 ? weft::launch<region_test_template_sum<int, 64>>(blocks, 64, device_in, out)
                        : weft::launch<region_test_template_sum<int, 32>>(blocks, 32, device_in, out);
    };
    check_block_sums_three_ways(launch, in, blocks, size, size);
  }
  CHECK(cudaFree(device_in) == cudaSuccess);
}

TEST_CASE("a region version runs the threads in the stackless executor's order after each barrier") {
  for (dim3 block : {dim3(8), dim3(4, 3), dim3(5, 3, 2)}) {
    CAPTURE(block.y);
    CAPTURE(block.z);
    constexpr std::size_t slots = 192;
    auto launch = [&](int* log) { return weft::launch<region_test_order>(1, block, log, log + slots - 1); };
    region_test_run regions = run_with(true, stackless_executor::coroutines, slots, launch);
    region_test_run stackless = run_with(false, stackless_executor::coroutines, slots, launch);
    region_test_run fibers = run_with(true, stackless_executor::fibers, slots, launch);
    CHECK(regions.blocks_as_regions == 1);
    CHECK(stackless.blocks_as_regions == 0);
    CHECK(regions.values == stackless.values);
    CHECK(regions.values == fibers.values);
    // 8 threads: after the first barrier 7 0 1 ... 6 (7 arrived last);
    // after the next two 5 6 7 0 ... 4 (the empty stretch between them
    // moves 5 to the front), and 4, the last to run, returns: no thread
    // completes that barrier, so the order stays, 5 6 7 0 1 2 3, and 2
    // returns; then 3, which arrived last: 3 5 6 7 0 1.
    if (block.y == 1)
      CHECK(std::vector<int>(regions.values.begin(), regions.values.begin() + 29) ==
            std::vector<int>{7, 0, 1, 2, 3, 4, 5, 6, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 3, 5, 6, 7, 0, 1});
  }
}

TEST_CASE(
    "a region version runs every thread of a block of several rows, with its threadIdx, around those that returned") {
  for (dim3 block : {dim3(8, 4), dim3(5, 3, 2), dim3(1, 6)}) {
    for (unsigned quitter : {3u, 7u}) {  // 7: none returns
      CAPTURE(block.x);
      CAPTURE(block.z);
      CAPTURE(quitter);
      constexpr unsigned blocks = 3;
      auto launch = [&](int* out) { return weft::launch<region_test_rows>(blocks, block, out, quitter); };
      region_test_run regions = run_with(true, stackless_executor::coroutines, blocks * 64, launch);
      region_test_run stackless = run_with(false, stackless_executor::coroutines, blocks * 64, launch);
      region_test_run fibers = run_with(true, stackless_executor::fibers, blocks * 64, launch);
      CHECK(regions.blocks_as_regions == static_cast<int>(blocks));
      CHECK(regions.values == stackless.values);
      CHECK(regions.values == fibers.values);
      unsigned count = block.x * block.y * block.z;
      auto record = [&](unsigned t) {
        return static_cast<int>(t % block.x + 10 * (t / block.x % block.y) + 100 * (t / (block.x * block.y)));
      };
      for (unsigned b = 0; b < blocks; ++b)
        for (unsigned t = 0; t < count; ++t)
          CHECK(regions.values[b * 64 + t] == (t % 7 == quitter ? 0 : record((t + 1) % count) * 1000 + record(t)));
    }
  }
}

TEST_CASE("a region version's split shuffles read the source lanes the stackless kernel's shuffles read") {
  constexpr std::size_t slots = 2 * 48;
  auto launch = [&](int* out) { return weft::launch<region_test_shuffles>(2, dim3(8, 3, 2), out); };
  region_test_run regions = run_with(true, stackless_executor::coroutines, slots, launch);
  region_test_run stackless = run_with(false, stackless_executor::coroutines, slots, launch);
  CHECK(regions.blocks_as_regions == 2);
  CHECK(stackless.blocks_as_regions == 0);
  CHECK(regions.values == stackless.values);
  auto value = [](int t) { return t * t % 97 + 1; };
  // Lane 12 of the first warp: up 3 in its segment (8-15) reads lane 9,
  // down 20 reads lane 32, past the warp: its own. Lane 33 (lane 1 of the
  // partial warp): up 3 leaves its segment (own), down 20 reads lane 21 of
  // 16 (0).
  CHECK(regions.values[12] == value(9) * 1000 + value(12));
  CHECK(regions.values[33] == value(33) * 1000);
}

TEST_CASE("a region version's cg::reduce gives every thread the stackless kernel's result, bit for bit") {
  constexpr std::size_t slots = 2 * 96;
  auto launch = [&](int* out) { return weft::launch<region_test_tile_reduce>(2, dim3(8, 3, 2), out); };
  region_test_run regions = run_with(true, stackless_executor::coroutines, slots, launch);
  region_test_run stackless = run_with(false, stackless_executor::coroutines, slots, launch);
  region_test_run fibers = run_with(true, stackless_executor::fibers, slots, launch);
  CHECK(regions.blocks_as_regions == 2);
  CHECK(stackless.blocks_as_regions == 0);
  CHECK(regions.values == stackless.values);
  CHECK(fibers.values == stackless.values);
  // The partial tile's minimum is over its 16 lanes (t = 32..47), not 0.
  int low = 0;
  for (unsigned t = 32; t < 48; ++t) low = std::min(low, static_cast<int>(t * 37 % 11) - 20);
  CHECK(regions.values[48 + 40] == low);
}

TEST_CASE("shuffles under a warp's if run as regions where each warp lies in a row, else as the stackless kernel") {
  constexpr std::size_t slots = 2 * 128;
  for (dim3 block : {dim3(64, 2), dim3(48), dim3(32, 2, 2)}) {
    CAPTURE(block.x);
    auto launch = [&](int* out) { return weft::launch<region_test_warp_if>(2, block, out); };
    region_test_run regions = run_with(true, stackless_executor::coroutines, slots, launch);
    region_test_run stackless = run_with(false, stackless_executor::coroutines, slots, launch);
    CHECK(regions.blocks_as_regions == 2);
    CHECK(regions.values == stackless.values);
    // Thread 5 is in the first warp of a row: it adds thread 6's value.
    CHECK(regions.values[5] == 6 + 7);
  }
  // 48 x 2: the second warp holds threads 32-47 of row 0 (threadIdx.x / 32
  // is 1) and 0-15 of row 1 (0): the stackless kernel runs, and its lanes
  // 16-31 shuffle with lanes 0-15, which have exited.
  auto failure = [](bool regions) {
    stackless_scope scope(stackless_executor::coroutines);
    region_scope region_choice(regions);
    int* out = nullptr;
    REQUIRE(cudaMalloc(&out, slots * sizeof(int)) == cudaSuccess);
    int before = region_blocks_run;
    stackless_failure f = stackless_failure_of([&] { return weft::launch<region_test_warp_if>(1, dim3(48, 2), out); });
    return std::pair{f, region_blocks_run - before};
  };
  auto [regions, blocks_as_regions] = failure(true);
  auto [stackless, none] = failure(false);
  INFO(regions.report);
  CHECK(blocks_as_regions == 0);
  CHECK(none == 0);
  CHECK(regions.code == cudaErrorLaunchFailure);
  CHECK(regions.report == stackless.report);
  CHECK(contains(regions.report, "the mask names lanes 0-15, which have exited"));
}

TEST_CASE("an exception escaping a region fails the launch as the stackless kernel's thread does") {
  auto failure = [](bool regions) {
    stackless_scope scope(stackless_executor::coroutines);
    region_scope region_choice(regions);
    int before = region_blocks_run;
    stackless_failure f = stackless_failure_of([] { return weft::launch<region_test_throwing>(4, 32); });
    return std::pair{f, region_blocks_run - before};
  };
  auto [regions, blocks_as_regions] = failure(true);
  auto [stackless, none] = failure(false);
  INFO(regions.report);
  CHECK(blocks_as_regions > 0);
  CHECK(none == 0);
  CHECK(regions.code == cudaErrorLaunchFailure);
  CHECK(regions.report == stackless.report);
  CHECK(contains(regions.report, "region_test_throwing"));
  CHECK(contains(regions.report, "block (2,0,0), thread (5,0,0): uncaught exception: thread five gave up"));
}

#if defined(__x86_64__)
TEST_CASE("an integer division by zero in a region fails the launch as in the stackless kernel" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  auto failure = [](bool regions) {
    stackless_scope scope(stackless_executor::coroutines);
    region_scope region_choice(regions);
    int* divisors = nullptr;
    int* quotients = nullptr;
    REQUIRE(cudaMallocManaged(&divisors, 8 * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMalloc(&quotients, 8 * sizeof(int)) == cudaSuccess);
    for (int i = 0; i < 8; ++i) divisors[i] = i == 6 ? 0 : i + 1;
    int before = region_blocks_run;
    stackless_failure f =
        stackless_failure_of([&] { return weft::launch<region_test_dividing>(1, 8, divisors, quotients); });
    // The faulting instruction's address differs between the two versions.
    return std::pair{f.report.substr(0, f.report.find(" by the instruction at ")), region_blocks_run - before};
  };
  auto [regions, blocks_as_regions] = failure(true);
  auto [stackless, none] = failure(false);
  INFO(regions);
  CHECK(blocks_as_regions == 1);
  CHECK(none == 0);
  CHECK(regions == stackless);
  CHECK(contains(regions, "failed in block (0,0,0), thread (6,0,0): integer division by zero"));

  // The worker runs the next launch's regions as if nothing had happened.
  int* quotients = nullptr;
  int* divisors = nullptr;
  REQUIRE(cudaMallocManaged(&divisors, 8 * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&quotients, 8 * sizeof(int)) == cudaSuccess);
  for (int i = 0; i < 8; ++i) divisors[i] = i + 1;
  REQUIRE(weft::launch<region_test_dividing>(1, 8, divisors, quotients) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(quotients[7] == 125);
  CHECK(cudaFree(divisors) == cudaSuccess);
  CHECK(cudaFree(quotients) == cudaSuccess);
}
#endif
