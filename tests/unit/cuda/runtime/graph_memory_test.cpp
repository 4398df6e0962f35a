// Memory nodes and the graph memory pool (CUDA guide, "Graph Memory
// Nodes"): an allocation node's address is fixed for the graph's life and
// its memory exists from the node until it is freed (by a free node, by
// cudaFree / cudaFreeAsync, by another graph's free node, or by the next
// launch with AutoFreeOnLaunch); a launch that would allocate what is still
// allocated is refused; freed memory stays in the device's pool, is reused
// by any graph, and goes back at cudaDeviceGraphMemTrim; the attributes
// count it; an allocation node ordered after a free node of its graph may
// take the freed address. Every refusal's code is checked.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "error_checks.hpp"
#include "graph_building.hpp"
#include "stream_gates.hpp"

namespace {

__global__ void fill_n_with(int* data, int value, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) data[i] = value + i;
}

const bool memory_kernels_registered = weft::register_kernel<&fill_n_with>();

constexpr std::uint64_t block = std::uint64_t{32} << 20;  // the pool's granularity, as on an H100

cudaMemAllocNodeParams device_allocation(std::size_t bytes) {
  cudaMemAllocNodeParams p{};
  p.poolProps.allocType = cudaMemAllocationTypePinned;
  p.poolProps.location.type = cudaMemLocationTypeDevice;
  p.poolProps.location.id = 0;
  p.bytesize = bytes;
  return p;
}

std::uint64_t graph_memory_attribute(cudaGraphMemAttributeType attr) {
  std::uint64_t value = 0;
  REQUIRE(cudaDeviceGetGraphMemAttribute(0, attr, &value) == cudaSuccess);
  return value;
}

// Starts from an empty pool with its watermarks reset.
void fresh_pool() {
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(cudaDeviceGraphMemTrim(0) == cudaSuccess);
  std::uint64_t zero = 0;
  REQUIRE(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero) == cudaSuccess);
  REQUIRE(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero) == cudaSuccess);
  REQUIRE(graph_memory_attribute(cudaGraphMemAttrReservedMemCurrent) == 0);
}

// alloc -> fill kernel -> copy to `out` -> (free, if asked), in `g`; returns the address.
int* build(cudaGraph_t g, int n, int value, int* out, bool free_in_graph, cudaGraphNode_t* alloc_node = nullptr) {
  cudaMemAllocNodeParams p = device_allocation(n * sizeof(int));
  cudaGraphNode_t alloc = nullptr, kernel = nullptr, copy = nullptr, release = nullptr;
  REQUIRE(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &p) == cudaSuccess);
  int* d = static_cast<int*>(p.dptr);
  REQUIRE(d != nullptr);
  void* args[] = {&d, &value, &n};
  cudaKernelNodeParams k{reinterpret_cast<void*>(&fill_n_with), dim3((n + 63) / 64), dim3(64), 0, args, nullptr};
  REQUIRE(cudaGraphAddKernelNode(&kernel, g, &alloc, 1, &k) == cudaSuccess);
  REQUIRE(cudaGraphAddMemcpyNode1D(&copy, g, &kernel, 1, out, d, n * sizeof(int), cudaMemcpyDeviceToHost) ==
          cudaSuccess);
  if (free_in_graph) REQUIRE(cudaGraphAddMemFreeNode(&release, g, &copy, 1, d) == cudaSuccess);
  if (alloc_node) *alloc_node = alloc;
  return d;
}

// CUDA's `cudaGraphNodeParams p = {type};`, without -Wextra's warning
// about the fields it leaves zero.
}  // namespace

