// Part of the race check (race_check.hpp): the report of a hazard, with both
// threads and both source lines, and the summary printed at exit. Off the
// path of every traced access: this runs once per distinct hazard.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include <dlfcn.h>

#include "weft/detail/base/text_format.hpp"
#include "weft/detail/checks/kept_symbolizer.hpp"
#include "weft/detail/checks/ported_kernel_name.hpp"
#include "weft/detail/checks/race_check.hpp"

namespace weft::detail {

/// "file:line (function)" for the code at `pc`, a return address into it:
/// what `addr2line -i -f -C` says of the module's file, at the offset from
/// its load address (position-independent executables are the default).
/// The innermost inlined frame is the one that made the access. Asked of
/// addr2line processes kept running per module (kept_symbolizer.hpp), which
/// answer as one started for the address would, and of one started for the
/// address where they cannot. Called with the report's lock held
/// (race_worker::report), which guards the kept processes.
[[gnu::cold]] inline std::string race_source_line(std::uintptr_t pc) {
  if (race_copy_sites::is_site(pc)) return race_copy_sites::line(pc);  // an asynchronous copy's issue
  Dl_info info{};
  std::string fallback;
  append_format(fallback, "0x%lx", static_cast<unsigned long>(pc));
  if (!dladdr(reinterpret_cast<void*>(pc), &info) || !info.dli_fname) return fallback;
  std::uintptr_t offset = pc - 1 - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
  const char* file = info.dli_fname[0] ? info.dli_fname : "/proc/self/exe";
  static kept_symbolizers symbolizers;
  std::optional<source_frames> frames;
  // /proc/self/exe would be the helper's own file in a helper process.
  if (info.dli_fname[0] && !std::getenv("WEFT_RACE_ADDR2LINE_ONCE")) frames = symbolizers.at(file, offset);
  if (!frames) frames = addr2line_once(file, offset);
  // An atomic function's record is made inside weft's inlined code: the
  // kernel's line is the first caller outside weft's headers.
  std::size_t frame = 0;
  while (frames && frame + 1 < frames->size() && (*frames)[frame].second.find("/include/weft/") != std::string::npos)
    ++frame;
  if (!frames || (*frames)[frame].second.empty() || (*frames)[frame].second[0] == '?') {
    append_format(fallback, " (%s+0x%lx)", info.dli_fname, static_cast<unsigned long>(offset));
    return fallback;
  }
  const auto& [function, line] = (*frames)[frame];
  std::string text = line;
  // "file:line (discriminator 2)" -> "file:line"
  if (auto cut = text.find(" ("); cut != std::string::npos) text.resize(cut);
  // The function, unless it is weft's or the standard library's frame
  // around a kernel inlined into it (the report names the kernel anyway).
  std::string name = user_function_name(function);
  if (name[0] != '?' && name.find("weft") == std::string::npos && name.find("std::") == std::string::npos)
    (text += " in ") += name;
  return text;
}

[[gnu::cold]] inline std::string race_describe_thread(std::uint64_t block, unsigned thread, dim3 grid, dim3 dims) {
  std::string text;
  append_format(text, "block (%u,%u,%u) thread (%u,%u,%u)", static_cast<unsigned>(block % grid.x),
                static_cast<unsigned>(block / grid.x % grid.y), static_cast<unsigned>(block / grid.x / grid.y),
                thread % dims.x, thread / dims.x % dims.y, thread / dims.x / dims.y);
  return text;
}

[[gnu::cold]] inline void race_print_summary() {
  std::uint64_t n = race_hazard_count().load();
  std::fprintf(stderr, "weft: RACECHECK SUMMARY: %llu hazard%s displayed\n", static_cast<unsigned long long>(n),
               n == 1 ? "" : "s");
}

/// Prints the summary line at exit, once a race-checked launch has run.
inline void race_summary_at_exit() {
  static const bool registered = std::atexit(race_print_summary) == 0;
  (void)registered;
}

[[gnu::cold]] inline void race_worker::report(race_kind kind, const race_access& earlier, const race_access& now,
                                              std::uintptr_t word, race_space space) {
  static std::mutex mutex;
  static std::set<std::tuple<int, std::uintptr_t, std::uintptr_t>> seen;
  static std::set<std::tuple<int, std::string, std::string>> reported;
  static std::map<std::uintptr_t, std::string> lines;
  std::lock_guard lock(mutex);
  // Each pair of instructions is looked at once; each pair of source lines
  // is reported once (an unrolled loop has many instructions per line).
  if (!seen.insert({static_cast<int>(kind), earlier.pc, now.pc}).second) return;
  auto line_of = [&](std::uintptr_t pc) -> const std::string& {
    auto it = lines.find(pc);
    if (it == lines.end()) it = lines.emplace(pc, race_source_line(pc)).first;
    return it->second;
  };
  const std::string &earlier_line = line_of(earlier.pc), &now_line = line_of(now.pc);
  if (!reported.insert({static_cast<int>(kind), earlier_line, now_line}).second) return;
  static const char* const kinds[] = {"write-after-write", "read-after-write", "write-after-read"};
  std::string where;
  switch (space) {
    case race_space::shared:
      where = "__shared__ memory";
      break;
    case race_space::dynamic_shared:
      append_format(where, "dynamic __shared__ memory (byte %lu of the block's buffer)",
                    static_cast<unsigned long>(word - dynamic_begin_));
      break;
    case race_space::global:
      where = "global memory";
      for (auto& [base, end, allocation] : ranges_)
        if (allocation && word >= base && word < end) {
          append_format(where, " (byte %lu of the %lu-byte allocation at 0x%lx)",
                        static_cast<unsigned long>(word - base), static_cast<unsigned long>(end - base),
                        static_cast<unsigned long>(base));
          break;
        }
      break;
    case race_space::distributed_shared:
      // A launch with clusters: a word of distributed_owner_'s block.
      if (earlier.block == distributed_owner_ && now.block == distributed_owner_) {
        where = "__shared__ memory";
      } else {
        dim3 g = launch_->grid();
        append_format(where, "distributed __shared__ memory of block (%u,%u,%u)",
                      static_cast<unsigned>(distributed_owner_ % g.x),
                      static_cast<unsigned>(distributed_owner_ / g.x % g.y),
                      static_cast<unsigned>(distributed_owner_ / g.x / g.y));
      }
      break;
    case race_space::static_global: {
      where = "global memory";
      Dl_info info{};
      if (dladdr(reinterpret_cast<void*>(word), &info) && info.dli_sname)
        append_format(where, " (the __device__ variable '%s', byte %lu)", info.dli_sname,
                      static_cast<unsigned long>(word - reinterpret_cast<std::uintptr_t>(info.dli_saddr)));
      else
        where += " (a __device__ variable)";
      break;
    }
  }
  std::string text = "weft racecheck: ";
  text += kinds[static_cast<int>(kind)];
  // Between two launches that CUDA does not order: both kernels, each
  // thread with its own.
  auto kernel_of = [&](const race_access& a) {
    if (!a.launch) return launch_->kernel_name();
    return a.launch->kernel_name();
  };
  // A copy or set (race_stream_copy.hpp) is named by its call and stream.
  auto is_command = [&](const race_access& a) { return a.launch && a.launch->command; };
  auto party = [&](const race_access& a) { return is_command(a) ? kernel_of(a) : "kernel '" + kernel_of(a) + "'"; };
  if (is_command(earlier) || is_command(now))
    text += " hazard between " + party(earlier) + " and " + party(now) + " (commands that stream and event order " +
            "do not order) on ";
  else if (earlier.launch)
    text += " hazard between kernels '" + kernel_of(earlier) + "' and '" + kernel_of(now) + "' (launches that " +
            "stream and event order do not order) on ";
  else
    text += " hazard in kernel '" + launch_->kernel_name() + "' on ";
  text += where;
  append_format(text, " at 0x%lx:\n", static_cast<unsigned long>(word));
  auto line = [&](const race_access& a) {
    std::string l = "  ";
    l += a.write ? "write" : "read ";
    l += " by ";
    if (is_command(a)) return l + kernel_of(a) + "\n";
    if (earlier.launch || now.launch) l += "kernel '" + kernel_of(a) + "' ";
    l += a.launch ? race_describe_thread(a.block, a.thread, a.launch->grid, a.launch->block)
                  : race_describe_thread(a.block, a.thread, launch_->grid(), launch_->block());
    l += " at " + line_of(a.pc) + "\n";
    return l;
  };
  text += line(earlier);
  text += line(now);
  race_hazard_count().fetch_add(1);
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace weft::detail
