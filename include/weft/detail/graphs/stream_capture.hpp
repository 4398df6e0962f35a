// Stream capture (CUDA guide, "Creating a Graph Using Stream Capture"): while
// a stream captures, the work put into it becomes nodes of a graph instead of
// running. A capture sequence starts in its origin stream; other streams join
// it by waiting for an event recorded in it (a fork) and leave their work to
// the origin by being waited for there (a join). Each participating stream
// keeps the set of nodes its next node will depend on.
//
// The surface asks `capture_into` before it enqueues: while the stream does
// not capture (the common case, seen without a lock through `active_count`),
// the work becomes a command as ever; else it becomes a node. Work is
// described as a graph node only when a node is made, so that uncaptured
// launches pay nothing for it.
//
// Rules and codes (CUDA guide, "Prohibited and Unhandled Operations",
// "Invalidation"; cudaThreadExchangeStreamCaptureMode): a call that breaks a
// capture's rules fails and invalidates the capture, whose streams then
// refuse work with cudaErrorStreamCaptureInvalidated until
// cudaStreamEndCapture, which returns that code and no graph.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/commands/event.hpp"
#include "weft/detail/commands/stream.hpp"
#include "weft/detail/graphs/graph_exec.hpp"
#include "weft/detail/graphs/graph_model.hpp"

namespace weft::detail {

// CUDA 13's values of cudaStreamCaptureMode (the enum is the surface's).
inline constexpr int capture_mode_global = 0;
inline constexpr int capture_mode_thread_local = 1;
inline constexpr int capture_mode_relaxed = 2;

struct capture_sequence {
  unsigned long long id = 0;
  CUgraph_st* graph = nullptr;
  bool owns_graph = true;  // false for cudaStreamBeginCaptureToGraph's graph
  int mode = capture_mode_global;
  std::thread::id thread;
  CUstream_st* origin = nullptr;
  int device = 0;
  bool invalidated = false;
  // The next node of each participating stream depends on these.
  std::unordered_map<CUstream_st*, std::vector<CUgraphNode_st*>> dependencies;
  // Dependencies that a stream reaches through a kernel node's port (it
  // waited for a programmatic or launch completion event): the stream's
  // next node, if a kernel, depends on that port only.
  std::map<std::pair<const CUstream_st*, const CUgraphNode_st*>, unsigned char> dependency_ports;
  // cudaStreamGetCaptureInfo's arrays, valid until the stream's next call.
  std::unordered_map<CUstream_st*, std::vector<CUgraphNode_st*>> handed_out;
  std::unordered_map<CUstream_st*, std::shared_ptr<void>> handed_out_edge_data;

  unsigned char dependency_port(const CUstream_st* s, const CUgraphNode_st* n) const {
    auto found = dependency_ports.find({s, n});
    return found == dependency_ports.end() ? 0 : found->second;
  }

  void forget_ports(const CUstream_st* s) {
    std::erase_if(dependency_ports, [&](const auto& entry) { return entry.first.first == s; });
  }

  bool blocking_streams() const {
    return std::any_of(dependencies.begin(), dependencies.end(), [](const auto& s) { return s.first->blocking(); });
  }
};

/// An event recorded in a capture stands for the nodes the recording
/// stream's next node would have depended on; one that a captured kernel
/// launch records (cudaLaunchAttributeProgrammaticEvent,
/// ...LaunchCompletionEvent) for that kernel node's `port`.
struct captured_record {
  std::shared_ptr<capture_sequence> sequence;
  std::vector<CUgraphNode_st*> nodes;
  unsigned char port = 0;
};

/// What a kernel launch's attributes make of its capture, in CUDA 13's port
/// numbers: the port its edges from kernel nodes leave (programmatic
/// stream serialization), and the events it records with their ports.
struct captured_launch_ports {
  unsigned char serialization = 0;
  std::vector<std::pair<CUevent_st*, unsigned char>> events;
};

class capture_registry {
 public:
  static capture_registry& get() {
    static capture_registry registry;
    return registry;
  }

  /// Read without the lock: zero means no stream captures anywhere.
  std::atomic<int> active_count{0};
  std::mutex mutex;
  std::unordered_map<CUstream_st*, std::shared_ptr<capture_sequence>> streams;
  std::unordered_map<CUevent_st*, captured_record> events;
  std::unordered_set<std::shared_ptr<capture_sequence>> sequences;
  unsigned long long next_id = 1;

