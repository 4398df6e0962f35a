// The race check's asynchronous copies (detail/checks/race_async_copy.hpp),
// checked without the instrumentation: each test issues copies through the
// hooks that memcpy_async's forms call in a race-check build, plays the
// accesses of the block's threads into the race_worker as the callbacks do,
// and counts the hazards reported. tests/race/race_programs.cu checks the
// same end to end, through memcpy_async itself, in a Clang build.
#include <doctest/doctest.h>
#include <weft/detail/checks/race_async_copy_hooks.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>

namespace {

using weft::detail::race_copy;
using weft::detail::race_copy_wait;

// Distinct code addresses for the threads' accesses (each pair of source
// lines is reported once in a process: each expected hazard has its own).
[[gnu::noinline]] void async_copy_test_site_a() { asm volatile(""); }
[[gnu::noinline]] void async_copy_test_site_b() { asm volatile(""); }
[[gnu::noinline]] void async_copy_test_site_c() { asm volatile(""); }
[[gnu::noinline]] void async_copy_test_site_d() { asm volatile(""); }
[[gnu::noinline]] void async_copy_test_site_e() { asm volatile(""); }
[[gnu::noinline]] void async_copy_test_site_f() { asm volatile(""); }
[[gnu::noinline]] void async_copy_test_site_g() { asm volatile(""); }

// What the copies read: global memory, as a __device__ variable is.
std::array<std::uint32_t, 64>& async_copy_test_source() {
  static std::array<std::uint32_t, 64> words{};
  return words;
}

// One block of 64 threads whose dynamic shared buffer is `tile` (the
// copies' destination), running on this thread as race_running.
struct async_copy_test_block {
  alignas(128) std::array<std::uint32_t, 64> tile{};
  std::array<std::uint32_t, 64>& source = async_copy_test_source();
  weft::detail::race_launch launch{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("async_copy_test"); }};
  weft::detail::race_worker worker;

  async_copy_test_block() {
    weft::detail::blockDim = dim3{64, 1, 1};
    weft::detail::gridDim = dim3{1, 1, 1};
    worker.start_block(&launch, 0, 64, reinterpret_cast<std::byte*>(tile.data()), sizeof tile);
    weft::detail::race_running = &worker;
  }
  ~async_copy_test_block() { weft::detail::race_running = nullptr; }

  // Thread `t` copies `words` words from source[first] to tile[first], as
  // memcpy_async does for a copy that `copy` completes.
  void copy(unsigned t, unsigned first, unsigned words, race_copy copy,
            std::source_location where = std::source_location::current()) {
    weft::detail::threadIdx = uint3{t, 0, 0};
    weft::detail::race_copy_async(&tile[first], &source[first], 4 * words, 0, copy, "cuda::memcpy_async", where);
  }
  void access(unsigned t, std::uint32_t* word, bool write, void (*site)()) {
    weft::detail::threadIdx = uint3{t, 0, 0};
    worker.access(word, 4, write, reinterpret_cast<const char*>(site) + 1);
  }
  template <class F>
  static unsigned long long hazards(F&& f) {
    auto before = weft::detail::race_hazard_count().load();
    f();
    return weft::detail::race_hazard_count().load() - before;
  }
};

}  // namespace

TEST_CASE("race check: reading a copy's destination before the barrier phase it was committed to completes is a race") {
  async_copy_test_block b;
  int barrier = 0;  // stands for a cuda::barrier's state
  race_copy by_barrier{.wait = race_copy_wait::barrier, .barrier = &barrier};
  // The issuing thread itself, and another, read before the phase completes.
  CHECK(async_copy_test_block::hazards([&] {
          b.copy(0, 0, 4, by_barrier);
          b.access(0, &b.tile[1], false, async_copy_test_site_a);
          b.access(5, &b.tile[3], false, async_copy_test_site_a);
        }) == 1);  // one pair of lines
  // After the phase completes (and the block barrier it is), the reads are ordered.
  CHECK(async_copy_test_block::hazards([&] {
          b.worker.block_synced();
          weft::detail::race_copies_complete(&barrier);
          b.access(0, &b.tile[1], false, async_copy_test_site_b);
          b.access(5, &b.tile[3], false, async_copy_test_site_b);
        }) == 0);
  // Another barrier's completion leaves the copy in flight.
  int other = 0;
  CHECK(async_copy_test_block::hazards([&] {
          b.copy(1, 8, 4, by_barrier);
          weft::detail::race_copies_complete(&other);
          b.access(1, &b.tile[9], false, async_copy_test_site_c);
        }) == 1);
}

