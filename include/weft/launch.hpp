// weft::launch: the native spelling of `kernel<<<grid, block, shmem>>>(args)`.
//
//   weft::launch(blocks, threads, VecAdd, d_A, d_B, d_C, N);
//   weft::launch({grid, block, shared_bytes}, [] (float* x) { ... }, d_x);
//
// Like a CUDA launch it returns at once; the kernel runs on the SM workers
// after the work before it in its stream. Arguments are copied at launch (to
// the kernel's parameter types for a __global__ function). A bad
// configuration is rejected before anything runs, with the code CUDA 13
// returns (cudaErrorInvalidValue for every case measured on an H100)
// recorded as the last error; so is a stream handle that names no live
// stream of the current device (cudaErrorInvalidResourceHandle).
#pragma once

#include <concepts>
#include <cstddef>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/graphs/graph_types.hpp"
#include "weft/cuda/runtime/streams/default_stream.hpp"
#include "weft/cuda/vector_types.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/graphs/device_launch.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/graphs/stream_capture.hpp"
#include "weft/detail/runtime/caller_checks.hpp"
#include "weft/detail/runtime/kernel_registry.hpp"
#include "weft/detail/runtime/occupancy.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/scheduler/kernel_identity.hpp"
#include "weft/detail/scheduler/launch_dependence.hpp"
#include "weft/detail/streams/stream_registry.hpp"

namespace weft {

/// The <<<grid, block, dynamic_shared_bytes, stream>>> of a CUDA launch.
///
/// CUDA converts the <<<...>>> operands as function arguments, so an int
/// byte count or a floating-point block size is accepted there. Aggregate
/// initialisation would reject them as narrowing in `launch_config{...}`
/// (which is what weft-port writes), hence the constructors: one for
/// operands of any type convertible to dim3 and size_t, one for braced shapes
/// such as `launch_config{{16, 16}, 256}`, where no type can be deduced.
struct launch_config {
  dim3 grid;
  dim3 block;
  std::size_t dynamic_shared_bytes = 0;
  cudaStream_t stream = nullptr;

  constexpr launch_config() = default;

  template <class Grid, class Block, class Bytes = std::size_t>
  requires std::convertible_to<Grid, dim3> && std::convertible_to<Block, dim3> && std::is_arithmetic_v<Bytes>
  constexpr launch_config(Grid g, Block b, Bytes bytes = 0, cudaStream_t s = nullptr)
      : grid(dim3(g)), block(dim3(b)), dynamic_shared_bytes(static_cast<std::size_t>(bytes)), stream(s) {}

