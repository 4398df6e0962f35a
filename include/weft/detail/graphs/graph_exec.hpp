// An executable graph (cudaGraphExec_t points to a CUgraphExec_st): the
// graph's work snapshotted at instantiation, with child graphs flattened into
// it, in an order where each step comes after those it depends on. Launching
// it puts one command per step into the device's command graph
// (commands/command_graph.hpp), linked by the graph's edges, between a first
// and a last command that take part in the stream's order like any other:
// the steps start once the stream's earlier work is done, and the stream's
// later work waits for all of them. Steps without a path between them are
// independent commands and run at the same time. A conditional node's step
// cannot be commands fixed at launch, as kernels of the launch decide it: it
// enqueues its chosen body when it runs (conditional_command). The executable
// graph remembers which node each step came from (graph_shape), so that
// updates (graph_update.hpp) can find it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/commands/command.hpp"
#include "weft/detail/commands/command_graph.hpp"
#include "weft/detail/commands/stream.hpp"
#include "weft/detail/graphs/conditional_nodes.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/graphs/node_commands.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/scheduler/grid_job.hpp"
#include "weft/detail/streams/host_task.hpp"

struct CUgraphExec_st;

namespace weft::detail {

struct graph_step;
using step_list = std::vector<graph_step>;

/// A conditional node as it runs: each launch decides which body runs only
/// once the node's dependencies are done, since kernels set the handle's
/// value during the launch (conditional_command below).
struct conditional_step {
  std::shared_ptr<conditional_handle> handle;
  conditional_kind kind = conditional_kind::if_else;
  std::vector<step_list> bodies;
};

/// What one step of an executable graph does; a child graph is no step of
/// its own, its nodes are (and an empty step joins its last ones).
using step_work = std::variant<kernel_work, copy_work, set_work, host_work, empty_work, event_record_work,
                               event_wait_work, alloc_work, free_work, conditional_step>;

struct graph_step {
  step_work work;
  std::vector<std::size_t> after;  // earlier steps it waits for; none: the launch's start (or the body's)
  // For each of `after`, the kernel port it waits for (a programmatic edge),
  // or 0: its completion. Empty when all are 0.
  std::vector<int> ports = {};
  bool watches_launch = false;  // a kernel with a launch completion edge out of it
  // cudaGraphNodeSetEnabled: a disabled step runs as an empty node would,
  // and keeps its work for when it is enabled again.
  bool enabled = true;
};

/// Where a node's step is: in the launch's list of steps, or in a
/// conditional's body, `bodies` leading there from the top, each pair a
/// conditional step and the index of its body.
struct step_place {
  std::vector<std::pair<std::size_t, std::size_t>> bodies;
  std::size_t step = 0;
};

/// A graph as it was instantiated: its nodes in creation order with their
/// edges, so that cudaGraphExecUpdate can pair another graph's nodes with
/// them and the per-node calls can find a node's step.
struct graph_shape {
  struct node {
    const CUgraphNode_st* handle = nullptr;
    int type = 0;                           // the index of its work in node_work (kind_index)
    std::vector<std::size_t> dependencies;  // indices into the same shape, in edge order
    step_place place;                       // a child graph's: the step joining its last nodes
    std::vector<graph_shape> inner;         // a child graph's graph; a conditional's bodies
  };
  std::vector<node> nodes;
};

/// A kind of node's index in node_work, which graph_shape records.
template <class W>
int kind_index() {
  return static_cast<int>(node_work(std::in_place_type<W>).index());
}

/// Why a graph could not be instantiated, and the node at fault.
enum class instantiate_failure { none, cycle, unsupported_in_body, handle_unused };

struct instantiate_outcome {
  instantiate_failure failure = instantiate_failure::none;
  const CUgraphNode_st* node = nullptr;
};

/// CUDA allows only these kinds in a conditional node's body (and in the
/// graphs nested in one).
inline bool allowed_in_body(const node_work& work) {
  return std::visit(
      [](const auto& w) {
        using type = std::decay_t<decltype(w)>;
        return std::is_same_v<type, kernel_work> || std::is_same_v<type, copy_work> || std::is_same_v<type, set_work> ||
               std::is_same_v<type, empty_work> || std::is_same_v<type, child_work> ||
               std::is_same_v<type, conditional_work>;
      },
      work);
}

/// The steps from `first` on that no later step waits for: waiting for them
/// is waiting for all of them.
inline std::vector<std::size_t> unawaited_steps(const step_list& steps, std::size_t first) {
  std::vector<bool> awaited(steps.size(), false);
  for (std::size_t i = first; i < steps.size(); ++i)
    for (std::size_t a : steps[i].after) awaited[a] = true;
  std::vector<std::size_t> last;
  for (std::size_t i = first; i < steps.size(); ++i)
    if (!awaited[i]) last.push_back(i);
  return last;
}

/// A node's work as a step; a child graph or conditional node is no step
/// of its own (its nodes are, and an empty step joins them), and an update
/// puts one in place of a step the same way.
inline step_work as_step(const node_work& work) {
  return std::visit(
      [](const auto& w) -> step_work {
        using type = std::decay_t<decltype(w)>;
        if constexpr (std::is_same_v<type, child_work> || std::is_same_v<type, conditional_work>)
          return empty_work{};
        else
          return w;
      },
      work);
}

/// Appends `g`'s nodes to `steps` in dependency order; roots wait for
/// `entry`. Records each node's place and edges in `shape`, and, in `exit`,
/// the step that completes each node (a child graph's joining step).
/// Conditional nodes' bodies become step lists of their own; `in_body` says
/// that `g` is (in) one, where CUDA allows only kernels, copies, sets, empty
/// nodes, child graphs and conditionals.
inline instantiate_outcome flatten(const CUgraph_st& g, const std::vector<std::size_t>& entry, step_list& steps,
                                   const step_place& where, bool in_body, graph_shape& shape,
                                   std::unordered_map<const CUgraphNode_st*, std::size_t>& exit) {
  std::unordered_map<const CUgraphNode_st*, std::size_t> waiting, order;
  std::vector<const CUgraphNode_st*> ready;
  const std::size_t first_step = steps.size();
  shape.nodes.resize(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const CUgraphNode_st* n = g.nodes[i].get();
    order[n] = i;
    waiting[n] = n->dependencies.size();
    if (n->dependencies.empty()) ready.push_back(n);
    if (in_body && !allowed_in_body(n->work)) return {instantiate_failure::unsupported_in_body, n};
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const CUgraphNode_st* n = g.nodes[i].get();
    graph_shape::node& entry_of_shape = shape.nodes[i];
    entry_of_shape.handle = n;
    entry_of_shape.type = static_cast<int>(n->work.index());
    for (const CUgraphNode_st* d : n->dependencies) entry_of_shape.dependencies.push_back(order.at(d));
  }
  // First in, first placed: nodes without an order between them are
  // enqueued in the order they were created, as an H100 starts them.
  std::size_t placed = 0;
  for (std::size_t next = 0; next < ready.size(); ++next) {
    const CUgraphNode_st* n = ready[next];
    ++placed;
    graph_shape::node& node_shape = shape.nodes[order.at(n)];
    std::vector<std::size_t> after = entry;
    std::vector<int> ports;
    if (!n->dependencies.empty()) {
      after.clear();
      for (const CUgraphNode_st* d : n->dependencies) {
        after.push_back(exit.at(d));
        ports.push_back(g.port_of(d, n));
        if (ports.back() == static_cast<int>(completion_port::launch_completion))
          steps[exit.at(d)].watches_launch = true;
      }
      if (std::all_of(ports.begin(), ports.end(), [](int p) { return p == 0; })) ports.clear();
    }
    if (const auto* child = std::get_if<child_work>(&n->work)) {
      std::unordered_map<const CUgraphNode_st*, std::size_t> inner;
      node_shape.inner.resize(1);
      if (auto failed = flatten(*child->graph, after, steps, where, in_body, node_shape.inner[0], inner);
          failed.failure != instantiate_failure::none)
        return failed;
      std::vector<std::size_t> last;
      for (const auto& c : child->graph->nodes)
        if (c->dependents.empty()) last.push_back(inner.at(c.get()));
      steps.push_back({empty_work{}, child->graph->nodes.empty() ? after : last, {}});
    } else if (const auto* conditional = std::get_if<conditional_work>(&n->work)) {
      conditional_step step{conditional->handle, conditional->kind, {}};
      step.bodies.resize(conditional->bodies.size());
      node_shape.inner.resize(conditional->bodies.size());
      for (std::size_t b = 0; b < conditional->bodies.size(); ++b) {
        step_place body_place = where;
        body_place.bodies.emplace_back(steps.size(), b);
        std::unordered_map<const CUgraphNode_st*, std::size_t> inner;
        if (auto failed =
                flatten(*conditional->bodies[b], {}, step.bodies[b], body_place, true, node_shape.inner[b], inner);
            failed.failure != instantiate_failure::none)
          return failed;
      }
      // An H100 decides a conditional node after the work placed before it,
      // even where no edge says so: cuda-samples' graphConditionalNodes adds
      // its IF node with no dependency on the kernel that sets the value
      // (numDependencies 0), and the GPU still sees the value set.
      for (std::size_t last : unawaited_steps(steps, first_step))
        if (std::find(after.begin(), after.end(), last) == after.end()) after.push_back(last);
      steps.push_back({std::move(step), std::move(after), {}});
    } else {
      steps.push_back({as_step(n->work), std::move(after), std::move(ports)});
    }
    exit[n] = steps.size() - 1;
    node_shape.place = where;
    node_shape.place.step = steps.size() - 1;
    for (const CUgraphNode_st* d : n->dependents)
      if (--waiting.at(d) == 0) ready.push_back(d);
  }
  if (placed != g.nodes.size()) {
    for (const auto& n : g.nodes)
      if (waiting.at(n.get()) != 0) return {instantiate_failure::cycle, n.get()};
  }
  return {};
}

/// The handles that the conditional steps of `steps` (and of their bodies) use.
inline void collect_handles(const step_list& steps, std::vector<std::shared_ptr<conditional_handle>>& out) {
  for (const graph_step& step : steps)
    if (const auto* c = std::get_if<conditional_step>(&step.work)) {
      if (std::find(out.begin(), out.end(), c->handle) == out.end()) out.push_back(c->handle);
      for (const step_list& body : c->bodies) collect_handles(body, out);
    }
}

/// The handles created for `g` and for the bodies nested in it.
inline void created_handles(const CUgraph_st& g, std::vector<const CUgraph_st*>& graphs) {
  graphs.push_back(&g);
  for (const auto& n : g.nodes) {
    if (const auto* c = std::get_if<conditional_work>(&n->work))
      for (const auto& body : c->bodies) created_handles(*body, graphs);
    if (const auto* child = std::get_if<child_work>(&n->work)) created_handles(*child->graph, graphs);
  }
}

}  // namespace weft::detail

