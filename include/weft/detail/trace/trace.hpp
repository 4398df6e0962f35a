// The timeline trace: with WEFT_TRACE=file.json set, the runtime records
// every command (from the moment its dependencies are met to its completion)
// on its stream's track, the chunks of blocks each SM worker ran, and the
// host functions as the host-function thread ran them, and writes them at
// process exit in the Chrome trace event format, which https://ui.perfetto.dev
// and chrome://tracing open (docs/trace.md).
//
// Without WEFT_TRACE each hook is one test of a flag read once at start-up.
// With it, events are appended under one mutex: a chunk of blocks is one
// event, not one per block, so a grid of a million blocks makes thousands of
// events, and past max_events further events are counted and dropped.
#pragma once

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "weft/detail/base/forked_child.hpp"
#include "weft/detail/trace/annotations.hpp"

namespace weft::detail::trace {

inline constexpr const char* variable = "WEFT_TRACE";

/// Read once, so that a hook costs one well-predicted branch when tracing is off.
inline const bool enabled = [] {
  const char* path = std::getenv(variable);
  return path && *path;
}();

/// Enough for long runs, small enough that the file still opens in a browser.
inline constexpr std::size_t max_events = 1'000'000;

using steady = std::chrono::steady_clock;

/// How a command's slice is drawn. The trace sits below the scheduler, so it
/// knows commands only by their address and these few facts about them.
enum class slice_kind {
  marker,         // an instant: an event record, a wait
  grid,           // a kernel: its slice, and the chunks the workers ran
  host_task,      // a copy or set
  host_function,  // a callback, also drawn on the host-function track
};

class recorder {
 public:
  /// Never destroyed: a thread still running at exit may record after the
  /// file is written, and finds the recorder closed rather than gone.
  static recorder& get() {
    static recorder* const instance = new recorder;
    return *instance;
  }

  void enqueued(const void* command, int device, std::uint64_t stream) {
    auto now = steady::now();
    std::lock_guard lock(mutex_);
    if (!closed_) pending_[command] = {device, stream, next_command_++, now, now, now};
  }

  void started(const void* command) {
    auto now = steady::now();
    std::lock_guard lock(mutex_);
    if (auto it = pending_.find(command); it != pending_.end()) it->second.started = it->second.ran = now;
  }

  void host_function_runs(const void* command) {
    auto now = steady::now();
    std::lock_guard lock(mutex_);
    if (auto it = pending_.find(command); it != pending_.end()) it->second.ran = now;
  }

  void finished(const void* command, slice_kind kind, steady::time_point completed, std::string what,
                std::string graph_launch = {}) {
    std::lock_guard lock(mutex_);
    auto it = pending_.find(command);
    if (it == pending_.end()) return;
    pending p = it->second;
    pending_.erase(it);
    if (full()) return;
    commands_.push_back({p, kind, completed, std::move(what), std::move(graph_launch)});
  }

  void chunk(const void* grid, std::uint64_t first, std::uint64_t end, steady::time_point began) {
    auto now = steady::now();
    // A worker serves one device's pool all its life; numbered as it first runs a chunk.
    thread_local int worker = -1;
    std::lock_guard lock(mutex_);
    auto it = pending_.find(grid);
    if (it == pending_.end()) return;
    if (worker < 0) {
      auto device = static_cast<std::size_t>(it->second.device);
      if (next_worker_.size() <= device) next_worker_.resize(device + 1);
      worker = next_worker_[device]++;
    }
    if (full()) return;
    chunks_.push_back({it->second.device, worker, it->second.id, it->second.stream, first, end, began, now});
  }

  void per_thread_stream(int device, std::uint64_t stream) {
    std::lock_guard lock(mutex_);
    per_thread_streams_.emplace_back(device, stream);
  }

  /// Writes the file and stops recording; reports a failure on one line of stderr.
  [[gnu::cold]] void write() {
    std::unique_lock lock(mutex_);
    if (closed_) return;
    closed_ = true;
    lock.unlock();
    const char* path = std::getenv(variable);
    std::FILE* file = std::fopen(path, "w");
    if (!file) {
      std::fprintf(stderr, "weft: cannot write the trace to %s: %s\n", path, std::strerror(errno));
      return;
    }
    write_json(file);
    bool written = !std::ferror(file);
    if (std::fclose(file) != 0 || !written)
      std::fprintf(stderr, "weft: cannot write the trace to %s: %s\n", path, std::strerror(errno));
    else if (dropped_ != 0)
      std::fprintf(stderr, "weft: the trace in %s keeps the first %zu events; %zu more were dropped\n", path,
                   max_events, dropped_);
  }

