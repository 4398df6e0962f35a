// Part of the race check (race_check.hpp): which kernel launches CUDA
// orders before a command (its stream's earlier work, an event it waits
// for, the legacy default stream's implicit synchronisation, a graph's
// edges, what the host synchronised with before enqueuing it), so that two
// launches' accesses to one global word are checked against each other
// unless that order separates them, whatever order weft ran them in.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>

namespace weft::detail {

/// A set of launches by their race-check serial, kept as a window over the
/// latest ones: a launch more than `window` serials older than the newest
/// the set has heard of counts as ordered before (its records are long gone
/// from the shadow, or can only hide a race, never invent one).
class race_launch_order {
 public:
  static constexpr std::uint64_t window = 1024;

  /// Whether the launch with serial `serial` is in the set.
  bool knows(std::uint64_t serial) const {
    if (serial > newest_) return false;
    std::uint64_t age = newest_ - serial;
    return age >= window || (bits_[age / 64] >> (age % 64) & 1);
  }

  /// Adds a launch; says whether it was new.
  bool add(std::uint64_t serial) {
    if (serial == 0 || knows(serial)) return false;
    advance_to(std::max(serial, newest_));
    std::uint64_t age = newest_ - serial;
    bits_[age / 64] |= std::uint64_t{1} << (age % 64);
    return true;
  }

  /// Adds the launches of `other`; says whether any was new.
  bool join(const race_launch_order& other) {
    bool grew = other.newest_ > newest_;
    if (grew) advance_to(other.newest_);
    std::uint64_t shift = newest_ - other.newest_;
    if (shift >= window) return grew;
    // Other's bit at age a is this window's bit at age a + shift.
    std::uint64_t words = shift / 64, bits = shift % 64;
    for (std::size_t i = bits_.size(); i-- > words;) {
      std::uint64_t from = other.bits_[i - words] << bits;
      if (bits != 0 && i > words) from |= other.bits_[i - words - 1] >> (64 - bits);
      grew |= (from & ~bits_[i]) != 0;
      bits_[i] |= from;
    }
    return grew;
  }

 private:
  // Ages grow by `by`: bit a moves to a + by; those past the window count
  // as known from then on.
  void advance_to(std::uint64_t serial) {
    std::uint64_t by = serial - newest_;
    if (by == 0) return;
    newest_ = serial;
    if (by >= window) {
      bits_.fill(0);
      return;
    }
    std::uint64_t words = by / 64, bits = by % 64;
    for (std::size_t i = bits_.size(); i-- > 0;) {
      std::uint64_t moved = i >= words ? bits_[i - words] << bits : 0;
      if (bits != 0 && i > words) moved |= bits_[i - words - 1] >> (64 - bits);
      bits_[i] = moved;
    }
  }

  std::uint64_t newest_ = 0;
  std::array<std::uint64_t, window / 64> bits_{};
};

/// What the host has synchronised with (cudaDeviceSynchronize,
/// cudaStreamSynchronize, cudaEventSynchronize, a synchronous copy, a
/// stream or event query that found the work done): every command enqueued
/// afterwards is ordered after it. One for the process: a program that
/// hands work between host threads orders them too (generous: a race can
/// go unseen, none is invented).
class race_host_order {
 public:
  static void learn(const race_launch_order* before, std::uint64_t serial) {
    race_host_order& h = instance();
    std::lock_guard lock(h.mutex_);
    if (before) h.known_.join(*before);
    h.known_.add(serial);
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