struct CUgraphExec_st {
  // The lists below change only under `launching`: a launch reads them once
  // while it enqueues its commands (conditional bodies take a copy), so an
  // update reaches the launches after it and none before.
  weft::detail::step_list steps;
  weft::detail::graph_shape shape;
  // Every node of the graph and of the graphs nested in it -> its shape.
  std::unordered_map<const CUgraphNode_st*, const weft::detail::graph_shape::node*> nodes;
  // Those reset to their default value at each launch.
  std::vector<std::shared_ptr<weft::detail::conditional_handle>> handles;
  unsigned long long flags = 0;
  // Held while the executable graph exists; a graph with conditional nodes
  // watches it (CUgraph_st::instantiation).
  std::shared_ptr<const void> alive = std::make_shared<int>(0);

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

  /// The step that `place` names.
  weft::detail::graph_step& step_at(const weft::detail::step_place& place) {
    weft::detail::step_list* list = &steps;
    for (auto [conditional, body] : place.bodies)
      list = &std::get<weft::detail::conditional_step>((*list)[conditional].work).bodies[body];
    return (*list)[place.step];
  }

  /// The node's shape, or null when `node` is no node of the graph this was
  /// instantiated from.
  const weft::detail::graph_shape::node* find(const CUgraphNode_st* node) const {
    auto found = nodes.find(node);
    return found == nodes.end() ? nullptr : found->second;
  }

