// A CUDA graph as the program builds it (CUDA guide, "CUDA Graphs"): nodes,
// each with the work it stands for, and the edges between them. cudaGraph_t
// and cudaGraphNode_t are pointers to CUgraph_st and CUgraphNode_st (CUDA
// leaves them opaque, so weft defines them). A graph is only a description:
// nothing runs until it is instantiated (graph_exec.hpp) and launched.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/graphs/conditional_nodes.hpp"
#include "weft/detail/graphs/kernel_node_attributes.hpp"
#include "weft/detail/memory/memory_layout.hpp"
#include "weft/detail/runtime/kernel_registry.hpp"
#include "weft/detail/textures/arrays/array_storage.hpp"

struct CUgraph_st;

namespace weft::detail {

/// A kernel node: the registered kernel, its launch shape and its argument
/// copies, which are immutable and so shared by clones and instantiations.
struct kernel_work {
  const void* func = nullptr;
  dim3 grid;
  dim3 block;
  unsigned shared_bytes = 0;
  dim3 cluster{1, 1, 1};
  std::shared_ptr<const bound_arguments> arguments;
  kernel_node_attributes attributes = {};  // a captured cudaLaunchCooperativeKernel sets cooperative
};

/// One side of a copy as cudaMemcpy3DParms gives it: a pitched pointer
/// (rows `pitch` bytes apart, `rows` rows to a slice, `row_bytes` of each
/// row in use) and the position of the copied box in it (x in bytes).
/// A CUDA array is its memory as such a pointer, and `array` names it, so
/// that the node's parameters read back as the array (x still in bytes).
struct copy_operand {
  void* ptr = nullptr;
  std::size_t pitch = 0;
  std::size_t row_bytes = 0;
  std::size_t rows = 0;
  std::size_t x = 0, y = 0, z = 0;
  array_level* array = nullptr;

  /// Where the box starts; null stays null (for the checks to refuse).
  char* start() const { return ptr ? static_cast<char*>(ptr) + z * pitch * rows + y * pitch + x : nullptr; }
};

/// A memcpy node: a box of `width` bytes x `height` rows x `depth` slices,
/// as cudaMemcpy3D copies it. A 1D copy of n bytes is the box n x 1 x 1
/// between pointers of pitch n, which is how CUDA describes it too
/// (cudaGraphMemcpyNodeGetParams), so every copy has the one form.
struct copy_work {
  copy_operand src;
  copy_operand dst;
  std::size_t width = 0, height = 1, depth = 1;
  cudaMemcpyKind kind = cudaMemcpyDefault;

  static copy_work linear(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
    copy_work c;
    c.src = {const_cast<void*>(src), count, count, 1};
    c.dst = {dst, count, count, 1};
    c.width = count;
    c.kind = kind;
    return c;
  }

  /// The rows to copy, in the terms of weft's copies (memory_copies.hpp).
  row_box box() const {
    return {dst.start(), dst.pitch, dst.pitch * dst.rows, src.start(), src.pitch, src.pitch * src.rows, width,
            height,      depth};
  }
};

/// cudaMemsetParams: `height` rows `pitch` bytes apart, each of `width`
/// elements of 1, 2 or 4 bytes set to the low bytes of `value`.
struct set_work {
  void* dst = nullptr;
  std::size_t pitch = 0;
  unsigned value = 0;
  unsigned element_size = 1;
  std::size_t width = 0;
  std::size_t height = 0;
};

struct host_work {
  void (*fn)(void*) = nullptr;
  void* data = nullptr;
};

/// The node owns its own copy of the graph it embeds, as CUDA clones the
/// child graph when the node is added.
struct child_work {
  std::shared_ptr<CUgraph_st> graph;
};

struct empty_work {};

/// Event record and wait nodes name the event; which record a wait node
/// waits for is decided at launch (the event's latest record then).
struct event_record_work {
  cudaEvent_t event = nullptr;
};

struct event_wait_work {
  cudaEvent_t event = nullptr;
};

struct graph_allocation;

/// A memory allocation node: `bytes` on `device`, at the address the node
/// was given when it was added, which stays its address for the graph's
/// life (graph_memory.hpp). `parameters` are the cudaMemAllocNodeParams as
/// the program gave them, in the CUDA surface's types (which this layer does
/// not name), so that the node can return them; null for a node captured
/// from cudaMallocAsync, whose parameters are the defaults.
struct alloc_work {
  std::size_t bytes = 0;
  int device = 0;
  std::shared_ptr<graph_allocation> allocation;
  std::shared_ptr<const void> parameters;
};

/// A memory free node: the address of a graph allocation.
struct free_work {
  void* address = nullptr;
  std::shared_ptr<graph_allocation> allocation;
};

// A node's kind is its work's type; its cudaGraphNodeType comes from an
// explicit mapping (cuda/runtime/graph_api.hpp's node_type), not from the order here.
using node_work = std::variant<kernel_work, copy_work, set_work, host_work, child_work, empty_work, event_record_work,
                               event_wait_work, alloc_work, free_work, conditional_work>;

}  // namespace weft::detail