  constexpr launch_config(dim3 g, dim3 b, std::size_t bytes = 0, cudaStream_t s = nullptr)
      : grid(g), block(b), dynamic_shared_bytes(bytes), stream(s) {}
};

/// sm_90 launch limits (CUDA guide, "Technical Specifications per Compute Capability").
struct launch_limits {
  static constexpr unsigned max_threads_per_block = 1024;
  static constexpr dim3 max_block{1024, 1024, 64};
  static constexpr dim3 max_grid{0x7fffffffu, 65535, 65535};
};

namespace detail {

inline cudaError_t validate(const launch_config& c, std::size_t max_dynamic_shared) {
  auto within = [](dim3 d, dim3 max) {
    return d.x >= 1 && d.y >= 1 && d.z >= 1 && d.x <= max.x && d.y <= max.y && d.z <= max.z;
  };
  if (!within(c.block, launch_limits::max_block) || volume(c.block) > launch_limits::max_threads_per_block)
    return cudaErrorInvalidValue;
  if (!within(c.grid, launch_limits::max_grid)) return cudaErrorInvalidValue;
  if (c.dynamic_shared_bytes > max_dynamic_shared) return cudaErrorInvalidValue;
  return cudaSuccess;
}

// The copies a launch keeps: a __global__ function's own parameter types, so
// arguments convert as they do at a CUDA launch; otherwise the decayed
// argument types.
template <class Kernel, class... Args>
struct argument_tuple {
  using type = std::tuple<std::decay_t<Args>...>;
};
template <class... Params, class... Args>
struct argument_tuple<void (*)(Params...), Args...> : parameter_tuple<void (*)(Params...)> {
  static_assert(sizeof...(Params) == sizeof...(Args), "a kernel launch must pass one argument per kernel parameter");
};
template <auto Function, auto Body, class... Args>
struct argument_tuple<global_function<Function, Body>, Args...> : argument_tuple<decltype(Function), Args...> {};

}  // namespace detail

namespace detail {

/// What cudaLaunchCooperativeKernel and cudaLaunchKernelEx add to a launch.
struct launch_options {
  bool cooperative = false;           // all blocks resident at once, for grid.sync()
  dim3 cluster{0, 0, 0};              // blocks per cluster; 0: the kernel's __cluster_dims__, else none
  launch_dependence dependence = {};  // programmatic dependent launch, events, priority
  // The attributes CUDA takes for graph nodes, by ID, as given: what a
  // kernel node captured from this launch reads back.
  decltype(kernel_node_attributes::values) node_values{};
};

/// The cluster shape a launch runs with, or the code CUDA 13 refuses it with
/// (all measured on an H100: tests/differential/cluster_probe.expected): a
/// zero dimension, a grid that is not a multiple of it, a shape that differs
/// from the kernel's __cluster_dims__, or more than 8 blocks (16 once the
/// kernel allows non-portable sizes) are cudaErrorInvalidClusterSize. Any
/// other cluster runs, whatever the worker count: the SM pool adds the host
/// threads its blocks need to be resident together (scheduler/sm_pool.hpp).
inline cudaError_t cluster_shape(const launch_config& c, const launch_options& o, dim3 compiled, bool non_portable,
                                 dim3& cluster) {
  bool requested = o.cluster.x || o.cluster.y || o.cluster.z;
  bool fixed = compiled.x != 0;
  if (requested && fixed && (o.cluster.x != compiled.x || o.cluster.y != compiled.y || o.cluster.z != compiled.z))
    return cudaErrorInvalidClusterSize;
  cluster = requested ? o.cluster : fixed ? compiled : dim3(1, 1, 1);
  if (cluster.x == 0 || cluster.y == 0 || cluster.z == 0) return cudaErrorInvalidClusterSize;
  if (c.grid.x % cluster.x || c.grid.y % cluster.y || c.grid.z % cluster.z) return cudaErrorInvalidClusterSize;
  if (volume(cluster) > (non_portable ? 16u : 8u)) return cudaErrorInvalidClusterSize;
  return cudaSuccess;
}

/// A launch from a kernel (dynamic parallelism): a bad configuration is
/// cudaErrorInvalidConfiguration, as an H100 answers, recorded as the
/// calling CUDA thread's last error; the child runs as the stream it names
/// says (detail/graphs/device_launch.hpp).
template <class Kernel, class... Args>
cudaError_t launch_from_device(const launch_config& config, Kernel&& kernel, Args&&... args) {
  using kernel_type = std::decay_t<Kernel>;
  using arguments = typename argument_tuple<kernel_type, Args...>::type;
  auto& rt = runtime::get();
  kernel_type k(std::forward<Kernel>(kernel));
  const void* id = kernel_identity(k);
  kernel_attributes attributes = rt.attributes(id);
  if (validate(config, attributes.max_dynamic_shared_bytes)) return record_on_device(cudaErrorInvalidConfiguration);
  dim3 cluster;
  if (cudaError_t invalid = cluster_shape(config, {}, compiled_cluster_dims().find(id, dim3(0, 0, 0)),
                                          attributes.non_portable_cluster_size, cluster))
    return record_on_device(invalid);
  launch_shape shape{config.grid, config.block, config.dynamic_shared_bytes, rt.stack_bytes(), rt.ordinal(), cluster};
  return launch_child_grid(make_grid(shape, std::move(k), arguments(std::forward<Args>(args)...)), config.stream);
}

/// A launch's programmatic dependences as a capture records them (CUDA 13):
/// serialization as edges from the previous kernel's programmatic port,
/// the events as standing for the kernel node's ports, which a
/// cudaStreamWaitEvent in the capture turns into edges.
inline captured_launch_ports captured_ports(const launch_dependence& d) {
  captured_launch_ports ports;
  if (d.stream_serialization) ports.serialization = cudaGraphKernelNodePortProgrammatic;
  if (d.programmatic_event) ports.events.emplace_back(d.programmatic_event, cudaGraphKernelNodePortProgrammatic);
  if (d.launch_completion_event)
    ports.events.emplace_back(d.launch_completion_event, cudaGraphKernelNodePortLaunchCompletion);
  return ports;
}

template <class Kernel, class... Args>
cudaError_t launch_with(const launch_config& config, const launch_options& options, Kernel&& kernel, Args&&... args) {
  using kernel_type = std::decay_t<Kernel>;
  using arguments = typename argument_tuple<kernel_type, Args...>::type;
  if (running_block) return launch_from_device(config, std::forward<Kernel>(kernel), std::forward<Args>(args)...);
  if (cudaError_t e = check_caller(false)) return e;
  auto& rt = runtime::get();
  if (cudaError_t sticky = fault().code()) return record(sticky);
  kernel_type k(std::forward<Kernel>(kernel));
  const void* id = kernel_identity(k);
  kernel_attributes attributes = rt.attributes(id);
  if (cudaError_t invalid = validate(config, attributes.max_dynamic_shared_bytes)) return record(invalid);
  dim3 cluster;
  if (cudaError_t invalid = cluster_shape(config, options, compiled_cluster_dims().find(id, dim3(0, 0, 0)),
                                          attributes.non_portable_cluster_size, cluster))
    return record(invalid);
  // A cooperative grid must fit on an H100 at once, as the occupancy
  // calculator says, and its threads in the host's memory map; the SM pool
  // then gives each of its blocks a host thread.
  if (options.cooperative) {
    auto threads = volume(config.block);
    if (volume(config.grid) > max_cooperative_blocks(id, static_cast<int>(threads), config.dynamic_shared_bytes) ||
        !host_holds_resident(volume(config.grid), threads))
      return record(cudaErrorCooperativeLaunchTooLarge);
  }
  CUstream_st* stream = resolve_stream(config.stream);
  if (!stream || stream->device != rt.ordinal()) return record(cudaErrorInvalidResourceHandle);
  launch_shape shape{config.grid,  config.block, config.dynamic_shared_bytes, rt.stack_bytes(),
                     rt.ordinal(), cluster,      options.cooperative};
  // A capturing stream keeps the kernel and copies of its arguments as a
  // kernel node, which makes a fresh grid of them at each graph launch.
  if (auto captured = capture_into(
          *stream,
          [&] {
            static_assert(std::is_copy_constructible_v<kernel_type>,
                          "a captured kernel is copied for each graph launch");
            kernel_work work;
            work.func = id;
            work.grid = config.grid;
            work.block = config.block;
            work.shared_bytes = static_cast<unsigned>(config.dynamic_shared_bytes);
            work.cluster = cluster;
            work.arguments = std::make_shared<bound_launch<kernel_type, arguments>>(
                std::move(k), arguments(std::forward<Args>(args)...));
            work.attributes.values = options.node_values;
            work.attributes.cluster = options.cluster;
            work.attributes.cooperative = options.cooperative;
            work.attributes.priority = options.dependence.priority;
            return work;
          },
          captured_ports(options.dependence)))
    return *captured;
  enqueue_grid(rt.commands(), *stream, make_grid(shape, std::move(k), arguments(std::forward<Args>(args)...)),
               options.dependence);
  return cudaSuccess;
}

}  // namespace detail

// Stream 0 is the translation unit's default stream, so the launches are
// its mode's own symbols (cuda/runtime/default_stream.hpp).
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace per_thread_default_stream {
#else
inline namespace legacy_default_stream {
#endif

template <class Kernel, class... Args>
cudaError_t launch(const launch_config& config, Kernel&& kernel, Args&&... args) {
  launch_config explicit_config = config;
  explicit_config.stream = surface::explicit_stream(config.stream);
  return detail::launch_with(explicit_config, {}, std::forward<Kernel>(kernel), std::forward<Args>(args)...);
}

template <class Kernel, class... Args>
cudaError_t launch(dim3 grid, dim3 block, Kernel&& kernel, Args&&... args) {
  return launch(launch_config{grid, block}, std::forward<Kernel>(kernel), std::forward<Args>(args)...);
}

/// The same launch with the `__global__` function as a template argument:
/// `weft::launch<VecAdd>(blocks, threads, d_A, d_B, d_C, N)`. It behaves
/// exactly as `weft::launch(blocks, threads, VecAdd, ...)`, but the kernel
/// is known at compile time, so the executor calls it directly (and can
/// inline it) instead of through a pointer for every CUDA thread: the form
/// to use where per-thread cost matters (weft-port writes it for the
/// file's own kernels; docs/performance.md has the figures).
template <auto Kernel, class... Args>
cudaError_t launch(const launch_config& config, Args&&... args) {
  return launch(config, detail::global_function<Kernel>{}, std::forward<Args>(args)...);
}

template <auto Kernel, class... Args>
cudaError_t launch(dim3 grid, dim3 block, Args&&... args) {
  return launch(launch_config{grid, block}, detail::global_function<Kernel>{}, std::forward<Args>(args)...);
}

}  // namespace per_thread_default_stream or legacy_default_stream

}  // namespace weft