namespace {

// A __shared__ variable as weft keeps one (a thread-local of the static TLS
// block), where async_copy_test_block's tile is the dynamic buffer: the
// race check takes its accesses another way.
thread_local std::array<std::uint32_t, 8> async_copy_test_static_tile{};

[[gnu::noinline]] void async_copy_test_site_word() { asm volatile(""); }
[[gnu::noinline]] void async_copy_test_site_two_words() { asm volatile(""); }
[[gnu::noinline]] void async_copy_test_site_after_wait() { asm volatile(""); }

}  // namespace

TEST_CASE("race check: reading a __shared__ variable that a copy in flight writes is a race, one word or two") {
  async_copy_test_block b;
  int barrier = 0;
  race_copy by_barrier{.wait = race_copy_wait::barrier, .barrier = &barrier};
  weft::detail::threadIdx = uint3{6, 0, 0};
  weft::detail::race_copy_async(async_copy_test_static_tile.data(), &b.source[40], 16, 0, by_barrier,
                                "cuda::memcpy_async", std::source_location::current());
  CHECK(async_copy_test_block::hazards(
            [&] { b.access(6, &async_copy_test_static_tile[1], false, async_copy_test_site_word); }) == 1);
  CHECK(async_copy_test_block::hazards([&] {
          b.worker.access(&async_copy_test_static_tile[2], 8, false,
                          reinterpret_cast<const char*>(async_copy_test_site_two_words) + 1);
        }) == 1);
  CHECK(async_copy_test_block::hazards([&] {
          b.worker.block_synced();
          weft::detail::race_copies_complete(&barrier);
          b.access(6, &async_copy_test_static_tile[3], false, async_copy_test_site_after_wait);
        }) == 0);
}

TEST_CASE("race check: overwriting a copy's source or destination in flight is a race, reading its source is not") {
  async_copy_test_block b;
  int barrier = 0;
  race_copy by_barrier{.wait = race_copy_wait::barrier, .barrier = &barrier};
  b.copy(2, 16, 8, by_barrier);
  CHECK(async_copy_test_block::hazards([&] { b.access(2, &b.source[17], false, async_copy_test_site_a); }) == 0);
  CHECK(async_copy_test_block::hazards([&] { b.access(2, &b.source[18], true, async_copy_test_site_d); }) == 1);
  CHECK(async_copy_test_block::hazards([&] { b.access(2, &b.tile[23], true, async_copy_test_site_e); }) == 1);
  // Words beside the copy's are not its.
  CHECK(async_copy_test_block::hazards([&] {
          b.access(2, &b.tile[15], true, async_copy_test_site_f);
          b.access(2, &b.tile[24], true, async_copy_test_site_f);
          b.access(2, &b.source[24], true, async_copy_test_site_f);
        }) == 0);
}

TEST_CASE("race check: a pipeline primitive's copy is in flight until __pipeline_wait_prior waits for its batch") {
  async_copy_test_block b;
  race_copy primitive{.wait = race_copy_wait::primitives};
  b.copy(3, 32, 1, primitive);
  weft::detail::race_primitives_committed();
  b.copy(3, 33, 1, primitive);
  weft::detail::race_primitives_committed();
  CHECK(async_copy_test_block::hazards([&] {
          weft::detail::race_primitives_waited(1);  // the first batch only
          b.access(3, &b.tile[32], false, async_copy_test_site_g);
        }) == 0);
  CHECK(async_copy_test_block::hazards([&] { b.access(3, &b.tile[33], false, async_copy_test_site_g); }) == 1);
  // Another thread's wait does not complete this thread's batches.
  CHECK(async_copy_test_block::hazards([&] {
          weft::detail::threadIdx = uint3{4, 0, 0};
          weft::detail::race_primitives_waited(0);
          b.access(3, &b.tile[33], false, async_copy_test_site_g);
        }) == 0);  // the same pair of lines: not reported again
  CHECK(async_copy_test_block::hazards([&] {
          weft::detail::threadIdx = uint3{3, 0, 0};
          weft::detail::race_primitives_waited(0);
          b.access(3, &b.tile[33], false, async_copy_test_site_b);
        }) == 0);
}

