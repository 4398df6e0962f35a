// Part of the race check (race_check.hpp): the asynchronous copies of a
// block that are in flight. On a GPU, memcpy_async's copy runs "as if by
// another thread" between its issue and the wait that completes it; weft
// copies at once, so a thread that reads the destination, or overwrites the
// source or the destination, before that wait gets the right bytes here and
// the wrong ones on a GPU. The race check keeps each copy of the running
// block from its issue until its completion, and reports any thread's
// access to its destination, or write to its source, meanwhile
// (race_worker::access). A copy is taken as complete at the earliest moment
// a GPU could have completed it (a barrier phase or pipeline stage it was
// committed to completes, or a wait of its thread or group starts to
// return), so that what is reported is a race on every GPU; accesses
// between that moment and a thread's own wait go unseen.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <source_location>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "weft/detail/base/text_format.hpp"

namespace weft::detail {

/// What completes an asynchronous copy.
enum class race_copy_wait : std::uint8_t {
  barrier,          // a phase of the barrier state `barrier` (a cuda::barrier, a block pipeline's stage)
  thread_pipeline,  // its thread's wait for the stage `sequence` of a thread-scope cuda::pipeline
  primitives,       // its thread's __pipeline_wait_prior for the batch `sequence`
  group,            // cg::wait or cg::wait_prior of its group, for its thread's `sequence`-th cg::memcpy_async
};

/// One copy in flight: who issued it, where, and what completes it.
struct race_copy {
  std::uintptr_t site = 0;  // race_copy_sites' code address standing for its source line
  unsigned thread = 0;      // linear index in its block
  race_copy_wait wait = race_copy_wait::barrier;
  const void* barrier = nullptr;
  std::uint32_t sequence = 0;
};

/// The source lines of the copies, as code addresses that no code has (the
/// top bit set), so that a copy's record in the shadow names its line like
/// any traced access; race_source_line asks here first.
class race_copy_sites {
 public:
  static constexpr std::uintptr_t tag = std::uintptr_t{1} << (std::numeric_limits<std::uintptr_t>::digits - 1);

  static std::uintptr_t site(const char* call, const std::source_location& where) {
    race_copy_sites& s = instance();
    std::lock_guard lock(s.mutex_);
    auto key = std::tuple{where.file_name(), where.line(), where.column(), call};
    auto [at, added] = s.ids_.try_emplace(key, s.lines_.size());
    if (added) {
      std::string text;
      append_format(text, "%s:%u in %s (%s, in flight until its wait)", where.file_name(), where.line(),
                    where.function_name(), call);
      s.lines_.push_back(std::move(text));
    }
    return tag | at->second;
  }
  /// A made-up code address whose line reads `text` (a stream's copies and
  /// sets: race_stream_copy.hpp).
  static std::uintptr_t named(const std::string& text) {
    race_copy_sites& s = instance();
    std::lock_guard lock(s.mutex_);
    auto [at, added] = s.named_.try_emplace(text, s.lines_.size());
    if (added) s.lines_.push_back(text);
    return tag | at->second;
  }
  static bool is_site(std::uintptr_t pc) { return (pc & tag) != 0; }
  static std::string line(std::uintptr_t pc) {
    race_copy_sites& s = instance();
    std::lock_guard lock(s.mutex_);
    std::size_t id = pc & ~tag;
    return id < s.lines_.size() ? s.lines_[id] : std::string("an asynchronous copy");
  }

 private:
  static race_copy_sites& instance() {  // never destroyed: a worker may report during static destruction
    static auto* sites = new race_copy_sites;
    return *sites;
  }
  std::mutex mutex_;
  std::map<std::tuple<const char*, unsigned, unsigned, const char*>, std::size_t> ids_;
  std::map<std::string, std::size_t> named_;
  std::vector<std::string> lines_;
};

/// The running block's copies in flight, and the per-thread counts that
/// number them: the batches of __pipeline_commit and the cg::memcpy_async
/// calls of each thread. Its lists are on the heap: the worker, a member of
/// which this is, lies in the static thread-local block with the
/// __shared__ variables, and the standard library's functions that grow a
/// vector are compiled with the kernel and traced.
class race_copies_in_flight {
 public:
  /// A byte range of a copy in flight: its destination or its source.
  struct span {
    std::uintptr_t begin, end;
    std::uint32_t copy;
    bool destination;
  };

  bool empty() const { return spans_count_ == 0; }

  /// A new block of `threads` threads: nothing in flight.
  void clear(unsigned threads) {
    lists_->copies.clear();
    lists_->spans.clear();
    spans_count_ = 0;
    longest_ = 0;
    // Zeroed again only where a thread counted: a block of 256 threads that
    // makes no copy would otherwise write 2 KiB here (2.5 % of a vector
    // add's check at 2^24 floats).
    if (counted_ || lists_->primitive_batches.size() < threads) {
      lists_->primitive_batches.assign(threads, 0);
      lists_->group_copies.assign(threads, 0);
      counted_ = false;
    }
    group_waited_below_ = 0;
  }

