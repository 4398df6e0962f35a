// The node kinds of explicit graphs beyond the first ones (graph_test.cpp):
// memcpy nodes in cudaMemcpy3D's form (2D and 3D boxes with pitches and
// positions), copies to and from symbols, event record and wait nodes, and
// the generic cudaGraphAddNode / cudaGraphNodeSetParams. Results are
// checked, and every refusal's code; orders with gates, never with times.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "error_checks.hpp"
#include "graph_building.hpp"
#include "stream_gates.hpp"

namespace {

__device__ int table[16];

__global__ void add_one(int* data, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) data[i] += 1;
}

const bool node_kernels_registered = weft::register_kernel<&add_one>();

void launch_once(cudaGraph_t g, cudaStream_t s = nullptr) {
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
}

// A host box of width x height x depth bytes, each byte its index mod 251.
std::vector<unsigned char> numbered(std::size_t bytes) {
  std::vector<unsigned char> v(bytes);
  for (std::size_t i = 0; i < bytes; ++i) v[i] = static_cast<unsigned char>(i % 251);
  return v;
}

// CUDA's `cudaGraphNodeParams p = {type};`, without -Wextra's warning
// about the fields it leaves zero.
}  // namespace

TEST_CASE("a 2D memcpy node copies a pitched box between offsets, both ways") {
  REQUIRE(node_kernels_registered);
  constexpr std::size_t width = 40, height = 6;
  std::vector<unsigned char> host = numbered(64 * 8), back(64 * 8, 0);
  void* d = nullptr;
  std::size_t pitch = 0;
  REQUIRE(cudaMallocPitch(&d, &pitch, 100, 10) == cudaSuccess);
  REQUIRE(cudaMemset2D(d, pitch, 0, 100, 10) == cudaSuccess);

  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  // Host rows of 64 bytes from (3, 1) to device rows from (10, 2).
  cudaMemcpy3DParms up{};
  up.srcPtr = make_cudaPitchedPtr(host.data(), 64, 64, 8);
  up.srcPos = make_cudaPos(3, 1, 0);
  up.dstPtr = make_cudaPitchedPtr(d, pitch, 100, 10);
  up.dstPos = make_cudaPos(10, 2, 0);
  up.extent = make_cudaExtent(width, height, 1);
  up.kind = cudaMemcpyHostToDevice;
  cudaGraphNode_t upload = nullptr;
  REQUIRE(cudaGraphAddMemcpyNode(&upload, g, nullptr, 0, &up) == cudaSuccess);
  // And back to the same place in another host buffer.
  cudaMemcpy3DParms down{};
  down.srcPtr = up.dstPtr;
  down.srcPos = up.dstPos;
  down.dstPtr = make_cudaPitchedPtr(back.data(), 64, 64, 8);
  down.dstPos = up.srcPos;
  down.extent = up.extent;
  down.kind = cudaMemcpyDefault;
  cudaGraphNode_t download = nullptr;
  REQUIRE(cudaGraphAddMemcpyNode(&download, g, &upload, 1, &down) == cudaSuccess);
  launch_once(g);

  for (std::size_t y = 0; y < 8; ++y)
    for (std::size_t x = 0; x < 64; ++x) {
      bool inside = y >= 1 && y < 1 + height && x >= 3 && x < 3 + width;
      CHECK(back[y * 64 + x] == (inside ? host[y * 64 + x] : 0));
    }
  std::vector<unsigned char> device_rows(pitch * 10);
  REQUIRE(cudaMemcpy(device_rows.data(), d, pitch * 10, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(device_rows[2 * pitch + 10] == host[1 * 64 + 3]);
  CHECK(device_rows[7 * pitch + 49] == host[6 * 64 + 42]);
  CHECK(device_rows[2 * pitch + 9] == 0);

  // The node gives back its parameters as they were given.
  cudaMemcpy3DParms read{};
  REQUIRE(cudaGraphMemcpyNodeGetParams(upload, &read) == cudaSuccess);
  CHECK(read.srcPtr.ptr == host.data());
  CHECK(read.srcPtr.pitch == 64);
  CHECK(read.srcPtr.ysize == 8);
  CHECK(read.srcPos.x == 3);
  CHECK(read.srcPos.y == 1);
  CHECK(read.dstPtr.ptr == d);
  CHECK(read.dstPos.x == 10);
  CHECK(read.extent.width == width);
  CHECK(read.extent.height == height);
  CHECK(read.extent.depth == 1);
  CHECK(read.kind == cudaMemcpyHostToDevice);
  CHECK(read.srcArray == nullptr);
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
  REQUIRE(cudaFree(d) == cudaSuccess);
}

TEST_CASE("a 3D memcpy node copies slices from a position in a 3D allocation") {
  constexpr std::size_t w = 16, h = 4, depth = 3;
  cudaPitchedPtr dev{};
  REQUIRE(cudaMalloc3D(&dev, make_cudaExtent(w, h, depth + 2)) == cudaSuccess);
  std::vector<unsigned char> host = numbered(w * h * depth), back(w * h * depth, 0);

  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaMemcpy3DParms up{};
  up.srcPtr = make_cudaPitchedPtr(host.data(), w, w, h);
  up.dstPtr = dev;
  up.dstPos = make_cudaPos(0, 0, 2);  // slices 2, 3 and 4
  up.extent = make_cudaExtent(w, h, depth);
  up.kind = cudaMemcpyHostToDevice;
  cudaGraphNode_t upload = nullptr, download = nullptr;
  REQUIRE(cudaGraphAddMemcpyNode(&upload, g, nullptr, 0, &up) == cudaSuccess);
  cudaMemcpy3DParms down{};
  down.srcPtr = dev;
  down.srcPos = up.dstPos;
  down.dstPtr = make_cudaPitchedPtr(back.data(), w, w, h);
  down.extent = up.extent;
  down.kind = cudaMemcpyDeviceToHost;
  REQUIRE(cudaGraphAddMemcpyNode(&download, g, &upload, 1, &down) == cudaSuccess);
  launch_once(g);
  CHECK(back == host);
  // The slices really are at z = 2..4 of the allocation.
  std::vector<unsigned char> slice(w);
  REQUIRE(cudaMemcpy(slice.data(), static_cast<char*>(dev.ptr) + 2 * dev.pitch * h, w, cudaMemcpyDeviceToHost) ==
          cudaSuccess);
  CHECK(std::memcmp(slice.data(), host.data(), w) == 0);
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
  REQUIRE(cudaFree(dev.ptr) == cudaSuccess);
}

TEST_CASE("memcpy node parameters are replaced: 3D, 1D and a 1D node read as 3D") {
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 8 * sizeof(int)) == cudaSuccess);
  std::vector<int> a(8, 5), b(8, 9), back(8, 0);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t up = nullptr, down = nullptr;
  REQUIRE(cudaGraphAddMemcpyNode1D(&up, g, nullptr, 0, d, a.data(), 8 * sizeof(int), cudaMemcpyHostToDevice) ==
          cudaSuccess);
  REQUIRE(cudaGraphAddMemcpyNode1D(&down, g, &up, 1, back.data(), d, 8 * sizeof(int), cudaMemcpyDeviceToHost) ==
          cudaSuccess);

  cudaMemcpy3DParms p{};
  REQUIRE(cudaGraphMemcpyNodeGetParams(up, &p) == cudaSuccess);
  CHECK(p.extent.width == 8 * sizeof(int));
  CHECK(p.extent.height == 1);
  CHECK(p.extent.depth == 1);
  CHECK(p.srcPtr.ptr == a.data());
  CHECK(p.dstPtr.ptr == d);
  // Upload b instead, through the 3D form.
  p.srcPtr.ptr = b.data();
  REQUIRE(cudaGraphMemcpyNodeSetParams(up, &p) == cudaSuccess);
  launch_once(g);
  CHECK(back == b);

  // A bad copy leaves the node as it was.
  cudaMemcpy3DParms bad = p;
  bad.kind = static_cast<cudaMemcpyKind>(7);
  check_failed_with(cudaGraphMemcpyNodeSetParams(up, &bad), cudaErrorInvalidMemcpyDirection);
  cudaMemcpy3DParms kept{};
  REQUIRE(cudaGraphMemcpyNodeGetParams(up, &kept) == cudaSuccess);
  CHECK(kept.srcPtr.ptr == b.data());
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
  REQUIRE(cudaFree(d) == cudaSuccess);
}

