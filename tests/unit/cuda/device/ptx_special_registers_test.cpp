// PTX's special registers as weft::ptx reads them inside kernels (what
// weft-port turns `asm("mov.u32 %0, %%laneid;" : "=r"(x))` into): the values
// PTX defines for each CUDA thread, and the timers' units.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <time.h>

#include <cstdint>
#include <vector>

#include "device_buffer.hpp"

namespace {

// Every register, one row per thread (linear index in the grid).
struct registers {
  std::uint32_t laneid, warpid, nwarpid, smid, nsmid;
  std::uint32_t lanemask_eq, lanemask_le, lanemask_lt, lanemask_ge, lanemask_gt;
  std::uint32_t tid[3], ntid[3], ctaid[3], nctaid[3];
  std::uint32_t dynamic_smem_size, total_smem_size;
  std::uint64_t gridid;
};

__global__ void read_registers(registers* out) {
  unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  registers& r = out[block * blockDim.x * blockDim.y * blockDim.z + thread];
  r.laneid = weft::ptx::laneid();
  r.warpid = weft::ptx::warpid();
  r.nwarpid = weft::ptx::nwarpid();
  r.smid = weft::ptx::smid();
  r.nsmid = weft::ptx::nsmid();
  r.lanemask_eq = weft::ptx::lanemask_eq();
  r.lanemask_le = weft::ptx::lanemask_le();
  r.lanemask_lt = weft::ptx::lanemask_lt();
  r.lanemask_ge = weft::ptx::lanemask_ge();
  r.lanemask_gt = weft::ptx::lanemask_gt();
  r.tid[0] = weft::ptx::tid_x(), r.tid[1] = weft::ptx::tid_y(), r.tid[2] = weft::ptx::tid_z();
  r.ntid[0] = weft::ptx::ntid_x(), r.ntid[1] = weft::ptx::ntid_y(), r.ntid[2] = weft::ptx::ntid_z();
  r.ctaid[0] = weft::ptx::ctaid_x(), r.ctaid[1] = weft::ptx::ctaid_y(), r.ctaid[2] = weft::ptx::ctaid_z();
  r.nctaid[0] = weft::ptx::nctaid_x(), r.nctaid[1] = weft::ptx::nctaid_y(), r.nctaid[2] = weft::ptx::nctaid_z();
  r.dynamic_smem_size = weft::ptx::dynamic_smem_size();
  r.total_smem_size = weft::ptx::total_smem_size();
  r.gridid = weft::ptx::gridid();
}

std::vector<registers> run(dim3 grid, dim3 block, std::size_t dynamic_shared) {
  device_buffer<registers> out(std::size_t{grid.x} * grid.y * grid.z * block.x * block.y * block.z);
  REQUIRE(weft::launch<read_registers>(weft::launch_config{grid, block, dynamic_shared}, out.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  return out.to_host();
}

std::uint64_t realtime_nanoseconds() {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(now.tv_nsec);
}

}  // namespace

TEST_CASE("%laneid, %warpid and the lane masks follow the thread's linear index in its block, 32 to a warp") {
  // 3D blocks of 5x7x2 = 70 threads: warps 0 and 1 full, warp 2 of 6 lanes.
  dim3 block{5, 7, 2};
  auto rows = run(dim3{2, 1, 1}, block, 0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const registers& r = rows[i];
    unsigned linear = r.tid[0] + block.x * (r.tid[1] + block.y * r.tid[2]);
    INFO("thread " << i);
    CHECK(linear == i % 70);
    CHECK(r.laneid == linear % 32);
    CHECK(r.warpid == linear / 32);
    CHECK(r.lanemask_eq == 1u << r.laneid);
    CHECK(r.lanemask_lt == (1u << r.laneid) - 1);
    CHECK(r.lanemask_le == (r.lanemask_lt | r.lanemask_eq));
    CHECK(r.lanemask_ge == ~r.lanemask_lt);
    CHECK(r.lanemask_gt == ~r.lanemask_le);
  }
  CHECK(rows[31].lanemask_le == 0xffffffffu);
  CHECK(rows[31].lanemask_gt == 0u);
  CHECK(rows[0].lanemask_ge == 0xffffffffu);
}

TEST_CASE("%tid, %ntid, %ctaid and %nctaid are threadIdx, blockDim, blockIdx and gridDim") {
  dim3 grid{3, 2, 2}, block{4, 2, 3};
  auto rows = run(grid, block, 0);
  std::size_t i = 0;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx)
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx, ++i) {
              const registers& r = rows.at(i);
              CHECK((r.tid[0] == tx && r.tid[1] == ty && r.tid[2] == tz));
              CHECK((r.ctaid[0] == bx && r.ctaid[1] == by && r.ctaid[2] == bz));
              CHECK((r.ntid[0] == 4 && r.ntid[1] == 2 && r.ntid[2] == 3));
              CHECK((r.nctaid[0] == 3 && r.nctaid[1] == 2 && r.nctaid[2] == 2));
            }
}

