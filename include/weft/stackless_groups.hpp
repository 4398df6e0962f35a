// Cooperative groups in stackless kernels: each group function that waits,
// awaited, as CUDA's name in namespace weft taking the group first.
//
//   namespace cg = cooperative_groups;
//   auto block = cg::this_thread_block();
//   auto tile = cg::tiled_partition<32>(block);
//   co_await weft::sync(block);                              // block.sync(), cg::sync(block)
//   int below = co_await weft::shfl_up(tile, v, 1);          // tile.shfl_up(v, 1)
//   int sum = co_await weft::reduce(tile, v, cg::plus<int>());  // cg::reduce(tile, v, cg::plus<int>())
//
// Making groups, ranks and sizes wait for nothing and keep CUDA's spelling
// (this_thread_block, tiled_partition, thread_rank, ...); a member that
// waits (block.sync(), tile.shfl(...)), called without co_await in a
// stackless kernel, fails the launch with the report of the CUDA function
// it calls. Each awaitable is the fiber version's warp collectives or
// barrier, with its masks, widths, lines and reports: a kernel gives the
// same results and reports on both executors (docs/architecture.md,
// "Stackless kernels"). The grid and the cluster are awaited at their sync
// (co_await weft::sync(grid)), the cluster also at its split barrier
// (co_await weft::barrier_arrive(cluster), weft::barrier_wait(cluster,
// std::move(token))); cg::memcpy_async's waits are awaited as
// co_await weft::wait(g) and weft::wait_prior<N>(g). A multi-warp tile
// (thread_block_tile<64> up to 1024) awaits its sync, shfl, any, all,
// reduce and scans, as on fibers through the tile's barrier and scratch.
// The block's split barrier is arrived at as co_await
// weft::barrier_arrive(block) (it never waits: block.barrier_arrive() does
// the same) and awaited as co_await weft::barrier_wait(block,
// std::move(token)); cg::reduce_store_async, reduce_update_async and the
// *_scan_update variants are co_await weft::NAME(g, destination, val, op).
#pragma once

#include <array>
#include <bit>
#include <concepts>
#include <coroutine>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>
#include <utility>

#include "weft/cuda/device/cooperative_groups.hpp"
#include "weft/detail/coroutine_executor/block_set_awaiter.hpp"
#include "weft/detail/coroutine_executor/call_site.hpp"
#include "weft/stackless_barrier.hpp"
#include "weft/stackless_kernel.hpp"

namespace weft::detail::stackless_groups {

using groups::access;

/// Awaits `inner`, then gives finish(its result): a group's result from
/// the warp collective's (a ballot shifted to the tile's ranks, a value's
/// bits).
template <class Awaiter, class Finish>
class finished_awaiter {
 public:
  finished_awaiter(Awaiter inner, Finish finish) : inner_(std::move(inner)), finish_(std::move(finish)) {}
  bool await_ready() { return inner_.await_ready(); }
  template <stackless_promise Promise>
  void await_suspend(std::coroutine_handle<Promise> waiting) noexcept {
    inner_.await_suspend(waiting);
  }
  auto await_resume() { return finish_(inner_.await_resume()); }

