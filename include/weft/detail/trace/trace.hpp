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

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>


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

  void finished(const void* command, slice_kind kind, steady::time_point completed, std::string what) {
    std::lock_guard lock(mutex_);
    auto it = pending_.find(command);
    if (it == pending_.end()) return;
    pending p = it->second;
    pending_.erase(it);
    if (full()) return;
    commands_.push_back({p, kind, completed, std::move(what)});
  }

  void chunk(const void* grid, std::uint64_t first, std::uint64_t end, steady::time_point began) {
    auto now = steady::now();
    // A worker serves one device's pool all its life; numbered as it first runs a chunk.
    thread_local int worker = -1;
    std::lock_guard lock(mutex_);
    auto it = pending_.find(grid);
    if (it == pending_.end()) return;
    if (worker < 0) worker = next_worker_[it->second.device]++;
    if (full()) return;
    chunks_.push_back({it->second.device, worker, it->second.id, it->second.stream, first, end, began, now});
  }

  void per_thread_stream(int device, std::uint64_t stream) {
    std::lock_guard lock(mutex_);
    per_thread_streams_.emplace_back(device, stream);
  }

  /// Writes the file and stops recording; reports a failure on one line of stderr.
  void write() {
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
    std::string text = json();
    bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
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

  // Integer nanoseconds since the recorder started, printed as microseconds
  // with three decimals, so that a slice's end is exactly ts + dur.
  std::int64_t ns(steady::time_point t) const {
    return std::max<std::int64_t>(0, std::chrono::duration_cast<std::chrono::nanoseconds>(t - epoch_).count());
  }
  static std::string us(std::int64_t ns) {
    char text[32];
    std::snprintf(text, sizeof text, "%lld.%03lld", static_cast<long long>(ns / 1000),
                  static_cast<long long>(ns % 1000));
    return text;
  }

  static std::string quoted(std::string_view s) {
    std::string out = "\"";
    for (char ch : s) {
      if (ch == '"' || ch == '\\') {
        out += '\\';
        out += ch;
      } else if (static_cast<unsigned char>(ch) < 0x20) {
        char escape[8];
        std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(ch));
        out += escape;
      } else {
        out += ch;
      }
    }
    return out + '"';
  }

  // Tracks are numbered at the end, per device: the legacy stream, the
  // streams by number, the host-function thread, then the SM workers.
  enum track_kind { stream_track, host_function_track, worker_track };
  using track = std::tuple<int, track_kind, std::uint64_t>;

  std::string track_name(const track& t) const {
    auto [device, kind, n] = t;
    if (kind == host_function_track) return "host functions";
    if (kind == worker_track) return "SM worker " + std::to_string(n);
    if (n == 0) return "legacy default stream";
    for (auto& [d, s] : per_thread_streams_)
      if (d == device && s == n) return "per-thread stream " + std::to_string(n);
    return "stream " + std::to_string(n);
  }

  // A kernel's description reads "kernel 'name' <<<(x,y,z), (x,y,z)>>>" (grid_job::describe).
  struct kernel_parts {
    std::string name, grid, block;
  };
  static kernel_parts kernel_of(const std::string& what) {
    auto open = what.find('\'');
    auto launch = what.rfind("' <<<");
    auto comma = what.find("), (", launch);
    auto close = what.find(">>>", launch);
    if (open == std::string::npos || launch == std::string::npos || launch <= open || comma == std::string::npos ||
        close == std::string::npos || close < comma)
      return {what, "", ""};
    return {what.substr(open + 1, launch - open - 1), what.substr(launch + 5, comma + 1 - (launch + 5)),
            what.substr(comma + 3, close - (comma + 3))};
  }

  // A copy or set reads "<what> of <n> bytes" (host_task's callers).
  static std::pair<std::string, std::string> bytes_of(const std::string& what) {
    auto of = what.rfind(" of ");
    if (of == std::string::npos || !what.ends_with(" bytes")) return {what, ""};
    std::string count = what.substr(of + 4, what.size() - 6 - (of + 4));
    if (count.empty() || count.find_first_not_of("0123456789") != std::string::npos) return {what, ""};
    return {what.substr(0, of), count};
  }

  std::string json() {
    std::lock_guard lock(mutex_);
    std::map<track, int> tracks;
    for (auto& c : commands_) {
      tracks.emplace(track{c.p.device, stream_track, c.p.stream}, 0);
      if (c.kind == slice_kind::host_function) tracks.emplace(track{c.p.device, host_function_track, 0}, 0);
    }
    for (auto& c : chunks_) tracks.emplace(track{c.device, worker_track, static_cast<std::uint64_t>(c.worker)}, 0);
    int next_tid = 1;
    for (auto& [t, tid] : tracks) tid = next_tid++;

    std::string out = "{\"traceEvents\":[\n";
    auto event = [&](const std::string& fields) { (out += "{") += fields + "},\n"; };
    auto where = [&](const track& t) {
      return "\"pid\":" + std::to_string(std::get<0>(t) + 1) + ",\"tid\":" + std::to_string(tracks.at(t));
    };
    int last_device = -1;
    for (auto& [t, tid] : tracks) {
      int device = std::get<0>(t);
      if (device != last_device) {
        std::string pid = std::to_string(device + 1);
        event("\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + pid + ",\"args\":{\"name\":\"device " +
              std::to_string(device) + "\"}");
        event("\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + pid + ",\"args\":{\"sort_index\":" + pid + "}");
        last_device = device;
      }
      event("\"ph\":\"M\",\"name\":\"thread_name\"," + where(t) + ",\"args\":{\"name\":" + quoted(track_name(t)) + "}");
      event("\"ph\":\"M\",\"name\":\"thread_sort_index\"," + where(t) +
            ",\"args\":{\"sort_index\":" + std::to_string(tid) + "}");
    }

    std::unordered_map<std::uint64_t, std::string> kernel_names;
    for (auto& c : commands_) {
      track on{c.p.device, stream_track, c.p.stream};
      std::string enqueued = ",\"enqueued_at_us\":" + us(ns(c.p.enqueued));
      auto slice = [&](const track& t, const std::string& name, steady::time_point begin, const std::string& args) {
        std::int64_t b = ns(begin), e = std::max(b, ns(c.completed));
        event("\"ph\":\"X\",\"name\":" + quoted(name) + ",\"cat\":\"weft\"," + where(t) + ",\"ts\":" + us(b) +
              ",\"dur\":" + us(e - b) + ",\"args\":{" + args + "}");
      };
      switch (c.kind) {
        case slice_kind::grid: {
          kernel_parts k = kernel_of(c.what);
          kernel_names[c.p.id] = k.name;
          slice(on, k.name, c.p.started, "\"grid\":" + quoted(k.grid) + ",\"block\":" + quoted(k.block) + enqueued);
          break;
        }
        case slice_kind::host_task: {
          auto [name, bytes] = bytes_of(c.what);
          slice(on, name, c.p.started, bytes.empty() ? enqueued.substr(1) : "\"bytes\":" + bytes + enqueued);
          break;
        }
        case slice_kind::host_function:
          slice(on, c.what, c.p.started, enqueued.substr(1));
          slice({c.p.device, host_function_track, 0}, c.what, c.p.ran,
                "\"stream\":" + quoted(track_name(on)) + enqueued);
          break;
        case slice_kind::marker:
          event("\"ph\":\"i\",\"s\":\"t\",\"name\":" + quoted(c.what) + ",\"cat\":\"weft\"," + where(on) +
                ",\"ts\":" + us(ns(c.completed)) + ",\"args\":{" + enqueued.substr(1) + "}");
          break;
      }
    }
    for (auto& c : chunks_) {
      std::int64_t b = ns(c.began), e = std::max(b, ns(c.ended));
      auto name = kernel_names.find(c.command);
      event("\"ph\":\"X\",\"name\":" + quoted(name == kernel_names.end() ? "kernel" : name->second) +
            ",\"cat\":\"weft\"," + where({c.device, worker_track, static_cast<std::uint64_t>(c.worker)}) +
            ",\"ts\":" + us(b) + ",\"dur\":" + us(e - b) + ",\"args\":{\"first_block\":" + std::to_string(c.first) +
            ",\"last_block\":" + std::to_string(c.end - 1) +
            ",\"stream\":" + quoted(track_name({c.device, stream_track, c.stream})) + "}");
    }
    if (out.ends_with(",\n")) out.erase(out.size() - 2, 1);
    out += "],\n\"otherData\":{\"max_events\":" + std::to_string(max_events) +
           ",\"dropped_events\":" + std::to_string(dropped_) + "}}\n";
    return out;
  }

  std::mutex mutex_;
  bool closed_ = false;
  steady::time_point epoch_ = steady::now();
  std::unordered_map<const void*, pending> pending_;  // enqueued, not yet completed
  std::uint64_t next_command_ = 0;
  std::map<int, int> next_worker_;
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
    ~writer() { recorder::get().write(); }
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
template <class Describe>
void finished(const void* command, slice_kind kind, steady::time_point completed, Describe&& describe) {
  if (enabled) [[unlikely]]
    recorder::get().finished(command, kind, completed, describe());
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
