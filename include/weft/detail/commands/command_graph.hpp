// The commands of one device and the order between them (CUDA guide,
// "Streams", "Default Stream", "Explicit Synchronization", "Implicit
// Synchronization", "Callbacks").
//
// A command depends on the last command of its own stream. The legacy
// default stream adds the guide's implicit synchronisation: its commands
// also wait for the last command of every blocking stream, and a blocking
// stream's commands also wait for the legacy stream's last command.
// Non-blocking streams (cudaStreamNonBlocking) take no part in it.
//
// A command starts when its dependencies have completed, on whichever thread
// completed the last of them (or the enqueuing thread, if none is pending):
// a marker completes at once, a copy runs right there, a grid goes to the SM
// workers, and a host function goes to the device's host-function thread, the
// one thread on which callbacks run, in the order they became ready.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "weft/detail/base/forked_child.hpp"
#include "weft/detail/base/spin_wait.hpp"
#include "weft/detail/checks/race_check.hpp"
#include "weft/detail/commands/command.hpp"
#include "weft/detail/commands/stream.hpp"
#include "weft/detail/trace/trace.hpp"

namespace weft::detail {

/// True on a host-function thread while a callback runs: the runtime then
/// refuses calls that enqueue or wait (cudaErrorNotPermitted), since a
/// callback waiting for its own stream would wait forever.
inline thread_local bool in_host_function = false;

/// How the timeline draws a command of this kind.
inline trace::slice_kind trace_kind(command_kind kind) {
  switch (kind) {
    case command_kind::grid:
      return trace::slice_kind::grid;
    case command_kind::host_task:
      return trace::slice_kind::host_task;
    case command_kind::host_function:
      return trace::slice_kind::host_function;
    case command_kind::marker:
      break;
  }
  return trace::slice_kind::marker;
}

class command_graph {
 public:
  using grid_submitter = std::function<void(std::shared_ptr<command>)>;

  command_graph(int device, grid_submitter submit_grid)
      : device_(device), submit_grid_(std::move(submit_grid)), legacy_(std::make_shared<CUstream_st>()) {
    legacy_->device = device;
    legacy_->legacy = true;
  }

  command_graph(const command_graph&) = delete;
  command_graph& operator=(const command_graph&) = delete;

  /// Waits for all work, then stops the host-function and enqueuing threads.
  ~command_graph() {
    wait_all();
    {
      std::lock_guard lock(host_mutex_);
      host_stopping_ = true;
    }
    host_ready_.notify_all();
    if (host_thread_.joinable()) host_thread_.join();
    {
      std::lock_guard lock(deferred_mutex_);
      deferred_stopping_ = true;
    }
    deferred_ready_.notify_all();
    if (deferred_thread_.joinable()) deferred_thread_.join();
  }

  /// Runs `job` on the device's enqueuing thread, after the jobs deferred
  /// before it: work that only enqueues commands, too much of it to make
  /// the caller wait (a graph launch's nodes). The caller enqueues first
  /// whatever must wait for the job, after a command that the job enqueues
  /// last (a command may be linked after one not yet enqueued), so that
  /// synchronising waits for the job too. A job must not wait for commands.
  void defer(std::function<void()> job) {
    std::lock_guard lock(deferred_mutex_);
    if (!deferred_thread_.joinable()) {
      note_weft_threads_start();
      deferred_thread_ = std::thread([this] { run_deferred(); });
    }
    deferred_.push_back(std::move(job));
    // Notified under the lock (see post_host_function).
    deferred_ready_.notify_one();
  }

  CUstream_st& legacy_stream() { return *legacy_; }

  std::shared_ptr<CUstream_st> create_stream(unsigned flags, int priority) {
    auto s = std::make_shared<CUstream_st>();
    s->device = device_;
    s->flags = flags;
    s->priority = priority;
    s->id = next_stream_id_.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard lock(mutex_);
    streams_.push_back(s);
    return s;
  }

