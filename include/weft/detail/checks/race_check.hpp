// The race check (WEFT_SANITIZE=race, docs/debugging.md "Race check"): a
// detector of data races between CUDA threads, built into weft.
//
// Kernel code is compiled with Clang's -fsanitize-coverage=func,trace-loads,
// trace-stores, so that every plain load and store calls a callback with its
// address (race_check_callbacks.hpp defines them); atomics are not traced
// as accesses, which is what CUDA's memory model asks: atomics never race
// (they synchronise: release and acquire, below). The callback
// keeps, per 4-byte word of a block's __shared__ memory (its worker's
// thread-local storage and dynamic shared buffer) and of the launch's global
// memory (weft allocations and the program's own static data), the last
// write and up to two reads since, each with the CUDA thread that made it
// and where that thread stood in the block's synchronisation, and which of
// the word's bytes it touched. Two accesses of different CUDA threads to a
// byte of one word, one a write, race unless something CUDA defines orders
// them:
//
//   - a block-wide barrier (__syncthreads and its variants, the barriers
//     around a grid or cluster sync, a completed phase of a cuda::barrier):
//     each thread has an epoch; a barrier that completes gives its
//     threads an epoch above every epoch they had. A later access whose
//     thread's epoch is higher than the earlier access's is ordered after it.
//     Any other phase of a cuda::barrier or a block pipeline's stage (a
//     multi-warp tile's sync, a split arrive and wait, an arrive_and_drop,
//     a pipeline's commit and release, a barrier in global memory that
//     several blocks arrive at) orders exactly what CUDA orders: what each
//     arrival did before arriving (with what warp collectives ordered
//     before it) before what each wait that observes the phase's
//     completion does after it, by the threads' clocks (below).
//   - a warp collective (__syncwarp, shuffles, votes, tiles of a warp or
//     less): each lane keeps a vector clock over its warp's 32 lanes; a
//     collective joins the clocks of the lanes it names.
//   - between blocks: a grid or cluster sync gives the block a higher group
//     epoch; a write followed by a __threadfence() of its block, and then
//     by an atomic of device or system scope of that block, is taken as
//     published (fence-plus-flag: the flag itself is an atomic, which is
//     not traced; a block-scope one orders its own block only). In a
//     launch with clusters, another block's __shared__ word that a thread
//     reaches through cluster.map_shared_rank is checked in that block's
//     shadow, an atomic on it as an atomic write (check_remote), as is an
//     atomic on the block's own __shared__ word; a cuda::barrier in
//     __shared__ memory, which other blocks may arrive at, keeps its phases
//     in the launch (block_local).
//   - within a block, release and acquire through atomics (a lock of
//     atomicCAS and atomicExch, a flag): an atomic read-modify-write
//     acquires what threads of its block released to its word, and, made
//     after a fence of its thread (__threadfence or __threadfence_block),
//     releases the thread's accesses before the fence with what the thread
//     knows of others. Each thread's clock counts its fences; what it knows
//     is a sparse vector clock (race_clock) over its block's threads.
//     Between blocks, the fence-plus-flag rule above orders the same.
//   - a cuda::barrier's completion function: after every arrival of its
//     phase, before every wait that returns (an epoch of its own).
//   - between launches, copies and sets: CUDA's stream and event order,
//     host synchronisation, the legacy stream's implicit synchronisation
//     and a graph's edges (race_launch_order). The global shadow is the
//     process's: a record of another launch, copy or set
//     (race_stream_copy.hpp) that is not ordered before the running one is
//     a hazard between the two, whether weft ran them one after the other
//     or at the same time.
//   - an asynchronous copy (memcpy_async's forms) is its issuing thread's
//     read of the source and write of the destination at the issue, and
//     in flight until the barrier phase, pipeline stage or wait that
//     completes it: any access to the destination, or write to the
//     source, meanwhile races with it (race_async_copy.hpp).
//
// The detector keys on the CUDA thread (block and threadIdx), not on the
// fiber or OS thread, so threads that weft runs one after another on one
// fiber count as different threads. Each hazard (kind and pair of source
// locations) is reported once, on stderr, and the kernel goes on, as with
// compute-sanitizer's racecheck; a summary line is printed at exit.
//
// In a build without the instrumentation, race_check_build is false and
// every hook compiles to nothing.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <dlfcn.h>
#include <link.h>

#include "weft/detail/base/builtin_variables.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/spin_wait.hpp"
#include "weft/detail/base/text_format.hpp"
#include "weft/detail/checks/race_async_copy.hpp"
#include "weft/detail/checks/race_check_build.hpp"
#include "weft/detail/checks/race_launch_order.hpp"
#include "weft/detail/checks/race_page_holder.hpp"
#include "weft/detail/checks/race_page_table.hpp"
#include "weft/detail/checks/race_shadow_blocks.hpp"
#include "weft/detail/checks/untraced_read.hpp"

namespace weft::detail {

// Sets `variable.x` (a built-in variable's: threadIdx, blockIdx, blockDim,
// gridDim) to `x`, where `y` and `z` are its .y and .z already. Inlined
// into traced code, where the kernel's reads of the variable that follow
// are then this store's values, not traced loads. In a race-check build it
// is one 12-byte store of all three, which -fsanitize-coverage
// does not trace (it traces stores of 1, 2, 4, 8 and 16 bytes): a traced
// store would be a callback that finds the word untraced, about 20
// instructions, and there is nothing to check, the built-in variables
// being weft's. Clang makes it an 8-byte store of x and y and a 4-byte one
// of z, so that any later 4-byte load of one of the three is forwarded
// from a store that holds it whole: with a 6-byte store (x and half of y),
// the check's load of threadIdx.y for the thread's index waited for the
// store to reach the cache, about a quarter of a __shared__ load's check
// (perf, the shared-memory scan, 2026-12-01). A Clang that traced it would
// make it a traced store of the variable, which the check ignores: slower,
// never wrong.
//
// restate_builtin(variable) is the same with the variable's own values,
// read with loads that are not traced either: at the start of a
// traced function, the kernel's reads of the variable after it are its
// values (the compiler cannot see that the store changes nothing). Nothing
// in a build without the instrumentation.
#if defined(__has_feature)
#if __has_feature(coverage_sanitizer)
__extension__ using race_untraced_twelve_bytes = unsigned _BitInt(96) __attribute__((may_alias, aligned(4)));
#else
__extension__ using race_untraced_twelve_bytes = unsigned __int128;  // only in code race_check_build discards
#endif
#else
__extension__ using race_untraced_twelve_bytes = unsigned __int128;  // only in code race_check_build discards
#endif
template <class Index>
[[gnu::always_inline]] inline void set_builtin_x(Index& variable, unsigned x, unsigned y, unsigned z) {
  if constexpr (race_check_build) {
    using bits = race_untraced_twelve_bytes;
    *reinterpret_cast<bits*>(&variable.x) =
        static_cast<bits>(x) | static_cast<bits>(y) << 32 | static_cast<bits>(z) << 64;
  } else {
    variable.x = x;
  }
}
template <class Index>
[[gnu::always_inline]] inline void restate_builtin(Index& variable) {
  if constexpr (race_check_build) {
    // Each component loaded on its own (untraced_read: untraced where it
    // can be, else a traced load of weft's own variable, slower, never
    // wrong): weft's loop stored them one by one, and a wider load across
    // two of those stores (an 8-byte half of a 12-byte load) waits for both
    // to reach the cache (vector add's check 1.2 times as long).
    unsigned x = untraced_read(variable.x), y = untraced_read(variable.y), z = untraced_read(variable.z);
    set_builtin_x(variable, x, y, z);
  }
}

}  // namespace weft::detail

// Outside namespace weft, whose functions the race check's ignore list
// names (cmake/weft_race_check_ignore.txt): code inlined into this
// function is traced.
namespace weft_traced {

/// In a race-check build, calls the kernel for one CUDA thread out of line.
/// The instrumentation runs after inlining, and code inlined into a weft
/// function is not traced; nor would threadIdx in memory be up to date
/// (weft's loop keeps it in a register across a kernel it inlined). The
/// kernel's parameters come by value, copied by the untraced caller: scalars
/// and pointers then arrive in registers, where reading them from the
/// launch's tuple was a traced load each (four of a vector add's ten).
/// A stackless kernel's call returns its thread's coroutine, whose body up
/// to its first co_await runs here, traced.
///
/// A kernel that is a plain function (not a stackless kernel's coroutine,
/// whose body runs in a function of its own) then reads threadIdx,
/// blockIdx and blockDim (threadIdx.x, blockIdx.x and blockDim.x: a
/// thread's index in the grid) from restate_builtin's stores, not with
/// traced loads: three of a vector add's six callbacks. (gridDim, which fewer kernels read, is left to its
/// callback: a restatement costs about 9 instructions, a callback 25.)
template <class Kernel, class... Parameters>
[[gnu::noinline]] decltype(auto) call_kernel(Kernel& kernel, Parameters... parameters) {
  if constexpr (std::is_void_v<decltype(kernel(parameters...))>) {
    using namespace weft::detail;
    restate_builtin(threadIdx);
    restate_builtin(blockIdx);
    restate_builtin(blockDim);
  }
  return kernel(parameters...);
}

}  // namespace weft_traced

namespace weft::detail {

/// Calls weft_traced::call_kernel with copies of the launch's arguments.
template <class Kernel, class Arguments, std::size_t... Index>
[[gnu::always_inline]] inline decltype(auto) call_kernel_traced(Kernel& kernel, Arguments& arguments,
                                                                std::index_sequence<Index...>) {
  return weft_traced::call_kernel(kernel, std::get<Index>(arguments)...);
}

/// Calls the kernel for one CUDA thread (out of line in a race-check build)
/// and returns what it returns (a stackless kernel's thread).
template <class Kernel, class Arguments>
[[gnu::always_inline]] inline decltype(auto) call_kernel(Kernel& kernel, Arguments& arguments) {
  if constexpr (race_check_build)
    return call_kernel_traced(kernel, arguments, std::make_index_sequence<std::tuple_size_v<Arguments>>{});
  else
    return std::apply(kernel, arguments);
}

/// One traced access, as a report names it: who made it and where.
struct race_launch_identity;
struct race_access {
  race_launch_identity* launch = nullptr;  // another launch's record; null: the running launch's
  std::uintptr_t pc = 0;
  std::uint64_t block = 0;
  std::uint32_t thread = 0;  // linear id in the block
  bool write = false;        // a store
};

/// A thread's arrival at a named barrier (bar.sync waits, bar.arrive does not).
struct named_arrival {
  unsigned thread;  // linear index in its block
  bool waits;
  std::uint32_t release_clock;  // its clock as it arrived (race_worker::named_barrier_arrival)
};

/// A sparse vector clock over CUDA threads: (race_thread_key, clock) pairs,
/// sorted by key. A thread's clock counts its fences; what a thread knows of
/// others (what their releases, through atomics, handed it) and what an
/// atomic word holds (the releases made to it) are such clocks.
using race_clock = std::vector<std::pair<std::uint64_t, std::uint32_t>>;

/// A CUDA thread of a launch, as a race_clock key (a block has at most 1024
/// threads).
inline std::uint64_t race_thread_key(std::uint64_t block, std::uint32_t thread) { return block << 10 | thread; }

/// A block of a launch, as a race_clock key whose value is the block's
/// epoch: a barrier phase that a thread of another block arrives at
/// releases, with the thread's own accesses, every access its block made
/// before its last block barrier (__syncthreads, then one thread arrives
/// at a grid-wide barrier).
inline std::uint64_t race_block_key(std::uint64_t block) { return std::uint64_t{1} << 63 | block; }

/// A lane of a warp of a launch, as a race_clock key whose value is the
/// lane's own warp clock (race_record::lane_clock): what a warp collective
/// showed another lane of that lane's accesses, which that lane's arrival
/// at a barrier releases with its own (lane 1 writes, __syncwarp, lane 0
/// arrives at a barrier that another block waits for).
inline std::uint64_t race_lane_key(std::uint64_t block, std::uint32_t thread) {
  return std::uint64_t{1} << 62 | block << 10 | thread;
}

/// The block of a race_clock key.
inline std::uint64_t race_block_of_key(std::uint64_t key) {
  return key >> 63 ? key & ~(std::uint64_t{1} << 63) : (key & ~(std::uint64_t{1} << 62)) >> 10;
}

/// Whether `clock` covers `key`'s entry up to `value`.
inline bool race_covers(const race_clock& clock, std::uint64_t key, std::uint32_t value) {
  auto at = std::lower_bound(clock.begin(), clock.end(), std::pair{key, std::uint32_t{0}});
  return at != clock.end() && at->first == key && at->second >= value;
}

/// Raises each of `into`'s entries to `from`'s.
inline void race_join(race_clock& into, const race_clock& from) {
  // Most joins add nothing (a spinning thread acquiring the same word again).
  if (std::all_of(from.begin(), from.end(),
                  [&](const auto& entry) { return race_covers(into, entry.first, entry.second); }))
    return;
  race_clock joined;
  joined.reserve(into.size() + from.size());
  auto a = into.cbegin();
  auto b = from.cbegin();
  while (a != into.cend() || b != from.cend()) {
    if (b == from.cend() || (a != into.cend() && a->first < b->first))
      joined.push_back(*a++);
    else if (a == into.cend() || b->first < a->first)
      joined.push_back(*b++);
    else {
      // Not one call with a++ among its arguments: GCC evaluates them right
      // to left, and took the key of the entry after.
      joined.emplace_back(a->first, std::max(a->second, b->second));
      ++a;
      ++b;
    }
  }
  into = std::move(joined);
}

/// A phase of a barrier (a cuda::barrier's state, a block pipeline's stage)
/// as the race check follows it: the arrivals of the phase in progress, and
/// what the latest two completed phases released to the waits that
/// observe them (race_worker::barrier_arrival and the hooks after it).
struct race_barrier_phases {
  // The block's, for a barrier in its __shared__ memory; in a launch with
  // clusters, the owner block's number plus one (race_worker::barrier_owner).
  std::uint64_t generation = 0;
  std::uint32_t phase = 0;
  std::uint32_t count = 0;             // arrivals counted so far (an arrival may count several)
  std::uint32_t arriving_threads = 0;  // the threads that arrived so far, one each
  // Every arrival so far parks at once until the phase completes
  // (arrive_and_wait), and all are of the block whose __shared__ memory
  // holds the barrier: if they are the whole block, the block epoch orders
  // the phase, as a __syncthreads does.
  bool all_wait_at_once = true;
  bool by_clocks = false;  // the phase completing now orders by released, not by the epoch
  std::vector<std::pair<std::uint64_t, std::uint32_t>> arrivals;  // (race_thread_key, clock at arrival)
  race_clock known;                                               // what the arrivals knew of others as they arrived
  race_clock released;  // the completing phase's: arrivals, their knowledge, its completion function
  // What the last arrival's thread knew before its completion function,
  // which acquires the phase's arrivals (the thread itself goes on
  // knowing only what it did, unless it waits).
  race_clock completing_thread_knew;
  struct completed_phase {
    bool valid = false;
    std::uint32_t phase = 0;
    race_clock released;
  };
  // By phase modulo 2: a wait's token names the phase in progress or the
  // one before (CUDA leaves any older one undefined).
  std::array<completed_phase, 2> completed;
};

/// One traced access as the shadow keeps it, 16 bytes: its code address
/// interned (race_sites), its block's synchronisation state as a handle
/// into the launch's table (race_block_states: the same for all of a
/// block's accesses until one of its threads synchronises; for a
/// __shared__ word, whose records are all its block's, the block's epoch
/// itself), what is the thread's own, and which of the word's bytes the
/// access left alone. A streaming kernel's shadow traffic and a large
/// program's memory are what this size is for: a word's three records were
/// 120 bytes.
class race_record {
 public:
  race_record() = default;
  // The clocks are clamped: a lower clock is covered sooner, which can hide
  // a race after two million fences of one thread or 16 million warp
  // collectives of one lane, never invent one. `launch` is the tag of the
  // launch that made it (race_launch_tags): the others' records are stale,
  // as good as none; 0 is no access. `untouched`: the word's bytes that the
  // access left alone, one bit each (race_untouched_bytes), 0 for the
  // whole word, so that a 4-byte access's record is made as before.
  [[gnu::always_inline]] race_record(std::uint32_t site, std::uint32_t state, unsigned thread, bool write,
                                     std::uint32_t release_clock, std::uint32_t lane_clock, std::uint32_t launch,
                                     std::uint32_t untouched = 0)
      : race_record(site, state, untouched, thread_half(thread, write, release_clock, lane_clock, launch)) {}

  /// The half of a record that says who made it (thread, write, clocks,
  /// launch), as the constructor above makes it: a worker makes it once
  /// for all of a block's threads while their clocks are untouched
  /// (race_worker::thread_half).
  [[gnu::always_inline]] static std::uint64_t thread_half(unsigned thread, bool write, std::uint32_t release_clock,
                                                          std::uint32_t lane_clock, std::uint32_t launch) {
    return thread | std::uint64_t{write} << 10 | std::uint64_t{std::min(release_clock, max_release_clock)} << 11 |
           std::uint64_t{std::min(lane_clock, max_lane_clock)} << 32 | std::uint64_t{launch} << 56;
  }
  /// The half of a record that holds `state`, for of_halves.
  [[gnu::always_inline]] static std::uint64_t state_half(std::uint32_t state) { return std::uint64_t{state} << 32; }
  /// A record of `site` of a whole word in the state of `state_half`, from
  /// its thread_half: the constructor below, with the state's shift made
  /// once for many records.
  [[gnu::always_inline]] static race_record of_halves(std::uint32_t site, std::uint64_t state_half,
                                                      std::uint64_t thread_half) {
    race_record r;
    r.site_and_state_ = site | state_half;
    r.rest_ = thread_half;
    return r;
  }
  /// A record of `site` in `state` from its thread_half.
  [[gnu::always_inline]] race_record(std::uint32_t site, std::uint32_t state, std::uint32_t untouched,
                                     std::uint64_t thread_half)
      : site_and_state_(site | untouched << untouched_shift | std::uint64_t{state} << 32), rest_(thread_half) {}

  std::uint32_t site() const { return static_cast<std::uint32_t>(site_and_state_) & max_site; }
  std::uint32_t state() const { return static_cast<std::uint32_t>(site_and_state_ >> 32); }
  unsigned thread() const { return rest_ & 1023; }
  bool write() const { return rest_ >> 10 & 1; }
  std::uint32_t release_clock() const { return static_cast<std::uint32_t>(rest_ >> 11) & max_release_clock; }
  std::uint32_t lane_clock() const { return static_cast<std::uint32_t>(rest_ >> 32) & max_lane_clock; }
  std::uint32_t launch() const { return static_cast<std::uint32_t>(rest_ >> 56); }
  /// launch(), read as the one byte it is where that is the record's last:
  /// a compare of that byte needs no constant in a register.
  std::uint8_t launch_byte() const {
    if constexpr (std::endian::native == std::endian::little) {
      std::uint8_t tag;
      std::memcpy(&tag, reinterpret_cast<const unsigned char*>(&rest_) + 7, 1);
      return tag;
    } else {
      return static_cast<std::uint8_t>(launch());
    }
  }
  void forget() { rest_ &= ~(std::uint64_t{0xff} << 56); }
  /// forget() as a store of the byte launch_byte() reads.
  void forget_byte() {
    if constexpr (std::endian::native == std::endian::little) {
      unsigned char none = 0;
      std::memcpy(reinterpret_cast<unsigned char*>(&rest_) + 7, &none, 1);
    } else {
      forget();
    }
  }
  /// An atomic write (recorded on distributed shared memory only): it races
  /// with plain accesses, never with another atomic.
  bool atomic() const { return site_and_state_ & atomic_bit; }
  /// Whether the access touched every byte of its word.
  bool whole_word() const { return (static_cast<std::uint32_t>(site_and_state_) >> untouched_shift & 0xf) == 0; }
  void mark_atomic() { site_and_state_ |= atomic_bit; }
  /// Whether this access and one that left `untouched` of the word alone
  /// touched a byte in common: two accesses to different bytes of a word
  /// (neighbouring threads' `char` or `short` elements) never race.
  [[gnu::always_inline]] bool overlaps(std::uint32_t untouched) const {
    return (static_cast<std::uint32_t>(site_and_state_) >> untouched_shift | untouched) != 0xf;
  }

