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
#include "weft/detail/graphs/node_commands.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/host_task.hpp"

namespace weft::detail {

/// What one step of an executable graph does; a child graph is no step of
/// its own, its nodes are (and an empty step joins its last ones).
using step_work = std::variant<kernel_work, copy_work, set_work, host_work, empty_work, event_record_work,
                               event_wait_work, alloc_work, free_work>;

struct graph_step {
  step_work work;
  std::vector<std::size_t> after;  // earlier steps it waits for; none: the launch's start
};

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
  // First in, first placed: nodes without an order between them are
  // enqueued in the order they were created, as an H100 starts them.
  std::size_t placed = 0;
  for (std::size_t next = 0; next < ready.size(); ++next) {
    const CUgraphNode_st* n = ready[next];
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

/// The command of one step; it may add commands the step waits for to `before`.
inline std::shared_ptr<command> command_for(const step_work& work, runtime& rt,
                                            std::vector<std::shared_ptr<command>>& before) {
  return std::visit([&](const auto& w) { return node_command(w, node_launch{rt, before}); }, work);
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
    made[i] = command_for(step.work, rt, before);
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