  /// The stream's pending work still runs; the legacy stream keeps waiting
  /// for it until it is done.
  void destroy_stream(CUstream_st& s) {
    std::lock_guard lock(mutex_);
    s.destroyed = true;
    prune_streams();
  }

  /// Links `c` into stream `s` (after `also`, if given: an event's record)
  /// and starts it if nothing it depends on is pending. With `programmatic`
  /// (a kernel launched with programmatic stream serialization), a kernel
  /// before it in the stream holds it back only until that kernel's blocks
  /// have all triggered (or exited), not until it completes.
  void enqueue(CUstream_st& s, std::shared_ptr<command> c, const std::shared_ptr<command>& also = nullptr,
               bool programmatic = false) {
    std::vector<std::shared_ptr<command>> elsewhere;
    if (also && also->graph_ && also->graph_ != this) elsewhere.push_back(also);
    // The command it replaces as the stream's last is let go after the
    // mutex, and after `c` has started: freeing a finished grid is most of
    // what an empty kernel's enqueue would otherwise do under the lock.
    std::shared_ptr<command> replaced;
    link_in(std::move(c), s.id, s.priority, elsewhere, [&](const std::shared_ptr<command>& c) {
      if (programmatic && s.last && s.last->kind() == command_kind::grid)
        link(port_locked(*s.last, completion_port::programmatic), *c);
      else
        link(s.last, *c);
      if (also && also->graph_ == this) link(also, *c);
      if (s.legacy) {
        prune_streams();
        for (auto& other : streams_)
          if (other->blocking()) link(other->last, *c);
      } else if (s.blocking()) {
        link(legacy_->last, *c);
      }
      replaced = std::exchange(s.last, c);
    });
  }

  /// Links `c` after the commands `before` and nothing
  /// else: a node of a CUDA graph launch, whose order within the launch is
  /// the graph's edges; only the launch's first and last commands take part
  /// in stream `s`'s order. It is drawn on `s`'s row of the timeline.
  /// `at_port` names, for each of `before`, the point of that kernel that
  /// `c` waits for (a programmatic edge), or is empty: completion.
  void enqueue_after(const CUstream_st& s, std::shared_ptr<command> c,
                     const std::vector<std::shared_ptr<command>>& before, const std::vector<int>& at_port = {}) {
    enqueue_after(s.id, s.priority, std::move(c), before, at_port);
  }

  /// The same, for a command that a running command enqueues (a conditional
  /// graph node's body), when the stream may be gone: its number and
  /// priority are enough. A command with a priority of its own (a kernel
  /// node's attribute) keeps it.
  void enqueue_after(std::uint64_t stream_id, int priority, std::shared_ptr<command> c,
                     const std::vector<std::shared_ptr<command>>& before, const std::vector<int>& at_port = {}) {
    // An event recorded on another device (a graph's event wait node).
    std::vector<std::shared_ptr<command>> elsewhere;
    for (const auto& b : before)
      if (b->graph_ && b->graph_ != this) elsewhere.push_back(b);
    link_in(std::move(c), stream_id, priority, elsewhere, [&](const std::shared_ptr<command>& c) {
      for (std::size_t i = 0; i < before.size(); ++i) {
        const auto& b = before[i];
        if (b->graph_ && b->graph_ != this) continue;
        int port = i < at_port.size() ? at_port[i] : 0;
        if (port != 0 && b->kind() == command_kind::grid)
          link(port_locked(*b, static_cast<completion_port>(port)), *c);
        else
          link(b, *c);
      }
    });
  }

  /// Makes `c` a command of this graph before it is enqueued: one that
  /// device-side launches may become children or tails of (add_child,
  /// add_tail) while the commands it will follow are still being enqueued.
  void adopt(command& c) { c.graph_ = this; }

