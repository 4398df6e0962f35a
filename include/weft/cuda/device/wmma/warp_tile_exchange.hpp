// The one warp-level exchange an mma_sync makes: each lane copies its
// fragments of A, B and C as they are into its warp's tile space, the lanes
// meet once (a __syncwarp of the whole warp, whose checks report lanes that
// exited, a partial warp or lanes at another collective), the first lane to
// run on arranges the whole tiles, multiplies them and lays D out lane by
// lane, and each lane copies its fragment of D out. A lane's part is a few
// copies; the rearranging is done once per call, by table.
//
// The tile space belongs to the worker thread (a worker runs one block at a
// time, which is why __shared__ can be thread_local) and is cleared when a
// new block starts. Each warp has two sets of tiles used in turn, call by
// call: a lane that has taken its D and goes on to its next mma_sync writes
// the other set, while lanes still to run read this one; it cannot reach the
// call after that before every lane has left this one, since that call's
// meeting waits for them all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <string>
#include <vector>

#include "weft/cuda/device/sync/warp_functions.hpp"
#include "weft/detail/executor/block_executor.hpp"

namespace weft::detail::wmma {

/// One mma_sync's tiles: the lanes' fragments (x[] of lane 0, of lane 1,
/// ...; at most 32 bytes a lane), then A row by row, B row by row (k x n),
/// C (and then D) row by row, in the type the product is computed in. Sized
/// for the largest: 32 x 16 four-byte values, and a 16 x 16 accumulator;
/// aligned so that a row of up to 32 four-byte values is one aligned vector.
struct alignas(128) tile_set {
  alignas(64) std::byte lanes_a[32 * 32];
  alignas(64) std::byte lanes_b[32 * 32];
  alignas(64) std::byte lanes_c[32 * 32];
  alignas(64) std::byte lanes_d[32 * 32];
  alignas(128) std::byte a[32 * 16 * 4];
  alignas(128) std::byte b[16 * 32 * 4];
  alignas(128) std::byte c[16 * 16 * 4];
  alignas(128) std::byte d[16 * 16 * 8];  // floating-point sums before their rounding
  const char* operation = nullptr;        // what the lanes of this call asked for
  unsigned arrived = 0;                   // lanes that have copied their shares in
  bool product_pending = false;           // D not yet computed
};

struct warp_tiles {
  tile_set sets[2];
  std::uint32_t calls[32] = {};  // mma_sync calls per lane: which set is next
};

struct block_tiles {
  const block_executor* block = nullptr;
  std::uint64_t generation = 0;
  std::vector<warp_tiles> warps;
};

inline thread_local block_tiles worker_tiles;
// weft's state, not the kernel's shared memory (race_check.hpp).
inline const bool worker_tiles_untraced =
    !race_check_build || race_untraced([]() -> const void* { return &worker_tiles; }, sizeof worker_tiles);

/// The calling lane's warp's tiles, cleared for a block that has just started.
inline warp_tiles& tiles_of_warp(block_executor& block, unsigned warp) {
  block_tiles& t = worker_tiles;
  if (t.block != &block || t.generation != block.blocks_started()) [[unlikely]] {
    t.block = &block;
    t.generation = block.blocks_started();
    unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    t.warps.assign((threads + 31) / 32, warp_tiles{});
  }
  return t.warps[warp];
}

/// Where a lane is: its block, warp and lane number.
struct lane_place {
  block_executor* block;
  unsigned warp;
  unsigned lane;
};

inline lane_place current_lane(const char* what) {
  block_executor& block = warp_block(what);
  unsigned id = linear_thread_index(threadIdx, blockDim);
  return {&block, id / 32, id % 32};
}

/// Runs one mma_sync for the calling lane. `operation` names the call (one
/// static string per use, shape and type: lanes that disagree are
/// reported). `deposit(tiles, lane)` copies the lane's fragments in;
/// `multiply(tiles)` computes D from the whole tiles (once per call, by
/// the first lane to run after the meeting); `collect(tiles, lane)` takes
/// the lane's fragment of D.
template <class Deposit, class Multiply, class Collect>
void warp_product(const char* operation, Deposit&& deposit, Multiply&& multiply, Collect&& collect,
                  std::source_location where) {
  lane_place self = current_lane("nvcuda::wmma::mma_sync");
  unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  if ((self.warp + 1) * 32 > threads) [[unlikely]]
    throw kernel_fault{cudaErrorLaunchFailure,
                       std::string(operation) + " at " + where.file_name() + ":" + std::to_string(where.line()) +
                           ": warp " + std::to_string(self.warp) + " has " + std::to_string(threads - self.warp * 32) +
                           " threads; a warp matrix operation needs all 32 lanes of its warp"};
  warp_tiles& warp = tiles_of_warp(*self.block, self.warp);
  tile_set& set = warp.sets[warp.calls[self.lane]++ & 1];
  if (set.arrived == 0) {
    set.operation = operation;
    set.product_pending = true;
  } else if (set.operation != operation && std::strcmp(set.operation, operation) != 0) [[unlikely]] {
    throw kernel_fault{cudaErrorLaunchFailure,
                       std::string("warp ") + std::to_string(self.warp) + ": lane " + std::to_string(self.lane) +
                           " calls " + operation + " at " + where.file_name() + ":" + std::to_string(where.line()) +
                           " while other lanes of its warp call " + set.operation +
                           ": the lanes of a warp must call mma_sync with the same shape and types"};
  }
  ++set.arrived;
  deposit(set, self.lane);
  warp_call(warp_op::sync, 0xffffffffu, {}, where);
  if (set.product_pending) {
    multiply(set);
    set.product_pending = false;
    set.arrived = 0;
  }
  collect(set, self.lane);
}

}  // namespace weft::detail::wmma