  void index_nodes(const weft::detail::graph_shape& s) {
    for (const auto& n : s.nodes) {
      nodes[n.handle] = &n;
      for (const auto& inner : n.inner) index_nodes(inner);
    }
  }

  /// Serialises launches and updates of this graph, so that each launch's
  /// start links to the previous one's end.
  std::mutex launching;

  /// Device graph launch (cudaGraphInstantiateFlagDeviceLaunch): whether
  /// the graph was uploaded (cudaGraphUpload, an upload at instantiation,
  /// or a launch from the host), and how many of its device-side launches
  /// have not finished their nodes and children (CUDA refuses a second one).
  std::atomic<bool> uploaded{false};
  std::atomic<int> device_launches{0};

  /// The graph has event record or wait nodes, which record or find the
  /// event's record as of the launch, or memory nodes, whose allocations
  /// work after the launch returns is checked against: its launching thread
  /// enqueues the nodes itself. (An update keeps the node kinds.)
  bool expand_at_launch = false;

  /// Launches whose nodes the device's enqueuing thread has yet to enqueue
  /// (launch_graph); they read `steps`.
  std::atomic<int> expanding{0};

  /// `launching`, held once the launches made so far have read the steps:
  /// what an update takes, or a capture that copies them. It is not held
  /// while waiting: the enqueuing thread may need it (a tail launch).
  std::unique_lock<std::mutex> lock_steps() {
    for (;;) {
      std::unique_lock lock(launching);
      if (expanding.load(std::memory_order_acquire) == 0) return lock;
      lock.unlock();
      settle();
    }
  }

