// GPU probe of how an sm_90 GPU counts arrivals at a PTX named barrier when
// warps arrive partial, split, or with lanes exited (docs/semantics.md,
// "Named barriers"). Each case runs in its own process (argv[1], 1 to 17); a
// launch still running after 1 s is reported as HANG. Built with nvcc
// -arch=sm_90 only (it is not compared with weft: unit tests pin its
// results, tests/unit/cuda/device/named_barrier_test.cpp); an H200 printed
// h100_measurements/named_barrier_counting_h200.txt.
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

__device__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ void spin_ns(unsigned long long ns) {
  unsigned long long start = now_ns();
  while (now_ns() - start < ns) {
  }
}
__device__ void sync_a(int id, int n) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory"); }
__device__ void sync_n(int id, int n) { asm volatile("barrier.sync %0, %1;" ::"r"(id), "r"(n) : "memory"); }
__device__ void sync_all_n(int id) { asm volatile("barrier.sync %0;" ::"r"(id) : "memory"); }
__device__ void arrive_n(int id, int n) { asm volatile("barrier.arrive %0, %1;" ::"r"(id), "r"(n) : "memory"); }
__device__ int popc_a(int id, int n, int p) {
  int r;
  asm volatile("{ .reg .pred q; setp.ne.u32 q, %3, 0; bar.red.popc.u32 %0, %1, %2, q; }"
               : "=r"(r)
               : "r"(id), "r"(n), "r"(p)
               : "memory");
  return r;
}
__device__ int popc_n(int id, int n, int p) {
  int r;
  asm volatile("{ .reg .pred q; setp.ne.u32 q, %3, 0; barrier.red.popc.u32 %0, %1, %2, q; }"
               : "=r"(r)
               : "r"(id), "r"(n), "r"(p)
               : "memory");
  return r;
}
__device__ int popc_all_n(int id, int p) {
  int r;
  asm volatile("{ .reg .pred q; setp.ne.u32 q, %2, 0; barrier.red.popc.u32 %0, %1, q; }"
               : "=r"(r)
               : "r"(id), "r"(p)
               : "memory");
  return r;
}

__global__ void probe(int c, int* out, unsigned long long* after, unsigned long long* left) {
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  switch (c) {
    case 1:  // warp 0's lanes 16-31 exited; warp 0 lanes 0-15 + warp 1 at bar.red.popc 1, 64 (aligned)
      if (warp == 0 && lane >= 16) return;
      out[tid] = popc_a(1, 64, 1);
      break;
    case 2:  // same, non-aligned barrier.red
      if (warp == 0 && lane >= 16) return;
      out[tid] = popc_n(1, 64, 1);
      break;
    case 3:  // block of 48 threads (last warp partial) at bar.red.popc 1, 64
      out[tid] = popc_a(1, 64, 1);
      break;
    case 4:  // block of 48 at barrier.red.popc 1 (no count)
      out[tid] = popc_all_n(1, 1);
      break;
    case 5:  // warp 0's lanes 16-31 skip the barrier, run 300 us, then exit; the rest barrier.sync 1, 64
      if (warp == 0 && lane >= 16) {
        spin_ns(300000);
        left[tid] = now_ns();
        return;
      }
      sync_n(1, 64);
      after[tid] = now_ns();
      out[tid] = 1;
      break;
    case 6:  // warp 0: lanes 0-15 barrier.arrive 1, 64, lanes 16-31 exited; warp 1 barrier.sync 1, 64
      if (warp == 0 && lane >= 16) return;
      if (warp == 0)
        arrive_n(1, 64);
      else
        sync_n(1, 64);
      after[tid] = now_ns();
      out[tid] = 1;
      break;
    case 7:  // warp 0: lanes 0-15 barrier.arrive 1, 64 then go on; lanes 16-31 run 300 us then exit; warp 1 syncs
      if (warp == 0 && lane >= 16) {
        spin_ns(300000);
        left[tid] = now_ns();
        return;
      }
      if (warp == 0)
        arrive_n(1, 64);
      else
        sync_n(1, 64);
      after[tid] = now_ns();
      out[tid] = 1;
      break;
    case 8:  // both warps split: even lanes at site A after 0 us, odd lanes at site B after 300 us; popc 1, 64
      if (lane % 2 == 0) {
        out[tid] = popc_n(1, 64, 1);
      } else {
        spin_ns(300000);
        left[tid] = now_ns();
        out[tid] = 1000 + popc_n(1, 64, 1);
      }
      after[tid] = now_ns();
      break;
    case 9:  // only warp 0 (warp 1 exits at once), split across two sites, count 64
      if (warp == 1) return;
      if (lane % 2 == 0) {
        out[tid] = popc_n(1, 64, 1);
      } else {
        spin_ns(100000);
        out[tid] = 1000 + popc_n(1, 64, 1);
      }
      break;
    case 10:  // block of 32, split across two sites, count 32
      if (lane % 2 == 0) {
        out[tid] = popc_n(1, 32, 1);
      } else {
        spin_ns(100000);
        out[tid] = 1000 + popc_n(1, 32, 1);
      }
      break;
    case 11:  // block of 128, every warp at bar.red.popc 1, 64 (two phases)
      out[tid] = popc_a(1, 64, 1);
      break;
    case 12:  // block of 64, warp 1 exits; warp 0 at barrier.red.popc 1 (no count)
      if (warp == 1) return;
      out[tid] = popc_all_n(1, 1);
      break;
    case 13:  // block of 64, warp 0's lanes 16-31 exit; the rest barrier.red.popc 1 (no count)
      if (warp == 0 && lane >= 16) return;
      out[tid] = popc_all_n(1, 1);
      break;
    case 14:  // lanes 0-15 of each warp on barrier 1, lanes 16-31 on barrier 2, count 64 each
      if (lane < 16)
        out[tid] = popc_n(1, 64, 1);
      else
        out[tid] = 1000 + popc_n(2, 64, 1);
      break;
    case 15:  // block of 96, every warp at bar.sync 1, 64: the third warp's phase never fills
      sync_a(1, 64);
      out[tid] = 1;
      break;
    case 16:  // block of 64, only warp 0 at barrier.sync 1, 64 (half the count), warp 1 exits
      if (warp == 1) return;
      sync_n(1, 64);
      out[tid] = 1;
      break;
    case 17:  // warp 0: lanes 0-15 barrier.sync 1, 64, lanes 16-31 never arrive and spin until a flag warp 1 sets after
              // its own barrier.sync 2, 32
      if (warp == 0 && lane >= 16) {
        while (atomicAdd(&out[100], 0) == 0) {
        }
        return;
      }
      if (warp == 1) {
        sync_n(2, 32);
        atomicExch(&out[100], 1);
        sync_n(1, 64);
      } else {
        sync_n(1, 64);
      }
      out[tid] = 1;
      break;
  }
}

