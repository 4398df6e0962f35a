// Graph memory (CUDA guide, "Graph Memory Nodes"): each device's pool of
// physical memory for the allocations of memory allocation nodes.
//
// An allocation node reserves an address range when it is added, and the
// range stays reserved, so the node's address stays the same, for as long as
// anything refers to the allocation (its graph, an executable graph, or the
// allocation being live). When the node runs, physical memory is mapped at
// that address; when the allocation is freed (a free node runs, cudaFree or
// cudaFreeAsync, or the next launch of an executable graph instantiated with
// cudaGraphInstantiateFlagAutoFreeOnLaunch), it is unmapped and goes back to
// the pool, and the next allocation of any graph on the device may map it
// again. So memory is reused across graphs, as on a GPU, and the pool keeps
// what it has reserved until cudaDeviceGraphMemTrim gives back the blocks
// no allocation holds.
//
// Within a graph, an allocation node ordered after the free node of an
// allocation of the same graph may take that allocation's address (the
// guide's "address reuse within a graph"): their lifetimes cannot overlap in
// any launch. Such an allocation keeps the one it took the address from
// alive, whose reservation the range stays, and the newest allocation at an
// address is the one the address names (to a free node, cudaFree).
//
// The host's virtual memory does it, as for the driver API's cuMemMap
// (cuda/driver/virtual_memory_api.hpp): a block of physical memory is an
// anonymous memory file, a reservation an inaccessible range of address
// space. While mapped, an allocation is device memory to the rest of weft
// (copies, sets, kernels, pointer attributes); once freed, the checks
// refuse it, as they refuse memory cudaFree has freed.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/executor/memory_poisoning.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/memory/memory_lookup.hpp"
#include "weft/detail/runtime/allocation_registry.hpp"
#include "weft/detail/runtime/runtime.hpp"

namespace weft::detail {

class graph_memory;

/// Physical memory of the pool: an anonymous memory file.
struct graph_memory_block {
  int fd = -1;
  std::size_t bytes = 0;
  bool in_use = false;
  // The allocation that a free node gave it back from, while that
  // allocation's executable graph lives: an H100 still counts such memory
  // as used by graphs (tests/differential/graph_probe.expected), though any
  // allocation may take it.
  graph_allocation* cached_by = nullptr;
};

/// The allocation of one memory allocation node. Its range is reserved for
/// the allocation's life; `block` is the physical memory mapped there while
/// it is allocated. The flags say where it may be freed; `live` is the
/// program's view (launched and not freed yet), which decides whether a
/// relaunch is allowed, while the mapping follows the stream order.
struct graph_allocation {
  int device = 0;
  void* address = nullptr;
  std::size_t bytes = 0;  // as asked for
  std::size_t span = 0;   // as reserved and mapped: whole blocks

  // Guarded by graph_allocation_state(): the serial of the graph whose node
  // made it, whether that graph has a free node for it, whether another
  // graph has, and whether it is allocated in the program's view (a launch
  // left it allocated and nothing freed it since).
  std::uint64_t owner = 0;
  // Once its graph is instantiated, the allocation's fate in that graph is
  // settled: an H100 refuses a free node added to it afterwards.
  bool owner_instantiated = false;
  bool freed_in_owner = false;
  bool freed_in_other = false;
  bool live = false;

  // The allocation whose address range this one took over (address reuse
  // within a graph), kept alive so that the range stays reserved; null for
  // an allocation that reserved its own.
  std::shared_ptr<graph_allocation> reused_from;

  graph_allocation() = default;
  graph_allocation(const graph_allocation&) = delete;
  graph_allocation& operator=(const graph_allocation&) = delete;
  ~graph_allocation();

 private:
  friend class graph_memory;
  graph_memory_block* block = nullptr;
  graph_memory_block* cached = nullptr;  // see graph_memory_block::cached_by
};

class graph_memory {
 public:
  /// Graph allocations are whole 32 MiB blocks: an H100 counts a launch of a
  /// 1 MiB allocation as 32 MiB used and reserved, of 33 MiB as 64
  /// (tests/differential/graph_probe.expected).
  static constexpr std::size_t granularity = std::size_t{32} << 20;