  /// Waits until the launches made so far have read the steps.
  void settle() const {
    for (int n = expanding.load(std::memory_order_acquire); n != 0; n = expanding.load(std::memory_order_acquire))
      expanding.wait(n, std::memory_order_acquire);
  }

 private:
  std::mutex mutex_;
  std::shared_ptr<weft::detail::command> latest_end_;
};

namespace weft::detail {

/// The executable graph of `g`, or why there is none.
inline std::unique_ptr<CUgraphExec_st> instantiate(const CUgraph_st& g, instantiate_outcome& outcome) {
  auto exec = std::make_unique<CUgraphExec_st>();
  std::unordered_map<const CUgraphNode_st*, std::size_t> exit;
  outcome = flatten(g, {}, exec->steps, {}, false, exec->shape, exit);
  if (outcome.failure != instantiate_failure::none) return nullptr;
  collect_handles(exec->steps, exec->handles);
  std::vector<const CUgraph_st*> graphs;
  created_handles(g, graphs);
  for (const CUgraph_st* each : graphs)
    for (const auto& h : each->handles)
      if (std::find(exec->handles.begin(), exec->handles.end(), h) == exec->handles.end()) {
        outcome = {instantiate_failure::handle_unused, nullptr};
        return nullptr;
      }
  // Each executable graph starts from the handles' defaults.
  for (const auto& h : exec->handles) h->value.store(h->default_value, std::memory_order_relaxed);
  exec->index_nodes(exec->shape);
  exec->expand_at_launch = std::any_of(exec->steps.begin(), exec->steps.end(), [](const graph_step& step) {
    return std::holds_alternative<event_record_work>(step.work) || std::holds_alternative<event_wait_work>(step.work) ||
           std::holds_alternative<alloc_work>(step.work) || std::holds_alternative<free_work>(step.work);
  });
  return exec;
}

/// The command of one step; it may add commands the step waits for to `before`.
inline std::shared_ptr<command> command_for(const step_work& work, runtime& rt,
                                            std::vector<std::shared_ptr<command>>& before) {
  return std::visit(
      [&](const auto& w) -> std::shared_ptr<command> {
        // A conditional step is two commands, which enqueue_steps makes.
        if constexpr (std::is_same_v<std::decay_t<decltype(w)>, conditional_step>)
          return nullptr;
        else
          return node_command(w, node_launch{rt, before});
      },
      work);
}

/// cudaGraphInstantiateFlagAutoFreeOnLaunch and ...DeviceLaunch (the
/// surface checks they are CUDA's values).
inline constexpr unsigned long long auto_free_on_launch_flag = 1;
inline constexpr unsigned long long device_launch_flag = 4;

/// One launch of an executable graph as device-side launches see it (CUDA
/// guide, "Graph Execution Environments"): its kernels' fire-and-forget
/// launches are children of `body_done`, which completes once the nodes and
/// they have; tail launches follow `end`, which completes after them.
struct graph_environment : std::enable_shared_from_this<graph_environment> {
  CUgraphExec_st* exec = nullptr;
  bool device_graph = false;
  std::shared_ptr<command> body_done;
  std::shared_ptr<command> end;
  // The environment around this one, which launches as siblings join: the
  // stream's (the host launch's end), or the launching graph's.
  std::shared_ptr<command> parent;
  std::vector<std::shared_ptr<command>> exits;  // the steps no other waits for
};

/// Where a launch's commands go: the device's command graph, in the row of
/// the stream the launch went to (kept by number, as conditional bodies are
/// enqueued later, when the stream may be gone).
struct launch_target {
  command_graph* commands;
  runtime* rt;
  std::uint64_t stream_id;
  int priority;
  bool node_priorities = false;                       // kernel nodes run at their own priority attribute
  std::shared_ptr<graph_environment> environment;     // what the launch's kernels launch from the device joins
  std::shared_ptr<const std::string> graph_launch{};  // the trace's name for the launch (command::graph_launch)
};

/// cudaGraphInstantiateFlagUseNodePriority: kernel nodes run at their
/// cudaLaunchAttributePriority rather than the stream's priority.
inline constexpr unsigned long long use_node_priority_flag = 8;

inline std::vector<std::shared_ptr<command>> enqueue_steps(const step_list& steps,
                                                           const std::vector<std::shared_ptr<command>>& entry,
                                                           const launch_target& target);

/// Decides, once a conditional node's dependencies are done, which body
/// runs, and enqueues that body's commands after itself; the node's
/// dependents wait for `done`, which now also waits for the body (and, for
/// WHILE, for the next decision, made after the body). It runs on whichever
/// thread finds it ready, an SM worker included, and only enqueues.
class conditional_command final : public command {
 public:
  conditional_command(std::shared_ptr<const conditional_step> step, std::shared_ptr<command> done, launch_target target,
                      int device)
      : command(command_kind::host_task),
        step_(std::move(step)),
        done_(std::move(done)),
        target_(target),
        device_(device) {}