  /// Copies `from` in two 8-byte stores: a record is made in two registers,
  /// and a 16-byte copy of it through the stack stalled on a failed
  /// store-to-load forwarding.
  [[gnu::always_inline]] void store(const race_record& from) {
    std::uint64_t first = from.site_and_state_, second = from.rest_;
    asm("" : "+r"(first), "+r"(second));  // two registers, not a vector one
    site_and_state_ = first;
    rest_ = second;
  }

 private:
  // The site's bits: 27, then the untouched bytes' 4 and the atomic bit.
  // 2^27 sites would take gigabytes of code (race_sites::id clamps).
  static constexpr std::uint32_t untouched_shift = 27;
  static constexpr std::uint32_t atomic_bit = 1u << 31;

 public:
  static constexpr std::uint32_t max_site = (1u << untouched_shift) - 1;

 private:
  static constexpr std::uint32_t max_release_clock = (1u << 21) - 1;
  static constexpr std::uint32_t max_lane_clock = (1u << 24) - 1;
  std::uint64_t site_and_state_ = 0;
  std::uint64_t rest_ = 0;  // thread (10 bits), write (1), release clock (21); lane clock (24), launch (8)
};

/// The tags that launches (and copies and sets) give their records: 1 to
/// 255, each taken by a launch as its first block starts and given back
/// when it finishes, the one given back longest ago first, so that no two
/// running launches share one while fewer than 255 run (past
/// that, a tag goes to two: a page that both use is checked for the first
/// only, race_worker::own). A finished launch's records keep its tag, and
/// the launch 254 launches later that takes it again forgets them in the
/// pages it touches (race_worker::own).
class race_launch_tags {
 public:
  static std::uint32_t take() {
    race_launch_tags& t = instance();
    std::lock_guard lock(t.mutex_);
    if (t.free_.empty()) return static_cast<std::uint32_t>(t.shared_++ % 255 + 1);
    std::uint32_t tag = t.free_.front();
    t.free_.pop_front();
    return tag;
  }
  static void give_back(std::uint32_t tag) {
    race_launch_tags& t = instance();
    std::lock_guard lock(t.mutex_);
    if (std::find(t.free_.begin(), t.free_.end(), tag) == t.free_.end()) t.free_.push_back(tag);
  }

 private:
  race_launch_tags() {
    for (std::uint32_t tag = 1; tag < 256; ++tag) free_.push_back(tag);
  }
  // Never destroyed: a launch may finish during static destruction.
  static race_launch_tags& instance() {
    static auto* tags = new race_launch_tags;
    return *tags;
  }
  std::mutex mutex_;
  std::deque<std::uint32_t> free_;
  std::uint64_t shared_ = 0;
};

/// Where a block stood in the synchronisation of its block and grid when a
/// record was made.
struct race_block_state {
  std::uint64_t block = 0;
  std::uint32_t epoch = 0;
  std::uint32_t group_epoch = 0;
  std::uint32_t fences = 0;
};

/// A launch's race_block_states, by handle: a new one when a block starts
/// and after each of its barriers, grid syncs and __threadfence() calls that
/// a traced access follows. Appended by every worker, read by any without a
/// lock (a record's state was stored before the record, which is published
/// under its page's lock or stays on its worker).
class race_block_states {
 public:
  race_block_states() = default;
  ~race_block_states() {
    for (auto& chunk : chunks_) delete[] chunk.load(std::memory_order_relaxed);
  }
  race_block_states(const race_block_states&) = delete;
  race_block_states& operator=(const race_block_states&) = delete;

  /// A handle to a copy of `state`; 0 once the table is full (the check
  /// then stops recording the launch's accesses).
  std::uint32_t add(const race_block_state& state) {
    std::uint64_t id = next_.fetch_add(1, std::memory_order_relaxed);
    if (id > std::numeric_limits<std::uint32_t>::max() - first_chunk) return 0;
    auto [chunk_index, offset] = place(static_cast<std::uint32_t>(id));
    std::atomic<race_block_state*>& chunk = chunks_[chunk_index];
    race_block_state* states = chunk.load(std::memory_order_acquire);
    if (!states) {
      auto* made = new race_block_state[first_chunk << chunk_index];
      if (chunk.compare_exchange_strong(states, made, std::memory_order_acq_rel))
        states = made;
      else
        delete[] made;
    }
    states[offset] = state;
    return static_cast<std::uint32_t>(id);
  }
  const race_block_state& operator[](std::uint32_t id) const {
    auto [chunk_index, offset] = place(id);
    return chunks_[chunk_index].load(std::memory_order_acquire)[offset];
  }

 private:
  // Chunks double in size, the first of 64 states (1.5 KiB), so that a
  // short launch allocates little and the largest needs no more than 26.
  // (A first chunk of 1024, 24 KiB zeroed and page-faulted per launch, was
  // 3 % of a vector add's launch at 2^14 threads, which adds 64 states.)
  static constexpr unsigned first_chunk_log2 = 6;
  static constexpr std::uint32_t first_chunk = 1u << first_chunk_log2;
  static std::pair<unsigned, std::uint32_t> place(std::uint32_t id) {
    std::uint64_t n = std::uint64_t{id} + first_chunk;
    unsigned top = static_cast<unsigned>(std::bit_width(n)) - 1;
    return {top - first_chunk_log2, static_cast<std::uint32_t>(n - (std::uint64_t{1} << top))};
  }
  std::atomic<std::uint64_t> next_{1};  // 0 is no state
  std::array<std::atomic<race_block_state*>, 33 - first_chunk_log2> chunks_{};
};

/// The bytes of the 4-byte word at `word` that an access of `size` bytes at
/// `a` leaves alone, one bit each (bit 0 the lowest address): 0 where it
/// covers the word, as 4-, 8- and 16-byte accesses mostly do.
[[gnu::always_inline]] inline std::uint32_t race_untouched_bytes(std::uintptr_t word, std::uintptr_t a, unsigned size) {
  unsigned begin = a > word ? static_cast<unsigned>(a - word) : 0;
  unsigned end = a + size < word + 4 ? static_cast<unsigned>(a + size - word) : 4;
  return 0xfu & ~((1u << end) - (1u << begin));
}

/// The same for an access that lies in one word: a branch that 4-byte
/// accesses, the most, take at once (race_untouched_bytes's arithmetic
/// made a global access 15 % dearer).
[[gnu::always_inline]] inline std::uint32_t race_untouched_bytes_in_word(std::uintptr_t a, unsigned size) {
  if (size >= 4) [[likely]]
    return 0;
  return 0xfu ^ ((1u << size) - 1) << (a & 3);
}

/// The code addresses of traced accesses, each given a number once for the
/// process (records keep the number; a worker caches the ones it met).
class race_sites {
 public:
  static std::uint32_t id(std::uintptr_t pc) {
    race_sites& s = instance();
    std::lock_guard lock(s.mutex_);
    if (auto known = s.ids_.find(pc); known != s.ids_.end()) return known->second;
    if (s.pcs_.size() > race_record::max_site) return 0;  // no site: the report names no line
    s.ids_.emplace(pc, static_cast<std::uint32_t>(s.pcs_.size()));
    s.pcs_.push_back(pc);
    return static_cast<std::uint32_t>(s.pcs_.size() - 1);
  }
  static std::uintptr_t pc(std::uint32_t id) {
    race_sites& s = instance();
    std::lock_guard lock(s.mutex_);
    return id < s.pcs_.size() ? s.pcs_[id] : 0;
  }

 private:
  // Never destroyed: a worker may report during static destruction.
  static race_sites& instance() {
    static auto* sites = new race_sites;
    return *sites;
  }
  std::mutex mutex_;
  std::vector<std::uintptr_t> pcs_{0};  // site 0 is no access
  std::unordered_map<std::uintptr_t, std::uint32_t> ids_;
};

/// The shadows of consecutive 4-byte words of global memory: per word, the
/// last write and the two latest reads since, by different threads (one
/// other than any later writer is enough to find a write-after-read). Each
/// is an array of its own, made when first written to: a streaming kernel's
/// page of global memory holds one of the three (an input's latest reads,
/// an output's writes), and its first access to a word writes 16 bytes
/// beside its neighbours'. A page's shadow is reused by later launches,
/// whose records' tags tell them apart.
class race_shadow {
 public:
  enum part : unsigned { writes, latest_reads, earlier_reads };

  static constexpr std::size_t words = race_shadow_blocks::bytes / sizeof(race_record);

  race_shadow() = default;
  race_shadow(const race_shadow&) = delete;
  race_shadow& operator=(const race_shadow&) = delete;
  ~race_shadow() {
    std::vector<void*> blocks;
    give_back_parts(blocks);
    race_shadow_blocks::give_back(blocks);
  }

  /// Forgets every record whose launch tag is `stale` (race_worker::own).
  void forget_launches(const std::array<bool, 256>& stale) {
    for (race_record* records : parts_)
      if (records)
        for (std::size_t w = 0; w < words; ++w)
          if (stale[records[w].launch()]) records[w].forget();
  }

  /// Forgets every record: the parts' blocks join `blocks`, to be given
  /// back to race_shadow_blocks (outside the caller's lock).
  void give_back_parts(std::vector<void*>& blocks) {
    for (race_record*& records : parts_)
      if (records) {
        blocks.push_back(records);
        records = nullptr;
      }
  }

  /// The bytes of its parts made so far.
  std::size_t bytes() const {
    std::size_t made = 0;
    for (const race_record* records : parts_)
      if (records) made += race_shadow_blocks::bytes;
    return made;
  }

  /// The word's record of `which`, or null where that part was never made.
  [[gnu::always_inline]] race_record* find(part which, std::size_t word) {
    race_record* records = parts_[which];
    return records ? records + word : nullptr;
  }
  /// find() of the word at `offset` bytes into the page (a multiple of 4):
  /// its record's offset is 4 times that, a scaled address, where the
  /// word's number took a shift and a mask more (the compiler folds
  /// offset / 4 * 16 back into them).
  [[gnu::always_inline]] race_record* find_at_offset(part which, std::size_t offset) {
    static_assert(sizeof(race_record) == 16);
    race_record* records = parts_[which];
    return records ? reinterpret_cast<race_record*>(reinterpret_cast<char*>(records) + offset * 4) : nullptr;
  }
  /// The word's record of `which`, for writing.
  [[gnu::always_inline]] race_record& make(part which, std::size_t word) {
    race_record*& records = parts_[which];
    if (!records) [[unlikely]]
      records = make_part();
    return records[word];
  }

 private:
  // A part of no records, in a block that an evicted page may have used.
  [[gnu::noinline]] static race_record* make_part() {
    static_assert(std::is_trivially_copyable_v<race_record> && std::is_trivially_destructible_v<race_record>);
    void* block = race_shadow_blocks::take();
    std::memset(block, 0, race_shadow_blocks::bytes);
    return std::launder(static_cast<race_record*>(block));
  }
  std::array<race_record*, 3> parts_{};
};

/// The shadow of a block's __shared__ memory (the static TLS block's words,
/// or the dynamic buffer's), reused by the worker's blocks without
/// clearing: per 4-byte word, in one cache line, the generation of the
/// block that made its records (another's are stale, as good as none), the
/// same three records as race_shadow's, and whether the word is weft's own
/// thread-local, untraced. A tiled matmul's check is mostly this: a
/// __shared__ access reads its word's flag, stamp and records from one
/// line, where five arrays were five.
class race_shared_shadow {
 public:
  explicit race_shared_shadow(std::size_t words) : words_(words) {}

  std::size_t size() const { return words_.size(); }
  // Only between blocks: the records of the blocks before are stale anyway.
  void resize(std::size_t words) { words_.resize(words); }

  [[gnu::always_inline]] bool untraced(std::size_t word) const { return words_[word].untraced; }
  void set_untraced(std::size_t word) { words_[word].untraced = true; }

  /// Whether the word's records are of `generation`.
  [[gnu::always_inline]] bool current(std::size_t word, std::uint64_t generation) const {
    return words_[word].generation == generation;
  }

  /// Forgets the word's records unless they are of `generation`.
  [[gnu::always_inline]] void renew(std::size_t word, std::uint64_t generation) {
    shadow_word& w = words_[word];
    if (w.generation == generation) return;
    w.generation = generation;
    for (race_record& r : w.records) r.forget();
  }

  /// The word's record of `which` (never null: check() takes either shadow).
  [[gnu::always_inline]] race_record* find(race_shadow::part which, std::size_t word) {
    return &words_[word].records[which];
  }
  [[gnu::always_inline]] race_record& make(race_shadow::part which, std::size_t word) {
    return words_[word].records[which];
  }

 private:
  struct alignas(64) shadow_word {
    std::uint64_t generation = 0;
    std::array<race_record, 3> records;  // by race_shadow::part
    bool untraced = false;
  };
  std::vector<shadow_word> words_;
};

enum class race_kind { write_after_write, read_after_write, write_after_read };

/// Where a word lies, for the report.
enum class race_space { shared, dynamic_shared, global, static_global, distributed_shared };

/// Address ranges [begin, end), sorted.
using race_ranges = std::vector<std::pair<std::uintptr_t, std::uintptr_t>>;

/// Set by the runtime layer: the live weft allocations of `device`.
inline race_ranges (*race_list_allocations)(int device) = nullptr;

/// Hazards reported in this process (each pair of source locations once).
inline std::atomic<std::uint64_t>& race_hazard_count() {
  static std::atomic<std::uint64_t> count{0};
  return count;
}

/// A range of the static TLS block that is weft's own state, not a
/// __shared__ variable: the race check ignores it. Registered by the headers
/// that own such thread-locals which inline device code writes; each worker
/// resolves them for itself.
struct race_untraced_thread_local {
  const void* (*address)();
  std::size_t bytes;
};
inline std::vector<race_untraced_thread_local>& race_untraced_thread_locals() {
  static std::vector<race_untraced_thread_local> all;
  return all;
}
inline bool race_untraced(const void* (*address)(), std::size_t bytes) {
  race_untraced_thread_locals().push_back({address, bytes});
  return true;
}

/// What outlives a launch in the global shadow, for the launches that meet
/// its records: whom CUDA orders it by (its place, race_chains, or for a
/// launch made by a kernel, its host-launched ancestor's: family), its tag, its shape and
/// name for a report, and its blocks' states, which its records name.
struct race_launch_identity {
  std::uint64_t serial = 0;
  std::uint64_t family = 0;
  std::atomic<std::uint32_t> tag{0};  // 0 until its first block starts (race_launch::tag)
  dim3 grid, block;
  std::atomic<bool> finished{false};
  bool command = false;  // a copy or set (race_stream_copy.hpp), not a kernel
  race_block_states states;
  // The launches CUDA orders before it: its command's while it runs, its
  // own copy once it has finished; none (a unit test's launch): all.
  std::atomic<const race_launch_order*> order{nullptr};
  race_launch_order kept_order;

  /// Whether CUDA orders the launch of `family` before this one.
  bool follows(std::uint64_t family) const {
    const race_launch_order* o = order.load(std::memory_order_acquire);
    return !o || o->knows(family);
  }

  /// The kernel's name: asked of the launch while it runs, kept from then.
  std::string kernel_name() {
    std::lock_guard lock(name_mutex);
    if (name.empty() && naming) name = naming();
    return name.empty() ? std::string("another kernel") : name;
  }
  /// The launch is done: its name is asked for now (`named`) or never.
  void stop_naming(bool named) {
    std::lock_guard lock(name_mutex);
    if (named && name.empty() && naming) name = naming();
    naming = nullptr;
  }
  std::mutex name_mutex;
  std::function<std::string()> naming;  // the launch's, while it runs
  std::string name;
};

class race_launch;
class race_worker;
struct race_command_span;
/// The launch whose blocks the calling worker is about to run.
inline thread_local race_launch* race_launching = nullptr;

/// One launch under the race check: the global shadow pages it uses, and
/// each block's count of __threadfence() calls, with how many of them a
/// device-scope atomic after them published to other blocks.
class race_launch {
 public:
  race_launch(dim3 grid, dim3 block, int device, std::function<std::string()> kernel_name)
      : grid_(grid),
        block_(block),
        device_(device),
        kernel_name_(std::move(kernel_name)),
        fences_(static_cast<std::size_t>(std::min<std::uint64_t>(volume(grid), max_fence_counters))),
        published_(fences_.size()) {
    identity_->serial = serial;
    // A launch from device code is ordered as its host-launched ancestor;
    // one linked into a stream is placed there (place), others stand alone.
    identity_->family = race_launching ? race_launching->family() : race_chains::place_alone(serial);
    identity_->grid = grid;
    identity_->block = block;
    identity_->naming = kernel_name_;
  }

  /// Tells launches apart where an address cannot: a new launch may be
  /// allocated where a finished one was.
  const std::uint64_t serial = next_serial();

  dim3 grid() const { return grid_; }
  dim3 block() const { return block_; }
  int device() const { return device_; }
  std::string kernel_name() const { return kernel_name_(); }
  std::uint64_t family() const { return identity_->family; }
  race_launch_identity* identity() const { return identity_.get(); }
  /// The tag of its records (race_launch_tags), taken as its first block
  /// starts, so that launches enqueued far ahead of their turn hold none.
  std::uint32_t tag() {
    std::uint32_t taken = identity_->tag.load(std::memory_order_acquire);
    if (taken != 0) return taken;
    std::uint32_t mine = race_launch_tags::take();
    if (identity_->tag.compare_exchange_strong(taken, mine, std::memory_order_acq_rel)) return mine;
    race_launch_tags::give_back(mine);
    return taken;
  }
  /// Its place among the commands CUDA orders (race_chains), given as its
  /// command is linked in, before any block runs.
  void place(std::uint64_t place) { identity_->family = place; }
  std::shared_ptr<race_launch_identity> shared_identity() const { return identity_; }

  /// The launches CUDA orders before this one (the command's, read while
  /// the launch runs). A launch without one (the unit tests') is ordered
  /// after every other.
  void order_after(const race_launch_order* before) {
    before_ = before;
    identity_->order.store(before, std::memory_order_release);
  }
  const race_launch_order* order() const { return before_; }

  /// The launch has clusters of more than one block, whose threads may
  /// reach each other's __shared__ memory (cluster.map_shared_rank): its
  /// blocks' __shared__ records then name their block's state, and each
  /// block's worker is found here by the blocks that map its memory.
  void set_clustered() { clustered_ = true; }
  bool clustered() const { return clustered_; }
  void cluster_block_started(std::uint64_t block, race_worker* worker) {
    std::lock_guard lock(cluster_mutex_);
    cluster_workers_[block] = worker;
  }
  /// The worker that runs `block`, once its check has started; null before.
  race_worker* cluster_worker(std::uint64_t block) {
    std::lock_guard lock(cluster_mutex_);
    auto at = cluster_workers_.find(block);
    return at == cluster_workers_.end() ? nullptr : at->second;
  }

  bool knows(const race_launch_identity& earlier) const {
    return !before_ || earlier.family == identity_->family || before_->knows(earlier.family);
  }

  void fence(std::uint64_t block) {
    stop_saturating_reads();
    fence_counter(block).fetch_add(1, std::memory_order_acq_rel);
  }

