// What a block's executor (fibers or coroutines) asks when no thread of the
// block can run, or when a thread yields (spins): whether a synchronisation
// object that counts threads by what they did, not by where they wait, can
// now go on. Named barriers (named_barriers.hpp) count a warp's arrival once
// its lanes that did not exit have all arrived, or, when the block can make
// no other progress or a lane of the warp spins, with the lanes that did
// (an H200 does not hold a warp's arrival for lanes busy elsewhere).
#pragma once

namespace weft::detail {

/// Settles the running block's objects that wait on lanes which can no
/// longer come (`spinning_thread` ~0u: the block stalled), or notes that
/// thread `spinning_thread` (a linear index) spins and settles what waits
/// only on lanes that spin; returns whether that made a thread ready. Null
/// until a kernel on this worker used named barriers.
inline thread_local bool (*settle_stalled_block)(unsigned spinning_thread) = nullptr;

}  // namespace weft::detail