 private:
  Awaiter inner_;
  Finish finish_;
};

template <class Group>
inline constexpr bool is_lane_tile = false;
template <unsigned int Size, class ParentT>
inline constexpr bool is_lane_tile<cooperative_groups::thread_block_tile<Size, ParentT>> = Size <= 32;

/// The groups of one warp whose collectives are awaited here.
template <class Group>
concept lane_group = is_lane_tile<Group> || std::same_as<Group, cooperative_groups::coalesced_group>;

/// A tile of 64 to 1024 threads (whole warps): its collectives meet at the
/// tile's cuda::barrier and pass values through its scratch, as on fibers
/// (cooperative_groups/multi_warp_tile.hpp).
template <class Group>
concept multi_warp_tile = groups::is_multi_warp_tile<Group>::value;

/// The groups whose reductions and scans are awaited: one warp's, or whole warps'.
template <class Group>
concept reducing_group = lane_group<Group> || multi_warp_tile<Group>;

/// A cuda::atomic or cuda::atomic_ref, which the asynchronous reductions
/// and the scans' update variants take.
template <class Atomic>
concept cuda_atomic = groups::is_cuda_atomic<std::remove_cvref_t<Atomic>>;

template <class Group>
groups::multi_warp_tiles& tiles_of(const Group&) {
  return groups::multi_warp_tiles::of_running_block(Group::num_threads());
}

/// The groups whose cg::memcpy_async copies are waited for with weft::wait.
template <class Group>
concept copying_group = std::same_as<Group, cooperative_groups::thread_block> || lane_group<Group> ||
    multi_warp_tile<Group> || std::same_as<Group, cooperative_groups::thread_group>;

template <class Group>
inline constexpr unsigned tile_size = 0;
template <unsigned int Size, class ParentT>
inline constexpr unsigned tile_size<cooperative_groups::thread_block_tile<Size, ParentT>> = Size;

/// A group's shuffle moves one 64-bit word of the value, as on fibers
/// (groups::shuffle_value): values of more than 8 bytes take one each.
template <class T>
inline constexpr bool one_word = std::is_trivially_copyable_v<T> && sizeof(T) <= 8;

template <class T>
std::uint64_t word_of(const T& value) {
  std::uint64_t word = 0;
  std::memcpy(&word, &value, sizeof(T));
  return word;
}

template <class T>
T value_of(std::uint64_t word) {
  std::array<unsigned char, sizeof(T)> bytes;
  std::memcpy(bytes.data(), &word, sizeof(T));
  return std::bit_cast<T>(bytes);
}

/// __syncthreads for a group function, at its caller's call site.
inline barrier_awaiter<barrier_kind::sync> block_barrier(std::source_location where) { return {0, where}; }

/// One word's shuffle among `mask`: the fiber version's __shfl*_sync(mask,
/// unsigned long long, b, width).
inline warp_awaiter<unsigned long long> word_shuffle(warp_op op, unsigned mask, std::uint64_t word, int b, int width,
                                                     std::source_location where) {
  return {op, mask, {word, b, width}, where};
}

template <class T>
auto value_shuffle(warp_op op, unsigned mask, const T& value, int b, int width, std::source_location where) {
  return finished_awaiter(word_shuffle(op, mask, word_of(value), b, width, where),
                          [](unsigned long long word) { return value_of<T>(word); });
}

// A value of several words: a shuffle each, as on fibers.
template <class T>
stackless_function<T> words_shuffle(warp_op op, unsigned mask, T value, int b, int width, std::source_location where) {
  constexpr std::size_t words = (sizeof(T) + 7) / 8;
  unsigned long long bits[words] = {};
  std::memcpy(bits, &value, sizeof(T));
  for (auto& word : bits) word = co_await word_shuffle(op, mask, word, b, width, where);
  std::memcpy(&value, bits, sizeof(T));
  co_return value;
}

template <class T>
auto group_shuffle(warp_op op, unsigned mask, const T& value, int b, int width, std::source_location where) {
  static_assert(std::is_trivially_copyable_v<T>, "a group shuffles only trivially copyable values");
  if constexpr (one_word<T>)
    return value_shuffle(op, mask, value, b, width, where);
  else
    return words_shuffle(op, mask, value, b, width, where);
}

/// A coalesced group's lane of rank `rank`.
inline unsigned lane_of_rank(const cooperative_groups::coalesced_group& g, unsigned rank) {
  return groups::lane_of_rank(access::mask(g), rank);
}

/// What a tile's ballot-like result is shifted by: its first lane.
template <class Group>
unsigned first_lane() {
  return groups::lane() & ~(tile_size<Group> - 1);
}

/// A coalesced group's result of lanes, or a tile's, as bits by rank.
template <class Group>
auto ranks_of(const Group& g) {
  if constexpr (is_lane_tile<Group>)
    return [shift = first_lane<Group>()](unsigned lanes) { return lanes >> shift; };
  else
    return [mask = access::mask(g)](unsigned lanes) { return groups::pack_by_rank(mask, lanes); };
}

template <class Group, class T, class Op>
stackless_function<T> fold(Group g, T acc, Op op, std::source_location where);
template <class Group, class T, class Op>
stackless_function<T> multi_warp_fold(Group g, T value, Op op, std::source_location where);
template <class Group, class T, class Op>
stackless_function<T> scan(Group g, T acc, Op op, bool exclusive, std::source_location where);
template <class Group, class T, class Op>
stackless_function<T> multi_warp_scan(Group g, T value, Op op, bool exclusive, std::source_location where);
template <class Group, class T, cuda::thread_scope Scope, class Op>
stackless_function<> atomic_reduction(Group g, cuda::atomic_ref<T, Scope> dst, T val, Op op, bool update,
                                      std::source_location where);
template <class Group, class T, cuda::thread_scope Scope, class Op>
stackless_function<T> scan_update(Group g, cuda::atomic_ref<T, Scope> dst, T val, Op op, bool exclusive,
                                  std::source_location where);

/// An awaitable whose value is there already: what co_await gives for a
/// call that never waits but that weft-port awaits as its group's others.
template <class T>
struct ready_value {
  T value;
  bool await_ready() const noexcept { return true; }
  void await_suspend(std::coroutine_handle<>) const noexcept {}
  T await_resume() { return std::move(value); }
};

}  // namespace weft::detail::stackless_groups