TEST_CASE("memcpy nodes to and from a symbol, with an offset") {
  std::vector<int> in = {1, 2, 3, 4}, out(4, 0);
  int zeros[16] = {};
  REQUIRE(cudaMemcpyToSymbol(table, zeros, sizeof(zeros)) == cudaSuccess);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t to = nullptr, from = nullptr;
  REQUIRE(cudaGraphAddMemcpyNodeToSymbol(&to, g, nullptr, 0, table, in.data(), 4 * sizeof(int), 8 * sizeof(int),
                                         cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaGraphAddMemcpyNodeFromSymbol(&from, g, &to, 1, out.data(), table, 4 * sizeof(int), 8 * sizeof(int),
                                           cudaMemcpyDeviceToHost) == cudaSuccess);
  cudaGraphNodeType type{};
  REQUIRE(cudaGraphNodeGetType(to, &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeMemcpy);
  launch_once(g);
  CHECK(out == in);
  int all[16] = {};
  REQUIRE(cudaMemcpyFromSymbol(all, table, sizeof(all)) == cudaSuccess);
  CHECK(all[7] == 0);
  CHECK(all[8] == 1);
  CHECK(all[11] == 4);

  // Set: now to the start of the symbol, and read from there.
  std::vector<int> other = {7, 7, 7, 7};
  REQUIRE(cudaGraphMemcpyNodeSetParamsToSymbol(to, table, other.data(), 4 * sizeof(int), 0, cudaMemcpyDefault) ==
          cudaSuccess);
  REQUIRE(cudaGraphMemcpyNodeSetParamsFromSymbol(from, out.data(), table, 4 * sizeof(int), 0, cudaMemcpyDefault) ==
          cudaSuccess);
  launch_once(g);
  CHECK(out == other);

  SUBCASE("refused as cudaMemcpyToSymbol refuses them") {
    cudaGraphNode_t n = nullptr;
    // Past the end of the symbol.
    check_failed_with(cudaGraphAddMemcpyNodeToSymbol(&n, g, nullptr, 0, table, in.data(), 4 * sizeof(int),
                                                     13 * sizeof(int), cudaMemcpyHostToDevice),
                      cudaErrorInvalidValue);
    // A direction the symbol cannot take.
    check_failed_with(cudaGraphAddMemcpyNodeToSymbol(&n, g, nullptr, 0, table, in.data(), 4, 0, cudaMemcpyDeviceToHost),
                      cudaErrorInvalidMemcpyDirection);
    check_failed_with(
        cudaGraphAddMemcpyNodeFromSymbol(&n, g, nullptr, 0, out.data(), table, 4, 0, cudaMemcpyHostToDevice),
        cudaErrorInvalidMemcpyDirection);
    // Device to device from host memory.
    check_failed_with(
        cudaGraphAddMemcpyNodeFromSymbol(&n, g, nullptr, 0, out.data(), table, 4, 0, cudaMemcpyDeviceToDevice),
        cudaErrorInvalidValue);
    check_failed_with(cudaGraphMemcpyNodeSetParamsToSymbol(to, table, in.data(), 4, 64, cudaMemcpyHostToDevice),
                      cudaErrorInvalidValue);
    cudaGraphNode_t empty = nullptr;
    REQUIRE(cudaGraphAddEmptyNode(&empty, g, nullptr, 0) == cudaSuccess);
    check_failed_with(cudaGraphMemcpyNodeSetParamsToSymbol(empty, table, in.data(), 4, 0, cudaMemcpyHostToDevice),
                      cudaErrorInvalidValue);
  }
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
}

TEST_CASE("memcpy nodes are refused as cudaMemcpy3D refuses the copy") {
  void* d = nullptr;
  REQUIRE(cudaMalloc(&d, 256) == cudaSuccess);
  std::vector<unsigned char> host(256);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t n = nullptr;
  cudaMemcpy3DParms ok{};
  ok.srcPtr = make_cudaPitchedPtr(host.data(), 64, 64, 4);
  ok.dstPtr = make_cudaPitchedPtr(d, 64, 64, 4);
  ok.extent = make_cudaExtent(64, 4, 1);
  ok.kind = cudaMemcpyHostToDevice;

  check_failed_with(cudaGraphAddMemcpyNode(nullptr, g, nullptr, 0, &ok), cudaErrorInvalidValue);
  check_failed_with(cudaGraphAddMemcpyNode(&n, nullptr, nullptr, 0, &ok), cudaErrorInvalidValue);
  check_failed_with(cudaGraphAddMemcpyNode(&n, g, nullptr, 0, nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaGraphAddMemcpyNode(&n, g, nullptr, 1, &ok), cudaErrorInvalidValue);
  cudaMemcpy3DParms p = ok;
  p.kind = static_cast<cudaMemcpyKind>(9);
  check_failed_with(cudaGraphAddMemcpyNode(&n, g, nullptr, 0, &p), cudaErrorInvalidMemcpyDirection);
  p = ok;
  p.extent.height = 5;  // more rows than the allocation holds
  check_failed_with(cudaGraphAddMemcpyNode(&n, g, nullptr, 0, &p), cudaErrorInvalidValue);
  p = ok;
  p.dstPos.x = 1;  // a row past its pitch
  check_failed_with(cudaGraphAddMemcpyNode(&n, g, nullptr, 0, &p), cudaErrorInvalidValue);
  p = ok;
  p.kind = cudaMemcpyDeviceToHost;  // the host buffer is no device memory
  check_failed_with(cudaGraphAddMemcpyNode(&n, g, nullptr, 0, &p), cudaErrorInvalidValue);
  p = ok;
  // An array and a pointer for one side.
  p.dstArray = reinterpret_cast<cudaArray_t>(d);
  check_failed_with(cudaGraphAddMemcpyNode(&n, g, nullptr, 0, &p), cudaErrorInvalidValue);
  check_failed_with(cudaGraphMemcpyNodeSetParams(nullptr, &ok), cudaErrorInvalidValue);
  cudaGraphNode_t empty = nullptr;
  REQUIRE(cudaGraphAddEmptyNode(&empty, g, nullptr, 0) == cudaSuccess);
  check_failed_with(cudaGraphMemcpyNodeSetParams(empty, &ok), cudaErrorInvalidValue);
  check_succeeded(cudaGraphAddMemcpyNode(&n, g, nullptr, 0, &ok));
  check_failed_with(cudaGraphMemcpyNodeSetParams(n, nullptr), cudaErrorInvalidValue);
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
  REQUIRE(cudaFree(d) == cudaSuccess);
}

TEST_CASE("an event record node's records are what event calls see after the launch") {
  enough_workers workers(3);  // the gates' kernels, and the graph's
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 64 * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemset(d, 0, 64 * sizeof(int)) == cudaSuccess);
  cudaEvent_t start = nullptr, stop = nullptr;
  REQUIRE(cudaEventCreate(&start) == cudaSuccess);
  REQUIRE(cudaEventCreate(&stop) == cudaSuccess);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t first = nullptr, kernel = nullptr, last = nullptr;
  REQUIRE(cudaGraphAddEventRecordNode(&first, g, nullptr, 0, start) == cudaSuccess);
  int n = 64;
  void* args[] = {&d, &n};
  cudaKernelNodeParams k{reinterpret_cast<void*>(&add_one), dim3(2), dim3(32), 0, args, nullptr};
  REQUIRE(cudaGraphAddKernelNode(&kernel, g, &first, 1, &k) == cudaSuccess);
  REQUIRE(cudaGraphAddEventRecordNode(&last, g, &kernel, 1, stop) == cudaSuccess);
  cudaGraphNodeType type{};
  REQUIRE(cudaGraphNodeGetType(last, &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeEventRecord);
  cudaEvent_t named = nullptr;
  REQUIRE(cudaGraphEventRecordNodeGetEvent(last, &named) == cudaSuccess);
  CHECK(named == stop);

  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  gate held;
  held.hold(s);
  REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
  // The stream is held before the graph: its records are pending.
  CHECK(cudaEventQuery(stop) == cudaErrorNotReady);
  held.open();
  REQUIRE(cudaEventSynchronize(stop) == cudaSuccess);
  int h[64] = {};
  REQUIRE(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(h[63] == 1);  // the record came after the kernel
  float ms = -1;
  REQUIRE(cudaEventElapsedTime(&ms, start, stop) == cudaSuccess);
  CHECK(ms >= 0);

  // Another stream that waits for the record waits for the launch.
  held.hold(s);
  gate second;
  second.hold(s);
  REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
  cudaStream_t t = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(t, stop, 0) == cudaSuccess);
  CHECK(cudaStreamQuery(t) == cudaErrorNotReady);
  second.open();
  REQUIRE(cudaStreamSynchronize(t) == cudaSuccess);
  REQUIRE(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(h[0] == 2);

  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(t) == cudaSuccess);
  REQUIRE(cudaEventDestroy(start) == cudaSuccess);
  REQUIRE(cudaEventDestroy(stop) == cudaSuccess);
  REQUIRE(cudaFree(d) == cudaSuccess);
}

TEST_CASE("an event wait node holds its graph until the event's record at launch completes") {
  enough_workers workers(3);  // the gates' kernels, and the graph's
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemset(d, 0, sizeof(int)) == cudaSuccess);
  cudaEvent_t ready = nullptr;
  REQUIRE(cudaEventCreate(&ready) == cudaSuccess);
  cudaStream_t producer = nullptr, consumer = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking) == cudaSuccess);

  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t wait = nullptr, kernel = nullptr;
  REQUIRE(cudaGraphAddEventWaitNode(&wait, g, nullptr, 0, ready) == cudaSuccess);
  int n = 1;
  void* args[] = {&d, &n};
  cudaKernelNodeParams k{reinterpret_cast<void*>(&add_one), dim3(1), dim3(1), 0, args, nullptr};
  REQUIRE(cudaGraphAddKernelNode(&kernel, g, &wait, 1, &k) == cudaSuccess);
  cudaGraphNodeType type{};
  REQUIRE(cudaGraphNodeGetType(wait, &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeWaitEvent);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);

  gate held, later;
  held.hold(producer);
  // The graph's kernel adds one to what the producer sets: 11, not 10.
  REQUIRE(cudaMemsetAsync(d, 0, sizeof(int), producer) == cudaSuccess);
  int ten = 10;
  REQUIRE(cudaMemcpyAsync(d, &ten, sizeof(int), cudaMemcpyHostToDevice, producer) == cudaSuccess);
  REQUIRE(cudaEventRecord(ready, producer) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, consumer) == cudaSuccess);
  // A record made after the launch is not the one the launch waits for.
  later.hold(producer);
  REQUIRE(cudaEventRecord(ready, producer) == cudaSuccess);
  int h = -1;
  CHECK(cudaStreamQuery(consumer) == cudaErrorNotReady);
  held.open();
  REQUIRE(cudaStreamSynchronize(consumer) == cudaSuccess);
  CHECK(cudaStreamQuery(producer) == cudaErrorNotReady);  // still held by `later`
  REQUIRE(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(h == 11);
  later.open();
  REQUIRE(cudaStreamSynchronize(producer) == cudaSuccess);

  // A never-recorded event is no wait; the event can be replaced.
  cudaEvent_t fresh = nullptr;
  REQUIRE(cudaEventCreate(&fresh) == cudaSuccess);
  REQUIRE(cudaGraphEventWaitNodeSetEvent(wait, fresh) == cudaSuccess);
  cudaEvent_t named = nullptr;
  REQUIRE(cudaGraphEventWaitNodeGetEvent(wait, &named) == cudaSuccess);
  CHECK(named == fresh);
  launch_once(g, consumer);
  REQUIRE(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(h == 12);

  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
  REQUIRE(cudaEventDestroy(ready) == cudaSuccess);
  REQUIRE(cudaEventDestroy(fresh) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(producer) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(consumer) == cudaSuccess);
  REQUIRE(cudaFree(d) == cudaSuccess);
}

TEST_CASE("event node calls refuse bad arguments with cudaErrorInvalidValue") {
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaEvent_t e = nullptr, gone = nullptr;
  REQUIRE(cudaEventCreate(&e) == cudaSuccess);
  REQUIRE(cudaEventCreate(&gone) == cudaSuccess);
  REQUIRE(cudaEventDestroy(gone) == cudaSuccess);
  cudaGraphNode_t n = nullptr, record = nullptr, wait = nullptr;
  check_failed_with(cudaGraphAddEventRecordNode(&n, g, nullptr, 0, nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaGraphAddEventRecordNode(&n, g, nullptr, 0, gone), cudaErrorInvalidValue);
  check_failed_with(cudaGraphAddEventRecordNode(nullptr, g, nullptr, 0, e), cudaErrorInvalidValue);
  check_failed_with(cudaGraphAddEventWaitNode(&n, nullptr, nullptr, 0, e), cudaErrorInvalidValue);
  check_failed_with(cudaGraphAddEventWaitNode(&n, g, nullptr, 2, e), cudaErrorInvalidValue);
  REQUIRE(cudaGraphAddEventRecordNode(&record, g, nullptr, 0, e) == cudaSuccess);
  REQUIRE(cudaGraphAddEventWaitNode(&wait, g, nullptr, 0, e) == cudaSuccess);
  cudaEvent_t out = nullptr;
  check_failed_with(cudaGraphEventRecordNodeGetEvent(wait, &out), cudaErrorInvalidValue);
  check_failed_with(cudaGraphEventWaitNodeGetEvent(record, &out), cudaErrorInvalidValue);
  check_failed_with(cudaGraphEventRecordNodeGetEvent(record, nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaGraphEventRecordNodeSetEvent(record, nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaGraphEventWaitNodeSetEvent(wait, gone), cudaErrorInvalidValue);
  check_failed_with(cudaGraphEventWaitNodeSetEvent(record, e), cudaErrorInvalidValue);
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
  REQUIRE(cudaEventDestroy(e) == cudaSuccess);
}

namespace {
void bump(void* counter) { ++*static_cast<int*>(counter); }
}  // namespace

TEST_CASE("cudaGraphAddNode adds every kind, and cudaGraphNodeSetParams changes them") {
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 4 * sizeof(int)) == cudaSuccess);
  std::vector<int> back(4, -1);
  int counter = 0;
  cudaEvent_t e = nullptr;
  REQUIRE(cudaEventCreate(&e) == cudaSuccess);
  cudaGraph_t g = nullptr, child = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  REQUIRE(cudaGraphCreate(&child, 0) == cudaSuccess);

  cudaGraphNodeParams set = node_params(cudaGraphNodeTypeMemset);
  set.memset.dst = d;
  set.memset.value = 3;
  set.memset.elementSize = 4;
  set.memset.width = 4;
  set.memset.height = 1;
  cudaGraphNode_t set_node = nullptr;
  REQUIRE(cudaGraphAddNode(&set_node, g, nullptr, nullptr, 0, &set) == cudaSuccess);

  int n = 4;
  void* args[] = {&d, &n};
  cudaGraphNodeParams kernel = node_params(cudaGraphNodeTypeKernel);
  kernel.kernel.func = reinterpret_cast<void*>(&add_one);
  kernel.kernel.gridDim = dim3(1);
  kernel.kernel.blockDim = dim3(4);
  kernel.kernel.kernelParams = args;
  cudaGraphNode_t kernel_node = nullptr;
  cudaGraphEdgeData edge{};
  REQUIRE(cudaGraphAddNode(&kernel_node, g, &set_node, &edge, 1, &kernel) == cudaSuccess);

  cudaGraphNodeParams record = node_params(cudaGraphNodeTypeEventRecord);
  record.eventRecord.event = e;
  cudaGraphNode_t record_node = nullptr;
  REQUIRE(cudaGraphAddNode(&record_node, g, &kernel_node, nullptr, 1, &record) == cudaSuccess);
  cudaGraphNodeParams wait = node_params(cudaGraphNodeTypeWaitEvent);
  wait.eventWait.event = e;
  cudaGraphNode_t wait_node = nullptr;
  REQUIRE(cudaGraphAddNode(&wait_node, g, &record_node, nullptr, 1, &wait) == cudaSuccess);

  cudaGraphNodeParams copy = node_params(cudaGraphNodeTypeMemcpy);
  copy.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(d, 4 * sizeof(int), 4 * sizeof(int), 1);
  copy.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(back.data(), 4 * sizeof(int), 4 * sizeof(int), 1);
  copy.memcpy.copyParams.extent = make_cudaExtent(4 * sizeof(int), 1, 1);
  copy.memcpy.copyParams.kind = cudaMemcpyDeviceToHost;
  cudaGraphNode_t copy_node = nullptr;
  REQUIRE(cudaGraphAddNode(&copy_node, g, &wait_node, nullptr, 1, &copy) == cudaSuccess);

  cudaGraphNodeParams host = node_params(cudaGraphNodeTypeHost);
  host.host.fn = bump;
  host.host.userData = &counter;
  cudaGraphNode_t host_node = nullptr;
  REQUIRE(cudaGraphAddNode(&host_node, child, nullptr, nullptr, 0, &host) == cudaSuccess);
  cudaGraphNodeParams empty = node_params(cudaGraphNodeTypeEmpty);
  cudaGraphNode_t empty_node = nullptr;
  REQUIRE(cudaGraphAddNode(&empty_node, child, &host_node, nullptr, 1, &empty) == cudaSuccess);
  cudaGraphNodeParams embed = node_params(cudaGraphNodeTypeGraph);
  embed.graph.graph = child;
  embed.graph.ownership = cudaGraphChildGraphOwnershipClone;
  cudaGraphNode_t child_node = nullptr;
  REQUIRE(cudaGraphAddNode(&child_node, g, &copy_node, nullptr, 1, &embed) == cudaSuccess);

  cudaGraphNodeType type{};
  const std::pair<cudaGraphNode_t, cudaGraphNodeType> expected[] = {
      {set_node, cudaGraphNodeTypeMemset},         {kernel_node, cudaGraphNodeTypeKernel},
      {record_node, cudaGraphNodeTypeEventRecord}, {wait_node, cudaGraphNodeTypeWaitEvent},
      {copy_node, cudaGraphNodeTypeMemcpy},        {child_node, cudaGraphNodeTypeGraph},
      {host_node, cudaGraphNodeTypeHost},          {empty_node, cudaGraphNodeTypeEmpty}};
  for (const auto& [node, kind] : expected) {
    REQUIRE(cudaGraphNodeGetType(node, &type) == cudaSuccess);
    CHECK(type == kind);
  }
  launch_once(g);
  CHECK(back == std::vector<int>{4, 4, 4, 4});
  CHECK(counter == 1);

  // Set: another value, another kernel shape, another host function argument.
  set.memset.value = 10;
  REQUIRE(cudaGraphNodeSetParams(set_node, &set) == cudaSuccess);
  kernel.kernel.blockDim = dim3(2);  // only the first two
  REQUIRE(cudaGraphNodeSetParams(kernel_node, &kernel) == cudaSuccess);
  copy.memcpy.copyParams.extent = make_cudaExtent(3 * sizeof(int), 1, 1);
  REQUIRE(cudaGraphNodeSetParams(copy_node, &copy) == cudaSuccess);
  REQUIRE(cudaGraphNodeSetParams(record_node, &record) == cudaSuccess);
  REQUIRE(cudaGraphNodeSetParams(wait_node, &wait) == cudaSuccess);
  REQUIRE(cudaGraphNodeSetParams(empty_node, &empty) == cudaSuccess);
  int counter2 = 0;
  host.host.userData = &counter2;
  REQUIRE(cudaGraphNodeSetParams(host_node, &host) == cudaSuccess);
  launch_once(g);
  CHECK(back == std::vector<int>{11, 11, 10, 4});
  CHECK(counter == 2);  // the child graph is the copy taken when it was added
  CHECK(counter2 == 0);

  SUBCASE("refusals") {
    cudaGraphNode_t node = nullptr;
    check_failed_with(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, nullptr), cudaErrorInvalidValue);
    cudaGraphNodeParams reserved = empty;
    reserved.reserved0[1] = 1;
    check_failed_with(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &reserved), cudaErrorInvalidValue);
    reserved = empty;
    reserved.reserved2 = 1;
    check_failed_with(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &reserved), cudaErrorInvalidValue);
    cudaGraphEdgeData programmatic{};
    programmatic.type = cudaGraphDependencyTypeProgrammatic;
    check_failed_with(cudaGraphAddNode(&node, g, &set_node, &programmatic, 1, &empty), cudaErrorInvalidValue);
    cudaGraphNodeParams flagged = copy;
    flagged.memcpy.flags = 1;
    check_failed_with(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &flagged), cudaErrorInvalidValue);
    cudaGraphNodeParams unknown = node_params(static_cast<cudaGraphNodeType>(12));
    check_failed_with(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &unknown), cudaErrorInvalidValue);
    cudaGraphNodeParams conditional = node_params(cudaGraphNodeTypeConditional);  // no handle
    check_failed_with(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &conditional), cudaErrorInvalidValue);
    cudaGraphNodeParams semaphore = node_params(cudaGraphNodeTypeExtSemaphoreSignal);
    check_failed_with(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &semaphore), cudaErrorNotSupported);
    cudaGraphNodeParams bad_kernel = kernel;
    bad_kernel.kernel.func = nullptr;
    check_failed_with(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &bad_kernel), cudaErrorInvalidDeviceFunction);
    cudaGraphNodeParams bad_ownership = embed;
    bad_ownership.graph.ownership = static_cast<cudaGraphChildGraphNodeOwnership>(5);
    check_failed_with(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &bad_ownership), cudaErrorInvalidValue);
    // The type must be the node's.
    check_failed_with(cudaGraphNodeSetParams(set_node, &kernel), cudaErrorInvalidValue);
    check_failed_with(cudaGraphNodeSetParams(nullptr, &kernel), cudaErrorInvalidValue);
    check_failed_with(cudaGraphNodeSetParams(set_node, nullptr), cudaErrorInvalidValue);
    check_failed_with(cudaGraphNodeSetParams(child_node, &embed), cudaErrorNotSupported);
  }
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(child) == cudaSuccess);
  REQUIRE(cudaEventDestroy(e) == cudaSuccess);
  REQUIRE(cudaFree(d) == cudaSuccess);
}

