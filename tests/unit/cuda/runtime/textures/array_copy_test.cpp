// Copies to, from and between CUDA arrays: every direction (host, linear
// device memory, arrays), the 2D, deprecated 1D, 3D and 3D peer forms, in
// stream order, captured into a graph and as graph memcpy nodes, bit for
// bit; and the codes bad copies get.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "error_checks.hpp"
#include "stream_gates.hpp"

namespace {

/// Distinct bytes, none zero, so that a lost or misplaced byte shows.
std::vector<std::uint8_t> pattern(std::size_t n, unsigned seed = 1) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>((i * 7 + seed * 13) % 251 + 1);
  return v;
}

struct array_holder {
  cudaArray_t a = nullptr;
  array_holder(cudaChannelFormatDesc desc, cudaExtent extent, unsigned flags = 0) {
    REQUIRE(cudaMalloc3DArray(&a, &desc, extent, flags) == cudaSuccess);
  }
  array_holder(const array_holder&) = delete;
  array_holder& operator=(const array_holder&) = delete;
  ~array_holder() { cudaFreeArray(a); }
};

}  // namespace

TEST_CASE("2D copies: host to array and back, with offsets and pitches, bit for bit") {
  // float2 texels: 8 bytes; 10 x 6 texels.
  array_holder arr(cudaCreateChannelDesc<float2>(), make_cudaExtent(10, 6, 0));
  const std::size_t row = 10 * 8, rows = 6;
  auto whole = pattern(row * rows);
  check_succeeded(cudaMemcpy2DToArray(arr.a, 0, 0, whole.data(), row, row, rows, cudaMemcpyHostToDevice));
  // A window of 3 texels x 2 rows from texel (4, 3), into a host buffer of pitch 40.
  std::vector<std::uint8_t> window(40 * 2, 0);
  check_succeeded(cudaMemcpy2DFromArray(window.data(), 40, arr.a, 4 * 8, 3, 3 * 8, 2, cudaMemcpyDeviceToHost));
  for (std::size_t y = 0; y < 2; ++y) {
    CHECK(std::memcmp(&window[y * 40], &whole[(3 + y) * row + 4 * 8], 24) == 0);
    for (std::size_t x = 24; x < 40; ++x) CHECK(window[y * 40 + x] == 0);  // the pitch's padding is left alone
  }
  // Write the window back elsewhere from a pitched host buffer, and read the whole array.
  check_succeeded(cudaMemcpy2DToArray(arr.a, 0, 0, window.data(), 40, 24, 2, cudaMemcpyHostToDevice));
  std::vector<std::uint8_t> back(row * rows);
  check_succeeded(cudaMemcpy2DFromArray(back.data(), row, arr.a, 0, 0, row, rows, cudaMemcpyDeviceToHost));
  auto expected = whole;
  for (std::size_t y = 0; y < 2; ++y) std::memcpy(&expected[y * row], &whole[(3 + y) * row + 32], 24);
  CHECK(back == expected);
  // cudaMemcpyDefault finds the host side itself.
  std::vector<std::uint8_t> again(row * rows);
  check_succeeded(cudaMemcpy2DFromArray(again.data(), row, arr.a, 0, 0, row, rows, cudaMemcpyDefault));
  CHECK(again == expected);
}

TEST_CASE("2D copies between arrays and linear device memory, and between arrays") {
  array_holder a(cudaCreateChannelDesc<unsigned short>(), make_cudaExtent(16, 8, 0));
  array_holder b(cudaCreateChannelDesc<short>(), make_cudaExtent(16, 8, 0));
  const std::size_t row = 32;
  auto data = pattern(row * 8, 3);
  void* linear = nullptr;
  std::size_t pitch = 0;
  REQUIRE(cudaMallocPitch(&linear, &pitch, row, 8) == cudaSuccess);
  REQUIRE(cudaMemcpy2D(linear, pitch, data.data(), row, row, 8, cudaMemcpyHostToDevice) == cudaSuccess);
  check_succeeded(cudaMemcpy2DToArray(a.a, 0, 0, linear, pitch, row, 8, cudaMemcpyDeviceToDevice));
  // Rows 2..5, texels 4..11 of a into the top left corner of b.
  std::vector<std::uint8_t> zeros(row * 8, 0);
  REQUIRE(cudaMemcpy2DToArray(b.a, 0, 0, zeros.data(), row, row, 8, cudaMemcpyHostToDevice) == cudaSuccess);
  check_succeeded(cudaMemcpy2DArrayToArray(b.a, 0, 0, a.a, 8, 2, 16, 4));
  REQUIRE(cudaMemset2D(linear, pitch, 0, row, 8) == cudaSuccess);
  check_succeeded(cudaMemcpy2DFromArray(linear, pitch, b.a, 0, 0, row, 8, cudaMemcpyDeviceToDevice));
  std::vector<std::uint8_t> back(row * 8);
  REQUIRE(cudaMemcpy2D(back.data(), row, linear, pitch, row, 8, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (std::size_t y = 0; y < 8; ++y)
    for (std::size_t x = 0; x < row; ++x) {
      std::uint8_t want = y < 4 && x < 16 ? data[(y + 2) * row + 8 + x] : 0;
      CHECK(back[y * row + x] == want);
    }
  REQUIRE(cudaFree(linear) == cudaSuccess);
}

TEST_CASE("the deprecated 1D forms run on into the following rows") {
  array_holder a(cudaCreateChannelDesc<uchar4>(), make_cudaExtent(4, 4, 0));  // rows of 16 bytes
  auto data = pattern(64, 5);
  std::vector<std::uint8_t> zeros(64, 0);
  REQUIRE(cudaMemcpyToArray(a.a, 0, 0, zeros.data(), 64, cudaMemcpyHostToDevice) == cudaSuccess);
  // 24 bytes from byte 8 of row 1: the rest of row 1 and half of row 2.
  check_succeeded(cudaMemcpyToArray(a.a, 8, 1, data.data(), 24, cudaMemcpyHostToDevice));
  std::vector<std::uint8_t> back(64);
  check_succeeded(cudaMemcpyFromArray(back.data(), a.a, 0, 0, 64, cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < 64; ++i) CHECK(back[i] == (i >= 24 && i < 48 ? data[i - 24] : 0));
  // Array to array, and back through the 2D form.
  array_holder b(cudaCreateChannelDesc<uchar4>(), make_cudaExtent(4, 4, 0));
  REQUIRE(cudaMemcpyToArray(b.a, 0, 0, zeros.data(), 64, cudaMemcpyHostToDevice) == cudaSuccess);
  check_succeeded(cudaMemcpyArrayToArray(b.a, 0, 3, a.a, 8, 1, 16));
  std::vector<std::uint8_t> row3(16);
  check_succeeded(cudaMemcpy2DFromArray(row3.data(), 16, b.a, 0, 3, 16, 1, cudaMemcpyDeviceToHost));
  CHECK(std::memcmp(row3.data(), data.data(), 16) == 0);
  // Past the end of the array.
  check_failed_with(cudaMemcpyToArray(a.a, 8, 3, data.data(), 9, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpyFromArray(back.data(), a.a, 16, 0, 1, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpyToArray(a.a, 0, 4, data.data(), 1, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
}

TEST_CASE("cudaMemcpy3D with arrays: positions and extent in the array's elements") {
  // A 3D array of int2 (8 bytes), 5 x 4 x 3.
  array_holder a(cudaCreateChannelDesc<int2>(), make_cudaExtent(5, 4, 3));
  const std::size_t row = 5 * 8, slice = row * 4;
  auto data = pattern(slice * 3, 7);
  cudaMemcpy3DParms up{};
  up.srcPtr = make_cudaPitchedPtr(data.data(), row, 5 * 8, 4);
  up.dstArray = a.a;
  up.extent = make_cudaExtent(5, 4, 3);
  up.kind = cudaMemcpyHostToDevice;
  check_succeeded(cudaMemcpy3D(&up));
  // Back: the box 2 x 2 x 2 at element (3, 1, 1), into a host box of pitch 16 bytes.
  std::vector<std::uint8_t> box(16 * 2 * 2);
  cudaMemcpy3DParms down{};
  down.srcArray = a.a;
  down.srcPos = make_cudaPos(3, 1, 1);
  down.dstPtr = make_cudaPitchedPtr(box.data(), 16, 16, 2);
  down.extent = make_cudaExtent(2, 2, 2);
  down.kind = cudaMemcpyDeviceToHost;
  check_succeeded(cudaMemcpy3D(&down));
  for (std::size_t z = 0; z < 2; ++z)
    for (std::size_t y = 0; y < 2; ++y)
      CHECK(std::memcmp(&box[(z * 2 + y) * 16], &data[(1 + z) * slice + (1 + y) * row + 3 * 8], 16) == 0);

  // Array to array, both of 8-byte elements (float2 and int2).
  array_holder b(cudaCreateChannelDesc<float2>(), make_cudaExtent(5, 4, 3));
  cudaMemcpy3DParms across{};
  across.srcArray = a.a;
  across.dstArray = b.a;
  across.extent = make_cudaExtent(5, 4, 3);
  across.kind = cudaMemcpyDeviceToDevice;
  check_succeeded(cudaMemcpy3D(&across));
  std::vector<std::uint8_t> all(slice * 3);
  cudaMemcpy3DParms read{};
  read.srcArray = b.a;
  read.dstPtr = make_cudaPitchedPtr(all.data(), row, row, 4);
  read.extent = make_cudaExtent(5, 4, 3);
  read.kind = cudaMemcpyDeviceToHost;
  check_succeeded(cudaMemcpy3D(&read));
  CHECK(all == data);

  // Refused: elements of different sizes, an array and a pointer on one
  // side, a box past the array, a freed array.
  array_holder c(cudaCreateChannelDesc<float>(), make_cudaExtent(5, 4, 3));
  auto bad = across;
  bad.dstArray = c.a;
  check_failed_with(cudaMemcpy3D(&bad), cudaErrorInvalidValue);
  bad = down;
  bad.srcPtr = make_cudaPitchedPtr(box.data(), 16, 16, 2);
  check_failed_with(cudaMemcpy3D(&bad), cudaErrorInvalidValue);
  bad = down;
  bad.srcPos = make_cudaPos(4, 1, 1);  // elements 4 and 5 of 5
  check_failed_with(cudaMemcpy3D(&bad), cudaErrorInvalidValue);
  bad = down;
  bad.srcPos = make_cudaPos(0, 0, 2);  // slices 2 and 3 of 3
  check_failed_with(cudaMemcpy3D(&bad), cudaErrorInvalidValue);
  cudaArray_t gone = nullptr;
  auto desc = cudaCreateChannelDesc<int2>();
  REQUIRE(cudaMalloc3DArray(&gone, &desc, make_cudaExtent(5, 4, 3)) == cudaSuccess);
  REQUIRE(cudaFreeArray(gone) == cudaSuccess);
  bad = down;
  bad.srcArray = gone;
  check_failed_with(cudaMemcpy3D(&bad), cudaErrorInvalidResourceHandle);
}

TEST_CASE("cudaMemcpy3D reaches each layer of a layered array and each face of a cubemap") {
  array_holder cube(cudaCreateChannelDesc<float>(), make_cudaExtent(2, 2, 12), cudaArrayCubemap | cudaArrayLayered);
  const std::size_t face = 2 * 2 * 4;
  auto data = pattern(face * 12, 9);
  cudaMemcpy3DParms up{};
  up.srcPtr = make_cudaPitchedPtr(data.data(), 8, 8, 2);
  up.dstArray = cube.a;
  up.extent = make_cudaExtent(2, 2, 12);
  up.kind = cudaMemcpyHostToDevice;
  check_succeeded(cudaMemcpy3D(&up));
  // Face 4 (+z) of the second cube is layer 6 + 4.
  std::vector<std::uint8_t> one(face);
  cudaMemcpy3DParms down{};
  down.srcArray = cube.a;
  down.srcPos = make_cudaPos(0, 0, 10);
  down.dstPtr = make_cudaPitchedPtr(one.data(), 8, 8, 2);
  down.extent = make_cudaExtent(2, 2, 1);
  down.kind = cudaMemcpyDeviceToHost;
  check_succeeded(cudaMemcpy3D(&down));
  CHECK(std::memcmp(one.data(), &data[10 * face], face) == 0);

  // A 1D layered array: one row per layer.
  array_holder layers(cudaCreateChannelDesc<char2>(), make_cudaExtent(3, 0, 4), cudaArrayLayered);
  auto row_data = pattern(6 * 4, 11);
  cudaMemcpy3DParms rows{};
  rows.srcPtr = make_cudaPitchedPtr(row_data.data(), 6, 6, 1);
  rows.dstArray = layers.a;
  rows.extent = make_cudaExtent(3, 1, 4);
  rows.kind = cudaMemcpyHostToDevice;
  check_succeeded(cudaMemcpy3D(&rows));
  std::vector<std::uint8_t> layer2(6);
  REQUIRE(cudaMemcpy2DFromArray(layer2.data(), 6, layers.a, 0, 0, 6, 1, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(std::memcmp(layer2.data(), row_data.data(), 6) == 0);
  cudaMemcpy3DParms layer{};
  layer.srcArray = layers.a;
  layer.srcPos = make_cudaPos(0, 0, 2);
  layer.dstPtr = make_cudaPitchedPtr(layer2.data(), 6, 6, 1);
  layer.extent = make_cudaExtent(3, 1, 1);
  layer.kind = cudaMemcpyDeviceToHost;
  check_succeeded(cudaMemcpy3D(&layer));
  CHECK(std::memcmp(layer2.data(), &row_data[12], 6) == 0);
}

TEST_CASE("2D array copies refuse boxes outside the array, bad handles and bad kinds") {
  array_holder a(cudaCreateChannelDesc<float>(), make_cudaExtent(4, 4, 0));  // 16 bytes x 4 rows
  std::vector<std::uint8_t> host(64, 1);
  auto h2d = cudaMemcpyHostToDevice;
  check_failed_with(cudaMemcpy2DToArray(a.a, 4, 0, host.data(), 16, 16, 1, h2d), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpy2DToArray(a.a, 0, 1, host.data(), 16, 16, 4, h2d), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpy2DToArray(a.a, 0, 0, host.data(), 8, 16, 1, h2d),
                    cudaErrorInvalidValue);  // width > pitch
  check_failed_with(cudaMemcpy2DToArray(nullptr, 0, 0, host.data(), 16, 16, 1, h2d), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaMemcpy2DToArray(a.a, 0, 0, host.data(), 16, 16, 1, static_cast<cudaMemcpyKind>(7)),
                    cudaErrorInvalidMemcpyDirection);
  // The kind says where the pointer is: a host buffer is no device memory.
  check_failed_with(cudaMemcpy2DToArray(a.a, 0, 0, host.data(), 16, 16, 1, cudaMemcpyDeviceToDevice),
                    cudaErrorInvalidValue);
  check_failed_with(cudaMemcpy2DFromArray(host.data(), 16, a.a, 0, 3, 16, 2, cudaMemcpyDeviceToHost),
                    cudaErrorInvalidValue);
  check_failed_with(cudaMemcpy2DArrayToArray(a.a, 0, 0, a.a, 8, 0, 16, 1), cudaErrorInvalidValue);
  // Nothing to copy: nothing is checked but the array.
  check_succeeded(cudaMemcpy2DToArray(a.a, 0, 0, nullptr, 16, 0, 0, h2d));
}

TEST_CASE("async array copies are ordered in their stream") {
  gate g;
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  array_holder a(cudaCreateChannelDesc<uint4>(), make_cudaExtent(8, 8, 0));  // 128-byte rows
  auto data = pattern(128 * 8, 13);
  std::vector<std::uint8_t> back(128 * 8, 0), run(256, 0);
  g.hold(s);
  check_succeeded(cudaMemcpy2DToArrayAsync(a.a, 0, 0, data.data(), 128, 128, 8, cudaMemcpyHostToDevice, s));
  check_succeeded(cudaMemcpy2DFromArrayAsync(back.data(), 128, a.a, 0, 0, 128, 8, cudaMemcpyDeviceToHost, s));
  check_succeeded(cudaMemcpyFromArrayAsync(run.data(), a.a, 64, 2, 256, cudaMemcpyDeviceToHost, s));
  check_succeeded(cudaMemcpyToArrayAsync(a.a, 0, 0, run.data(), 16, cudaMemcpyHostToDevice, s));
  CHECK(cudaStreamQuery(s) == cudaErrorNotReady);
  CHECK(back == std::vector<std::uint8_t>(128 * 8, 0));  // nothing ran while the stream was held
  g.open();
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(back == data);
  CHECK(std::memcmp(run.data(), &data[2 * 128 + 64], 256) == 0);
  std::vector<std::uint8_t> first(16);
  REQUIRE(cudaMemcpyFromArray(first.data(), a.a, 0, 0, 16, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(std::memcmp(first.data(), run.data(), 16) == 0);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE("array copies captured into a graph are memcpy nodes that name the array") {
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  array_holder a(cudaCreateChannelDesc<float>(), make_cudaExtent(4, 3, 0));
  auto data = pattern(16 * 3, 17);
  std::vector<std::uint8_t> back(16 * 3, 0);
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  check_succeeded(cudaMemcpy2DToArrayAsync(a.a, 4, 1, data.data(), 16, 8, 2, cudaMemcpyHostToDevice, s));
  check_succeeded(cudaMemcpy2DFromArrayAsync(back.data(), 16, a.a, 0, 0, 16, 3, cudaMemcpyDeviceToHost, s));
  // A synchronous copy would not be repeated by a launch: refused while capturing.
  check_failed_with(cudaMemcpy2DToArray(a.a, 0, 0, data.data(), 16, 16, 1, cudaMemcpyHostToDevice),
                    cudaErrorStreamCaptureImplicit);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaErrorStreamCaptureInvalidated);
  CHECK(graph == nullptr);
  cudaGetLastError();

  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  check_succeeded(cudaMemcpy2DToArrayAsync(a.a, 0, 0, data.data(), 16, 16, 3, cudaMemcpyHostToDevice, s));
  check_succeeded(cudaMemcpy2DFromArrayAsync(back.data(), 16, a.a, 4, 1, 8, 2, cudaMemcpyDeviceToHost, s));
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);
  CHECK(back == std::vector<std::uint8_t>(16 * 3, 0));  // captured, not run
  std::size_t count = 0;
  REQUIRE(cudaGraphGetNodes(graph, nullptr, &count) == cudaSuccess);
  REQUIRE(count == 2);
  std::vector<cudaGraphNode_t> nodes(count);
  REQUIRE(cudaGraphGetNodes(graph, nodes.data(), &count) == cudaSuccess);
  bool saw_read = false;
  for (cudaGraphNode_t n : nodes) {
    cudaMemcpy3DParms p{};
    REQUIRE(cudaGraphMemcpyNodeGetParams(n, &p) == cudaSuccess);
    if (p.srcArray) {
      saw_read = true;
      CHECK(p.srcArray == a.a);
      CHECK(p.srcPos.x == 1);  // byte 4 is float element 1
      CHECK(p.srcPos.y == 1);
      CHECK(p.extent.width == 2);
      CHECK(p.extent.height == 2);
    } else {
      CHECK(p.dstArray == a.a);
    }
  }
  CHECK(saw_read);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  for (std::size_t y = 0; y < 2; ++y) CHECK(std::memcmp(&back[y * 16], &data[(1 + y) * 16 + 4], 8) == 0);
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE("graph memcpy nodes with cudaMemcpy3DParms naming arrays") {
  array_holder a(cudaCreateChannelDesc<ushort4>(), make_cudaExtent(3, 2, 2));  // 8-byte elements
  auto data = pattern(24 * 2 * 2, 19);
  std::vector<std::uint8_t> back(data.size(), 0);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaMemcpy3DParms up{};
  up.srcPtr = make_cudaPitchedPtr(data.data(), 24, 24, 2);
  up.dstArray = a.a;
  up.extent = make_cudaExtent(3, 2, 2);
  up.kind = cudaMemcpyHostToDevice;
  cudaGraphNode_t write = nullptr, read = nullptr;
  check_succeeded(cudaGraphAddMemcpyNode(&write, g, nullptr, 0, &up));
  cudaMemcpy3DParms down{};
  down.srcArray = a.a;
  down.dstPtr = make_cudaPitchedPtr(back.data(), 24, 24, 2);
  down.extent = make_cudaExtent(3, 2, 2);
  down.kind = cudaMemcpyDeviceToHost;
  check_succeeded(cudaGraphAddMemcpyNode(&read, g, &write, 1, &down));
  cudaMemcpy3DParms got{};
  check_succeeded(cudaGraphMemcpyNodeGetParams(write, &got));
  CHECK(got.dstArray == a.a);
  CHECK(got.srcArray == nullptr);
  CHECK(got.srcPtr.ptr == data.data());
  CHECK(got.extent.width == 3);
  CHECK(got.extent.depth == 2);
  auto bad = down;
  bad.srcPos = make_cudaPos(1, 0, 0);
  check_failed_with(cudaGraphAddMemcpyNode(&read, g, nullptr, 0, &bad), cudaErrorInvalidValue);
  check_failed_with(cudaGraphMemcpyNodeSetParams(read, &bad), cudaErrorInvalidValue);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(nullptr) == cudaSuccess);
  CHECK(back == data);
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(g) == cudaSuccess);
}

TEST_CASE("cudaMemcpy3DPeer and its async form copy arrays between devices") {
  array_holder a(cudaCreateChannelDesc<int>(), make_cudaExtent(4, 2, 0));
  auto data = pattern(32, 23);
  std::vector<std::uint8_t> back(32, 0);
  void* linear = nullptr;
  REQUIRE(cudaMalloc(&linear, 32) == cudaSuccess);
  REQUIRE(cudaMemcpy(linear, data.data(), 32, cudaMemcpyHostToDevice) == cudaSuccess);
  cudaMemcpy3DPeerParms p{};
  p.srcPtr = make_cudaPitchedPtr(linear, 16, 16, 2);
  p.srcDevice = 0;
  p.dstArray = a.a;
  p.dstDevice = 0;
  p.extent = make_cudaExtent(4, 2, 1);
  check_succeeded(cudaMemcpy3DPeer(&p));
  REQUIRE(cudaMemset(linear, 0, 32) == cudaSuccess);
  cudaMemcpy3DPeerParms q{};
  q.srcArray = a.a;
  q.dstPtr = make_cudaPitchedPtr(linear, 16, 16, 2);
  q.extent = make_cudaExtent(4, 2, 1);
  check_succeeded(cudaMemcpy3DPeerAsync(&q, nullptr));
  REQUIRE(cudaMemcpy(back.data(), linear, 32, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(back == data);
  q.dstDevice = 64;
  check_failed_with(cudaMemcpy3DPeer(&q), cudaErrorInvalidDevice);
  check_failed_with(cudaMemcpy3DPeer(nullptr), cudaErrorInvalidValue);
  static_assert(sizeof(cudaMemcpy3DPeerParms) == 168, "CUDA 13's layout");
  REQUIRE(cudaFree(linear) == cudaSuccess);
}