  /// Makes `after` also wait for `before` (both of this device). `after`
  /// must not have started: one of its dependencies is still running (the
  /// command that calls this, when it adds work that `after` must follow).
  void also_after(const std::shared_ptr<command>& before, command& after) {
    std::lock_guard lock(mutex_);
    link(before, after);
  }

  /// A grid's last block finished (called by the SM worker that ran it), or
  /// a host function returned. A kernel that overlapped others completes
  /// once they have.
  static void complete(command& c) {
    if (command* primary = c.kind() == command_kind::marker ? nullptr : unfinished_primary(c)) {
      when_done(*primary, [c = c.shared_from_this()] { complete(*c); });
      return;
    }
    if (deferred_for_launches(c)) return;
    std::vector<std::shared_ptr<command>> ready;
    finish(c, ready);
    start(std::move(ready));
  }

  /// Makes `parent` complete only after `child` (a launch made by one of
  /// `parent`'s CUDA threads, or by a kernel of the graph launch `parent`
  /// ends). `parent` must not have completed: a command it waits for is
  /// still running (the caller).
  static void add_child(command& parent, std::shared_ptr<command> child) {
    std::lock_guard lock(parent.graph_->mutex_);
    if (child->done()) return;
    // Deep recursions launch many children; those done need no keeping.
    if (parent.children_.size() >= 64)
      std::erase_if(parent.children_, [](const std::shared_ptr<command>& c) { return c->done(); });
    parent.children_.push_back(std::move(child));
    parent.launches_.store(true, std::memory_order_release);
  }

  /// Queues `launch` to be made once `parent` and its children are done,
  /// after the tail launches queued before it, each once the one before it
  /// has completed; `parent` completes after them all. False, and nothing
  /// queued, when `limit` launches are queued already. The same rule as
  /// add_child on `parent`.
  static bool add_tail(command& parent, tail_launch launch, std::size_t limit) {
    std::lock_guard lock(parent.graph_->mutex_);
    if (parent.tails_.size() >= limit) return false;
    parent.tails_.push_back(std::move(launch));
    parent.launches_.store(true, std::memory_order_release);
    return true;
  }

  /// Calls `then` once `c` has completed: at once if it has, else on the
  /// thread that completes it, which may be an SM worker, so `then` must be
  /// short and must not wait (hand the work to another thread).
  static void when_done(command& c, std::function<void()> then) {
    {
      std::lock_guard lock(c.graph_->mutex_);
      if (!c.done()) {
        c.continuations_.push_back(std::move(then));
        return;
      }
    }
    then();
  }

  /// A point of kernel `primary` (a grid enqueued in this graph) that other
  /// commands may be linked after: it completes when the kernel reaches
  /// `port` (fire), at once if it has. Whatever is linked after it learns
  /// that it overlaps `primary` (see link).
  std::shared_ptr<command> port(command& primary, completion_port port) {
    std::lock_guard lock(mutex_);
    return port_locked(primary, port);
  }

  /// Kernel `primary` has reached `port`: its point, if one was asked for,
  /// completes. Called once per port by the SM worker that got it there.
  static void fire(command& primary, completion_port port) {
    std::shared_ptr<command> point;
    {
      std::lock_guard lock(primary.graph_->mutex_);
      auto at = static_cast<std::size_t>(port) - 1;
      primary.port_fired_[at] = true;
      point.swap(primary.ports_[at]);
    }
    if (point) {
      trace::started(point.get());
      complete(*point);
    }
  }

  /// Whether `c` is `before`, or waits for it with no command between them:
  /// a host thread waiting for `c` may run `before` itself (sm_pool::take_lone_grid).
  static bool directly_after(const command& before, const command& c) {
    if (&before == &c) return true;
    std::lock_guard lock(before.graph_->mutex_);
    return std::any_of(before.successors_.begin(), before.successors_.end(),
                       [&](const std::shared_ptr<command>& s) { return s.get() == &c; });
  }

