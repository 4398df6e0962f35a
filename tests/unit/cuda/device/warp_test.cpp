// Warp collectives: shuffles (reduction, scan, butterfly, sub-warp widths),
// votes, match and reduce, partial warps, divergent halves of a warp, and
// independent progress of lanes that spin on each other.
#include <doctest/doctest.h>
#include <weft.hpp>

#include "device_buffer.hpp"
#include "stream_gates.hpp"

#include <cstdint>
#include <vector>

namespace {

// The CUDA guide's warp reduction: after five steps lane 0 holds the sum.
__global__ void warp_reduce_kernel(const int* in, int* out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[t];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if (threadIdx.x % 32 == 0) out[t / 32] = v;
}

// The shfl_scan sample's inclusive scan within a warp.
__global__ void warp_scan_kernel(const int* in, int* out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32;
  int v = in[t];
  for (unsigned d = 1; d < 32; d *= 2) {
    int n = __shfl_up_sync(0xffffffff, v, d);
    if (lane >= d) v += n;
  }
  out[t] = v;
}

__global__ void butterfly_kernel(const double* in, double* out) {
  unsigned t = threadIdx.x;
  double v = in[t];
  for (int m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffff, v, m);
  out[t] = v;
}

template <class T>
__global__ void segment_kernel(int width, T* idx, T* up, T* down, T* x) {
  unsigned t = threadIdx.x;
  T v = static_cast<T>(t * 10);
  idx[t] = __shfl_sync(0xffffffff, v, 3, width);  // lane 3 of each segment
  up[t] = __shfl_up_sync(0xffffffff, v, 2, width);
  down[t] = __shfl_down_sync(0xffffffff, v, 3, width);
  x[t] = __shfl_xor_sync(0xffffffff, v, width, width);  // leaves the segment
}

}  // namespace

TEST_CASE("warp reduction with __shfl_down_sync") {
  exact_workers pool(2);
  const unsigned blocks = 6, threads = 256;
  std::vector<int> in(blocks * threads);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i % 17) - 8;
  device_buffer<int> d_in(in), d_out(in.size() / 32);
  REQUIRE(weft::launch(blocks, threads, warp_reduce_kernel, d_in.p, d_out.p) == cudaSuccess);
  auto out = d_out.to_host();
  for (std::size_t w = 0; w < out.size(); ++w) {
    int sum = 0;
    for (std::size_t i = 0; i < 32; ++i) sum += in[w * 32 + i];
    CHECK(out[w] == sum);
  }
}

TEST_CASE("inclusive scan with __shfl_up_sync") {
  const unsigned threads = 128;
  std::vector<int> in(threads);
  for (unsigned i = 0; i < threads; ++i) in[i] = static_cast<int>(i * 3 % 7);
  device_buffer<int> d_in(in), d_out(threads);
  REQUIRE(weft::launch(1, threads, warp_scan_kernel, d_in.p, d_out.p) == cudaSuccess);
  auto out = d_out.to_host();
  for (unsigned w = 0; w < threads / 32; ++w) {
    int sum = 0;
    for (unsigned l = 0; l < 32; ++l) {
      sum += in[w * 32 + l];
      CHECK(out[w * 32 + l] == sum);
    }
  }
}

TEST_CASE("xor butterfly all-reduce of doubles") {
  std::vector<double> in(64);
  for (unsigned i = 0; i < 64; ++i) in[i] = 0.5 * i;
  device_buffer<double> d_in(in), d_out(64);
  REQUIRE(weft::launch(1, 64, butterfly_kernel, d_in.p, d_out.p) == cudaSuccess);
  auto out = d_out.to_host();
  for (unsigned i = 0; i < 64; ++i) {
    double sum = 0;
    for (unsigned l = 0; l < 32; ++l) sum += in[i / 32 * 32 + l];
    CHECK(out[i] == sum);
  }
}