TEST_CASE("alloc -> kernel -> copy -> free in one graph, launched many times at one address") {
  REQUIRE(memory_kernels_registered);
  fresh_pool();
  constexpr int n = 1000;
  std::vector<int> out(n, -1);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t alloc = nullptr;
  int* d = build(g, n, 7, out.data(), true, &alloc);

  cudaMemAllocNodeParams read{};
  REQUIRE(cudaGraphMemAllocNodeGetParams(alloc, &read) == cudaSuccess);
  CHECK(read.dptr == d);
  CHECK(read.bytesize == n * sizeof(int));
  CHECK(read.poolProps.location.type == cudaMemLocationTypeDevice);
  CHECK(read.accessDescCount == 0);
  std::vector<cudaGraphNode_t> nodes(4);
  std::size_t count = 4;
  REQUIRE(cudaGraphGetNodes(g, nodes.data(), &count) == cudaSuccess);
  void* freed = nullptr;
  REQUIRE(cudaGraphMemFreeNodeGetParams(nodes[3], &freed) == cudaSuccess);
  CHECK(freed == d);
  cudaGraphNodeType type{};
  REQUIRE(cudaGraphNodeGetType(nodes[0], &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeMemAlloc);
  REQUIRE(cudaGraphNodeGetType(nodes[3], &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeMemFree);

  // Before any launch the memory does not exist: no copy may use it.
  int h = 0;
  check_failed_with(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost), cudaErrorInvalidValue);

  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  for (int launch = 0; launch < 10; ++launch) {
    std::fill(out.begin(), out.end(), -1);
    REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    CHECK(out[0] == 7);
    CHECK(out[n - 1] == 7 + n - 1);
  }
  // Freed in the graph: an H100 still counts the block as used by graphs
  // while the executable graph lives (graph_probe.expected); the pool holds it.
  CHECK(graph_memory_attribute(cudaGraphMemAttrUsedMemCurrent) == block);
  CHECK(graph_memory_attribute(cudaGraphMemAttrUsedMemHigh) == block);
  CHECK(graph_memory_attribute(cudaGraphMemAttrReservedMemCurrent) == block);
  CHECK(graph_memory_attribute(cudaGraphMemAttrReservedMemHigh) == block);
  check_failed_with(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  // Its own graph frees it: cudaFree may not.
  check_failed_with(cudaFree(d), cudaErrorInvalidValue);

  REQUIRE(cudaDeviceGraphMemTrim(0) == cudaSuccess);
  CHECK(graph_memory_attribute(cudaGraphMemAttrReservedMemCurrent) == 0);
  CHECK(graph_memory_attribute(cudaGraphMemAttrUsedMemCurrent) == 0);
  CHECK(graph_memory_attribute(cudaGraphMemAttrReservedMemHigh) == block);
  std::uint64_t zero = 0;
  REQUIRE(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero) == cudaSuccess);
  REQUIRE(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero) == cudaSuccess);
  CHECK(graph_memory_attribute(cudaGraphMemAttrReservedMemHigh) == 0);
  CHECK(graph_memory_attribute(cudaGraphMemAttrUsedMemHigh) == 0);

  // After a trim the next launch takes new memory, at the same address.
  REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(out[5] == 12);
  CHECK(graph_memory_attribute(cudaGraphMemAttrReservedMemCurrent) == block);
  REQUIRE(cudaGraphMemAllocNodeGetParams(alloc, &read) == cudaSuccess);
  CHECK(read.dptr == d);

  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE("an allocation the graph does not free outlives the launch until cudaFree or cudaFreeAsync") {
  fresh_pool();
  constexpr int n = 64;
  std::vector<int> out(n, -1);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  int* d = build(g, n, 100, out.data(), false);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
  // Stream work after the launch may use it, as device memory.
  int h = 0;
  REQUIRE(cudaMemcpy(&h, d + 3, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(h == 103);
  cudaPointerAttributes attributes{};
  REQUIRE(cudaPointerGetAttributes(&attributes, d) == cudaSuccess);
  CHECK(attributes.type == cudaMemoryTypeDevice);
  CHECK(graph_memory_attribute(cudaGraphMemAttrUsedMemCurrent) == block);

  // Still allocated: launching the graph again is refused.
  check_failed_with(cudaGraphLaunch(exec, 0), cudaErrorInvalidValue);
  REQUIRE(cudaFree(d) == cudaSuccess);
  CHECK(graph_memory_attribute(cudaGraphMemAttrUsedMemCurrent) == 0);
  check_failed_with(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  check_failed_with(cudaFree(d), cudaErrorInvalidValue);  // freed already

  // Freed in stream order this time.
  REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
  REQUIRE(cudaFreeAsync(d, s) == cudaSuccess);
  check_failed_with(cudaFreeAsync(d, s), cudaErrorInvalidValue);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(graph_memory_attribute(cudaGraphMemAttrUsedMemCurrent) == 0);
  REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);

  // The allocation stays allocated, and valid, after its graphs are gone.
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
  REQUIRE(cudaMemcpy(&h, d + 1, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(h == 101);
  REQUIRE(cudaFree(d) == cudaSuccess);
  CHECK(graph_memory_attribute(cudaGraphMemAttrUsedMemCurrent) == 0);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE("async copies and sets may name graph memory a launch allocated, still unmapped; unmapped then, a fault") {
  fresh_pool();
  constexpr int n = 64;
  std::vector<int> out(n, -1), copied(n, -1);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  int* d = build(g, n, 5, out.data(), false);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  {
    // The stream is held before the launch, so that the allocation node has
    // not run when the calls come: as on a GPU, the address is reserved
    // and the calls are accepted, to run in stream order.
    gate held;
    held.hold(s);
    REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
    check_succeeded(cudaMemsetAsync(d + 1, 0, sizeof(int), s));
    check_succeeded(cudaMemcpyAsync(copied.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    held.open();
  }
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(copied[0] == 5);
  CHECK(copied[1] == 0);
  CHECK(copied[n - 1] == 5 + n - 1);
  REQUIRE(cudaFreeAsync(d, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);

  // Memory never allocated is still refused at the call.
  int host = 0;
  check_failed_with(cudaMemcpyAsync(&host, &host, sizeof(int), cudaMemcpyDeviceToHost, s), cudaErrorInvalidValue);
  // So is the freed allocation, synchronously or not, as on an H200
  // (tests/differential/graph_probe.expected): only a launch allocates it
  // in the program's view.
  check_failed_with(cudaMemset(d, 0, sizeof(int)), cudaErrorInvalidValue);
  check_failed_with(cudaMemsetAsync(d, 0, sizeof(int), s), cudaErrorInvalidValue);
  // Launched again, it is allocated: a set in another stream, which nothing
  // orders after the launch, is accepted, and finds it still unmapped when
  // its turn comes. It faults as a GPU's copy of unmapped memory does, and
  // the fault is sticky.
  cudaStream_t other = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking) == cudaSuccess);
  {
    gate held;
    held.hold(s);
    REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
    check_succeeded(cudaMemsetAsync(d, 0, sizeof(int), other));
    CHECK(cudaStreamSynchronize(other) == cudaErrorIllegalAddress);
    held.open();
  }
  CHECK(weft::fault_message().find("graph memory that was not allocated") != std::string::npos);
  CHECK(cudaMemcpy(&host, &host, sizeof(int), cudaMemcpyHostToHost) == cudaErrorIllegalAddress);
  cudaStreamDestroy(other);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  REQUIRE(cudaDeviceReset() == cudaSuccess);
}

TEST_CASE("AutoFreeOnLaunch frees what the previous launch left allocated") {
  fresh_pool();
  constexpr int n = 16;
  std::vector<int> out(n, -1);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  int* d = build(g, n, 1, out.data(), false);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, cudaGraphInstantiateFlagAutoFreeOnLaunch) == cudaSuccess);
  for (int launch = 0; launch < 5; ++launch) REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
  CHECK(out[15] == 16);
  CHECK(graph_memory_attribute(cudaGraphMemAttrUsedMemCurrent) == block);
  REQUIRE(cudaFree(d) == cudaSuccess);
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
}

TEST_CASE("another graph's free node frees an allocation, and the pool reuses memory across graphs") {
  fresh_pool();
  constexpr int n = 32;
  std::vector<int> out(n, -1), out2(n, -1);
  cudaGraph_t maker = nullptr, freer = nullptr, other = nullptr;
  REQUIRE(cudaGraphCreate(&maker, 0) == cudaSuccess);
  REQUIRE(cudaGraphCreate(&freer, 0) == cudaSuccess);
  REQUIRE(cudaGraphCreate(&other, 0) == cudaSuccess);
  int* d = build(maker, n, 5, out.data(), false);
  cudaGraphNode_t release = nullptr;
  REQUIRE(cudaGraphAddMemFreeNode(&release, freer, nullptr, 0, d) == cudaSuccess);
  // Freed in another graph: its own graph may no longer free it.
  cudaGraphNode_t n2 = nullptr;
  check_failed_with(cudaGraphAddMemFreeNode(&n2, maker, nullptr, 0, d), cudaErrorInvalidValue);
  int* e = build(other, n, 9, out2.data(), true);
  CHECK(e != d);

  cudaGraphExec_t make = nullptr, free_it = nullptr, use_other = nullptr;
  REQUIRE(cudaGraphInstantiate(&make, maker, 0) == cudaSuccess);
  REQUIRE(cudaGraphInstantiate(&free_it, freer, 0) == cudaSuccess);
  REQUIRE(cudaGraphInstantiate(&use_other, other, 0) == cudaSuccess);
  for (int round = 0; round < 3; ++round) {
    REQUIRE(cudaGraphLaunch(make, 0) == cudaSuccess);
    check_failed_with(cudaGraphLaunch(make, 0), cudaErrorInvalidValue);
    REQUIRE(cudaGraphLaunch(free_it, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(use_other, 0) == cudaSuccess);
  }
  REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
  CHECK(out[31] == 36);
  CHECK(out2[31] == 40);
  // The two graphs' allocations never overlapped in time: one block served both.
  CHECK(graph_memory_attribute(cudaGraphMemAttrReservedMemCurrent) == block);
  CHECK(graph_memory_attribute(cudaGraphMemAttrUsedMemHigh) == block);
  // The last free node's block counts as used until its graph's executable
  // graph is destroyed.
  CHECK(graph_memory_attribute(cudaGraphMemAttrUsedMemCurrent) == block);

  REQUIRE(cudaGraphExecDestroy(make) == cudaSuccess);
  REQUIRE(cudaGraphExecDestroy(free_it) == cudaSuccess);
  REQUIRE(cudaGraphExecDestroy(use_other) == cudaSuccess);
  CHECK(graph_memory_attribute(cudaGraphMemAttrUsedMemCurrent) == 0);
  REQUIRE(cudaGraphDestroy(maker) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(freer) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(other) == cudaSuccess);
}

// alloc (of `n` ints, after `after`) -> fill kernel -> copy to `out`; the
// allocation's address, and in `last` the copy node.
int* alloc_fill_copy(cudaGraph_t g, const cudaGraphNode_t* after, std::size_t after_count, int n, int value, int* out,
                     cudaGraphNode_t* last) {
  cudaMemAllocNodeParams p = device_allocation(n * sizeof(int));
  cudaGraphNode_t alloc = nullptr, kernel = nullptr;
  REQUIRE(cudaGraphAddMemAllocNode(&alloc, g, after, after_count, &p) == cudaSuccess);
  int* d = static_cast<int*>(p.dptr);
  void* args[] = {&d, &value, &n};
  cudaKernelNodeParams k{reinterpret_cast<void*>(&fill_n_with), dim3((n + 63) / 64), dim3(64), 0, args, nullptr};
  REQUIRE(cudaGraphAddKernelNode(&kernel, g, &alloc, 1, &k) == cudaSuccess);
  REQUIRE(cudaGraphAddMemcpyNode1D(last, g, &kernel, 1, out, d, n * sizeof(int), cudaMemcpyDeviceToHost) ==
          cudaSuccess);
  return d;
}

TEST_CASE("an allocation node ordered after a free node of its graph takes the freed address (reuse within a graph)") {
  // The guide's "Graph Memory Nodes", address reuse within a graph, and
  // cuda-samples' graphMemoryFootprint: alloc A -> free A -> alloc B gives B
  // A's address; a node not ordered after the free, or coming after an
  // address was taken already, gets its own.
  REQUIRE(memory_kernels_registered);
  fresh_pool();
  constexpr int n = 256;
  std::vector<int> out_a(n, -1), out_b(n, -1), out_c(n, -1), out_d(n, -1);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t copy_a = nullptr, free_a = nullptr, between = nullptr, copy_b = nullptr;
  int* a = alloc_fill_copy(g, nullptr, 0, n, 10, out_a.data(), &copy_a);
  REQUIRE(cudaGraphAddMemFreeNode(&free_a, g, &copy_a, 1, a) == cudaSuccess);
  // Ordered after the free through another node: the address is A's.
  REQUIRE(cudaGraphAddEmptyNode(&between, g, &free_a, 1) == cudaSuccess);
  int* b = alloc_fill_copy(g, &between, 1, n, 20, out_b.data(), &copy_b);
  CHECK(b == a);
  // Not ordered after the free: A's memory may still be in use.
  cudaGraphNode_t copy_c = nullptr, free_c = nullptr;
  int* c = alloc_fill_copy(g, nullptr, 0, n, 30, out_c.data(), &copy_c);
  CHECK(c != a);
  // After the free too, but B has taken the address (and is not freed).
  cudaGraphNode_t copy_d = nullptr, free_d = nullptr;
  int* d = alloc_fill_copy(g, &free_a, 1, n, 40, out_d.data(), &copy_d);
  CHECK(d != a);
  CHECK(d != c);
  REQUIRE(cudaGraphAddMemFreeNode(&free_c, g, &copy_c, 1, c) == cudaSuccess);
  REQUIRE(cudaGraphAddMemFreeNode(&free_d, g, &copy_d, 1, d) == cudaSuccess);
  // More than the freed range holds (whole 32 MiB blocks): an address of its own.
  cudaMemAllocNodeParams large = device_allocation(block + 1);
  cudaGraphNode_t large_node = nullptr, free_large = nullptr;
  REQUIRE(cudaGraphAddMemAllocNode(&large_node, g, &free_c, 1, &large) == cudaSuccess);
  CHECK(large.dptr != c);
  REQUIRE(cudaGraphAddMemFreeNode(&free_large, g, &large_node, 1, large.dptr) == cudaSuccess);
  // A range that is large enough: D's, freed before this node.
  cudaMemAllocNodeParams small = device_allocation(sizeof(int));
  cudaGraphNode_t small_node = nullptr, free_small = nullptr;
  REQUIRE(cudaGraphAddMemAllocNode(&small_node, g, &free_d, 1, &small) == cudaSuccess);
  CHECK(small.dptr == d);
  REQUIRE(cudaGraphAddMemFreeNode(&free_small, g, &small_node, 1, small.dptr) == cudaSuccess);
  // The address now names the newest allocation at it, freed already.
  cudaGraphNode_t twice = nullptr;
  check_failed_with(cudaGraphAddMemFreeNode(&twice, g, &free_small, 1, d), cudaErrorInvalidValue);

  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
  for (int i : {0, n - 1}) {
    CHECK(out_a[i] == 10 + i);
    CHECK(out_b[i] == 20 + i);
    CHECK(out_c[i] == 30 + i);
    CHECK(out_d[i] == 40 + i);
  }
  // B outlives the launch at A's address; cudaFree of it frees B.
  int h = 0;
  REQUIRE(cudaMemcpy(&h, a + 5, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(h == 25);
  check_failed_with(cudaGraphLaunch(exec, 0), cudaErrorInvalidValue);  // B still allocated
  REQUIRE(cudaFree(b) == cudaSuccess);
  check_failed_with(cudaMemcpy(&h, b, sizeof(int), cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  check_failed_with(cudaFree(b), cudaErrorInvalidValue);
  REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
  REQUIRE(cudaMemcpy(&h, b + 1, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(h == 21);
  REQUIRE(cudaFree(b) == cudaSuccess);
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);

  // With AutoFreeOnLaunch each launch frees B first, and A then has the
  // address again: every launch maps A, unmaps it, maps B there.
  REQUIRE(cudaGraphInstantiate(&exec, g, cudaGraphInstantiateFlagAutoFreeOnLaunch) == cudaSuccess);
  for (int launch = 0; launch < 3; ++launch) {
    std::fill(out_a.begin(), out_a.end(), -1);
    std::fill(out_b.begin(), out_b.end(), -1);
    REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
    CHECK(out_a[n - 1] == 10 + n - 1);
    CHECK(out_b[n - 1] == 20 + n - 1);
  }
  REQUIRE(cudaMemcpy(&h, b + 2, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(h == 22);
  REQUIRE(cudaFree(b) == cudaSuccess);
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
}

TEST_CASE("an address freed by another graph's free node, or captured before a free, is not reused") {
  fresh_pool();
  constexpr int n = 32;
  std::vector<int> out(n, -1);
  cudaGraph_t maker = nullptr, freer = nullptr;
  REQUIRE(cudaGraphCreate(&maker, 0) == cudaSuccess);
  REQUIRE(cudaGraphCreate(&freer, 0) == cudaSuccess);
  int* d = build(maker, n, 5, out.data(), false);
  cudaGraphNode_t release = nullptr, after = nullptr;
  REQUIRE(cudaGraphAddMemFreeNode(&release, freer, nullptr, 0, d) == cudaSuccess);
  // Freed here, but made by `maker`: it may be allocated again by `maker`'s
  // next launch while this graph runs, so its address is not this graph's.
  cudaMemAllocNodeParams p = device_allocation(n * sizeof(int));
  REQUIRE(cudaGraphAddMemAllocNode(&after, freer, &release, 1, &p) == cudaSuccess);
  CHECK(p.dptr != d);
  REQUIRE(cudaGraphDestroy(freer) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(maker) == cudaSuccess);

  // Captured: cudaMallocAsync after cudaFreeAsync of the same capture's
  // allocation, in stream order, takes its address; before, it does not.
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  int *first = nullptr, *second = nullptr, *third = nullptr;
  REQUIRE(cudaMallocAsync(&first, n * sizeof(int), s) == cudaSuccess);
  REQUIRE(cudaMallocAsync(&second, n * sizeof(int), s) == cudaSuccess);
  CHECK(second != first);
  int value = 3, count = n;
  void* args[] = {&first, &value, &count};
  REQUIRE(cudaLaunchKernel(reinterpret_cast<void*>(&fill_n_with), dim3(1), dim3(64), args, 0, s) == cudaSuccess);
  REQUIRE(cudaMemcpyAsync(second, first, n * sizeof(int), cudaMemcpyDeviceToDevice, s) == cudaSuccess);
  REQUIRE(cudaFreeAsync(first, s) == cudaSuccess);
  REQUIRE(cudaMallocAsync(&third, n * sizeof(int), s) == cudaSuccess);
  CHECK(third == first);
  REQUIRE(cudaMemcpyAsync(third, second, n * sizeof(int), cudaMemcpyDeviceToDevice, s) == cudaSuccess);
  REQUIRE(cudaMemcpyAsync(out.data(), third, n * sizeof(int), cudaMemcpyDeviceToHost, s) == cudaSuccess);
  REQUIRE(cudaFreeAsync(second, s) == cudaSuccess);
  REQUIRE(cudaFreeAsync(third, s) == cudaSuccess);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaStreamEndCapture(s, &g) == cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  for (int launch = 0; launch < 2; ++launch) {
    std::fill(out.begin(), out.end(), -1);
    REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    CHECK(out[0] == 3);
    CHECK(out[n - 1] == 3 + n - 1);
  }
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE("a graph with memory nodes: one executable graph, no clone, no deletions, children only by move") {
  fresh_pool();
  std::vector<int> out(8, -1);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t alloc = nullptr;
  build(g, 8, 0, out.data(), true, &alloc);
  cudaGraphExec_t exec = nullptr, second = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  check_failed_with(cudaGraphInstantiate(&second, g, 0), cudaErrorNotSupported);
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphInstantiate(&second, g, 0) == cudaSuccess);
  REQUIRE(cudaGraphExecDestroy(second) == cudaSuccess);

  cudaGraph_t copy = nullptr;
  check_failed_with(cudaGraphClone(&copy, g), cudaErrorNotSupported);
  check_failed_with(cudaGraphDestroyNode(alloc), cudaErrorNotSupported);
  cudaGraphNode_t from[1] = {}, to[1] = {};
  std::size_t edges = 1;
  REQUIRE(cudaGraphGetEdges(g, from, to, nullptr, &edges) == cudaSuccess);
  check_failed_with(cudaGraphRemoveDependencies(g, from, to, nullptr, 1), cudaErrorNotSupported);

  cudaGraph_t parent = nullptr;
  REQUIRE(cudaGraphCreate(&parent, 0) == cudaSuccess);
  cudaGraphNode_t child = nullptr;
  check_failed_with(cudaGraphAddChildGraphNode(&child, parent, nullptr, 0, g), cudaErrorNotSupported);
  cudaGraphNodeParams embed = node_params(cudaGraphNodeTypeGraph);
  embed.graph.graph = g;
  embed.graph.ownership = cudaGraphChildGraphOwnershipClone;
  check_failed_with(cudaGraphAddNode(&child, parent, nullptr, nullptr, 0, &embed), cudaErrorNotSupported);
  // Moved: the parent owns it and runs it.
  embed.graph.ownership = cudaGraphChildGraphOwnershipMove;
  REQUIRE(cudaGraphAddNode(&child, parent, nullptr, nullptr, 0, &embed) == cudaSuccess);
  cudaGraph_t inside = nullptr;
  REQUIRE(cudaGraphChildGraphNodeGetGraph(child, &inside) == cudaSuccess);
  CHECK(inside == g);
  check_failed_with(cudaGraphDestroy(g), cudaErrorInvalidValue);
  check_failed_with(cudaGraphInstantiate(&exec, g, 0), cudaErrorInvalidValue);
  cudaGraph_t elsewhere = nullptr;
  REQUIRE(cudaGraphCreate(&elsewhere, 0) == cudaSuccess);
  check_failed_with(cudaGraphAddNode(&child, elsewhere, nullptr, nullptr, 0, &embed), cudaErrorInvalidValue);
  cudaMemAllocNodeParams more = device_allocation(64);
  cudaGraphNode_t n = nullptr;
  check_failed_with(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &more), cudaErrorInvalidValue);

  REQUIRE(cudaGraphInstantiate(&exec, parent, 0) == cudaSuccess);
  check_failed_with(cudaGraphInstantiate(&second, parent, 0), cudaErrorNotSupported);
  REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);  // the child frees what it allocates
  REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
  CHECK(out[7] == 7);
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(parent) == cudaSuccess);  // and the moved graph with it
  REQUIRE(cudaGraphDestroy(elsewhere) == cudaSuccess);
}

TEST_CASE("memory node calls refuse bad arguments with CUDA's codes") {
  fresh_pool();
  cudaGraph_t g = nullptr, other = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  REQUIRE(cudaGraphCreate(&other, 0) == cudaSuccess);
  cudaGraphNode_t n = nullptr;

  SUBCASE("allocation nodes") {
    cudaMemAllocNodeParams ok = device_allocation(256);
    check_failed_with(cudaGraphAddMemAllocNode(nullptr, g, nullptr, 0, &ok), cudaErrorInvalidValue);
    check_failed_with(cudaGraphAddMemAllocNode(&n, nullptr, nullptr, 0, &ok), cudaErrorInvalidValue);
    check_failed_with(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, nullptr), cudaErrorInvalidValue);
    check_failed_with(cudaGraphAddMemAllocNode(&n, g, nullptr, 1, &ok), cudaErrorInvalidValue);
    cudaMemAllocNodeParams p = ok;
    p.bytesize = 0;
    check_failed_with(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &p), cudaErrorInvalidValue);
    p = ok;
    p.poolProps.allocType = cudaMemAllocationTypeManaged;
    check_failed_with(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &p), cudaErrorInvalidValue);
    p = ok;
    p.poolProps.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    check_failed_with(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &p), cudaErrorInvalidValue);
    p = ok;
    p.poolProps.location.type = cudaMemLocationTypeHost;
    check_failed_with(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &p), cudaErrorInvalidValue);
    p = ok;
    p.poolProps.location.id = 99;
    check_failed_with(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &p), cudaErrorInvalidValue);
    p = ok;
    p.accessDescCount = 1;  // and no array
    check_failed_with(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &p), cudaErrorInvalidValue);
    cudaMemAccessDesc many[64] = {};
    p.accessDescs = many;
    p.accessDescCount = 64;  // more than there are devices
    check_failed_with(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &p), cudaErrorInvalidValue);
    cudaMemAccessDesc desc{{cudaMemLocationTypeDevice, 0}, cudaMemAccessFlagsProtReadWrite};
    p.accessDescs = &desc;
    p.accessDescCount = 1;
    desc.location.id = 99;
    check_failed_with(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &p), cudaErrorInvalidValue);
    desc.location.id = 0;
    desc.flags = static_cast<cudaMemAccessFlags>(2);
    check_failed_with(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &p), cudaErrorInvalidValue);
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    check_succeeded(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &p));
    cudaMemAllocNodeParams read{};
    REQUIRE(cudaGraphMemAllocNodeGetParams(n, &read) == cudaSuccess);
    REQUIRE(read.accessDescCount == 1);
    CHECK(read.accessDescs != &desc);  // the node's own copy
    CHECK(read.accessDescs[0].flags == cudaMemAccessFlagsProtReadWrite);
    check_failed_with(cudaGraphMemAllocNodeGetParams(n, nullptr), cudaErrorInvalidValue);
    void* address = nullptr;
    check_failed_with(cudaGraphMemFreeNodeGetParams(n, &address), cudaErrorInvalidValue);
    cudaGraphNode_t empty = nullptr;
    REQUIRE(cudaGraphAddEmptyNode(&empty, other, nullptr, 0) == cudaSuccess);
    check_failed_with(cudaGraphMemAllocNodeGetParams(empty, &read), cudaErrorInvalidValue);
    // Allocation and free nodes' parameters cannot be set.
    cudaGraphNodeParams set = node_params(cudaGraphNodeTypeMemAlloc);
    check_failed_with(cudaGraphNodeSetParams(n, &set), cudaErrorNotSupported);
  }

  SUBCASE("free nodes") {
    cudaMemAllocNodeParams p = device_allocation(256);
    cudaGraphNode_t alloc = nullptr;
    REQUIRE(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &p) == cudaSuccess);
    char* d = static_cast<char*>(p.dptr);
    void* plain = nullptr;
    REQUIRE(cudaMalloc(&plain, 256) == cudaSuccess);
    check_failed_with(cudaGraphAddMemFreeNode(&n, g, nullptr, 0, nullptr), cudaErrorInvalidValue);
    check_failed_with(cudaGraphAddMemFreeNode(&n, g, nullptr, 0, plain), cudaErrorInvalidValue);
    check_failed_with(cudaGraphAddMemFreeNode(&n, g, nullptr, 0, d + 16), cudaErrorInvalidValue);
    check_failed_with(cudaGraphAddMemFreeNode(nullptr, g, &alloc, 1, d), cudaErrorInvalidValue);
    REQUIRE(cudaGraphAddMemFreeNode(&n, g, &alloc, 1, d) == cudaSuccess);
    cudaGraphNode_t again = nullptr;
    check_failed_with(cudaGraphAddMemFreeNode(&again, g, &n, 1, d), cudaErrorInvalidValue);
    // Freed in its own graph: no other graph may free it.
    check_failed_with(cudaGraphAddMemFreeNode(&again, other, nullptr, 0, d), cudaErrorInvalidValue);
    check_failed_with(cudaGraphMemFreeNodeGetParams(n, nullptr), cudaErrorInvalidValue);
    cudaGraphNodeParams generic = node_params(cudaGraphNodeTypeMemFree);
    generic.free.dptr = d;
    check_failed_with(cudaGraphAddNode(&again, g, nullptr, nullptr, 0, &generic), cudaErrorInvalidValue);
    REQUIRE(cudaFree(plain) == cudaSuccess);
  }

  SUBCASE("the pool's calls") {
    std::uint64_t value = 0;
    check_failed_with(cudaDeviceGraphMemTrim(-1), cudaErrorInvalidDevice);
    check_failed_with(cudaDeviceGraphMemTrim(99), cudaErrorInvalidDevice);
    check_failed_with(cudaDeviceGetGraphMemAttribute(99, cudaGraphMemAttrUsedMemCurrent, &value),
                      cudaErrorInvalidDevice);
    check_failed_with(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, nullptr),
                      cudaErrorInvalidValue);
    check_failed_with(cudaDeviceGetGraphMemAttribute(0, static_cast<cudaGraphMemAttributeType>(9), &value),
                      cudaErrorInvalidValue);
    check_failed_with(cudaDeviceSetGraphMemAttribute(99, cudaGraphMemAttrUsedMemHigh, &value), cudaErrorInvalidDevice);
    check_failed_with(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &value), cudaErrorInvalidValue);
    check_failed_with(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &value),
                      cudaErrorInvalidValue);
    value = 5;
    check_failed_with(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &value), cudaErrorInvalidValue);
    check_failed_with(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, nullptr), cudaErrorInvalidValue);
  }

  SUBCASE("cudaGraphAddNode forwards allocation and free nodes") {
    cudaGraphNodeParams alloc = node_params(cudaGraphNodeTypeMemAlloc);
    alloc.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    alloc.alloc.poolProps.location = {cudaMemLocationTypeDevice, 0};
    alloc.alloc.bytesize = 100;
    cudaGraphNode_t a = nullptr, f = nullptr;
    REQUIRE(cudaGraphAddNode(&a, g, nullptr, nullptr, 0, &alloc) == cudaSuccess);
    REQUIRE(alloc.alloc.dptr != nullptr);
    cudaGraphNodeParams release = node_params(cudaGraphNodeTypeMemFree);
    release.free.dptr = alloc.alloc.dptr;
    REQUIRE(cudaGraphAddNode(&f, g, &a, nullptr, 1, &release) == cudaSuccess);
    void* address = nullptr;
    REQUIRE(cudaGraphMemFreeNodeGetParams(f, &address) == cudaSuccess);
    CHECK(address == alloc.alloc.dptr);
    alloc.alloc.bytesize = 0;
    check_failed_with(cudaGraphAddNode(&a, g, nullptr, nullptr, 0, &alloc), cudaErrorInvalidValue);
  }
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(other) == cudaSuccess);
}

