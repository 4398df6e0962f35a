// Part of the race check's reports (race_report.hpp): addr2line, kept
// running over one file and asked one address after another, or started
// once for one address. Starting it once per address read the file's line
// tables again every time, 0.2-0.5 s each, and a racy program's reports name
// a hundred addresses or more.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "weft/detail/base/text_format.hpp"

extern char** environ;

namespace weft::detail {

/// What addr2line says of an address: (function, "file:line") pairs,
/// the innermost inlined frame first.
using source_frames = std::vector<std::pair<std::string, std::string>>;

/// How long an answer or a helper program may take before it is given up
/// for stalled: generous, as the first answer reads the line tables of a
/// large program on a loaded machine.
inline constexpr std::chrono::seconds symbolizer_patience{20};

/// Starts `arguments[0]` (looked up in PATH) with `input_output` as its
/// standard input and output (or /dev/null where it is -1) and stderr on
/// /dev/null, with no signal blocked and SIGPIPE at its default; the
/// process id, or -1.
[[gnu::cold]] inline pid_t spawn_helper(const char* const* arguments, int input_output) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (input_output >= 0) {
    posix_spawn_file_actions_adddup2(&actions, input_output, 0);
    posix_spawn_file_actions_adddup2(&actions, input_output, 1);
  } else {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  }
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  // The reporting thread may block signals (the race check's workers do),
  // and a blocked mask is inherited across exec.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  if (::posix_spawnp(&pid, arguments[0], &actions, &attributes, const_cast<char* const*>(arguments), environ) != 0)
    pid = -1;
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

/// Waits for `pid` to end, at most `patience`, then kills it; whether it
/// ended by itself with status 0.
[[gnu::cold]] inline bool reap_helper(pid_t pid, std::chrono::milliseconds patience) {
  auto deadline = std::chrono::steady_clock::now() + patience;
  for (auto pause = std::chrono::microseconds(100);; pause = std::min(pause * 2, std::chrono::microseconds(20000))) {
    int status = 0;
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (done < 0) return false;  // not ours (after a fork) or already reaped
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(pause);
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return false;
}

/// One addr2line process over `file`, with `-a -f -C` and, if asked,
/// `-i`. Any failure (it could not start, ended, answered out of turn or
/// took longer than symbolizer_patience) ends it for good: each later
/// question gets no answer, and the caller asks elsewhere.
class addr2line_process {
 public:
  addr2line_process(const std::string& file, bool inlined_frames) {
    // A socket, not a pipe: a question to an addr2line that has ended fails
    // with EPIPE under MSG_NOSIGNAL instead of raising SIGPIPE in the program.
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return;
    // -a prints each address before its frames: an answer ends where the
    // next address begins, a sentinel asked for right after.
    const char* with_inlined[] = {"addr2line", "-a", "-i", "-f", "-C", "-e", file.c_str(), nullptr};
    const char* without[] = {"addr2line", "-a", "-f", "-C", "-e", file.c_str(), nullptr};
    pid_ = spawn_helper(inlined_frames ? with_inlined : without, ends[1]);
    ::close(ends[1]);
    if (pid_ < 0) {
      ::close(ends[0]);
      return;
    }
    socket_ = ends[0];
    owner_ = ::getpid();
  }

  addr2line_process(const addr2line_process&) = delete;
  addr2line_process& operator=(const addr2line_process&) = delete;

  ~addr2line_process() { stop(); }

  /// The frames at `offset`, or nothing if addr2line gave no answer.
  std::optional<source_frames> at(std::uintptr_t offset) {
    if (socket_ < 0) return std::nullopt;
    // The address asked for, then one past any file's end, whose answer
    // ("??" and "??:0" after its address line) closes the first.
    std::string question;
    append_format(question, "0x%lx\n0xffffffffffffffff\n", static_cast<unsigned long>(offset));
    // Never blocks: each answer is read before the next question, so the
    // socket's buffer holds at most this one.
    if (::send(socket_, question.data(), question.size(), MSG_NOSIGNAL | MSG_DONTWAIT) !=
        static_cast<ssize_t>(question.size()))
      return fail();
    auto deadline = std::chrono::steady_clock::now() + symbolizer_patience;
    std::string line;
    if (!read_line(line, deadline) || line.rfind("0x", 0) != 0) return fail();
    source_frames frames;
    for (;;) {
      std::string function, source;
      if (!read_line(function, deadline)) return fail();
      // No name begins with a digit: this is the sentinel's address line.
      if (function.rfind("0x", 0) == 0) break;
      if (!read_line(source, deadline)) return fail();
      frames.emplace_back(std::move(function), std::move(source));
    }
    if (frames.empty() || !read_line(line, deadline) || !read_line(line, deadline)) return fail();
    return frames;
  }

  /// Lets go of a process that a fork copied from the parent's, which
  /// still talks to it: closes this copy's end and waits for nothing.
  void abandon_if_inherited() {
    if (socket_ < 0 || owner_ == ::getpid()) return;
    ::close(socket_);
    socket_ = -1;
    pid_ = -1;
  }

 private:
  bool read_line(std::string& line, std::chrono::steady_clock::time_point deadline) {
    for (;;) {
      if (auto end = pending_.find('\n'); end != std::string::npos) {
        line.assign(pending_, 0, end);
        pending_.erase(0, end + 1);
        return true;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd ready{socket_, POLLIN, 0};
      int polled = ::poll(&ready, 1, static_cast<int>(left.count()));
      if (polled < 0 && errno == EINTR) continue;
      if (polled <= 0) return false;
      char chunk[4096];
      ssize_t got = ::recv(socket_, chunk, sizeof chunk, 0);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      pending_.append(chunk, static_cast<std::size_t>(got));
    }
  }

  std::nullopt_t fail() {
    stop();
    return std::nullopt;
  }

  // Closing its input ends addr2line; one that does not end soon is killed.
  void stop() {
    abandon_if_inherited();
    if (socket_ >= 0) ::close(socket_);
    socket_ = -1;
    if (pid_ > 0) reap_helper(pid_, std::chrono::milliseconds(1000));
    pid_ = -1;
  }

  pid_t pid_ = -1;
  pid_t owner_ = -1;
  int socket_ = -1;
  std::string pending_;
};

/// addr2line started for the one address, as the reports did before
/// kept processes: the fallback where those cannot answer.
[[gnu::cold]] inline std::optional<source_frames> addr2line_once(const char* file, std::uintptr_t offset) {
  std::string command;
  append_format(command, "addr2line -i -f -C -e '%s' 0x%lx 2>/dev/null", file, static_cast<unsigned long>(offset));
  std::FILE* out = ::popen(command.c_str(), "r");
  if (!out) return std::nullopt;
  auto read_line = [&](std::string& line) {
    line.clear();
    char chunk[4096];
    while (std::fgets(chunk, sizeof chunk, out)) {
      line += chunk;
      if (line.back() == '\n') {
        line.pop_back();
        return true;
      }
    }
    return !line.empty();
  };
  source_frames frames;
  std::string function, source;
  while (read_line(function) && read_line(source)) frames.emplace_back(function, source);
  ::pclose(out);
  if (frames.empty()) return std::nullopt;
  return frames;
}

}  // namespace weft::detail