TEST_CASE("shuffles in segments of width 8 and 16") {
  for (int width : {8, 16}) {
    CAPTURE(width);
    device_buffer<long long> idx(32), up(32), down(32), x(32);
    REQUIRE(weft::launch(1, 32, segment_kernel<long long>, width, idx.p, up.p, down.p, x.p) == cudaSuccess);
    auto i = idx.to_host(), u = up.to_host(), d = down.to_host(), xo = x.to_host();
    for (int lane = 0; lane < 32; ++lane) {
      int first = lane / width * width, in_segment = lane % width;
      CHECK(i[lane] == (first + 3) * 10);
      CHECK(u[lane] == (in_segment >= 2 ? lane - 2 : lane) * 10);
      CHECK(d[lane] == (in_segment + 3 < width ? lane + 3 : lane) * 10);
      // xor by `width` leaves the segment: an earlier segment is read, a
      // later one gives the caller's own value (PTX shfl.bfly).
      int partner = lane ^ width;
      CHECK(xo[lane] == (partner < first ? partner : lane) * 10);
    }
  }
}

TEST_CASE("shuffles of every type keep their bits") {
  auto kernel = [](float* f, unsigned long* ul, long* l, unsigned* u) {
    unsigned lane = threadIdx.x;
    f[lane] = __shfl_sync(0xffffffff, lane * 0.25f - 3.0f, 31 - static_cast<int>(lane));
    ul[lane] = __shfl_sync(0xffffffff, (1ul << 40) + lane, 0);
    l[lane] = __shfl_down_sync(0xffffffff, -static_cast<long>(lane), 1);
    u[lane] = __shfl_sync(0xffffffff, lane, 33);  // srcLane is taken modulo the width
  };
  device_buffer<float> f(32);
  device_buffer<unsigned long> ul(32);
  device_buffer<long> l(32);
  device_buffer<unsigned> u(32);
  REQUIRE(weft::launch(1, 32, kernel, f.p, ul.p, l.p, u.p) == cudaSuccess);
  auto fh = f.to_host();
  auto ulh = ul.to_host();
  auto lh = l.to_host();
  auto uh = u.to_host();
  for (int lane = 0; lane < 32; ++lane) {
    CHECK(fh[lane] == (31 - lane) * 0.25f - 3.0f);
    CHECK(ulh[lane] == (1ul << 40));
    CHECK(lh[lane] == -static_cast<long>(lane < 31 ? lane + 1 : lane));
    CHECK(uh[lane] == 1u);
  }
}

TEST_CASE("ballot, any and all on a divergent predicate") {
  auto kernel = [](unsigned* ballot, int* any, int* all, int* none_any, int* half_all) {
    unsigned lane = threadIdx.x % 32, t = threadIdx.x;
    int p = lane % 3 == 0;
    ballot[t] = __ballot_sync(0xffffffff, p);
    any[t] = __any_sync(0xffffffff, p);
    all[t] = __all_sync(0xffffffff, p);
    none_any[t] = __any_sync(0xffffffff, 0);
    if (lane < 16)
      half_all[t] = __all_sync(0x0000ffff, lane < 16);
    else
      half_all[t] = __all_sync(0xffff0000, lane < 20);
  };
  device_buffer<unsigned> ballot(64);
  device_buffer<int> any(64), all(64), none_any(64), half_all(64);
  REQUIRE(weft::launch(1, 64, kernel, ballot.p, any.p, all.p, none_any.p, half_all.p) == cudaSuccess);
  unsigned expected = 0;
  for (unsigned l = 0; l < 32; l += 3) expected |= 1u << l;
  auto b = ballot.to_host();
  auto an = any.to_host();
  auto al = all.to_host();
  auto na = none_any.to_host();
  auto ha = half_all.to_host();
  for (unsigned t = 0; t < 64; ++t) {
    CHECK(b[t] == expected);
    CHECK(an[t] == 1);
    CHECK(al[t] == 0);
    CHECK(na[t] == 0);
    CHECK(ha[t] == (t % 32 < 16 ? 1 : 0));
  }
}

TEST_CASE("__syncwarp orders a warp's shared-memory writes") {
  auto kernel = [](int* out) {
    __shared__ int s[64];
    unsigned t = threadIdx.x;
    s[t] = static_cast<int>(t);
    __syncwarp();
    out[t] = s[(t / 32) * 32 + (t + 1) % 32];
    __syncwarp(0xffffffff);
  };
  device_buffer<int> out(64);
  REQUIRE(weft::launch(1, 64, kernel, out.p) == cudaSuccess);
  auto o = out.to_host();
  for (int t = 0; t < 64; ++t) CHECK(o[t] == t / 32 * 32 + (t + 1) % 32);
}

TEST_CASE("a block of 48 threads: the second warp is partial") {
  auto kernel = [](int* out) {
    unsigned t = threadIdx.x;
    unsigned mask = t < 32 ? 0xffffffffu : 0x0000ffffu;
    out[96 + t] = static_cast<int>(__activemask());
    int v = static_cast<int>(t);
    for (int offset = 8; offset > 0; offset /= 2) v += __shfl_down_sync(mask, v, offset, 16);
    out[t] = v;
    out[48 + t] = static_cast<int>(__ballot_sync(mask, 1));
  };
  device_buffer<int> out(144);
  REQUIRE(weft::launch(1, 48, kernel, out.p) == cudaSuccess);
  auto o = out.to_host();
  for (int seg = 0; seg < 3; ++seg) {
    int sum = 0;
    for (int l = 0; l < 16; ++l) sum += seg * 16 + l;
    CHECK(o[seg * 16] == sum);
  }
  for (int t = 0; t < 48; ++t) {
    CHECK(static_cast<unsigned>(o[48 + t]) == (t < 32 ? 0xffffffffu : 0x0000ffffu));
    CHECK(static_cast<unsigned>(o[96 + t]) == (t < 32 ? 0xffffffffu : 0x0000ffffu));
  }
}

TEST_CASE("two halves of a warp in different branches each shuffle with their own mask") {
  auto kernel = [](int* out) {
    unsigned lane = threadIdx.x;
    int v = static_cast<int>(lane);
    if (lane % 2 == 0) {
      // Even lanes: a rotation among themselves.
      v = __shfl_sync(0x55555555, v, (lane + 2) % 32);
      out[lane] = v;
    } else {
      // Odd lanes: a sum among themselves, with a different call.
      int s = __reduce_add_sync(0xaaaaaaaa, v);
      out[lane] = s;
    }
  };
  device_buffer<int> out(32);
  REQUIRE(weft::launch(1, 32, kernel, out.p) == cudaSuccess);
  auto o = out.to_host();
  int odd_sum = 0;
  for (int l = 1; l < 32; l += 2) odd_sum += l;
  for (int l = 0; l < 32; ++l) CHECK(o[l] == (l % 2 == 0 ? (l + 2) % 32 : odd_sum));
}

TEST_CASE("a warp collective inside a __syncthreads loop, and warps waiting at the barrier meanwhile") {
  auto kernel = [](int* out) {
    __shared__ int sums[8];
    unsigned t = threadIdx.x;
    int total = 0;
    for (int round = 0; round < 3; ++round) {
      int v = static_cast<int>(t) + round;
      for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset);
      if (t % 32 == 0) sums[t / 32] = v;
      __syncthreads();
      total = 0;
      for (unsigned w = 0; w < blockDim.x / 32; ++w) total += sums[w];
      __syncthreads();
    }
    out[t] = total;
  };
  device_buffer<int> out(256);
  REQUIRE(weft::launch(1, 256, kernel, out.p) == cudaSuccess);
  int expected = 0;
  for (int t = 0; t < 256; ++t) expected += t + 2;
  for (int v : out.to_host()) CHECK(v == expected);
}

TEST_CASE("an intra-warp spin lock protecting a counter makes progress") {
  // Each lane holds the lock across a __nanosleep, which lets the other lanes
  // run: they find the lock taken and spin, and each failed atomicCAS (or
  // atomicExch that finds the lock set) must let the holder run again, as
  // independent thread scheduling does on sm_70 and later.
  // Counts the lanes inside at once (must stay 1), then releases the lock.
  auto critical_section = [](int* lock, int* counter, int* max_inside, int* inside) {
    int now = ++*inside;
    if (now > *max_inside) *max_inside = now;
    __nanosleep(100);
    *counter += 1;
    --*inside;
    __threadfence();
    atomicExch(lock, 0);
  };
  auto cas_lock = [critical_section](int* lock, int* counter, int* max_inside, int* inside) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    critical_section(lock, counter, max_inside, inside);
  };
  auto exch_lock = [critical_section](int* lock, int* counter, int* max_inside, int* inside) {
    while (atomicExch(lock, 1) != 0) {
    }
    critical_section(lock, counter, max_inside, inside);
  };
  for (int which = 0; which < 2; ++which) {
    CAPTURE(which);
    device_buffer<int> state(4);  // lock, counter, most lanes inside at once, lanes inside
    auto launched = which == 0 ? weft::launch(3, 64, cas_lock, state.p, state.p + 1, state.p + 2, state.p + 3)
                               : weft::launch(3, 64, exch_lock, state.p, state.p + 1, state.p + 2, state.p + 3);
    REQUIRE(launched == cudaSuccess);
    auto s = state.to_host();
    CHECK(s[0] == 0);
    CHECK(s[1] == 3 * 64);
    CHECK(s[2] == 1);
  }
}

