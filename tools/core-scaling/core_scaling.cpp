// The machine's own ceiling for issue 17's scaling target: a loop of pure
// arithmetic (no memory beyond registers) timed on 1 thread, then the same
// loop on N threads at once, each doing the first's whole work. The ratio
// N * t1 / tN is how much faster N cores are than one; where one core runs
// at a higher turbo clock than all of them together, it is below N, and no
// program, weft included, scales past it on compute-bound kernels.
//
//   g++ -std=c++20 -O2 tools/core-scaling/core_scaling.cpp -lpthread -o core_scaling
//   ./core_scaling 16 [rounds]      # 1 thread against 16, alternating, `rounds` times (default 3)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

// Four independent integer multiply-add chains and a float chain: enough
// to keep a core's arithmetic units busy without touching memory.
std::uint64_t arithmetic_work(std::uint64_t iterations, std::uint64_t seed) {
  std::uint64_t a = seed | 1, b = seed ^ 0x9e3779b97f4a7c15ull, c = seed + 7, d = seed * 3 + 1;
  double f = 1.0 + double(seed & 7);
  for (std::uint64_t i = 0; i < iterations; ++i) {
    a = a * 6364136223846793005ull + 1442695040888963407ull;
    b = b * 2862933555777941757ull + 3037000493ull;
    c ^= c << 13, c ^= c >> 7, c ^= c << 17;
    d = d * 0xff51afd7ed558ccdull + (d >> 29);
    f = f * 0.9999999 + 1e-7;
  }
  return a ^ b ^ c ^ d ^ static_cast<std::uint64_t>(f * 1e6);
}

double seconds_on(unsigned threads, std::uint64_t iterations) {
  std::vector<std::thread> pool;
  std::vector<std::uint64_t> sinks(threads * 8);
  auto start = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { sinks[t * 8] = arithmetic_work(iterations, t + 1); });
  for (auto& t : pool) t.join();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::uint64_t sum = 0;
  for (auto v : sinks) sum += v;
  if (sum == 42) std::puts("");  // keeps the work from being optimised away
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned threads = argc > 1 ? unsigned(std::atoi(argv[1])) : std::thread::hardware_concurrency();
  int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::uint64_t iterations = 400'000'000;
  seconds_on(1, iterations / 10);  // wakes the core's clock up
  for (int r = 0; r < rounds; ++r) {
    double one = seconds_on(1, iterations), many = seconds_on(threads, iterations);
    std::printf("arithmetic loop: 1 thread %.3f s, %u threads %.3f s: %.2fx of %u\n", one, threads, many,
                threads * one / many, threads);
  }
}