  /// Whether a read may still leave no record where two blocks' reads of
  /// its word are kept (race_worker::note_saturated_read): until a block
  /// fences, arrives at a barrier in global memory or passes a grid or
  /// cluster sync. After those, a block can be ordered after the kept
  /// reads without being ordered after one left unrecorded.
  bool reads_saturate() const { return reads_saturate_.load(std::memory_order_relaxed); }
  void stop_saturating_reads() {
    if (reads_saturate_.load(std::memory_order_relaxed)) reads_saturate_.store(false, std::memory_order_relaxed);
  }
  /// The block's fences that an atomic of device or system scope followed:
  /// fence-plus-flag, where the flag is what another block can see (a
  /// block-scope atomic synchronises its own block only).
  std::uint32_t published_fences(std::uint64_t block) const {
    return published_[block % published_.size()].load(std::memory_order_acquire);
  }
  void publish_fences(std::uint64_t block) {
    std::atomic<std::uint32_t>& published = published_[block % published_.size()];
    std::uint32_t fenced = fence_counter(block).load(std::memory_order_acquire);
    std::uint32_t was = published.load(std::memory_order_relaxed);
    while (was < fenced && !published.compare_exchange_weak(was, fenced, std::memory_order_acq_rel)) {
    }
  }
  std::atomic<std::uint32_t>& fence_counter(std::uint64_t block) { return fences_[block % fences_.size()]; }
  const std::atomic<std::uint32_t>& fence_counter(std::uint64_t block) const { return fences_[block % fences_.size()]; }

  /// The weft allocations of the launch's device, as they were when its
  /// first block looked (a kernel allocates none).
  const race_ranges& allocations() {
    std::call_once(allocations_listed_, [&] {
      if (race_list_allocations) allocations_ = race_list_allocations(device_);
    });
    return allocations_;
  }

  /// The launch's blocks are done: its pages' records stay for the
  /// launches that CUDA does not order after it, under its name
  /// (`named`: the kernel's name can still be asked for).
  void finish(bool named) {
    if (identity_->finished.load(std::memory_order_relaxed)) return;
    std::lock_guard lock(pages_mutex_);
    identity_->stop_naming(named && !pages_.empty());
    if (before_) {
      identity_->kept_order = *before_;
      identity_->order.store(&identity_->kept_order, std::memory_order_release);
    }
    identity_->finished.store(true, std::memory_order_release);
    if (std::uint32_t tag = identity_->tag.load(std::memory_order_acquire)) race_launch_tags::give_back(tag);
    shadow_pages::release(pages_);
    pages_.clear();
    for (std::atomic<page*>& recent : recent_pages_) recent.store(nullptr, std::memory_order_relaxed);
  }
  ~race_launch() { finish(false); }

  /// A copy or set is done with the page that holds `address` before it
  /// finishes (race_stream_copy.hpp): it joins the retained pages now.
  void done_with_page(std::uintptr_t address) {
    std::lock_guard lock(pages_mutex_);
    std::uintptr_t index = address / page::bytes;
    page* p = pages_.find(index);
    if (!p) return;
    std::atomic<page*>& recent = recent_pages_[index % recent_pages_.size()];
    if (recent.load(std::memory_order_relaxed) == p) recent.store(nullptr, std::memory_order_relaxed);
    shadow_pages::release(*p);
    pages_.erase(index);
  }

  /// The launch's blocks' synchronisation states, which its records name.
  race_block_states& states() { return identity_->states; }
  const race_block_states& states() const { return identity_->states; }

  /// A lock of a global shadow page, or of a segment of one, and the
  /// worker that holds it: a worker keeps the locks it took until another
  /// asks for one of them (or the worker may wait for other blocks:
  /// race_worker::let_go_of_pages).
  struct page_lock {
    std::atomic_flag locked = ATOMIC_FLAG_INIT;
    std::atomic<race_page_holder*> holder{nullptr};
  };

  /// The shadow of a 4 KiB page of global memory (16 KiB per kind of
  /// access made to it, up to 48: made only for pages that launches
  /// touch), shared by the launches that use it: its words, and a lock,
  /// since blocks run on several workers at once.
  struct page {
    static constexpr std::uintptr_t bytes = 4096;
    static_assert(race_shadow::words == bytes / 4);
    // The whole page's lock. A page that workers take from each other for
    // different words (neighbouring blocks' parts of it, as a histogram's
    // blocks read their input) is locked by segments instead, each
    // worker holding those of its words (race_worker::segment): in
    // segments, `whole` is held with every segment, by a worker that
    // changes the page's owners or records a copy across it.
    page_lock whole;
    std::atomic<bool> segmented{false};
    // Under `whole`: how many times in a row a worker waited for it for a
    // word that no other block of its launch had touched.
    unsigned false_sharing = 0;
    // Under shadow_pages' mutex: the running launches that use it, and
    // whether it waits among the retained pages. In the first cache line
    // with the lock, which the taker takes next, and with the parts and
    // the tags that an eviction reads: after the owners, 4 KiB into the
    // page, they were two cache misses more a page and launch.
    std::uintptr_t index = 0;
    unsigned users = 0;
    bool retained = false;
    std::size_t retained_bytes = 0;  // its size when it was retained
    race_shadow words;
    // By launch tag, under the lock: the tags that records may carry (a
    // new owner forgets those of the last one with its tag), and the
    // launch whose records carry each (a record whose tag has none is
    // stale).
    std::array<std::uint64_t, 4> tagged{};
    std::array<std::shared_ptr<race_launch_identity>, 256> owners;
    // Whether every word of the page is saturated with reads of one
    // launch (race_worker::note_saturated_read): its later reads then need
    // no record, nor the page's lock.
    struct read_saturation {
      // The launch whose reads need no record; read without the lock.
      std::atomic<const race_launch_identity*> complete{nullptr};
      // Under the lock: the launch whose saturated words `words` marks,
      // their count, and whether a record changed since the page was
      // complete (it is not again for that launch).
      const race_launch_identity* launch = nullptr;
      unsigned count = 0;
      bool spoiled = false;
      std::array<std::uint64_t, race_shadow::words / 64> words{};
      // A record may change: the launch's reads are recorded again.
      void spoil() {
        complete.store(nullptr, std::memory_order_relaxed);
        spoiled = true;
      }
      void start(const race_launch_identity* counting) {
        complete.store(nullptr, std::memory_order_relaxed);
        launch = counting;
        count = 0;
        spoiled = false;
        words = {};
      }
    };
    read_saturation saturation;
    static constexpr std::uintptr_t segment_bytes = 256;  // a block of 64 threads' words
    struct alignas(64) segment_lock : page_lock {};       // a line each: two workers hold two
    std::array<segment_lock, bytes / segment_bytes> segments;
  };

  /// Calls `use` with the releases that threads of `block` made through
  /// atomics to global and static words, by word. Kept per block: between
  /// blocks, the fences' count already orders whatever a release through an
  /// atomic would (a release needs a fence), and a clock of every releasing
  /// thread of the grid, joined at each atomic, would cost the square of
  /// the grid's size (a counter that each block bumps after a fence).
  template <class Use>
  void with_atomic_words(std::uint64_t block, Use use) {
    std::lock_guard lock(atomic_words_mutex_);
    use(atomic_words_[block]);
  }

  /// Calls `use` with the phases of the barrier at `barrier` in global
  /// memory (a cuda::barrier of device scope that several blocks arrive at,
  /// on several workers: under a lock).
  template <class Use>
  void with_barrier_phases(const void* barrier, Use use) {
    std::lock_guard lock(barrier_phases_mutex_);
    use(barrier_phases_[barrier]);
  }
  /// The same lock, held by an arrival from its change of the barrier's
  /// state to its record (race_worker::barrier_arrival_begins), and the
  /// phases under it.
  std::mutex& barrier_phases_mutex() { return barrier_phases_mutex_; }
  race_barrier_phases& barrier_phases_locked(const void* barrier) { return barrier_phases_[barrier]; }

  /// The shadow of the page that holds `address`, shared with the other
  /// launches that use it (made when first asked for).
  [[gnu::noinline]] page& page_of(std::uintptr_t address) {
    std::uintptr_t index = address / page::bytes;
    // Without the lock where another worker took the page lately: a
    // streaming kernel's blocks alternate between the workers, and each
    // page was looked up by both, one waiting for the other's lock. A
    // page of this launch keeps its index while the launch runs (it has a
    // user), so that the index read tells a slot's page for sure.
    std::atomic<page*>& recent = recent_pages_[index % recent_pages_.size()];
    if (page* p = recent.load(std::memory_order_acquire); p && p->index == index) return *p;
    std::lock_guard lock(pages_mutex_);
    page* p = pages_.find(index);
    if (!p) {
      p = &shadow_pages::take(index);
      pages_.insert(index, p);
    }
    recent.store(p, std::memory_order_release);
    return *p;
  }

 private:
  // The process's global shadow pages, by page of memory. A page that no
  // running launch uses is retained, records and all, for the launches
  // that CUDA does not order after the ones that made them, up to 128 MiB
  // of shadow (about 6500 pages of a streaming kernel, which make one of
  // the three parts each, 2500 with all three); past that, the one
  // retained longest is evicted (its records are lost: a race can go
  // unseen, none is invented), and is the first to go to a new address,
  // its parts' blocks given back for new parts. The limit was 672 pages:
  // a vector add over 2^20 floats (3072 pages) then made and zeroed 2400
  // pages at every launch. A larger one would not pay for a streaming
  // kernel over more memory than it: reading an earlier launch's records
  // back costs more than zeroing new ones (retaining 4 GiB made a vector
  // add of 2^24 floats' launch 1.5 times dearer, 2026-12-01).
  class shadow_pages {
   public:
    static page& take(std::uintptr_t index) {
      shadow_pages& s = instance();
      std::lock_guard lock(s.mutex_);
      page* p = s.pages_.find(index);
      if (!p) {
        p = s.reusable().release();
        p->index = index;
        s.pages_.insert(index, p);
      }
      ++p->users;
      return *p;
    }
    /// Gives back a launch's pages, under one lock.
    static void release(const race_page_table<page>& pages) {
      release_with([&](auto release_one) { pages.for_each([&](std::uintptr_t, page* p) { release_one(*p); }); });
    }
    static void release(page& p) {
      release_with([&](auto release_one) { release_one(p); });
    }

   private:
    static constexpr std::size_t max_retained_bytes = std::size_t{128} << 20;
    // Calls `release_all` with the function that releases one page, under
    // the lock; the launches that evictions drop are destroyed after it.
    template <class ReleaseAll>
    static void release_with(ReleaseAll release_all) {
      shadow_pages& s = instance();
      std::vector<std::shared_ptr<race_launch_identity>> dropped;
      std::lock_guard lock(s.mutex_);
      release_all([&](page& p) { s.release_locked(p, dropped, s.evicted_blocks_); });
      race_shadow_blocks::give_back(s.evicted_blocks_);
    }
    // Never destroyed: a launch kept alive to the end (by a graph, say) may
    // give its pages back during static destruction.
    static shadow_pages& instance() {
      static auto* pages = new shadow_pages;
      return *pages;
    }
    void release_locked(page& p, std::vector<std::shared_ptr<race_launch_identity>>& dropped,
                        std::vector<void*>& blocks) {
      if (--p.users != 0 || p.retained) return;
      p.retained = true;
      p.retained_bytes = sizeof(page) + p.words.bytes();
      retained_bytes_ += p.retained_bytes;
      retained_.push_back(p.index);
      while (retained_bytes_ > max_retained_bytes)
        if (std::unique_ptr<page> evicted = evict_oldest(dropped, blocks)) spare_.push_back(std::move(evicted));
    }
    // A page for a new address: one evicted past the retained pages' limit,
    // or a new one; a retained page stays until that limit evicts it, so
    // that a launch or copy that touches new memory does not take the
    // records of one it may race with.
    std::unique_ptr<page> reusable() {
      if (spare_.empty()) return std::make_unique<page>();
      std::unique_ptr<page> p = std::move(spare_.back());
      spare_.pop_back();
      // The next one's first line, which the next take writes: an evicted
      // page is long out of the cache.
      if (!spare_.empty()) __builtin_prefetch(spare_.back().get(), 1);
      return p;
    }
    // Takes the page retained longest out of the map, if no launch took it
    // again meanwhile (null then: it stays, no longer retained), as a new
    // page: no owners, and its parts' blocks in `blocks`. Its owners are
    // found by the tags its records may carry (page::tagged), not among
    // all 256: reading them all was the most of an eviction.
    std::unique_ptr<page> evict_oldest(std::vector<std::shared_ptr<race_launch_identity>>& dropped,
                                       std::vector<void*>& blocks) {
      std::uintptr_t index = retained_.front();
      retained_.pop_front();
      page* kept = pages_.find(index);
      kept->retained = false;
      retained_bytes_ -= kept->retained_bytes;
      if (kept->users != 0) return nullptr;
      pages_.erase(index);
      std::unique_ptr<page> p(kept);
      for (unsigned word = 0; word < p->tagged.size(); ++word)
        for (std::uint64_t bits = p->tagged[word]; bits != 0; bits &= bits - 1) {
          std::shared_ptr<race_launch_identity>& owner = p->owners[word * 64 + std::countr_zero(bits)];
          // Pages evicted in a row mostly have the same owners: one of
          // each kept in `dropped`, to destroy after the lock, is enough;
          // the others are not the last and can go now.
          if (!owner) continue;
          if (std::find(dropped.begin(), dropped.end(), owner) != dropped.end())
            owner.reset();
          else
            dropped.push_back(std::move(owner));
        }
      p->tagged = {};
      p->saturation.start(nullptr);
      p->segmented.store(false, std::memory_order_relaxed);
      p->false_sharing = 0;
      p->words.give_back_parts(blocks);
      return p;
    }
    std::mutex mutex_;
    race_page_table<page> pages_;  // owns its pages
    std::deque<std::uintptr_t> retained_;
    std::size_t retained_bytes_ = 0;
    // Evicted pages, for new addresses: as many as the pages once made, at
    // most, which the process needed anyway.
    std::vector<std::unique_ptr<page>> spare_;
    // The evicted pages' parts, on their way to race_shadow_blocks: kept
    // for its capacity (a vector grown anew for every launch's 40,000 was
    // mapped and faulted in anew).
    std::vector<void*> evicted_blocks_;
  };

  // Blocks beyond this share counters (a fence then counts for several
  // blocks: a race can go unseen, none is invented).
  static constexpr std::uint64_t max_fence_counters = 1u << 20;
  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> counter{0};
    return counter.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  std::shared_ptr<race_launch_identity> identity_ = std::make_shared<race_launch_identity>();
  dim3 grid_, block_;
  int device_;
  std::function<std::string()> kernel_name_;
  const race_launch_order* before_ = nullptr;
  bool clustered_ = false;
  std::mutex cluster_mutex_;
  std::unordered_map<std::uint64_t, race_worker*> cluster_workers_;
  std::once_flag allocations_listed_;
  race_ranges allocations_;
  std::mutex pages_mutex_;
  race_page_table<page> pages_;
  std::array<std::atomic<page*>, 256> recent_pages_{};  // by page number, direct-mapped: page_of
  std::mutex atomic_words_mutex_;
  std::unordered_map<std::uint64_t, std::unordered_map<std::uintptr_t, race_clock>> atomic_words_;
  std::mutex barrier_phases_mutex_;
  std::unordered_map<const void*, race_barrier_phases> barrier_phases_;
  std::vector<std::atomic<std::uint32_t>> fences_;
  std::vector<std::atomic<std::uint32_t>> published_;  // per fence counter: its count at the last publishing atomic
  std::atomic<bool> reads_saturate_{true};
};

/// A worker's race-check state for the block it runs.
class race_worker {
  struct cached_page;  // a global page as the worker remembers it (below)

 public:
  race_worker() = default;
  race_worker(const race_worker&) = delete;
  race_worker& operator=(const race_worker&) = delete;
  ~race_worker() {
    let_go_of_pages();
    holder_->worker_gone();
  }

  /// A block of `launch` starts on this worker.
  void start_block(race_launch* launch, std::uint64_t block, unsigned threads, std::byte* dynamic_shared,
                   std::size_t dynamic_bytes) {
    if (!static_tls_found_) find_static_tls();
    if (held_count_ != 0) let_go_of_pages();
    if (launch != launch_ || launch->serial != launch_serial_) {
      launch_serial_ = launch->serial;
      ranges_ = {};
      pages_.fill({});
      ordered_by_tag_.fill(nullptr);
    }
    launch_ = launch;
    block_ = block;
    state_ = 0;
    stop_streaming();
    launch_tag_ = launch->tag();
    identity_ = launch->identity();
    // The dynamic shared buffer may have moved into a gap.
    private_begin_ = private_end_ = other_private_begin_ = other_private_end_ = 0;
    fences_ = &launch->fence_counter(block);
    ++generation_;
    threads_ = threads;
    epoch_ = 0;
    group_epoch_ = 0;
    unsigned warps = (threads + 31) / 32;
    // A warp's clocks are stale by its generation, as what each thread
    // knows is (below): nothing to clear, and the vectors only grow (an
    // assign per block, an out-of-line traced loop, was 2 % of a vector
    // add's launch at 2^14 threads).
    if (warp_clocks_.size() < static_cast<std::size_t>(warps) * 32 * 32)
      warp_clocks_.resize(static_cast<std::size_t>(warps) * 32 * 32);
    if (warp_clock_generation_.size() < warps) warp_clock_generation_.resize(warps, 0);
    dynamic_begin_ = reinterpret_cast<std::uintptr_t>(dynamic_shared);
    dynamic_end_ = dynamic_begin_ + dynamic_bytes;
    if (dynamic_shadow_.size() < dynamic_bytes / 4 + 1) dynamic_shadow_.resize(dynamic_bytes / 4 + 1);
    // Filled here, where the compiler inlines the loop: vector::assign's
    // out-of-line loop is traced (a callback per element, 2.6 % of a vector
    // add's launch).
    clocks_.resize(threads);
    std::fill(clocks_.begin(), clocks_.end(), 1u);
    plain_clocks_ = true;
    // The executors set blockDim before a block starts.
    streaming_block_ = blockDim.y == 1 && blockDim.z == 1 && blockDim.x == threads;
    plain_thread_half_ = race_record::thread_half(0, false, 1, lane_clock_untouched, launch_tag_);
    fenced_at_.resize(threads);
    std::fill(fenced_at_.begin(), fenced_at_.end(), 0u);
    // What each thread knows is stale by its generation: nothing to clear.
    if (known_.size() < threads) known_.resize(threads);
    if (known_generation_.size() < threads) known_generation_.resize(threads, 0);
    if (!shared_atomic_words_.empty()) shared_atomic_words_.clear();
    copies_.clear(threads);
    knows_other_blocks_ = false;
    block_known_.clear();
    clustered_ = launch->clustered();
    peer_count_ = 0;
    // Last: the blocks that map this one's memory wait for it (check_remote).
    if (clustered_) launch->cluster_block_started(block, this);
  }

  race_launch* launch() const { return launch_; }

  /// A copy or set in a stream (race_stream_copy.hpp): checks and records
  /// its spans' words in the global shadow, on the calling thread, between
  /// blocks.
  void trace_command(race_launch& command, const std::vector<race_command_span>& spans, std::uintptr_t pc);

