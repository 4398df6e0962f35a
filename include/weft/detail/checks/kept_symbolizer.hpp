// Part of the race check's reports (race_report.hpp): the answer a freshly
// started `addr2line -i -f -C` gives for an address of a module, from two
// addr2line processes kept running over copies of the module.
//
// A single kept addr2line names frames differently once it has answered
// other addresses. binutils (2.40) names the innermost frame after the ELF
// symbol around the address, the first time that frame's function is the
// innermost one, and then renames the function after that symbol for good
// where the symbol begins where the function does: later answers name the
// innermost frame by its DWARF name ("operator()" where a fresh addr2line
// says "weft_traced::call_kernel<...>(...)"), and an outer frame by its
// symbol ("k(int*) [clone .resume]" where a fresh one says "k"). Neither can
// happen to an addr2line that sees no symbols, and one that sees no DWARF
// names each address by its symbol only. So: one process over a copy
// without symbols gives the frames, their lines and their DWARF names; one
// over a copy without debug information gives the symbol, which replaces
// the innermost frame's name, as a fresh addr2line's would be (and the
// whole answer where the debug information does not cover the address).
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "weft/detail/checks/addr2line_process.hpp"

namespace weft::detail {

/// The kept processes of one module file, and the copies they read.
class kept_symbolizer {
 public:
  explicit kept_symbolizer(const std::string& file) {
    const char* temporary = std::getenv("TMPDIR");
    std::string pattern = std::string(temporary && *temporary ? temporary : "/tmp") + "/weft-race-XXXXXX";
    if (!::mkdtemp(pattern.data())) return;
    directory_ = pattern;
    lines_ = directory_ + "/lines";
    symbols_ = directory_ + "/symbols";
    // objcopy keeps .dynsym with --strip-all: addr2line would fall back to
    // its symbols.
    const char* without_symbols[] = {
        "objcopy", "--strip-all", "--keep-section=.debug_*", "-R", ".dynsym", file.c_str(), lines_.c_str(), nullptr};
    // Not --strip-debug, which also drops the source files' symbols that
    // addr2line names a line-less address's file by.
    const char* without_lines[] = {"objcopy", "--remove-section=.debug_*", file.c_str(), symbols_.c_str(), nullptr};
    for (const char* const* copy : {without_symbols, without_lines}) {
      pid_t pid = spawn_helper(copy, -1);
      if (pid < 0 || !reap_helper(pid, symbolizer_patience)) {
        remove_copies();
        return;
      }
    }
    lines_process_ = std::make_unique<addr2line_process>(lines_, true);
    symbols_process_ = std::make_unique<addr2line_process>(symbols_, false);
  }

  kept_symbolizer(const kept_symbolizer&) = delete;
  kept_symbolizer& operator=(const kept_symbolizer&) = delete;

  ~kept_symbolizer() {
    lines_process_.reset();
    symbols_process_.reset();
    if (owner_ == ::getpid()) remove_copies();
  }

  /// What `addr2line -i -f -C -e FILE OFFSET` would print, as frames, or
  /// nothing if the kept processes could not say.
  std::optional<source_frames> at(std::uintptr_t offset) {
    if (!lines_process_ || !symbols_process_) return std::nullopt;
    auto frames = lines_process_->at(offset);
    if (!frames) return std::nullopt;
    auto symbol = symbols_process_->at(offset);
    if (!symbol) return std::nullopt;
    // Both have opened their copy by now: the files can go, so that
    // nothing is left behind however the program ends.
    remove_copies();
    // Where the debug information does not know the address, addr2line
    // says what the symbols do: the function and its source file's symbol.
    if (frames->size() == 1 && frames->front().second.starts_with("??")) return symbol;
    if (symbol->front().first != "??") frames->front().first = symbol->front().first;
    return frames;
  }

  /// After a fork: lets go of the parent's processes without ending them.
  void abandon_if_inherited() {
    if (owner_ == ::getpid()) return;
    if (lines_process_) lines_process_->abandon_if_inherited();
    if (symbols_process_) symbols_process_->abandon_if_inherited();
  }

 private:
  void remove_copies() {
    if (directory_.empty()) return;
    ::unlink(lines_.c_str());
    ::unlink(symbols_.c_str());
    ::rmdir(directory_.c_str());
    directory_.clear();
  }

  pid_t owner_ = ::getpid();
  std::string directory_, lines_, symbols_;
  std::unique_ptr<addr2line_process> lines_process_, symbols_process_;
};

/// The kept symbolizers of every module asked about, started on first use;
/// a child process after a fork starts its own. Not thread-safe: the race
/// check asks under its report's lock.
class kept_symbolizers {
 public:
  std::optional<source_frames> at(const std::string& file, std::uintptr_t offset) {
    if (owner_ != ::getpid()) {
      for (auto& [name, symbolizer] : modules_) symbolizer->abandon_if_inherited();
      modules_.clear();
      owner_ = ::getpid();
    }
    auto& symbolizer = modules_[file];
    if (!symbolizer) symbolizer = std::make_unique<kept_symbolizer>(file);
    return symbolizer->at(offset);
  }

 private:
  pid_t owner_ = ::getpid();
  std::map<std::string, std::unique_ptr<kept_symbolizer>, std::less<>> modules_;
};

}  // namespace weft::detail
