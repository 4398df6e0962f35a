// A host thread that waits for the device runs a grid of one block itself
// when the device has nothing else to do (sm_pool::take_lone_grid and
// run_on_caller, called by cudaDeviceSynchronize): a launch-and-synchronise
// round trip then needs no second thread. The block must behave as it would
// on an SM worker. The first tests make a grid outside any pool, so that the
// test's own thread is certain to be the one that runs it. A thread that
// waits for one stream, event or copy (runtime::wait_for) runs only the
// grid that its wait needs.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <tuple>

#include "sanitizer_checks.hpp"
#include "stream_gates.hpp"
#include "text_checks.hpp"

namespace {

using weft::detail::command;
using weft::detail::command_graph;
using weft::detail::grid_job;
using weft::detail::kernel_grid;
using weft::detail::launch_shape;
using weft::detail::marker;
using weft::detail::sm_pool;

// What the block saw.
struct lone_grid_seen {
  std::thread::id thread;
  unsigned smid = 99;
  std::atomic<int> threads{0};
  unsigned block_x = 0;
};

__global__ void lone_grid_note(lone_grid_seen* seen) {
  seen->threads.fetch_add(1);
  __syncthreads();  // every thread of the block is there
  if (threadIdx.x == 0) {
    seen->thread = std::this_thread::get_id();
    seen->smid = weft::ptx::smid();
    seen->block_x = blockDim.x;
  }
}

__global__ void lone_grid_wild_write(int* wild) {
  if (threadIdx.x == 3) *wild = 1;
}

// A one-block grid of `kernel`, enqueued in a command graph of its own
// whose grids go nowhere: the test runs it with run_on_caller.
template <auto Kernel, class... Args>
struct unsubmitted_grid {
  std::shared_ptr<command> submitted;
  command_graph graph{0, [this](std::shared_ptr<command> grid) { submitted = std::move(grid); }};

  unsubmitted_grid(unsigned threads, Args... args) {
    using arguments = std::tuple<Args...>;
    launch_shape shape{dim3(1), dim3(threads), 0, weft::detail::runtime::get().stack_bytes(), 0};
    auto grid = std::make_shared<kernel_grid<weft::detail::global_function<Kernel>, arguments>>(
        shape, weft::detail::global_function<Kernel>{}, arguments(args...));
    graph.enqueue(graph.legacy_stream(), std::move(grid));
  }

  grid_job& job() { return static_cast<grid_job&>(*submitted); }
};

}  // namespace

TEST_CASE("a lone grid run on the waiting thread runs every thread of its block and completes") {
  lone_grid_seen seen;
  unsubmitted_grid<lone_grid_note, lone_grid_seen*> grid(64, &seen);
  REQUIRE(grid.submitted);
  CHECK_FALSE(grid.graph.idle());
  int device_before = weft::detail::current_device;
  weft::detail::running_sm = 7;  // a host thread's; the block must see worker 0's
  sm_pool::run_on_caller(grid.job());
  CHECK(grid.graph.idle());
  CHECK(grid.submitted->done());
  CHECK(seen.threads.load() == 64);
  CHECK(seen.block_x == 64);
  CHECK(seen.thread == std::this_thread::get_id());
  CHECK(seen.smid == 0);
  CHECK(weft::detail::running_sm == 7);
  CHECK(weft::detail::current_device == device_before);
  CHECK_FALSE(weft::detail::in_kernel());
  weft::detail::running_sm = 0;
}

TEST_CASE("a fault in a lone grid run on the waiting thread is the device's fault, and the thread goes on" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  // Below the lowest address Linux maps (vm.mmap_min_addr), above the null page.
  auto* wild = reinterpret_cast<int*>(std::uintptr_t{0x8000});
  unsubmitted_grid<lone_grid_wild_write, int*> grid(32, wild);
  sm_pool::run_on_caller(grid.job());
  CHECK(grid.graph.idle());
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  std::string report = weft::fault_message();
  INFO(report);
  CHECK(contains(report, "lone_grid_wild_write"));
  CHECK(contains(report, "' failed in block (0,0,0), thread (3,0,0): illegal address: a write to 0x8000"));
  CHECK(cudaDeviceReset() == cudaSuccess);
  cudaGetLastError();
}

TEST_CASE("launch and cudaDeviceSynchronize in a loop: each kernel has run when the call returns") {
  int* count = nullptr;
  REQUIRE(cudaMallocManaged(&count, sizeof(int)) == cudaSuccess);
  *count = 0;
  bool in_order = true;
  for (int i = 0; i < 2000 && in_order; ++i) {
    weft::launch(
        1, 1, [](int* c) { ++*c; }, count);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    in_order = *count == i + 1;
  }
  CHECK(in_order);
  CHECK(cudaFree(count) == cudaSuccess);
}

TEST_CASE("the waiting thread leaves a one-block grid to the workers while one of them runs a block") {
  // The pool's one worker is in the gate's block; the next grid's block
  // would run beside it on the waiting thread, which one worker never does.
  exact_workers workers(1);
  cudaStream_t held = nullptr, other = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&held, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking) == cudaSuccess);
  {
    gate g;
    int* started = nullptr;
    REQUIRE(cudaMallocManaged(&started, sizeof(int)) == cudaSuccess);
    std::atomic_ref<int>(*started).store(0);
    REQUIRE(weft::launch(
                {1, 1, 0, held},
                [](int* s, int* f) {
                  std::atomic_ref<int>(*s).store(1);
                  while (std::atomic_ref<int>(*f).load() == 0) std::this_thread::yield();
                },
                started, g.flag) == cudaSuccess);
    while (std::atomic_ref<int>(*started).load() == 0) std::this_thread::yield();
    lone_grid_seen seen;
    REQUIRE(weft::launch<lone_grid_note>({1, 32, 0, other}, &seen) == cudaSuccess);
    std::thread opener([&g] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      g.open();
    });
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    opener.join();
    CHECK(seen.threads.load() == 32);
    CHECK(seen.thread != std::this_thread::get_id());
    CHECK(cudaFree(started) == cudaSuccess);
  }
  cudaStreamDestroy(held);
  cudaStreamDestroy(other);
}

TEST_CASE("a thread waiting for one command takes only the lone grid that the command is or directly follows") {
  // A pool without workers, so that nothing else claims the grid.
  sm_pool pool(0);
  lone_grid_seen seen;
  unsubmitted_grid<lone_grid_note, lone_grid_seen*> grid(32, &seen);
  auto after_grid = std::make_shared<marker>("after the grid");
  grid.graph.enqueue(grid.graph.legacy_stream(), after_grid);
  auto other_stream = grid.graph.create_stream(cudaStreamNonBlocking, 0);
  auto unrelated = std::make_shared<marker>("in another stream");
  grid.graph.enqueue(*other_stream, unrelated);
  pool.submit(std::static_pointer_cast<grid_job>(grid.submitted));

  CHECK_FALSE(pool.take_lone_grid(unrelated.get()));
  CHECK_FALSE(after_grid->done());
  std::shared_ptr<grid_job> taken = pool.take_lone_grid(after_grid.get());
  REQUIRE(taken);
  CHECK(taken.get() == grid.submitted.get());
  CHECK_FALSE(pool.take_lone_grid(after_grid.get()));  // taken once
  sm_pool::run_on_caller(*taken);
  pool.caller_done();
  CHECK(seen.threads.load() == 32);
  CHECK(seen.thread == std::this_thread::get_id());
  CHECK(after_grid->done());
  CHECK(grid.graph.idle());
}

