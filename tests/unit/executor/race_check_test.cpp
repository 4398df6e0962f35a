// The race check's ordering rules (detail/checks/race_check.hpp), checked
// without the instrumentation: each test plays the accesses a kernel's
// threads would make, in the order weft would run them, into a race_worker
// as the callbacks do, and counts the hazards reported. The race_check
// ctest (tests/race) checks the same rules end to end in a Clang build.
#include <doctest/doctest.h>
#include <weft/detail/checks/race_check.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using weft::detail::race_launch;
using weft::detail::race_worker;

// Distinct code addresses, for the reports' pairs of "source lines" (each
// pair is reported once in a process, so each expected hazard has a pair
// of its own).
[[gnu::noinline]] void race_test_site_a() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_b() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_c() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_d() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_e() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_f() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_g() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_h() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_i() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_j() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_k() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_l() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_m() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_n() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_o() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_p() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_q() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_r() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_s() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_t() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_u() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_v() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_w() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_x() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_y() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_z() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_holder_spins() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_asker_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_scoped_holder_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_scoped_block_scope_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_scoped_device_scope_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_scoped_block_fence_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_scoped_same_block_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_retained_first_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_retained_third_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_tile_zero_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_tile_zero_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_tile_one_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_tile_one_reads_early() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_split_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_split_reads_before_wait() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_split_reads_after_wait() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_dropper_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_dropper_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_completion_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_waiter_reads_dropper() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_grid_barrier_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_grid_barrier_waiter_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_grid_barrier_bystander_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_grid_barrier_synced_reads() { asm volatile(""); }

[[gnu::noinline]] void race_test_site_chain_first_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_chain_second_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_chain_third_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_copy_kernel_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_copy_kernel_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_stale_warp_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_stale_warp_reads_32() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_stale_warp_reads_64() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_stale_warp_reads_warp_1() { asm volatile(""); }
// One block of 64 threads (two warps) whose dynamic shared buffer is
// `words`; accesses are made as thread `t` at code address `site`.
struct race_test_block {
  alignas(128) std::array<std::uint32_t, 64> words{};
  race_launch launch{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  race_worker worker;

  race_test_block() {
    weft::detail::blockDim = dim3{64, 1, 1};
    weft::detail::gridDim = dim3{1, 1, 1};
    worker.start_block(&launch, 0, 64, reinterpret_cast<std::byte*>(words.data()), sizeof words);
  }
  // Thread `t` makes an atomic read-modify-write of `word` (atomicCAS,
  // atomicExch, ...), after a __threadfence() if `fence_first`.
  void atomic(unsigned t, unsigned word, bool fence_first = false) {
    weft::detail::threadIdx = uint3{t, 0, 0};
    if (fence_first) worker.thread_fenced();
    worker.atomic_read_modify_write(&words[word]);
  }
  void access(unsigned t, unsigned word, bool write, void (*site)()) {
    weft::detail::threadIdx = uint3{t, 0, 0};
    // As a callback's return address: just past the start of the "access".
    worker.access(&words[word], 4, write, reinterpret_cast<const char*>(site) + 1);
  }
  // Hazards reported while `f` runs.
  template <class F>
  static unsigned long long hazards(F&& f) {
    auto before = weft::detail::race_hazard_count().load();
    f();
    return weft::detail::race_hazard_count().load() - before;
  }
};

// Global memory as the launches see it: one weft allocation of two shadow
// pages (on the heap: static data would be a __device__ variable's).
std::vector<std::uint32_t>& race_test_global_words() {
  static std::vector<std::uint32_t> words(2048);
  return words;
}
weft::detail::race_ranges race_test_global_allocation(int) {
  auto begin = reinterpret_cast<std::uintptr_t>(race_test_global_words().data());
  return {{begin, begin + race_test_global_words().size() * 4}};
}

// For a case's duration, the race check finds its allocations with `list`
// (by default race_test_global_words, as a cudaMalloc'd allocation).
struct race_test_global_allocations_listed {
  decltype(weft::detail::race_list_allocations) before = weft::detail::race_list_allocations;
  explicit race_test_global_allocations_listed(decltype(before) list = race_test_global_allocation) {
    weft::detail::race_list_allocations = list;
  }
  ~race_test_global_allocations_listed() { weft::detail::race_list_allocations = before; }
  race_test_global_allocations_listed(const race_test_global_allocations_listed&) = delete;
  race_test_global_allocations_listed& operator=(const race_test_global_allocations_listed&) = delete;
};

// A worker that runs blocks of 64 threads of launches named
// "race_check_test" over race_test_global_words, listed as an allocation.
struct race_test_one_block_launches {
  race_test_global_allocations_listed listed;
  std::uint32_t* global = race_test_global_words().data();
  std::function<std::string()> name = [] { return std::string("race_check_test"); };
  race_worker worker;
  race_test_one_block_launches() {
    weft::detail::blockDim = dim3{64, 1, 1};
    weft::detail::gridDim = dim3{1, 1, 1};
  }
};

// Thread `t` of the block `worker` runs makes an access at `p`.
void race_test_global_access(race_worker& worker, unsigned t, const std::uint32_t* p, bool write, void (*site)()) {
  weft::detail::threadIdx = uint3{t, 0, 0};
  worker.access(p, 4, write, reinterpret_cast<const char*>(site) + 1);
}

// One page of global memory (on the heap, as race_test_global_words)
// holding two allocations with a gap between them: words 0-63 and 128-255
// are weft's, words 64-127 are not.
std::uint32_t* race_test_split_page() {
  static auto* page = static_cast<std::uint32_t*>(std::aligned_alloc(4096, 4096));
  return page;
}
weft::detail::race_ranges race_test_split_page_allocations(int) {
  auto begin = reinterpret_cast<std::uintptr_t>(race_test_split_page());
  return {{begin, begin + 64 * 4}, {begin + 128 * 4, begin + 256 * 4}};
}

// A lock on a global word held in turn by thread 0 of block 0 and thread 0
// of block 1 (each block on the worker, one after the other): taken with
// an atomicCAS, released with an atomicExch after a fence, the holder of
// block 0 writing `data` and block 1's reading it. `block_scope`: the
// atomics are atomicCAS_block and atomicExch_block; `device_fence`:
// __threadfence() (else __threadfence_block()). Returns the hazards of
// block 1's read.
unsigned long long race_test_scoped_lock_between_blocks(bool block_scope, bool device_fence, unsigned data,
                                                        void (*read_site)()) {
  race_test_global_allocations_listed listed;
  weft::detail::blockDim = dim3{64, 1, 1};
  weft::detail::gridDim = dim3{2, 1, 1};
  std::uint32_t* global = race_test_global_words().data();
  std::uint32_t* lock = &global[1500];
  race_launch launch{dim3{2, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  race_worker worker;
  auto atomic = [&] {
    weft::detail::threadIdx = uint3{0, 0, 0};
    if (block_scope) worker.next_atomic_at_block_scope(lock);
    worker.atomic_read_modify_write(lock);
  };
  worker.start_block(&launch, 0, 64, nullptr, 0);
  atomic();  // takes the lock
  race_test_global_access(worker, 0, &global[data], true, race_test_site_scoped_holder_writes);
  if (device_fence)
    worker.fenced();
  else
    worker.thread_fenced();
  atomic();  // lets go of it
  worker.let_go_of_pages();
  worker.start_block(&launch, 1, 64, nullptr, 0);
  auto found = race_test_block::hazards([&] {
    atomic();  // takes the lock after block 0
    race_test_global_access(worker, 0, &global[data], false, read_site);
  });
  worker.let_go_of_pages();
  return found;
}

}  // namespace

TEST_CASE("race check: a read of another thread's write with no barrier between is a read-after-write hazard") {
  race_test_block b;
  CHECK(race_test_block::hazards([&] {
          b.access(0, 1, true, race_test_site_a);
          b.access(1, 1, false, race_test_site_b);
        }) == 1);
}

TEST_CASE("race check: a block barrier orders the write before the read, and a thread never races itself") {
  race_test_block b;
  CHECK(race_test_block::hazards([&] {
          b.access(0, 2, true, race_test_site_a);
          b.access(0, 2, false, race_test_site_b);
          b.access(0, 2, true, race_test_site_c);
          b.worker.block_synced();
          b.access(1, 2, false, race_test_site_b);
          b.access(33, 2, false, race_test_site_d);
        }) == 0);
}

TEST_CASE("race check: a write after other threads' reads with no barrier between is a write-after-read hazard") {
  race_test_block b;
  CHECK(race_test_block::hazards([&] {
          b.access(3, 4, false, race_test_site_c);
          b.access(5, 4, false, race_test_site_c);
          b.access(3, 4, true, race_test_site_d);  // thread 5's read is not ordered before it
        }) == 1);
}

TEST_CASE("race check: a warp collective orders the lanes it names, and only them") {
  race_test_block b;
  CHECK(race_test_block::hazards([&] {
          b.access(0, 6, true, race_test_site_a);
          b.worker.warp_synced(0, 0x3u);            // lanes 0 and 1
          b.access(1, 6, false, race_test_site_b);  // ordered
        }) == 0);
  CHECK(race_test_block::hazards([&] {
          b.access(2, 6, false, race_test_site_c);  // lane 2 was not in the collective
        }) == 1);
  CHECK(race_test_block::hazards([&] {
          b.access(0, 7, true, race_test_site_a);
          b.worker.warp_synced(0, 0x3u);  // lane 0 -> lane 1
          b.worker.warp_synced(0, 0x6u);  // lane 1 -> lane 2: lane 0's write reaches lane 2
          b.access(2, 7, false, race_test_site_d);
        }) == 0);
  CHECK(race_test_block::hazards([&] {
          b.access(32, 7, false, race_test_site_e);  // warp 1 is not ordered by warp 0's collectives
        }) == 1);
}

TEST_CASE("race check: a warp collective of the block before on the same worker orders nothing in the next") {
  race_test_block b;
  race_launch two_blocks{dim3{2, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  weft::detail::gridDim = dim3{2, 1, 1};
  auto* shared = reinterpret_cast<std::byte*>(b.words.data());
  // Block 0: lane 1 learns lane 0's clocks at a collective, in both warps.
  b.worker.start_block(&two_blocks, 0, 64, shared, sizeof b.words);
  CHECK(race_test_block::hazards([&] {
          b.access(0, 8, true, race_test_site_a);
          b.access(32, 9, true, race_test_site_a);
          b.worker.warp_synced(0, 0x3u);
          b.worker.warp_synced(1, 0x3u);
          b.access(1, 8, false, race_test_site_b);
          b.access(33, 9, false, race_test_site_b);
        }) == 0);
  // Block 1 on the same worker, one warp, then two again: its threads'
  // clocks start over, and what block 0's lanes learnt must not order them.
  for (unsigned threads : {32u, 64u}) {
    CAPTURE(threads);
    b.worker.start_block(&two_blocks, 1, threads, shared, sizeof b.words);
    CHECK(race_test_block::hazards([&] {
            b.access(0, 10, true, race_test_site_stale_warp_writes);
            b.access(1, 10, false,
                     threads == 32 ? race_test_site_stale_warp_reads_32 : race_test_site_stale_warp_reads_64);
          }) == 1);
  }
  CHECK(race_test_block::hazards([&] {
          b.access(32, 11, true, race_test_site_stale_warp_writes);
          b.access(33, 11, false, race_test_site_stale_warp_reads_warp_1);
        }) == 1);
  weft::detail::gridDim = dim3{1, 1, 1};
}

TEST_CASE("race check: a launch's block states are kept across the table's chunks") {
  weft::detail::race_block_states states;
  // Past the first chunks' boundaries (64, 192, 448, ...) and a few thousand on.
  constexpr std::uint32_t count = 5000;
  for (std::uint32_t i = 1; i <= count; ++i)
    REQUIRE(states.add({.block = i, .epoch = i * 3, .group_epoch = i * 5, .fences = i * 7}) == i);
  for (std::uint32_t i = 1; i <= count; ++i) {
    const auto& state = states[i];
    REQUIRE(state.block == i);
    REQUIRE(state.epoch == i * 3);
    REQUIRE(state.group_epoch == i * 5);
    REQUIRE(state.fences == i * 7);
  }
}

TEST_CASE(
    "race check: a write by each of two threads to one word with no barrier between is a write-after-write hazard") {
  race_test_block b;
  CHECK(race_test_block::hazards([&] {
          b.access(7, 9, true, race_test_site_b);
          b.access(40, 9, true, race_test_site_c);
        }) == 1);
}

TEST_CASE("race check: a lock of atomics with a fence before each release orders every holder after the last ones") {
  race_test_block b;
  const unsigned lock = 60;
  CHECK(race_test_block::hazards([&] {
          b.atomic(0, lock);  // takes it
          b.access(0, 11, true, race_test_site_a);
          b.access(0, 12, true, race_test_site_a);
          b.atomic(0, lock, true);  // hands it back
          b.atomic(5, lock);
          b.access(5, 11, false, race_test_site_b);
          b.access(5, 11, true, race_test_site_c);
          b.atomic(5, lock, true);
          b.atomic(40, lock);  // another warp, two holders later
          b.access(40, 11, true, race_test_site_d);
          b.access(40, 12, false, race_test_site_d);  // thread 0's write, through thread 5's release
        }) == 0);
}

TEST_CASE("race check: an atomic with no fence before it releases nothing") {
  race_test_block b;
  const unsigned lock = 61;
  CHECK(race_test_block::hazards([&] {
          b.atomic(1, lock);
          b.access(1, 13, true, race_test_site_f);
          b.atomic(1, lock);  // relaxed: the write is not released
          b.atomic(2, lock);
          b.access(2, 13, false, race_test_site_g);
        }) == 1);
  // Nor does a fence order anything without an atomic after it: thread 3
  // acquires only what was released before.
  CHECK(race_test_block::hazards([&] {
          b.access(1, 14, true, race_test_site_f);
          b.atomic(1, lock, true);
          b.access(1, 15, true, race_test_site_f);  // after the release
          b.atomic(3, lock);
          b.access(3, 14, false, race_test_site_g);
          b.access(3, 15, true, race_test_site_e);
        }) == 1);
}

TEST_CASE(
    "race check: global words race between blocks of a launch, not with an earlier launch's records, and memory "
    "outside weft's allocations is not checked") {
  race_test_global_allocations_listed listed;
  weft::detail::blockDim = dim3{64, 1, 1};
  weft::detail::gridDim = dim3{2, 1, 1};
  std::uint32_t* global = race_test_global_words().data();
  std::array<std::uint32_t, 4> on_the_stack{};
  auto name = [] { return std::string("race_check_test"); };
  race_worker worker;
  {
    race_launch first{dim3{2, 1, 1}, dim3{64, 1, 1}, 0, name};
    worker.start_block(&first, 0, 64, nullptr, 0);
    CHECK(race_test_block::hazards([&] {
            race_test_global_access(worker, 0, &global[5], true, race_test_site_h);
            race_test_global_access(worker, 0, &global[1029], true, race_test_site_h);  // the second page
            race_test_global_access(worker, 0, &on_the_stack[1], true, race_test_site_h);
          }) == 0);
    worker.start_block(&first, 1, 64, nullptr, 0);
    CHECK(race_test_block::hazards([&] {
            race_test_global_access(worker, 1, &global[5], false, race_test_site_i);  // block 0's write
          }) == 1);
    CHECK(race_test_block::hazards([&] {
            race_test_global_access(worker, 1, &on_the_stack[1], true, race_test_site_i);  // private
          }) == 0);
    worker.let_go_of_pages();  // as the executor does when its blocks end, before the launch can
  }
  // The next launch takes the first one's shadow pages, whose records
  // belong to the finished launch and order nothing against it.
  {
    race_launch second{dim3{2, 1, 1}, dim3{64, 1, 1}, 0, name};
    worker.start_block(&second, 1, 64, nullptr, 0);
    CHECK(race_test_block::hazards([&] {
            race_test_global_access(worker, 3, &global[1029], false, race_test_site_j);
            race_test_global_access(worker, 3, &global[5], true, race_test_site_j);
          }) == 0);
    worker.start_block(&second, 0, 64, nullptr, 0);
    CHECK(race_test_block::hazards([&] {
            race_test_global_access(worker, 3, &global[5], true, race_test_site_h);  // block 1's write, this launch
          }) == 1);
  }
}

TEST_CASE(
    "race check: a shadow page that comes back to a launch 255 launches later forgets the records of the one "
    "whose tag the new launch has") {
  race_test_global_allocations_listed listed;
  weft::detail::blockDim = dim3{64, 1, 1};
  weft::detail::gridDim = dim3{2, 1, 1};
  std::uint32_t* global = race_test_global_words().data();
  auto name = [] { return std::string("race_check_test"); };
  race_worker worker;
  std::uint64_t first_serial = 0;
  std::uint32_t first_tag = 0;
  {
    race_launch first{dim3{2, 1, 1}, dim3{64, 1, 1}, 0, name};
    first_serial = first.serial;
    worker.start_block(&first, 0, 64, nullptr, 0);
    first_tag = first.identity()->tag;
    race_test_global_access(worker, 0, &global[7], true, race_test_site_t);
    worker.let_go_of_pages();
  }
  // Launches that touch no memory, until the next one's tag is the first's.
  while (true) {
    race_launch idle{dim3{1, 1, 1}, dim3{1, 1, 1}, 0, name};
    worker.start_block(&idle, 0, 1, nullptr, 0);  // takes a tag, given back as it finishes
    if (idle.serial + 1 == first_serial + 255) break;
  }
  race_launch later{dim3{2, 1, 1}, dim3{64, 1, 1}, 0, name};
  worker.start_block(&later, 1, 64, nullptr, 0);
  REQUIRE(later.identity()->tag == first_tag);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 5, &global[7], false, race_test_site_u);  // the first launch's write
        }) == 0);
  worker.start_block(&later, 0, 64, nullptr, 0);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 0, &global[7], true, race_test_site_t);  // block 1's read, this launch
        }) == 1);
}

