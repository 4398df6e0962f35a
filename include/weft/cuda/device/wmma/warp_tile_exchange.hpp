// The one warp-level exchange an mma_sync makes: each lane leaves the
// addresses of its fragments of A, B, C and D in its warp's meeting, the
// lanes meet once (a __syncwarp of the whole warp, whose checks report lanes
// that exited, a partial warp or lanes at another collective), and the
// first lane to run on copies every lane's fragments side by side, arranges
// the whole tiles, multiplies them and writes each lane's fragment of D.
// A lane's own part is four stores; the fragments it points to stay in
// place, since every lane waits in the meeting until D is written.
//
// The meetings belong to the worker thread (a worker runs one block at a
// time, which is why __shared__ can be thread_local) and are cleared when a
// new block starts; so do the tiles, which only the computing lane uses,
// between two switches, so one set serves every warp of the worker. Each
// warp has two meetings used in turn, call by call: a lane that has left
// one and goes on to its next mma_sync writes the other, while lanes still
// to run look at this one (whether D is computed); it cannot reach the call
// after that before every lane has left this one, since that call's meeting
// waits for them all.
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

/// The tiles of one mma_sync: the lanes' fragments side by side (x[] of
/// lane 0, of lane 1, ...; at most 32 bytes a lane), then A row by row, B
/// row by row (k x n), C (and then D) row by row, in the type the product
/// is computed in, and room to arrange them. Sized for the largest: 32 x
/// 16 four-byte values, and a 16 x 16 accumulator; aligned so that a row of
/// up to 32 four-byte values is one aligned vector.
struct tile_set {
  alignas(64) std::byte lanes_a[32 * 32];
  alignas(64) std::byte lanes_b[32 * 32];
  alignas(64) std::byte lanes_c[32 * 32];
  alignas(64) std::byte lanes_d[32 * 32];
  alignas(128) std::byte a[32 * 16 * 4];
  alignas(128) std::byte b[16 * 32 * 4];
  alignas(128) std::byte c[16 * 16 * 4];
  alignas(128) std::byte d[16 * 16 * 8];         // floating-point sums before their rounding
  alignas(64) std::byte b_columns[16 * 32 * 4];  // B column by column, before it is turned
  alignas(64) std::byte placed[16 * 16 * 2];     // a tile of 2-byte elements, arranged before widening
};

/// One mma_sync's meeting: each lane's fragments.
struct warp_meeting {
  const void* a[32];
  const void* b[32];
  const void* c[32];
  void* d[32];
  const char* operation = nullptr;  // what the lanes of this call asked for
  unsigned arrived = 0;             // lanes that have left their fragments
  bool product_pending = false;     // D not yet computed
};

struct warp_tiles {
  warp_meeting meetings[2];
  std::uint32_t calls[32] = {};  // mma_sync calls per lane: which meeting is next
};

struct block_tiles {
  const block_executor* block = nullptr;
  std::uint64_t generation = 0;
  std::vector<warp_tiles> warps;
  tile_set tiles;
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

/// Runs one mma_sync (or bmma_sync) for the calling lane, whose fragments
/// are a, b, c and d. `operation` names the call (one static string per
/// use, shape and type: lanes that disagree are reported).
/// `multiply(tiles)` computes the lanes' D (tiles.lanes_d) from their A, B
/// and C (tiles.lanes_a, ...), once per call, in the first lane to run
/// after the meeting.
template <class A, class B, class C, class D, class Multiply>
void warp_product(const char* operation, const A& a, const B& b, const C& c, D& d, Multiply&& multiply,
                  std::source_location where) {
  lane_place self = current_lane("nvcuda::wmma::mma_sync");
  unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  if ((self.warp + 1) * 32 > threads) [[unlikely]]
    throw kernel_fault{cudaErrorLaunchFailure,
                       std::string(operation) + " at " + where.file_name() + ":" + std::to_string(where.line()) +
                           ": warp " + std::to_string(self.warp) + " has " + std::to_string(threads - self.warp * 32) +
                           " threads; a warp matrix operation needs all 32 lanes of its warp"};
  warp_tiles& warp = tiles_of_warp(*self.block, self.warp);
  warp_meeting& meeting = warp.meetings[warp.calls[self.lane]++ & 1];
  if (meeting.arrived == 0) {
    meeting.operation = operation;
    meeting.product_pending = true;
  } else if (meeting.operation != operation && std::strcmp(meeting.operation, operation) != 0) [[unlikely]] {
    throw kernel_fault{cudaErrorLaunchFailure,
                       std::string("warp ") + std::to_string(self.warp) + ": lane " + std::to_string(self.lane) +
                           " calls " + operation + " at " + where.file_name() + ":" + std::to_string(where.line()) +
                           " while other lanes of its warp call " + meeting.operation +
                           ": the lanes of a warp must call mma_sync with the same shape and types"};
  }
  ++meeting.arrived;
  meeting.a[self.lane] = a.x;
  meeting.b[self.lane] = b.x;
  meeting.c[self.lane] = c.x;
  meeting.d[self.lane] = d.x;
  warp_call(warp_op::sync, 0xffffffffu, {}, where);
  if (meeting.product_pending) {
    // Every fragment is read before any D is written: a lane's D may be its C.
    tile_set& tiles = worker_tiles.tiles;
    for (unsigned lane = 0; lane < 32; ++lane) {
      std::memcpy(tiles.lanes_a + lane * sizeof a.x, meeting.a[lane], sizeof a.x);
      std::memcpy(tiles.lanes_b + lane * sizeof b.x, meeting.b[lane], sizeof b.x);
      std::memcpy(tiles.lanes_c + lane * sizeof c.x, meeting.c[lane], sizeof c.x);
    }
    multiply(tiles);
    for (unsigned lane = 0; lane < 32; ++lane)
      std::memcpy(meeting.d[lane], tiles.lanes_d + lane * sizeof d.x, sizeof d.x);
    meeting.product_pending = false;
    meeting.arrived = 0;
  }
}

}  // namespace weft::detail::wmma
