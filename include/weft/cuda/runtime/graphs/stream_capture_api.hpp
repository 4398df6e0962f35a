// Stream capture (CUDA guide, "Creating a Graph Using Stream Capture"):
// cudaStreamBeginCapture puts a stream in capture mode, where its work
// becomes nodes of a graph instead of running, and cudaStreamEndCapture
// returns that graph. The capture itself is detail/graphs/stream_capture.hpp's.
//
// Where CUDA 13's documentation names no code, weft chooses (docs/graphs.md,
// "Stream capture"): capture on the legacy stream is
// cudaErrorStreamCaptureUnsupported, on a stream that captures already
// cudaErrorIllegalState; ending it on a stream that does not capture is
// cudaErrorIllegalState, on a stream that joined another's capture
// cudaErrorStreamCaptureUnmatched.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "weft/cuda/runtime/driver_enums.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/graphs/graph_api.hpp"
#include "weft/cuda/runtime/graphs/graph_types.hpp"
#include "weft/cuda/runtime/streams/default_stream.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/stream_capture.hpp"
#include "weft/detail/streams/stream_registry.hpp"

namespace weft::surface {

inline bool known_capture_mode(cudaStreamCaptureMode mode) {
  return mode == cudaStreamCaptureModeGlobal || mode == cudaStreamCaptureModeThreadLocal ||
         mode == cudaStreamCaptureModeRelaxed;
}

/// Starts a capture of `s` into `graph` after `deps` (checked).
inline cudaError_t begin_capture(cudaStream_t stream, CUgraph_st* graph, bool owns_graph, const cudaGraphNode_t* deps,
                                 std::size_t count, cudaStreamCaptureMode mode) {
  using namespace weft::detail;
  CUstream_st* s = resolve_stream(explicit_stream(stream));
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (!known_capture_mode(mode)) return record(cudaErrorInvalidValue);
  if (s->legacy) return record(cudaErrorStreamCaptureUnsupported);
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  if (registry.of(s)) return record(cudaErrorIllegalState);
  auto c = std::make_shared<capture_sequence>();
  c->id = registry.next_id++;
  c->graph = owns_graph ? new CUgraph_st() : graph;
  c->owns_graph = owns_graph;
  c->mode = mode;
  c->thread = std::this_thread::get_id();
  c->origin = s;
  c->device = s->device;
  registry.join(c, s, std::vector<CUgraphNode_st*>(deps, deps + count));
  registry.sequences.insert(c);
  registry.active_count.fetch_add(1, std::memory_order_release);
  return cudaSuccess;
}

/// cudaStreamCaptureStatus of a stream's capture (null: none).
inline cudaStreamCaptureStatus status_of(const weft::detail::capture_sequence* c) {
  if (!c) return cudaStreamCaptureStatusNone;
  return c->invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
}

/// The capture of a stream (resolved) for a query, or the code for the
/// legacy stream while a blocking stream of its device captures.
inline cudaError_t capture_of(CUstream_st* s, std::shared_ptr<weft::detail::capture_sequence>& c) {
  using namespace weft::detail;
  auto& registry = capture_registry::get();
  if (s->legacy) {
    if (!registry.blocking_on(s->device).empty()) return cudaErrorStreamCaptureImplicit;
    c = nullptr;
    return cudaSuccess;
  }
  c = registry.of(s);
  return cudaSuccess;
}

/// `count` ordinary edges' data, all zero. Arrays handed out earlier stay
/// valid (CUDA keeps them until the stream's next call): a longer one is
/// added beside them. Called with the capture registry locked.
inline const cudaGraphEdgeData* zero_edge_array(std::size_t count) {
  static std::vector<std::unique_ptr<cudaGraphEdgeData[]>> arrays;
  static std::size_t longest = 0;
  if (count > longest) {
    longest = std::max<std::size_t>(count, 2 * longest);
    arrays.push_back(std::make_unique<cudaGraphEdgeData[]>(longest));
  }
  return arrays.back().get();
}

}  // namespace weft::surface

/// Sets the calling thread's interaction mode with captures and returns the
/// one it had (see detail/graphs/stream_capture.hpp's forbidding_unsafe_calls).
/// A value that is no mode is taken, as an H100 takes it, and acts as Global.
inline cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
  if (!mode) return weft::detail::record(cudaErrorInvalidValue);
  int previous = weft::detail::thread_capture_mode();
  weft::detail::thread_capture_mode() = *mode;
  *mode = static_cast<cudaStreamCaptureMode>(previous);
  return cudaSuccess;
}

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace weft_per_thread_default_stream {
#else
inline namespace weft_legacy_default_stream {
#endif

inline cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
  return weft::surface::begin_capture(stream, nullptr, true, nullptr, 0, mode);
}

/// Captures into `graph`, which keeps its nodes; the first node captured
/// depends on `dependencies` (nodes of `graph`; edge data all zero).
inline cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                                 const cudaGraphNode_t* dependencies,
                                                 const cudaGraphEdgeData* dependencyData, std::size_t numDependencies,
                                                 cudaStreamCaptureMode mode) {
  using namespace weft::surface;
  if (!graph) return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = check_dependencies(graph, dependencies, numDependencies)) return weft::detail::record(e);
  if (!ordinary_edges(dependencyData, numDependencies)) return weft::detail::record(cudaErrorInvalidValue);
  return begin_capture(stream, graph, false, dependencies, numDependencies, mode);
}

