// The machine's own ceiling for issue 17's scaling target: a loop of pure
// arithmetic (no memory beyond registers) timed on 1 thread, then the same
// loop on N threads at once, each doing the first's whole work. The ratio
// N * t1 / tN is how much faster N cores are than one; where one core runs
// at a higher turbo clock than all of them together, it is below N, and no
// program, weft included, scales past it on compute-bound kernels.
//
//   g++ -std=c++20 -O2 tools/core-scaling/core_scaling.cpp -lpthread -o core_scaling
//   ./core_scaling 16 [rounds]      # 1 thread against 16, alternating, `rounds` times (default 3)
//   ./core_scaling 16 3 fp          # the same with floating-point throughput work (build with -O3)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
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

// Floating-point throughput instead of latency: 64 independent multiply-add
// chains, which -O3 turns into enough vector chains to keep a core's
// floating-point units full (n-body's kind of work). Where two of the
// machine's CPUs share one core's units (hyperthreads behind a VM's
// "1 thread per core"), this scales less than the latency-bound loop above.
std::uint64_t throughput_work(std::uint64_t iterations, std::uint64_t seed) {
  double acc[64];
  for (int k = 0; k < 64; ++k) acc[k] = 1.0 + double((seed + k) & 7);
  for (std::uint64_t i = 0; i < iterations * 4; ++i)
    for (int k = 0; k < 64; ++k) acc[k] = acc[k] * 0.9999999 + 1e-7;
  double sum = 0;
  for (double a : acc) sum += a;
  return static_cast<std::uint64_t>(sum * 1e6);
}

bool floating_point_throughput = false;

double seconds_on(unsigned threads, std::uint64_t iterations) {
  std::vector<std::thread> pool;
  std::vector<std::uint64_t> sinks(threads * 8);
  auto start = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      sinks[t * 8] =
          floating_point_throughput ? throughput_work(iterations, t + 1) : arithmetic_work(iterations, t + 1);
    });
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
  floating_point_throughput = argc > 3 && std::string_view(argv[3]) == "fp";
  const std::uint64_t iterations = 400'000'000;
  seconds_on(1, iterations / 10);  // wakes the core's clock up
  for (int r = 0; r < rounds; ++r) {
    double one = seconds_on(1, iterations), many = seconds_on(threads, iterations);
    std::printf("%s loop: 1 thread %.3f s, %u threads %.3f s: %.2fx of %u\n",
                floating_point_throughput ? "floating-point throughput" : "arithmetic", one, threads, many,
                threads * one / many, threads);
  }
}