  std::shared_ptr<capture_sequence> of(CUstream_st* s) const {
    auto found = streams.find(s);
    return found == streams.end() ? nullptr : found->second;
  }

  /// The device's captures that the legacy stream would depend on: those
  /// with a blocking stream (CUDA guide: any use of the legacy stream then
  /// is invalid).
  std::vector<std::shared_ptr<capture_sequence>> blocking_on(int device) const {
    std::vector<std::shared_ptr<capture_sequence>> found;
    for (const auto& c : sequences)
      if (c->device == device && c->blocking_streams()) found.push_back(c);
    return found;
  }

  void join(const std::shared_ptr<capture_sequence>& c, CUstream_st* s, std::vector<CUgraphNode_st*> deps) {
    c->dependencies[s] = std::move(deps);
    streams[s] = c;
  }

  /// Takes every stream out of the capture and forgets its events.
  void finish(const std::shared_ptr<capture_sequence>& c) {
    for (const auto& entry : c->dependencies) streams.erase(entry.first);
    std::erase_if(events, [&](const auto& e) { return e.second.sequence == c; });
    if (sequences.erase(c)) active_count.fetch_sub(1);
  }
};

/// The calling thread's interaction mode (cudaThreadExchangeStreamCaptureMode).
inline int& thread_capture_mode() {
  static thread_local int mode = capture_mode_global;
  return mode;
}

inline bool any_capture() { return capture_registry::get().active_count.load(std::memory_order_acquire) != 0; }

/// Adds `work` as a node of `c` after `s`'s dependency set, which becomes
/// the node alone. A kernel launched with programmatic stream serialization
/// passes `serialization_port` (cudaGraphKernelNodePortProgrammatic): its
/// edges from kernel nodes leave that port, as CUDA 13 captures them, so
/// the graph overlaps the two kernels as the stream would have; so do a
/// kernel's edges from the ports the stream waited for. Programmatic edges
/// join kernel nodes only: other work waits for full completion, as in a
/// stream. Called with the registry locked.
inline CUgraphNode_st* add_captured(capture_sequence& c, CUstream_st* s, node_work work,
                                    unsigned char serialization_port = 0) {
  bool kernel = std::holds_alternative<kernel_work>(work);
  CUgraphNode_st* n = c.graph->add(std::move(work));
  auto& deps = c.dependencies[s];
  for (CUgraphNode_st* d : deps) {
    CUgraph_st::add_edge(d, n);
    if (!kernel || !std::holds_alternative<kernel_work>(d->work)) continue;
    unsigned char port = c.dependency_port(s, d);
    if (port == 0) port = serialization_port;
    if (port != 0) c.graph->edge_ports[{d, n}] = port;
  }
  c.forget_ports(s);
  deps.assign(1, n);
  c.handed_out.erase(s);
  return n;
}

inline void invalidate(const std::vector<std::shared_ptr<capture_sequence>>& captures) {
  for (const auto& c : captures) c->invalidated = true;
}

/// The capture that work enqueued into `s` goes to (`c`, with nullopt), or
/// the call's answer: nullopt with no capture (the stream does not
/// capture), cudaErrorStreamCaptureImplicit for the legacy stream while a
/// blocking stream of its device captures (which invalidates those
/// captures), cudaErrorStreamCaptureInvalidated for an invalidated capture;
/// recorded as the last error. The registry's lock is held.
inline std::optional<cudaError_t> capture_receiving(capture_registry& registry, CUstream_st& s,
                                                    std::shared_ptr<capture_sequence>& c) {
  if (s.legacy) {
    auto blocked = registry.blocking_on(s.device);
    if (blocked.empty()) return std::nullopt;
    invalidate(blocked);
    return record(cudaErrorStreamCaptureImplicit);
  }
  c = registry.of(&s);
  if (c && c->invalidated) {
    c = nullptr;
    return record(cudaErrorStreamCaptureInvalidated);
  }
  return std::nullopt;
}

/// What happens to work for stream `s`: nothing (nullopt: the stream does
/// not capture, enqueue it as ever), or the call's result: cudaSuccess once
/// `make_work()` is a node of the capture, cudaErrorStreamCaptureInvalidated
/// for an invalidated capture, cudaErrorStreamCaptureImplicit for the legacy
/// stream while a blocking stream of its device captures (which invalidates
/// those captures). The code is recorded as the last error.
template <class MakeWork>
std::optional<cudaError_t> capture_into(CUstream_st& s, MakeWork&& make_work, const captured_launch_ports& ports = {}) {
  if (!any_capture()) return std::nullopt;
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  std::shared_ptr<capture_sequence> c;
  if (auto verdict = capture_receiving(registry, s, c); verdict || !c) return verdict;
  CUgraphNode_st* n = add_captured(*c, &s, node_work(make_work()), ports.serialization);
  for (const auto& [event, port] : ports.events) registry.events[event] = {c, {n}, port};
  return cudaSuccess;
}

/// Work that cannot be captured (cudaStreamAddCallback,
/// cudaStreamAttachMemAsync): refused in a capturing stream with
/// cudaErrorStreamCaptureUnsupported, which invalidates the capture.
inline std::optional<cudaError_t> refuse_capture(CUstream_st& s) {
  if (!any_capture()) return std::nullopt;
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  std::shared_ptr<capture_sequence> c;
  if (auto verdict = capture_receiving(registry, s, c); verdict || !c) return verdict;
  c->invalidated = true;
  return record(cudaErrorStreamCaptureUnsupported);
}

/// Waiting for or querying stream `s` (cudaStreamSynchronize,
/// cudaStreamQuery): a capturing stream has nothing scheduled to wait for
/// (cudaErrorStreamCaptureUnsupported); the legacy stream would wait for a
/// capturing blocking stream (cudaErrorStreamCaptureImplicit). Either
/// invalidates the captures concerned. cudaSuccess otherwise.
inline cudaError_t check_stream_wait(CUstream_st& s) {
  if (!any_capture()) return cudaSuccess;
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  if (s.legacy) {
    auto blocked = registry.blocking_on(s.device);
    if (blocked.empty()) return cudaSuccess;
    invalidate(blocked);
    return record(cudaErrorStreamCaptureImplicit);
  }
  auto c = registry.of(&s);
  if (!c) return cudaSuccess;
  c->invalidated = true;
  return record(cudaErrorStreamCaptureUnsupported);
}

/// Waiting for or querying an event last recorded in a capture: it stands
/// for no work that is scheduled (cudaErrorCapturedEvent, as an H100
/// answers; the capture is invalidated), whatever the thread's mode.
inline cudaError_t check_event_wait(CUevent_st* e) {
  if (!any_capture()) return cudaSuccess;
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  auto found = registry.events.find(e);
  if (found == registry.events.end()) return cudaSuccess;
  found->second.sequence->invalidated = true;
  return record(cudaErrorCapturedEvent);
}

/// The captures that forbid this thread a potentially unsafe call
/// (cudaThreadExchangeStreamCaptureMode): in the Global interaction mode,
/// its own captures not begun Relaxed and other threads' captures begun
/// Global; in ThreadLocal, its own captures not begun Relaxed; in Relaxed,
/// none. Called with the registry locked.
inline std::vector<std::shared_ptr<capture_sequence>> forbidding_unsafe_calls() {
  std::vector<std::shared_ptr<capture_sequence>> found;
  int mode = thread_capture_mode();
  if (mode == capture_mode_relaxed) return found;
  auto self = std::this_thread::get_id();
  for (const auto& c : capture_registry::get().sequences) {
    bool own = c->thread == self && c->mode != capture_mode_relaxed;
    bool others = mode != capture_mode_thread_local && c->thread != self && c->mode == capture_mode_global;
    if (own || others) found.push_back(c);
  }
  return found;
}

/// A potentially unsafe call (cudaMalloc, cudaFree, cudaMallocHost...,
/// which a capture would not see): cudaErrorStreamCaptureUnsupported while
/// a capture forbids it, and those captures are invalidated.
inline cudaError_t check_unsafe_call() {
  if (cudaError_t e = check_not_forked()) return e;
  if (!any_capture()) return cudaSuccess;
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  auto forbidding = forbidding_unsafe_calls();
  if (forbidding.empty()) return cudaSuccess;
  invalidate(forbidding);
  return record(cudaErrorStreamCaptureUnsupported);
}

/// A synchronous call on default stream `s` (cudaMemcpy, cudaMemset, their
/// 2D, 3D and symbol forms): it enqueues into `s` and waits for it, so it
/// is refused as waiting for `s` is, and as a potentially unsafe call.
inline cudaError_t check_synchronous_call(CUstream_st& s) {
  if (cudaError_t e = check_stream_wait(s)) return e;
  return check_unsafe_call();
}

/// cudaDeviceSynchronize (and the device-wide waits of cudaFree...): it
/// would wait for the device's capturing streams, so while any of them
/// captures it is cudaErrorStreamCaptureUnsupported and invalidates them.
inline cudaError_t check_device_wait(int device) {
  if (cudaError_t e = check_not_forked()) return e;
  if (!any_capture()) return cudaSuccess;
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  std::vector<std::shared_ptr<capture_sequence>> on_device;
  for (const auto& c : registry.sequences)
    if (c->device == device) on_device.push_back(c);
  if (on_device.empty()) return cudaSuccess;
  invalidate(on_device);
  return record(cudaErrorStreamCaptureUnsupported);
}

/// cudaEventRecord into stream `s`: nullopt when `s` does not capture (a
/// record as ever, which makes the event an ordinary one again), else the
/// call's result: the event stands for `s`'s dependency set.
inline std::optional<cudaError_t> capture_event_record(CUstream_st& s, CUevent_st* e) {
  if (!any_capture()) return std::nullopt;
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  if (s.legacy) {
    auto blocked = registry.blocking_on(s.device);
    if (blocked.empty()) {
      registry.events.erase(e);
      return std::nullopt;
    }
    invalidate(blocked);
    return record(cudaErrorStreamCaptureImplicit);
  }
  auto c = registry.of(&s);
  if (!c) {
    registry.events.erase(e);
    return std::nullopt;
  }
  if (c->invalidated) return record(cudaErrorStreamCaptureInvalidated);
  registry.events[e] = {c, c->dependencies[&s]};
  return cudaSuccess;
}

/// cudaStreamWaitEvent(s, e): nullopt when
/// neither takes part in a capture (an ordinary wait); else the call's
/// result. Waiting for an event of a capture makes `s` take part in it (a
/// fork), its next node depending on the event's nodes too (a join, when
/// `s` is the origin). An event of another capture, or an ordinary event
/// while `s` captures, is cudaErrorStreamCaptureIsolation and invalidates
/// the captures concerned.
inline std::optional<cudaError_t> capture_event_wait(CUstream_st& s, CUevent_st* e, bool external) {
  if (!any_capture()) return std::nullopt;
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  auto found = registry.events.find(e);
  auto mine = s.legacy ? nullptr : registry.of(&s);
  if (s.legacy) {
    auto blocked = registry.blocking_on(s.device);
    if (!blocked.empty()) {
      invalidate(blocked);
      return record(cudaErrorStreamCaptureImplicit);
    }
  }
  if (external) {
    if (!mine) return std::nullopt;
    if (mine->invalidated) return record(cudaErrorStreamCaptureInvalidated);
    add_captured(*mine, &s, event_wait_work{e});
    return cudaSuccess;
  }
  if (found == registry.events.end()) {
    if (!mine) return std::nullopt;
    if (mine->invalidated) return record(cudaErrorStreamCaptureInvalidated);
    mine->invalidated = true;
    return record(cudaErrorStreamCaptureIsolation);
  }
  auto theirs = found->second.sequence;
  if (mine && mine != theirs) {
    mine->invalidated = theirs->invalidated = true;
    return record(cudaErrorStreamCaptureIsolation);
  }
  if (theirs->invalidated) return record(cudaErrorStreamCaptureInvalidated);
  // The legacy stream cannot capture; waiting for a captured event there
  // would depend on work that is not scheduled.
  if (s.legacy || s.device != theirs->device) {
    theirs->invalidated = true;
    return record(cudaErrorStreamCaptureUnsupported);
  }
  const captured_record& event = found->second;
  if (!mine) {
    registry.join(theirs, &s, event.nodes);
    if (event.port != 0)
      for (CUgraphNode_st* n : event.nodes) theirs->dependency_ports[{&s, n}] = event.port;
  } else {
    // A node the stream already depends on in full stays so.
    auto& deps = theirs->dependencies[&s];
    for (CUgraphNode_st* n : event.nodes)
      if (std::find(deps.begin(), deps.end(), n) == deps.end()) {
        deps.push_back(n);
        if (event.port != 0) theirs->dependency_ports[{&s, n}] = event.port;
      }
    theirs->handed_out.erase(&s);
  }
  return cudaSuccess;
}

/// A graph of executable-graph steps as they are now (disabled steps as
/// empty nodes, conditional steps as conditional nodes with their bodies),
/// for the child graph node that a launch into a capturing stream becomes.
inline std::shared_ptr<CUgraph_st> graph_of(const step_list& steps) {
  auto g = std::make_shared<CUgraph_st>();
  std::vector<CUgraphNode_st*> made;
  for (const graph_step& step : steps) {
    node_work work = std::visit(
        [](const auto& w) -> node_work {
          if constexpr (std::is_same_v<std::decay_t<decltype(w)>, conditional_step>) {
            conditional_work c{w.handle, w.kind, {}, std::make_shared<std::vector<CUgraph_st*>>()};
            for (const step_list& body : w.bodies) {
              c.bodies.push_back(graph_of(body));
              c.body_handles->push_back(c.bodies.back().get());
            }
            return c;
          } else {
            return w;
          }
        },
        step.work);
    CUgraphNode_st* n = g->add(step.enabled ? std::move(work) : node_work{empty_work{}});
    for (std::size_t a : step.after) CUgraph_st::add_edge(made[a], n);
    made.push_back(n);
  }
  return g;
}

inline std::shared_ptr<CUgraph_st> graph_of(const CUgraphExec_st& exec) { return graph_of(exec.steps); }

/// The same for an executable graph, whose steps change only under
/// `launching` (graph updates).
inline std::shared_ptr<CUgraph_st> graph_of(CUgraphExec_st& exec) {
  auto lock = exec.lock_steps();
  return graph_of(exec.steps);
}

/// Whether `from` is `to` or one of its ancestors.
inline bool reaches(const CUgraphNode_st* from, const CUgraphNode_st* to) {
  std::vector<const CUgraphNode_st*> pending{to};
  std::unordered_set<const CUgraphNode_st*> seen;
  while (!pending.empty()) {
    const CUgraphNode_st* n = pending.back();
    pending.pop_back();
    if (n == from) return true;
    if (!seen.insert(n).second) continue;
    for (const CUgraphNode_st* d : n->dependencies) pending.push_back(d);
  }
  return false;
}

/// Every other stream's last work is the origin's dependency set or before it.
inline bool joined(const capture_sequence& c) {
  const auto& origin = c.dependencies.at(c.origin);
  for (const auto& [stream, deps] : c.dependencies) {
    if (stream == c.origin) continue;
    for (const CUgraphNode_st* n : deps)
      if (std::none_of(origin.begin(), origin.end(), [&](const CUgraphNode_st* o) { return reaches(n, o); }))
        return false;
  }
  return true;
}

/// cudaStreamDestroy of a capturing stream: CUDA leaves it unsaid. A forked
/// stream whose work the origin has joined leaves the capture, which goes
/// on (cuda-samples' graphMemoryNodes destroys its forked stream so, before
/// cudaStreamEndCapture, and passes on an H100); one with unjoined work
/// leaves it invalidated; destroying the origin ends the capture (its graph
/// is discarded).
inline void forget_stream(CUstream_st* s) {
  if (!any_capture()) return;
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  auto c = registry.of(s);
  if (!c) return;
  if (c->origin == s) {
    c->invalidated = true;
    registry.finish(c);
    if (c->owns_graph) delete c->graph;
    return;
  }
  const auto& origin = c->dependencies.at(c->origin);
  for (const CUgraphNode_st* n : c->dependencies[s])
    if (std::none_of(origin.begin(), origin.end(), [&](const CUgraphNode_st* o) { return reaches(n, o); }))
      c->invalidated = true;
  c->dependencies.erase(s);
  c->forget_ports(s);
  c->handed_out.erase(s);
  registry.streams.erase(s);
}

inline void forget_event(CUevent_st* e) {
  if (!any_capture()) return;
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  registry.events.erase(e);
}

}  // namespace weft::detail