TEST_CASE("race check: a write races the earlier of two readers, and a new block's word forgets the last one's reads") {
  race_test_block b;
  CHECK(race_test_block::hazards([&] {
          b.access(3, 16, false, race_test_site_k);
          b.access(5, 16, false, race_test_site_l);
          b.access(5, 16, false, race_test_site_l);  // the same reader again: thread 3's read is kept
          b.access(5, 16, true, race_test_site_m);   // thread 3's read is not ordered before it
        }) == 1);
  CHECK(race_test_block::hazards([&] {
          b.access(3, 17, false, race_test_site_k);
          b.access(5, 17, false, race_test_site_l);
          b.worker.start_block(&b.launch, 1, 64, reinterpret_cast<std::byte*>(b.words.data()), sizeof b.words);
          b.access(7, 17, false, race_test_site_n);
          b.access(7, 17, true, race_test_site_o);  // the reads of the block before are not this block's
        }) == 0);
}

TEST_CASE("race check: of a page shared by two allocations, the words of each are checked and the gap between is not") {
  race_test_global_allocations_listed listed(race_test_split_page_allocations);
  weft::detail::blockDim = dim3{64, 1, 1};
  weft::detail::gridDim = dim3{2, 1, 1};
  std::uint32_t* page = race_test_split_page();
  race_launch launch{dim3{2, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  race_worker worker;
  worker.start_block(&launch, 0, 64, nullptr, 0);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 0, &page[10], true, race_test_site_n);
          race_test_global_access(worker, 0, &page[100], true, race_test_site_q);
          race_test_global_access(worker, 0, &page[200], true, race_test_site_n);
        }) == 0);
  worker.start_block(&launch, 1, 64, nullptr, 0);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 0, &page[10], true, race_test_site_o);   // block 0's write: a hazard
          race_test_global_access(worker, 0, &page[100], true, race_test_site_r);  // not weft's: private
        }) == 1);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 0, &page[200], true, race_test_site_p);  // the second allocation's
          race_test_global_access(worker, 0, &page[100], true, race_test_site_s);
        }) == 1);
}

TEST_CASE(
    "race check: a worker that holds a global shadow page lets go when another worker asks for it, and the other's "
    "access is checked") {
  race_test_global_allocations_listed listed;
  weft::detail::blockDim = dim3{64, 1, 1};
  weft::detail::gridDim = dim3{2, 1, 1};
  std::uint32_t* global = race_test_global_words().data();
  race_launch launch{dim3{2, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  race_worker holder;
  holder.start_block(&launch, 0, 64, nullptr, 0);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(holder, 0, &global[9], true, race_test_site_v);  // this worker now holds the page
          std::atomic<bool> asked_and_checked{false};
          // Block 1, on a worker of its own, writes the same word without
          // anything ordering it: a hazard, found once the holder lets go.
          std::thread other([&] {
            weft::detail::blockDim = dim3{64, 1, 1};
            weft::detail::gridDim = dim3{2, 1, 1};
            race_worker asker;
            asker.start_block(&launch, 1, 64, nullptr, 0);
            race_test_global_access(asker, 0, &global[9], true, race_test_site_w);
            asker.let_go_of_pages();
            asked_and_checked = true;
          });
          // The holder goes on with accesses to the page, each of which
          // answers an ask.
          while (!asked_and_checked) {
            race_test_global_access(holder, 0, &global[10], false, race_test_site_v);
            std::this_thread::yield();
          }
          other.join();
        }) == 1);
  holder.let_go_of_pages();
}

namespace {

// A __shared__ variable as weft keeps one: a thread-local of the
// executable's static TLS block, which the race check takes for the
// running block's __shared__ memory. Its accesses go through
// check_shared_word, whose loads have a path of their own (read_ordered),
// where the dynamic buffer's above go through check_access.
thread_local std::array<std::uint32_t, 64> race_test_tile{};

[[gnu::noinline]] void race_test_tile_store() { asm volatile(""); }
[[gnu::noinline]] void race_test_tile_load() { asm volatile(""); }
[[gnu::noinline]] void race_test_tile_restore() { asm volatile(""); }
[[gnu::noinline]] void race_test_tile_early_load() { asm volatile(""); }
[[gnu::noinline]] void race_test_tile_lane_store() { asm volatile(""); }
[[gnu::noinline]] void race_test_tile_other_warp_load() { asm volatile(""); }
[[gnu::noinline]] void race_test_tile_own_warp_load() { asm volatile(""); }
[[gnu::noinline]] void race_test_tile_after_warp_store() { asm volatile(""); }
[[gnu::noinline]] void race_test_tile_unordered_load() { asm volatile(""); }

// Thread `t` of the block `worker` accesses `bytes` bytes of race_test_tile
// from `offset` bytes on, in one access (a vector load, as Clang's
// vectoriser makes a loop's, where `bytes` is 8 or 16).
void race_test_tile_bytes_access(race_worker& worker, unsigned t, unsigned offset, unsigned bytes, bool write,
                                 void (*site)()) {
  weft::detail::threadIdx = uint3{t, 0, 0};
  worker.access(reinterpret_cast<const char*>(race_test_tile.data()) + offset, bytes, write,
                reinterpret_cast<const char*>(site) + 1);
}

// Thread `t` of the block `worker` accesses word `word` of race_test_tile.
void race_test_tile_access(race_worker& worker, unsigned t, unsigned word, bool write, void (*site)()) {
  race_test_tile_bytes_access(worker, t, 4 * word, 4, write, site);
}

}  // namespace