  std::string describe() const override { return "graph conditional node"; }

  void run_on_host() override {
    // After a kernel fault CUDA's later work fails; a loop must not go on.
    if (fault(device_).code() != cudaSuccess) return;
    int body = chosen_body(step_->kind, step_->bodies.size(), step_->handle->value.load(std::memory_order_acquire));
    if (body < 0) return;
    auto exits = enqueue_steps(step_->bodies[static_cast<std::size_t>(body)], {shared_from_this()}, target_);
    if (step_->kind == conditional_kind::while_loop) {
      auto again = std::make_shared<conditional_command>(step_, done_, target_, device_);
      again->graph_launch = target_.graph_launch;
      target_.commands->enqueue_after(target_.stream_id, target_.priority, again, exits);
      target_.commands->also_after(again, *done_);
    } else {
      for (const auto& e : exits) target_.commands->also_after(e, *done_);
    }
  }

 private:
  std::shared_ptr<const conditional_step> step_;
  std::shared_ptr<command> done_;
  launch_target target_;
  int device_;
};

/// Enqueues a command per step, roots after `entry`; returns the commands
/// that no other step waits for (`entry` when there are no steps).
inline std::vector<std::shared_ptr<command>> enqueue_steps(const step_list& steps,
                                                           const std::vector<std::shared_ptr<command>>& entry,
                                                           const launch_target& target) {
  std::vector<std::shared_ptr<command>> made(steps.size());
  std::vector<bool> awaited(steps.size(), false);
  std::vector<std::shared_ptr<command>> before;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const graph_step& step = steps[i];
    before.clear();
    if (step.after.empty()) before = entry;
    for (std::size_t a : step.after) {
      before.push_back(made[a]);
      awaited[a] = true;
    }
    if (const auto* c = std::get_if<conditional_step>(&step.work)) {
      auto done = std::make_shared<marker>("graph conditional node done");
      auto decide = std::make_shared<conditional_command>(std::make_shared<const conditional_step>(*c), done, target,
                                                          target.rt->ordinal());
      done->graph_launch = decide->graph_launch = target.graph_launch;
      target.commands->enqueue_after(target.stream_id, target.priority, decide, before);
      target.commands->enqueue_after(target.stream_id, target.priority, done, {decide});
      made[i] = done;
    } else {
      made[i] =
          step.enabled ? command_for(step.work, *target.rt, before) : std::make_shared<marker>("graph node disabled");
      if (made[i]->kind() == command_kind::grid) {
        if (step.watches_launch) static_cast<grid_job&>(*made[i]).watch_launch_completion();
        if (!target.node_priorities) made[i]->priority = command::stream_priority;
        made[i]->environment = target.environment;
      }
      made[i]->graph_launch = target.graph_launch;
      target.commands->enqueue_after(target.stream_id, target.priority, made[i], before, step.ports);
    }
  }
  std::vector<std::shared_ptr<command>> exits;
  for (std::size_t i = 0; i < made.size(); ++i)
    if (!awaited[i]) exits.push_back(made[i]);
  return exits.empty() ? entry : exits;
}

