// Built-in variables and index math in 1D, 2D and 3D launches.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <vector>

TEST_CASE("vector add over a grid whose last block is partial") {
  const int n = 1000;
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) a[i] = float(i), b[i] = float(2 * i);
  float *da, *db, *dc;
  REQUIRE(cudaMalloc(&da, n * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMalloc(&db, n * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMalloc(&dc, n * sizeof(float)) == cudaSuccess);
  cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  auto add = [](const float* x, const float* y, float* z, int count) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < count) z[i] = x[i] + y[i];
  };
  CHECK(weft::launch((n + 255) / 256, 256, add, da, db, dc, n) == cudaSuccess);
  REQUIRE(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int i = 0; i < n; ++i) CHECK(c[i] == float(3 * i));
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}