TEST_CASE("captured cudaMallocAsync and cudaFreeAsync become allocation and free nodes") {
  fresh_pool();
  constexpr int n = 128;
  std::vector<int> out(n, -1);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  int* d = nullptr;
  int* kept = nullptr;
  REQUIRE(cudaMallocAsync(&d, n * sizeof(int), s) == cudaSuccess);
  REQUIRE(cudaMallocAsync(&kept, sizeof(int), s) == cudaSuccess);
  REQUIRE(d != nullptr);
  int value = 40, count = n;
  void* args[] = {&d, &value, &count};
  REQUIRE(cudaLaunchKernel(reinterpret_cast<void*>(&fill_n_with), dim3(2), dim3(64), args, 0, s) == cudaSuccess);
  REQUIRE(cudaMemcpyAsync(kept, d, sizeof(int), cudaMemcpyDeviceToDevice, s) == cudaSuccess);
  REQUIRE(cudaMemcpyAsync(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, s) == cudaSuccess);
  REQUIRE(cudaFreeAsync(d, s) == cudaSuccess);
  check_failed_with(cudaFreeAsync(d, s), cudaErrorInvalidValue);  // twice in one graph
  cudaGraph_t g = nullptr;
  REQUIRE(cudaStreamEndCapture(s, &g) == cudaSuccess);
  REQUIRE(g != nullptr);

  std::size_t count_nodes = 0;
  REQUIRE(cudaGraphGetNodes(g, nullptr, &count_nodes) == cudaSuccess);
  std::vector<cudaGraphNode_t> nodes(count_nodes);
  REQUIRE(cudaGraphGetNodes(g, nodes.data(), &count_nodes) == cudaSuccess);
  int allocs = 0, frees = 0;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    REQUIRE(cudaGraphNodeGetType(node, &type) == cudaSuccess);
    if (type == cudaGraphNodeTypeMemAlloc) {
      ++allocs;
      cudaMemAllocNodeParams p{};
      REQUIRE(cudaGraphMemAllocNodeGetParams(node, &p) == cudaSuccess);
      CHECK((p.dptr == d || p.dptr == kept));
      CHECK(p.poolProps.location.type == cudaMemLocationTypeDevice);
    }
    if (type == cudaGraphNodeTypeMemFree) ++frees;
  }
  CHECK(allocs == 2);
  CHECK(frees == 1);

  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, cudaGraphInstantiateFlagAutoFreeOnLaunch) == cudaSuccess);
  for (int launch = 0; launch < 3; ++launch) REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(out[0] == 40);
  CHECK(out[n - 1] == 40 + n - 1);
  // `kept` is not freed in the graph: it outlives the launch.
  int h = 0;
  REQUIRE(cudaMemcpy(&h, kept, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(h == 40);
  REQUIRE(cudaFreeAsync(kept, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  CHECK(graph_memory_attribute(cudaGraphMemAttrUsedMemCurrent) == 0);
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE("a forked stream destroyed after its join leaves the capture going; before it, invalidated") {
  // cuda-samples' graphMemoryNodes frees in a forked stream and destroys it
  // before cudaStreamEndCapture.
  cudaStream_t origin = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking) == cudaSuccess);
  cudaEvent_t fork = nullptr, join = nullptr;
  REQUIRE(cudaEventCreate(&fork) == cudaSuccess);
  REQUIRE(cudaEventCreate(&join) == cudaSuccess);
  for (bool joined : {true, false}) {
    cudaStream_t side = nullptr;
    REQUIRE(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal) == cudaSuccess);
    int* d = nullptr;
    REQUIRE(cudaMallocAsync(&d, 64, origin) == cudaSuccess);
    REQUIRE(cudaEventRecord(fork, origin) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(side, fork, 0) == cudaSuccess);
    REQUIRE(cudaFreeAsync(d, side) == cudaSuccess);
    if (joined) {
      REQUIRE(cudaEventRecord(join, side) == cudaSuccess);
      REQUIRE(cudaStreamWaitEvent(origin, join, 0) == cudaSuccess);
    }
    REQUIRE(cudaStreamDestroy(side) == cudaSuccess);
    cudaGraph_t g = nullptr;
    if (joined) {
      REQUIRE(cudaStreamEndCapture(origin, &g) == cudaSuccess);
      cudaGraphExec_t exec = nullptr;
      REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
      REQUIRE(cudaGraphLaunch(exec, origin) == cudaSuccess);
      REQUIRE(cudaGraphLaunch(exec, origin) == cudaSuccess);  // freed by the graph
      REQUIRE(cudaStreamSynchronize(origin) == cudaSuccess);
      REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
      REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
    } else {
      check_failed_with(cudaStreamEndCapture(origin, &g), cudaErrorStreamCaptureInvalidated);
      CHECK(g == nullptr);
    }
  }
  REQUIRE(cudaEventDestroy(fork) == cudaSuccess);
  REQUIRE(cudaEventDestroy(join) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(origin) == cudaSuccess);
}

TEST_CASE("a graph that has been instantiated takes no free node for its own allocations (as on an H100)") {
  REQUIRE(memory_kernels_registered);
  std::vector<int> out(64);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  int* d = build(g, 64, 1, out.data(), false);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  cudaGraphNode_t release = nullptr;
  CHECK(cudaGraphAddMemFreeNode(&release, g, nullptr, 0, d) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  // Another graph may still free it, after the allocating graph has run.
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
  cudaGraph_t other = nullptr;
  REQUIRE(cudaGraphCreate(&other, 0) == cudaSuccess);
  CHECK(cudaGraphAddMemFreeNode(&release, other, nullptr, 0, d) == cudaSuccess);
  cudaGraphExec_t freeing = nullptr;
  REQUIRE(cudaGraphInstantiate(&freeing, other, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(freeing, 0) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(out[5] == 6);
  cudaGraphExecDestroy(freeing);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(other);
  cudaGraphDestroy(g);
}
