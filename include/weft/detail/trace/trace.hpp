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
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
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

  // The writer runs once, at exit, and only with WEFT_TRACE set, yet every
  // program compiles it: it appends pieces to one string through a few
  // out-of-line calls, instead of chains of std::string temporaries (which
  // GCC inlines at -O2), and is marked cold, so that it costs little to
  // compile.

  // Integer nanoseconds since the recorder started, printed as microseconds
  // with three decimals, so that a slice's end is exactly ts + dur.
  std::int64_t ns(steady::time_point t) const {
    return std::max<std::int64_t>(0, std::chrono::duration_cast<std::chrono::nanoseconds>(t - epoch_).count());
  }

  /// A number as text, without a std::string.
  struct number {
    char text[32];
    operator std::string_view() const { return text; }
  };
  static number us(std::int64_t ns) {
    number n;
    std::snprintf(n.text, sizeof n.text, "%lld.%03lld", static_cast<long long>(ns / 1000),
                  static_cast<long long>(ns % 1000));
    return n;
  }
  static number decimal(std::int64_t value) {
    number n;
    std::snprintf(n.text, sizeof n.text, "%lld", static_cast<long long>(value));
    return n;
  }
  static number decimal(std::uint64_t value) {
    number n;
    std::snprintf(n.text, sizeof n.text, "%llu", static_cast<unsigned long long>(value));
    return n;
  }

  [[gnu::cold]] static void put(std::string& out, std::initializer_list<std::string_view> pieces) {
    for (std::string_view piece : pieces) out.append(piece.data(), piece.size());
  }

  [[gnu::cold]] static void put_quoted(std::string& out, std::string_view s) {
    out += '"';
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
    out += '"';
  }

  // Tracks are numbered at the end, per device: the legacy stream, the
  // streams by number, the host-function thread, then the SM workers.
  enum track_kind { stream_track, host_function_track, worker_track };
  struct track {
    int device;
    track_kind kind;
    std::uint64_t n;
    auto operator<=>(const track&) const = default;
  };

  [[gnu::cold]] void put_track_name(std::string& out, const track& t) const {
    std::string_view prefix = "stream ";
    if (t.kind == host_function_track) return put_quoted(out, "host functions");
    if (t.kind == worker_track)
      prefix = "SM worker ";
    else if (t.n == 0)
      return put_quoted(out, "legacy default stream");
    for (auto& [d, s] : per_thread_streams_)
      if (t.kind == stream_track && d == t.device && s == t.n) prefix = "per-thread stream ";
    put(out, {"\"", prefix, decimal(t.n), "\""});
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

  [[gnu::cold]] std::string json() {
    std::lock_guard lock(mutex_);
    // Sorted, without duplicates; a track's tid is its position + 1.
    std::vector<track> tracks;
    auto add = [&](const track& t) {
      auto at = std::lower_bound(tracks.begin(), tracks.end(), t);
      if (at == tracks.end() || *at != t) tracks.insert(at, t);
    };
    for (auto& c : commands_) {
      add({c.p.device, stream_track, c.p.stream});
      if (c.kind == slice_kind::host_function) add({c.p.device, host_function_track, 0});
    }
    for (auto& c : chunks_) add({c.device, worker_track, static_cast<std::uint64_t>(c.worker)});
    auto tid = [&](const track& t) {
      return decimal(static_cast<std::int64_t>(std::lower_bound(tracks.begin(), tracks.end(), t) - tracks.begin() + 1));
    };

    std::string out = "{\"traceEvents\":[\n";
    // An event's fields up to "pid" and "tid".
    auto begin_event = [&](std::string_view ph, std::string_view name, const track& t) {
      put(out, {"{\"ph\":\"", ph, "\",\"name\":"});
      put_quoted(out, name);
      put(out, {",\"cat\":\"weft\",\"pid\":", decimal(std::int64_t{t.device} + 1), ",\"tid\":", tid(t)});
    };
    int last_device = -1;
    for (auto& t : tracks) {
      number pid = decimal(std::int64_t{t.device} + 1);
      if (t.device != last_device) {
        put(out, {"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":", pid, ",\"args\":{\"name\":\"device ",
                  decimal(std::int64_t{t.device}), "\"}},\n"});
        put(out, {"{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":", pid, ",\"args\":{\"sort_index\":", pid,
                  "}},\n"});
        last_device = t.device;
      }
      put(out, {"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":", pid, ",\"tid\":", tid(t), ",\"args\":{\"name\":"});
      put_track_name(out, t);
      put(out, {"}},\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":", pid, ",\"tid\":", tid(t),
                ",\"args\":{\"sort_index\":", tid(t), "}},\n"});
    }

    // Kernel names by command id, for the workers' chunks.
    std::vector<std::pair<std::uint64_t, std::string_view>> kernel_names;
    for (auto& c : commands_) {
      track on{c.p.device, stream_track, c.p.stream};
      number enqueued_at = us(ns(c.p.enqueued));
      std::int64_t b = ns(c.p.started), e = std::max(b, ns(c.completed));
      auto slice = [&](const track& t, std::string_view name) {
        begin_event("X", name, t);
        put(out, {",\"ts\":", us(b), ",\"dur\":", us(e - b), ",\"args\":{"});
      };
      switch (c.kind) {
        case slice_kind::grid: {
          kernel_parts k = kernel_of(c.what);
          kernel_names.emplace_back(c.p.id, k.name);
          slice(on, k.name);
          put(out, {"\"grid\":"});
          put_quoted(out, k.grid);
          put(out, {",\"block\":"});
          put_quoted(out, k.block);
          put(out, {",\"enqueued_at_us\":", enqueued_at, "}},\n"});
          break;
        }
        case slice_kind::host_task: {
          auto [name, bytes] = bytes_of(c.what);
          slice(on, name);
          if (!bytes.empty()) put(out, {"\"bytes\":", bytes, ","});
          put(out, {"\"enqueued_at_us\":", enqueued_at, "}},\n"});
          break;
        }
        case slice_kind::host_function:
          slice(on, c.what);
          put(out, {"\"enqueued_at_us\":", enqueued_at, "}},\n"});
          b = ns(c.p.ran), e = std::max(b, ns(c.completed));
          slice({c.p.device, host_function_track, 0}, c.what);
          put(out, {"\"stream\":"});
          put_track_name(out, on);
          put(out, {",\"enqueued_at_us\":", enqueued_at, "}},\n"});
          break;
        case slice_kind::marker:
          put(out, {"{\"ph\":\"i\",\"s\":\"t\",\"name\":"});
          put_quoted(out, c.what);
          put(out, {",\"cat\":\"weft\",\"pid\":", decimal(std::int64_t{c.p.device} + 1), ",\"tid\":", tid(on),
                    ",\"ts\":", us(ns(c.completed)), ",\"args\":{\"enqueued_at_us\":", enqueued_at, "}},\n"});
          break;
      }
    }
    std::sort(kernel_names.begin(), kernel_names.end());
    for (auto& c : chunks_) {
      std::int64_t b = ns(c.began), e = std::max(b, ns(c.ended));
      auto name = std::lower_bound(kernel_names.begin(), kernel_names.end(), std::pair(c.command, std::string_view{}));
      bool named = name != kernel_names.end() && name->first == c.command;
      begin_event("X", named ? name->second : "kernel", {c.device, worker_track, static_cast<std::uint64_t>(c.worker)});
      put(out, {",\"ts\":", us(b), ",\"dur\":", us(e - b), ",\"args\":{\"first_block\":", decimal(c.first),
                ",\"last_block\":", decimal(c.end - 1), ",\"stream\":"});
      put_track_name(out, {c.device, stream_track, c.stream});
      put(out, {"}},\n"});
    }
    if (out.ends_with(",\n")) out.erase(out.size() - 2, 1);
    put(out, {"],\n\"otherData\":{\"max_events\":", decimal(std::uint64_t{max_events}),
              ",\"dropped_events\":", decimal(std::uint64_t{dropped_}), "}}\n"});
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