TEST_CASE("%smid is below %nsmid, the device's multiprocessor count; %nwarpid is an H100's 64") {
  int sms = 0;
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
  auto rows = run(dim3{64, 1, 1}, dim3{32, 1, 1}, 0);
  for (const registers& r : rows) {
    CHECK(r.nsmid == static_cast<std::uint32_t>(sms));
    CHECK(r.smid < r.nsmid);
    CHECK(r.nwarpid == 64);
  }
}

TEST_CASE("%gridid numbers launches: each launch's threads share one, and a later launch has a larger one") {
  auto first = run(dim3{4, 1, 1}, dim3{8, 1, 1}, 0);
  auto second = run(dim3{4, 1, 1}, dim3{8, 1, 1}, 0);
  CHECK(first[0].gridid != 0);
  for (const registers& r : first) CHECK(r.gridid == first[0].gridid);
  for (const registers& r : second) CHECK(r.gridid == second[0].gridid);
  CHECK(second[0].gridid > first[0].gridid);
}

TEST_CASE("%dynamic_smem_size is the launch's dynamic shared memory; %total_smem_size rounds it up to 128 bytes") {
  auto rows = run(dim3{2, 1, 1}, dim3{16, 1, 1}, 1000);
  for (const registers& r : rows) {
    CHECK(r.dynamic_smem_size == 1000);
    CHECK(r.total_smem_size == 1024);
  }
  auto none = run(dim3{1, 1, 1}, dim3{1, 1, 1}, 0);
  CHECK(none[0].dynamic_smem_size == 0);
  CHECK(none[0].total_smem_size == 0);
}

namespace {

// Each cycle count is read between two readings of the nanosecond timer,
// so that the interval it measures is bounded whatever the OS does between.
__global__ void read_timers(std::uint64_t* out, unsigned spin_ns) {
  out[0] = weft::ptx::globaltimer();
  out[1] = weft::ptx::clock64();
  out[2] = weft::ptx::globaltimer();
  std::uint64_t until = out[2] + spin_ns;
  while (weft::ptx::globaltimer() < until) {
  }
  out[3] = weft::ptx::globaltimer();
  out[4] = weft::ptx::clock64();
  out[5] = weft::ptx::globaltimer();
  out[6] = weft::ptx::globaltimer_lo();
  out[7] = weft::ptx::globaltimer_hi();
  out[8] = weft::ptx::clock();
}

}  // namespace

TEST_CASE("%globaltimer counts nanoseconds of the host's real-time clock; %clock64 the SM cycles clock64() counts") {
  device_buffer<std::uint64_t> out(9);
  std::uint64_t before = realtime_nanoseconds();
  constexpr unsigned spin_ns = 20'000'000;  // 20 ms
  REQUIRE(weft::launch<read_timers>(weft::launch_config{1, 1}, out.p, spin_ns) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::uint64_t after = realtime_nanoseconds();
  auto t = out.to_host();
  // Nanoseconds since the Unix epoch, as an H100's: between the host's reads around the launch.
  CHECK(t[0] >= before);
  CHECK(t[5] <= after);
  CHECK(t[3] - t[2] >= spin_ns);
  // An H100's 1.98 GHz: the cycles between the two clock64 reads, against
  // the shortest and longest time that can have passed between them (the
  // real-time and monotonic clocks may differ by an NTP slew, < 0.1%).
  double cycles = static_cast<double>(t[4] - t[1]);
  CHECK(cycles >= static_cast<double>(t[3] - t[2]) * 1.98 * 0.999);
  CHECK(cycles <= static_cast<double>(t[5] - t[0]) * 1.98 * 1.001);
  // The halves, read later, make a later time; %clock is 32 bits.
  CHECK(((t[7] << 32) | t[6]) >= t[5]);
  CHECK(t[8] <= 0xffffffffu);
}