  /// Unlocks the global shadow pages this worker holds. Each worker keeps
  /// the pages it locked across its accesses (a vector add's three arrays'
  /// pages, say): a lock taken per access, a read-modify-write that waits
  /// for the previous access's stores, was a sixth of a streaming kernel's
  /// check. Another worker that wants one of them asks (let_go_) and the
  /// holder lets go at its next access or barrier, or, if it makes none
  /// within a millisecond, when the asker interrupts it; a worker about to wait
  /// for other blocks (grid and cluster syncs, a cuda::barrier of device
  /// scope, the end of its blocks, an atomic or a fence, which a spin on a
  /// flag goes through) lets go first,
  /// so that no block waits for one that waits for its page.
  [[gnu::noinline]] void let_go_of_pages() {
    bool was_busy = busy_;
    busy_ = true;  // an interrupt meanwhile leaves the pages to this call
    std::atomic_signal_fence(std::memory_order_seq_cst);
    for (unsigned i = 0; i < held_count_; ++i) {
      held_[i]->holder.store(nullptr, std::memory_order_relaxed);
      held_[i]->locked.clear(std::memory_order_release);
    }
    held_count_ = 0;
    ++holding_;  // every cached page's `ready` is stale now
    stop_streaming();
    let_go_->store(false, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    busy_ = was_busy;
  }

  /// race_page_request_signal's handler, on the thread of a worker that
  /// another waits for and that did not answer its ask: lets go of the
  /// pages unless the worker is inside the check, which cannot be
  /// interrupted halfway (the waiter asks again later).
  static void on_page_request(int) {
    race_worker* worker = race_running_worker();
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (worker && !worker->busy_ && worker->held_count_ != 0) worker->let_go_of_pages();
  }

  // The hooks below are called from code that a compiler may inline into
  // kernel code (an atomic, a fence, a barrier's wait), which the race
  // check traces wherever it came from: a stackless kernel's coroutine
  // body inlined this worker's own bookkeeping once, and its accesses to
  // the worker (thread-local, like __shared__) were taken for the kernel's.
  // Out of line, they stay in namespace weft, which the check ignores.

  /// Every thread of the block passed a barrier (or a subset did: giving
  /// the others a higher epoch too can only hide a race, never invent one).
  /// One epoch serves the whole block, since a barrier's threads leave it
  /// together.
  [[gnu::noinline]] void block_synced() {
    if (let_go_->load(std::memory_order_relaxed)) let_go_of_pages();
    ++epoch_;
    state_ = 0;
    stop_streaming();
    copies_.group_synced();
    if (knows_other_blocks_) [[unlikely]]
      share_known_with_block();
  }

  /// The lanes of `warp` in `mask` met at a warp collective.
  [[gnu::noinline]] void warp_synced(unsigned warp, unsigned mask) {
    if (knows_other_blocks_) [[unlikely]]
      share_known_among(warp, mask);
    std::uint32_t* clocks = warp_clock(warp);
    std::array<std::uint32_t, 32> joined{};
    for (unsigned m = mask; m != 0; m &= m - 1) {
      const std::uint32_t* lane = clocks + 32 * static_cast<unsigned>(__builtin_ctz(m));
      for (unsigned k = 0; k < 32; ++k) joined[k] = std::max(joined[k], lane[k]);
    }
    for (unsigned m = mask; m != 0; m &= m - 1) {
      unsigned l = static_cast<unsigned>(__builtin_ctz(m));
      std::copy(joined.begin(), joined.end(), clocks + 32 * l);
      clocks[32 * l + l] = joined[l] + 1;
    }
    copies_.group_synced();
  }

  /// The block passed a grid or cluster sync.
  [[gnu::noinline]] void group_synced() {
    if (launch_) launch_->stop_saturating_reads();
    ++group_epoch_;
    state_ = 0;
    stop_streaming();
  }

  /// A thread of the block called __threadfence().
  [[gnu::noinline]] void fenced() {
    if (held_count_ != 0) let_go_of_pages();
    if (launch_) launch_->fence(block_);
    state_ = 0;
    stop_streaming();
    thread_fenced();
  }

  /// The calling CUDA thread called __threadfence() or
  /// __threadfence_block(): an atomic write it makes after this releases
  /// its accesses before it.
  [[gnu::noinline]] void thread_fenced() {
    if (held_count_ != 0) let_go_of_pages();
    unsigned thread = linear_thread_index(threadIdx, blockDim);
    plain_clocks_ = false;
    stop_streaming();
    fenced_at_[thread] = clocks_[thread]++;
  }

  /// `thread` arrives at a named barrier: returns its clock, which the
  /// barrier's completion releases (named_barrier_completed), and starts a
  /// new one, so that what it does after arriving (a bar.arrive thread
  /// goes on at once) is not released with it.
  [[gnu::noinline]] std::uint32_t named_barrier_arrival(unsigned thread) {
    if (!launch_) return 0;
    plain_clocks_ = false;
    stop_streaming();
    return clocks_[thread]++;
  }

  /// A named barrier (bar.sync, bar.arrive) completed. Its waiters acquire
  /// what each of its arrivals, waiting or not, did before arriving, with
  /// what those knew of others; threads that did not arrive are ordered by
  /// nothing, as on a GPU. Exact, with the clocks of the atomics' release
  /// and acquire: an arrival releases as a fence and an atomic write would.
  [[gnu::noinline]] void named_barrier_completed(std::span<const named_arrival> arrivals) {
    if (!launch_) return;
    race_clock released;
    for (const named_arrival& a : arrivals) {
      race_join(released, known_of(a.thread));
      race_join(released, race_clock{{race_thread_key(block_, a.thread), a.release_clock}});
    }
    for (const named_arrival& a : arrivals)
      if (a.waits) race_join(known_of(a.thread), released);
  }

  /// The calling thread arrived at `barrier` (a cuda::barrier's state, a
  /// block pipeline's stage), counting `update` arrivals of phase `phase`
  /// (a dropping thread's too); `waits_at_once`: it parks until the phase completes (arrive_and_wait),
  /// else it goes on (arrive, arrive_and_drop, a pipeline's commit or
  /// release) and is ordered only by a wait of its own. The arrival
  /// releases the thread's clock, which it ticks, so that what it does
  /// next is not released with it, what it knows of others, and what warp
  /// collectives showed it of its warp's other lanes (their lanes' clocks).
  [[gnu::noinline]] void barrier_arrival(const void* barrier, std::uint32_t phase, std::uint32_t update,
                                         bool waits_at_once) {
    if (!launch_) return;
    unsigned thread = linear_thread_index(threadIdx, blockDim);
    plain_clocks_ = false;
    stop_streaming();
    std::uint32_t clock = clocks_[thread]++;
    const race_clock& knows = known_of(thread);
    bool local = block_local(barrier);
    if (!local) launch_->stop_saturating_reads();
    std::unique_lock<std::mutex> arriving;  // barrier_arrival_begins'
    if (!local) arriving = std::unique_lock(launch_->barrier_phases_mutex(), std::adopt_lock);
    bool owners_thread = local || in_shared_memory(barrier);
    auto record = [&](race_barrier_phases& p) {
      if (p.count == 0 || p.phase != phase) {
        p.phase = phase;
        p.count = 0;
        p.arriving_threads = 0;
        p.all_wait_at_once = true;
        p.arrivals.clear();
        p.known.clear();
      }
      p.arrivals.emplace_back(race_thread_key(block_, thread), clock);
      if (!local) p.arrivals.emplace_back(race_block_key(block_), epoch_);
      // The thread's own lane's accesses are its clock's (above): its lane
      // clock covers those after the arrival too.
      unsigned warp_first = thread - thread % 32;
      for (unsigned lane = 0; lane < 32; ++lane)
        if (lane != thread % 32)
          if (std::uint32_t seen = lane_clock(thread, lane))
            p.arrivals.emplace_back(race_lane_key(block_, warp_first + lane), seen);
      if (!knows.empty()) race_join(p.known, knows);
      p.count += update;
      ++p.arriving_threads;
      p.all_wait_at_once = p.all_wait_at_once && waits_at_once && owners_thread;
    };
    if (local)
      with_barrier_phases(barrier, record);
    else
      record(owned_phases(launch_->barrier_phases_locked(barrier), barrier_owner(barrier)));
  }

  /// The calling thread is about to arrive at `barrier`. One in global
  /// memory, which other blocks' workers arrive at, is locked from here to
  /// the arrival's record (barrier_arrival), or to barrier_arrival_failed
  /// if the state changed meanwhile: else the phase's last arrival, on
  /// another worker, could complete it before an earlier one's record.
  [[gnu::noinline]] void barrier_arrival_begins(const void* barrier) {
    if (launch_ && !block_local(barrier)) launch_->barrier_phases_mutex().lock();
  }
  [[gnu::noinline]] void barrier_arrival_failed(const void* barrier) {
    if (launch_ && !block_local(barrier)) launch_->barrier_phases_mutex().unlock();
  }

  /// Every arrival of `barrier`'s phase `phase` came, before its completion
  /// function runs (on the last arrival's thread). A phase that the whole
  /// block arrived at with arrive_and_wait orders the block by its epoch
  /// (block_synced, cheap); any other phase seen whole by its arrivals'
  /// clocks, joined here for its waits (barrier_waited).
  [[gnu::noinline]] void barrier_arrivals_completed(const void* barrier, std::uint32_t phase) {
    if (!launch_) return;
    bool by_epoch = true;
    bool owners = in_shared_memory(barrier);
    with_barrier_phases(barrier, [&](race_barrier_phases& p) {
      p.by_clocks = false;
      // Every arrival of a launch is seen (a barrier's expected count
      // cannot tell: a drop lowers it within the phase).
      bool seen_whole = p.count != 0 && p.phase == phase;
      bool whole_block = owners && p.all_wait_at_once && p.arriving_threads == threads_;
      if (seen_whole && !whole_block) {
        // Arrivals sorted by key: one merge with what they knew.
        std::sort(p.arrivals.begin(), p.arrivals.end());
        race_clock arrivals;
        arrivals.reserve(p.arrivals.size());
        for (const auto& [key, clock] : p.arrivals)
          if (!arrivals.empty() && arrivals.back().first == key)
            arrivals.back().second = std::max(arrivals.back().second, clock);
          else
            arrivals.emplace_back(key, clock);
        p.released = std::move(p.known);
        race_join(p.released, arrivals);
        p.by_clocks = true;
        by_epoch = false;
        race_clock& completing = known_of(linear_thread_index(threadIdx, blockDim));
        p.completing_thread_knew = completing;
        race_join(completing, p.released);
      }
      p.count = 0;
      p.arriving_threads = 0;
      p.arrivals.clear();
      p.known.clear();
    });
    // A phase whose arrivals went unseen (made before the check ran, or
    // the barrier initialised again) orders the whole block, which can hide
    // a race but never invent one.
    if (by_epoch) block_synced();
  }

  /// `barrier`'s phase `phase` completed (its completion function too),
  /// before any wait can observe it. A phase ordered by clocks keeps what
  /// it released, with what the completion function did on the last
  /// arrival's thread, for the waits that observe it (barrier_waited).
  [[gnu::noinline]] void barrier_phase_completed(const void* barrier, std::uint32_t phase) {
    if (!launch_) return;
    unsigned last = linear_thread_index(threadIdx, blockDim);
    bool by_epoch = true;
    with_barrier_phases(barrier, [&](race_barrier_phases& p) {
      if (!p.by_clocks) return;
      p.by_clocks = false;
      by_epoch = false;
      race_join(p.released, known_of(last));
      race_join(p.released, race_clock{{race_thread_key(block_, last), clocks_[last]++}});
      known_of(last) = std::move(p.completing_thread_knew);
      p.completing_thread_knew.clear();
      race_barrier_phases::completed_phase& done = p.completed[phase % 2];
      done.valid = true;
      done.phase = phase;
      done.released = std::move(p.released);
      p.released.clear();
    });
    // Not in the lambda above: Clang may keep it out of line, outside the
    // ignore list's names, and its stores to this worker (thread-local, as
    // __shared__ variables are) were traced as the kernel's.
    if (!by_epoch) {
      plain_clocks_ = false;
      stop_streaming();
    }
    if (by_epoch)
      block_synced();
    else
      copies_.group_synced();
  }

  /// The calling thread's wait for `barrier`'s phase `phase` returned: it
  /// acquires what the phase released (nothing to do for a phase the block
  /// epoch ordered).
  [[gnu::noinline]] void barrier_waited(const void* barrier, std::uint32_t phase) {
    if (!launch_) return;
    unsigned thread = linear_thread_index(threadIdx, blockDim);
    auto acquire = [&](race_barrier_phases& p) {
      const race_barrier_phases::completed_phase& done = p.completed[phase % 2];
      if (!done.valid || done.phase != phase) return;
      race_join(known_of(thread), done.released);
      if (!knows_other_blocks_)
        knows_other_blocks_ = std::any_of(done.released.begin(), done.released.end(),
                                          [&](const auto& entry) { return race_block_of_key(entry.first) != block_; });
    };
    if (!block_local(barrier)) {
      with_barrier_phases(barrier, acquire);
      return;
    }
    auto at = barrier_phases_->find(barrier);
    if (at != barrier_phases_->end() && at->second.generation == generation_) acquire(at->second);
  }

  /// The calling CUDA thread made an atomic read-modify-write of the word
  /// at `address` (atomicAdd, atomicCAS, atomicExch, ...). It acquires what
  /// earlier releases to the word by threads of its block published, and,
  /// after a fence, releases its own accesses before the fence, with what
  /// it knows of other threads (a lock of atomicCAS and atomicExch plus
  /// __threadfence, a flag set after a fence; ordered as CUDA's memory
  /// model orders them). Between blocks, a device- or system-scope atomic
  /// on global memory publishes the block's __threadfence() calls before
  /// it (race_launch::publish_fences); one of block scope
  /// (next_atomic_at_block_scope) does not.
  [[gnu::noinline]] void atomic_read_modify_write(const void* address) {
    bool block_scope = block_scope_atomic_ == address;
    block_scope_atomic_ = nullptr;
    if (busy_ || !launch_) return;
    busy_ = true;
    unsigned thread = linear_thread_index(threadIdx, blockDim);
    std::uintptr_t word = reinterpret_cast<std::uintptr_t>(address) & ~std::uintptr_t{3};
    auto acquire_and_release = [&](std::unordered_map<std::uintptr_t, race_clock>& words) {
      // No word has had a release yet, and this atomic makes none (a
      // histogram's counts, with no fence anywhere): nothing to acquire or
      // release, without the hash and division of a find on every atomic.
      if (words.empty() && fenced_at_[thread] == 0) return;
      auto at = words.find(word);
      if (at != words.end()) race_join(known_of(thread), at->second);
      if (fenced_at_[thread] == 0) return;  // a relaxed atomic releases nothing
      race_clock& released = at != words.end() ? at->second : words[word];
      race_join(released, known_of(thread));
      race_join(released, race_clock{{race_thread_key(block_, thread), fenced_at_[thread]}});
    };
    if ((word >= tls_begin_ && word < tls_end_) || (word >= dynamic_begin_ && word < dynamic_end_)) {
      // In a launch with clusters, other blocks reach the word too: an
      // atomic write there, checked against plain accesses, as another
      // block's atomic on it is (below).
      if (clustered_) [[unlikely]]
        atomic_on_own_shared_word(word, reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)));
      acquire_and_release(shared_atomic_words_);
    } else {
      // Another block's __shared__ word: an atomic write there, checked
      // against plain accesses (it synchronises as a global one, below).
      if (peer_count_ != 0)
        if (cluster_peer* peer = peer_of(word))
          check_remote(*peer, word, true, reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)), true);
      // A spin on a global flag may wait for a block that needs a page this
      // worker holds (a __shared__ one waits for this block only).
      if (held_count_ != 0) let_go_of_pages();
      launch_->with_atomic_words(block_, acquire_and_release);
      if (!block_scope) launch_->publish_fences(block_);
    }
    busy_ = false;
  }

  /// An atomic function on `word`, the running block's own __shared__ word,
  /// in a launch with clusters (atomic_read_modify_write).
  [[gnu::noinline]] void atomic_on_own_shared_word(std::uintptr_t word, std::uintptr_t pc) {
    if (word >= tls_begin_ && word < tls_end_) {
      if (!shared_shadow_.untraced((word - tls_begin_) / 4))
        check_in_cluster(*this, block_, shared_shadow_, (word - tls_begin_) / 4, word, true, pc, true);
    } else {
      check_in_cluster(*this, block_, dynamic_shadow_, (word - dynamic_begin_) / 4, word, true, pc, true);
    }
  }

  /// The running block mapped another block of its cluster, `block`, whose
  /// __shared__ variables lie `tls_offset` bytes from this one's and whose
  /// dynamic buffer is [dynamic, dynamic + dynamic_bytes)
  /// (cluster.map_shared_rank): its threads' accesses there are checked
  /// against that block's shadow from now on.
  [[gnu::noinline]] void cluster_block_mapped(std::uint64_t block, std::uintptr_t tls_offset, std::uintptr_t dynamic,
                                              std::size_t dynamic_bytes) {
    if (!launch_ || !clustered_ || block == block_) return;
    for (unsigned i = 0; i < peer_count_; ++i)
      if (peers_[i].block == block) return;
    if (peer_count_ == peers_.size()) return;  // more than a cluster holds
    peers_[peer_count_++] = {block, tls_begin_ + tls_offset, tls_end_ + tls_offset, dynamic, dynamic + dynamic_bytes};
    // The gaps found so far may hold its memory (note_private clips them).
    private_begin_ = private_end_ = other_private_begin_ = other_private_end_ = 0;
  }

  /// The calling thread's next atomic is on `address` at block scope
  /// (atomicAdd_block, cuda::atomic_ref<T, cuda::thread_scope_block>, ...):
  /// it orders the threads of this block only.
  [[gnu::noinline]] void next_atomic_at_block_scope(const void* address) { block_scope_atomic_ = address; }

  /// A traced load or store of `size` bytes at `address`, made by the code
  /// at `pc`. Inlined into each callback: most of a small kernel's traced
  /// loads are of threadIdx and its kin, which are weft's own, of its stack,
  /// private memory in the gap between allocations found last, and of
  /// global pages it holds.
  [[gnu::always_inline]] void access(const void* address, unsigned size, bool write, const void* pc) {
    std::uintptr_t a = reinterpret_cast<std::uintptr_t>(address);
    // The static TLS block: the built-in variables and weft's other
    // thread-locals, untraced, or a __shared__ variable. Its word's flag,
    // wherever the linker put the variable: Clang 16 does not keep the
    // four built-in variables together (in weft_bench threadIdx and
    // blockIdx lie in .tbss with other thread-locals between them,
    // blockDim and gridDim in .tdata), and a compare of one or two runs of
    // adjacent ones left the others 35-45 instructions each.
    if (a - tls_begin_ < tls_bytes_) {
      if ((a & 3) + size <= 4) {
        if (shared_shadow_.untraced((a - tls_begin_) / 4)) return;
        // A __shared__ word: its check at once (a tiled matmul's loads).
        if (!busy_ && copies_.empty()) [[likely]] {
          std::uintptr_t word = a & ~std::uintptr_t{3};
          std::uint32_t untouched = race_untouched_bytes_in_word(a, size);
          return write ? check_shared_word<true>(word, pc, untouched) : check_shared_word<false>(word, pc, untouched);
        }
      } else if (size == 8 && a + size <= tls_end_ && shared_shadow_.untraced((a - tls_begin_) / 4) &&
                 shared_shadow_.untraced((a + size - 1 - tls_begin_) / 4)) {
        // Weft's own pointers, which a stackless kernel's body reads (its
        // executor's, its frame arena's): untraced, as check_traced finds
        // them, without the call there (a block reduction's most frequent
        // callback).
        return;
      }
      return write ? access_static_tls<true>(a, size, pc) : access_static_tls<false>(a, size, pc);
    }
    // A global page that the worker holds and the launch owns, before the
    // other filters: no private range, __shared__ word or built-in variable
    // lies in a weft allocation or the program's static data, so they would
    // let the access through. Before the private ranges: after them, a
    // streaming kernel's global access cost 6-10 % more, where a stackless
    // kernel's accesses to its frames cost 0-9 % more with the look-up
    // before them (vector add at 2^20 floats, measure.sh --quick;
    // 2026-11-30). A tail call, as every call here is: the callback then
    // needs no register saved.
    cached_page& cached = cached_entry(a);
    // `size` and `write` are constants where this is inlined into a callback.
    if (size == 4) {
      if (a - cached.begin < cached.bytes) [[likely]] {
        streamed result = write ? streamed_word<true>(cached, a, pc) : streamed_word<false>(cached, a, pc);
        if (result == streamed::checked) [[likely]]
          return;
        // Out of line: the path above then needs no register saved.
        if (result == streamed::declined)
          return write ? access_unstreamed<true>(a, pc) : access_unstreamed<false>(a, pc);
        // A block that does not stream (a fence, a warp collective...): the
        // ready page's path as before, not the look-up again.
        if (cached.ready == holding_)
          return write ? access_ready_page<true, 4>(cached, a, pc) : access_ready_page<false, 4>(cached, a, pc);
        if (!write && reads_saturated(cached)) return;
      }
      return access_filtered(a, size, write, pc);
    }
    access_past_builtins(a, size, write, pc);
  }

 private:
  // access()'s part past the static TLS block and streamed_word.
  [[gnu::always_inline]] void access_past_builtins(std::uintptr_t a, unsigned size, bool write, const void* pc) {
    cached_page& cached = pages_[cache_index(a)];
    if (a - cached.begin < cached.bytes && cached.ready == holding_) [[likely]] {
      if (size == 4)
        return write ? access_ready_page<true, 4>(cached, a, pc) : access_ready_page<false, 4>(cached, a, pc);
      if (size == 2)
        return write ? access_ready_page<true, 2>(cached, a, pc) : access_ready_page<false, 2>(cached, a, pc);
      if (size == 1)
        return write ? access_ready_page<true, 1>(cached, a, pc) : access_ready_page<false, 1>(cached, a, pc);
    }
    if (!write && a - cached.begin < cached.bytes && a + size - cached.begin <= cached.bytes &&
        cached.ready != holding_ && reads_saturated(cached))
      return;
    access_filtered(a, size, write, pc);
  }

  // Whether `cached`, a page that the worker does not hold, is saturated
  // with the running launch's reads (note_saturated_read): a load from it
  // then needs neither a record nor the page's lock, so that two workers
  // read it side by side (a tiled matmul's inputs, which every block of a
  // row or column of tiles reads).
  [[gnu::always_inline]] bool reads_saturated(cached_page& cached) const {
    return cached.page->saturation.complete.load(std::memory_order_relaxed) == identity_ && launch_->reads_saturate();
  }

  template <bool write>
  [[gnu::noinline]] void access_unstreamed(std::uintptr_t a, const void* pc) {
    access_past_builtins(a, 4, write, pc);
  }

  // An access to the static TLS block that spans words, or one while the
  // block has copies in flight: access_filtered's path without the ranges
  // that the block never lies in.
  template <bool write>
  [[gnu::noinline]] void access_static_tls(std::uintptr_t a, unsigned size, const void* pc) {
    if (busy_) return;  // the detector's own accesses, if it was instrumented
    if (!copies_.empty()) [[unlikely]]
      return access_beside_copies(a, size, write, pc);
    if (a + size <= tls_end_) [[likely]]
      return check_shared_words<write>(a, size, pc);
    check_traced(a, size, write, pc);
  }

  // An access that spans words of the static TLS block: a vector load of a
  // __shared__ array (Clang's SLP vectoriser makes the 1D stencil's seven
  // neighbours one 16-byte load and three 4-byte ones, an n-body tile's
  // float4 two 8-byte ones) is each word's check in turn, as a 4-byte
  // access's, loads by read_ordered's path: check_access_fully's loop took
  // the full check for every word, about 630 instructions for the
  // stencil's 16 bytes. The same records and reports as that loop: weft's
  // own words are skipped, and the first hazard ends the access, so that
  // it is reported once.
  template <bool write>
  void check_shared_words(std::uintptr_t a, unsigned size, const void* pc) {
    unsigned thread = 0;
    std::uint32_t site = 0;
    bool ordered_path = !write && read_ordered_prologue(reinterpret_cast<std::uintptr_t>(pc), thread, site);
    // Whole words, as a vectoriser's loads are: none of their bytes left alone.
    bool whole_words = ((a | size) & 3) == 0;
    std::uintptr_t last = (a + size - 1) & ~std::uintptr_t{3};
    for (std::uintptr_t word = a & ~std::uintptr_t{3}; word <= last; word += 4) {
      std::size_t at = (word - tls_begin_) / 4;
      if (shared_shadow_.untraced(at)) continue;
      std::uint32_t untouched = whole_words ? 0 : race_untouched_bytes(word, a, size);
      if (ordered_path && read_ordered_word(at, thread, site, untouched)) continue;
      if (!check_shared_word_fully<write>(word, pc, untouched)) return;
    }
  }

  // access()'s filters past the static TLS block and the ready pages.
  [[gnu::always_inline]] void access_filtered(std::uintptr_t a, unsigned size, bool write, const void* pc) {
    if (a >= private_begin_ && a + size <= private_end_) return;
    if (a >= other_private_begin_ && a + size <= other_private_end_) return;
    if (busy_) return;  // the detector's own accesses, if it was instrumented
    // A tail call, as every call here is: the callback then needs no
    // register saved, and a private access returns without touching the
    // stack.
    if (!copies_.empty()) [[unlikely]]
      return access_beside_copies(a, size, write, pc);
    check_traced(a, size, write, pc);
  }

  // A streaming kernel's global access, inlined into its callback: one
  // aligned word of a ready page while the block streams (streamed_ready_),
  // whose records are none or of the launches that the page's entry
  // already found ordered before this one. The word's records then change
  // as word_ordered changes them. Where it declines, having changed
  // nothing, access_ready_page's path decides: there, a call and the tests
  // it repeats made a global load about 100 instructions. `not_streaming`:
  // the block does not stream (or the page is not ready, or the access is
  // unaligned), and the callback goes the ready page's way at once.
  enum class streamed { checked, declined, not_streaming };
  template <bool write>
  [[gnu::always_inline]] streamed streamed_word(cached_page& cached, std::uintptr_t a, const void* pc) {
    if ((a & 3) != 0 || busy_) return streamed::not_streaming;
    busy_ = true;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    streamed result = streamed::not_streaming;
    if (cached.ready == streamed_ready_)
      result = !let_go_->load(std::memory_order_relaxed) &&
                       streamed_word_ordered<write>(cached, a, reinterpret_cast<std::uintptr_t>(pc))
                   ? streamed::checked
                   : streamed::declined;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    busy_ = false;
    return result;
  }

  // The entry of the page that holds `a`: the page's number folded with its
  // number over the entries' count, so that a thread's pages one entries'
  // count apart (a grid-stride loop's, whose stride is a power of two: the
  // suite's histogram steps 64 pages) take entries of their own. With the
  // number alone they all took one entry, every access missed it, and each
  // took the page's look-up under the launch's mutex: 20 % of the
  // histogram's check, its two workers' contention the slow runs' 2-4 s.
  static std::size_t cache_index(std::uintptr_t a) {
    constexpr std::size_t entries = std::tuple_size_v<decltype(pages_)>;
    std::uintptr_t page = a / race_launch::page::bytes;
    return (page ^ page / entries) % entries;
  }
  // pages_[cache_index(a)], as shifts and a mask of the entry's offset,
  // where the index's shift, mask and multiplication took a register more
  // in the callbacks.
  [[gnu::always_inline]] cached_page& cached_entry(std::uintptr_t a) {
    constexpr std::size_t entries = std::tuple_size_v<decltype(pages_)>;
    static_assert(std::has_single_bit(entries) && std::has_single_bit(sizeof(cached_page)) &&
                  race_launch::page::bytes % sizeof(cached_page) == 0);
    constexpr std::size_t to_offset = race_launch::page::bytes / sizeof(cached_page);
    std::uintptr_t offset = (a / to_offset ^ a / (to_offset * entries)) & (entries - 1) * sizeof(cached_page);
    auto* entry = reinterpret_cast<cached_page*>(reinterpret_cast<char*>(pages_.data()) + offset);
    asm("" : "+r"(entry));  // one register, not the worker's and the offset's
    return *entry;
  }

  // Whatever streamed_word relies on may change: a fence, a barrier, a
  // copy issued, the pages let go of, a new block.
  void stop_streaming() { streamed_ready_ = not_streaming; }

  // None, a record of no access (tag 0), or one of a launch that the page's
  // entry found ordered before this one.
  [[gnu::always_inline]] static bool streamed_known(const cached_page& cached, const race_record* r) {
    if (!r) return true;
    // A byte compared with the entry's bytes in memory: no register more.
    std::uint8_t tag = r->launch_byte();
    if (tag == 0) [[likely]]
      return true;
    if (tag == cached.ordered_tags[0]) [[likely]]
      return true;
    return tag == cached.ordered_tags[1];
  }

  // The number of `pc` from the worker's cache of sites, kept as the
  // page's streamed site; false where the cache does not have it.
  [[gnu::always_inline]] bool streamed_site_of(cached_page& cached, std::uintptr_t pc, std::uint32_t& site) {
    auto [cached_pc, cached_site] = site_entry(pc);
    if (cached_pc != pc) return false;
    cached.streamed_pc = pc;
    cached.streamed_site = site = cached_site;
    return true;
  }

  template <bool write>
  [[gnu::always_inline]] bool streamed_word_ordered(cached_page& cached, std::uintptr_t a, std::uintptr_t pc) {
    std::size_t at = a % race_launch::page::bytes;  // aligned: streamed_word
    race_shadow& words = cached.page->words;
    // One record at a time, and the site last, so that the callback needs
    // no register saved.
    if constexpr (write) {
      race_record* last_write = words.find_at_offset(race_shadow::writes, at);
      if (!last_write) [[unlikely]]
        return false;
      if (!streamed_known(cached, last_write)) [[unlikely]]
        return false;
      if (!streamed_known(cached, words.find_at_offset(race_shadow::latest_reads, at))) [[unlikely]]
        return false;
      if (!streamed_known(cached, words.find_at_offset(race_shadow::earlier_reads, at))) [[unlikely]]
        return false;
      std::uint32_t site = cached.streamed_site;
      if (cached.streamed_pc != pc) [[unlikely]] {
        if (!streamed_site_of(cached, pc, site)) return false;
      }
      // The reads are forgotten first, each found again: their records'
      // addresses kept over the site's look-up took a register more.
      race_shadow* again = &words;
      asm("" : "+r"(again));
      for (auto part : {race_shadow::latest_reads, race_shadow::earlier_reads})
        if (race_record* read = again->find_at_offset(part, at)) read->forget_byte();
      last_write->store(race_record::of_halves(site, streamed_state_half_,
                                               plain_thread_half_ | threadIdx.x | std::uint64_t{1} << 10));
    } else {
      race_record* latest_read = words.find_at_offset(race_shadow::latest_reads, at);
      if (!latest_read) [[unlikely]]
        return false;
      if (!streamed_known(cached, latest_read)) [[unlikely]]
        return false;
      if (!streamed_known(cached, words.find_at_offset(race_shadow::writes, at))) [[unlikely]]
        return false;
      std::uint32_t site = cached.streamed_site;
      if (cached.streamed_pc != pc) [[unlikely]] {
        if (!streamed_site_of(cached, pc, site)) return false;
      }
      latest_read->store(race_record::of_halves(site, streamed_state_half_, plain_thread_half_ | threadIdx.x));
    }
    return true;
  }

  // An access to a page of `cached`, which is ready (the worker holds it
  // and the launch owns its tag there, cached_page::ready): most of a
  // streaming kernel's take word_ordered's path and end here, with the
  // busy flag that keeps on_page_request from letting go of the page
  // meanwhile; `ready` is looked at again once the flag is set, since an
  // interrupt before it may have let go. The others go on as any access.
  template <bool write, unsigned size>
  [[gnu::noinline]] void access_ready_page(cached_page& cached, std::uintptr_t a, const void* pc) {
    if ((a & 3) + size <= 4 && !busy_) [[likely]] {
      busy_ = true;
      std::atomic_signal_fence(std::memory_order_seq_cst);
      bool done = cached.ready == holding_ && copies_.empty() &&
                  word_ordered<write>(cached, a, size, reinterpret_cast<std::uintptr_t>(pc));
      // The block streams again (after its start, a barrier, a fence...)
      // from the first access that word_ordered took: its state is made.
      if (done && streaming_block_ && plain_clocks_) {
        streamed_ready_ = holding_;
        streamed_state_half_ = race_record::state_half(state_);
      }
      std::atomic_signal_fence(std::memory_order_seq_cst);
      busy_ = false;
      if (done) [[likely]]
        return;
    }
    access_past_ready_page(a, size, write, pc);
  }
  // Out of line, so that the path above saves fewer registers.
  [[gnu::noinline]] void access_past_ready_page(std::uintptr_t a, unsigned size, bool write, const void* pc) {
    access_filtered(a, size, write, pc);
  }

  // access()'s part after its filters: a __shared__ word, weft's own
  // thread-locals, or a global access.
  [[gnu::always_inline]] void check_traced(std::uintptr_t a, unsigned size, bool write, const void* pc) {
    if (a >= tls_begin_ && a < tls_end_) {
      if ((a & 3) + size <= 4) {
        // One word of the static TLS block: a __shared__ variable's, or weft's own.
        if (shared_shadow_.untraced((a - tls_begin_) / 4)) return;
        std::uintptr_t word = a & ~std::uintptr_t{3};
        if (write)  // a constant where access() is inlined into a callback
          check_shared_word<true>(word, pc, race_untouched_bytes_in_word(a, size));
        else
          check_shared_word<false>(word, pc, race_untouched_bytes_in_word(a, size));
        return;
      }
      // Weft's own pointers and counters (a stackless kernel's body reads
      // the running executor's and its frame arena's): 8 bytes, untraced.
      if (a + size <= tls_end_ && shared_shadow_.untraced((a - tls_begin_) / 4) &&
          shared_shadow_.untraced((a + size - 1 - tls_begin_) / 4))
        return;
    }
    check_access(a, size, write, pc);
  }

  // An access while the block has asynchronous copies in flight.
  [[gnu::noinline]] void access_beside_copies(std::uintptr_t a, unsigned size, bool write, const void* pc) {
    check_copies_in_flight(a, size, write, pc);
    check_traced(a, size, write, pc);
  }

 public:
  /// The calling thread issued an asynchronous copy (race_async_copy.hpp):
  /// checked now as its read of the source and write of the destination,
  /// and in flight until what `copy` names completes it.
  [[gnu::noinline]] void copy_issued(const race_copy& copy, const void* destination, std::size_t destination_bytes,
                                     const void* source, std::size_t source_bytes) {
    if (!launch_) return;
    auto* site = reinterpret_cast<const void*>(copy.site);
    if (source_bytes) access(source, static_cast<unsigned>(source_bytes), false, site);
    if (destination_bytes) access(destination, static_cast<unsigned>(destination_bytes), true, site);
    stop_streaming();
    copies_.add(copy, reinterpret_cast<std::uintptr_t>(destination), destination_bytes,
                reinterpret_cast<std::uintptr_t>(source), source_bytes);
  }
  race_copies_in_flight& copies_in_flight() { return copies_; }

 private:
  // An access to a copy in flight's destination, or a write to its source:
  // a race with the copy, which a GPU may make at any time until its wait.
  [[gnu::noinline]] void check_copies_in_flight(std::uintptr_t a, unsigned size, bool write, const void* pc) {
    const race_copies_in_flight::span* at = copies_.conflict(a, size, write);
    if (!at) return;
    busy_ = true;
    const race_copy& copy = copies_.copy(*at);
    std::uintptr_t word = std::max(a, at->begin) & ~std::uintptr_t{3};
    race_space space = race_space::global;
    if (word >= tls_begin_ && word < tls_end_)
      space = race_space::shared;
    else if (word >= dynamic_begin_ && word < dynamic_end_)
      space = race_space::dynamic_shared;
    else if (word >= static_data_begin_ && word < static_data_end_)
      space = race_space::static_global;
    race_kind kind = !at->destination ? race_kind::write_after_read
                     : write          ? race_kind::write_after_write
                                      : race_kind::read_after_write;
    report(kind, {.pc = copy.site, .block = block_, .thread = copy.thread, .write = at->destination},
           {.pc = reinterpret_cast<std::uintptr_t>(pc),
            .block = block_,
            .thread = linear_thread_index(threadIdx, blockDim),
            .write = write},
           word, space);
    busy_ = false;
  }

  // A tiled matmul's accesses are mostly these: they skip access_word's
  // look-up of a global page and its classification of the address. A
  // template on `write`, so that a load's check is compiled without the
  // store's branches; most loads take read_ordered's path, which needs no
  // stack frame.
  template <bool write>
  [[gnu::noinline]] void check_shared_word(std::uintptr_t word, const void* pc, std::uint32_t untouched) {
    if constexpr (write) {
      if (write_ordered((word - tls_begin_) / 4, reinterpret_cast<std::uintptr_t>(pc), untouched)) return;
    } else if (read_ordered((word - tls_begin_) / 4, reinterpret_cast<std::uintptr_t>(pc), untouched)) {
      return;
    }
    check_shared_word_fully<write>(word, pc, untouched);
  }

  // False where it found a hazard (check_shared_words stops there).
  template <bool write>
  [[gnu::noinline]] bool check_shared_word_fully(std::uintptr_t word, const void* pc, std::uint32_t untouched) {
    busy_ = true;
    bool clear;
    if (clustered_) [[unlikely]]
      clear = check_in_cluster(*this, block_, shared_shadow_, (word - tls_begin_) / 4, word, write,
                               reinterpret_cast<std::uintptr_t>(pc), false, untouched);
    else
      clear = check<true>(shared_shadow_, (word - tls_begin_) / 4, word, race_space::shared, write,
                          reinterpret_cast<std::uintptr_t>(pc), false, untouched);
    busy_ = false;
    return clear;
  }

  // check()'s path for a load of a __shared__ word whose last write a
  // barrier or the loading thread itself orders before it (a tiled
  // matmul's loads of its tiles: each word written once, then read by 16
  // threads, between two barriers): no hazard, and the load becomes the
  // word's latest read, the one before it its earlier read, exactly as
  // check() makes them. Nothing here calls out, so the compiler saves two
  // registers for it and no stack frame: the full check's saving and
  // restoring of six registers, its busy flag and its lookups were a
  // third of a load's cost. False, having changed nothing, where check()
  // must decide: the word's records are a block's before, the write is of
  // this epoch and another thread's, the load's site is not cached yet, or
  // another worker asked for the pages this one holds.
  [[gnu::always_inline]] bool read_ordered(std::size_t at, std::uintptr_t pc, std::uint32_t untouched) {
    if (held_count_ != 0 && let_go_->load(std::memory_order_relaxed)) return false;
    if (!shared_shadow_.current(at, generation_)) return false;
    unsigned thread = linear_thread_index(threadIdx, blockDim);
    const race_record& last_write = *shared_shadow_.find(race_shadow::writes, at);
    if (last_write.launch() == launch_tag_ && last_write.thread() != thread && epoch_ <= last_write.state())
      return false;
    auto [cached_pc, site] = site_entry(pc);
    if (cached_pc != pc) return false;
    read_ordered_record(at, thread, site, untouched);
    return true;
  }

  // check()'s path for a store to a __shared__ word whose records a
  // barrier or the storing thread itself orders before it: a tiled
  // matmul's tile stores (the word's last write the same thread's, its
  // reads a barrier ago), a scan's stores to the buffer read the step
  // before, every block's first store to a word (the records of the
  // worker's block before are stale). No hazard, and the store becomes the
  // word's last write, its reads forgotten, exactly as check() makes them;
  // nothing here calls out, as in read_ordered. False, with the word's
  // records unchanged but renewed (which check() does first too), where
  // check() must decide: a record of another thread since the last
  // barrier (ordered, if at all, by a warp collective or an atomic), the
  // store's site not cached yet, another worker asking for the pages this
  // one holds, or a launch with clusters (whose records are stamped apart:
  // check_in_cluster).
  [[gnu::always_inline]] bool write_ordered(std::size_t at, std::uintptr_t pc, std::uint32_t untouched) {
    if (clustered_ || (held_count_ != 0 && let_go_->load(std::memory_order_relaxed))) return false;
    auto [cached_pc, site] = site_entry(pc);
    if (cached_pc != pc) return false;
    shared_shadow_.renew(at, generation_);
    unsigned thread = linear_thread_index(threadIdx, blockDim);
    auto ordered_before = [&](const race_record& r) {
      return r.launch() != launch_tag_ || r.thread() == thread || epoch_ > r.state();
    };
    race_record& last_write = shared_shadow_.make(race_shadow::writes, at);
    race_record& latest_read = shared_shadow_.make(race_shadow::latest_reads, at);
    race_record& earlier_read = shared_shadow_.make(race_shadow::earlier_reads, at);
    if (!ordered_before(last_write) || !ordered_before(latest_read) || !ordered_before(earlier_read)) return false;
    last_write.store(race_record(site, epoch_, untouched, thread_half(thread, true)));
    latest_read.forget();
    earlier_read.forget();
    return true;
  }

  // read_ordered for each word of a load that spans words (a vector load):
  // the pages' request, the thread and the site are the access's, looked
  // at once; false, having changed nothing, where read_ordered's path does
  // not apply to any of its words.
  [[gnu::always_inline]] bool read_ordered_prologue(std::uintptr_t pc, unsigned& thread, std::uint32_t& site) {
    if (held_count_ != 0 && let_go_->load(std::memory_order_relaxed)) return false;
    thread = linear_thread_index(threadIdx, blockDim);
    auto [cached_pc, cached_site] = site_entry(pc);
    site = cached_site;
    return cached_pc == pc;
  }
  // The word's part: false, having changed nothing, where check() decides.
  [[gnu::always_inline]] bool read_ordered_word(std::size_t at, unsigned thread, std::uint32_t site,
                                                std::uint32_t untouched) {
    if (!shared_shadow_.current(at, generation_)) return false;
    const race_record& last_write = *shared_shadow_.find(race_shadow::writes, at);
    if (last_write.launch() == launch_tag_ && last_write.thread() != thread && epoch_ <= last_write.state())
      return false;
    read_ordered_record(at, thread, site, untouched);
    return true;
  }

  // The load, ordered after the word's last write, becomes its latest read.
  [[gnu::always_inline]] void read_ordered_record(std::size_t at, unsigned thread, std::uint32_t site,
                                                  std::uint32_t untouched) {
    race_record now(site, epoch_, untouched, thread_half(thread, false));
    race_record& latest_read = *shared_shadow_.find(race_shadow::latest_reads, at);
    if (latest_read.launch() == launch_tag_ && latest_read.thread() != thread) {
      race_record& earlier_read = *shared_shadow_.find(race_shadow::earlier_reads, at);
      if (!keeps_other_warp(earlier_read, latest_read, thread, epoch_)) earlier_read.store(latest_read);
    }
    latest_read.store(now);
  }

  // Whether a read by `thread` in `state` that displaces `latest` keeps
  // `earlier` instead of it: when `latest` is of the reader's warp and
  // `earlier` of another warp, both since the last barrier. A write before
  // the next barrier is then unordered with one of the two reads kept
  // unless it is ordered after reads of two warps (through atomics), so
  // that a write-after-read against a third, older reader goes unseen only
  // when the reads kept are all of the writer's own warp.
  [[gnu::always_inline]] bool keeps_other_warp(const race_record& earlier, const race_record& latest, unsigned thread,
                                               std::uint32_t state) const {
    // The warps first: a tiled matmul's reads of a row of its tile are all
    // of one warp, and stop there.
    return (latest.thread() ^ thread) < 32 && (earlier.thread() ^ thread) >= 32 && earlier.launch() == launch_tag_ &&
           earlier.state() == state;
  }

  // A global access: most of a streaming kernel's take global_word_ordered's
  // path, the others the full check.
  [[gnu::noinline]] void check_access(std::uintptr_t a, unsigned size, bool write, const void* pc) {
    busy_ = true;  // before it looks at the pages it holds (on_page_request)
    std::atomic_signal_fence(std::memory_order_seq_cst);
    bool checked = write ? global_word_ordered<true>(a, size, reinterpret_cast<std::uintptr_t>(pc))
                         : global_word_ordered<false>(a, size, reinterpret_cast<std::uintptr_t>(pc)) ||
                               global_read_after_own_launch(a, size, reinterpret_cast<std::uintptr_t>(pc));
    std::atomic_signal_fence(std::memory_order_seq_cst);
    busy_ = false;
    if (!checked) check_access_fully(a, size, write, pc);
  }

  // check()'s path for an access to one word of a global page that this
  // worker holds and the launch owns, whose records are all of launches
  // CUDA orders before this one (found so by look_up_launch before) or none:
  // a streaming kernel's every access from its second launch on (its
  // inputs' records are the copies' and the launch before's reads, its
  // output's the launch before's write). No hazard, and the access's record
  // replaces those exactly as check() would replace them: a write's the
  // word's records, a read's its latest read (the one before it, ordered,
  // is not kept). Nothing here calls out or makes a stack frame:
  // a vector add's check_access took 164 instructions per access through
  // the full check, 106 with this path (callgrind, 2^14 floats, one
  // worker). False, having changed nothing, where check() must decide or
  // make a part of the page.
  template <bool write>
  [[gnu::always_inline]] bool global_word_ordered(std::uintptr_t a, unsigned size, std::uintptr_t pc) {
    if ((a & 3) + size > 4) return false;
    std::uintptr_t word = a & ~std::uintptr_t{3};
    cached_page& cached = pages_[cache_index(word)];
    if (word - cached.begin >= cached.bytes) return false;
    if (cached.ready != holding_) return false;
    return word_ordered<write>(cached, a, size, pc);
  }

  // global_word_ordered's part past the page's look-up: `cached` is ready
  // and holds the word.
  template <bool write>
  [[gnu::always_inline]] bool word_ordered(cached_page& cached, std::uintptr_t a, unsigned size, std::uintptr_t pc) {
    if (let_go_->load(std::memory_order_relaxed) || state_ == 0) return false;
    std::uintptr_t word = a & ~std::uintptr_t{3};
    race_launch::page& page = *cached.page;
    auto [cached_pc, site] = site_entry(pc);
    if (cached_pc != pc) return false;
    std::size_t at = word % race_launch::page::bytes / 4;
    race_record* last_write = page.words.find(race_shadow::writes, at);
    race_record* latest_read = page.words.find(race_shadow::latest_reads, at);
    race_record* earlier_read = page.words.find(race_shadow::earlier_reads, at);
    if (!ordered_before(cached, last_write) || !ordered_before(cached, latest_read)) return false;
    if constexpr (write)
      if (!last_write || !ordered_before(cached, earlier_read)) return false;
    if constexpr (!write)
      if (!latest_read) return false;
    unsigned thread = linear_thread_index(threadIdx, blockDim);
    race_record now(site, state_, race_untouched_bytes_in_word(a, size), thread_half(thread, write));
    if constexpr (write) {
      last_write->store(now);
      if (latest_read) latest_read->forget();
      if (earlier_read) earlier_read->forget();
    } else {
      latest_read->store(now);
    }
    return true;
  }

  // global_word_ordered's path for a load whose word's latest read is of
  // this launch (a tiled matmul's input, which the blocks of a row of
  // tiles all read), where it took the full check, about 630 instructions:
  // the same preconditions, check()'s choice of the earlier read
  // (read_displaces), then the load as the latest. Tried only after
  // word_ordered declined: in it, the block-state look-up made every
  // ready-page load save four registers more (transpose's 10 % more
  // instructions there). False, having changed nothing, where check()
  // must decide.
  [[gnu::noinline]] bool global_read_after_own_launch(std::uintptr_t a, unsigned size, std::uintptr_t pc) {
    if ((a & 3) + size > 4 || let_go_->load(std::memory_order_relaxed) || state_ == 0) return false;
    std::uintptr_t word = a & ~std::uintptr_t{3};
    cached_page& cached = pages_[cache_index(word)];
    if (word - cached.begin >= cached.bytes || cached.ready != holding_) return false;
    auto [cached_pc, site] = site_entry(pc);
    if (cached_pc != pc) return false;
    std::size_t at = word % race_launch::page::bytes / 4;
    race_shadow& words = cached.page->words;
    race_record* latest_read = words.find(race_shadow::latest_reads, at);
    race_record* earlier_read = words.find(race_shadow::earlier_reads, at);
    if (!latest_read || latest_read->launch() != launch_tag_ ||
        !ordered_before(cached, words.find(race_shadow::writes, at)))
      return false;
    unsigned thread = linear_thread_index(threadIdx, blockDim);
    bool displaces = read_displaces(*latest_read, earlier_read, thread);
    if (displaces && !earlier_read) return false;  // check() makes the part
    if (displaces) earlier_read->store(*latest_read);
    latest_read->store(race_record(site, state_, race_untouched_bytes_in_word(a, size), thread_half(thread, false)));
    // The word's reads kept now: `earlier_read` and this one.
    race_launch::page::read_saturation& saturation = cached.page->saturation;
    // A part-word read never saturates: tested first, before the page's line of bits.
    if (size == 4 && earlier_read && (saturation.launch != identity_ || !(saturation.words[at / 64] >> at % 64 & 1)) &&
        saturating_pair(*earlier_read, *latest_read) && launch_->reads_saturate())
      note_saturated_read(*cached.page, at);
    return true;
  }

  // The word at `at` of `cached`'s page, which the worker holds, keeps two
  // reads of the running launch by threads of two blocks, each of the
  // whole word, after a write that CUDA orders before the launch (or none).
  // A later read of the launch needs no record: a write after it, before
  // the launch ends, is unordered with one of the two unless it is ordered
  // after both blocks' reads, which takes a fence, a barrier in global
  // memory or a grid or cluster sync (launch::reads_saturate: none yet),
  // and a launch that CUDA does not order after this one is unordered with
  // both. Once every word of the page is so, its reads go without the
  // lock (reads_saturated) until a worker holds it for a check again.
  [[gnu::noinline]] void note_saturated_read(race_launch::page& page, std::size_t at) {
    // A segmented page's holders would count at once: its reads stay recorded.
    if (page.segmented.load(std::memory_order_relaxed)) return;
    race_launch::page::read_saturation& saturation = page.saturation;
    if (saturation.launch != identity_) saturation.start(identity_);
    std::uint64_t& words = saturation.words[at / 64];
    if (saturation.spoiled || (words >> at % 64 & 1)) return;
    words |= std::uint64_t{1} << at % 64;
    if (++saturation.count < race_shadow::words) return;
    // Every word was so once: each still is (a record changed since, by a
    // write, say, spoils the page for the launch).
    cached_page& cached = pages_[cache_index(page.index * race_launch::page::bytes)];
    if (cached.page != &page || cached.ready != holding_) return;
    race_shadow& shadow = page.words;
    for (std::size_t word = 0; word < race_shadow::words; ++word) {
      race_record* latest = shadow.find(race_shadow::latest_reads, word);
      race_record* earlier = shadow.find(race_shadow::earlier_reads, word);
      if (!latest || !earlier || !saturating_pair(*earlier, *latest) ||
          !ordered_before(cached, shadow.find(race_shadow::writes, word))) {
        saturation.spoiled = true;
        return;
      }
    }
    saturation.complete.store(identity_, std::memory_order_relaxed);
    cached.ready = 0;  // its reads go reads_saturated's way from now on
  }

  // Whether a word's two reads kept saturate it (note_saturated_read):
  // whole-word reads of the running launch by threads of two blocks.
  bool saturating_pair(const race_record& earlier, const race_record& latest) const {
    return earlier.launch() == launch_tag_ && latest.launch() == launch_tag_ && earlier.whole_word() &&
           latest.whole_word() && block_of(earlier) != block_of(latest);
  }

  // The block of a global record of the running launch.
  std::uint64_t block_of(const race_record& r) const {
    return r.state() == state_ ? block_ : launch_->states()[r.state()].block;
  }

  // check()'s rule for a global load by `thread` whose word's latest read
  // is of this launch: that read becomes the earlier one where another
  // thread made it (the same thread of another block counts as another),
  // unless the earlier one is of another warp that the load's keeps
  // (keeps_other_warp).
  [[gnu::always_inline]] bool read_displaces(const race_record& latest, const race_record* earlier,
                                             unsigned thread) const {
    bool by_another = latest.thread() != thread || block_of(latest) != block_;
    return by_another && !(earlier && keeps_other_warp(*earlier, latest, thread, state_));
  }

  // What a global access needs is inlined into this one call.
  [[gnu::noinline]] void check_access_fully(std::uintptr_t a, unsigned size, bool write, const void* pc) {
    busy_ = true;  // before the pages it holds change (on_page_request)
    std::atomic_signal_fence(std::memory_order_seq_cst);
    std::uintptr_t first = a & ~std::uintptr_t{3}, last = (a + size - 1) & ~std::uintptr_t{3};
    if (first == last)  // most accesses: a path of its own, without the loop's bookkeeping
      access_word(first, write, reinterpret_cast<std::uintptr_t>(pc), race_untouched_bytes_in_word(a, size));
    else
      for (std::uintptr_t w = first; w <= last; w += 4)
        if (!access_word(w, write, reinterpret_cast<std::uintptr_t>(pc), race_untouched_bytes(w, a, size))) break;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    busy_ = false;
  }

  // Returns false once a hazard was found, so that an 8- or 16-byte access
  // reports once.
  [[gnu::always_inline]] bool access_word(std::uintptr_t word, bool write, std::uintptr_t pc, std::uint32_t untouched) {
    // A global word of a page this worker used lately, in the allocation it
    // found there: one compare, where classifying the word takes a dozen.
    cached_page& cached = pages_[cache_index(word)];
    if (word - cached.begin >= cached.bytes) [[unlikely]] {
      if (word >= tls_begin_ && word < tls_end_) {
        if (shared_shadow_.untraced((word - tls_begin_) / 4)) return true;
        if (clustered_) [[unlikely]]
          return check_in_cluster(*this, block_, shared_shadow_, (word - tls_begin_) / 4, word, write, pc, false,
                                  untouched);
        return check<true>(shared_shadow_, (word - tls_begin_) / 4, word, race_space::shared, write, pc, false,
                           untouched);
      }
      if (word >= dynamic_begin_ && word < dynamic_end_) {
        if (clustered_) [[unlikely]]
          return check_in_cluster(*this, block_, dynamic_shadow_, (word - dynamic_begin_) / 4, word, write, pc, false,
                                  untouched);
        return check<true>(dynamic_shadow_, (word - dynamic_begin_) / 4, word, race_space::dynamic_shared, write, pc,
                           false, untouched);
      }
      if (peer_count_ != 0) [[unlikely]]
        if (cluster_peer* peer = peer_of(word)) return check_remote(*peer, word, write, pc, false, untouched);
      // Else a thread's stack, or host memory weft does not know: private.
      if (!cache_global_page(word, cached)) return true;
    }
    race_launch::page& page = *cached.page;
    if (!write && cached.ready != holding_ && reads_saturated(cached)) return true;
    race_launch::page_lock& lock = lock_of(cached, page, word);
    if (lock.holder.load(std::memory_order_relaxed) != holder_ || holder_->asked.load(std::memory_order_relaxed))
        [[unlikely]] {
      hold_word(cached, page, word);
      // Saturated while this worker waited for it: making it ready would
      // spoil it (the workers that waited at once spoiled one page in 65 of
      // a two-worker matmul, and more on 16).
      if (!write && cached.ready != holding_ && reads_saturated(cached)) return true;
    }
    if (page.owners[launch_tag_].get() != identity_) [[unlikely]] {
      if (!own(page)) return true;
      if (page.segmented.load(std::memory_order_relaxed)) hold_word(cached, page, word);  // own() let go of it
    }
    if (cached.ready != holding_) {
      cached.ready = holding_;
      cached.ordered_tags = {};
      // Its records may change now: no read goes unrecorded any more.
      if (page.saturation.complete.load(std::memory_order_relaxed)) [[unlikely]]
        page.saturation.spoil();
    }
    checking_page_ = &page;
    return check<false>(page.words, word % race_launch::page::bytes / 4, word, cached.space, write, pc, false,
                        untouched);
  }

  // The lock that `word` of `page` is checked under: the whole page's, or
  // in a segmented page the word's segment's, to which `cached` is then
  // narrowed (so that the ready paths find only the segment's words ready).
  [[gnu::always_inline]] race_launch::page_lock& lock_of(cached_page& cached, race_launch::page& page,
                                                         std::uintptr_t word) {
    if (!page.segmented.load(std::memory_order_acquire)) [[likely]]
      return page.whole;
    return segment(cached, page, word);
  }
  [[gnu::noinline]] race_launch::page_lock& segment(cached_page& cached, race_launch::page& page, std::uintptr_t word) {
    constexpr std::uintptr_t bytes = race_launch::page::segment_bytes;
    auto unit = static_cast<std::uint8_t>(word % race_launch::page::bytes / bytes);
    std::uintptr_t begin = std::max(cached.begin, word & ~(bytes - 1));
    std::uintptr_t end = std::min(cached.begin + cached.bytes, (word & ~(bytes - 1)) + bytes);
    cached.begin = begin;
    cached.bytes = end - begin;
    if (cached.unit != unit) {
      cached.unit = unit;
      cached.ready = 0;  // held for another segment
    }
    return page.segments[unit];
  }

  // Takes the lock of `word` of `page` (lock_of). A page that this worker
  // waited for, again and again, for words that no other block of the
  // launch touched (neighbouring blocks' parts of one page: a histogram's
  // input, which blocks b and b + 1 on two workers read in every step of
  // their grid-stride loops, each step a hand-off) is segmented, so that
  // each worker holds its blocks' segments. One that blocks share words of
  // (a tiled matmul's inputs) stays whole: segments would not part them.
  [[gnu::noinline]] void hold_word(cached_page& cached, race_launch::page& page, std::uintptr_t word) {
    constexpr unsigned waits_to_segment = 64;
    for (;;) {
      race_launch::page_lock& lock = lock_of(cached, page, word);
      bool waited = hold(lock);
      if (&lock != &page.whole) return;
      if (page.segmented.load(std::memory_order_acquire)) {  // segmented while this worker waited
        let_go_of_pages();
        continue;
      }
      if (!waited) return;
      if (!falsely_shared(page, word)) {
        page.false_sharing = 0;
        return;
      }
      if (++page.false_sharing < waits_to_segment) return;
      // Its parts made now, so that no segment's holder makes one.
      for (auto part : {race_shadow::writes, race_shadow::latest_reads, race_shadow::earlier_reads})
        page.words.make(part, 0);
      page.saturation.spoil();
      page.segmented.store(true, std::memory_order_release);
      let_go_of_pages();
    }
  }

  // Whether no other block of the running launch has touched `word` of
  // `page` (held) since its last write.
  bool falsely_shared(race_launch::page& page, std::uintptr_t word) {
    std::size_t at = word % race_launch::page::bytes / 4;
    for (auto part : {race_shadow::writes, race_shadow::latest_reads, race_shadow::earlier_reads}) {
      const race_record* r = page.words.find(part, at);
      if (r && r->launch() == launch_tag_ && block_of(*r) != block_) return false;
    }
    return true;
  }

  // Every lock of `page`: in segments, the whole page's first (one worker
  // at a time takes it, holding nothing else), then each segment's,
  // waiting for their holders with the others held (a segment's holder
  // lets go of everything before it waits for another lock, so none waits
  // for this worker). Outside a check the caller sets busy_, so that an
  // interrupt (on_page_request) leaves the locks alone.
  void hold_page(race_launch::page& page) {
    let_go_of_pages();
    hold(page.whole);
    if (!page.segmented.load(std::memory_order_acquire)) return;
    for (race_launch::page::segment_lock& segment : page.segments) {
      if (segment.locked.test_and_set(std::memory_order_acquire)) wait_for(segment);
      keep(segment);
    }
  }

  // Locks `lock` for this worker, to keep until let_go_of_pages; true if
  // it had to wait for another worker. Never waits while holding another
  // lock, so two workers never wait for each other.
  [[gnu::noinline]] bool hold(race_launch::page_lock& lock) {
    if (let_go_->load(std::memory_order_relaxed)) {  // another worker asked for one of ours
      let_go_of_pages();
      std::this_thread::yield();  // its chance to take it before this worker takes a page again
    }
    if (lock.holder.load(std::memory_order_relaxed) == holder_) return false;
    if (held_count_ == held_.size()) let_go_of_pages();
    bool waited = lock.locked.test_and_set(std::memory_order_acquire);
    if (waited) {
      let_go_of_pages();
      wait_for(lock);
    }
    keep(lock);
    return waited;
  }
  // `lock`, just taken, is this worker's until let_go_of_pages.
  void keep(race_launch::page_lock& lock) {
    lock.holder.store(holder_, std::memory_order_relaxed);
    held_[held_count_++] = &lock;
  }

  // Spins until it takes `lock`, which another worker holds. The holder
  // runs a block and lets go at its next access or barrier: poll a while
  // before yielding the core. A holder that has not let go a millisecond
  // after it was asked makes no traced access (it spins on memory the
  // check does not see, or its thread is not scheduled): it is interrupted
  // (on_page_request), every millisecond until it lets go.
  void wait_for(race_launch::page_lock& lock) {
    auto asked_at = std::chrono::steady_clock::now();
    for (unsigned round = 0;; ++round) {
      if (!lock.locked.test(std::memory_order_relaxed) && !lock.locked.test_and_set(std::memory_order_acquire)) return;
      race_page_holder* holder = lock.holder.load(std::memory_order_relaxed);
      if (holder && !holder->asked.load(std::memory_order_relaxed))
        holder->asked.store(true, std::memory_order_relaxed);
      if (round < 256) {
        cpu_relax();
        continue;
      }
      std::this_thread::yield();
      if (round % 64 == 0 && holder && std::chrono::steady_clock::now() - asked_at > std::chrono::milliseconds(1)) {
        holder->interrupt(&on_page_request);
        asked_at = std::chrono::steady_clock::now();
      }
    }
  }

  // Makes the running launch the owner of its tag's records in `page`,
  // which this worker holds. If the page may hold records with that tag
  // (of the launch that had it 255 launches earlier, finished), it is swept
  // of every stale record at once: those of launches ordered before this
  // one, or of none, whose tags are then
  // free for about as many launches again. While the tag's last launch
  // still runs, the page goes unchecked for this launch (a race can go
  // unseen, none is invented).
  [[gnu::noinline]] bool own(race_launch::page& page) {
    if (!page.segmented.load(std::memory_order_acquire)) return own_held(page);
    // A segment's holder may read the owners: every lock (hold_page).
    hold_page(page);
    bool owned = own_held(page);
    let_go_of_pages();
    return owned;
  }
  // own() of a page whose every lock the worker holds.
  [[gnu::noinline]] bool own_held(race_launch::page& page) {
    std::shared_ptr<race_launch_identity>& owner = page.owners[launch_tag_];
    if (owner && !owner->finished.load(std::memory_order_acquire)) return false;
    page.saturation.start(nullptr);
    if (page.tagged[launch_tag_ / 64] >> (launch_tag_ % 64) & 1) {
      std::array<bool, 256> stale{};
      std::vector<std::shared_ptr<race_launch_identity>> dropped;
      for (std::uint32_t tag = 1; tag < 256; ++tag) {
        std::shared_ptr<race_launch_identity>& o = page.owners[tag];
        stale[tag] = tag == launch_tag_ || !o || (o->finished.load(std::memory_order_acquire) && launch_->knows(*o));
        if (!stale[tag]) continue;
        page.tagged[tag / 64] &= ~(std::uint64_t{1} << (tag % 64));
        if (o) dropped.push_back(std::move(o));
      }
      page.words.forget_launches(stale);
    }
    page.tagged[launch_tag_ / 64] |= std::uint64_t{1} << (launch_tag_ % 64);
    owner = launch_->shared_identity();
    return true;
  }

  // A record in `page` made by another launch: the launch, if CUDA does
  // not order it before the running one, else null. The record stays
  // either way: a third launch that CUDA does not order after its launch
  // still meets it. A launch meets another's records at every access to
  // their words, a streaming kernel those of the launch before it in its
  // stream: the launches found ordered are remembered by tag (a page's
  // owner of a tag is compared; a launch freed and another made at its
  // address meanwhile can only hide a race).
  [[gnu::always_inline]] race_launch_identity* unordered_launch(race_launch::page& page, const race_record& r) {
    if (page.owners[r.launch()].get() == ordered_by_tag_[r.launch()]) return nullptr;
    return look_up_launch(page, r);
  }
  [[gnu::noinline]] race_launch_identity* look_up_launch(race_launch::page& page, const race_record& r) {
    // Either order will do: a kernel that programmatic dependent launch
    // lets start early runs beside the one it follows.
    race_launch_identity* other = page.owners[r.launch()].get();
    if (other && !launch_->knows(*other) && !other->follows(launch_->family())) return other;
    ordered_by_tag_[r.launch()] = other;  // a record without an owner is stale
    return nullptr;
  }

  // A range of addresses that is either one weft allocation or a gap
  // between two (where a thread's stack and a kernel's arguments lie).
  struct address_range {
    std::uintptr_t begin = 0, end = 0;
    bool allocation = false;
  };

  // The words of one shadow page that lie in one allocation (or in the
  // program's static data), as a worker remembers them.
  // 64 bytes: access() finds its entry with a shift.
  struct alignas(64) cached_page {
    // The page's part of its allocation: [begin, begin + bytes), one
    // compare of the address's offset (`end` took two instructions more).
    std::uintptr_t begin = 0, bytes = 0;
    std::uintptr_t index = ~std::uintptr_t{0};
    race_launch::page* page = nullptr;
    race_space space = race_space::global;
    // Equal to the worker's `holding_` while it holds the page and the
    // running launch owns its tag there: global_word_ordered's one compare,
    // where it read the page's holder and owner (neither changes before
    // the worker lets go of its pages).
    std::uint64_t ready = 0;
    // While `ready`: two launch tags whose records in the page are of
    // launches ordered before the running one (a streaming kernel's
    // words hold those of the copy or launch before and of the one before
    // that), which global_word_ordered then takes without looking up the
    // page's owner of the tag. Only the holder changes a page's owners,
    // and it makes its own launch the owner of its tag before `ready`.
    std::array<std::uint8_t, 2> ordered_tags{};
    // The segment of a segmented page that `ready` is for (race_worker::segment).
    std::uint8_t unit = whole_page;
    static constexpr std::uint8_t whole_page = 0xff;
    // The code address that streamed_word met last on the page, and its
    // number (race_sites): a streaming kernel's page is read or written by
    // one load or store, whose number is then one compare away, where the
    // worker's cache of sites took nine instructions.
    std::uint32_t streamed_site = 0;
    std::uintptr_t streamed_pc = 0;
  };

  // Whether `r` (of the cached page's words; null: none) is of a launch
  // that CUDA orders before the running one, or of none.
  [[gnu::always_inline]] bool ordered_before(cached_page& cached, const race_record* r) {
    if (!r) return true;
    std::uint32_t tag = r->launch();
    if (tag == 0 || tag == cached.ordered_tags[0] || tag == cached.ordered_tags[1]) [[likely]]
      return true;
    return tag_ordered_before(cached, tag);
  }
  // The same for a tag that the page's entry does not have yet: the tag's
  // owner in the page is a launch found ordered before (look_up_launch).
  [[gnu::always_inline]] bool tag_ordered_before(cached_page& cached, std::uint32_t tag) {
    if (tag == launch_tag_ || cached.page->owners[tag].get() != ordered_by_tag_[tag]) return false;
    cached.ordered_tags[1] = cached.ordered_tags[0];
    cached.ordered_tags[0] = static_cast<std::uint8_t>(tag);
    return true;
  }

  // If `word` is global memory (a weft allocation or the program's static
  // data), makes `cached` its page's entry and says true.
  [[gnu::noinline]] bool cache_global_page(std::uintptr_t word, cached_page& cached) {
    address_range global;
    race_space space = race_space::global;
    if (word >= static_data_begin_ && word < static_data_end_) {
      global = {static_data_begin_, static_data_end_, true};
      space = race_space::static_global;
    } else {
      global = range_of(word);
      if (!global.allocation) return false;
    }
    std::uintptr_t index = word / race_launch::page::bytes;
    if (cached.index != index) {
      cached.index = index;
      cached.page = &launch_->page_of(word);
      cached.ready = 0;  // another page: access_word holds and owns it first
      cached.unit = cached_page::whole_page;
    }
    cached.begin = std::max(global.begin, index * race_launch::page::bytes);
    cached.bytes = std::min(global.end, (index + 1) * race_launch::page::bytes) - cached.begin;
    cached.space = space;
    return true;
  }

  // The allocation or gap that holds `word`: the ranges of the last few
  // words asked about, else a binary search of the launch's list.
  address_range range_of(std::uintptr_t word) {
    for (const address_range& r : ranges_)
      if (word >= r.begin && word < r.end) {
        if (!r.allocation) note_private(r, word);
        return r;
      }
    return find_range(word);
  }

  // access()'s shortcut: the gap that holds `word`, less the memory that
  // access_word looked at before asking (and found `word` outside of). Two
  // gaps: a stackless kernel's locals lie in its coroutine frame, on the
  // heap, and what it does not keep across a co_await on the worker's
  // stack, and it goes from one to the other all the time.
  [[gnu::noinline]] void note_private(const address_range& gap, std::uintptr_t word) {
    other_private_begin_ = private_begin_;
    other_private_end_ = private_end_;
    private_begin_ = gap.begin;
    private_end_ = gap.end;
    auto clip = [&](std::uintptr_t begin, std::uintptr_t end) {
      if (begin == end) return;
      if (end <= word)
        private_begin_ = std::max(private_begin_, end);
      else if (begin > word)
        private_end_ = std::min(private_end_, begin);
    };
    for (auto [begin, end] : {std::pair{tls_begin_, tls_end_}, std::pair{dynamic_begin_, dynamic_end_},
                              std::pair{static_data_begin_, static_data_end_}})
      clip(begin, end);
    for (unsigned i = 0; i < peer_count_; ++i) {
      clip(peers_[i].tls_begin, peers_[i].tls_end);
      clip(peers_[i].dynamic_begin, peers_[i].dynamic_end);
    }
  }

  // Another block of the cluster, whose __shared__ memory the running block
  // mapped (cluster_block_mapped), and its worker once found.
  struct cluster_peer {
    std::uint64_t block = 0;
    std::uintptr_t tls_begin = 0, tls_end = 0, dynamic_begin = 0, dynamic_end = 0;
    race_worker* worker = nullptr;
  };

  [[gnu::always_inline]] cluster_peer* peer_of(std::uintptr_t word) {
    for (unsigned i = 0; i < peer_count_; ++i) {
      cluster_peer& p = peers_[i];
      if ((word >= p.tls_begin && word < p.tls_end) || (word >= p.dynamic_begin && word < p.dynamic_end)) return &p;
    }
    return nullptr;
  }

  // An access (`atomic`: an atomic function's write) to another block's
  // __shared__ word: checked in that block's shadow, which its worker
  // shares with the cluster's other workers under its lock.
  [[gnu::noinline]] bool check_remote(cluster_peer& peer, std::uintptr_t word, bool write, std::uintptr_t pc,
                                      bool atomic, std::uint32_t untouched = 0) {
    if (!peer.worker) {
      // Mapped, so started on its worker, whose check starts next.
      if (held_count_ != 0) let_go_of_pages();
      while (!(peer.worker = launch_->cluster_worker(peer.block))) std::this_thread::yield();
    }
    race_worker& owner = *peer.worker;
    bool dynamic = word >= peer.dynamic_begin && word < peer.dynamic_end;
    std::size_t at = (word - (dynamic ? peer.dynamic_begin : peer.tls_begin)) / 4;
    race_shared_shadow& shadow = dynamic ? owner.dynamic_shadow_ : owner.shared_shadow_;
    if (!dynamic && shadow.untraced(at)) return true;
    return check_in_cluster(owner, peer.block, shadow, at, word, write, pc, atomic, untouched);
  }

  // A __shared__ word of `owner`'s block (this worker's own, or a peer's)
  // in a launch with clusters: its records name their block's state, so
  // that the other blocks' accesses are ordered by cluster syncs, and are
  // stamped apart from a block without clusters (read_ordered's fast path,
  // which keeps epochs, then never applies).
  bool check_in_cluster(race_worker& owner, std::uint64_t owner_block, race_shared_shadow& shadow, std::size_t at,
                        std::uintptr_t word, bool write, std::uintptr_t pc, bool atomic, std::uint32_t untouched = 0) {
    while (owner.shadow_lock_.test_and_set(std::memory_order_acquire)) cpu_relax();
    shadow.renew(at, owner.generation_ | clustered_stamp);
    distributed_owner_ = owner_block;
    bool ordered = check<true, true>(shadow, at, word, race_space::distributed_shared, write, pc, atomic, untouched);
    owner.shadow_lock_.clear(std::memory_order_release);
    return ordered;
  }
  static constexpr std::uint64_t clustered_stamp = std::uint64_t{1} << 63;

  // range_of's search, whose range it remembers.
  [[gnu::noinline]] address_range find_range(std::uintptr_t word) {
    const race_ranges& all = launch_->allocations();
    auto after = std::upper_bound(all.begin(), all.end(), std::pair{word, ~std::uintptr_t{0}});
    address_range found;
    if (after != all.begin() && word < std::prev(after)->second) {
      found = {std::prev(after)->first, std::prev(after)->second, true};
    } else {
      found = {after == all.begin() ? 0 : std::prev(after)->second,
               after == all.end() ? ~std::uintptr_t{0} : after->first, false};
      note_private(found, word);
    }
    std::rotate(ranges_.rbegin(), ranges_.rbegin() + 1, ranges_.rend());
    ranges_[0] = found;
    return found;
  }

  // The block's state as of now: its handle, made at its first access
  // since the block started or last synchronised.
  [[gnu::always_inline]] std::uint32_t current_state() {
    if (state_ == 0) [[unlikely]]
      state_ = launch_->states().add({block_, epoch_, group_epoch_, fences_->load(std::memory_order_acquire)});
    return state_;
  }

  // The number of the code address `pc`, from the worker's cache.
  [[gnu::always_inline]] std::uint32_t site_of(std::uintptr_t pc) {
    auto& [cached_pc, site] = site_entry(pc);
    if (cached_pc != pc) [[unlikely]] {
      cached_pc = pc;
      site = race_sites::id(pc);
    }
    return site;
  }

  // The cache's entry for `pc`: the code address it holds and its number.
  [[gnu::always_inline]] std::pair<std::uintptr_t, std::uint32_t>& site_entry(std::uintptr_t pc) {
    return sites_[(pc ^ (pc >> 9)) % sites_.size()];
  }

  // A record as a report names it.
  template <bool shared>
  race_access described(const race_record& r) const {
    return {.pc = race_sites::pc(r.site()),
            .block = shared ? block_ : launch_->states()[r.state()].block,
            .thread = r.thread(),
            .write = r.write()};
  }

  // Another launch's record as a report names it.
  [[gnu::cold]] static race_access described_of(const race_record& r, race_launch_identity& other) {
    return {.launch = &other,
            .pc = race_sites::pc(r.site()),
            .block = other.states[r.state()].block,
            .thread = r.thread(),
            .write = r.write()};
  }

  // What `thread` of the running block knows of other threads' releases.
  race_clock& known_of(unsigned thread) {
    if (known_generation_[thread] != generation_) {
      known_generation_[thread] = generation_;
      known_[thread].clear();
    }
    return known_[thread];
  }

  // Whether `address` lies in the running block's __shared__ memory, where
  // only its own threads reach it.
  bool in_shared_memory(const void* address) const {
    auto a = reinterpret_cast<std::uintptr_t>(address);
    return (a >= tls_begin_ && a < tls_end_) || (a >= dynamic_begin_ && a < dynamic_end_);
  }

  // Whether only the running block's threads can reach `barrier`: it lies
  // in the block's __shared__ memory, and the launch has no clusters (whose
  // other blocks may arrive at it through cluster.map_shared_rank).
  bool block_local(const void* barrier) const { return !clustered_ && in_shared_memory(barrier); }

  // The block whose __shared__ memory holds `barrier`, plus one; 0 for
  // global memory. A launch's later block on the same worker has its
  // barriers at the same addresses: its phases start afresh.
  std::uint64_t barrier_owner(const void* barrier) {
    if (in_shared_memory(barrier)) return block_ + 1;
    if (peer_count_ != 0)
      if (cluster_peer* peer = peer_of(reinterpret_cast<std::uintptr_t>(barrier))) return peer->block + 1;
    return 0;
  }
  static race_barrier_phases& owned_phases(race_barrier_phases& p, std::uint64_t owner) {
    if (p.generation != owner) {
      p = race_barrier_phases{};
      p.generation = owner;
    }
    return p;
  }

  // Calls `use` with the phases of the barrier at `barrier`: the worker's,
  // for one that only the block's threads reach (block_local); else the
  // launch's, which other blocks' workers arrive at too (a device-scope
  // barrier in global memory, or one in a block's __shared__ memory in a
  // launch with clusters).
  template <class Use>
  void with_barrier_phases(const void* barrier, Use use) {
    if (!block_local(barrier)) {
      std::uint64_t owner = barrier_owner(barrier);
      launch_->with_barrier_phases(barrier, [&](race_barrier_phases& p) { use(owned_phases(p, owner)); });
      return;
    }
    race_barrier_phases& p = (*barrier_phases_)[barrier];
    if (p.generation != generation_) {
      p = race_barrier_phases{};
      p.generation = generation_;
    }
    use(p);
  }

  // Whether `thread` of the running block acquired a release that covers `earlier`.
  bool knows(unsigned thread, std::uint64_t block, const race_record& earlier) const {
    return knows(thread, race_thread_key(block, earlier.thread()), earlier.release_clock());
  }
  // Whether `thread` of the running block knows `key` up to `value`.
  bool knows(unsigned thread, std::uint64_t key, std::uint32_t value) const {
    return (known_generation_[thread] == generation_ && race_covers(known_[thread], key, value)) ||
           (knows_other_blocks_ && race_covers(block_known_, key, value));
  }

  // What threads of other blocks released to a thread of this one (a
  // device-scope barrier's phase) reaches the block's other threads through
  // its own barriers and warp collectives, as CUDA's happens-before is
  // transitive: thread 0 waiting at a grid-wide barrier, then
  // __syncthreads, orders the whole block after the other blocks'
  // arrivals. Within the block, the epoch and the lanes' clocks order the
  // same already; this is only kept once a thread knows another block's.
  [[gnu::noinline]] void share_known_with_block() {
    for (unsigned t = 0; t < threads_; ++t)
      if (known_generation_[t] == generation_ && !known_[t].empty()) race_join(block_known_, known_[t]);
  }
  [[gnu::noinline]] void share_known_among(unsigned warp, unsigned mask) {
    race_clock joined;
    for (unsigned m = mask; m != 0; m &= m - 1) race_join(joined, known_of(32 * warp + __builtin_ctz(m)));
    for (unsigned m = mask; m != 0; m &= m - 1) race_join(known_of(32 * warp + __builtin_ctz(m)), joined);
  }

  // Lane `lane`'s entry in the clock of `thread`'s lane.
  [[gnu::always_inline]] std::uint32_t lane_clock(unsigned thread, unsigned lane) const {
    unsigned warp = thread / 32;
    if (warp_clock_generation_[warp] != generation_) return (thread % 32 == lane) ? lane_clock_untouched : 0;
    return warp_clocks_[static_cast<std::size_t>(warp) * 1024 + 32 * (thread % 32) + lane];
  }
  static constexpr std::uint32_t lane_clock_untouched = 1;  // a lane's own, before any warp collective

  // race_record::thread_half for an access by `thread` now. Until a thread
  // of the block ticks its clock (a fence, an arrival) or meets a warp
  // collective, every thread's clocks are 1: the half is then the same
  // for all but the thread's number and the write bit, made at the
  // block's start, where looking up and clamping both clocks was a fifth
  // of a streaming kernel's global access.
  [[gnu::always_inline]] std::uint64_t thread_half(unsigned thread, bool write) const {
    if (plain_clocks_) [[likely]]
      return plain_thread_half_ | thread | std::uint64_t{write} << 10;
    return race_record::thread_half(thread, write, clocks_[thread], lane_clock(thread, thread % 32), launch_tag_);
  }

  std::uint32_t* warp_clock(unsigned warp) {
    plain_clocks_ = false;  // its caller changes the clocks
    stop_streaming();
    std::uint32_t* clocks = &warp_clocks_[static_cast<std::size_t>(warp) * 1024];
    if (warp_clock_generation_[warp] != generation_) {
      warp_clock_generation_[warp] = generation_;
      std::fill(clocks, clocks + 1024, 0u);
      for (unsigned l = 0; l < 32; ++l) clocks[32 * l + l] = 1;
    }
    return clocks;
  }

  // Whether `earlier` happens before an access that `thread` of the
  // running block makes now, in state `state`. A __shared__ word's records
  // (`shared`) are all the running block's (the shadow is stamped), and
  // carry its epoch in place of a state: only the epoch orders two threads
  // of one block, and following a state's handle into the launch's table
  // (dependent loads) was a quarter of a tiled matmul's check.
  template <bool shared>
  [[gnu::always_inline]] bool ordered(const race_record& earlier, unsigned thread, std::uint32_t state) const {
    if constexpr (shared) {
      if (earlier.thread() == thread || state > earlier.state()) return true;
    } else if (earlier.state() == state) {  // this block, with no synchronisation since
      if (earlier.thread() == thread) return true;
    } else {
      const race_block_state& then = launch_->states()[earlier.state()];
      if (then.block != block_)
        return group_epoch_ > then.group_epoch || launch_->published_fences(then.block) > then.fences ||
               knows(thread, then.block, earlier) ||  // a barrier phase that both blocks' threads took part in
               knows(thread, race_block_key(then.block), then.epoch + 1) ||  // ... after a barrier of the earlier block
               knows(thread, race_lane_key(then.block, earlier.thread()),
                     earlier.lane_clock());  // ... or a warp collective
      if (earlier.thread() == thread || epoch_ > then.epoch) return true;
    }
    if (earlier.thread() / 32 == thread / 32 && lane_clock(thread, earlier.thread() % 32) >= earlier.lane_clock())
      return true;
    return knows(thread, block_, earlier) ||
           knows(thread, race_lane_key(block_, earlier.thread()), earlier.lane_clock());
  }

  // `shared`: the shadow is a worker's, of __shared__ memory (stamped).
  // `by_state`: its records name their block's state (a global word's, or
  // in a launch with clusters a __shared__ word's: check_in_cluster, which
  // stamps it), not the running block's epoch. `atomic`: an atomic
  // function's write, which races with plain accesses only. `untouched`:
  // the word's bytes the access left alone (race_untouched_bytes); a record
  // of other bytes only is no hazard, asked only of a record found
  // unordered. A record replaced here keeps no trace of its bytes: a race
  // with a byte that only the replaced record touched goes unseen.
  template <bool shared, bool by_state = !shared, class Shadow>
  [[gnu::always_inline]] bool check(Shadow& shadow, std::size_t at, std::uintptr_t word, race_space space, bool write,
                                    std::uintptr_t pc, bool atomic = false, std::uint32_t untouched = 0) {
    constexpr bool epochs = !by_state;
    std::uint32_t state;
    if constexpr (shared) {
      // A holder that computes in __shared__ memory for a while lets go of
      // its global pages as soon as asked.
      if (held_count_ != 0 && let_go_->load(std::memory_order_relaxed)) [[unlikely]]
        let_go_of_pages();
    }
    if constexpr (epochs) {
      shadow.renew(at, generation_);
      state = epoch_;  // the block's own record: its epoch (ordered())
    } else {
      state = current_state();
      if (state == 0) [[unlikely]]
        return true;  // the launch's table is full
    }
    unsigned thread = linear_thread_index(threadIdx, blockDim);
    race_record* last_write = shadow.find(race_shadow::writes, at);
    race_record* latest_read = shadow.find(race_shadow::latest_reads, at);
    race_record* earlier_read = shadow.find(race_shadow::earlier_reads, at);
    const race_record* hazard = nullptr;
    race_kind kind{};
    race_launch_identity* other = nullptr;
    if constexpr (!shared) {
      // Another launch's record: a hazard between two kernels unless CUDA
      // orders that launch before this one. Tags first: most records are
      // this launch's, or none.
      auto foreign = [&](const race_record* r) { return r && r->launch() != launch_tag_ && r->launch() != 0; };
      if (foreign(last_write) && last_write->overlaps(untouched) &&
          (other = unordered_launch(*checking_page_, *last_write))) {
        hazard = last_write;
        kind = write ? race_kind::write_after_write : race_kind::read_after_write;
      } else if (write && foreign(latest_read) && latest_read->overlaps(untouched) &&
                 (other = unordered_launch(*checking_page_, *latest_read))) {
        hazard = latest_read;
        kind = race_kind::write_after_read;
      } else if (write && foreign(earlier_read) && earlier_read->overlaps(untouched) &&
                 (other = unordered_launch(*checking_page_, *earlier_read))) {
        hazard = earlier_read;
        kind = race_kind::write_after_read;
      }
    }
    if (hazard) {
      // between two launches (above)
    } else if (last_write && last_write->launch() == launch_tag_ && !(atomic && last_write->atomic()) &&
               !ordered<epochs>(*last_write, thread, state) && last_write->overlaps(untouched)) {
      hazard = last_write;
      kind = write ? race_kind::write_after_write : race_kind::read_after_write;
    } else if (write && latest_read && latest_read->launch() == launch_tag_) {
      if (!ordered<epochs>(*latest_read, thread, state) && latest_read->overlaps(untouched)) {
        hazard = latest_read;
        kind = race_kind::write_after_read;
      } else if (earlier_read && earlier_read->launch() == launch_tag_ &&
                 !ordered<epochs>(*earlier_read, thread, state) && earlier_read->overlaps(untouched)) {
        hazard = earlier_read;
        kind = race_kind::write_after_read;
      }
    }
    race_record now(site_of(pc), state, untouched, thread_half(thread, write));
    if (atomic) now.mark_atomic();
    if (hazard) [[unlikely]]
      report(kind, other ? described_of(*hazard, *other) : described<epochs>(*hazard), described<epochs>(now), word,
             space);
    if (write) {
      shadow.make(race_shadow::writes, at).store(now);
      if (latest_read) latest_read->forget();
      if (earlier_read) earlier_read->forget();
    } else {
      // A read by another thread is kept as the earlier read; another
      // launch's, if CUDA does not order that launch before this one.
      if (latest_read && latest_read->launch() == launch_tag_ &&
          (latest_read->thread() != thread ||
           (by_state && latest_read->state() != state && launch_->states()[latest_read->state()].block != block_)) &&
          !(earlier_read && keeps_other_warp(*earlier_read, *latest_read, thread, state)))
        shadow.make(race_shadow::earlier_reads, at) = *latest_read;
      else if (!shared && latest_read && latest_read->launch() != 0 && latest_read->launch() != launch_tag_ &&
               unordered_launch(*checking_page_, *latest_read))
        shadow.make(race_shadow::earlier_reads, at) = *latest_read;
      shadow.make(race_shadow::latest_reads, at).store(now);
      if constexpr (!shared)
        if (untouched == 0 && !atomic && launch_->reads_saturate()) {
          race_record* kept = shadow.find(race_shadow::earlier_reads, at);
          if (kept && saturating_pair(*kept, now)) note_saturated_read(*checking_page_, at);
        }
    }
    return hazard == nullptr;
  }

  void report(race_kind kind, const race_access& earlier, const race_access& now, std::uintptr_t word,
              race_space space);
  void record_command_words(race_launch::page& page, std::uintptr_t begin, std::uintptr_t end, const race_record& now,
                            const race_access& copy, race_space space);

  // The calling thread's block of static thread-local storage (the
  // executable's PT_TLS segment), where __shared__ variables live.
  void find_static_tls() {
    static_tls_found_ = true;
    struct found {
      std::uintptr_t tls = 0, tls_bytes = 0, data = 0, data_end = 0;
    } f;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* out) {
          auto& f = *static_cast<found*>(out);
          for (int i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr)& h = info->dlpi_phdr[i];
            if (h.p_type == PT_TLS && info->dlpi_tls_data) {
              f.tls = reinterpret_cast<std::uintptr_t>(info->dlpi_tls_data);
              f.tls_bytes = h.p_memsz;
            }
            if (h.p_type == PT_LOAD && (h.p_flags & PF_W)) {
              std::uintptr_t begin = info->dlpi_addr + h.p_vaddr;
              if (!f.data || begin < f.data) f.data = begin;
              f.data_end = std::max<std::uintptr_t>(f.data_end, begin + h.p_memsz);
            }
          }
          return 1;  // the executable comes first
        },
        &f);
    tls_begin_ = f.tls;
    tls_end_ = f.tls + f.tls_bytes;
    tls_bytes_ = f.tls_bytes;
    static_data_begin_ = f.data;
    static_data_end_ = f.data_end;
    shared_shadow_ = race_shared_shadow(f.tls_bytes / 4 + 1);
    auto ignore = [&](const void* p, std::size_t bytes) {
      std::uintptr_t b = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{3};
      for (std::uintptr_t w = b; w < reinterpret_cast<std::uintptr_t>(p) + bytes; w += 4)
        if (w >= tls_begin_ && w < tls_end_) shared_shadow_.set_untraced((w - tls_begin_) / 4);
    };
    const std::pair<const void*, std::size_t> builtins[] = {{&threadIdx, sizeof threadIdx},
                                                            {&blockIdx, sizeof blockIdx},
                                                            {&blockDim, sizeof blockDim},
                                                            {&gridDim, sizeof gridDim}};
    for (auto [p, size] : builtins) ignore(p, size);
    for (const race_untraced_thread_local& t : race_untraced_thread_locals()) ignore(t.address(), t.bytes);
  }

  bool busy_ = false;
  race_launch* launch_ = nullptr;
  std::uint64_t launch_serial_ = 0;
  std::uint64_t block_ = 0;
  const std::atomic<std::uint32_t>* fences_ = nullptr;  // the block's count of __threadfence() calls
  std::uint64_t generation_ = 0;
  unsigned threads_ = 0;
  std::uint32_t epoch_ = 0, group_epoch_ = 0;
  std::vector<std::uint32_t> warp_clocks_;  // per warp, 32 clocks of 32 lanes
  std::vector<std::uint64_t> warp_clock_generation_;
  bool static_tls_found_ = false;
  std::uintptr_t tls_begin_ = 0, tls_end_ = 0;
  std::uintptr_t static_data_begin_ = 0, static_data_end_ = 0;
  std::uintptr_t dynamic_begin_ = 0, dynamic_end_ = 0;
  race_shared_shadow shared_shadow_{0};
  race_shared_shadow dynamic_shadow_{0};
  std::uint32_t state_ = 0;  // the block's race_block_state; 0: to be made at its next access
  std::uint32_t launch_tag_ = 0;
  const race_launch_identity* identity_ = nullptr;  // the running launch's
  race_launch::page* checking_page_ = nullptr;      // the global page of the access being checked
  // By tag, the launches found ordered before this one (unordered_launch).
  std::array<const race_launch_identity*, 256> ordered_by_tag_{};
  // Code addresses' numbers, direct-mapped: 256 entries missed often
  // enough in a stackless tiled matmul (its coroutine's resume function
  // alone has 84 callbacks) that race_sites::id, under its lock, was 8 %.
  std::array<std::pair<std::uintptr_t, std::uint32_t>, 1024> sites_{};
  // Release and acquire through atomics, per thread of the running block:
  // its clock (its fences so far, plus one), the clock at its last fence (0:
  // none yet), and what it knows of other threads.
  std::vector<std::uint32_t> clocks_;
  std::vector<std::uint32_t> fenced_at_;
  // No thread's clock or lane clock has changed since the block started
  // (thread_half), and the record half they all share then.
  bool plain_clocks_ = false;
  std::uint64_t plain_thread_half_ = 0;
  // The block is one-dimensional: threadIdx.x is a thread's number (streamed_word).
  bool streaming_block_ = false;
  // Equal to holding_ while streamed_word may check an access to a ready
  // page (cached_page::ready): the block is one-dimensional, its threads'
  // clocks untouched, its state made, no copy in flight. Never a page's
  // `ready` once any of these may have changed (stop_streaming), until
  // access_ready_page finds them so again: one compare, where testing each
  // was ten instructions of every streamed access.
  std::uint64_t streamed_ready_ = not_streaming;
  std::uint64_t streamed_state_half_ = 0;  // state_'s record half while streamed_ready_ (state_ is unchanged then)
  static constexpr std::uint64_t not_streaming = ~std::uint64_t{0};
  std::vector<race_clock> known_;
  std::vector<std::uint64_t> known_generation_;
  std::unordered_map<std::uintptr_t, race_clock> shared_atomic_words_;  // this block's __shared__ atomic words
  // Whether a thread of the block acquired a release of another block's
  // thread (a device-scope barrier's phase), and what the block's barriers
  // since shared of such knowledge (share_known_with_block).
  bool knows_other_blocks_ = false;
  race_clock block_known_;
  // A launch with clusters: the blocks whose __shared__ memory the running
  // block mapped (a cluster has at most 16), the lock of this worker's
  // shadows (its own block's threads and the cluster's others check there),
  // and the block whose word check_in_cluster checks, for the report.
  bool clustered_ = false;
  std::array<cluster_peer, 16> peers_{};
  unsigned peer_count_ = 0;
  std::atomic_flag shadow_lock_ = ATOMIC_FLAG_INIT;
  std::uint64_t distributed_owner_ = 0;
  const void* block_scope_atomic_ = nullptr;  // next_atomic_at_block_scope's, until that atomic
  // The phases of the barriers in the block's __shared__ memory, by barrier
  // (barrier_arrival). On the heap: the worker is thread-local, where
  // __shared__ variables are, and the map's own members (a single bucket,
  // its count) written by std::unordered_map's out-of-line code, which is
  // traced, were taken for a kernel's __shared__ words.
  std::unique_ptr<std::unordered_map<const void*, race_barrier_phases>> barrier_phases_ =
      std::make_unique<std::unordered_map<const void*, race_barrier_phases>>();
  race_copies_in_flight copies_;                        // the block's asynchronous copies in flight
  std::uintptr_t private_begin_ = 0, private_end_ = 0;  // the last two gaps found (note_private)
  std::uintptr_t other_private_begin_ = 0, other_private_end_ = 0;
  std::uintptr_t tls_bytes_ = 0;           // tls_end_ - tls_begin_: access()'s first compare
  std::array<address_range, 8> ranges_{};  // the launch's, most recently found first
  // The launch's shadow pages that this worker used, by page index
  // (direct-mapped, cache_index): most accesses skip classifying their
  // address and page_of's mutex and hash table.
  std::array<cached_page, 64> pages_{};
  // The global shadow pages this worker has locked, and the worker as
  // those that wait for them see it (`let_go_`: its flag they set to have
  // them back). The record outlives the worker (a waiter may set the flag
  // just as the worker's thread ends).
  std::array<race_launch::page_lock*, 64> held_{};
  unsigned held_count_ = 0;
  std::uint64_t holding_ = 1;  // counts let_go_of_pages' calls (cached_page::ready)
  race_page_holder* holder_ = race_page_holder::for_this_thread();
  std::atomic<bool>* let_go_ = &holder_->asked;
  static race_worker* race_running_worker();
};