namespace {

__global__ void lone_grid_record_thread(std::thread::id* ran_on) { *ran_on = std::this_thread::get_id(); }

// In a tight loop the one worker that polls for spin_time after its last
// block may take every launch first (as correct, and as fast), so each
// round waits first until the workers sleep: a sleeping worker's wake-up is
// slower than the launch's return and the wait's call, and the waiting
// thread's taking the grid is then what the tests see. On a busy machine a
// worker still wins many rounds in a row (all of 200, once, under ASan with
// four compilers running beside it), so the tests ask for one round won by
// the waiting thread in up to 2000, not for a share of a fixed number: a
// quiet machine wins the first, and a waiting thread that never takes the
// grid loses all 2000 (about 2.5 s). `round` launches lone_grid_record_thread
// with its argument and waits for it.
template <class Round>
bool lone_grid_runs_on_caller_within_2000_rounds(Round round) {
  for (int i = 0; i < 2000; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::thread::id ran_on;
    round(&ran_on);
    REQUIRE(ran_on != std::thread::id());
    if (ran_on == std::this_thread::get_id()) return true;
  }
  return false;
}

}  // namespace

// A worker may still take a grid before the waiting thread asks for it;
// without the waiting thread's help none of these would run on it.
TEST_CASE("launch and cudaStreamSynchronize in a loop: the stream's kernel runs on the waiting thread") {
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  bool ran_on_caller = lone_grid_runs_on_caller_within_2000_rounds([&](std::thread::id* ran_on) {
    REQUIRE(weft::launch<lone_grid_record_thread>({1, 1, 0, stream}, ran_on) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  });
  CHECK(ran_on_caller);
  CHECK(cudaStreamDestroy(stream) == cudaSuccess);
}

TEST_CASE("launch, cudaEventRecord and cudaEventSynchronize in a loop: the kernel runs on the waiting thread") {
  cudaEvent_t done = nullptr;
  REQUIRE(cudaEventCreate(&done) == cudaSuccess);
  bool ran_on_caller = lone_grid_runs_on_caller_within_2000_rounds([&](std::thread::id* ran_on) {
    REQUIRE(weft::launch<lone_grid_record_thread>({1, 1}, ran_on) == cudaSuccess);
    REQUIRE(cudaEventRecord(done) == cudaSuccess);
    REQUIRE(cudaEventSynchronize(done) == cudaSuccess);
  });
  CHECK(ran_on_caller);
  CHECK(cudaEventDestroy(done) == cudaSuccess);
}

__global__ void lone_grid_store(int* out, int value) { *out = value; }

TEST_CASE("launch and a synchronous cudaMemcpy of its result in a loop: the copy sees the kernel's write") {
  int* value = nullptr;
  REQUIRE(cudaMalloc(&value, sizeof(int)) == cudaSuccess);
  bool all_seen = true;
  for (int i = 0; i < 200 && all_seen; ++i) {
    REQUIRE(weft::launch<lone_grid_store>({1, 1}, value, i) == cudaSuccess);
    int copied = -1;
    REQUIRE(cudaMemcpy(&copied, value, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    all_seen = copied == i;
  }
  CHECK(all_seen);
  CHECK(cudaFree(value) == cudaSuccess);
}

namespace {
[[noreturn]] void lone_grid_programs_own_handler(int) { std::_Exit(43); }
}  // namespace

TEST_CASE(
    "a one-block kernel that faults, waited for by cudaStreamSynchronize after the program replaced weft's "
    "SIGSEGV handler, fails its launch" *
    doctest::skip(weft_test::under_thread_sanitizer)) {
  // The waiting thread, which runs the block, installs weft's handler
  // again first, as a worker does before a grid.
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  struct sigaction own = {};
  struct sigaction before = {};
  own.sa_handler = lone_grid_programs_own_handler;  // ends the process with 43, failing the test
  sigemptyset(&own.sa_mask);
  REQUIRE(sigaction(SIGSEGV, &own, &before) == 0);
  auto* wild = reinterpret_cast<int*>(std::uintptr_t{0x8000});
  CHECK(weft::launch<lone_grid_wild_write>({1, 32, 0, stream}, wild) == cudaSuccess);
  CHECK(cudaStreamSynchronize(stream) == cudaErrorIllegalAddress);
  CHECK(contains(weft::fault_message(), "thread (3,0,0)"));
  CHECK(cudaDeviceReset() == cudaSuccess);
  REQUIRE(sigaction(SIGSEGV, &before, nullptr) == 0);
  cudaGetLastError();
}
