// Built-in variables and index math in 1D, 2D and 3D launches, and how
// kernel arguments are passed (copied at launch, per-thread by value).
#include <doctest/doctest.h>
#include <weft.hpp>

#include "device_buffer.hpp"
#include "stream_gates.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <thread>
#include <vector>

namespace {

// What one CUDA thread saw, and how often its slot was written: every thread
// of the grid must run exactly once.
struct seen {
  unsigned thread[3], block[3], block_dim[3], grid_dim[3];
  unsigned visits;
};

// Helper __device__ functions read the builtins of the CUDA thread calling them.
__device__ unsigned long long global_linear_id() {
  unsigned long long block = (1ull * blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  unsigned long long within = (1ull * threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  return block * (1ull * blockDim.x * blockDim.y * blockDim.z) + within;
}

__device__ void record_builtins(seen* out) {
  seen& s = out[global_linear_id()];
  s.thread[0] = threadIdx.x, s.thread[1] = threadIdx.y, s.thread[2] = threadIdx.z;
  s.block[0] = blockIdx.x, s.block[1] = blockIdx.y, s.block[2] = blockIdx.z;
  s.block_dim[0] = blockDim.x, s.block_dim[1] = blockDim.y, s.block_dim[2] = blockDim.z;
  s.grid_dim[0] = gridDim.x, s.grid_dim[1] = gridDim.y, s.grid_dim[2] = gridDim.z;
  atomicAdd(&s.visits, 1u);
}

__global__ void record_kernel(seen* out) { record_builtins(out); }

// Walks the grid in CUDA's order (blocks x-fastest, then threads x-fastest)
// and checks each thread's record against the indices it must have had.
void check_records(const std::vector<seen>& records, dim3 grid, dim3 block) {
  std::size_t i = 0;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx)
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx, ++i) {
              const seen& s = records.at(i);
              INFO("block (" << bx << "," << by << "," << bz << ") thread (" << tx << "," << ty << "," << tz << ")");
              CHECK(s.visits == 1);
              CHECK((s.thread[0] == tx && s.thread[1] == ty && s.thread[2] == tz));
              CHECK((s.block[0] == bx && s.block[1] == by && s.block[2] == bz));
              CHECK((s.block_dim[0] == block.x && s.block_dim[1] == block.y && s.block_dim[2] == block.z));
              CHECK((s.grid_dim[0] == grid.x && s.grid_dim[1] == grid.y && s.grid_dim[2] == grid.z));
            }
  CHECK(i == records.size());
}

template <class Kernel>
void launch_and_check(dim3 grid, dim3 block, Kernel kernel) {
  device_buffer<seen> out(weft::volume(grid) * weft::volume(block));
  REQUIRE(weft::launch(grid, block, kernel, out.p) == cudaSuccess);
  check_records(out.to_host(), grid, block);
}

// Adds the thread's index to its own copy of `base`: a shared copy would
// accumulate the other threads' additions.
__global__ void add_own_index(int base, int* out) {
  base += static_cast<int>(threadIdx.x);
  out[threadIdx.x] = base;
}

struct small_params {
  int values[4];
};

__global__ void bump_struct_copy(small_params p, int* out) {
  p.values[1] += static_cast<int>(threadIdx.x);
  out[threadIdx.x] = p.values[0] + p.values[1];
}

}  // namespace

TEST_CASE("vector add over a grid whose last block is partial") {
  const int n = 1000;
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) a[i] = float(i), b[i] = float(2 * i);
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  REQUIRE(cudaMalloc(&da, n * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMalloc(&db, n * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMalloc(&dc, n * sizeof(float)) == cudaSuccess);
  cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  auto add = [](const float* x, const float* y, float* z, int count) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < count) z[i] = x[i] + y[i];
  };
  CHECK(weft::launch((n + 255) / 256, 256, add, da, db, dc, n) == cudaSuccess);
  REQUIRE(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int i = 0; i < n; ++i) CHECK(c[i] == float(3 * i));
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}

TEST_CASE("builtins of every thread in 1D, 2D and 3D launches") {
  exact_workers pool(4);
  // Block sizes that are not multiples of the warp size on purpose.
  SUBCASE("1D: 5 blocks of 48") { launch_and_check(dim3(5), dim3(48), record_kernel); }
  SUBCASE("2D: 3x2 blocks of 10x10") { launch_and_check(dim3(3, 2), dim3(10, 10), record_kernel); }
  SUBCASE("3D: 2x3x2 blocks of 7x5x3") { launch_and_check(dim3(2, 3, 2), dim3(7, 5, 3), record_kernel); }
  SUBCASE("3D grid of 1D blocks") { launch_and_check(dim3(4, 2, 3), dim3(33), record_kernel); }
  SUBCASE("1D grid of 3D blocks") { launch_and_check(dim3(6), dim3(2, 4, 8), record_kernel); }
  // Enough blocks that each worker claims several at a time and runs them back to back.
  SUBCASE("300 blocks of 48") { launch_and_check(dim3(300), dim3(48), record_kernel); }
  SUBCASE("20x15 blocks of 8x4") { launch_and_check(dim3(20, 15), dim3(8, 4), record_kernel); }
}