TEST_CASE(
    "race check: a group copy is in flight until the sync of a cg::wait completes, cg::wait_prior keeps the latest") {
  async_copy_test_block b;
  race_copy group{.wait = race_copy_wait::group};
  // Two cg::memcpy_async calls of a 2-thread group, each thread a word of each.
  for (unsigned t = 0; t < 2; ++t) {
    b.copy(t, 40 + t, 1, group);
    b.copy(t, 48 + t, 1, group);
  }
  CHECK(async_copy_test_block::hazards([&] {
          weft::detail::threadIdx = uint3{0, 0, 0};
          weft::detail::race_group_copies_waited(1, 2);             // wait_prior<1>: the first call's copies
          b.access(1, &b.tile[40], false, async_copy_test_site_c);  // before the group's sync completes
        }) == 1);
  CHECK(async_copy_test_block::hazards([&] {
          b.worker.block_synced();
          b.access(1, &b.tile[40], false, async_copy_test_site_d);
          b.access(0, &b.tile[41], false, async_copy_test_site_d);
        }) == 0);
  CHECK(async_copy_test_block::hazards([&] { b.access(0, &b.tile[49], false, async_copy_test_site_e); }) == 1);
  CHECK(async_copy_test_block::hazards([&] {
          weft::detail::race_group_copies_waited(0, 2);  // wait
          b.worker.block_synced();
          b.access(0, &b.tile[49], false, async_copy_test_site_f);
        }) == 0);
}

TEST_CASE("race check: a thread-scope pipeline's copy is in flight until the thread waits for its stage") {
  async_copy_test_block b;
  // Stages 0 and 1 of thread 6's pipeline.
  b.copy(6, 56, 1, {.wait = race_copy_wait::thread_pipeline, .sequence = 0});
  b.copy(6, 57, 1, {.wait = race_copy_wait::thread_pipeline, .sequence = 1});
  CHECK(async_copy_test_block::hazards([&] {
          weft::detail::threadIdx = uint3{6, 0, 0};
          weft::detail::race_thread_copies_waited(race_copy_wait::thread_pipeline, 1);  // consumer_wait, stage 0
          b.access(6, &b.tile[56], false, async_copy_test_site_a);
          b.access(6, &b.tile[57], false, async_copy_test_site_c);
        }) == 1);
  // A new block forgets the copies in flight.
  b.worker.start_block(&b.launch, 0, 64, reinterpret_cast<std::byte*>(b.tile.data()), sizeof b.tile);
  CHECK(async_copy_test_block::hazards([&] { b.access(6, &b.tile[57], true, async_copy_test_site_g); }) == 0);
}

TEST_CASE("race check: a thread-scope stage committed to a barrier completes with the barrier's phase") {
  async_copy_test_block b;
  int barrier = 0;
  b.copy(7, 60, 1, {.wait = race_copy_wait::thread_pipeline, .sequence = 0});
  weft::detail::threadIdx = uint3{7, 0, 0};
  weft::detail::race_thread_copies_bound(0, &barrier);  // cuda::pipeline_producer_commit(pipe, bar)
  CHECK(async_copy_test_block::hazards([&] {
          weft::detail::race_thread_copies_waited(race_copy_wait::thread_pipeline, 1);  // no longer what completes it
          b.access(7, &b.tile[60], false, async_copy_test_site_d);
        }) == 1);
  CHECK(async_copy_test_block::hazards([&] {
          weft::detail::race_copies_complete(&barrier);
          b.access(7, &b.tile[60], false, async_copy_test_site_f);
        }) == 0);
}

TEST_CASE("race check: a copy to a barrier that other blocks complete is checked at its issue only") {
  async_copy_test_block b;
  // completed_by_barrier of a device-scope barrier: no barrier state of the block's.
  b.copy(8, 62, 1, {.wait = race_copy_wait::barrier, .barrier = nullptr});
  CHECK(b.worker.copies_in_flight().empty());
  CHECK(async_copy_test_block::hazards([&] { b.access(8, &b.tile[62], false, async_copy_test_site_g); }) == 0);
  // At its issue, it is the thread's write: another thread's read with nothing between races with it.
  CHECK(async_copy_test_block::hazards([&] { b.access(9, &b.tile[62], false, async_copy_test_site_a); }) == 1);
}
