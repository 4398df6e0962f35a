// A program's own marks on the trace timeline: NVTX ranges and marks
// (nvtxRangePushA, nvtxMarkA, ...) and cudaProfilerStart/Stop, drawn on a
// track per host thread under a "host" process, beside the devices' tracks
// (docs/trace.md). Kept apart from the command recorder (trace.hpp), which
// calls write_json at exit to add these events to the same file.
//
// Each host thread keeps its stack of pushed ranges whether or not tracing
// is on, because nvtxRangePop reports the nesting level; the events
// themselves are stored only under WEFT_TRACE.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft::detail::trace {

/// Writes `s` as a JSON string, quotes included.
[[gnu::cold]] inline void put_quoted(std::FILE* out, std::string_view s) {
  std::fputc('"', out);
  for (char ch : s) {
    if (ch == '"' || ch == '\\')
      std::fprintf(out, "\\%c", ch);
    else if (static_cast<unsigned char>(ch) < 0x20)
      std::fprintf(out, "\\u%04x", static_cast<unsigned>(ch));
    else
      std::fputc(ch, out);
  }
  std::fputc('"', out);
}

class annotations {
 public:
  using steady = std::chrono::steady_clock;

  static annotations& get() {
    static annotations* const instance = new annotations;  // outlives threads still marking at exit
    return *instance;
  }

  /// The calling host thread's number on the timeline, from 1 in the order
  /// threads first annotate.
  int thread_number() {
    thread_local int number = 0;
    if (number == 0) number = next_thread_.fetch_add(1) + 1;
    return number;
  }

  /// A slice from `begin` to `end` (a range), or an instant at `begin` (a mark).
  void add(int thread, std::string name, steady::time_point begin, steady::time_point end, bool instant) {
    std::lock_guard lock(mutex_);
    if (events_.size() >= max_events) return;
    events_.push_back({thread, std::move(name), begin, end, instant});
  }

  /// Appends the events, in Chrome's trace event format, to a traceEvents
  /// array whose first event is still to be written if `first`; times are
  /// counted from `epoch`, the recorder's.
  [[gnu::cold]] void write_json(std::FILE* out, bool& first, steady::time_point epoch) {
    std::lock_guard lock(mutex_);
    if (events_.empty()) return;
    auto separator = [&] {
      if (!first) std::fputs(",\n", out);
      first = false;
    };
    auto us = [&](steady::time_point t) {
      long long ns = std::max<long long>(0, std::chrono::duration_cast<std::chrono::nanoseconds>(t - epoch).count());
      std::fprintf(out, "%lld.%03lld", ns / 1000, ns % 1000);
    };
    separator();
    std::fputs("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"host\"}}", out);
    std::vector<int> threads;
    for (auto& e : events_) threads.push_back(e.thread);
    std::sort(threads.begin(), threads.end());
    threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
    for (int t : threads) {
      separator();
      std::fprintf(
          out, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":\"host thread %d\"}}", t,
          t);
    }
    for (auto& e : events_) {
      separator();
      std::fputs(e.instant ? "{\"ph\":\"i\",\"s\":\"t\",\"name\":" : "{\"ph\":\"X\",\"name\":", out);
      put_quoted(out, e.name);
      std::fprintf(out, ",\"cat\":\"annotation\",\"pid\":0,\"tid\":%d,\"ts\":", e.thread);
      us(e.begin);
      if (!e.instant) {
        std::fputs(",\"dur\":", out);
        long long ns =
            std::max<long long>(0, std::chrono::duration_cast<std::chrono::nanoseconds>(e.end - e.begin).count());
        std::fprintf(out, "%lld.%03lld", ns / 1000, ns % 1000);
      }
      std::fputs("}", out);
    }
  }

 private:
  static constexpr std::size_t max_events = 1'000'000;

  struct event {
    int thread;
    std::string name;
    steady::time_point begin, end;
    bool instant;
  };

  annotations() = default;

  std::mutex mutex_;
  std::atomic<int> next_thread_{0};
  std::vector<event> events_;
};

}  // namespace weft::detail::trace