/// The execution environment of a launch of `exec` whose first command is
/// `start`; its `body_done` and `end` may be linked after and launched into
/// before they are enqueued. `parent` is the environment around it.
inline std::shared_ptr<graph_environment> make_environment(CUgraphExec_st& exec, const launch_target& target,
                                                           const std::shared_ptr<command>& start,
                                                           std::shared_ptr<command> parent) {
  auto env = std::make_shared<graph_environment>();
  env->exec = &exec;
  env->device_graph = (exec.flags & device_launch_flag) != 0;
  env->body_done = std::make_shared<marker>("graph nodes done");
  env->end = std::make_shared<marker>("graph launch environment done");
  env->parent = std::move(parent);
  // Kernels that start below may launch into them before they are enqueued.
  target.commands->adopt(*env->body_done);
  target.commands->adopt(*env->end);
  env->body_done->graph_launch = env->end->graph_launch = start->graph_launch;
  return env;
}

/// Enqueues the commands of the launch of `exec` that `env` describes,
/// after `start`; the caller holds `exec.launching`, or has counted the
/// launch in `exec.expanding`. The caller then enqueues the environment's
/// `body_done` and `end` (outside the lock: completing them may make tail
/// launches, which lock the graphs they launch).
inline void enqueue_launch_steps(const CUgraphExec_st& exec, graph_environment& env, launch_target target,
                                 const std::shared_ptr<command>& start) {
  target.environment = std::shared_ptr<graph_environment>(env.shared_from_this());
  target.graph_launch = start->graph_launch;
  env.exits = enqueue_steps(exec.steps, {start}, target);
}

/// Enqueues the environment's last two commands: the nodes and their
/// fire-and-forget launches done, then the tail launches made. The exits
/// are let go: kernel grids among them point to the environment.
inline void enqueue_environment_end(graph_environment& env, const launch_target& target) {
  target.commands->enqueue_after(target.stream_id, target.priority, env.body_done, std::exchange(env.exits, {}));
  target.commands->enqueue_after(target.stream_id, target.priority, env.end, {env.body_done});
}

/// The first command of a launch: conditional handles flagged
/// cudaGraphCondAssignDefault are set back to their default.
inline std::shared_ptr<command> launch_start(const CUgraphExec_st& exec, int device) {
  std::vector<std::shared_ptr<conditional_handle>> reset;
  for (const auto& h : exec.handles)
    if (h->assign_default) reset.push_back(h);
  auto start = std::make_shared<host_task>("graph launch start", device, [reset] {
    for (const auto& h : reset) h->value.store(h->default_value, std::memory_order_relaxed);
  });
  // Numbered only for the trace, which names the launch's commands after it.
  if (trace::enabled) {
    static std::atomic<unsigned long long> launches{0};
    start->graph_launch = std::make_shared<const std::string>("graph launch " + std::to_string(++launches));
  }
  return start;
}

/// Puts one launch of `exec` into stream `s` of runtime `rt`. The launching
/// thread enqueues only the launch's first and last commands; the device's
/// enqueuing thread makes the nodes' commands between them (a graph launch
/// costs its caller less than launching its kernels one by one, as on a
/// GPU). Steps change only once the launches before have been expanded
/// (CUgraphExec_st::lock_steps).
inline void launch_graph(CUgraphExec_st& exec, CUstream_st& s, runtime& rt) {
  command_graph& commands = rt.commands();
  launch_target target{&commands, &rt, s.id, s.priority, (exec.flags & use_node_priority_flag) != 0, nullptr};
  // The stream's environment: launches as siblings of the graph's join it.
  auto end = std::make_shared<marker>("graph launch end");
  commands.adopt(*end);
  std::unique_lock lock(exec.launching);
  auto start = launch_start(exec, rt.ordinal());
  end->graph_launch = start->graph_launch;
  // Uploaded before its kernels can run: they may launch it again.
  exec.uploaded.store(true, std::memory_order_release);
  commands.enqueue(s, start, exec.latest_end());
  auto env = make_environment(exec, target, start, end);
  commands.enqueue(s, end, env->end);
  exec.set_latest_end(end);
  if (exec.expand_at_launch) {
    enqueue_launch_steps(exec, *env, target, start);
    lock.unlock();
    enqueue_environment_end(*env, target);
    return;
  }
  // Last, so that the enqueuing thread does not hold the lock of the
  // commands while the launching thread needs it.
  exec.expanding.fetch_add(1, std::memory_order_relaxed);
  commands.defer([&exec, env, target, start] {
    enqueue_launch_steps(exec, *env, target, start);
    // The steps are read; ending the environment may make tail launches.
    if (exec.expanding.fetch_sub(1, std::memory_order_acq_rel) == 1) exec.expanding.notify_all();
    enqueue_environment_end(*env, target);
  });
}

}  // namespace weft::detail
