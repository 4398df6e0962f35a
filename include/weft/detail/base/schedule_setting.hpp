// WEFT_SCHEDULE: the order in which weft runs what CUDA leaves unordered
// (docs/debugging.md, "Schedule permutation"). A program whose result
// depends on such an order (a missing __syncthreads, blocks that assume
// block 0 runs first) gives the same, lucky, result every time under the
// default order; another order shows it.
#pragma once

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>

namespace weft::detail {

/// forward: threads start and resume in the order weft finds fastest
/// (increasing threadIdx, barrier waiters in arrival order, blocks in
/// increasing blockIdx); reverse: each of those in decreasing order;
/// random: a pseudo-random order drawn from the seed.
enum class schedule_order : unsigned char { forward, reverse, random };

struct schedule_setting {
  schedule_order order = schedule_order::forward;
  std::uint64_t seed = 0;  // random's; what WEFT_SCHEDULE=random:<seed> replays
  bool operator==(const schedule_setting&) const = default;
};

/// WEFT_SCHEDULE's value read: "forward", "reverse", "random:<seed>" (a
/// decimal number), or "random", for which `fresh_seed` is asked. Nothing
/// for anything else.
template <class FreshSeed>
std::optional<schedule_setting> parse_schedule(const char* text, FreshSeed fresh_seed) {
  if (std::strcmp(text, "forward") == 0) return schedule_setting{schedule_order::forward, 0};
  if (std::strcmp(text, "reverse") == 0) return schedule_setting{schedule_order::reverse, 0};
  if (std::strcmp(text, "random") == 0) return schedule_setting{schedule_order::random, fresh_seed()};
  if (std::strncmp(text, "random:", 7) != 0) return std::nullopt;
  const char* digits = text + 7;
  if (*digits < '0' || *digits > '9') return std::nullopt;  // strtoull would take "-1" and " 1"
  char* end = nullptr;
  errno = 0;
  unsigned long long seed = std::strtoull(digits, &end, 10);
  if (*end != '\0' || errno == ERANGE) return std::nullopt;
  return schedule_setting{schedule_order::random, seed};
}

/// The setting from the environment. A fresh random seed is printed, so
/// that the run can be replayed; a value weft does not know is refused in
/// one line and forward is used, as the other WEFT_* settings are refused
/// (environment.hpp): a typo should neither stop the program nor go unseen.
inline schedule_setting schedule_from_environment() {
  const char* text = std::getenv("WEFT_SCHEDULE");
  if (!text || *text == '\0') return {};
  auto fresh_seed = [] {
    // Time and the random device together: two runs started in the same
    // clock tick, or on a system whose random device is a fixed sequence,
    // still get different seeds. Kept short, to be typed back.
    auto ticks = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    return (ticks ^ std::random_device{}()) % 1000000000;
  };
  std::optional<schedule_setting> setting = parse_schedule(text, fresh_seed);
  if (!setting) {
    std::fprintf(stderr,
                 "weft: ignoring WEFT_SCHEDULE=%s (expected forward, reverse, random or random:<seed>); "
                 "running forward\n",
                 text);
    return {};
  }
  if (setting->order == schedule_order::random && std::strchr(text, ':') == nullptr)
    std::fprintf(stderr, "weft: WEFT_SCHEDULE=random:%" PRIu64 " (set it so to replay this run's schedule)\n",
                 setting->seed);
  return *setting;
}

// The schedule in use, and how many grids have been launched under it.
struct schedule_state {
  schedule_setting setting;
  std::atomic<std::uint64_t> launches{0};
};

inline schedule_state& current_schedule_state() {
  static schedule_state state{schedule_from_environment()};
  return state;
}

/// The schedule that launches take from now on: WEFT_SCHEDULE's, read when
/// the first grid is launched, unless use_schedule changed it.
inline const schedule_setting& schedule_in_use() { return current_schedule_state().setting; }

/// Numbers the launches made under the schedule, from 0: what a launch's
/// permutations are drawn from with the seed. A program that launches in
/// the same order replays them, whatever else the process launched before.
inline std::uint64_t next_launch_under_schedule() {
  return current_schedule_state().launches.fetch_add(1, std::memory_order_relaxed);
}

/// Sets the schedule of later launches, numbering them from 0 again (a test
/// that compares orders in one process). Call it with no other host thread
/// launching: a launch reads the setting, which nothing locks.
inline void use_schedule(schedule_setting setting) {
  schedule_state& state = current_schedule_state();
  state.setting = setting;
  state.launches.store(0, std::memory_order_relaxed);
}

}  // namespace weft::detail