/// The worker's race-check state while it runs a block of a race-checked
/// launch; null otherwise (host code, or a build without the check).
inline thread_local race_worker* race_running = nullptr;

inline race_worker* race_worker::race_running_worker() { return race_running; }

// Kernel code reads race_running wherever weft's hooks are inlined into it
// (every atomic function's, a barrier's): weft's own, not a __shared__
// variable. Taken for one, each such 8-byte load was checked and recorded
// as a read of two __shared__ words (about 190 instructions an atomicAdd).
inline const bool race_running_untraced =
    race_untraced([]() -> const void* { return &race_running; }, sizeof race_running);

/// Called before a worker waits for other blocks (a grid or cluster sync, a
/// cuda::barrier of device scope): in a race-check build, lets go of the
/// global shadow pages it holds, which those blocks may need.
inline void race_let_go_before_waiting() {
  if constexpr (race_check_build)
    if (race_worker* worker = race_running) worker->let_go_of_pages();
}

// The hooks of a barrier's phases (cuda::barrier, a block pipeline's
// stages, the block's split barrier: barrier_state in
// cuda/device/async/barrier.hpp), for the race check. Out of line: a
// stackless kernel's awaitables inline their callers into its traced body.

/// The calling thread is about to arrive at `barrier`, or did not
/// (race_worker::barrier_arrival_begins).
[[gnu::noinline]] inline void race_barrier_arrival_begins(const void* barrier) {
  if (race_worker* worker = race_running) worker->barrier_arrival_begins(barrier);
}
[[gnu::noinline]] inline void race_barrier_arrival_failed(const void* barrier) {
  if (race_worker* worker = race_running) worker->barrier_arrival_failed(barrier);
}
/// The calling thread arrived at `barrier` (race_worker::barrier_arrival).
[[gnu::noinline]] inline void race_barrier_arrival(const void* barrier, std::uint32_t phase, std::uint32_t update,
                                                   bool waits_at_once) {
  if (race_worker* worker = race_running) worker->barrier_arrival(barrier, phase, update, waits_at_once);
}
/// The last arrival of `barrier`'s phase came, before its completion function.
[[gnu::noinline]] inline void race_barrier_arrivals_completed(const void* barrier, std::uint32_t phase) {
  if (race_worker* worker = race_running) worker->barrier_arrivals_completed(barrier, phase);
}
/// `barrier`'s phase `phase` completed, before any waiter can see it.
[[gnu::noinline]] inline void race_barrier_phase_completed(const void* barrier, std::uint32_t phase) {
  if (race_worker* worker = race_running) worker->barrier_phase_completed(barrier, phase);
}
/// The calling thread's wait for `barrier`'s phase `phase` returned.
[[gnu::noinline]] inline void race_barrier_waited(const void* barrier, std::uint32_t phase) {
  if (race_worker* worker = race_running) worker->barrier_waited(barrier, phase);
}

/// Every thread of the running block that has not returned passed a block
/// barrier (race_worker::block_synced): a region version's barrier
/// (region_block.hpp), whose loops the executor does not see.
[[gnu::noinline]] inline void race_block_synced() {
  if (race_worker* worker = race_running) worker->block_synced();
}

inline race_worker& race_worker_of_this_thread() {
  static thread_local race_worker worker;
  return worker;
}

}  // namespace weft::detail

#include "weft/detail/checks/race_report.hpp"
#include "weft/detail/checks/race_stream_copy.hpp"