TEST_CASE("race check: loads of a __shared__ variable after a barrier keep the word's two latest readers") {
  race_test_block b;
  // A tiled matmul's tile: written, a barrier, read by several threads.
  CHECK(race_test_block::hazards([&] {
          race_test_tile_access(b.worker, 0, 0, true, race_test_tile_store);
          b.worker.block_synced();
          for (unsigned t : {1u, 2u, 3u}) race_test_tile_access(b.worker, t, 0, false, race_test_tile_load);
          race_test_tile_access(b.worker, 3, 0, false, race_test_tile_load);  // the same reader: thread 2's read kept
        }) == 0);
  // Thread 3's own read is ordered before its write; thread 2's is not.
  CHECK(race_test_block::hazards([&] { race_test_tile_access(b.worker, 3, 0, true, race_test_tile_restore); }) == 1);
  // A load of another thread's write of this epoch.
  CHECK(race_test_block::hazards([&] {
          race_test_tile_access(b.worker, 0, 1, true, race_test_tile_store);
          race_test_tile_access(b.worker, 1, 1, false, race_test_tile_early_load);
        }) == 1);
  // A load records its lane's clock: a warp collective after it orders it
  // before the lanes it names, and only them.
  CHECK(race_test_block::hazards([&] {
          race_test_tile_access(b.worker, 0, 2, true, race_test_tile_store);
          b.worker.block_synced();
          race_test_tile_access(b.worker, 1, 2, false, race_test_tile_load);
          b.worker.warp_synced(0, 0x6u);  // lanes 1 and 2
          race_test_tile_access(b.worker, 2, 2, true, race_test_tile_store);
        }) == 0);
  CHECK(race_test_block::hazards([&] {
          race_test_tile_access(b.worker, 0, 3, true, race_test_tile_store);
          b.worker.block_synced();
          race_test_tile_access(b.worker, 1, 3, false, race_test_tile_load);
          b.worker.warp_synced(0, 0xcu);  // lanes 2 and 3: not lane 1
          race_test_tile_access(b.worker, 2, 3, true, race_test_tile_lane_store);
        }) == 1);
  // The next block's accesses forget this block's.
  b.worker.start_block(&b.launch, 1, 64, reinterpret_cast<std::byte*>(b.words.data()), sizeof b.words);
  CHECK(race_test_block::hazards([&] {
          race_test_tile_access(b.worker, 5, 0, false, race_test_tile_load);
          race_test_tile_access(b.worker, 6, 1, true, race_test_tile_store);
        }) == 0);
}

TEST_CASE(
    "race check: loads of a __shared__ variable on the common path (their sites seen before) find another thread's "
    "write of this epoch, and keep another warp's read for the next write") {
  race_test_block b;
  // Each load's site seen once, so that the loads below take
  // read_ordered's path (a load whose site is not cached yet takes the full
  // check, as the case above's do): a change to that path, or to the
  // shadow it reads, is checked here.
  CHECK(
      race_test_block::hazards([&] {
        for (auto site : {race_test_tile_other_warp_load, race_test_tile_own_warp_load, race_test_tile_unordered_load})
          race_test_tile_access(b.worker, 0, 8, false, site);
      }) == 0);
  CHECK(race_test_block::hazards([&] {
          race_test_tile_access(b.worker, 0, 5, true, race_test_tile_store);
          race_test_tile_access(b.worker, 1, 5, false, race_test_tile_unordered_load);  // no barrier between
        }) == 1);
  CHECK(race_test_block::hazards([&] {
          race_test_tile_access(b.worker, 0, 4, true, race_test_tile_store);
          b.worker.block_synced();
          race_test_tile_access(b.worker, 40, 4, false, race_test_tile_other_warp_load);  // warp 1
          race_test_tile_access(b.worker, 1, 4, false, race_test_tile_own_warp_load);     // warp 0: thread 40's kept
          race_test_tile_access(b.worker, 2, 4, false, race_test_tile_own_warp_load);     // thread 40's still kept
          b.worker.warp_synced(0, 0x7u);  // orders lanes 0 to 2 of warp 0, not thread 40
        }) == 0);
  // Thread 1's read is ordered before it, thread 2's is its own; thread
  // 40's is not: a write-after-read, found only if its read was kept.
  CHECK(race_test_block::hazards(
            [&] { race_test_tile_access(b.worker, 2, 4, true, race_test_tile_after_warp_store); }) == 1);
}

namespace {

[[gnu::noinline]] void race_test_tile_cached_store() { asm volatile(""); }
[[gnu::noinline]] void race_test_tile_cached_load() { asm volatile(""); }
[[gnu::noinline]] void race_test_tile_cached_other_warp_load() { asm volatile(""); }

}  // namespace

TEST_CASE(
    "race check: stores to a __shared__ variable on the common path (their sites seen before) find another "
    "thread's write or either kept read of this epoch, and are ordered by a barrier, their own thread or a warp "
    "collective") {
  race_test_block b;
  // Each site seen once, so that the stores below take write_ordered's
  // path (a store whose site is not cached yet takes the full check).
  CHECK(race_test_block::hazards([&] {
          race_test_tile_access(b.worker, 0, 20, true, race_test_tile_cached_store);
          for (auto site : {race_test_tile_cached_load, race_test_tile_cached_other_warp_load})
            race_test_tile_access(b.worker, 0, 20, false, site);
        }) == 0);
  // Ordered: by a barrier (a scan's buffer, read the step before), by the
  // storing thread itself, by a warp collective (the full check decides).
  CHECK(race_test_block::hazards([&] {
          race_test_tile_access(b.worker, 0, 21, true, race_test_tile_cached_store);
          b.worker.block_synced();
          race_test_tile_access(b.worker, 1, 21, false, race_test_tile_cached_load);
          race_test_tile_access(b.worker, 40, 21, false, race_test_tile_cached_other_warp_load);
          b.worker.block_synced();
          race_test_tile_access(b.worker, 2, 21, true, race_test_tile_cached_store);
          race_test_tile_access(b.worker, 2, 21, false, race_test_tile_cached_load);
          race_test_tile_access(b.worker, 2, 21, true, race_test_tile_cached_store);
          race_test_tile_access(b.worker, 3, 22, false, race_test_tile_cached_load);
          b.worker.warp_synced(0, 0x18u);  // lanes 3 and 4
          race_test_tile_access(b.worker, 4, 22, true, race_test_tile_cached_store);
        }) == 0);
  // Another thread's write of this epoch.
  CHECK(race_test_block::hazards([&] {
          race_test_tile_access(b.worker, 0, 23, true, race_test_tile_cached_store);
          race_test_tile_access(b.worker, 1, 23, true, race_test_tile_cached_store);
        }) == 1);
  // Another thread's read of this epoch, the latest one.
  CHECK(race_test_block::hazards([&] {
          race_test_tile_access(b.worker, 1, 24, false, race_test_tile_cached_load);
          race_test_tile_access(b.worker, 2, 24, true, race_test_tile_cached_store);
        }) == 1);
  // ... or the earlier one: thread 40's, behind thread 1's own.
  CHECK(race_test_block::hazards([&] {
          race_test_tile_access(b.worker, 40, 25, false, race_test_tile_cached_other_warp_load);
          race_test_tile_access(b.worker, 1, 25, false, race_test_tile_cached_load);
          race_test_tile_access(b.worker, 1, 25, true, race_test_tile_cached_store);
        }) == 1);
}

namespace {

[[gnu::noinline]] void race_test_site_hook_reads_worker() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_hook_writes_worker() { asm volatile(""); }

}  // namespace

TEST_CASE(
    "race check: the pointer to the running check, which a kernel reads wherever weft's atomics and barriers are "
    "inlined into it, is weft's own thread-local, not a __shared__ variable: never checked or recorded") {
  race_test_block b;
  // Thread 0 loads it as an atomicAdd's hook does; thread 1's store (no
  // kernel makes one) would race that load were the load recorded as a
  // __shared__ read, as it was, at about 190 instructions a load.
  CHECK(race_test_block::hazards([&] {
          for (unsigned t : {0u, 1u}) {
            weft::detail::threadIdx = uint3{t, 0, 0};
            b.worker.access(&weft::detail::race_running, sizeof weft::detail::race_running, t == 1,
                            reinterpret_cast<const char*>(t == 1 ? race_test_site_hook_writes_worker
                                                                 : race_test_site_hook_reads_worker) +
                                1);
          }
        }) == 0);
}

namespace {

[[gnu::noinline]] void race_test_tile_vector_load() { asm volatile(""); }
[[gnu::noinline]] void race_test_tile_vector_early_load() { asm volatile(""); }
[[gnu::noinline]] void race_test_tile_vector_overwrite() { asm volatile(""); }
[[gnu::noinline]] void race_test_tile_vector_late_store() { asm volatile(""); }

}  // namespace

TEST_CASE(
    "race check: a vector load of __shared__ words (8 or 16 bytes, aligned or not) is each word's load, on the "
    "common path too: a write of this epoch to any of them is a hazard, and each keeps its readers") {
  race_test_block b;
  // Each site seen once, so that the loads below take read_ordered's path.
  CHECK(race_test_block::hazards([&] {
          for (auto site : {race_test_tile_vector_load, race_test_tile_vector_early_load})
            race_test_tile_bytes_access(b.worker, 0, 4 * 60, 16, false, site);
        }) == 0);
  // Written, a barrier, then read 16 bytes at a time by three threads (a
  // stencil's window): ordered.
  CHECK(race_test_block::hazards([&] {
          for (unsigned w = 32; w < 36; ++w) race_test_tile_access(b.worker, 0, w, true, race_test_tile_store);
          b.worker.block_synced();
          for (unsigned t : {1u, 2u, 3u})
            race_test_tile_bytes_access(b.worker, t, 4 * 32, 16, false, race_test_tile_vector_load);
        }) == 0);
  // Thread 1 writes the loads' third word before the next barrier: threads
  // 2 and 3 read it unordered, a write-after-read found only if the vector
  // loads kept their readers of that word.
  CHECK(race_test_block::hazards(
            [&] { race_test_tile_access(b.worker, 1, 34, true, race_test_tile_vector_overwrite); }) == 1);
  // Another thread's write of this epoch to the third word of an unaligned
  // 8-byte load (bytes 2-9 of words 44-46: its third word's first two
  // bytes): a read-after-write hazard.
  CHECK(race_test_block::hazards([&] {
          race_test_tile_access(b.worker, 0, 46, true, race_test_tile_vector_late_store);
          race_test_tile_bytes_access(b.worker, 1, 4 * 44 + 2, 8, false, race_test_tile_vector_early_load);
        }) == 1);
}

namespace {

// A __shared__ array whose first word the race check takes for weft's own
// thread-local (race_untraced, as weft's headers register theirs), so that
// an access may span an untraced word and a __shared__ one.
thread_local std::array<std::uint32_t, 4> race_test_beside_untraced{};
const bool race_test_beside_untraced_registered = weft::detail::race_untraced(
    []() -> const void* { return race_test_beside_untraced.data(); }, sizeof(std::uint32_t));

[[gnu::noinline]] void race_test_site_builtin_store() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_narrow_store() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_narrow_load() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_spanning_store() { asm volatile(""); }

const char* race_test_pc(void (*site)()) { return reinterpret_cast<const char*>(site) + 1; }

}  // namespace