struct CUgraphNode_st {
  CUgraph_st* owner = nullptr;
  weft::detail::node_work work;
  // In the order the edges were added, which is the order queries give.
  std::vector<CUgraphNode_st*> dependencies;
  std::vector<CUgraphNode_st*> dependents;
};

struct CUgraph_st {
  // Unique for the process's life, unlike the graph's address, which a later
  // graph may get: graph allocations name the graph that owns them by it.
  std::uint64_t serial = next_serial();
  // In creation order, the order cudaGraphGetNodes gives.
  std::vector<std::unique_ptr<CUgraphNode_st>> nodes;
  // For a clone: each node of the original graph -> its copy here
  // (cudaGraphNodeFindInClone).
  std::unordered_map<const CUgraphNode_st*, CUgraphNode_st*> copies_of;
  // Moved into a child graph node (cudaGraphChildGraphOwnershipMove): the
  // node owns it, and it can no longer be destroyed, instantiated or
  // embedded on its own, nor receive memory nodes.
  bool moved_into_parent = false;

  // Programmatic edges (from -> to): the kernel port of `from` that `to`
  // waits for (cudaGraphKernelNodePortProgrammatic or ...LaunchCompletion);
  // an edge not named here is an ordinary one.
  std::map<std::pair<const CUgraphNode_st*, const CUgraphNode_st*>, unsigned char> edge_ports;

  unsigned char port_of(const CUgraphNode_st* from, const CUgraphNode_st* to) const {
    auto it = edge_ports.find({from, to});
    return it == edge_ports.end() ? 0 : it->second;
  }

  // cudaGraphConditionalHandleCreate's handles for this graph.
  std::vector<std::shared_ptr<weft::detail::conditional_handle>> handles;
  // The executable graph made from it, while one exists, for a graph with
  // conditional or memory nodes, of which CUDA allows one at a time.
  std::weak_ptr<const void> instantiation;
  // For a conditional node's body: the graph that holds the node, whose
  // handles (and its own enclosing graphs') the body's conditionals may use.
  const CUgraph_st* enclosing = nullptr;

  bool has_conditional_nodes() const {
    return std::any_of(nodes.begin(), nodes.end(),
                       [](const auto& n) { return std::holds_alternative<weft::detail::conditional_work>(n->work); });
  }

  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }

  CUgraphNode_st* add(weft::detail::node_work work) {
    nodes.push_back(std::make_unique<CUgraphNode_st>());
    CUgraphNode_st* n = nodes.back().get();
    n->owner = this;
    n->work = std::move(work);
    return n;
  }

  bool has_edge(const CUgraphNode_st* from, const CUgraphNode_st* to) const {
    return std::find(to->dependencies.begin(), to->dependencies.end(), from) != to->dependencies.end();
  }

  static void add_edge(CUgraphNode_st* from, CUgraphNode_st* to) {
    from->dependents.push_back(to);
    to->dependencies.push_back(from);
  }

  static void remove_edge(CUgraphNode_st* from, CUgraphNode_st* to) {
    std::erase(from->dependents, to);
    std::erase(to->dependencies, from);
    from->owner->edge_ports.erase({from, to});
  }

  /// Removes the node and every edge that touches it.
  void destroy(CUgraphNode_st* n) {
    for (CUgraphNode_st* d : n->dependencies) std::erase(d->dependents, n);
    for (CUgraphNode_st* d : n->dependents) std::erase(d->dependencies, n);
    std::erase_if(copies_of, [&](const auto& entry) { return entry.second == n; });
    std::erase_if(edge_ports, [&](const auto& entry) { return entry.first.first == n || entry.first.second == n; });
    std::erase_if(nodes, [&](const auto& each) { return each.get() == n; });
  }

  /// A deep copy: nodes, edges, and embedded graphs, which each clone owns
  /// on its own. `map` receives original node -> cloned node.
  std::unique_ptr<CUgraph_st> clone(std::unordered_map<const CUgraphNode_st*, CUgraphNode_st*>* map = nullptr) const {
    auto copy = std::make_unique<CUgraph_st>();
    std::unordered_map<const CUgraphNode_st*, CUgraphNode_st*> local;
    auto& to = map ? *map : local;
    for (const auto& n : nodes) {
      weft::detail::node_work work = n->work;
      if (auto* child = std::get_if<weft::detail::child_work>(&work)) child->graph = child->graph->clone();
      to[n.get()] = copy->add(std::move(work));
    }
    for (const auto& n : nodes)
      for (CUgraphNode_st* d : n->dependencies) add_edge(to.at(d), to.at(n.get()));
    for (const auto& [edge, port] : edge_ports) copy->edge_ports[{to.at(edge.first), to.at(edge.second)}] = port;
    return copy;
  }
};
