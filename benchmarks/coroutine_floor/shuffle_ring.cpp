// The floor of weft_bench's stackless 5-step shuffle reduction on C++20
// coroutines, without weft: 8 warps of 32 coroutines run `iterations`
// reductions each. A step deposits the lane's value in its warp's slots
// (two halves, step by step, as weft's converged steps do), counts the
// arrival and suspends, except the last lane, which reads its source and
// carries on; a loop then resumes the other 31 in lane order, each first
// given its source's value. No thread identity, checks or reports: what
// is left is the coroutine's own price and the loop's (measure.sh).
#include <algorithm>
#include <chrono>
#include <coroutine>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct lane_task {
  struct promise_type {
    lane_task get_return_object() { return {std::coroutine_handle<promise_type>::from_promise(*this)}; }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() { std::abort(); }
  };
  std::coroutine_handle<promise_type> handle;
};

struct ring_warp {
  unsigned long slots[2][32];
  unsigned half = 0, arrived = 0, last = 0;
  unsigned long* result_into[32];
  unsigned source[32];
};

struct step {
  ring_warp& w;
  unsigned lane, source;
  unsigned long value, result = 0;
  bool await_ready() noexcept {
    w.slots[w.half][lane] = value;
    w.source[lane] = source;
    w.result_into[lane] = &result;
    if (++w.arrived != 32) return false;
    w.arrived = 0;
    w.last = lane;
    result = w.slots[w.half][source];
    w.half ^= 1;
    return true;
  }
  void await_suspend(std::coroutine_handle<>) noexcept {}
  unsigned long await_resume() const noexcept { return result; }
};

int wrong = 0;

lane_task reduction(ring_warp& w, unsigned lane, int iterations) {
  for (int i = 0; i < iterations; ++i) {
    unsigned long v = lane + i;
    for (unsigned offset = 16; offset > 0; offset /= 2)
      v += co_await step{w, lane, lane + offset < 32 ? lane + offset : lane, v};
    if (lane == 0 && v != 496 + 32ul * i) ++wrong;
  }
}

lane_task reduction_free(ring_warp&, unsigned lane, int iterations) {
  for (int i = 0; i < iterations; ++i) {
    unsigned long v = lane + i;
    asm volatile("" ::: "memory");
    if (v > 1u << 30) ++wrong;
  }
  co_return;
}

template <class Kernel>
double run(Kernel kernel, int iterations) {
  std::vector<ring_warp> warps(8);
  std::vector<lane_task> lanes(256);
  auto start = std::chrono::steady_clock::now();
  for (unsigned wi = 0; wi < 8; ++wi) {
    ring_warp& w = warps[wi];
    lane_task* t = &lanes[wi * 32];
    for (unsigned l = 0; l < 32; ++l) t[l] = kernel(w, l, iterations);
    for (unsigned l = 0; l < 32; ++l) t[l].handle.resume();
    while (!t[w.last].handle.done()) {
      const unsigned long* read = w.slots[w.half ^ 1];
      for (unsigned m = ~(1u << w.last); m != 0; m &= m - 1) {
        unsigned l = static_cast<unsigned>(__builtin_ctz(m));
        *w.result_into[l] = read[w.source[l]];
        t[l].handle.resume();
      }
    }
  }
  auto end = std::chrono::steady_clock::now();
  for (lane_task& t : lanes) t.handle.destroy();
  return std::chrono::duration<double>(end - start).count();
}

// shuffle_ring [iterations [rounds [only]]]: only 1 runs the reduction
// once, 2 its shuffle-free twin (for an instruction count); otherwise the
// best of `rounds` runs of each, interleaved.
int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 200;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 30;
  int only = argc > 3 ? std::atoi(argv[3]) : 0;
  if (only == 1) run(reduction, iterations);
  if (only == 2) run(reduction_free, iterations);
  if (only != 0) return wrong != 0;
  double best = 1e9, best_free = 1e9;
  for (int r = 0; r < rounds; ++r) {
    best = std::min(best, run(reduction, iterations));
    best_free = std::min(best_free, run(reduction_free, iterations));
  }
  double per = 1e9 / (256.0 * iterations);
  std::printf("ns per thread per 5-step reduction: %.2f, without the steps %.2f, net %.2f%s\n", best * per,
              best_free * per, (best - best_free) * per, wrong ? " (WRONG SUMS)" : "");
  return wrong != 0;
}
