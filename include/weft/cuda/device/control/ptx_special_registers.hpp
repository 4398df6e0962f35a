// PTX's special registers, as a kernel reads them: what weft-port turns an
// inline PTX statement that only reads one into (`asm volatile("mov.u64 %0,
// %globaltimer;" : "=l"(t));` becomes `(t) = weft::ptx::globaltimer();`; see
// docs/porting.md). Each function returns the register's value, at its
// width, for the running CUDA thread; the values an H100 gives were measured
// on one (the numbers below). Outside a kernel the per-thread registers read
// as for thread 0 of a one-thread block (CUDA has no such thing to compare).
#pragma once

#include <time.h>

#include <cstdint>

#include "weft/cuda/device/control/device_runtime.hpp"
#include "weft/detail/base/builtin_variables.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/runtime/device_properties.hpp"
#include "weft/detail/scheduler/device_block_state.hpp"
#include "weft/detail/scheduler/sm_pool.hpp"

namespace weft::ptx {

/// %globaltimer: a 64-bit nanosecond clock. An H100's counts from the Unix
/// epoch (it read what the host's CLOCK_REALTIME read), and so does weft's.
inline std::uint64_t globaltimer() {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(now.tv_nsec);
}
/// %globaltimer_lo and %globaltimer_hi: its low and high 32 bits.
inline std::uint32_t globaltimer_lo() { return static_cast<std::uint32_t>(globaltimer()); }
inline std::uint32_t globaltimer_hi() { return static_cast<std::uint32_t>(globaltimer() >> 32); }

/// %clock64: the SM cycle counter, the count clock64() returns.
inline std::uint64_t clock64() { return static_cast<std::uint64_t>(::clock64()); }
/// %clock: its low 32 bits, as a kernel's clock() reads them.
inline std::uint32_t clock() { return static_cast<std::uint32_t>(clock64()); }

/// %tid, %ntid, %ctaid, %nctaid: threadIdx, blockDim, blockIdx, gridDim.
inline std::uint32_t tid_x() { return weft::detail::threadIdx.x; }
inline std::uint32_t tid_y() { return weft::detail::threadIdx.y; }
inline std::uint32_t tid_z() { return weft::detail::threadIdx.z; }
inline std::uint32_t ntid_x() { return weft::detail::blockDim.x; }
inline std::uint32_t ntid_y() { return weft::detail::blockDim.y; }
inline std::uint32_t ntid_z() { return weft::detail::blockDim.z; }
inline std::uint32_t ctaid_x() { return weft::detail::blockIdx.x; }
inline std::uint32_t ctaid_y() { return weft::detail::blockIdx.y; }
inline std::uint32_t ctaid_z() { return weft::detail::blockIdx.z; }
inline std::uint32_t nctaid_x() { return weft::detail::gridDim.x; }
inline std::uint32_t nctaid_y() { return weft::detail::gridDim.y; }
inline std::uint32_t nctaid_z() { return weft::detail::gridDim.z; }

/// %laneid: the thread's lane in its warp, its linear index in the block
/// (x fastest) modulo 32, as on every NVIDIA GPU.
inline std::uint32_t laneid() {
  return weft::detail::linear_thread_index(weft::detail::threadIdx, weft::detail::blockDim) % 32;
}

/// %lanemask_eq, _le, _lt, _ge, _gt: the lanes whose index is equal to,
/// at most, below, at least or above the caller's.
inline std::uint32_t lanemask_eq() { return std::uint32_t{1} << laneid(); }
inline std::uint32_t lanemask_lt() { return lanemask_eq() - 1; }
inline std::uint32_t lanemask_le() { return lanemask_lt() | lanemask_eq(); }
inline std::uint32_t lanemask_ge() { return ~lanemask_lt(); }
inline std::uint32_t lanemask_gt() { return ~lanemask_le(); }

/// %warpid: the warp's slot on its SM. A GPU gives whatever slot the warp
/// got (an H100 gave thread 37 slot 1 in one launch, 3 in the next, and
/// PTX warns that it may change while the thread runs); weft gives the
/// warp's index in its block, one of the values a GPU may give.
inline std::uint32_t warpid() {
  return weft::detail::linear_thread_index(weft::detail::threadIdx, weft::detail::blockDim) / 32;
}
/// %nwarpid: warp slots per SM, 64 on an H100 (2048 threads).
inline std::uint32_t nwarpid() { return 2048 / 32; }

/// %smid: the SM worker running the block, below %nsmid.
inline std::uint32_t smid() { return weft::detail::running_sm; }
/// %nsmid: the device's SMs, its workers (cudaDevAttrMultiProcessorCount).
inline std::uint32_t nsmid() {
  return static_cast<std::uint32_t>(weft::detail::multiprocessor_count(weft::detail::current_device));
}

/// %gridid: the launch's number. An H100 counts launches from 1, and so
/// does weft, over all its devices (0 outside a kernel).
inline std::uint64_t gridid() {
  const weft::detail::grid_job* grid = weft::detail::running_grid();
  return grid ? grid->serial : 0;
}

/// %dynamic_smem_size: the launch's dynamic shared memory per block, in bytes.
inline std::uint32_t dynamic_smem_size() {
  const weft::detail::grid_job* grid = weft::detail::running_grid();
  return grid ? static_cast<std::uint32_t>(grid->dynamic_shared_bytes()) : 0;
}

/// %total_smem_size: the block's static and dynamic shared memory, rounded
/// up to the 128-byte unit an H100 allocates (100 static and 1000 dynamic
/// bytes read 1152 there). weft's `__shared__` variables are thread-locals
/// whose sizes it does not add up, so it counts the dynamic part only.
inline std::uint32_t total_smem_size() { return (dynamic_smem_size() + 127) / 128 * 128; }

}  // namespace weft::ptx