TEST_CASE("cudaGraphAddNode adds a conditional node, whose body runs as its handle says") {
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 2 * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemset(d, 0, 2 * sizeof(int)) == cudaSuccess);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphConditionalHandle taken{}, not_taken{};
  REQUIRE(cudaGraphConditionalHandleCreate(&taken, g, 1, cudaGraphCondAssignDefault) == cudaSuccess);
  REQUIRE(cudaGraphConditionalHandleCreate(&not_taken, g, 0, cudaGraphCondAssignDefault) == cudaSuccess);
  for (int i = 0; i < 2; ++i) {
    cudaGraphNodeParams p = node_params(cudaGraphNodeTypeConditional);
    p.conditional.handle = i == 0 ? taken : not_taken;
    p.conditional.type = cudaGraphCondTypeIf;
    p.conditional.size = 1;
    cudaGraphNode_t node = nullptr;
    REQUIRE(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &p) == cudaSuccess);
    REQUIRE(p.conditional.phGraph_out != nullptr);
    cudaGraphNodeType type{};
    REQUIRE(cudaGraphNodeGetType(node, &type) == cudaSuccess);
    CHECK(type == cudaGraphNodeTypeConditional);
    cudaMemsetParams set{d + i, 0, 5, sizeof(int), 1, 1};
    cudaGraphNode_t body_node = nullptr;
    REQUIRE(cudaGraphAddMemsetNode(&body_node, p.conditional.phGraph_out[0], nullptr, 0, &set) == cudaSuccess);
    check_failed_with(cudaGraphNodeSetParams(node, &p), cudaErrorNotSupported);
  }
  launch_once(g);
  int h[2] = {-1, -1};
  REQUIRE(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(h[0] == 5);
  CHECK(h[1] == 0);
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
  REQUIRE(cudaFree(d) == cudaSuccess);
}