TEST_CASE("a lane waits for a flag that a later lane of its warp sets") {
  // Lane 0 spins with atomicCAS until lane 31 has set the flag: lane 31 has
  // not even started when lane 0 begins to spin.
  auto kernel = [](int* flag, int* seen) {
    if (threadIdx.x == 0) {
      while (atomicCAS(flag, 1, 2) != 1) {
      }
      *seen = 1;
    } else if (threadIdx.x == 31) {
      atomicExch(flag, 1);
    }
  };
  device_buffer<int> flag(1), seen(1);
  REQUIRE(weft::launch(1, 32, kernel, flag.p, seen.p) == cudaSuccess);
  CHECK(flag.to_host()[0] == 2);
  CHECK(seen.to_host()[0] == 1);
}

TEST_CASE("two lanes spinning on each other's flags both get through") {
  // Lanes 3 and 4 each raise their own flag and then wait for the other's,
  // while lanes started after them must also run.
  auto kernel = [](int* flags, int* done) {
    unsigned t = threadIdx.x;
    if (t == 3 || t == 4) {
      // Both wait for lane 20 first: without starting unstarted threads
      // ahead of ready ones, lanes 3 and 4 would pass control back and forth.
      while (atomicCAS(&flags[2], 1, 1) != 1) {
      }
      atomicExch(&flags[t - 3], 1);
      while (atomicCAS(&flags[4 - t], 1, 1) != 1) {
      }
      atomicAdd(done, 1);
    } else if (t == 20) {
      atomicExch(&flags[2], 1);
    }
  };
  device_buffer<int> flags(3), done(1);
  REQUIRE(weft::launch(1, 32, kernel, flags.p, done.p) == cudaSuccess);
  CHECK(done.to_host()[0] == 2);
}

TEST_CASE("__match_any_sync groups lanes by key, __match_all_sync tells whether all agree") {
  auto kernel = [](unsigned* any, unsigned* all, int* pred, unsigned* all_same, int* pred_same, unsigned* fmatch) {
    unsigned lane = threadIdx.x;
    int key = static_cast<int>(lane % 5);
    any[lane] = __match_any_sync(0xffffffff, key);
    all[lane] = __match_all_sync(0xffffffff, key, &pred[lane]);
    all_same[lane] = __match_all_sync(0xffffffff, 7ull, &pred_same[lane]);
    fmatch[lane] = __match_any_sync(0x0000ffff << (lane / 16 * 16), lane < 8 ? 1.5 : -0.0);
  };
  device_buffer<unsigned> any(32), all(32), all_same(32), fmatch(32);
  device_buffer<int> pred(32), pred_same(32);
  REQUIRE(weft::launch(1, 32, kernel, any.p, all.p, pred.p, all_same.p, pred_same.p, fmatch.p) == cudaSuccess);
  auto a = any.to_host();
  auto al = all.to_host();
  auto p = pred.to_host();
  auto as = all_same.to_host();
  auto ps = pred_same.to_host();
  auto f = fmatch.to_host();
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned group = 0;
    for (unsigned l = lane % 5; l < 32; l += 5) group |= 1u << l;
    CHECK(a[lane] == group);
    CHECK(al[lane] == 0u);
    CHECK(p[lane] == 0);
    CHECK(as[lane] == 0xffffffffu);
    CHECK(ps[lane] == 1);
    CHECK(f[lane] == (lane < 8 ? 0x000000ffu : lane < 16 ? 0x0000ff00u : 0xffff0000u));
  }
}