  /// The command the stream ends with now, or null when it has none pending.
  std::shared_ptr<command> last_pending(CUstream_st& s) {
    std::lock_guard lock(mutex_);
    if (s.last && !s.last->done()) return s.last;
    if (s.last) host_learns(*s.last);  // the host saw the stream's work done
    return nullptr;
  }

  /// The legacy stream's work, and that of every blocking stream, is done.
  bool legacy_idle() {
    std::lock_guard lock(mutex_);
    auto idle = [](const CUstream_st& s) { return !s.last || s.last->done(); };
    return idle(*legacy_) &&
           std::all_of(streams_.begin(), streams_.end(), [&](const auto& s) { return !s->blocking() || idle(*s); });
  }

  /// In a forked child, which has no thread to complete anything, returns
  /// at once (forked_child.hpp).
  static void wait(const command& c) {
    if (in_forked_child()) return;
    if (!spin_until([&] { return c.done(); })) c.done_.wait(false, std::memory_order_acquire);
    host_learns(c);
  }

  /// Waits until every command enqueued on the device so far has completed
  /// (and any enqueued meanwhile).
  void wait_all() {
    if (in_forked_child()) return;
    if (!spin_until([&] { return idle(); }))
      for (auto n = outstanding_.load(std::memory_order_acquire); n != 0;
           n = outstanding_.load(std::memory_order_acquire))
        outstanding_.wait(n, std::memory_order_acquire);
    if constexpr (race_check_build) {
      std::lock_guard lock(mutex_);
      race_host_order::learn(&enqueued_order_, 0);
    }
  }

  /// The race check: the host has seen `c` complete, so whatever it
  /// enqueues from now on is ordered after `c`.
  static void host_learns(const command& c) {
    if constexpr (race_check_build) race_host_order::learn(c.launches_before.get(), c.race_serial);
  }

  bool idle() const { return outstanding_.load(std::memory_order_acquire) == 0; }

 private:
  // Enqueues `c` in stream `stream_id`'s row: `link_locked` links it after
  // this graph's commands it waits for, with the mutex held; it is linked
  // after `elsewhere`, commands of other devices' graphs, under their
  // mutexes (an event recorded on another device: its graph guards its
  // successors). Then it starts if nothing it waits for is pending. A
  // command with a priority of its own keeps it.
  template <class LinkLocked>
  void link_in(std::shared_ptr<command> c, std::uint64_t stream_id, int priority,
               const std::vector<std::shared_ptr<command>>& elsewhere, LinkLocked&& link_locked) {
    c->stream_id = stream_id;
    if (c->priority == command::stream_priority) c->priority = priority;
    // An adopted command has its graph already, and device-side launches
    // may be reading it meanwhile (add_child, add_tail lock its mutex): it
    // is not written again (ThreadSanitizer saw that write race with them).
    if (c->graph_ != this) c->graph_ = this;
    trace::enqueued(c.get(), device_, c->stream_id);
    {
      std::lock_guard lock(mutex_);
      outstanding_.fetch_add(1, std::memory_order_relaxed);
      if constexpr (race_check_build) learn_from_host(*c, elsewhere);
      link_locked(c);
      if constexpr (race_check_build) {
        if (c->race_serial == race_launch_order::unplaced) {
          c->race_serial = race_chains::place(*c->launches_before);
          c->race_placed();
        }
        enqueued_order_.join(*c->launches_before);
        enqueued_order_.add(c->race_serial);
        teach_successors(*c);
      }
    }
    for (const auto& b : elsewhere) {
      std::lock_guard lock(b->graph_->mutex_);
      link(b, *c);
    }
    if (c->pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) start(std::move(c));
  }

