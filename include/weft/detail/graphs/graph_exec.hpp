// An executable graph (cudaGraphExec_t points to a CUgraphExec_st): the
// graph's work snapshotted at instantiation, with child graphs flattened into
// it, in an order where each step comes after those it depends on. Launching
// it puts one command per step into the device's command graph
// (commands/command_graph.hpp), linked by the graph's edges, between a first
// and a last command that take part in the stream's order like any other:
// the steps start once the stream's earlier work is done, and the stream's
// later work waits for all of them. Steps without a path between them are
// independent commands and run at the same time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <variant>
#include <vector>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/commands/command.hpp"
#include "weft/detail/commands/command_graph.hpp"
#include "weft/detail/commands/stream.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/host_task.hpp"

namespace weft::detail {

/// What one step of an executable graph does; a child graph is no step of
/// its own, its nodes are (and an empty step joins its last ones).
using step_work = std::variant<kernel_work, copy_work, set_work, host_work, empty_work>;

struct graph_step {
  step_work work;
  std::vector<std::size_t> after;  // earlier steps it waits for; none: the launch's start
};

inline void set_elements(const set_work& s) {
  for (std::size_t y = 0; y < s.height; ++y) {
    char* row = static_cast<char*>(s.dst) + y * s.pitch;
    if (s.element_size == 1) {
      std::memset(row, static_cast<int>(s.value & 0xffu), s.width);
    } else if (s.element_size == 2) {
      auto v = static_cast<std::uint16_t>(s.value);
      for (std::size_t x = 0; x < s.width; ++x) std::memcpy(row + x * 2, &v, 2);
    } else {
      std::uint32_t v = s.value;
      for (std::size_t x = 0; x < s.width; ++x) std::memcpy(row + x * 4, &v, 4);
    }
  }
}

/// Appends `g`'s nodes to `steps` in dependency order; roots wait for
/// `entry`. Returns false when the edges form a cycle. `exit` receives, for
/// each node, the step that completes it (a child graph's joining step).
inline bool flatten(const CUgraph_st& g, const std::vector<std::size_t>& entry, std::vector<graph_step>& steps,
                    std::unordered_map<const CUgraphNode_st*, std::size_t>& exit) {
  std::unordered_map<const CUgraphNode_st*, std::size_t> waiting;
  std::vector<const CUgraphNode_st*> ready;
  for (const auto& n : g.nodes) {
    waiting[n.get()] = n->dependencies.size();
    if (n->dependencies.empty()) ready.push_back(n.get());
  }
  std::size_t placed = 0;
  while (!ready.empty()) {
    const CUgraphNode_st* n = ready.back();
    ready.pop_back();
    ++placed;
    std::vector<std::size_t> after = entry;
    if (!n->dependencies.empty()) {
      after.clear();
      for (const CUgraphNode_st* d : n->dependencies) after.push_back(exit.at(d));
    }
    if (const auto* child = std::get_if<child_work>(&n->work)) {
      std::unordered_map<const CUgraphNode_st*, std::size_t> inner;
      if (!flatten(*child->graph, after, steps, inner)) return false;
      std::vector<std::size_t> last;
      for (const auto& c : child->graph->nodes)
        if (c->dependents.empty()) last.push_back(inner.at(c.get()));
      steps.push_back({empty_work{}, child->graph->nodes.empty() ? after : last});
    } else {
      steps.push_back({std::visit(
                           [](const auto& w) -> step_work {
                             if constexpr (std::is_same_v<std::decay_t<decltype(w)>, child_work>)
                               return empty_work{};
                             else
                               return w;
                           },
                           n->work),
                       std::move(after)});
    }
    exit[n] = steps.size() - 1;
    for (const CUgraphNode_st* d : n->dependents)
      if (--waiting.at(d) == 0) ready.push_back(d);
  }
  return placed == g.nodes.size();
}

}  // namespace weft::detail

struct CUgraphExec_st {
  std::vector<weft::detail::graph_step> steps;

  /// The last command of this executable graph's latest launch: CUDA orders
  /// each launch after the previous ones of the same executable graph, in
  /// whatever stream they went.
  std::shared_ptr<weft::detail::command> latest_end() {
    std::lock_guard lock(mutex_);
    return latest_end_;
  }
  void set_latest_end(std::shared_ptr<weft::detail::command> c) {
    std::lock_guard lock(mutex_);
    latest_end_ = std::move(c);
  }

  /// Serialises launches of this graph, so that each one's start links to
  /// the previous one's end.
  std::mutex launching;

 private:
  std::mutex mutex_;
  std::shared_ptr<weft::detail::command> latest_end_;
};

namespace weft::detail {

/// The executable graph of `g`, or null when its edges form a cycle.
inline std::unique_ptr<CUgraphExec_st> instantiate(const CUgraph_st& g) {
  auto exec = std::make_unique<CUgraphExec_st>();
  std::unordered_map<const CUgraphNode_st*, std::size_t> exit;
  if (!flatten(g, {}, exec->steps, exit)) return nullptr;
  return exec;
}

inline std::shared_ptr<command> command_for(const step_work& work, runtime& rt) {
  int device = rt.ordinal();
  return std::visit(
      [&](const auto& w) -> std::shared_ptr<command> {
        using type = std::decay_t<decltype(w)>;
        if constexpr (std::is_same_v<type, kernel_work>) {
          launch_shape shape{w.grid, w.block, w.shared_bytes, rt.stack_bytes(), device, w.cluster, w.cooperative};
          return w.arguments->make_grid(shape);
        } else if constexpr (std::is_same_v<type, copy_work>) {
          return std::make_shared<host_task>("graph copy of " + std::to_string(w.count) + " bytes", device,
                                             [w] { std::memmove(w.dst, w.src, w.count); });
        } else if constexpr (std::is_same_v<type, set_work>) {
          return std::make_shared<host_task>(
              "graph set of " + std::to_string(w.width * w.element_size * w.height) + " bytes", device,
              [w] { set_elements(w); });
        } else if constexpr (std::is_same_v<type, host_work>) {
          return std::make_shared<host_function>([w] { w.fn(w.data); });
        } else {
          return std::make_shared<marker>("graph empty node");
        }
      },
      work);
}

/// Puts one launch of `exec` into stream `s` of runtime `rt`.
inline void launch_graph(CUgraphExec_st& exec, CUstream_st& s, runtime& rt) {
  command_graph& commands = rt.commands();
  std::lock_guard lock(exec.launching);
  auto start = std::make_shared<marker>("graph launch");
  commands.enqueue(s, start, exec.latest_end());
  std::vector<std::shared_ptr<command>> made(exec.steps.size());
  std::vector<bool> awaited(exec.steps.size(), false);
  std::vector<std::shared_ptr<command>> before;
  for (std::size_t i = 0; i < exec.steps.size(); ++i) {
    const graph_step& step = exec.steps[i];
    before.clear();
    if (step.after.empty()) before.push_back(start);
    for (std::size_t a : step.after) {
      before.push_back(made[a]);
      awaited[a] = true;
    }
    made[i] = command_for(step.work, rt);
    commands.enqueue_after(s, made[i], before);
  }
  before.clear();
  for (std::size_t i = 0; i < made.size(); ++i)
    if (!awaited[i]) before.push_back(made[i]);
  if (before.empty()) before.push_back(start);
  auto joined = std::make_shared<marker>("graph nodes done");
  commands.enqueue_after(s, joined, before);
  auto end = std::make_shared<marker>("graph launch end");
  commands.enqueue(s, end, joined);
  exec.set_latest_end(end);
}

}  // namespace weft::detail
