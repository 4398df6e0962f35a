// The race check's shadow traffic for a vector add, alone: the memory
// accesses its records make per element, without the check's instructions,
// so that a record layout's share of the check's cost can be told apart
// from the rest (docs/debugging.md, "What each mode costs").
//
// Per element, as the check makes them on a page it holds: each of the two
// loads reads its word's write record and latest-read record and writes
// the latest read; the store reads its word's write record and writes it.
// Five record arrays (two per input, one for the output) and the data.
// Prints the CPU time per element, the least of three runs, for 16-byte
// records (race_record) and 8-byte ones, with the arrays at the same offset
// in their 4 KiB pages (as arrays of whole pages from `new` lie) and
// staggered by 448 bytes each, on 1 and 2 threads.
//
//   clang++-16 -O2 -std=c++20 benchmarks/debug_modes/shadow_traffic.cpp -o /tmp/shadow_traffic -lpthread
//   /tmp/shadow_traffic [log2 of the elements, default 24]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>
#include <vector>

namespace {

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

template <unsigned Bytes>
struct record {
  std::uint64_t halves[Bytes / 8];
  std::uint64_t tag() const { return halves[Bytes / 8 - 1]; }  // where race_record keeps the launch tag
  void store(std::uint64_t value) {
    for (std::uint64_t& h : halves) h = value;
  }
};

// The least CPU time per element, in ns, of three runs.
template <unsigned Bytes>
double ns_per_element(std::size_t n, unsigned threads, bool staggered) {
  using shadow = record<Bytes>;
  constexpr std::size_t arrays = 5;
  constexpr std::size_t stagger_bytes = 448;
  std::vector<std::vector<shadow>> storage(arrays);
  shadow* parts[arrays];
  for (std::size_t i = 0; i < arrays; ++i) {
    storage[i].resize(n + 4096);
    std::memset(storage[i].data(), 1, storage[i].size() * sizeof(shadow));
    parts[i] = storage[i].data() + (staggered ? i * stagger_bytes / sizeof(shadow) : 0);
  }
  shadow *a_writes = parts[0], *a_reads = parts[1], *b_writes = parts[2], *b_reads = parts[3], *c_writes = parts[4];
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n);
  double least = 1e30;
  for (int run = 0; run < 3; ++run) {
    double start = process_cpu_seconds();
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
        std::uint64_t seen = 0;
        for (std::size_t i = begin; i < end; ++i) {
          seen += a_writes[i].tag() + a_reads[i].tag();
          a_reads[i].store(i);
          seen += b_writes[i].tag() + b_reads[i].tag();
          b_reads[i].store(i);
          seen += c_writes[i].tag();
          c_writes[i].store(i + seen);
          c[i] = a[i] + b[i];
          asm volatile("" : : "r"(seen) : "memory");  // one element at a time, as the check goes
        }
      });
    for (std::thread& w : workers) w.join();
    least = std::min(least, process_cpu_seconds() - start);
  }
  return least * 1e9 / double(n);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = std::size_t{1} << (argc > 1 ? std::atoi(argv[1]) : 24);
  std::printf("CPU ns per element, %zu elements: records of 16 bytes | 8 bytes\n", n);
  for (bool staggered : {false, true})
    for (unsigned threads : {1u, 2u})
      std::printf("%-32s %u thread(s): %6.2f | %6.2f\n",
                  staggered ? "arrays staggered in their pages" : "arrays at one offset in their pages", threads,
                  ns_per_element<16>(n, threads, staggered), ns_per_element<8>(n, threads, staggered));
}