  void add(const race_copy& copy, std::uintptr_t destination, std::size_t destination_bytes, std::uintptr_t source,
           std::size_t source_bytes) {
    if (copy.wait == race_copy_wait::barrier && !copy.barrier) return;  // complete at once (no barrier of the block's)
    auto index = static_cast<std::uint32_t>(lists_->copies.size());
    lists_->copies.push_back(copy);
    insert({destination, destination + destination_bytes, index, true});
    insert({source, source + source_bytes, index, false});
  }

  /// The span of a copy in flight that an access to [address, address +
  /// size) races with: any access to a destination, a write to a source.
  const span* conflict(std::uintptr_t address, unsigned size, bool write) const {
    const std::vector<span>& spans = lists_->spans;
    auto after = std::upper_bound(spans.begin(), spans.end(), address + size - 1,
                                  [](std::uintptr_t a, const span& s) { return a < s.begin; });
    while (after != spans.begin()) {
      --after;
      if (after->begin + longest_ <= address) break;  // no span further left reaches the access
      if (after->end > address && (after->destination || write)) return &*after;
    }
    return nullptr;
  }
  const race_copy& copy(const span& s) const { return lists_->copies[s.copy]; }

  /// Ends the copies that `complete(copy)` says are complete.
  template <class Complete>
  void end(Complete complete) {
    std::vector<race_copy>& copies = lists_->copies;
    std::vector<std::uint32_t> renumbered(copies.size());
    std::size_t kept = 0;
    for (std::size_t i = 0; i < copies.size(); ++i) {
      renumbered[i] = static_cast<std::uint32_t>(kept);
      if (complete(std::as_const(copies[i]))) {
        renumbered[i] = ended;
      } else {
        copies[kept++] = copies[i];
      }
    }
    if (kept == copies.size()) return;
    copies.resize(kept);
    std::erase_if(lists_->spans, [&](const span& s) { return renumbered[s.copy] == ended; });
    for (span& s : lists_->spans) s.copy = renumbered[s.copy];
    spans_count_ = lists_->spans.size();
  }

  /// Changes what completes the copies `which(copy)` names (a thread-scope
  /// pipeline's stage committed to a barrier).
  template <class Which>
  void rebind(Which which, const void* barrier) {
    for (race_copy& c : lists_->copies)
      if (which(std::as_const(c))) {
        c.wait = race_copy_wait::barrier;
        c.barrier = barrier;
      }
  }

  std::uint32_t& primitive_batches(unsigned thread) {
    counted_ = true;
    return lists_->primitive_batches[thread];
  }
  std::uint32_t& group_copies(unsigned thread) {
    counted_ = true;
    return lists_->group_copies[thread];
  }

  /// A thread of a group started cg::wait or cg::wait_prior: its group's
  /// copies before the `below`-th are complete once the group's sync
  /// completes (group_synced).
  void group_waited(std::uint32_t below) { group_waited_below_ = std::max(group_waited_below_, below); }
  /// A block barrier or warp collective completed: the copies waited for
  /// by a group sync it may be are complete (earlier than a GPU's, if it
  /// is another one: a race can go unseen, none is invented).
  void group_synced() {
    if (group_waited_below_ == 0) return;
    std::uint32_t below = group_waited_below_;
    group_waited_below_ = 0;
    end([&](const race_copy& c) { return c.wait == race_copy_wait::group && c.sequence < below; });
  }

 private:
  static constexpr std::uint32_t ended = std::numeric_limits<std::uint32_t>::max();
  void insert(const span& s) {
    if (s.end == s.begin) return;
    longest_ = std::max(longest_, s.end - s.begin);
    std::vector<span>& spans = lists_->spans;
    auto at = std::upper_bound(spans.begin(), spans.end(), s.begin,
                               [](std::uintptr_t a, const span& t) { return a < t.begin; });
    spans.insert(at, s);
    spans_count_ = spans.size();
  }

  struct lists {
    std::vector<race_copy> copies;
    std::vector<span> spans;  // sorted by begin
    std::vector<std::uint32_t> primitive_batches;
    std::vector<std::uint32_t> group_copies;
  };
  std::unique_ptr<lists> lists_ = std::make_unique<lists>();
  std::size_t spans_count_ = 0;  // lists_->spans.size(), for the check on every access
  std::uintptr_t longest_ = 0;
  std::uint32_t group_waited_below_ = 0;
  bool counted_ = false;  // a count was asked for since the last clear
};

}  // namespace weft::detail