TEST_CASE(
    "race check: a block's threads may read and write threadIdx, blockIdx, blockDim and gridDim with accesses of any "
    "size, wherever the linker put them; a __shared__ word's accesses of 1, 2 and 8 bytes are checked") {
  REQUIRE(race_test_beside_untraced_registered);
  race_test_block b;
  // The built-in variables: weft's, never a hazard (two threads' stores
  // with nothing between would be one on a __shared__ word).
  const std::array<const void*, 4> builtins{&weft::detail::threadIdx, &weft::detail::blockIdx, &weft::detail::blockDim,
                                            &weft::detail::gridDim};
  CHECK(race_test_block::hazards([&] {
          for (unsigned t : {0u, 1u})
            for (const void* variable : builtins)
              for (unsigned offset = 0; offset < sizeof(uint3); ++offset)
                for (unsigned size : {1u, 2u, 4u, 8u})
                  if (offset + size <= sizeof(uint3)) {
                    weft::detail::threadIdx = uint3{t, 0, 0};
                    b.worker.access(static_cast<const char*>(variable) + offset, size, true,
                                    race_test_pc(race_test_site_builtin_store));
                  }
        }) == 0);
  // A byte store and another thread's two-byte load of the same __shared__
  // byte: a read-after-write hazard; of the word's other bytes, none.
  CHECK(race_test_block::hazards([&] {
          weft::detail::threadIdx = uint3{0, 0, 0};
          b.worker.access(reinterpret_cast<const char*>(&race_test_tile[20]) + 1, 1, true,
                          race_test_pc(race_test_site_narrow_store));
          weft::detail::threadIdx = uint3{1, 0, 0};
          b.worker.access(reinterpret_cast<const char*>(&race_test_tile[20]) + 2, 2, false,
                          race_test_pc(race_test_site_narrow_load));
        }) == 0);
  CHECK(race_test_block::hazards([&] {
          weft::detail::threadIdx = uint3{1, 0, 0};
          b.worker.access(&race_test_tile[20], 2, false, race_test_pc(race_test_site_narrow_load));
        }) == 1);
  // An 8-byte store that starts on an untraced word and ends on a __shared__
  // one, by two threads: a write-after-write hazard on the second word.
  CHECK(race_test_block::hazards([&] {
          for (unsigned t : {2u, 3u}) {
            weft::detail::threadIdx = uint3{t, 0, 0};
            b.worker.access(race_test_beside_untraced.data(), 8, true, race_test_pc(race_test_site_spanning_store));
          }
        }) == 1);
}

TEST_CASE(
    "race check: a named barrier orders what its arrivals did before arriving before what its waiters do after it, "
    "not what a bar.arrive thread does after arriving") {
  race_test_block b;
  using weft::detail::named_arrival;
  CHECK(race_test_block::hazards([&] {
          b.access(0, 20, true, race_test_site_x);  // thread 0 (warp 0) writes, then arrives (bar.arrive)
          std::uint32_t producer = b.worker.named_barrier_arrival(0);
          b.access(0, 21, true, race_test_site_x);  // and writes on, released by nothing
          std::uint32_t consumer = b.worker.named_barrier_arrival(32);
          std::array<named_arrival, 2> arrivals{named_arrival{0, false, producer}, named_arrival{32, true, consumer}};
          b.worker.named_barrier_completed(arrivals);  // thread 32 (warp 1) waited (bar.sync)
          b.access(32, 20, false, race_test_site_y);   // ordered by the barrier
        }) == 0);
  CHECK(race_test_block::hazards([&] {
          b.access(32, 21, false, race_test_site_z);  // written after the arrival: a read-after-write hazard
        }) == 1);
}

TEST_CASE(
    "race check: a worker that holds a global shadow page and spins on memory the check does not see is interrupted "
    "to let go, and the other's access is checked") {
  race_test_global_allocations_listed listed;
  weft::detail::blockDim = dim3{64, 1, 1};
  weft::detail::gridDim = dim3{2, 1, 1};
  std::uint32_t* global = race_test_global_words().data();
  race_launch launch{dim3{2, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  race_worker holder;
  holder.start_block(&launch, 0, 64, nullptr, 0);
  weft::detail::race_running = &holder;  // as the executor sets it while the worker runs a block
  std::atomic<bool> checked{false};
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(holder, 0, &global[700], true, race_test_site_holder_spins);  // holds the page
          // Block 1, on a worker of its own, writes the same word, ordered
          // by nothing: a hazard, found once the holder lets go.
          std::thread other([&] {
            weft::detail::blockDim = dim3{64, 1, 1};
            weft::detail::gridDim = dim3{2, 1, 1};
            race_worker asker;
            asker.start_block(&launch, 1, 64, nullptr, 0);
            race_test_global_access(asker, 0, &global[700], true, race_test_site_asker_writes);
            asker.let_go_of_pages();
            checked = true;
          });
          // The holder makes no access the check sees while it waits: only
          // the interrupt makes it let go (before, the asker gave up after a
          // second and skipped its write). Bounded, so that a failure fails.
          auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
          while (!checked.load() && std::chrono::steady_clock::now() < give_up) {
          }
          CHECK(checked.load());
          other.join();
        }) == 1);
  weft::detail::race_running = nullptr;
  holder.let_go_of_pages();
}

TEST_CASE(
    "race check: a lock between blocks orders only with device-scope atomics and __threadfence(); block-scope atomics "
    "or __threadfence_block() leave its accesses racing") {
  CHECK(race_test_scoped_lock_between_blocks(false, true, 1600, race_test_site_scoped_device_scope_reads) == 0);
  CHECK(race_test_scoped_lock_between_blocks(true, true, 1601, race_test_site_scoped_block_scope_reads) == 1);
  CHECK(race_test_scoped_lock_between_blocks(false, false, 1602, race_test_site_scoped_block_fence_reads) == 1);
}

TEST_CASE("race check: a lock of block-scope atomics still orders the threads of its block") {
  race_test_block b;
  CHECK(race_test_block::hazards([&] {
          b.worker.next_atomic_at_block_scope(&b.words[30]);
          b.atomic(0, 30);  // thread 0 takes the lock (atomicCAS_block)
          b.access(0, 31, true, race_test_site_scoped_holder_writes);
          b.worker.next_atomic_at_block_scope(&b.words[30]);
          b.atomic(0, 30, true);  // and lets go after a fence (atomicExch_block)
          b.worker.next_atomic_at_block_scope(&b.words[30]);
          b.atomic(40, 30);  // thread 40 takes it
          b.access(40, 31, false, race_test_site_scoped_same_block_reads);
        }) == 0);
}

TEST_CASE(
    "race check: a barrier of a subset of the block (a 64-thread tile's sync) orders its own threads, not the other "
    "tile's") {
  alignas(128) std::array<std::uint32_t, 64> words{};
  race_launch launch{dim3{1, 1, 1}, dim3{128, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  race_worker worker;
  weft::detail::blockDim = dim3{128, 1, 1};
  weft::detail::gridDim = dim3{1, 1, 1};
  worker.start_block(&launch, 0, 128, reinterpret_cast<std::byte*>(words.data()), sizeof words);
  auto access = [&](unsigned t, unsigned word, bool write, void (*site)()) {
    weft::detail::threadIdx = uint3{t, 0, 0};
    worker.access(&words[word], 4, write, reinterpret_cast<const char*>(site) + 1);
  };
  // Tile `tile`'s threads arrive at its barrier (`barrier`, 64 expected),
  // the last one completing the phase, and their waits return, as
  // cuda::barrier's arrive_and_wait does.
  auto tile_sync = [&](unsigned tile, const void* barrier, std::uint32_t phase) {
    for (unsigned t = 64 * tile; t < 64 * tile + 64; ++t) {
      weft::detail::threadIdx = uint3{t, 0, 0};
      worker.barrier_arrival(barrier, phase, 1, true);
    }
    worker.barrier_arrivals_completed(barrier, phase);
    worker.barrier_phase_completed(barrier, phase);
    for (unsigned t = 64 * tile; t < 64 * tile + 64; ++t) {
      weft::detail::threadIdx = uint3{t, 0, 0};
      worker.barrier_waited(barrier, phase);
    }
  };
  // The tiles' barriers, in the block's shared memory as the worker's are.
  const void* tile_zero_barrier = &words[62];
  const void* tile_one_barrier = &words[63];
  CHECK(race_test_block::hazards([&] {
          access(0, 1, true, race_test_site_tile_zero_writes);  // before tile 0's sync
          tile_sync(0, tile_zero_barrier, 0);
          access(63, 1, false, race_test_site_tile_zero_reads);  // within the tile: ordered
        }) == 0);
  CHECK(race_test_block::hazards([&] {
          access(5, 2, true, race_test_site_tile_zero_writes);  // after tile 0's sync
          tile_sync(1, tile_one_barrier, 0);
          access(64, 2, false, race_test_site_tile_one_reads);  // no barrier in common: a hazard
        }) == 1);
  CHECK(race_test_block::hazards([&] {
          access(100, 1, false, race_test_site_tile_one_reads_early);  // tile 0's sync never ordered tile 1
        }) == 1);
  worker.block_synced();  // __syncthreads orders both tiles
  CHECK(race_test_block::hazards([&] { access(64, 2, true, race_test_site_tile_one_reads); }) == 0);
}

TEST_CASE("race check: a launch order knows, per chain, the commands up to the last it was told of, however long ago") {
  using weft::detail::race_launch_order;
  auto at = [](std::uint64_t chain, std::uint64_t position) { return chain << 32 | position; };
  race_launch_order order;
  CHECK_FALSE(order.knows(at(0, 1)));
  order.add(at(0, 3));
  order.add(at(5, 1));
  CHECK(order.knows(at(0, 1)));  // before the third on its chain
  CHECK(order.knows(at(0, 3)));
  CHECK_FALSE(order.knows(at(0, 4)));
  CHECK(order.knows(at(5, 1)));
  CHECK_FALSE(order.knows(at(2, 1)));
  race_launch_order other;
  other.add(at(2, 7));
  other.add(at(0, 2));
  CHECK(order.join(other));
  CHECK(order.knows(at(2, 7)));
  CHECK(order.knows(at(0, 3)));    // the join keeps the later of the two
  CHECK_FALSE(order.join(other));  // nothing new
  // 5000 commands later on one chain, the first is still told apart from
  // another chain's: no window.
  race_launch_order far;
  far.add(at(0, 5000));
  CHECK(far.knows(at(0, 1)));
  CHECK_FALSE(far.knows(at(1, 1)));
}

TEST_CASE("race check: a command ordered after a chain's last command continues that chain, others start one") {
  using weft::detail::race_chains;
  using weft::detail::race_launch_order;
  race_launch_order nothing;
  std::uint64_t first = race_chains::place(nothing);
  race_launch_order after_first;
  after_first.add(first);
  std::uint64_t second = race_chains::place(after_first);
  CHECK(race_launch_order::chain_of(second) == race_launch_order::chain_of(first));
  CHECK(race_launch_order::position_of(second) == race_launch_order::position_of(first) + 1);
  // Also after the first, but not after the second: a chain of its own.
  std::uint64_t beside = race_chains::place(after_first);
  CHECK(race_launch_order::chain_of(beside) != race_launch_order::chain_of(first));
  race_launch_order after_both = after_first;
  after_both.add(second);
  after_both.add(beside);
  std::uint64_t joined = race_chains::place(after_both);
  CHECK((race_launch_order::chain_of(joined) == race_launch_order::chain_of(first) ||
         race_launch_order::chain_of(joined) == race_launch_order::chain_of(beside)));
}

TEST_CASE(
    "race check: a thread that arrives at a barrier and waits later is ordered after the phase's other arrivals from "
    "its wait, not from the phase's end") {
  race_test_block b;
  // A barrier in the block's __shared__ memory (its dynamic buffer), 2 expected.
  const void* barrier = &b.words[60];
  CHECK(race_test_block::hazards([&] {
          b.access(0, 3, true, race_test_site_split_writes);
          weft::detail::threadIdx = uint3{0, 0, 0};
          b.worker.barrier_arrival(barrier, 0, 1, true);  // thread 0: arrive_and_wait
          weft::detail::threadIdx = uint3{40, 0, 0};
          b.worker.barrier_arrival(barrier, 0, 1, false);  // thread 40: arrive, the last arrival
          b.worker.barrier_arrivals_completed(barrier, 0);
          b.worker.barrier_phase_completed(barrier, 0);
        }) == 0);
  CHECK(race_test_block::hazards([&] {
          b.access(40, 3, false, race_test_site_split_reads_before_wait);  // the phase is over, thread 40 not waited
        }) == 1);
  CHECK(race_test_block::hazards([&] {
          weft::detail::threadIdx = uint3{40, 0, 0};
          b.worker.barrier_waited(barrier, 0);
          b.access(40, 3, false, race_test_site_split_reads_after_wait);
        }) == 0);
}

TEST_CASE("race check: a thread's arrive_and_drop counts for the phase it drops in, and orders nothing it does after") {
  race_test_block b;
  const void* barrier = &b.words[61];  // 3 expected: threads 0 and 1 wait, thread 2 drops
  CHECK(race_test_block::hazards([&] {
          b.access(0, 4, true, race_test_site_dropper_writes);
          b.access(2, 5, true, race_test_site_dropper_writes);
          b.access(0, 6, false, race_test_site_dropper_reads);
          for (unsigned t : {0u, 1u}) {
            weft::detail::threadIdx = uint3{t, 0, 0};
            b.worker.barrier_arrival(barrier, 0, 1, true);
          }
          weft::detail::threadIdx = uint3{2, 0, 0};
          b.worker.barrier_arrival(barrier, 0, 1, false);  // the drop, the phase's last arrival
          b.worker.barrier_arrivals_completed(barrier, 0);
          b.access(2, 6, true, race_test_site_completion_writes);  // the completion function, after every arrival
          b.worker.barrier_phase_completed(barrier, 0);
          weft::detail::threadIdx = uint3{1, 0, 0};
          b.worker.barrier_waited(barrier, 0);
          b.access(1, 5, false, race_test_site_waiter_reads_dropper);  // before the drop: ordered
          b.access(1, 6, false, race_test_site_waiter_reads_dropper);  // the completion function's: ordered
        }) == 0);
  CHECK(race_test_block::hazards([&] {
          b.access(2, 4, false, race_test_site_dropper_reads);  // the dropper waits for nothing
        }) == 1);
}

TEST_CASE(
    "race check: a barrier in global memory that threads of two blocks arrive at orders the arrivals' accesses before "
    "the waits across blocks, with what their blocks did before their barriers, and reaches a thread that did not "
    "arrive only through its own block's barrier") {
  race_test_global_allocations_listed listed;
  weft::detail::blockDim = dim3{64, 1, 1};
  weft::detail::gridDim = dim3{2, 1, 1};
  std::uint32_t* global = race_test_global_words().data();
  const void* barrier = &global[1900];  // a cuda::barrier<cuda::thread_scope_device>, 2 expected
  race_launch launch{dim3{2, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  race_worker worker;
  // Block 0's threads 0 and 1 write; after a __syncthreads, thread 0 arrives.
  worker.start_block(&launch, 0, 64, nullptr, 0);
  race_test_global_access(worker, 0, &global[1700], true, race_test_site_grid_barrier_writes);
  race_test_global_access(worker, 1, &global[1701], true, race_test_site_grid_barrier_writes);
  worker.block_synced();
  weft::detail::threadIdx = uint3{0, 0, 0};
  worker.barrier_arrival_begins(barrier);  // as barrier_state::arrive does
  worker.barrier_arrival(barrier, 0, 1, true);
  worker.let_go_of_pages();
  worker.start_block(&launch, 1, 64, nullptr, 0);  // block 1's thread 0 arrives last, completes and waits
  weft::detail::threadIdx = uint3{0, 0, 0};
  worker.barrier_arrival_begins(barrier);
  worker.barrier_arrival(barrier, 0, 1, true);
  worker.barrier_arrivals_completed(barrier, 0);
  worker.barrier_phase_completed(barrier, 0);
  worker.barrier_waited(barrier, 0);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 0, &global[1700], false, race_test_site_grid_barrier_waiter_reads);
        }) == 0);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 5, &global[1701], false, race_test_site_grid_barrier_bystander_reads);
        }) == 1);
  worker.block_synced();  // __syncthreads after thread 0's wait
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 6, &global[1701], false, race_test_site_grid_barrier_synced_reads);
        }) == 0);
  worker.let_go_of_pages();
}

