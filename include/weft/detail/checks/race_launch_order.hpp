// Part of the race check (race_check.hpp): which kernel launches, copies and
// sets CUDA orders before a command (its stream's earlier work, an event it
// waits for, the legacy default stream's implicit synchronisation, a
// graph's edges, what the host synchronised with before enqueuing it), so
// that two commands' accesses to one global word are checked against each
// other unless that order separates them, whatever order weft ran them in.
#pragma once

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace weft::detail {

/// A set of traced commands (launches, copies, sets), closed under CUDA's
/// order, as a vector clock over chains. Each command has a place: a chain
/// (the high 32 bits) and its position in it (the low 32, from 1), where
/// CUDA orders every command of a chain before the next one
/// (race_chains::place). A set that holds a command holds all that come
/// before it in its chain, so it keeps, per chain, the last position it
/// holds: exact however many launches apart two commands are.
class race_launch_order {
 public:
  /// A command's place before race_chains::place has given it one.
  static constexpr std::uint64_t unplaced = ~std::uint64_t{0};

  /// Whether the command at `place` is in the set.
  bool knows(std::uint64_t place) const {
    // A loop, not std::lower_bound: this runs inside the race check's
    // callback (look_up_launch), where a standard algorithm the compiler
    // left out of line (at -O1) is traced code, a callback within it.
    std::uint32_t chain = chain_of(place);
    const std::pair<std::uint32_t, std::uint32_t>* tips = tips_.data();
    std::size_t low = 0, high = tips_.size();
    while (low < high) {
      std::size_t middle = low + (high - low) / 2;
      if (tips[middle].first < chain)
        low = middle + 1;
      else
        high = middle;
    }
    return low < tips_.size() && tips[low].first == chain && tips[low].second >= position_of(place);
  }

  /// Adds a command and what comes before it in its chain; says whether it was new.
  bool add(std::uint64_t place) {
    if (place == 0 || place == unplaced) return false;
    auto at = find(chain_of(place));
    if (at != tips_.end() && at->first == chain_of(place)) {
      if (at->second >= position_of(place)) return false;
      at->second = position_of(place);
      return true;
    }
    tips_.insert(at, {chain_of(place), position_of(place)});
    return true;
  }

  /// Adds the commands of `other`; says whether any was new.
  bool join(const race_launch_order& other) {
    // Most joins add nothing (a stream's next command, the host's order):
    // no merge, no allocation.
    if (std::all_of(other.tips_.begin(), other.tips_.end(),
                    [&](const auto& tip) { return knows(std::uint64_t{tip.first} << 32 | tip.second); }))
      return false;
    bool grew = false;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> joined;
    joined.reserve(tips_.size() + other.tips_.size());
    auto a = tips_.cbegin();
    auto b = other.tips_.cbegin();
    while (a != tips_.cend() || b != other.tips_.cend()) {
      if (b == other.tips_.cend() || (a != tips_.cend() && a->first < b->first)) {
        joined.push_back(*a++);
      } else if (a == tips_.cend() || b->first < a->first) {
        joined.push_back(*b++);
        grew = true;
      } else {
        grew |= b->second > a->second;
        joined.emplace_back(a->first, std::max(a->second, b->second));
        ++a;
        ++b;
      }
    }
    if (grew) tips_ = std::move(joined);
    return grew;
  }

  /// How many chains the set knows of.
  std::size_t chains() const { return tips_.size(); }

  static std::uint32_t chain_of(std::uint64_t place) { return static_cast<std::uint32_t>(place >> 32); }
  static std::uint32_t position_of(std::uint64_t place) { return static_cast<std::uint32_t>(place); }

 private:
  std::vector<std::pair<std::uint32_t, std::uint32_t>>::iterator find(std::uint32_t chain) {
    return std::lower_bound(tips_.begin(), tips_.end(), std::pair{chain, std::uint32_t{0}});
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>>::const_iterator find(std::uint32_t chain) const {
    return std::lower_bound(tips_.begin(), tips_.end(), std::pair{chain, std::uint32_t{0}});
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> tips_;  // (chain, last position known), by chain
};

/// The chains that commands' places lie on, for the process: a command
/// that CUDA orders after a chain's last command (its set knows it) takes
/// the next position there, else it starts a chain. So commands of one
/// stream share a chain, and there are as many chains as commands that ever
/// ran side by side, not as many as were launched: a set holds a pair per
/// chain it knows.
class race_chains {
 public:
  /// The place of a command that CUDA orders after the commands of
  /// `before` (and nothing else it has been placed after).
  static std::uint64_t place(const race_launch_order& before) {
    race_chains& c = instance();
    std::lock_guard lock(c.mutex_);
    for (std::size_t chain = 0; chain < c.last_.size(); ++chain) {
      std::uint64_t last = std::uint64_t{chain} << 32 | c.last_[chain];
      if (c.last_[chain] != ~std::uint32_t{0} && before.knows(last)) {
        ++c.last_[chain];
        return last + 1;
      }
    }
    c.last_.push_back(1);
    return (std::uint64_t{c.last_.size() - 1} << 32) | 1;
  }

  /// A place of its own, on a chain of its own, for a launch that is not
  /// linked into a stream (weft's unit tests'): the top half of the chains.
  static std::uint64_t place_alone(std::uint64_t serial) {
    return (std::uint64_t{0x80000000u | static_cast<std::uint32_t>(serial & 0x7fffffff)} << 32) | 1;
  }

 private:
  // Never destroyed: a command may be enqueued during static destruction.
  static race_chains& instance() {
    static auto* chains = new race_chains;
    return *chains;
  }
  std::mutex mutex_;
  std::vector<std::uint32_t> last_;  // per chain, the position of its last command
};

/// What the host has synchronised with (cudaDeviceSynchronize,
/// cudaStreamSynchronize, cudaEventSynchronize, a synchronous copy, a
/// stream or event query that found the work done): every command enqueued
/// afterwards is ordered after it. One for the process: a program that
/// hands work between host threads orders them too (generous: a race can
/// go unseen, none is invented).
class race_host_order {
 public:
  static void learn(const race_launch_order* before, std::uint64_t place) {
    race_host_order& h = instance();
    std::lock_guard lock(h.mutex_);
    if (before) h.known_.join(*before);
    h.known_.add(place);
  }
  static void teach(race_launch_order& order) {
    race_host_order& h = instance();
    std::lock_guard lock(h.mutex_);
    order.join(h.known_);
  }

 private:
  // Never destroyed: the host may synchronise during static destruction.
  static race_host_order& instance() {
    static auto* order = new race_host_order;
    return *order;
  }
  std::mutex mutex_;
  race_launch_order known_;
};

}  // namespace weft::detail