namespace weft {

// ---- Groups made by a collective ----

/// co_await weft::coalesced_threads(): cg::coalesced_threads(), the lanes of
/// the caller's warp converged with it (co_await weft::activemask()).
inline auto coalesced_threads(std::source_location where = std::source_location::current()) {
  return detail::stackless_groups::finished_awaiter(detail::activemask_awaiter{where}, [](unsigned mask) {
    return detail::groups::access::make<cooperative_groups::coalesced_group>(mask, 0u, 1u);
  });
}

/// co_await weft::binary_partition(parent, pred): cg::binary_partition(parent, pred).
template <detail::stackless_groups::lane_group Group>
auto binary_partition(const Group& parent, bool pred, std::source_location where = std::source_location::current()) {
  using detail::groups::access;
  unsigned mask = access::mask(parent);
  return detail::stackless_groups::finished_awaiter(
      detail::warp_awaiter<unsigned>{detail::warp_op::ballot, mask, {pred}, where}, [mask, pred](unsigned set) {
        if (set == mask || set == 0) return access::make<cooperative_groups::coalesced_group>(mask, 0u, 1u);
        return access::make<cooperative_groups::coalesced_group>(pred ? set : mask & ~set, pred ? 1u : 0u, 2u);
      });
}

/// co_await weft::labeled_partition(parent, label): cg::labeled_partition(parent, label).
template <detail::stackless_groups::lane_group Group, class Label>
requires(detail::groups::is_label<Label>) stackless_function<cooperative_groups::coalesced_group> labeled_partition(
    Group parent, Label label, std::source_location where = std::source_location::current()) {
  using detail::groups::access;
  if constexpr (std::is_same_v<Label, bool>) {
    co_return co_await binary_partition(parent, label, where);
  } else {
    // The fiber version's (groups::labeled_partition): subgroups ranked by their lowest lane.
    unsigned mask = access::mask(parent);
    unsigned same = co_await detail::warp_awaiter<unsigned>{
        detail::warp_op::match_any, mask, {detail::to_bits(detail::groups::match_key(label))}, where};
    unsigned leader = static_cast<unsigned>(std::countr_zero(same));
    unsigned leaders = co_await detail::warp_awaiter<unsigned>{
        detail::warp_op::ballot, mask, {leader == detail::groups::lane()}, where};
    co_return access::make<cooperative_groups::coalesced_group>(
        same, static_cast<unsigned>(std::popcount(leaders & ((1u << leader) - 1))),
        static_cast<unsigned>(std::popcount(leaders)));
  }
}

// ---- sync ----

/// co_await weft::sync(block): block.sync(), cg::sync(block), __syncthreads.
inline detail::barrier_awaiter<detail::barrier_kind::sync> sync(const cooperative_groups::thread_block&,
                                                                detail::call_site where = __builtin_source_location()) {
  return {0, detail::to_source_location(where)};
}
/// The same at a source_location of the caller's choosing (weft::wait(block) passes its caller's).
inline detail::barrier_awaiter<detail::barrier_kind::sync> sync(const cooperative_groups::thread_block&,
                                                                std::source_location where) {
  return {0, where};
}

/// co_await weft::sync(tile): tile.sync(), __syncwarp over the group's lanes.
template <detail::stackless_groups::lane_group Group>
detail::warp_awaiter<void> sync(const Group& g, std::source_location where = std::source_location::current()) {
  return {detail::warp_op::sync, detail::groups::access::mask(g), {}, where};
}

/// co_await weft::sync(tile) for a tile of 64 to 1024 threads: tile.sync(),
/// the tile's barrier, as on fibers.
template <detail::stackless_groups::multi_warp_tile Group>
detail::barrier_phase_awaiter sync(const Group& g, std::source_location where = std::source_location::current()) {
  return arrive_and_wait(detail::stackless_groups::tiles_of(g).barrier(g.meta_group_rank()), where);
}
/// co_await weft::sync(g) for a group made at run time (tiled_partition(block, n)).
inline stackless_function<> sync(cooperative_groups::thread_group g,
                                 std::source_location where = std::source_location::current()) {
  if (detail::groups::access::is_block(g))
    co_await detail::stackless_groups::block_barrier(where);
  else
    co_await detail::warp_awaiter<void>{detail::warp_op::sync, detail::groups::access::mask(g), {}, where};
}

/// co_await weft::sync(grid): grid.sync(), cg::sync(grid), in a cooperative
/// launch (elsewhere it fails the thread with the fiber version's report).
inline detail::block_set_awaiter sync(const cooperative_groups::grid_group& grid,
                                      std::source_location where = std::source_location::current()) {
  detail::block_group_barrier& between = detail::groups::grid_barrier("this_grid().sync()");
  return {&between, static_cast<unsigned>(grid.block_rank()),
          [](std::source_location at) { cooperative_groups::this_grid().sync(at); }, where};
}

/// co_await weft::sync(cluster): cluster.sync(), cg::sync(cluster); a block
/// barrier in a launch without clusters (a cluster of one block).
inline detail::block_set_awaiter sync(const cooperative_groups::cluster_group&,
                                      std::source_location where = std::source_location::current()) {
  detail::group_membership& me = detail::groups::membership("this_cluster().sync()");
  return {me.cluster ? &me.cluster->barrier : nullptr, me.cluster_rank,
          [](std::source_location at) { cooperative_groups::this_cluster().sync(at); }, where};
}

/// co_await weft::barrier_arrive(cluster): cluster.barrier_arrive(), the
/// block's arrival at the cluster's split barrier; gives the token that
/// weft::barrier_wait takes. As on fibers, the block's threads meet at a
/// block barrier before one arrives for the block, and at a second after it.
inline stackless_function<cooperative_groups::cluster_group::arrival_token> barrier_arrive(
    const cooperative_groups::cluster_group&, std::source_location where = std::source_location::current()) {
  detail::group_membership& me = detail::groups::membership("this_cluster().barrier_arrive()");
  if (!me.cluster) {
    co_await detail::stackless_groups::block_barrier(where);
    co_return {};
  }
  co_await detail::stackless_groups::block_barrier(where);
  if (!me.leader_taken) {
    me.leader_taken = true;
    me.cluster_token = me.cluster->barrier.arrive(me.cluster_rank, detail::groups::running_block_name(), where);
  }
  co_await detail::stackless_groups::block_barrier(where);
  me.leader_taken = false;
  co_return {me.cluster_token};
}
/// co_await weft::barrier_wait(cluster, std::move(token)):
/// cluster.barrier_wait(std::move(token)), waiting until every block of the
/// cluster has arrived in the token's phase; without a token, the block's
/// last arrival's (cluster.barrier_wait()). One thread of the block waits
/// for the other blocks, on its worker (a cluster's blocks each have one),
/// between two block barriers, as on fibers.
inline stackless_function<> barrier_wait(const cooperative_groups::cluster_group&,
                                         cooperative_groups::cluster_group::arrival_token token,
                                         std::source_location where = std::source_location::current()) {
  detail::group_membership& me = detail::groups::membership("this_cluster().barrier_wait()");
  co_await detail::stackless_groups::block_barrier(where);
  if (!me.cluster) co_return;
  if (!me.leader_taken) {
    me.leader_taken = true;
    me.cluster->barrier.wait(token.generation);
    if constexpr (detail::race_check_build)
      if (detail::race_running) detail::race_running->group_synced();
  }
  co_await detail::stackless_groups::block_barrier(where);
  me.leader_taken = false;
}
inline stackless_function<> barrier_wait(const cooperative_groups::cluster_group& cluster,
                                         std::source_location where = std::source_location::current()) {
  detail::group_membership& me = detail::groups::membership("this_cluster().barrier_wait()");
  co_await barrier_wait(cluster, {me.cluster_token}, where);
}
/// co_await weft::barrier_arrive(block): block.barrier_arrive(), the
/// thread's arrival at the block's split barrier. Arriving never waits (the
/// co_await is ready at once, and block.barrier_arrive() without it does the
/// same); the token goes to weft::barrier_wait.
inline detail::stackless_groups::ready_value<cooperative_groups::thread_block::arrival_token> barrier_arrive(
    const cooperative_groups::thread_block& block) {
  return {block.barrier_arrive()};
}
/// co_await weft::barrier_wait(block, std::move(token)):
/// block.barrier_wait(std::move(token)), until every thread of the block
/// has arrived in the token's phase; a thread that never arrives is the
/// fibers' deadlock report.
inline detail::barrier_phase_awaiter barrier_wait(const cooperative_groups::thread_block& block,
                                                  cooperative_groups::thread_block::arrival_token token,
                                                  std::source_location where = std::source_location::current()) {
  using detail::groups::block_split_barrier;
  return {&block_split_barrier::of_running_block(block.num_threads()).state(), token.phase,
          block_split_barrier::wait_call, block_split_barrier::describe, where};
}

// ---- cg::memcpy_async's waits ----
//
// weft copies at once, in cg::memcpy_async (which keeps its spelling and
// never waits); what waits is cg::wait and cg::wait_prior<N>, which, as on
// fibers, synchronise the group so that every thread's share is visible.

/// co_await weft::wait(g): cg::wait(g), the group's copies complete.
template <class Group>
requires detail::stackless_groups::copying_group<Group>
auto wait(const Group& g, std::source_location where = std::source_location::current()) {
  detail::groups::copies_waited(g, 0);
  return sync(g, where);
}
/// co_await weft::wait_prior<N>(g): cg::wait_prior<N>(g); weft's copies are
/// done already, so it synchronises the group, as wait does.
template <unsigned int NumStages, class Group>
requires detail::stackless_groups::copying_group<Group>
auto wait_prior(const Group& g, std::source_location where = std::source_location::current()) {
  detail::groups::copies_waited(g, NumStages);
  return sync(g, where);
}
// ---- Shuffles (any trivially copyable value) ----

/// co_await weft::shfl(g, var, srcRank): g.shfl(var, srcRank).
template <detail::stackless_groups::lane_group Group, class T>
auto shfl(const Group& g, const T& var, int srcRank, std::source_location where = std::source_location::current()) {
  using namespace detail::stackless_groups;
  unsigned mask = access::mask(g);
  if constexpr (is_lane_tile<Group>)
    return group_shuffle(detail::warp_op::shfl, mask, var, srcRank, tile_size<Group>, where);
  else
    return group_shuffle(detail::warp_op::shfl, mask, var,
                         static_cast<int>(lane_of_rank(g, static_cast<unsigned>(srcRank) % g.num_threads())), 32,
                         where);
}

/// co_await weft::shfl_down(g, var, delta): g.shfl_down(var, delta).
template <detail::stackless_groups::lane_group Group, class T>
auto shfl_down(const Group& g, const T& var, unsigned int delta,
               std::source_location where = std::source_location::current()) {
  using namespace detail::stackless_groups;
  unsigned mask = access::mask(g);
  if constexpr (is_lane_tile<Group>) {
    return group_shuffle(detail::warp_op::shfl_down, mask, var, static_cast<int>(delta), tile_size<Group>, where);
  } else {
    unsigned long long source = g.thread_rank() + static_cast<unsigned long long>(delta);
    unsigned lane = source < g.num_threads() ? lane_of_rank(g, static_cast<unsigned>(source)) : detail::groups::lane();
    return group_shuffle(detail::warp_op::shfl, mask, var, static_cast<int>(lane), 32, where);
  }
}

/// co_await weft::shfl_up(g, var, delta): g.shfl_up(var, delta).
template <detail::stackless_groups::lane_group Group, class T>
auto shfl_up(const Group& g, const T& var, unsigned int delta,
             std::source_location where = std::source_location::current()) {
  using namespace detail::stackless_groups;
  unsigned mask = access::mask(g);
  if constexpr (is_lane_tile<Group>) {
    return group_shuffle(detail::warp_op::shfl_up, mask, var, static_cast<int>(delta), tile_size<Group>, where);
  } else {
    long long source = static_cast<long long>(g.thread_rank()) - static_cast<int>(delta);
    unsigned lane = source >= 0 && source < g.num_threads() ? lane_of_rank(g, static_cast<unsigned>(source))
                                                            : detail::groups::lane();
    return group_shuffle(detail::warp_op::shfl, mask, var, static_cast<int>(lane), 32, where);
  }
}

/// co_await weft::shfl_xor(tile, var, laneMask): tile.shfl_xor(var, laneMask).
template <detail::stackless_groups::lane_group Group, class T>
requires detail::stackless_groups::is_lane_tile<Group>
auto shfl_xor(const Group& g, const T& var, unsigned int laneMask,
              std::source_location where = std::source_location::current()) {
  using namespace detail::stackless_groups;
  return group_shuffle(detail::warp_op::shfl_xor, access::mask(g), var, static_cast<int>(laneMask), tile_size<Group>,
                       where);
}

/// co_await weft::shfl(tile, var, srcRank) for a tile of 64 to 1024 threads:
/// tile.shfl(var, srcRank), through the tile's scratch between two of its
/// barriers, as on fibers.
template <detail::stackless_groups::multi_warp_tile Group, class T>
stackless_function<T> shfl(Group g, T var, unsigned int srcRank,
                           std::source_location where = std::source_location::current()) {
  static_assert(std::is_trivially_copyable_v<T>, "shfl moves trivially copyable values");
  unsigned char* slot = detail::stackless_groups::tiles_of(g).scratch(g.meta_group_rank(), sizeof(T));
  if (g.thread_rank() == srcRank % g.num_threads()) detail::groups::store_value(slot, var);
  co_await sync(g, where);
  T value = detail::groups::load_value<T>(slot);
  co_await sync(g, where);  // before the next collective writes the slot again
  co_return value;
}
// ---- Votes and matches ----

/// co_await weft::any(g, p): g.any(p).
template <detail::stackless_groups::lane_group Group>
detail::warp_awaiter<int> any(const Group& g, int predicate,
                              std::source_location where = std::source_location::current()) {
  return {detail::warp_op::any, detail::groups::access::mask(g), {predicate != 0}, where};
}

/// co_await weft::all(g, p): g.all(p). A tile that is not whole (past the
/// block's end) answers 0, as on fibers and on an H100.
template <detail::stackless_groups::lane_group Group>
auto all(const Group& g, int predicate, std::source_location where = std::source_location::current()) {
  using namespace detail::stackless_groups;
  unsigned mask = access::mask(g);
  if constexpr (is_lane_tile<Group>)
    return finished_awaiter(detail::warp_awaiter<unsigned>{detail::warp_op::ballot, mask, {predicate != 0}, where},
                            [mask](unsigned lanes) { return static_cast<int>(lanes == mask); });
  else
    return detail::warp_awaiter<int>{detail::warp_op::all, mask, {predicate != 0}, where};
}

/// co_await weft::any(tile, p) and weft::all(tile, p) for a tile of 64 to 1024 threads.
template <detail::stackless_groups::multi_warp_tile Group>
stackless_function<int> any(const Group& g, int predicate,
                            std::source_location where = std::source_location::current()) {
  return detail::stackless_groups::multi_warp_fold(g, predicate != 0 ? 1 : 0, cooperative_groups::bit_or<int>(), where);
}
template <detail::stackless_groups::multi_warp_tile Group>
stackless_function<int> all(const Group& g, int predicate,
                            std::source_location where = std::source_location::current()) {
  return detail::stackless_groups::multi_warp_fold(g, predicate != 0 ? 1 : 0, cooperative_groups::bit_and<int>(),
                                                   where);
}
/// co_await weft::ballot(g, p): g.ballot(p), bit k for the thread of rank k.
template <detail::stackless_groups::lane_group Group>
auto ballot(const Group& g, int predicate, std::source_location where = std::source_location::current()) {
  using namespace detail::stackless_groups;
  return finished_awaiter(
      detail::warp_awaiter<unsigned>{detail::warp_op::ballot, access::mask(g), {predicate != 0}, where}, ranks_of(g));
}

/// co_await weft::match_any(g, value): g.match_any(value).
template <detail::stackless_groups::lane_group Group, class T>
auto match_any(const Group& g, T value, std::source_location where = std::source_location::current()) {
  using namespace detail::stackless_groups;
  return finished_awaiter(
      detail::warp_awaiter<unsigned>{
          detail::warp_op::match_any, access::mask(g), {detail::to_bits(detail::groups::match_key(value))}, where},
      ranks_of(g));
}

/// co_await weft::match_all(g, value, pred): g.match_all(value, pred);
/// `pred` must outlive the co_await.
template <detail::stackless_groups::lane_group Group, class T>
auto match_all(const Group& g, T value, int& pred, std::source_location where = std::source_location::current()) {
  using namespace detail::stackless_groups;
  return finished_awaiter(
      detail::match_all_awaiter{access::mask(g), detail::to_bits(detail::groups::match_key(value)), where, &pred},
      ranks_of(g));
}

// ---- reduce and the scans ----

/// co_await weft::reduce(g, val, op): cg::reduce(g, val, op).
template <detail::stackless_groups::lane_group Group, class T, class Op>
auto reduce(const Group& g, const T& val, Op op, std::source_location where = std::source_location::current()) {
  using namespace detail::stackless_groups;
  using value_type = std::remove_cvref_t<T>;
  static_assert(std::is_convertible_v<decltype(op(val, val)), value_type>, "the operator must return the value's type");
  if constexpr (is_lane_tile<Group> && detail::groups::single_instruction_reduction<value_type, Op>) {
    // One warp reduction, as on fibers (groups::reduce_in_one_instruction).
    using cooperative_groups::bit_and, cooperative_groups::bit_or, cooperative_groups::bit_xor;
    unsigned mask = detail::groups::tile_lanes<tile_size<Group>>();
    auto as_value = [](value_type v) { return v; };
    if constexpr (std::is_same_v<Op, cooperative_groups::plus<value_type>>)
      return finished_awaiter(reduce_add_sync(mask, val, where), as_value);
    else if constexpr (std::is_same_v<Op, cooperative_groups::less<value_type>>)
      return finished_awaiter(reduce_min_sync(mask, val, where), as_value);
    else if constexpr (std::is_same_v<Op, cooperative_groups::greater<value_type>>)
      return finished_awaiter(reduce_max_sync(mask, val, where), as_value);
    else if constexpr (std::is_same_v<Op, bit_and<value_type>>)
      return finished_awaiter(reduce_and_sync(mask, static_cast<unsigned>(val), where),
                              [](unsigned v) { return static_cast<value_type>(v); });
    else if constexpr (std::is_same_v<Op, bit_or<value_type>>)
      return finished_awaiter(reduce_or_sync(mask, static_cast<unsigned>(val), where),
                              [](unsigned v) { return static_cast<value_type>(v); });
    else
      return finished_awaiter(reduce_xor_sync(mask, static_cast<unsigned>(val), where),
                              [](unsigned v) { return static_cast<value_type>(v); });
  } else {
    return fold(g, value_type(val), std::move(op), where);
  }
}

/// co_await weft::reduce(tile, val, op) for a tile of 64 to 1024 threads: the
/// fiber version's fold, the same result bit for bit on every thread.
template <detail::stackless_groups::multi_warp_tile Group, class T, class Op>
stackless_function<std::remove_cvref_t<T>> reduce(const Group& g, const T& val, Op op,
                                                  std::source_location where = std::source_location::current()) {
  return detail::stackless_groups::multi_warp_fold(g, std::remove_cvref_t<T>(val), std::move(op), where);
}
/// co_await weft::inclusive_scan(g, val, op): cg::inclusive_scan(g, val, op), plus by default.
template <detail::stackless_groups::lane_group Group, class T,
          class Op = cooperative_groups::plus<std::remove_cvref_t<T>>>
stackless_function<std::remove_cvref_t<T>> inclusive_scan(
    const Group& g, const T& val, Op op = Op(), std::source_location where = std::source_location::current()) {
  return detail::stackless_groups::scan(g, std::remove_cvref_t<T>(val), std::move(op), false, where);
}

/// co_await weft::exclusive_scan(g, val, op): cg::exclusive_scan(g, val, op);
/// rank 0 gets a value-initialised T.
template <detail::stackless_groups::lane_group Group, class T,
          class Op = cooperative_groups::plus<std::remove_cvref_t<T>>>
stackless_function<std::remove_cvref_t<T>> exclusive_scan(
    const Group& g, const T& val, Op op = Op(), std::source_location where = std::source_location::current()) {
  return detail::stackless_groups::scan(g, std::remove_cvref_t<T>(val), std::move(op), true, where);
}

/// co_await weft::inclusive_scan(tile, val, op) and weft::exclusive_scan for
/// a tile of 64 to 1024 threads: the fiber version's scan, each warp's
/// lanes, then the totals of the warps below through the tile's scratch.
template <detail::stackless_groups::multi_warp_tile Group, class T,
          class Op = cooperative_groups::plus<std::remove_cvref_t<T>>>
stackless_function<std::remove_cvref_t<T>> inclusive_scan(
    const Group& g, const T& val, Op op = Op(), std::source_location where = std::source_location::current()) {
  return detail::stackless_groups::multi_warp_scan(g, std::remove_cvref_t<T>(val), std::move(op), false, where);
}
template <detail::stackless_groups::multi_warp_tile Group, class T,
          class Op = cooperative_groups::plus<std::remove_cvref_t<T>>>
stackless_function<std::remove_cvref_t<T>> exclusive_scan(
    const Group& g, const T& val, Op op = Op(), std::source_location where = std::source_location::current()) {
  return detail::stackless_groups::multi_warp_scan(g, std::remove_cvref_t<T>(val), std::move(op), true, where);
}

/// co_await weft::reduce_store_async(g, dst, val, op):
/// cg::reduce_store_async(g, dst, val, op), stored by the thread the fiber
/// version picks (a tile's rank 0, a coalesced group's last rank).
template <detail::stackless_groups::reducing_group Group, class TyVal, class TyInputVal, class Op>
stackless_function<> reduce_store_async(Group g, TyVal* dst, TyInputVal val, Op op,
                                        std::source_location where = std::source_location::current()) {
  static_assert(std::is_same_v<TyVal, TyInputVal>, "the destination's type and the value's differ");
  TyVal result = co_await weft::reduce(g, val, std::move(op), where);
  if (g.thread_rank() == detail::groups::storing_rank(g)) *dst = result;
}

/// co_await weft::reduce_store_async(g, atomic, val, op) and
/// weft::reduce_update_async(g, atomic, val, op): cg's, into a cuda::atomic
/// or a cuda::atomic_ref, by the thread the fiber version picks.
template <detail::stackless_groups::reducing_group Group, detail::stackless_groups::cuda_atomic Atomic, class T,
          class Op>
auto reduce_store_async(const Group& g, Atomic&& dst, const T& val, Op op,
                        std::source_location where = std::source_location::current()) {
  return detail::stackless_groups::atomic_reduction(g, detail::groups::atomic_view(dst), val, std::move(op), false,
                                                    where);
}
template <detail::stackless_groups::reducing_group Group, detail::stackless_groups::cuda_atomic Atomic, class T,
          class Op>
auto reduce_update_async(const Group& g, Atomic&& dst, const T& val, Op op,
                         std::source_location where = std::source_location::current()) {
  return detail::stackless_groups::atomic_reduction(g, detail::groups::atomic_view(dst), val, std::move(op), true,
                                                    where);
}

/// co_await weft::inclusive_scan_update(g, atomic, val[, op]) and
/// weft::exclusive_scan_update: cg's, as on fibers (plus by default).
template <detail::stackless_groups::reducing_group Group, detail::stackless_groups::cuda_atomic Atomic, class T,
          class Op = cooperative_groups::plus<T>>
auto inclusive_scan_update(const Group& g, Atomic&& dst, const T& val, Op op = Op(),
                           std::source_location where = std::source_location::current()) {
  return detail::stackless_groups::scan_update(g, detail::groups::atomic_view(dst), val, std::move(op), false, where);
}
template <detail::stackless_groups::reducing_group Group, detail::stackless_groups::cuda_atomic Atomic, class T,
          class Op = cooperative_groups::plus<T>>
auto exclusive_scan_update(const Group& g, Atomic&& dst, const T& val, Op op = Op(),
                           std::source_location where = std::source_location::current()) {
  return detail::stackless_groups::scan_update(g, detail::groups::atomic_view(dst), val, std::move(op), true, where);
}

}  // namespace weft