namespace {

[[gnu::noinline]] void race_test_site_lane_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_lane_waiter_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_lane_unsynced_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_lane_late_reads() { asm volatile(""); }

}  // namespace

TEST_CASE(
    "race check: an arrival at a barrier in global memory releases to the other block what a warp collective "
    "ordered before it, not a lane's accesses after that collective nor a lane it did not name") {
  race_test_global_allocations_listed listed;
  weft::detail::blockDim = dim3{64, 1, 1};
  weft::detail::gridDim = dim3{2, 1, 1};
  std::uint32_t* global = race_test_global_words().data();
  const void* barrier = &global[1910];  // a cuda::barrier<cuda::thread_scope_device>, 2 expected
  race_launch launch{dim3{2, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  race_worker worker;
  // Block 0: lanes 1 and 2 write; __syncwarp(0x3); lane 1 writes again;
  // lane 0 arrives.
  worker.start_block(&launch, 0, 64, nullptr, 0);
  race_test_global_access(worker, 1, &global[1720], true, race_test_site_lane_writes);
  race_test_global_access(worker, 2, &global[1721], true, race_test_site_lane_writes);
  worker.warp_synced(0, 0x3);
  race_test_global_access(worker, 1, &global[1722], true, race_test_site_lane_writes);
  weft::detail::threadIdx = uint3{0, 0, 0};
  worker.barrier_arrival_begins(barrier);
  worker.barrier_arrival(barrier, 0, 1, true);
  worker.let_go_of_pages();
  // Block 1's thread 0 arrives last, completes the phase and waits.
  worker.start_block(&launch, 1, 64, nullptr, 0);
  weft::detail::threadIdx = uint3{0, 0, 0};
  worker.barrier_arrival_begins(barrier);
  worker.barrier_arrival(barrier, 0, 1, true);
  worker.barrier_arrivals_completed(barrier, 0);
  worker.barrier_phase_completed(barrier, 0);
  worker.barrier_waited(barrier, 0);
  CHECK(race_test_block::hazards(
            [&] { race_test_global_access(worker, 0, &global[1720], false, race_test_site_lane_waiter_reads); }) == 0);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 0, &global[1721], false, race_test_site_lane_unsynced_reads);
        }) == 1);
  CHECK(race_test_block::hazards(
            [&] { race_test_global_access(worker, 0, &global[1722], false, race_test_site_lane_late_reads); }) == 1);
  worker.let_go_of_pages();
}