int main(int argc, char** argv) {
  int c = std::atoi(argv[1]);
  int threads = c == 3 || c == 4 ? 48 : c == 10 ? 32 : c == 11 ? 128 : c == 15 ? 96 : 64;
  int* out;
  unsigned long long *after, *left;
  cudaMalloc(&out, 1024 * sizeof(int));
  cudaMalloc(&after, 1024 * 8);
  cudaMalloc(&left, 1024 * 8);
  cudaMemset(out, 0xff, 1024 * sizeof(int));
  cudaMemset(out + 100, 0, sizeof(int));
  cudaMemset(after, 0, 1024 * 8);
  cudaMemset(left, 0, 1024 * 8);
  cudaDeviceSynchronize();
  probe<<<1, threads>>>(c, out, after, left);
  auto start = std::chrono::steady_clock::now();
  while (cudaStreamQuery(0) == cudaErrorNotReady) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(1)) {
      std::printf("case %d (%d threads): HANG\n", c, threads);
      std::fflush(stdout);
      _exit(0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  cudaError_t e = cudaGetLastError();
  int h_out[1024];
  unsigned long long h_after[1024], h_left[1024];
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_after, after, sizeof h_after, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_left, left, sizeof h_left, cudaMemcpyDeviceToHost);
  std::printf("case %d (%d threads): COMPLETED %s; out:", c, threads, cudaGetErrorName(e));
  for (int t = 0; t < threads; ++t) std::printf(" %d", h_out[t]);
  std::printf("\n");
  unsigned long long last_left = 0;
  for (int t = 0; t < threads; ++t)
    if (h_left[t] > last_left) last_left = h_left[t];
  if (last_left) {
    for (int w = 0; w * 32 < threads; ++w) {
      unsigned long long first_after = ~0ull;
      for (int t = w * 32; t < w * 32 + 32 && t < threads; ++t)
        if (h_after[t] && h_after[t] < first_after) first_after = h_after[t];
      if (first_after != ~0ull)
        std::printf("  warp %d went on %lld ns after the last delayed lane left or arrived (negative: before)\n", w,
                    (long long)(first_after - last_left));
    }
  }
  return 0;
}