  /// The pool of `device` (a valid device), kept for the process's life.
  static graph_memory& of(int device) {
    static std::mutex mutex;
    // Never destroyed, and a deque never moves its elements: allocations
    // that outlive main (a graph destroyed late) still find their pool.
    static auto* pools = new std::deque<graph_memory>;
    std::lock_guard lock(mutex);
    while (pools->size() < static_cast<std::size_t>(device_count()))
      pools->emplace_back(static_cast<int>(pools->size()));
    return (*pools)[static_cast<std::size_t>(device)];
  }

  explicit graph_memory(int device) : device_(device) {}
  graph_memory(const graph_memory&) = delete;
  graph_memory& operator=(const graph_memory&) = delete;

  /// A new allocation's address range, or null when the address space is
  /// exhausted. Nothing is mapped there yet.
  std::shared_ptr<graph_allocation> reserve(std::size_t bytes) {
    if (bytes > SIZE_MAX - granularity) return nullptr;
    std::size_t span = (bytes + granularity - 1) / granularity * granularity;
    std::size_t whole = span + granularity;
    void* p = ::mmap(nullptr, whole, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    auto start = reinterpret_cast<std::uintptr_t>(p);
    auto aligned = (start + granularity - 1) / granularity * granularity;
    if (aligned > start) ::munmap(p, aligned - start);
    if (start + whole > aligned + span)
      ::munmap(reinterpret_cast<void*>(aligned + span), start + whole - aligned - span);
    auto a = std::make_shared<graph_allocation>();
    a->device = device_;
    a->address = reinterpret_cast<void*>(aligned);
    a->bytes = bytes;
    a->span = span;
    std::lock_guard lock(mutex_);
    reserved_ranges_[aligned] = a;
    return a;
  }

  /// A new allocation at the address of `previous`, an allocation of the
  /// same graph whose free node is ordered before the new allocation node
  /// (reusable_allocation): it takes over the range, which is large enough.
  std::shared_ptr<graph_allocation> reserve_reusing(const std::shared_ptr<graph_allocation>& previous,
                                                    std::size_t bytes) {
    auto a = std::make_shared<graph_allocation>();
    a->device = device_;
    a->address = previous->address;
    a->bytes = bytes;
    a->span = previous->span;
    a->reused_from = previous;
    std::lock_guard lock(mutex_);
    reserved_ranges_[reinterpret_cast<std::uintptr_t>(a->address)] = a;
    return a;
  }

  /// The newest allocation at the start of the range that holds `p`, if any.
  std::shared_ptr<graph_allocation> newest_at(const void* p) {
    auto at = reinterpret_cast<std::uintptr_t>(p);
    std::lock_guard lock(mutex_);
    auto it = reserved_ranges_.upper_bound(at);
    if (it == reserved_ranges_.begin()) return nullptr;
    return std::prev(it)->second.lock();
  }

  /// The allocation whose range holds all of [p, p + bytes), if any: of the
  /// allocations that had the range, the newest that is large enough.
  std::shared_ptr<graph_allocation> find(const void* p, std::size_t bytes = 1) {
    auto at = reinterpret_cast<std::uintptr_t>(p);
    // Dropped, if it must be, outside the lock, which its release takes.
    for (auto a = newest_at(p); a; a = a->reused_from) {
      auto start = reinterpret_cast<std::uintptr_t>(a->address);
      if (at - start < a->bytes && bytes <= a->bytes - (at - start)) return a;
    }
    return nullptr;
  }

  /// Maps physical memory at the allocation's address: a block the pool
  /// holds unused if one is large enough, else a new one. An allocation
  /// still mapped (an AutoFreeOnLaunch relaunch: freed and allocated again
  /// at once) keeps its memory. False when the host is out of memory.
  bool map(const std::shared_ptr<graph_allocation>& allocation) {
    graph_allocation& a = *allocation;
    std::shared_ptr<graph_allocation> evicted;  // released after the lock
    std::lock_guard lock(mutex_);
    if (a.block) return true;
    // Another allocation at this address still mapped was freed by this
    // launch of an AutoFreeOnLaunch graph, which frees without unmapping.
    for (auto it = mapped_.begin(); it != mapped_.end(); ++it)
      if (it->first->address == a.address) {
        unmap_locked(*it->first);
        evicted = std::move(it->second);
        mapped_.erase(it);
        break;
      }
    graph_memory_block* chosen = a.cached && a.cached->cached_by == &a ? a.cached : nullptr;
    if (!chosen)
      for (auto& b : blocks_)
        if (!b->in_use && b->bytes >= a.span && (!chosen || b->bytes < chosen->bytes)) chosen = b.get();
    if (chosen && chosen->cached_by) uncache(*chosen);
    if (!chosen) {
      int fd = static_cast<int>(::memfd_create("weft-graph-memory", MFD_CLOEXEC));
      if (fd < 0) return false;
      if (::ftruncate(fd, static_cast<off_t>(a.span)) != 0) {
        ::close(fd);
        return false;
      }
      blocks_.push_back(std::make_unique<graph_memory_block>(graph_memory_block{fd, a.span, false}));
      chosen = blocks_.back().get();
      reserved_ += a.span;
      reserved_high_ = std::max(reserved_high_, reserved_);
    }
    if (::mmap(a.address, a.span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, chosen->fd, 0) == MAP_FAILED)
      return false;
    chosen->in_use = true;
    a.block = chosen;
    count_use();
    runtime::get(device_).memory().add(a.address, a.bytes, memory_kind::device, allocation_registry::externally_mapped);
    // The block's pages past the bytes asked for are mapped, but a GPU
    // faults there: poisoned for AddressSanitizer's memory check.
    poison_memory(static_cast<std::byte*>(a.address) + a.bytes, a.span - a.bytes);
    // Allocated memory stays so until freed, even once no graph refers to it.
    mapped_[&a] = allocation;
    return true;
  }

  /// Unmaps the allocation (if mapped); its block goes back to the pool. A
  /// free node's block stays counted as used until the allocation's
  /// executable graph is destroyed (forget_cached) or another allocation
  /// takes it.
  void unmap(graph_allocation& a, bool by_free_node = false) {
    std::shared_ptr<graph_allocation> last;  // released after the lock
    std::lock_guard lock(mutex_);
    if (!a.block) return;
    graph_memory_block* block = a.block;
    unmap_locked(a);
    if (by_free_node) {
      if (a.cached && a.cached != block && a.cached->cached_by == &a) a.cached->cached_by = nullptr;
      block->cached_by = &a;
      a.cached = block;
    }
    count_use();
    auto it = mapped_.find(&a);
    last = std::move(it->second);
    mapped_.erase(it);
  }

  /// The allocation's executable graph is gone: a block it freed is no
  /// longer counted as used.
  void forget_cached(graph_allocation& a) {
    std::lock_guard lock(mutex_);
    if (a.cached && a.cached->cached_by == &a) uncache(*a.cached);
    a.cached = nullptr;
    count_use();
  }

  /// cudaDeviceGraphMemTrim: the blocks no allocation holds go back to the
  /// system (those a free node left counted as used too: no graph runs them).
  void trim() {
    std::lock_guard lock(mutex_);
    std::erase_if(blocks_, [&](const std::unique_ptr<graph_memory_block>& b) {
      if (b->in_use) return false;
      if (b->cached_by) uncache(*b);
      ::close(b->fd);
      reserved_ -= b->bytes;
      return true;
    });
    count_use();
  }

  /// cudaGraphMemAttr*: bytes in use by allocations, and held by the pool.
  struct usage {
    std::uint64_t used, used_high, reserved, reserved_high;
  };
  usage read() {
    std::lock_guard lock(mutex_);
    return {used_, used_high_, reserved_, reserved_high_};
  }
  /// A high watermark resets to what is in use (held) now.
  void reset_used_high() {
    std::lock_guard lock(mutex_);
    used_high_ = used_;
  }
  void reset_reserved_high() {
    std::lock_guard lock(mutex_);
    reserved_high_ = reserved_;
  }

 private:
  friend struct graph_allocation;

  void unmap_locked(graph_allocation& a) {
    if (!a.block) return;
    runtime::get(device_).memory().forget(a.address);
    unpoison_memory(a.address, a.span);
    ::mmap(a.address, a.span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    a.block->in_use = false;
    a.block = nullptr;
  }

  void uncache(graph_memory_block& b) {
    b.cached_by->cached = nullptr;
    b.cached_by = nullptr;
  }

  /// Used memory: the blocks allocations hold, and those free nodes left
  /// counted (graph_memory_block::cached_by).
  void count_use() {
    used_ = 0;
    for (const auto& b : blocks_)
      if (b->in_use || b->cached_by) used_ += b->bytes;
    used_high_ = std::max(used_high_, used_);
  }

  /// The allocation is gone: nothing refers to it any more (so it is not
  /// mapped: the pool holds the mapped ones).
  void release(graph_allocation& a) {
    std::lock_guard lock(mutex_);
    if (a.cached && a.cached->cached_by == &a) uncache(*a.cached);
    count_use();
    auto start = reinterpret_cast<std::uintptr_t>(a.address);
    // The newest at its address (a later one would hold it): the range goes
    // back to the allocation it took it from, or to the system.
    if (a.reused_from) {
      reserved_ranges_[start] = a.reused_from;
      return;
    }
    ::munmap(a.address, a.span);
    reserved_ranges_.erase(start);
  }

  int device_;
  std::mutex mutex_;
  std::map<std::uintptr_t, std::weak_ptr<graph_allocation>> reserved_ranges_;
  std::vector<std::unique_ptr<graph_memory_block>> blocks_;
  std::unordered_map<graph_allocation*, std::shared_ptr<graph_allocation>> mapped_;
  std::uint64_t used_ = 0, used_high_ = 0, reserved_ = 0, reserved_high_ = 0;
};

inline graph_allocation::~graph_allocation() {
  if (address) graph_memory::of(device).release(*this);
}

/// The graph allocation, of any device, whose range holds [p, p + bytes).
inline std::shared_ptr<graph_allocation> find_graph_allocation(const void* p, std::size_t bytes = 1) {
  for (int d = 0; d < device_count(); ++d)
    if (auto a = graph_memory::of(d).find(p, bytes)) return a;
  return nullptr;
}

/// Guards every graph allocation's flags.
inline std::mutex& graph_allocation_state() {
  static std::mutex state;
  return state;
}

/// The graph allocation that starts at `p`, if one does.
inline std::shared_ptr<graph_allocation> graph_allocation_at(const void* p) {
  auto a = find_graph_allocation(p);
  return a && a->address == p ? a : nullptr;
}

/// cudaFree or cudaFreeAsync of a graph allocation, in the program's view
/// (the caller unmaps it, at once or in stream order): cudaErrorInvalidValue
/// if it is not allocated now, or if its own graph frees it, as in CUDA.
inline cudaError_t free_outside_graphs(graph_allocation& a) {
  std::lock_guard lock(graph_allocation_state());
  if (a.freed_in_owner || !a.live) return cudaErrorInvalidValue;
  a.live = false;
  return cudaSuccess;
}

/// A free node for `a` in graph `g`, by CUDA 13's rules, or
/// cudaErrorInvalidValue: a graph frees an allocation once, and an
/// allocation freed in its own graph is freed in no other, nor the reverse.
inline cudaError_t claim_free(const CUgraph_st& g, const std::shared_ptr<graph_allocation>& a) {
  for (const auto& n : g.nodes)
    if (const auto* f = std::get_if<free_work>(&n->work))
      if (f->allocation == a) return cudaErrorInvalidValue;
  std::lock_guard lock(graph_allocation_state());
  bool own = a->owner == g.serial;
  if (a->freed_in_owner || (own && (a->freed_in_other || a->owner_instantiated))) return cudaErrorInvalidValue;
  (own ? a->freed_in_owner : a->freed_in_other) = true;
  return cudaSuccess;
}

/// Marks the allocations of `g`'s allocation nodes (and of graphs it embeds)
/// as instantiated: their graph can no longer take free nodes for them.
inline void mark_instantiated(const CUgraph_st& g) {
  for (const auto& n : g.nodes) {
    if (const auto* a = std::get_if<alloc_work>(&n->work)) {
      std::lock_guard lock(graph_allocation_state());
      a->allocation->owner_instantiated = true;
    } else if (const auto* child = std::get_if<child_work>(&n->work)) {
      mark_instantiated(*child->graph);
    }
  }
}

/// The allocation whose address a new allocation node of `g` on `device`,
/// after `dependencies`, may take (CUDA guide, "Graph Memory Nodes", address
/// reuse within a graph), or null: one made by `g` and freed by a free node
/// of `g` that the new node comes after, still the newest at its address (an
/// address taken once is the taker's), on the same device, its range large
/// enough; of those, the smallest range (the first found of equal ones).
/// Edges of a graph with memory nodes cannot be removed, so the order that
/// allows it stays. Free nodes inside child graphs are not looked into.
inline std::shared_ptr<graph_allocation> reusable_allocation(const CUgraph_st& g,
                                                             std::span<CUgraphNode_st* const> dependencies, int device,
                                                             std::size_t bytes) {
  std::shared_ptr<graph_allocation> best;
  std::vector<const CUgraphNode_st*> to_visit(dependencies.begin(), dependencies.end());
  std::unordered_set<const CUgraphNode_st*> seen(to_visit.begin(), to_visit.end());
  while (!to_visit.empty()) {
    const CUgraphNode_st* n = to_visit.back();
    to_visit.pop_back();
    for (CUgraphNode_st* d : n->dependencies)
      if (seen.insert(d).second) to_visit.push_back(d);
    const auto* f = std::get_if<free_work>(&n->work);
    if (!f || f->allocation->device != device || f->allocation->span < bytes) continue;
    {
      std::lock_guard lock(graph_allocation_state());
      if (f->allocation->owner != g.serial || !f->allocation->freed_in_owner) continue;
    }
    if (graph_memory::of(device).newest_at(f->address) != f->allocation) continue;
    if (!best || f->allocation->span < best->span) best = f->allocation;
  }
  return best;
}

/// Device memory, or the memory of an allocation node (mapped only while
/// its graph runs): what a graph node may name when it is added.
inline bool is_device_or_graph_range(const void* p, std::size_t bytes) {
  return is_device_range(p, bytes) || find_graph_allocation(p, bytes) != nullptr;
}

/// Device memory, or the memory of an allocation node that is allocated in
/// the program's view (its graph launched, not freed since), mapped or not
/// yet: what a stream's copy or set may name at its call. An H200 refuses
/// one that names the memory of a graph never launched, or freed, with
/// cudaErrorInvalidValue at the call (tests/differential/graph_probe.expected).
inline bool is_device_or_allocated_graph_range(const void* p, std::size_t bytes) {
  if (is_device_range(p, bytes)) return true;
  auto a = find_graph_allocation(p, bytes);
  if (!a) return false;
  std::lock_guard lock(graph_allocation_state());
  return a->live;
}

/// Whether the graph, or a graph it embeds, has memory allocation or free
/// nodes, which restrict what may be done with it (no cloning, deleting
/// nodes or edges, embedding by copy; one executable graph at a time).
inline bool has_memory_nodes(const CUgraph_st& g) {
  for (const auto& n : g.nodes) {
    if (std::holds_alternative<alloc_work>(n->work) || std::holds_alternative<free_work>(n->work)) return true;
    if (const auto* child = std::get_if<child_work>(&n->work))
      if (has_memory_nodes(*child->graph)) return true;
  }
  return false;
}

}  // namespace weft::detail