  // The race check: `after` is ordered after `before` and all that it
  // follows, whether or not `before` has completed. Says whether `after`
  // learnt anything.
  static bool learn_order(const command& before, command& after) {
    if constexpr (race_check_build) {
      if (!after.launches_before) after.launches_before = std::make_unique<race_launch_order>();
      bool learnt = before.launches_before && after.launches_before->join(*before.launches_before);
      return after.launches_before->add(before.race_serial) || learnt;
    }
    return false;
  }
  // Commands linked after `c` before it was enqueued (a graph launch's end,
  // after the last command its deferred job enqueues) learnt an order that
  // lacked what `c` follows: they, and what follows them, learn it now.
  // None of them has started. Called with the mutex held.
  void teach_successors(command& c) {
    std::vector<command*> taught{&c};
    while (!taught.empty()) {
      command& from = *taught.back();
      taught.pop_back();
      for (const auto& s : from.successors_)
        if (s->graph_ == this && learn_order(from, *s)) taught.push_back(s.get());
    }
  }
  // What `c` follows besides this graph's commands: what the host has
  // synchronised with, and other devices' commands it waits for.
  static void learn_from_host(command& c, const std::vector<std::shared_ptr<command>>& elsewhere) {
    if (!c.launches_before) c.launches_before = std::make_unique<race_launch_order>();
    race_host_order::teach(*c.launches_before);
    // Made by a kernel (a launch or a device graph launch's commands): after
    // its launch, taken as after all of it. A tail launch: after the
    // command it follows and that command's children.
    if (race_launch* parent = race_launching) {
      c.launches_before->add(parent->family());
      if (parent->order()) c.launches_before->join(*parent->order());
    }
    if (race_tail_of) learn_order(*race_tail_of, c);
    for (const auto& b : elsewhere) learn_order(*b, c);
  }

  // The race check: the command whose tail launch the calling thread makes.
  static inline thread_local command* race_tail_of = nullptr;

  // Called with the mutex of `before`'s graph held.
  static void link(const std::shared_ptr<command>& before, command& after) {
    if (!before) return;
    // Another device's command was learnt from under this graph's mutex (learn_from_host).
    if (before->graph_ == after.graph_) learn_order(*before, after);
    // A marker passes on the kernels it let through early, even once it has
    // completed (which happens as soon as they trigger): a kernel or marker
    // after it overlaps them too; a copy or host function, which has no
    // cudaGridDependencySynchronize, waits for their completion instead, as
    // does anything on another device. A marker's primaries are kernels of
    // its own graph, whose mutex is the one held.
    if (before->kind() == command_kind::marker)
      for (const auto& primary : before->primaries_) {
        if (primary->done()) continue;
        bool overlaps = after.kind() == command_kind::grid || after.kind() == command_kind::marker;
        if (overlaps && primary->graph_ == after.graph_) {
          if (std::find(after.primaries_.begin(), after.primaries_.end(), primary) == after.primaries_.end())
            after.primaries_.push_back(primary);
        } else {
          primary->successors_.push_back(after.shared_from_this());
          after.pending_.fetch_add(1, std::memory_order_relaxed);
        }
      }
    if (before->done()) return;
    before->successors_.push_back(after.shared_from_this());
    after.pending_.fetch_add(1, std::memory_order_relaxed);
  }

  // Called with mutex_ held; `primary` was enqueued here.
  std::shared_ptr<command> port_locked(command& primary, completion_port port) {
    auto at = static_cast<std::size_t>(port) - 1;
    auto point = primary.ports_[at];
    if (point) return point;
    point = std::make_shared<marker>(port == completion_port::programmatic ? "programmatic launch point"
                                                                           : "launch completion point");
    point->stream_id = primary.stream_id;
    point->graph_ = this;
    // Generous: what follows the point is taken to come after the whole
    // kernel (cudaGridDependencySynchronize orders what follows it).
    learn_order(primary, *point);
    if (!primary.done()) point->primaries_.push_back(primary.shared_from_this());
    trace::enqueued(point.get(), device_, point->stream_id);
    outstanding_.fetch_add(1, std::memory_order_relaxed);
    if (primary.port_fired_[at]) {
      // Reached already: a point that has completed, which still passes the
      // kernel on to what follows it.
      point->completed_at_ = std::chrono::steady_clock::now();
      point->done_.store(true, std::memory_order_release);
      trace::started(point.get());
      trace::finished(point.get(), trace::slice_kind::marker, point->completed_at(),
                      [&point] { return point->describe(); });
      outstanding_.fetch_sub(1, std::memory_order_relaxed);
      return point;
    }
    primary.ports_[at] = point;
    return point;
  }