/// The captured graph, which the caller then owns; the capture ends
/// whatever the outcome (as on an H100: tests/differential/graph_probe).
/// The graph is null with cudaErrorStreamCaptureInvalidated after an
/// invalidation, with cudaErrorStreamCaptureWrongThread when a capture not
/// begun Relaxed is ended by another thread, and with
/// cudaErrorStreamCaptureUnjoined when a stream that joined the capture was
/// not joined back into the origin stream. A null pGraph discards the graph.
inline cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  using namespace weft::detail;
  CUstream_st* s = resolve_stream(weft::surface::explicit_stream(stream));
  if (!s) return record(cudaErrorInvalidResourceHandle);
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  auto c = s->legacy ? nullptr : registry.of(s);
  if (!c) return record(cudaErrorIllegalState);
  if (c->origin != s) return record(cudaErrorStreamCaptureUnmatched);
  registry.finish(c);
  bool wrong_thread = c->mode != cudaStreamCaptureModeRelaxed && c->thread != std::this_thread::get_id();
  cudaError_t outcome = c->invalidated ? cudaErrorStreamCaptureInvalidated
                        : wrong_thread ? cudaErrorStreamCaptureWrongThread
                        : joined(*c)   ? cudaSuccess
                                       : cudaErrorStreamCaptureUnjoined;
  if (pGraph) *pGraph = outcome == cudaSuccess ? c->graph : nullptr;
  if ((outcome != cudaSuccess || !pGraph) && c->owns_graph) delete c->graph;
  return outcome == cudaSuccess ? cudaSuccess : record(outcome);
}

/// cudaErrorStreamCaptureImplicit for the legacy stream while a blocking
/// stream of its device captures (which does not invalidate that capture).
inline cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* pCaptureStatus) {
  using namespace weft::detail;
  CUstream_st* s = resolve_stream(weft::surface::explicit_stream(stream));
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (!pCaptureStatus) return record(cudaErrorInvalidValue);
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  std::shared_ptr<capture_sequence> c;
  if (cudaError_t e = weft::surface::capture_of(s, c)) return record(e);
  *pCaptureStatus = weft::surface::status_of(c.get());
  return cudaSuccess;
}

/// CUDA 13's form: the status, and while the capture is active its unique
/// id, its graph and the stream's dependency set (an array valid until the
/// stream's next call), with all-zero edge data beside it.
inline cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* captureStatus_out,
                                            unsigned long long* id_out = nullptr, cudaGraph_t* graph_out = nullptr,
                                            const cudaGraphNode_t** dependencies_out = nullptr,
                                            const cudaGraphEdgeData** edgeData_out = nullptr,
                                            std::size_t* numDependencies_out = nullptr) {
  using namespace weft::detail;
  CUstream_st* s = resolve_stream(weft::surface::explicit_stream(stream));
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (!captureStatus_out || (edgeData_out && !dependencies_out)) return record(cudaErrorInvalidValue);
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  std::shared_ptr<capture_sequence> c;
  if (cudaError_t e = weft::surface::capture_of(s, c)) return record(e);
  *captureStatus_out = weft::surface::status_of(c.get());
  if (!c || c->invalidated) return cudaSuccess;
  if (id_out) *id_out = c->id;
  if (graph_out) *graph_out = c->graph;
  auto& handed = c->handed_out[s] = c->dependencies[s];
  if (dependencies_out) *dependencies_out = handed.empty() ? nullptr : handed.data();
  if (edgeData_out) {
    bool ported = std::any_of(handed.begin(), handed.end(), [&](auto* n) { return c->dependency_port(s, n) != 0; });
    if (!ported) {
      *edgeData_out = handed.empty() ? nullptr : weft::surface::zero_edge_array(handed.size());
    } else {
      // A wait for a programmatic or launch completion event: the edge the
      // next kernel node will have from that kernel node's port.
      auto data = std::make_shared<cudaGraphEdgeData[]>(handed.size());
      for (std::size_t i = 0; i < handed.size(); ++i)
        if (unsigned char port = c->dependency_port(s, handed[i])) {
          data[i].from_port = port;
          data[i].type = cudaGraphDependencyTypeProgrammatic;
        }
      *edgeData_out = data.get();
      c->handed_out_edge_data[s] = std::move(data);
    }
  }
  if (numDependencies_out) *numDependencies_out = handed.size();
  return cudaSuccess;
}

/// Adds to (cudaStreamAddCaptureDependencies, 0) or replaces
/// (cudaStreamSetCaptureDependencies) the capturing stream's dependency set;
/// the nodes must be distinct nodes of the capture's graph.
inline cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                                       const cudaGraphEdgeData* dependencyData,
                                                       std::size_t numDependencies, unsigned int flags = 0) {
  using namespace weft::detail;
  CUstream_st* s = resolve_stream(weft::surface::explicit_stream(stream));
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (flags != cudaStreamAddCaptureDependencies && flags != cudaStreamSetCaptureDependencies)
    return record(cudaErrorInvalidValue);
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  std::shared_ptr<capture_sequence> c;
  if (cudaError_t e = weft::surface::capture_of(s, c)) return record(e);
  if (!c) return record(cudaErrorIllegalState);
  if (c->invalidated) return record(cudaErrorStreamCaptureInvalidated);
  if (cudaError_t e = weft::surface::check_dependencies(c->graph, dependencies, numDependencies)) return record(e);
  if (!weft::surface::ordinary_edges(dependencyData, numDependencies)) return record(cudaErrorInvalidValue);
  auto& deps = c->dependencies[s];
  if (flags == cudaStreamSetCaptureDependencies) {
    deps.clear();
    c->forget_ports(s);
  }
  for (std::size_t i = 0; i < numDependencies; ++i)
    if (std::find(deps.begin(), deps.end(), dependencies[i]) == deps.end()) deps.push_back(dependencies[i]);
  c->handed_out.erase(s);
  return cudaSuccess;
}

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream
