// cudaMallocFromPoolAsync: memory of a given pool, ordered in a stream,
// usable by kernels and copies, freed by cudaFreeAsync (in any stream) or
// cudaFree, and refused past the pool's maxSize.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "error_checks.hpp"

namespace {

cudaMemPool_t pool_allocation_make_pool(std::size_t max_size = 0) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location = {cudaMemLocationTypeDevice, 0};
  props.maxSize = max_size;
  cudaMemPool_t pool = nullptr;
  REQUIRE(cudaMemPoolCreate(&pool, &props) == cudaSuccess);
  return pool;
}

std::uint64_t pool_allocation_used(cudaMemPool_t pool) {
  std::uint64_t used = 0;
  REQUIRE(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess);
  return used;
}

__global__ void pool_allocation_fill(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i * 3;
}

}  // namespace

TEST_CASE("cudaMallocFromPoolAsync gives memory kernels and copies use") {
  cudaMemPool_t pool = pool_allocation_make_pool();
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  constexpr int n = 1000;
  int* d = nullptr;
  check_succeeded(cudaMallocFromPoolAsync(&d, n * sizeof(int), pool, s));
  REQUIRE(d != nullptr);
  cudaPointerAttributes attributes{};
  check_succeeded(cudaPointerGetAttributes(&attributes, d));
  CHECK(attributes.type == cudaMemoryTypeDevice);
  CHECK(attributes.device == 0);
  weft::launch(weft::launch_config{(n + 255) / 256, 256, 0, s}, pool_allocation_fill, d, n);
  std::vector<int> host(n);
  check_succeeded(cudaMemcpyAsync(host.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  check_succeeded(cudaFreeAsync(d, s));
  check_succeeded(cudaStreamSynchronize(s));
  std::vector<int> expected(n);
  for (int i = 0; i < n; ++i) expected[static_cast<std::size_t>(i)] = i * 3;
  CHECK(host == expected);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
  check_succeeded(cudaMemPoolDestroy(pool));
}

TEST_CASE("cudaMallocFromPoolAsync refuses bad arguments") {
  cudaMemPool_t pool = pool_allocation_make_pool();
  void* p = nullptr;
  check_failed_with(cudaMallocFromPoolAsync(static_cast<void**>(nullptr), 16, pool, 0), cudaErrorInvalidValue);
  check_failed_with(cudaMallocFromPoolAsync(&p, 16, nullptr, 0), cudaErrorInvalidValue);
  int not_a_pool = 0;
  check_failed_with(cudaMallocFromPoolAsync(&p, 16, reinterpret_cast<cudaMemPool_t>(&not_a_pool), 0),
                    cudaErrorInvalidValue);
  cudaStream_t gone = nullptr;
  REQUIRE(cudaStreamCreate(&gone) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(gone) == cudaSuccess);
  check_failed_with(cudaMallocFromPoolAsync(&p, 16, pool, gone), cudaErrorInvalidResourceHandle);
  // Zero bytes: no memory, and no error.
  p = &not_a_pool;
  check_succeeded(cudaMallocFromPoolAsync(&p, 0, pool, 0));
  CHECK(p == nullptr);
  CHECK(pool_allocation_used(pool) == 0);
  check_succeeded(cudaMemPoolDestroy(pool));
}

TEST_CASE("a pool's maxSize bounds what its live allocations hold") {
  constexpr std::size_t limit = 4096;
  cudaMemPool_t pool = pool_allocation_make_pool(limit);
  void* first = nullptr;
  void* second = nullptr;
  check_succeeded(cudaMallocFromPoolAsync(&first, 3000, pool, 0));
  check_failed_with(cudaMallocFromPoolAsync(&second, 2000, pool, 0), cudaErrorMemoryAllocation);
  CHECK(second == nullptr);
  check_succeeded(cudaMallocFromPoolAsync(&second, 1024, pool, 0));  // 3072 + 1024 fit
  check_succeeded(cudaFreeAsync(first, 0));
  check_succeeded(cudaStreamSynchronize(0));
  // The freed bytes make room again, cached or not.
  check_succeeded(cudaMallocFromPoolAsync(&first, 3000, pool, 0));
  check_succeeded(cudaFreeAsync(first, 0));
  check_succeeded(cudaFreeAsync(second, 0));
  check_succeeded(cudaMemPoolDestroy(pool));
}

TEST_CASE("pool memory may be freed in another stream, or by cudaFree") {
  cudaMemPool_t pool = pool_allocation_make_pool();
  cudaStream_t a = nullptr, b = nullptr;
  REQUIRE(cudaStreamCreate(&a) == cudaSuccess);
  REQUIRE(cudaStreamCreate(&b) == cudaSuccess);
  void* d = nullptr;
  check_succeeded(cudaMallocFromPoolAsync(&d, 256, pool, a));
  check_succeeded(cudaStreamSynchronize(a));  // the program orders the free after the allocation
  check_succeeded(cudaFreeAsync(d, b));
  check_succeeded(cudaStreamSynchronize(b));
  CHECK(pool_allocation_used(pool) == 0);
  check_failed_with(cudaFreeAsync(d, b), cudaErrorInvalidValue);  // already freed
  check_succeeded(cudaMallocFromPoolAsync(&d, 256, pool, a));
  CHECK(pool_allocation_used(pool) == 512);
  check_succeeded(cudaFree(d));
  CHECK(pool_allocation_used(pool) == 0);
  REQUIRE(cudaStreamDestroy(a) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(b) == cudaSuccess);
  check_succeeded(cudaMemPoolDestroy(pool));
}

TEST_CASE("cudaMallocAsync counts its memory in the default pool") {
  cudaMemPool_t default_pool = nullptr;
  REQUIRE(cudaDeviceGetDefaultMemPool(&default_pool, 0) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::uint64_t before = pool_allocation_used(default_pool);
  void* d = nullptr;
  check_succeeded(cudaMallocAsync(&d, 1, 0));
  CHECK(pool_allocation_used(default_pool) == before + 512);
  check_succeeded(cudaFreeAsync(d, 0));
  check_succeeded(cudaDeviceSynchronize());
  CHECK(pool_allocation_used(default_pool) == before);
}

TEST_CASE("multi_device: a pool of another device than the stream's allocates on its own device" *
          doctest::test_suite("multi_device")) {
  int n = 0;
  REQUIRE(cudaGetDeviceCount(&n) == cudaSuccess);
  if (n < 2) return;  // run by the WEFT_DEVICES=3 ctest test
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location = {cudaMemLocationTypeDevice, 2};
  cudaMemPool_t pool = nullptr;
  REQUIRE(cudaMemPoolCreate(&pool, &props) == cudaSuccess);
  void* d = nullptr;
  check_succeeded(cudaMallocFromPoolAsync(&d, 64, pool, 0));  // device 0's stream
  cudaPointerAttributes attributes{};
  check_succeeded(cudaPointerGetAttributes(&attributes, d));
  CHECK(attributes.device == 2);
  CHECK(pool_allocation_used(pool) == 512);
  check_succeeded(cudaFreeAsync(d, 0));
  check_succeeded(cudaStreamSynchronize(0));
  CHECK(pool_allocation_used(pool) == 0);
  check_succeeded(cudaMemPoolDestroy(pool));
}

TEST_CASE("a captured cudaMallocFromPoolAsync becomes an allocation node, its free a free node") {
  cudaMemPool_t pool = pool_allocation_make_pool();
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  int* d = nullptr;
  check_succeeded(cudaMallocFromPoolAsync(&d, 64 * sizeof(int), pool, s));
  CHECK(d != nullptr);
  check_succeeded(cudaMemsetAsync(d, 0, 64 * sizeof(int), s));
  check_succeeded(cudaFreeAsync(d, s));
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);
  std::size_t count = 0;
  REQUIRE(cudaGraphGetNodes(graph, nullptr, &count) == cudaSuccess);
  REQUIRE(count == 3);
  std::vector<cudaGraphNode_t> nodes(count);
  REQUIRE(cudaGraphGetNodes(graph, nodes.data(), &count) == cudaSuccess);
  std::vector<cudaGraphNodeType> types;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    REQUIRE(cudaGraphNodeGetType(node, &type) == cudaSuccess);
    types.push_back(type);
  }
  CHECK(types ==
        std::vector<cudaGraphNodeType>{cudaGraphNodeTypeMemAlloc, cudaGraphNodeTypeMemset, cudaGraphNodeTypeMemFree});
  CHECK(pool_allocation_used(pool) == 0);  // the graph's memory, not the pool's
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  check_succeeded(cudaGraphLaunch(exec, s));
  check_succeeded(cudaStreamSynchronize(s));
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
  check_succeeded(cudaMemPoolDestroy(pool));
}

TEST_CASE("a fault report near pool memory names the calls that make it") {
  cudaMemPool_t pool = pool_allocation_make_pool();
  char* d = nullptr;
  REQUIRE(cudaMallocFromPoolAsync(&d, 100, pool, 0) == cudaSuccess);
  REQUIRE(static_cast<bool>(weft::detail::describe_address_near_allocation));
  std::string text = weft::detail::describe_address_near_allocation(d + 120);
  CHECK(text.find("20 bytes past the end of the 100-byte allocation") != std::string::npos);
  CHECK(text.find("made by cudaMallocAsync or cudaMallocFromPoolAsync") != std::string::npos);
  REQUIRE(cudaFreeAsync(d, 0) == cudaSuccess);
  check_succeeded(cudaMemPoolDestroy(pool));
}