TEST_CASE("__reduce_*_sync in signed and unsigned forms") {
  auto kernel = [](int* s, unsigned* u) {
    unsigned lane = threadIdx.x;
    int v = static_cast<int>(lane) - 20;  // -20 .. 11
    unsigned w = 0xf0000000u | lane;
    s[lane * 3 + 0] = __reduce_add_sync(0xffffffff, v);
    s[lane * 3 + 1] = __reduce_min_sync(0xffffffff, v);
    s[lane * 3 + 2] = __reduce_max_sync(0xffffffff, v);
    u[lane * 6 + 0] = __reduce_add_sync(0xffffffff, w);
    u[lane * 6 + 1] = __reduce_min_sync(0xffffffff, static_cast<unsigned>(v));  // -20 is large unsigned
    u[lane * 6 + 2] = __reduce_max_sync(0xffffffff, static_cast<unsigned>(v));
    u[lane * 6 + 3] = __reduce_and_sync(0xffffffff, w);
    u[lane * 6 + 4] = __reduce_or_sync(0xffffffff, w);
    u[lane * 6 + 5] = __reduce_xor_sync(0xffffffff, lane);
  };
  device_buffer<int> s(96);
  device_buffer<unsigned> u(192);
  REQUIRE(weft::launch(1, 32, kernel, s.p, u.p) == cudaSuccess);
  auto sh = s.to_host();
  auto uh = u.to_host();
  int sum = 0;
  unsigned usum = 0, xr = 0;
  for (unsigned l = 0; l < 32; ++l) {
    sum += static_cast<int>(l) - 20;
    usum += 0xf0000000u | l;
    xr ^= l;
  }
  for (unsigned lane = 0; lane < 32; ++lane) {
    CHECK(sh[lane * 3 + 0] == sum);
    CHECK(sh[lane * 3 + 1] == -20);
    CHECK(sh[lane * 3 + 2] == 11);
    CHECK(uh[lane * 6 + 0] == usum);
    CHECK(uh[lane * 6 + 1] == 0u);
    CHECK(uh[lane * 6 + 2] == static_cast<unsigned>(-1));
    CHECK(uh[lane * 6 + 3] == 0xf0000000u);
    CHECK(uh[lane * 6 + 4] == 0xf000001fu);
    CHECK(uh[lane * 6 + 5] == xr);
  }
}

TEST_CASE("__activemask leaves out lanes that exited or took another branch") {
  auto kernel = [](int n, unsigned* masks, int* sums) {
    unsigned t = threadIdx.x;
    if (static_cast<int>(t) >= n) return;  // the partial last block's pattern
    unsigned mask = __activemask();
    masks[t] = mask;
    sums[t] = __reduce_add_sync(mask, 1);
    if (t % 32 < 10)
      masks[64 + t] = __activemask();
    else
      masks[64 + t] = __activemask();
  };
  device_buffer<unsigned> masks(128);
  device_buffer<int> sums(64);
  REQUIRE(weft::launch(1, 64, kernel, 40, masks.p, sums.p) == cudaSuccess);
  auto m = masks.to_host();
  auto s = sums.to_host();
  for (unsigned t = 0; t < 40; ++t) {
    CAPTURE(t);
    CHECK(m[t] == (t < 32 ? 0xffffffffu : 0x000000ffu));
    CHECK(s[t] == (t < 32 ? 32 : 8));
    unsigned warp_lanes = t < 32 ? 0xffffffffu : 0x000000ffu;
    CHECK(m[64 + t] == (t % 32 < 10 ? 0x3ffu & warp_lanes : ~0x3ffu & warp_lanes));
  }
}

TEST_CASE("a shuffle from a lane outside the mask gives 0, as an H100 did") {
  auto kernel = [](int* out) {
    unsigned lane = threadIdx.x;
    if (lane < 16) out[lane] = __shfl_sync(0x0000ffff, static_cast<int>(lane) + 100, 20);
  };
  device_buffer<int> out(16);
  REQUIRE(weft::launch(1, 32, kernel, out.p) == cudaSuccess);
  for (int v : out.to_host()) CHECK(v == 0);
}