TEST_CASE("a lambda kernel sees the same builtins as a __global__ function") {
  launch_and_check(dim3(3, 1, 2), dim3(5, 4, 3), [](seen* out) { record_builtins(out); });
}

TEST_CASE("builtins still describe the calling thread after a barrier") {
  // Each barrier switches between the block's threads on one OS thread; the
  // builtins must follow the thread that resumes.
  dim3 grid(2, 2), block;
  SUBCASE("3D blocks") { block = dim3(7, 5, 3); }
  SUBCASE("1D blocks") { block = dim3(100); }
  SUBCASE("2D blocks, one column") { block = dim3(1, 50); }
  std::size_t n = weft::volume(grid) * weft::volume(block);
  device_buffer<seen> before(n), after(n);
  auto kernel = [](seen* first, seen* second) {
    record_builtins(first);
    __syncthreads();
    __syncthreads();
    record_builtins(second);
  };
  REQUIRE(weft::launch(grid, block, kernel, before.p, after.p) == cudaSuccess);
  check_records(before.to_host(), grid, block);
  check_records(after.to_host(), grid, block);
}

TEST_CASE("warpSize is 32 inside a kernel") {
  device_buffer<int> out(1);
  auto kernel = [](int* o) { *o = warpSize; };
  REQUIRE(weft::launch(1, 1, kernel, out.p) == cudaSuccess);
  CHECK(out.to_host()[0] == 32);
}

TEST_CASE("by-value parameters are private to each thread") {
  exact_workers pool(4);
  device_buffer<int> out(100);
  SUBCASE("a __global__ function's int parameter") {
    REQUIRE(weft::launch(1, 100, add_own_index, 7, out.p) == cudaSuccess);
    auto host = out.to_host();
    for (int t = 0; t < 100; ++t) CHECK(host[t] == 7 + t);
  }
  SUBCASE("a struct parameter") {
    REQUIRE(weft::launch(1, 100, bump_struct_copy, small_params{{1, 10, 0, 0}}, out.p) == cudaSuccess);
    auto host = out.to_host();
    for (int t = 0; t < 100; ++t) CHECK(host[t] == 11 + t);
  }
  SUBCASE("a lambda's by-value parameter") {
    auto kernel = [](int base, int* o) {
      base *= static_cast<int>(threadIdx.x) + 1;
      o[threadIdx.x] = base;
    };
    REQUIRE(weft::launch(1, 100, kernel, 3, out.p) == cudaSuccess);
    auto host = out.to_host();
    for (int t = 0; t < 100; ++t) CHECK(host[t] == 3 * (t + 1));
  }
  SUBCASE("a mutable lambda's captures") {
    // Captures are part of the kernel's by-value parameter in CUDA, so each
    // thread of each block starts from the launch's copy.
    device_buffer<int> per_block(4 * 100);
    int* o = per_block.p;
    auto kernel = [o, step = 5]() mutable {
      step += static_cast<int>(threadIdx.x);
      o[blockIdx.x * blockDim.x + threadIdx.x] = step;
    };
    REQUIRE(weft::launch(4, 100, kernel) == cudaSuccess);
    auto host = per_block.to_host();
    for (int i = 0; i < 4 * 100; ++i) CHECK(host[i] == 5 + i % 100);
  }
}

TEST_CASE("arguments are copied at launch, not read when the kernel runs") {
  // A first kernel holds the device until the host opens the gate, so the
  // second kernel certainly runs after the host changed its variables. The
  // gate gives up after a minute only so that a bug cannot hang the suite.
  auto gate = [](std::atomic<bool>* open, bool* opened_by_host) {
    auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (!open->load() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
    *opened_by_host = open->load();
  };
  std::atomic<bool> open{false};
  bool opened_by_host = false;
  device_buffer<int> out(32), other(32);
  int base = 7;
  small_params params{{1, 10, 0, 0}};
  int* destination = out.p;
  REQUIRE(weft::launch(1, 1, gate, &open, &opened_by_host) == cudaSuccess);
  REQUIRE(weft::launch(1, 32, add_own_index, base, destination) == cudaSuccess);
  REQUIRE(weft::launch(1, 32, bump_struct_copy, params, other.p) == cudaSuccess);
  base = 1000;
  params.values[0] = 1000;
  destination = other.p;
  open = true;
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(opened_by_host);  // the launches returned before their kernels ran
  auto ints = out.to_host(), structs = other.to_host();
  for (int t = 0; t < 32; ++t) {
    CHECK(ints[t] == 7 + t);
    CHECK(structs[t] == 11 + t);
  }
}