 private:
  struct pending {
    int device;
    std::uint64_t stream;
    std::uint64_t id;
    steady::time_point enqueued, started, ran;
  };
  struct command_event {
    pending p;
    slice_kind kind;
    steady::time_point completed;
    std::string what;
    std::string graph_launch;  // empty outside graph launches
  };
  struct chunk_event {
    int device;
    int worker;
    std::uint64_t command;
    std::uint64_t stream;
    std::uint64_t first, end;
    steady::time_point began, ended;
  };

  recorder() = default;

  bool full() {
    if (commands_.size() + chunks_.size() < max_events) return false;
    ++dropped_;
    return true;
  }

  // The writer runs once, at exit, and only with WEFT_TRACE set, yet every
  // program compiles it. So it prints straight to the file with std::fprintf
  // (one out-of-line call per piece), with no std::string, sort or map, and is
  // marked cold: written with strings, sorts and lambdas it took a tenth of
  // the time a ten-line program takes to compile at -O2.

  // Integer nanoseconds since the recorder started, printed as microseconds
  // with three decimals, so that a slice's end is exactly ts + dur.
  std::int64_t ns(steady::time_point t) const {
    return std::max<std::int64_t>(0, std::chrono::duration_cast<std::chrono::nanoseconds>(t - epoch_).count());
  }