  // Holds `c` back while a child is running, or makes its next tail launch
  // and holds it back until that completes; true if it did. Each time what
  // it waits for completes, completion is tried again. Only enqueues, so it
  // may run on an SM worker.
  static bool deferred_for_launches(command& c) {
    if (!c.launches_.load(std::memory_order_acquire)) return false;
    std::shared_ptr<command> running;
    while (!running) {
      tail_launch next;
      {
        std::lock_guard lock(c.graph_->mutex_);
        for (const auto& child : c.children_)
          if (!child->done()) {
            running = child;
            break;
          }
        if (running) break;
        // The race check: `c`, and what already waits for it, come after
        // its children and tail launches (the host's synchronisation with
        // a graph launch's end covers its device launches).
        if constexpr (race_check_build) {
          bool learnt = false;
          for (const auto& child : c.children_) learnt |= learn_order(*child, c);
          if (learnt) c.graph_->teach_successors(c);
        }
        c.children_.clear();
        if (c.tails_.empty()) return false;
        next = std::move(c.tails_.front());
        c.tails_.erase(c.tails_.begin());  // at most 255 of them
      }
      // A launch that enqueued nothing (its device faulted) is skipped.
      if constexpr (race_check_build) race_tail_of = &c;
      running = next();
      if constexpr (race_check_build) {
        race_tail_of = nullptr;
        if (running) {  // learnt from once done, as a child
          std::lock_guard lock(c.graph_->mutex_);
          c.children_.push_back(running);
        }
      }
    }
    when_done(*running, [c = c.shared_from_this()] { complete(*c); });
    return true;
  }

  // A kernel `c` overlapped that has not completed yet.
  static command* unfinished_primary(command& c) {
    for (const auto& p : c.primaries_)
      if (!p->done()) return p.get();
    return nullptr;
  }

  // Each command is finished and started through the graph it was enqueued
  // in, which may be another device's when an event links two devices.
  static void finish(command& c, std::vector<std::shared_ptr<command>>& ready) {
    command_graph& graph = *c.graph_;
    std::vector<std::shared_ptr<command>> successors;
    std::vector<std::function<void()>> continuations;
    {
      std::lock_guard lock(graph.mutex_);
      // Read only where it is asked for, as it costs a few percent of an
      // empty kernel's round trip: an event's record (a marker) for
      // cudaEventElapsedTime, and every command on the timeline.
      if (c.kind() == command_kind::marker || trace::enabled) c.completed_at_ = std::chrono::steady_clock::now();
      c.done_.store(true, std::memory_order_release);
      successors.swap(c.successors_);
      continuations.swap(c.continuations_);
      // A finished kernel's primaries are done; a marker keeps them, to pass
      // on (see link), until it is destroyed.
      if (c.kind() != command_kind::marker) c.primaries_.clear();
    }
    trace::finished(
        &c, trace_kind(c.kind()), c.completed_at(), [&c] { return c.describe(); }, c.graph_launch.get());
    for (auto& then : continuations) then();
    for (auto& s : successors)
      if (s->pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) ready.push_back(std::move(s));
    c.done_.notify_all();
    if (graph.outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1) graph.outstanding_.notify_all();
  }

