// The state of each simulated device: its SM worker pool, memory registry,
// limits and kernel attributes. runtime::get() is the calling host thread's
// current device (cudaSetDevice), so that code written for one device keeps
// working unchanged. Each device has its own pool, created on its first
// launch, so a program that uses one device starts one pool.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "weft/detail/base/address_registry.hpp"
#include "weft/detail/base/environment.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/base/text_format.hpp"
#include "weft/detail/checks/race_check.hpp"
#include "weft/detail/commands/command_graph.hpp"
#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/runtime/allocation_registry.hpp"
#include "weft/detail/runtime/kernel_attributes.hpp"
#include "weft/detail/scheduler/sm_pool.hpp"

namespace weft::detail {

/// The environment variable that sets the number of SM workers.
inline constexpr const char* worker_count_variable = "WEFT_WORKERS";

inline unsigned default_worker_count() {
  if (auto n = bounded_integer_variable(worker_count_variable, 1, 4096)) return static_cast<unsigned>(*n);
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Set when the runtime first makes its devices (the first call that uses
/// one). The driver API (cuda/driver/) takes it for cuInit and a current
/// primary context, as CUDA's runtime initialises the driver.
inline std::atomic<bool>& runtime_initialised() {
  static std::atomic<bool> initialised{false};
  return initialised;
}

class runtime {
 public:
  /// sm_90 limits (CUDA guide, "Technical Specifications per Compute Capability").
  static constexpr std::size_t default_dynamic_shared_limit = 48 * 1024;
  static constexpr std::size_t max_dynamic_shared_optin = 227 * 1024;
  static constexpr std::size_t default_stack_bytes = 64 * 1024;
  static constexpr std::size_t min_stack_bytes = 16 * 1024;

  /// The calling host thread's current device.
  static runtime& get() { return get(current_device); }

  /// Device `d`, which must be in [0, device_count()).
  static runtime& get(int d) {
    static const device_set devices = [] {
      trace::open();  // first, so that the trace is written after the devices have drained
      device_set all;
      for (int i = 0; i < device_count(); ++i) all.devices.emplace_back(new runtime(i));
      runtime_initialised().store(true);
      describe_address_near_allocation = &describe_near_allocation;
      if constexpr (race_check_build) race_list_allocations = &allocations_for_race_check;
      return all;
    }();
    return *devices.devices[static_cast<std::size_t>(d)];
  }

  int ordinal() const { return device_; }

  /// For the race check (race_check.hpp): device `device`'s live
  /// allocations, to which a kernel's accesses are global memory.
  static race_ranges allocations_for_race_check(int device) { return get(device).memory().ranges(); }

  /// For a fault report (signal_fault.hpp): the allocation, on any device,
  /// that `address` falls in or within 1 MiB of, as "; 4 bytes past the end
  /// of the 4096-byte allocation at 0x... (cudaMalloc ...)", or nothing.
  [[gnu::cold]] static std::string describe_near_allocation(const void* address) {
    constexpr std::size_t reach = std::size_t{1} << 20;
    for (int d = 0; d < device_count(); ++d) {
      auto a = get(d).memory().nearest(address, reach);
      if (!a) continue;
      auto at = reinterpret_cast<std::uintptr_t>(address), base = reinterpret_cast<std::uintptr_t>(a->base);
      std::string text;
      if (at < base)
        append_format(text, "; %zu bytes before the start of", static_cast<std::size_t>(base - at));
      else if (at >= base + a->bytes)
        append_format(text, "; %zu bytes past the end of", static_cast<std::size_t>(at - base - a->bytes));
      else
        append_format(text, "; %zu bytes into", static_cast<std::size_t>(at - base));
      append_format(text, " the %zu-byte allocation at %p on device %d, made by %s", a->bytes, a->base, d,
                    allocation_call(*a));
      return text;
    }
    return {};
  }

  /// The order of the device's work: its streams and their commands.
  command_graph& commands() { return commands_; }

  /// Waits for all work enqueued on the device, by any host thread. A grid
  /// of one block that the device has to itself runs on the waiting thread,
  /// if no worker has begun it (sm_pool::take_lone_grid).
  void synchronize() {
    if (in_forked_child()) return;  // no worker would finish the work
    bool ran = true;
    while (ran && !commands_.idle()) ran = run_lone_grid(nullptr);
    commands_.wait_all();
  }

  /// Waits for `c`, a command of this device: a stream's last, an event's
  /// record, a synchronous copy. The grid of one block that `c` is, or
  /// directly follows, runs on the waiting thread under the same rule.
  void wait_for(const command& c) {
    if (in_forked_child()) return;
    bool ran = true;
    while (ran && !c.done()) ran = run_lone_grid(&c);
    command_graph::wait(c);
  }

  unsigned worker_count() {
    std::lock_guard lock(pool_mutex_);
    return worker_count_;
  }

  /// Grids that have started finish on the old workers; later ones start
  /// on the new.
  void set_worker_count(unsigned count) {
    std::unique_ptr<sm_pool> old;
    {
      std::lock_guard lock(pool_mutex_);
      old = std::move(pool_);
      worker_count_ = std::max(1u, count);
    }
    // Its workers may start the next grids, so not under the lock. A forked
    // child has none of them to stop.
    if (in_forked_child())
      leave_alone_in_forked_child(old.release());
    else
      old.reset();
  }

  std::size_t stack_bytes() const { return stack_bytes_.load(std::memory_order_relaxed); }

  /// Fibers need room for the runtime's own frames, so a request below
  /// min_stack_bytes gets min_stack_bytes; sizes are rounded to pages.
  void set_stack_bytes(std::size_t bytes) {
    stack_bytes_.store(round_up(std::max(bytes, min_stack_bytes), page_size()), std::memory_order_relaxed);
  }

  /// Asked at every launch; a program that sets no attribute pays no lock.
  kernel_attributes attributes(const void* kernel) {
    if (!any_attributes_.load(std::memory_order_acquire)) return {};
    std::lock_guard lock(attributes_mutex_);
    auto it = attributes_.find(kernel);
    return it == attributes_.end() ? kernel_attributes{} : it->second;
  }

  void set_attributes(const void* kernel, kernel_attributes a) {
    std::lock_guard lock(attributes_mutex_);
    attributes_[kernel] = a;
    any_attributes_.store(true, std::memory_order_release);
  }

  /// Changes one of a kernel's attributes, keeping the others.
  template <class Change>
  void update_attributes(const void* kernel, Change change) {
    std::lock_guard lock(attributes_mutex_);
    auto [it, added] = attributes_.try_emplace(kernel);
    change(it->second);
    any_attributes_.store(true, std::memory_order_release);
  }

  allocation_registry& memory() { return memory_; }

  /// cudaSetDeviceFlags' flags, kept and reported back.
  std::atomic<unsigned> flags{0};
  /// Bit p: peer access to device p is enabled from this one.
  std::atomic<std::uint64_t> peers{0};

  /// cudaDeviceReset: waits for the device, frees its memory, forgets faults
  /// and settings.
  void reset() {
    synchronize();
    memory_.release_all();
    fault(device_).clear();
    stack_bytes_ = default_stack_bytes;
    flags = 0;
    peers = 0;
    std::lock_guard lock(attributes_mutex_);
    attributes_.clear();
  }

 private:
  // A forked child's exit leaves the devices as they are: destroying one
  // waits for its work and joins its threads, which the child does not have,
  // and may take locks that those threads held at the fork.
  struct device_set {
    std::vector<std::unique_ptr<runtime>> devices;
    device_set() = default;
    device_set(device_set&&) = default;
    ~device_set() {
      if (in_forked_child())
        for (auto& d : devices) leave_alone_in_forked_child(d.release());
    }
  };

  // weft keeps an allocation's kind, not the call that made it.
  static const char* allocation_call(const allocation_info& a) {
    if (a.flags & allocation_registry::externally_mapped) return "cuMemMap or a graph's memory node";
    if (a.flags & allocation_registry::from_pool) return "cudaMallocAsync or cudaMallocFromPoolAsync";
    switch (a.kind) {
      case memory_kind::host:
        return "cudaMallocHost or cudaHostAlloc";
      case memory_kind::registered:
        return "the program (registered with cudaHostRegister)";
      case memory_kind::managed:
        return "cudaMallocManaged";
      default:
        return "cudaMalloc, cudaMallocPitch or cudaMalloc3D";
    }
  }

  // The fault record must outlive the pool, whose workers may raise a fault
  // while the pool drains at exit.
  explicit runtime(int device)
      : device_(device), commands_(device, [this](std::shared_ptr<command> grid) { submit(std::move(grid)); }) {
    fault(device);
  }

  // Runs on the calling host thread the grid take_lone_grid gives it, if
  // any; false if none. Not from a kernel or a callback, which must not run
  // another block.
  bool run_lone_grid(const command* awaited) {
    if (running_block || running_stackless_block || in_host_function) return false;
    std::shared_ptr<grid_job> lone;
    sm_pool* pool = nullptr;  // waits for caller_done before it is destroyed
    {
      std::lock_guard lock(pool_mutex_);
      if (pool_) lone = pool_->take_lone_grid(awaited);
      pool = pool_.get();
    }
    if (!lone) return false;
    sm_pool::run_on_caller(*lone);
    pool->caller_done();
    return true;
  }

  void submit(std::shared_ptr<command> grid) {
    std::lock_guard lock(pool_mutex_);
    if (!pool_) pool_ = std::make_unique<sm_pool>(worker_count_);
    pool_->submit(std::static_pointer_cast<grid_job>(std::move(grid)));
  }

  int device_;
  allocation_registry memory_;  // destroyed after the work has drained
  std::mutex pool_mutex_;
  unsigned worker_count_ = default_worker_count();
  std::unique_ptr<sm_pool> pool_;
  command_graph commands_;  // destroyed first: it waits for all work
  std::atomic<std::size_t> stack_bytes_{default_stack_bytes};
  std::mutex attributes_mutex_;
  std::map<const void*, kernel_attributes> attributes_;
  std::atomic<bool> any_attributes_{false};  // attributes_ has ever had an entry
};

}  // namespace weft::detail