  [[gnu::cold]] static void put_us(std::FILE* out, std::int64_t ns) {
    std::fprintf(out, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
  }

  // Tracks are numbered at the end, per device: the legacy stream, the
  // streams by number, the host-function thread, then the SM workers.
  enum track_kind { stream_track, host_function_track, worker_track };
  struct track {
    int device;
    track_kind kind;
    std::uint64_t n;
  };
  static bool before(const track& a, const track& b) {
    if (a.device != b.device) return a.device < b.device;
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.n < b.n;
  }

  // Tracks kept sorted, without duplicates; a track's tid is its position + 1.
  struct track_list {
    std::vector<track> sorted;
    std::size_t position(const track& t) const {
      std::size_t low = 0, high = sorted.size();
      while (low < high) {
        std::size_t middle = low + (high - low) / 2;
        if (before(sorted[middle], t))
          low = middle + 1;
        else
          high = middle;
      }
      return low;
    }
    [[gnu::cold]] void add(const track& t) {
      std::size_t at = position(t);
      if (at < sorted.size() && !before(t, sorted[at])) return;
      sorted.push_back(t);
      for (std::size_t i = sorted.size() - 1; i > at; --i) sorted[i] = sorted[i - 1];
      sorted[at] = t;
    }
    unsigned long long tid(const track& t) const { return position(t) + 1; }
  };

  [[gnu::cold]] void put_track_name(std::FILE* out, const track& t) const {
    const char* prefix = "stream ";
    if (t.kind == host_function_track) return put_quoted(out, "host functions");
    if (t.kind == worker_track)
      prefix = "SM worker ";
    else if (t.n == 0)
      return put_quoted(out, "legacy default stream");
    for (auto& [d, s] : per_thread_streams_)
      if (t.kind == stream_track && d == t.device && s == t.n) prefix = "per-thread stream ";
    std::fprintf(out, "\"%s%llu\"", prefix, static_cast<unsigned long long>(t.n));
  }

  // A kernel's description reads "kernel 'name' <<<(x,y,z), (x,y,z)>>>" (grid_job::describe).
  struct kernel_parts {
    std::string_view name, grid, block;
  };
  [[gnu::cold]] static kernel_parts kernel_of(std::string_view what) {
    auto open = what.find('\'');
    auto launch = what.rfind("' <<<");
    auto comma = what.find("), (", launch);
    auto close = what.find(">>>", launch);
    if (open == what.npos || launch == what.npos || launch <= open || comma == what.npos || close == what.npos ||
        close < comma)
      return {what, "", ""};
    return {what.substr(open + 1, launch - open - 1), what.substr(launch + 5, comma + 1 - (launch + 5)),
            what.substr(comma + 3, close - (comma + 3))};
  }

  // A copy or set reads "<what> of <n> bytes" (host_task's callers).
  [[gnu::cold]] static std::pair<std::string_view, std::string_view> bytes_of(std::string_view what) {
    auto of = what.rfind(" of ");
    if (of == what.npos || !what.ends_with(" bytes")) return {what, ""};
    std::string_view count = what.substr(of + 4, what.size() - 6 - (of + 4));
    if (count.empty() || count.find_first_not_of("0123456789") != what.npos) return {what, ""};
    return {what.substr(0, of), count};
  }

  // A command of a graph launch is named after it: "graph launch 3: kernel name".
  [[gnu::cold]] static std::string labelled(const command_event& c, std::string_view name) {
    if (c.graph_launch.empty()) return std::string(name);
    return c.graph_launch + ": " + std::string(name);
  }

  // Events are separated by ",\n".
  struct event_writer {
    std::FILE* out;
    const track_list& tracks;
    bool first = true;

    [[gnu::cold]] void next() {
      if (!first) std::fputs(",\n", out);
      first = false;
    }
    // An event's fields up to "pid" and "tid".
    [[gnu::cold]] void begin(const char* ph, std::string_view name, const track& t) {
      next();
      std::fprintf(out, "{\"ph\":\"%s\",\"name\":", ph);
      put_quoted(out, name);
      std::fprintf(out, ",\"cat\":\"weft\",\"pid\":%d,\"tid\":%llu", t.device + 1, tracks.tid(t));
    }
    // A complete event up to its first argument.
    [[gnu::cold]] void slice(std::string_view name, const track& t, std::int64_t begin_ns, std::int64_t end_ns) {
      begin("X", name, t);
      std::fputs(",\"ts\":", out);
      put_us(out, begin_ns);
      std::fputs(",\"dur\":", out);
      put_us(out, end_ns - begin_ns);
      std::fputs(",\"args\":{", out);
    }
    [[gnu::cold]] void end(std::int64_t enqueued_ns) {
      std::fputs("\"enqueued_at_us\":", out);
      put_us(out, enqueued_ns);
      std::fputs("}}", out);
    }
  };

  [[gnu::cold]] void write_json(std::FILE* out) {
    std::lock_guard lock(mutex_);
    track_list tracks;
    // Grid commands by id, for the workers' chunks; ids are consecutive, so
    // those of the recorded grids span about as many as were recorded.
    std::uint64_t first_grid = ~std::uint64_t{0}, last_grid = 0;
    for (auto& c : commands_) {
      tracks.add({c.p.device, stream_track, c.p.stream});
      if (c.kind == slice_kind::host_function) tracks.add({c.p.device, host_function_track, 0});
      if (c.kind == slice_kind::grid) {
        first_grid = std::min(first_grid, c.p.id);
        last_grid = std::max(last_grid, c.p.id);
      }
    }
    for (auto& c : chunks_) tracks.add({c.device, worker_track, static_cast<std::uint64_t>(c.worker)});
    std::vector<const command_event*> grids(first_grid <= last_grid ? last_grid - first_grid + 1 : 0);

    std::fputs("{\"traceEvents\":[\n", out);
    event_writer events{out, tracks};
    int last_device = -1;
    for (auto& t : tracks.sorted) {
      int pid = t.device + 1;
      if (t.device != last_device) {
        events.next();
        std::fprintf(out, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"device %d\"}}", pid,
                     t.device);
        events.next();
        std::fprintf(out, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"args\":{\"sort_index\":%d}}", pid,
                     pid);
        last_device = t.device;
      }
      events.next();
      std::fprintf(out, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%llu,\"args\":{\"name\":", pid,
                   tracks.tid(t));
      put_track_name(out, t);
      std::fputs("}}", out);
      events.next();
      std::fprintf(
          out, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%llu,\"args\":{\"sort_index\":%llu}}",
          pid, tracks.tid(t), tracks.tid(t));
    }

    for (auto& c : commands_) {
      track on{c.p.device, stream_track, c.p.stream};
      std::int64_t enqueued = ns(c.p.enqueued);
      std::int64_t b = ns(c.p.started), e = std::max(b, ns(c.completed));
      switch (c.kind) {
        case slice_kind::grid: {
          grids[c.p.id - first_grid] = &c;
          kernel_parts k = kernel_of(c.what);
          events.slice(labelled(c, k.name), on, b, e);
          std::fputs("\"grid\":", out);
          put_quoted(out, k.grid);
          std::fputs(",\"block\":", out);
          put_quoted(out, k.block);
          std::fputc(',', out);
          events.end(enqueued);
          break;
        }
        case slice_kind::host_task: {
          auto [name, bytes] = bytes_of(c.what);
          events.slice(labelled(c, name), on, b, e);
          if (!bytes.empty()) std::fprintf(out, "\"bytes\":%.*s,", static_cast<int>(bytes.size()), bytes.data());
          events.end(enqueued);
          break;
        }
        case slice_kind::host_function:
          events.slice(labelled(c, c.what), on, b, e);
          events.end(enqueued);
          b = ns(c.p.ran), e = std::max(b, ns(c.completed));
          events.slice(labelled(c, c.what), {c.p.device, host_function_track, 0}, b, e);
          std::fputs("\"stream\":", out);
          put_track_name(out, on);
          std::fputc(',', out);
          events.end(enqueued);
          break;
        case slice_kind::marker:
          events.next();
          std::fputs("{\"ph\":\"i\",\"s\":\"t\",\"name\":", out);
          put_quoted(out, labelled(c, c.what));
          std::fprintf(out, ",\"cat\":\"weft\",\"pid\":%d,\"tid\":%llu,\"ts\":", c.p.device + 1, tracks.tid(on));
          put_us(out, ns(c.completed));
          std::fputs(",\"args\":{", out);
          events.end(enqueued);
          break;
      }
    }
    put_graph_launches(events);
    for (auto& c : chunks_) {
      std::int64_t b = ns(c.began), e = std::max(b, ns(c.ended));
      const command_event* grid =
          c.command >= first_grid && c.command - first_grid < grids.size() ? grids[c.command - first_grid] : nullptr;
      events.slice(grid ? kernel_of(grid->what).name : "kernel",
                   {c.device, worker_track, static_cast<std::uint64_t>(c.worker)}, b, e);
      std::fprintf(out,
                   "\"first_block\":%llu,\"last_block\":%llu,\"stream\":", static_cast<unsigned long long>(c.first),
                   static_cast<unsigned long long>(c.end - 1));
      put_track_name(out, {c.device, stream_track, c.stream});
      std::fputs("}}", out);
    }
    annotations::get().write_json(out, events.first, epoch_);
    if (!events.first) std::fputc('\n', out);
    std::fprintf(out, "],\n\"otherData\":{\"max_events\":%zu,\"dropped_events\":%zu}}\n", max_events, dropped_);
  }

  // Each graph launch as a slice around its commands on the row of the stream
  // it was launched into (its first command's): from its first command's
  // start to its last command's completion.
  [[gnu::cold]] void put_graph_launches(event_writer& events) const {
    struct span {
      const command_event* first;
      std::int64_t begin, end;
    };
    std::unordered_map<std::string_view, span> launches;
    std::vector<std::string_view> order;
    for (auto& c : commands_) {
      if (c.graph_launch.empty()) continue;
      std::int64_t b = ns(c.p.started), e = std::max(b, ns(c.completed));
      auto [it, added] = launches.try_emplace(c.graph_launch, span{&c, b, e});
      if (added) order.push_back(c.graph_launch);
      it->second.begin = std::min(it->second.begin, b);
      it->second.end = std::max(it->second.end, e);
    }
    for (std::string_view name : order) {
      const span& s = launches.at(name);
      events.slice(name, {s.first->p.device, stream_track, s.first->p.stream}, s.begin, s.end);
      std::fputs("\"span\":\"graph launch\",", events.out);
      events.end(ns(s.first->p.enqueued));
    }
  }

  std::mutex mutex_;
  bool closed_ = false;
  steady::time_point epoch_ = steady::now();
  std::unordered_map<const void*, pending> pending_;  // enqueued, not yet completed
  std::uint64_t next_command_ = 0;
  std::vector<int> next_worker_;  // by device
  std::vector<std::pair<int, std::uint64_t>> per_thread_streams_;
  std::vector<command_event> commands_;
  std::vector<chunk_event> chunks_;
  std::size_t dropped_ = 0;
};

// The hooks. Each tests `enabled` first, so that they cost nothing more when tracing is off.

/// Called before the runtimes are made (runtime::get): the writer made here
/// is destroyed after them, once every command has completed, whether main
/// returned or the program called exit().
inline void open() {
  if (!enabled) [[likely]]
    return;
  struct writer {
    writer() { recorder::get(); }
    // A forked child's copy is the parent's trace so far, which the parent
    // writes; the recorder's lock may have been held at the fork.
    ~writer() {
      if (!in_forked_child()) recorder::get().write();
    }
  };
  static writer at_exit;
}

inline void enqueued(const void* command, int device, std::uint64_t stream) {
  if (enabled) [[unlikely]]
    recorder::get().enqueued(command, device, stream);
}
inline void started(const void* command) {
  if (enabled) [[unlikely]]
    recorder::get().started(command);
}
inline void host_function_runs(const void* command) {
  if (enabled) [[unlikely]]
    recorder::get().host_function_runs(command);
}
/// `describe` makes the slice's label; it is called only when tracing.
/// `graph_launch`: the graph launch the command is part of, if any.
template <class Describe>
void finished(const void* command, slice_kind kind, steady::time_point completed, Describe&& describe,
              const std::string* graph_launch = nullptr) {
  if (enabled) [[unlikely]]
    recorder::get().finished(command, kind, completed, describe(), graph_launch ? *graph_launch : std::string());
}
inline steady::time_point chunk_begins() { return enabled ? steady::now() : steady::time_point{}; }
inline void chunk_ran(const void* grid, std::uint64_t first, std::uint64_t end, steady::time_point began) {
  if (enabled) [[unlikely]]
    recorder::get().chunk(grid, first, end, began);
}
inline void per_thread_stream(int device, std::uint64_t stream) {
  if (enabled) [[unlikely]]
    recorder::get().per_thread_stream(device, stream);
}

}  // namespace weft::detail::trace