  // Starts ready commands in the order they became ready; those that
  // complete at once make more ready, handled by the same loop rather than
  // by recursion.
  static void start(std::vector<std::shared_ptr<command>> ready) {
    for (std::size_t i = 0; i < ready.size(); ++i) start_one(std::move(ready[i]), ready);
  }
  // The same for one command, as an enqueue starts it: no vector is
  // allocated unless starting it makes others ready.
  static void start(std::shared_ptr<command> first) {
    std::vector<std::shared_ptr<command>> ready;
    start_one(std::move(first), ready);
    for (std::size_t i = 0; i < ready.size(); ++i) start_one(std::move(ready[i]), ready);
  }
  // Starts `c`; what its completion makes ready is appended to `ready`.
  static void start_one(std::shared_ptr<command> c, std::vector<std::shared_ptr<command>>& ready) {
    trace::started(c.get());
    if (c->when_started) std::exchange(c->when_started, nullptr)();
    switch (c->kind()) {
      case command_kind::grid:
        c->graph_->submit_grid_(std::move(c));
        break;
      case command_kind::host_function:
        c->graph_->post_host_function(std::move(c));
        break;
      case command_kind::host_task:
        c->run_on_host();
        finish(*c, ready);
        break;
      case command_kind::marker:
        // A graph launch's end waits for the launches its kernels made.
        if (deferred_for_launches(*c)) break;
        finish(*c, ready);
        break;
    }
  }

  // Destroyed streams are forgotten once their work is done.
  void prune_streams() {
    std::erase_if(streams_,
                  [](const std::shared_ptr<CUstream_st>& s) { return s->destroyed && (!s->last || s->last->done()); });
  }

  void post_host_function(std::shared_ptr<command> c) {
    std::lock_guard lock(host_mutex_);
    if (!host_thread_.joinable()) {
      note_weft_threads_start();
      host_thread_ = std::thread([this] { run_host_functions(); });
    }
    host_queue_.push_back(std::move(c));
    // Notified under the lock: once it is released, the host thread may run
    // the function, complete the device's last command and let the graph be
    // destroyed (~runtime at exit), so this thread must not touch the graph
    // after it (TSan saw a notify on a destroyed condition variable).
    host_ready_.notify_one();
  }

  void run_host_functions() {
    std::unique_lock lock(host_mutex_);
    for (;;) {
      host_ready_.wait(lock, [&] { return host_stopping_ || !host_queue_.empty(); });
      if (host_queue_.empty()) return;
      std::shared_ptr<command> c = std::move(host_queue_.front());
      host_queue_.pop_front();
      lock.unlock();
      trace::host_function_runs(c.get());
      in_host_function = true;
      c->run_on_host();
      in_host_function = false;
      complete(*c);
      lock.lock();
    }
  }

  void run_deferred() {
    std::unique_lock lock(deferred_mutex_);
    for (;;) {
      deferred_ready_.wait(lock, [&] { return deferred_stopping_ || !deferred_.empty(); });
      if (deferred_.empty()) return;
      std::function<void()> job = std::move(deferred_.front());
      deferred_.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
  }

  int device_;
  grid_submitter submit_grid_;
  std::mutex mutex_;
  std::shared_ptr<CUstream_st> legacy_;
  std::vector<std::shared_ptr<CUstream_st>> streams_;  // created streams, including per-thread ones
  std::atomic<std::uint64_t> next_stream_id_{1};
  std::atomic<std::uint64_t> outstanding_{0};

  std::mutex host_mutex_;
  std::condition_variable host_ready_;
  std::deque<std::shared_ptr<command>> host_queue_;
  bool host_stopping_ = false;
  std::thread host_thread_;

  std::mutex deferred_mutex_;
  std::condition_variable deferred_ready_;
  std::deque<std::function<void()>> deferred_;
  bool deferred_stopping_ = false;
  // The race check: every launch enqueued so far, which the host is
  // ordered after once it has waited for them all (guarded by mutex_).
  race_launch_order enqueued_order_;
  std::thread deferred_thread_;
};

}  // namespace weft::detail
