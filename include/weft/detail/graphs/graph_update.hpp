// Updating an executable graph in place (CUDA guide, "Updating Instantiated
// Graphs"): cudaGraphExecUpdate pairs the nodes of a graph with those the
// executable graph was instantiated from, by creation order, and takes their
// parameters if the topology, the node types and each kind's limits allow;
// the per-node calls (cudaGraphExec*NodeSetParams) change one step under the
// same limits. Either way the change is made under the executable graph's
// launch lock, so it reaches the launches made after it, and none before:
// those have their commands already (graph_exec.hpp).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <unordered_map>
#include <variant>
#include <vector>

#include "weft/detail/graphs/conditional_nodes.hpp"
#include "weft/detail/graphs/graph_exec.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/memory/memory_lookup.hpp"

namespace weft::detail {

/// Why an update is refused, in cudaGraphExecUpdateResult's terms.
enum class update_refusal {
  none,
  topology_changed,
  node_type_changed,
  parameters_changed,
  not_supported,
  attributes_changed
};

struct update_outcome {
  update_refusal refusal = update_refusal::none;
  const CUgraphNode_st* node = nullptr;       // the updating graph's node at fault
  const CUgraphNode_st* from_node = nullptr;  // for a mismatched edge: its other end
};

/// A step's new work, or a conditional step's new handle.
struct step_change {
  step_place place;
  std::optional<step_work> work;
  std::shared_ptr<conditional_handle> handle;
};

/// Whether an update may move a copy's or set's operand from `was` to `now`:
/// not to another device, nor between device, managed and pinned host
/// memory. Memory no device registered (pageable host memory, and
/// __device__ variables, which are plain globals in weft and cannot be
/// told from it) may take the place of any.
inline bool same_memory_place(const void* was, const void* now) {
  auto a = locate(was);
  auto b = locate(now);
  if (!a || !b) return true;
  return a->device == b->device && a->info.kind == b->info.kind;
}

/// Whether a step doing `old` may do `now` instead, by the limits CUDA sets
/// (cudaGraphExecUpdate, cudaGraphExecMemsetNodeSetParams, ...).
inline update_refusal check_work_change(const step_work& old, const node_work& now, bool use_node_priority) {
  // A kernel may change function, shape and arguments, but not become
  // cooperative or stop being so, nor, where node priorities apply, change
  // its priority.
  if (const auto* k = std::get_if<kernel_work>(&old)) {
    const auto& n = std::get<kernel_work>(now).attributes;
    if (n.cooperative != k->attributes.cooperative) return update_refusal::attributes_changed;
    if (use_node_priority && n.priority != k->attributes.priority) return update_refusal::attributes_changed;
  }
  // A memory node's allocation is its graph's, at the address the program
  // was given when the node was added: another graph's cannot take its place.
  if (const auto* a = std::get_if<alloc_work>(&old))
    return a->allocation == std::get<alloc_work>(now).allocation ? update_refusal::none : update_refusal::not_supported;
  if (const auto* f = std::get_if<free_work>(&old))
    return f->allocation == std::get<free_work>(now).allocation ? update_refusal::none : update_refusal::not_supported;
  if (const auto* s = std::get_if<set_work>(&old)) {
    const auto& n = std::get<set_work>(now);
    if (n.width == 0 || n.height == 0) return update_refusal::parameters_changed;
    if (!same_memory_place(s->dst, n.dst)) return update_refusal::parameters_changed;
    // A 2D set may change its address and value only; a 1D one its width
    // and element size as well, not its height.
    if (n.height != s->height) return update_refusal::parameters_changed;
    if (s->height > 1 && (n.width != s->width || n.pitch != s->pitch || n.element_size != s->element_size))
      return update_refusal::parameters_changed;
  } else if (const auto* c = std::get_if<copy_work>(&old)) {
    const auto& n = std::get<copy_work>(now);
    // Only 1D copies (one row) may change, and not their kind.
    auto one_dimensional = [](const copy_work& w) { return w.height == 1 && w.depth == 1; };
    if (!one_dimensional(*c) || !one_dimensional(n) || n.width == 0 || n.kind != c->kind)
      return update_refusal::parameters_changed;
    if (!same_memory_place(c->dst.start(), n.dst.start()) || !same_memory_place(c->src.start(), n.src.start()))
      return update_refusal::parameters_changed;
  }
  return update_refusal::none;
}

/// Whether `exec` runs kernel steps at their nodes' priorities
/// (cudaGraphInstantiateFlagUseNodePriority), which an update may then not change.
inline bool uses_node_priorities(const CUgraphExec_st& exec) { return (exec.flags & use_node_priority_flag) != 0; }

/// Pairs `g`'s nodes with `shape`'s and lists the changes that give the
/// executable graph `g`'s parameters, or says why it cannot.
inline update_outcome plan_update(CUgraphExec_st& exec, const graph_shape& shape, const CUgraph_st& g,
                                  std::vector<step_change>& changes) {
  if (g.nodes.size() != shape.nodes.size()) return {update_refusal::topology_changed};
  std::unordered_map<const CUgraphNode_st*, std::size_t> order;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) order[g.nodes[i].get()] = i;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const CUgraphNode_st* n = g.nodes[i].get();
    const auto& paired = shape.nodes[i];
    if (n->dependencies.size() != paired.dependencies.size()) return {update_refusal::topology_changed, n};
    for (std::size_t j = 0; j < n->dependencies.size(); ++j)
      if (order.at(n->dependencies[j]) != paired.dependencies[j])
        return {update_refusal::topology_changed, n, n->dependencies[j]};
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const CUgraphNode_st* n = g.nodes[i].get();
    const auto& paired = shape.nodes[i];
    if (static_cast<int>(n->work.index()) != paired.type) return {update_refusal::node_type_changed, n};
    if (const auto* child = std::get_if<child_work>(&n->work)) {
      if (auto inner = plan_update(exec, paired.inner[0], *child->graph, changes);
          inner.refusal != update_refusal::none)
        return inner;
    } else if (const auto* c = std::get_if<conditional_work>(&n->work)) {
      const auto& old = std::get<conditional_step>(exec.step_at(paired.place).work);
      if (c->kind != old.kind || c->bodies.size() != old.bodies.size()) return {update_refusal::parameters_changed, n};
      for (std::size_t b = 0; b < c->bodies.size(); ++b)
        if (auto inner = plan_update(exec, paired.inner[b], *c->bodies[b], changes);
            inner.refusal != update_refusal::none)
          return inner;
      changes.push_back({paired.place, std::nullopt, c->handle});
    } else {
      if (auto refusal = check_work_change(exec.step_at(paired.place).work, n->work, uses_node_priorities(exec));
          refusal != update_refusal::none)
        return {refusal, n};
      changes.push_back({paired.place, as_step(n->work), nullptr});
    }
  }
  return {};
}

/// Makes the changes (the caller holds exec.launching). A step keeps its
/// enabled state, as CUDA's update leaves it.
inline void apply_update(CUgraphExec_st& exec, std::vector<step_change>& changes) {
  for (auto& change : changes) {
    graph_step& step = exec.step_at(change.place);
    if (change.handle)
      std::get<conditional_step>(step.work).handle = std::move(change.handle);
    else
      step.work = std::move(*change.work);
  }
  exec.handles.clear();
  collect_handles(exec.steps, exec.handles);
}

}  // namespace weft::detail