TEST_CASE_FIXTURE(
    race_test_one_block_launches,
    "race check: a launch races with the records of a finished launch that CUDA does not order before it, not with "
    "those of one it does") {
  race_launch writer{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  weft::detail::race_launch_order nothing_before;
  writer.order_after(&nothing_before);
  worker.start_block(&writer, 0, 64, nullptr, 0);
  race_test_global_access(worker, 0, &global[300], true, race_test_site_x);
  worker.let_go_of_pages();
  writer.finish(true);

  // A launch in another stream, with no event between: its read races the write.
  race_launch unordered{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  unordered.order_after(&nothing_before);
  worker.start_block(&unordered, 0, 64, nullptr, 0);
  CHECK(race_test_block::hazards([&] { race_test_global_access(worker, 3, &global[300], false, race_test_site_y); }) ==
        1);
  worker.let_go_of_pages();
  unordered.finish(true);

  // One that an event orders after the writer (not after the reader): the
  // writer's record is stale, the other reader's is not.
  weft::detail::race_launch_order after_writer;
  after_writer.add(writer.family());
  race_launch ordered{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  ordered.order_after(&after_writer);
  worker.start_block(&ordered, 0, 64, nullptr, 0);
  CHECK(race_test_block::hazards([&] { race_test_global_access(worker, 5, &global[301], false, race_test_site_y); }) ==
        0);
  CHECK(race_test_block::hazards([&] { race_test_global_access(worker, 5, &global[300], false, race_test_site_z); }) ==
        0);
  CHECK(race_test_block::hazards([&] { race_test_global_access(worker, 5, &global[300], true, race_test_site_z); }) ==
        1);  // after the unordered launch's read
  worker.let_go_of_pages();
}

namespace {

[[gnu::noinline]] void race_test_site_cluster_owner_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_cluster_peer_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_cluster_owner_reads_bin() { asm volatile(""); }

// Two blocks of a cluster on two race_workers (one OS thread here): block 0
// owns `owner_words`, its dynamic buffer, which block 1 mapped
// (cluster.map_shared_rank).
struct race_test_cluster {
  alignas(128) std::array<std::uint32_t, 64> owner_words{};
  alignas(128) std::array<std::uint32_t, 64> peer_words{};
  race_launch launch{dim3{2, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  race_worker owner, peer;

  race_test_cluster() {
    weft::detail::blockDim = dim3{64, 1, 1};
    weft::detail::gridDim = dim3{2, 1, 1};
    launch.set_clustered();
    owner.start_block(&launch, 0, 64, reinterpret_cast<std::byte*>(owner_words.data()), sizeof owner_words);
    peer.start_block(&launch, 1, 64, reinterpret_cast<std::byte*>(peer_words.data()), sizeof peer_words);
    // Its static __shared__ variables far away: only the dynamic buffer is used.
    peer.cluster_block_mapped(0, std::uintptr_t{1} << 44, reinterpret_cast<std::uintptr_t>(owner_words.data()),
                              sizeof owner_words);
  }
  void access(race_worker& worker, unsigned t, unsigned word, bool write, void (*site)()) {
    weft::detail::threadIdx = uint3{t, 0, 0};
    worker.access(&owner_words[word], 4, write, reinterpret_cast<const char*>(site) + 1);
  }
  void atomic(race_worker& worker, unsigned t, unsigned word) {
    weft::detail::threadIdx = uint3{t, 0, 0};
    worker.atomic_read_modify_write(&owner_words[word]);
  }
};

}  // namespace

TEST_CASE(
    "race check: another block of the cluster reading a word of the owner's __shared__ memory races with "
    "the owner's write unless a cluster sync comes between") {
  race_test_cluster c;
  CHECK(race_test_block::hazards([&] {
          c.access(c.owner, 0, 0, true, race_test_site_cluster_owner_writes);
          c.access(c.peer, 0, 0, false, race_test_site_cluster_peer_reads);
        }) == 1);
  CHECK(race_test_block::hazards([&] {
          c.access(c.owner, 0, 1, true, race_test_site_cluster_owner_writes);
          c.owner.group_synced();
          c.peer.group_synced();
          c.access(c.peer, 0, 1, false, race_test_site_cluster_peer_reads);
        }) == 0);
}

TEST_CASE(
    "race check: another block's atomics on the owner's __shared__ word race with the owner's plain read, "
    "not with each other") {
  race_test_cluster c;
  CHECK(race_test_block::hazards([&] {
          c.atomic(c.peer, 3, 2);
          c.atomic(c.peer, 4, 2);
        }) == 0);
  CHECK(race_test_block::hazards([&] { c.access(c.owner, 5, 2, false, race_test_site_cluster_owner_reads_bin); }) == 1);
  c.owner.group_synced();
  c.peer.group_synced();
  CHECK(race_test_block::hazards([&] { c.access(c.owner, 6, 2, false, race_test_site_cluster_owner_reads_bin); }) == 0);
}

namespace {

[[gnu::noinline]] void race_test_site_cluster_peer_reads_counter() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_cluster_peer_writes_before_arriving() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_cluster_peer_writes_after_arriving() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_cluster_owner_reads_after_wait() { asm volatile(""); }

}  // namespace

TEST_CASE(
    "race check: in a launch with clusters, the owner's atomics on its own __shared__ word race with another "
    "block's plain read; without clusters, atomics stay untraced") {
  race_test_cluster c;
  CHECK(race_test_block::hazards([&] {
          weft::detail::threadIdx = uint3{3, 0, 0};
          c.owner.atomic_read_modify_write(&c.owner_words[5]);
          c.access(c.peer, 0, 5, false, race_test_site_cluster_peer_reads_counter);
        }) == 1);
  CHECK(race_test_block::hazards([&] {
          weft::detail::threadIdx = uint3{4, 0, 0};
          c.owner.atomic_read_modify_write(&c.owner_words[6]);
          c.owner.group_synced();
          c.peer.group_synced();
          c.access(c.peer, 0, 6, false, race_test_site_cluster_peer_reads_counter);
        }) == 0);
  race_test_block b;
  CHECK(race_test_block::hazards([&] {
          b.atomic(3, 5);
          b.access(4, 5, false, race_test_site_cluster_peer_reads_counter);
        }) == 0);
}

TEST_CASE(
    "race check: a barrier in a block's __shared__ memory that another block of the cluster arrives at orders that "
    "block's accesses before the arrival before the owner's wait, not those after it") {
  race_test_cluster c;
  const void* barrier = &c.owner_words[60];  // a cuda::barrier the owner's thread 0 and the peer's thread 0 expect
  weft::detail::threadIdx = uint3{0, 0, 0};
  c.access(c.peer, 0, 10, true, race_test_site_cluster_peer_writes_before_arriving);
  weft::detail::threadIdx = uint3{0, 0, 0};
  c.peer.barrier_arrival_begins(barrier);
  c.peer.barrier_arrival(barrier, 0, 1, false);
  c.access(c.peer, 0, 11, true, race_test_site_cluster_peer_writes_after_arriving);
  // The owner's thread 0 arrives last, completes the phase and waits.
  weft::detail::threadIdx = uint3{0, 0, 0};
  c.owner.barrier_arrival_begins(barrier);
  c.owner.barrier_arrival(barrier, 0, 1, true);
  c.owner.barrier_arrivals_completed(barrier, 0);
  c.owner.barrier_phase_completed(barrier, 0);
  c.owner.barrier_waited(barrier, 0);
  CHECK(race_test_block::hazards(
            [&] { c.access(c.owner, 0, 10, false, race_test_site_cluster_owner_reads_after_wait); }) == 0);
  CHECK(race_test_block::hazards(
            [&] { c.access(c.owner, 0, 11, false, race_test_site_cluster_owner_reads_after_wait); }) == 1);
}

TEST_CASE_FIXTURE(
    race_test_one_block_launches,
    "race check: a launch ordered after an earlier one keeps its records for a third launch that is not ordered "
    "after it") {
  weft::detail::race_launch_order nothing_before;
  race_launch first{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  first.order_after(&nothing_before);
  worker.start_block(&first, 0, 64, nullptr, 0);
  race_test_global_access(worker, 0, &global[700], true, race_test_site_chain_first_writes);
  worker.let_go_of_pages();
  first.finish(true);

  weft::detail::race_launch_order after_first;
  after_first.add(first.family());
  race_launch second{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  second.order_after(&after_first);
  worker.start_block(&second, 0, 64, nullptr, 0);
  CHECK(race_test_block::hazards(
            [&] { race_test_global_access(worker, 1, &global[700], false, race_test_site_chain_second_reads); }) == 0);
  worker.let_go_of_pages();
  second.finish(true);

  race_launch third{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  third.order_after(&nothing_before);
  worker.start_block(&third, 0, 64, nullptr, 0);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 2, &global[700], false, race_test_site_chain_third_reads);
        }) == 1);  // the first launch's write
  worker.let_go_of_pages();
}

TEST_CASE_FIXTURE(
    race_test_one_block_launches,
    "race check: a copy or set races with the launches that CUDA does not order with it, on the words it reads or "
    "writes, and not with those it does") {
  weft::detail::race_launch_order nothing_before;
  race_launch writer{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  writer.order_after(&nothing_before);
  worker.start_block(&writer, 0, 64, nullptr, 0);
  race_test_global_access(worker, 0, &global[900], true, race_test_site_copy_kernel_writes);
  worker.let_go_of_pages();
  writer.finish(true);

  // A copy from words the kernel wrote, in a stream that nothing orders
  // after it: a read-after-write hazard.
  auto unordered_copy =
      std::make_shared<weft::detail::race_stream_copy>(0, "cudaMemcpyAsync", reinterpret_cast<const void*>(0x10));
  unordered_copy->launch().order_after(&nothing_before);
  unordered_copy->reads(&global[896], 64);
  unordered_copy->writes(&global[1500], 64);
  CHECK(race_test_block::hazards([&] { unordered_copy->run(); }) == 1);
  unordered_copy->finish();

  // A set of the word after events on both: nothing.
  weft::detail::race_launch_order after_writer;
  after_writer.add(writer.family());
  after_writer.add(unordered_copy->launch().family());
  auto ordered_set =
      std::make_shared<weft::detail::race_stream_copy>(0, "cudaMemsetAsync", reinterpret_cast<const void*>(0x20));
  ordered_set->launch().order_after(&after_writer);
  ordered_set->writes(&global[900], 4);
  CHECK(race_test_block::hazards([&] { ordered_set->run(); }) == 0);
  ordered_set->finish();

  // A kernel that nothing orders after the copy reads what the copy wrote.
  race_launch reader{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  reader.order_after(&nothing_before);
  worker.start_block(&reader, 0, 64, nullptr, 0);
  CHECK(race_test_block::hazards(
            [&] { race_test_global_access(worker, 3, &global[1503], false, race_test_site_copy_kernel_reads); }) == 1);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 3, &global[1600], false, race_test_site_copy_kernel_reads);
        }) == 0);  // past the copy's bytes
  worker.let_go_of_pages();
}

namespace {
[[gnu::noinline]] void race_test_site_stream_first_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_stream_warm_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_stream_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_stream_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_stream_reads_written() { asm volatile(""); }
}  // namespace

TEST_CASE(
    "race check: in a launch after another, an access whose word holds only the earlier launch's records is still "
    "recorded, so that another thread's unordered access to it is a hazard") {
  race_test_global_allocations_listed listed;
  weft::detail::blockDim = dim3{64, 1, 1};
  weft::detail::gridDim = dim3{1, 1, 1};
  std::uint32_t* global = race_test_global_words().data();
  race_worker worker;
  // The first launch writes the words, and finishes: a launch without a
  // stream order (a unit test's) comes after it.
  {
    race_launch first{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
    worker.start_block(&first, 0, 64, nullptr, 0);
    for (unsigned w = 1700; w < 1720; ++w)
      race_test_global_access(worker, w % 64, &global[w], true, race_test_site_stream_first_writes);
    worker.let_go_of_pages();
    first.finish(true);
  }
  race_launch second{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  worker.start_block(&second, 0, 64, nullptr, 0);
  CHECK(race_test_block::hazards([&] {
          // The second launch meets the first's records (found ordered
          // before it) and, where only such records lie, takes the short
          // path (global_word_ordered) for the words after the first; each
          // word's access is its only one so far, so none of them races.
          for (unsigned w = 1700; w < 1705; ++w)
            race_test_global_access(worker, 2, &global[w], false, race_test_site_stream_warm_reads);
          for (unsigned w = 1705; w < 1710; ++w)
            race_test_global_access(worker, 3, &global[w], true, race_test_site_stream_writes);
        }) == 0);
  // Thread 4 writes a word that thread 2 read: a write-after-read hazard,
  // unordered as nothing synchronises the two.
  CHECK(race_test_block::hazards(
            [&] { race_test_global_access(worker, 4, &global[1703], true, race_test_site_stream_reads); }) == 1);
  // Thread 5 reads a word that thread 3 wrote: a read-after-write hazard.
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 5, &global[1707], false, race_test_site_stream_reads_written);
        }) == 1);
  // A barrier orders them: the same accesses by other threads are silent.
  worker.block_synced();
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 6, &global[1702], true, race_test_site_stream_reads);
          race_test_global_access(worker, 7, &global[1708], false, race_test_site_stream_reads_written);
        }) == 0);
  worker.let_go_of_pages();
}

namespace {
[[gnu::noinline]] void race_test_site_byte_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_same_byte_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_whole_word_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_global_byte_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_global_same_byte_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_global_whole_word_reads() { asm volatile(""); }

// Thread `t` accesses `size` bytes at `p`, as the callback of that size does.
void race_test_bytes_access(race_worker& worker, unsigned t, const void* p, unsigned size, bool write, void (*site)()) {
  weft::detail::threadIdx = uint3{t, 0, 0};
  worker.access(p, size, write, reinterpret_cast<const char*>(site) + 1);
}
}  // namespace

TEST_CASE(
    "race check: threads that write different bytes of a word do not race; one byte twice, or a byte and the "
    "word, do") {
  race_test_block b;
  auto* bytes = reinterpret_cast<unsigned char*>(&b.words[40]);
  CHECK(race_test_block::hazards([&] {
          for (unsigned t = 0; t < 4; ++t)  // four threads, a byte each
            race_test_bytes_access(b.worker, t, bytes + t, 1, true, race_test_site_byte_writes);
          race_test_bytes_access(b.worker, 4, bytes + 4, 2, true, race_test_site_byte_writes);  // shorts
          race_test_bytes_access(b.worker, 5, bytes + 6, 2, true, race_test_site_byte_writes);
        }) == 0);
  CHECK(race_test_block::hazards([&] {
          race_test_bytes_access(b.worker, 6, bytes + 3, 1, true, race_test_site_same_byte_writes);  // thread 3's byte
        }) == 1);
  CHECK(race_test_block::hazards([&] {
          race_test_bytes_access(b.worker, 7, bytes + 4, 4, false, race_test_site_whole_word_reads);  // thread 5's half
        }) == 1);

  race_test_global_allocations_listed listed;
  auto* global = reinterpret_cast<unsigned char*>(&race_test_global_words()[1950]);
  race_launch launch{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  race_worker worker;
  worker.start_block(&launch, 0, 64, nullptr, 0);
  CHECK(race_test_block::hazards([&] {
          for (unsigned t = 0; t < 4; ++t)
            race_test_bytes_access(worker, t, global + t, 1, true, race_test_site_global_byte_writes);
        }) == 0);
  CHECK(race_test_block::hazards([&] {
          race_test_bytes_access(worker, 8, global + 3, 1, true, race_test_site_global_same_byte_writes);
        }) == 1);
  CHECK(race_test_block::hazards(
            [&] { race_test_bytes_access(worker, 9, global, 4, false, race_test_site_global_whole_word_reads); }) == 1);
  worker.let_go_of_pages();
}

// A thousand pages that a later launch writes (a vector add of 2^20 floats
// uses 3072) must not push an earlier launch's records out of the shadow
// before a launch that CUDA does not order after it reads them: with 672
// pages retained, the read was silent.
namespace {
std::uint32_t* race_test_thousand_pages() {
  static auto* memory = static_cast<std::uint32_t*>(std::aligned_alloc(4096, 1001 * 4096));
  return memory;
}
weft::detail::race_ranges race_test_thousand_pages_allocation(int) {
  auto begin = reinterpret_cast<std::uintptr_t>(race_test_thousand_pages());
  return {{begin, begin + 1001 * 4096}};
}
}  // namespace

TEST_CASE(
    "race check: a launch's records outlive the thousand pages a later launch writes, for a launch not ordered after "
    "it") {
  race_test_global_allocations_listed listed(race_test_thousand_pages_allocation);
  weft::detail::blockDim = dim3{64, 1, 1};
  weft::detail::gridDim = dim3{1, 1, 1};
  std::uint32_t* memory = race_test_thousand_pages();
  auto name = [] { return std::string("race_check_test"); };
  race_worker worker;
  weft::detail::race_launch_order nothing_before;
  race_launch first{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  first.order_after(&nothing_before);
  worker.start_block(&first, 0, 64, nullptr, 0);
  race_test_global_access(worker, 0, &memory[0], true, race_test_site_retained_first_writes);
  worker.let_go_of_pages();
  first.finish(true);

  race_launch second{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  second.order_after(&nothing_before);
  worker.start_block(&second, 0, 64, nullptr, 0);
  for (std::size_t page = 1; page < 1001; ++page)
    race_test_global_access(worker, 1, &memory[page * 1024], true, race_test_site_h);
  worker.let_go_of_pages();
  second.finish(true);

  race_launch third{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  third.order_after(&nothing_before);
  worker.start_block(&third, 0, 64, nullptr, 0);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 2, &memory[0], false, race_test_site_retained_third_reads);
        }) == 1);  // the first launch's write
  worker.let_go_of_pages();
}