namespace weft::detail::stackless_groups {

// The fiber version's folds (cooperative_groups/reduce.hpp): a tile
// exchanges with shfl_xor, halving the distance; a coalesced group folds
// onto rank 0 with shfl_down and broadcasts.
template <class Group, class T, class Op>
stackless_function<T> fold(Group g, T acc, Op op, std::source_location where) {
  if constexpr (is_lane_tile<Group>) {
    for (unsigned offset = tile_size<Group> / 2; offset > 0; offset /= 2)
      acc = op(acc, co_await weft::shfl_xor(g, acc, offset, where));
    co_return acc;
  } else {
    unsigned n = g.num_threads(), rank = g.thread_rank();
    for (unsigned offset = std::bit_ceil(n) / 2; offset > 0; offset /= 2) {
      T other = co_await weft::shfl_down(g, acc, offset, where);
      if (rank + offset < n) acc = op(acc, other);
    }
    co_return co_await weft::shfl(g, acc, 0, where);
  }
}

// The fiber version's scans (cooperative_groups/scan.hpp): Hillis and
// Steele with shfl_up, lower ranks as op's left operand.
template <class Group, class T, class Op>
stackless_function<T> scan(Group g, T acc, Op op, bool exclusive, std::source_location where) {
  unsigned n = g.num_threads(), rank = g.thread_rank();
  for (unsigned d = 1; d < n; d *= 2) {
    T lower = co_await weft::shfl_up(g, acc, d, where);
    if (rank >= d) acc = op(lower, acc);
  }
  if (!exclusive) co_return acc;
  T lower = co_await weft::shfl_up(g, acc, 1, where);
  co_return rank == 0 ? T{} : lower;
}

// An asynchronous reduction into an atomic, as on fibers
// (cooperative_groups/reduce.hpp): the reduction, then one thread's
// relaxed store, or its update with op.
template <class Group, class T, cuda::thread_scope Scope, class Op>
stackless_function<> atomic_reduction(Group g, cuda::atomic_ref<T, Scope> dst, T val, Op op, bool update,
                                      std::source_location where) {
  T result = co_await weft::reduce(g, val, op, where);
  if (g.thread_rank() != groups::storing_rank(g)) co_return;
  if (update)
    groups::atomic_fetch_update(dst, result, op);
  else
    dst.store(result, std::memory_order_relaxed);
}

// The scans' update variants, as on fibers (cooperative_groups/scan.hpp):
// rank 0 combines the reduction into the atomic and hands every thread the
// old value, which each combines with its scan.
template <class Group, class T, cuda::thread_scope Scope, class Op>
stackless_function<T> scan_update(Group g, cuda::atomic_ref<T, Scope> dst, T val, Op op, bool exclusive,
                                  std::source_location where) {
  T total = co_await weft::reduce(g, val, op, where), old{};
  if (g.thread_rank() == 0) old = groups::atomic_fetch_update(dst, total, op);
  old = co_await weft::shfl(g, old, 0u, where);
  if (!exclusive) co_return op(old, co_await weft::inclusive_scan(g, val, op, where));
  T below = co_await weft::exclusive_scan(g, val, op, where);
  co_return g.thread_rank() == 0 ? old : op(old, below);
}

// A multi-warp tile's scan, as on fibers (multi_warp_tile.hpp): each warp
// scans its lanes with shfl_up, its last lane leaves the warp's total in
// the tile's scratch, and every thread folds the totals of the warps below.
template <class Group, class T, class Op>
stackless_function<T> multi_warp_scan(Group g, T value, Op op, bool exclusive, std::source_location where) {
  static_assert(std::is_trivially_copyable_v<T>, "a scan moves trivially copyable values");
  constexpr unsigned warps = Group::num_threads() / 32;
  unsigned lane = g.thread_rank() % 32, warp = g.thread_rank() / 32;
  T inclusive = value;
  for (unsigned d = 1; d < 32; d *= 2) {
    T lower = co_await group_shuffle(warp_op::shfl_up, 0xffffffffu, inclusive, static_cast<int>(d), 32, where);
    if (lane >= d) inclusive = op(lower, inclusive);
  }
  T below = co_await group_shuffle(warp_op::shfl_up, 0xffffffffu, inclusive, 1, 32, where);
  unsigned char* totals = tiles_of(g).scratch(g.meta_group_rank(), warps * sizeof(T));
  if (lane == 31) groups::store_value(totals + warp * sizeof(T), inclusive);
  co_await weft::sync(g, where);
  T prefix = groups::load_value<T>(totals);
  for (unsigned w = 1; w < warp; ++w) prefix = op(prefix, groups::load_value<T>(totals + w * sizeof(T)));
  co_await weft::sync(g, where);  // before the next collective writes the totals again
  co_return groups::multi_warp_scan_result(inclusive, below, lane, warp > 0, prefix, op, exclusive);
}

// A multi-warp tile's fold, as on fibers (multi_warp_tile.hpp): each warp
// reduces its lanes with shfl_xor, then every thread folds the warps'
// results, in order, from the tile's scratch between two of its barriers.
template <class Group, class T, class Op>
stackless_function<T> multi_warp_fold(Group g, T value, Op op, std::source_location where) {
  static_assert(std::is_trivially_copyable_v<T>, "reduce moves trivially copyable values");
  constexpr unsigned warps = Group::num_threads() / 32;
  for (unsigned offset = 16; offset > 0; offset /= 2) {
    T other = co_await group_shuffle(warp_op::shfl_xor, 0xffffffffu, value, static_cast<int>(offset), 32, where);
    value = op(value, other);
  }
  unsigned char* slots = tiles_of(g).scratch(g.meta_group_rank(), warps * sizeof(T));
  if (g.thread_rank() % 32 == 0) groups::store_value(slots + g.thread_rank() / 32 * sizeof(T), value);
  co_await weft::sync(g, where);
  T result = groups::load_value<T>(slots);
  for (unsigned w = 1; w < warps; ++w) result = op(result, groups::load_value<T>(slots + w * sizeof(T)));
  co_await weft::sync(g, where);
  co_return result;
}

}  // namespace weft::detail::stackless_groups
