// Conditional nodes' model (CUDA 13, cudaGraphNodeTypeConditional): a
// handle holds the value that decides, when the graph runs, whether (IF),
// how often (WHILE) or which (SWITCH) of the node's body graphs run. Kernels
// set it with cudaGraphSetConditional; a handle created with
// cudaGraphCondAssignDefault is reset to its default at each launch.
// Running them is graph_exec.hpp's.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

struct CUgraph_st;

namespace weft::detail {

/// cudaGraphConditionalHandle is this cell's address, so that a kernel
/// reaches the value with no lookup. The graph it was created for owns it,
/// and so does every executable graph using it: a kernel may still set it
/// after the graph is destroyed.
struct conditional_handle {
  std::atomic<unsigned> value{0};
  unsigned default_value = 0;
  bool assign_default = false;
  // The graph cudaGraphConditionalHandleCreate named: conditional nodes may
  // use it there and in the graphs nested in it.
  const CUgraph_st* graph = nullptr;
};

/// The handles that exist, by the number cudaGraphConditionalHandle gives
/// the program, so that a made-up or stale one is refused, not followed.
class conditional_handles {
 public:
  static conditional_handles& get() {
    static conditional_handles all;
    return all;
  }

  std::shared_ptr<conditional_handle> make(const CUgraph_st* graph, unsigned default_value, bool assign_default) {
    auto h = std::make_shared<conditional_handle>();
    h->value.store(default_value, std::memory_order_relaxed);
    h->default_value = default_value;
    h->assign_default = assign_default;
    h->graph = graph;
    std::lock_guard lock(mutex_);
    std::erase_if(live_, [](const auto& entry) { return entry.second.expired(); });
    live_[number(*h)] = h;
    return h;
  }

  std::shared_ptr<conditional_handle> find(unsigned long long handle) {
    std::lock_guard lock(mutex_);
    auto found = live_.find(handle);
    return found == live_.end() ? nullptr : found->second.lock();
  }

  static unsigned long long number(const conditional_handle& h) { return reinterpret_cast<std::uintptr_t>(&h); }

 private:
  std::mutex mutex_;
  std::unordered_map<unsigned long long, std::weak_ptr<conditional_handle>> live_;
};

enum class conditional_kind { if_else, while_loop, switch_of };

/// A conditional node: its handle and its bodies, which the node owns
/// (cudaConditionalNodeParams::phGraph_out lends them to the program).
struct conditional_work {
  std::shared_ptr<conditional_handle> handle;
  conditional_kind kind = conditional_kind::if_else;
  std::vector<std::shared_ptr<CUgraph_st>> bodies;
  // The same graphs, as the array phGraph_out points to for the node's life.
  std::shared_ptr<std::vector<CUgraph_st*>> body_handles;
};

/// Which body runs for `value`, or -1 for none: IF runs body 0 when the
/// value is nonzero and body 1 (the ELSE, if there is one) when it is zero;
/// WHILE runs body 0 while nonzero; SWITCH runs body `value` if there is one.
inline int chosen_body(conditional_kind kind, std::size_t bodies, unsigned value) {
  switch (kind) {
    case conditional_kind::if_else:
      if (value != 0) return 0;
      return bodies > 1 ? 1 : -1;
    case conditional_kind::while_loop:
      return value != 0 ? 0 : -1;
    case conditional_kind::switch_of:
      return value < bodies ? static_cast<int>(value) : -1;
  }
  return -1;
}

}  // namespace weft::detail