// A launch finds the pages that its workers look up again without a lock,
// in a table of recent pages by page number modulo 256: a page 256 pages
// from one already there must not be taken for it.
namespace {
[[gnu::noinline]] void race_test_site_apart_first_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_apart_second_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_apart_second_reads() { asm volatile(""); }
}  // namespace

TEST_CASE("race check: words 256 pages apart keep records of their own") {
  race_test_global_allocations_listed listed(race_test_thousand_pages_allocation);
  weft::detail::blockDim = dim3{64, 1, 1};
  weft::detail::gridDim = dim3{2, 1, 1};
  std::uint32_t* memory = race_test_thousand_pages();
  race_worker worker;
  race_launch launch{dim3{2, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  worker.start_block(&launch, 0, 64, nullptr, 0);
  CHECK(race_test_block::hazards(
            [&] { race_test_global_access(worker, 0, &memory[0], true, race_test_site_apart_first_writes); }) == 0);
  worker.let_go_of_pages();
  worker.start_block(&launch, 1, 64, nullptr, 0);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 1, &memory[256 * 1024], true, race_test_site_apart_second_writes);
        }) == 0);  // another word
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 1, &memory[0], false, race_test_site_apart_second_reads);
        }) == 1);  // block 0's write
  worker.let_go_of_pages();
}

namespace {
[[gnu::noinline]] void race_test_site_ticked_first_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_ticked_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_ticked_reads_released() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_ticked_reads_after_release() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_reused_tag_first_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_reused_tag_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_reused_tag_writes() { asm volatile(""); }
}  // namespace

TEST_CASE(
    "race check: on the short path of a launch after another, a write that a thread makes after its fence and "
    "atomic is not released by them: the thread that acquired them and reads the word races with it") {
  race_test_global_allocations_listed listed;
  weft::detail::blockDim = dim3{64, 1, 1};
  weft::detail::gridDim = dim3{1, 1, 1};
  std::uint32_t* global = race_test_global_words().data();
  std::uint32_t* flag = &global[1739];
  race_worker worker;
  {
    race_launch first{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
    worker.start_block(&first, 0, 64, nullptr, 0);
    for (unsigned w = 1730; w < 1739; ++w)
      race_test_global_access(worker, 1, &global[w], true, race_test_site_ticked_first_writes);
    worker.let_go_of_pages();
    first.finish(true);
  }
  race_launch second{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  worker.start_block(&second, 0, 64, nullptr, 0);
  auto atomic = [&](unsigned t) {
    weft::detail::threadIdx = uint3{t, 0, 0};
    worker.atomic_read_modify_write(flag);
  };
  CHECK(race_test_block::hazards([&] {
          // Each word's first access in this launch, all at one site: the
          // short path (global_word_ordered) from the second on.
          race_test_global_access(worker, 2, &global[1730], true, race_test_site_ticked_writes);
          race_test_global_access(worker, 0, &global[1731], true, race_test_site_ticked_writes);
          // Thread 0 releases what it did so far: __threadfence(), an atomic.
          weft::detail::threadIdx = uint3{0, 0, 0};
          worker.thread_fenced();
          atomic(0);
          // The atomic let go of the pages: this write takes them again
          // (the full check), the next one is on the short path.
          race_test_global_access(worker, 0, &global[1733], true, race_test_site_ticked_writes);
          race_test_global_access(worker, 0, &global[1732], true, race_test_site_ticked_writes);
          atomic(40);  // thread 40 acquires thread 0's release
          race_test_global_access(worker, 40, &global[1731], false, race_test_site_ticked_reads_released);
        }) == 0);
  // Thread 0's write after its release: thread 40 did not acquire it.
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 40, &global[1732], false, race_test_site_ticked_reads_after_release);
        }) == 1);
  worker.let_go_of_pages();
}

TEST_CASE(
    "race check: a launch tag found ordered in a page is asked again once the worker took the page back, when a "
    "launch that CUDA does not order before the reader may have taken the tag meanwhile") {
  race_test_global_allocations_listed listed;
  weft::detail::blockDim = dim3{64, 1, 1};
  weft::detail::gridDim = dim3{1, 1, 1};
  std::uint32_t* global = race_test_global_words().data();
  auto name = [] { return std::string("race_check_test"); };
  race_worker reader_worker, writer_worker;
  weft::detail::race_launch_order nothing_before;
  // The first launch writes the words and finishes; its tag goes back.
  auto first = std::make_unique<race_launch>(dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name);
  first->order_after(&nothing_before);
  writer_worker.start_block(first.get(), 0, 64, nullptr, 0);
  for (unsigned w = 1750; w < 1760; ++w)
    race_test_global_access(writer_worker, 1, &global[w], true, race_test_site_reused_tag_first_writes);
  writer_worker.let_go_of_pages();
  std::uint32_t first_tag = first->tag();
  first->finish(true);

  // The reader, ordered after the first launch: its second read of the
  // page, on the short path, finds the first launch's tag ordered there.
  weft::detail::race_launch_order after_first;
  after_first.add(first->family());
  race_launch reader{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  reader.order_after(&after_first);
  reader_worker.start_block(&reader, 0, 64, nullptr, 0);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(reader_worker, 2, &global[1750], false, race_test_site_reused_tag_reads);
          race_test_global_access(reader_worker, 2, &global[1751], false, race_test_site_reused_tag_reads);
        }) == 0);
  reader_worker.let_go_of_pages();

  // A launch in another stream, unordered with the reader, takes the first
  // launch's tag (the launches between hold the tags before it) and writes.
  std::vector<std::unique_ptr<race_launch>> holding;
  std::unique_ptr<race_launch> writer;
  while (!writer) {
    auto next = std::make_unique<race_launch>(dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name);
    next->order_after(&nothing_before);
    if (next->tag() == first_tag)
      writer = std::move(next);
    else
      holding.push_back(std::move(next));
    REQUIRE(holding.size() < 256);
  }
  writer_worker.start_block(writer.get(), 0, 64, nullptr, 0);
  race_test_global_access(writer_worker, 3, &global[1753], true, race_test_site_reused_tag_writes);
  writer_worker.let_go_of_pages();

  // The reader takes the page again (a full check), then reads the
  // writer's word on the short path: the tag's owner is not the one found
  // ordered before, and the read races with the write.
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(reader_worker, 2, &global[1752], false, race_test_site_reused_tag_reads);
        }) == 0);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(reader_worker, 2, &global[1753], false, race_test_site_reused_tag_reads);
        }) == 1);
  reader_worker.let_go_of_pages();
  writer->finish(true);
  reader.finish(true);
}

namespace {
[[gnu::noinline]] void race_test_site_ready_first_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_ready_byte_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_ready_same_byte_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_freed_writes() { asm volatile(""); }
weft::detail::race_ranges race_test_no_allocations(int) { return {}; }
}  // namespace

// A page that the worker holds and the launch owns is checked before the
// other filters, and a word there whose records are all of launches
// ordered before takes the short path at once (race_worker::
// access_ready_page): a byte written there must leave the word's other
// bytes to other threads, as on the full check.
TEST_CASE_FIXTURE(
    race_test_one_block_launches,
    "race check: on a ready global page, threads that write different bytes of a word an earlier launch wrote do not "
    "race; one byte twice does") {
  race_launch first{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  worker.start_block(&first, 0, 64, nullptr, 0);
  for (unsigned w = 1800; w < 1804; ++w)
    race_test_global_access(worker, 0, &global[w], true, race_test_site_ready_first_writes);
  worker.let_go_of_pages();
  first.finish(true);

  // The second launch (ordered after every other, as a launch without an
  // order is): its first byte write, at a word of its own, holds the page
  // and knows the site; the next, to word 1802, takes the short path.
  race_launch second{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  worker.start_block(&second, 0, 64, nullptr, 0);
  auto* bytes = reinterpret_cast<unsigned char*>(&global[1802]);
  CHECK(race_test_block::hazards([&] {
          race_test_bytes_access(worker, 3, &global[1800], 1, true, race_test_site_ready_byte_writes);
          race_test_bytes_access(worker, 0, bytes, 1, true, race_test_site_ready_byte_writes);
          race_test_bytes_access(worker, 1, bytes + 1, 1, true, race_test_site_ready_byte_writes);
          race_test_bytes_access(worker, 2, bytes + 2, 2, true, race_test_site_ready_byte_writes);
        }) == 0);
  CHECK(race_test_block::hazards([&] {
          race_test_bytes_access(worker, 4, bytes + 3, 1, true, race_test_site_ready_same_byte_writes);  // thread 2's
        }) == 1);
  worker.let_go_of_pages();
  second.finish(true);
}

// The worker's cache of global pages is the launch's: an allocation freed
// after a launch (its memory handed out again, as the host's) is memory
// weft does not know in the next, private to each thread, however ready
// its page was.
TEST_CASE("race check: a global page held in one launch is not taken for global memory in the next once freed") {
  weft::detail::blockDim = dim3{64, 1, 1};
  weft::detail::gridDim = dim3{1, 1, 1};
  std::uint32_t* global = race_test_global_words().data();
  auto name = [] { return std::string("race_check_test"); };
  race_worker worker;
  {
    race_test_global_allocations_listed listed;
    race_launch first{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
    worker.start_block(&first, 0, 64, nullptr, 0);
    race_test_global_access(worker, 0, &global[1810], true, race_test_site_freed_writes);
    race_test_global_access(worker, 0, &global[1811], true, race_test_site_freed_writes);
    worker.let_go_of_pages();
    first.finish(true);
  }
  race_test_global_allocations_listed freed(race_test_no_allocations);
  weft::detail::race_launch_order nothing_before;
  race_launch second{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  second.order_after(&nothing_before);  // not ordered after the first either
  worker.start_block(&second, 0, 64, nullptr, 0);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 1, &global[1811], true, race_test_site_freed_writes);
          race_test_global_access(worker, 2, &global[1811], true, race_test_site_freed_writes);
          race_test_global_access(worker, 3, &global[1810], false, race_test_site_freed_writes);
        }) == 0);
  worker.let_go_of_pages();
  second.finish(true);
}

namespace {
[[gnu::noinline]] void race_test_site_streamed_first_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_streamed_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_streamed_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_streamed_reads_other() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_streamed_reads_before_barrier() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_streamed_reads_after_barrier() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_streamed_reads_streamed_write() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_streamed_reads_2d() { asm volatile(""); }

// A launch that wrote words 1100 to 1163, then a second one, ordered after
// it, whose thread 0 writes word 1100 (holding the page, making the block's
// state and knowing the site) and thread 1 word 1101 (the ready page's
// path, after which the block streams): the words from 1102 on are then
// checked inline in the callback (race_worker::streamed_word).
struct race_test_streaming_launch : race_test_one_block_launches {
  race_launch first{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  race_launch second{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  race_test_streaming_launch() {
    worker.start_block(&first, 0, 64, nullptr, 0);
    for (unsigned w = 1100; w < 1164; ++w)
      race_test_global_access(worker, 0, &global[w], true, race_test_site_streamed_first_writes);
    worker.let_go_of_pages();
    first.finish(true);
    worker.start_block(&second, 0, 64, nullptr, 0);
    for (unsigned t = 0; t < 2; ++t)
      race_test_global_access(worker, t, &global[1100 + t], true, race_test_site_streamed_writes);
  }
  ~race_test_streaming_launch() {
    worker.let_go_of_pages();
    second.finish(true);
  }
};
}  // namespace

TEST_CASE_FIXTURE(race_test_streaming_launch,
                  "race check: a streamed global write is recorded as its thread's, so that another thread's read of "
                  "the word races it and the writer's own read does not") {
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 2, &global[1102], true, race_test_site_streamed_writes);
          race_test_global_access(worker, 3, &global[1103], false,
                                  race_test_site_streamed_reads);  // the first launch's
          race_test_global_access(worker, 2, &global[1102], false, race_test_site_streamed_reads);
        }) == 0);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 5, &global[1102], false, race_test_site_streamed_reads_other);
        }) == 1);
}

TEST_CASE_FIXTURE(race_test_streaming_launch,
                  "race check: after a barrier a streamed block's global accesses are of the barrier's new epoch") {
  race_test_global_access(worker, 2, &global[1102], true, race_test_site_streamed_writes);
  worker.block_synced();
  // Both after the barrier: a hazard, whichever path the write took.
  race_test_global_access(worker, 3, &global[1103], true, race_test_site_streamed_writes);
  race_test_global_access(worker, 4, &global[1104], true, race_test_site_streamed_writes);
  // Thread 5's the streamed path's (thread 4's, the ready page's, made the
  // block stream again): its record must carry the new epoch's state too.
  race_test_global_access(worker, 5, &global[1105], true, race_test_site_streamed_writes);
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 6, &global[1104], false, race_test_site_streamed_reads_after_barrier);
        }) == 1);
  // (A read of another site: each pair of sites is reported once.)
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 7, &global[1105], false, race_test_site_streamed_reads_streamed_write);
        }) == 1);
  // Thread 2's write, before the barrier, is ordered before this read.
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 6, &global[1102], false, race_test_site_streamed_reads_before_barrier);
        }) == 0);
}

TEST_CASE_FIXTURE(race_test_one_block_launches,
                  "race check: in a block of two dimensions a streamed global write is recorded as its thread's "
                  "linear index, not its threadIdx.x") {
  weft::detail::blockDim = dim3{8, 8, 1};
  auto access = [&](unsigned x, unsigned y, unsigned word, bool write, void (*site)()) {
    weft::detail::threadIdx = uint3{x, y, 0};
    worker.access(&global[word], 4, write, reinterpret_cast<const char*>(site) + 1);
  };
  race_launch first{dim3{1, 1, 1}, dim3{8, 8, 1}, 0, name};
  worker.start_block(&first, 0, 64, nullptr, 0);
  for (unsigned w = 1120; w < 1130; ++w) access(0, 0, w, true, race_test_site_streamed_first_writes);
  worker.let_go_of_pages();
  first.finish(true);
  race_launch second{dim3{1, 1, 1}, dim3{8, 8, 1}, 0, name};
  worker.start_block(&second, 0, 64, nullptr, 0);
  access(0, 0, 1120, true, race_test_site_streamed_writes);
  access(1, 0, 1121, true, race_test_site_streamed_writes);
  access(1, 1, 1122, true, race_test_site_streamed_writes);  // thread 9
  // Thread 1 reads thread 9's word: a hazard.
  CHECK(race_test_block::hazards([&] { access(1, 0, 1122, false, race_test_site_streamed_reads_2d); }) == 1);
  worker.let_go_of_pages();
  second.finish(true);
  weft::detail::blockDim = dim3{64, 1, 1};
}

TEST_CASE("race check: a line of a region version is reported in its kernel's name, as in the stackless kernel") {
  using weft::detail::user_function_name;
  CHECK(user_function_name("weft_port_regions_block_sum(weft::detail::region_block&, float const*, float*)") ==
        "block_sum(float const*, float*)");
  CHECK(user_function_name("ns::weft_port_regions_k(weft::detail::region_block&, int*)::{lambda(ns::weft_port_regions_"
                           "k(weft::detail::region_block&, int*)::weft_locals&)#1}::operator()(ns::weft_port_regions_"
                           "k(weft::detail::region_block&, int*)::weft_locals&) const") == "ns::k(int*)");
  CHECK(user_function_name("weft_port_regions_scale<float>(weft::detail::region_block&, float*)") ==
        "scale<float>(float*)");
  CHECK(user_function_name("weft_port_regions_k(weft::detail::region_block&)") == "k()");
  CHECK(user_function_name("ns::weft_port_stackless_k(int*)") == "ns::k(int*)");
  CHECK(user_function_name("k(int*) [clone .resume]") == "k(int*) [clone .resume]");
}

namespace {

[[gnu::noinline]] void race_test_site_read_input_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_read_input_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_read_input_overwrite() { asm volatile(""); }

}  // namespace

TEST_CASE_FIXTURE(race_test_one_block_launches,
                  "race check: a global word that two blocks of a launch read (a tiled matmul's input) keeps the other "
                  "block's read as its earlier one, so that a write after both races it") {
  race_launch writer{dim3{1, 1, 1}, dim3{64, 1, 1}, 0, name};
  worker.start_block(&writer, 0, 64, nullptr, 0);
  for (unsigned w = 1200; w < 1264; ++w)
    race_test_global_access(worker, 0, &global[w], true, race_test_site_read_input_writes);
  worker.let_go_of_pages();
  writer.finish(true);
  // Thread 0 of each block reads the words: block 1's, after the first
  // (which holds the page again, makes the block's state and finds the
  // word's earlier read not made yet), take the ordered path.
  weft::detail::gridDim = dim3{2, 1, 1};
  race_launch reader{dim3{2, 1, 1}, dim3{64, 1, 1}, 0, name};
  for (std::uint64_t block : {0u, 1u}) {
    worker.start_block(&reader, block, 64, nullptr, 0);
    CHECK(race_test_block::hazards([&] {
            for (unsigned w = 1200; w < 1264; ++w)
              race_test_global_access(worker, 0, &global[w], false, race_test_site_read_input_reads);
          }) == 0);
    if (block == 0) worker.let_go_of_pages();
  }
  // Block 1's thread 0 writes a word: its own read is ordered before the
  // write, block 0's, kept as the word's earlier read, is not.
  CHECK(race_test_block::hazards([&] {
          race_test_global_access(worker, 0, &global[1210], true, race_test_site_read_input_overwrite);
        }) == 1);
  worker.let_go_of_pages();
  reader.finish(true);
  weft::detail::gridDim = dim3{1, 1, 1};
}

namespace {

[[gnu::noinline]] void race_test_site_saturating_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_saturated_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_saturated_writes() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_saturated_reads_after_write() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_fenced_saturating_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_fenced_third_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_fenced_fourth_writes() { asm volatile(""); }

// A launch of eight blocks of 64 threads on one worker, over the first
// whole shadow page (4 KiB) of race_test_global_words.
struct race_test_saturated_page {
  race_test_global_allocations_listed listed;
  std::uint32_t* words = race_test_global_words().data();
  std::uint32_t* page =
      reinterpret_cast<std::uint32_t*>((reinterpret_cast<std::uintptr_t>(words) + 4095) & ~std::uintptr_t{4095});
  std::uint32_t* flag = page == words ? &words[2047] : &words[0];  // outside the page
  race_launch launch{dim3{8, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  race_worker worker;
  race_test_saturated_page() {
    weft::detail::blockDim = dim3{64, 1, 1};
    weft::detail::gridDim = dim3{8, 1, 1};
  }
  ~race_test_saturated_page() {
    worker.let_go_of_pages();
    launch.finish(true);
    weft::detail::gridDim = dim3{1, 1, 1};
  }
  // `block` reads every word of the page; then, if `publishes`, its
  // thread 0 calls __threadfence() and makes an atomic of device scope.
  void read_page(unsigned block, void (*site)(), bool publishes = false) {
    worker.start_block(&launch, block, 64, nullptr, 0);
    for (unsigned w = 0; w < 1024; ++w) race_test_global_access(worker, w % 64, &page[w], false, site);
    if (!publishes) return;
    weft::detail::threadIdx = uint3{0, 0, 0};
    worker.fenced();
    worker.atomic_read_modify_write(flag);
  }
};

}  // namespace

TEST_CASE_FIXTURE(race_test_saturated_page,
                  "race check: once two blocks read every word of a page, a write to it is still checked, and "
                  "the page's later reads are checked again after it") {
  read_page(0, race_test_site_saturating_reads);
  read_page(1, race_test_site_saturating_reads);
  CHECK(race_test_block::hazards([&] {
          worker.start_block(&launch, 2, 64, nullptr, 0);
          race_test_global_access(worker, 3, &page[100], false, race_test_site_saturated_reads);
        }) == 0);
  // Unordered with the reads of blocks 0 and 1 (kept) and 2 (not kept).
  CHECK(race_test_block::hazards([&] {
          worker.start_block(&launch, 3, 64, nullptr, 0);
          race_test_global_access(worker, 5, &page[100], true, race_test_site_saturated_writes);
        }) == 1);
  // Unordered with block 3's write: the write made the page's reads
  // recorded and checked again.
  CHECK(race_test_block::hazards([&] {
          worker.start_block(&launch, 4, 64, nullptr, 0);
          race_test_global_access(worker, 7, &page[100], false, race_test_site_saturated_reads_after_write);
        }) == 1);
}

TEST_CASE_FIXTURE(race_test_saturated_page,
                  "race check: after a fence, two blocks' reads of every word of a page no longer leave a third "
                  "block's reads unrecorded") {
  // Blocks 0 and 1 publish their reads: a later block is ordered after them.
  read_page(0, race_test_site_fenced_saturating_reads, true);
  read_page(1, race_test_site_fenced_saturating_reads, true);
  worker.start_block(&launch, 2, 64, nullptr, 0);
  race_test_global_access(worker, 3, &page[200], false, race_test_site_fenced_third_reads);
  // Ordered after the reads of blocks 0 and 1, not after block 2's.
  CHECK(race_test_block::hazards([&] {
          worker.start_block(&launch, 3, 64, nullptr, 0);
          race_test_global_access(worker, 0, &page[200], true, race_test_site_fenced_fourth_writes);
        }) == 1);
}

namespace {

[[gnu::noinline]] void race_test_site_segment_zero_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_segment_one_reads() { asm volatile(""); }
[[gnu::noinline]] void race_test_site_segment_one_writes_zero() { asm volatile(""); }

}  // namespace

TEST_CASE(
    "race check: a page that two workers take from each other for their own blocks' words is locked by segments, "
    "and a race across two segments is still found") {
  race_test_global_allocations_listed listed;
  std::uint32_t* words = race_test_global_words().data();
  auto* page =
      reinterpret_cast<std::uint32_t*>((reinterpret_cast<std::uintptr_t>(words) + 4095) & ~std::uintptr_t{4095});
  race_launch launch{dim3{2, 1, 1}, dim3{64, 1, 1}, 0, [] { return std::string("race_check_test"); }};
  // Blocks 0 and 1 on workers of their own read words of segments 0 and
  // 1 by turns: each read waits for the other worker, which makes no
  // access meanwhile and is interrupted to let go.
  std::atomic<unsigned> turn{0};
  constexpr unsigned turns = 160;
  auto run_block = [&](unsigned block, void (*site)(), bool writes_after) {
    weft::detail::blockDim = dim3{64, 1, 1};
    weft::detail::gridDim = dim3{2, 1, 1};
    race_worker worker;
    weft::detail::race_running = &worker;
    worker.start_block(&launch, block, 64, nullptr, 0);
    for (unsigned t = block; t < turns; t += 2) {
      auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (turn.load() != t && std::chrono::steady_clock::now() < give_up) {
      }
      race_test_global_access(worker, t / 2 % 64, &page[block * 64 + t / 2 % 64], false, site);
      ++turn;
    }
    // Then block 1 writes a word of block 0's segment, which block 0's
    // worker keeps until asked.
    auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (turn.load() != turns + (writes_after ? 0 : 1) && std::chrono::steady_clock::now() < give_up) {
    }
    if (writes_after) {
      // Block 0's thread 5 read this word, ordered by nothing with it.
      race_test_global_access(worker, 9, &page[5], true, race_test_site_segment_one_writes_zero);
      ++turn;
    }
    weft::detail::race_running = nullptr;
  };
  CHECK(race_test_block::hazards([&] {
          std::thread zero(run_block, 0, race_test_site_segment_zero_reads, false);
          std::thread one(run_block, 1, race_test_site_segment_one_reads, true);
          zero.join();
          one.join();
        }) == 1);
  CHECK(turn.load() == turns + 1);
  CHECK(launch.page_of(reinterpret_cast<std::uintptr_t>(page)).segmented.load());
  launch.finish(true);
  weft::detail::gridDim = dim3{1, 1, 1};
}
