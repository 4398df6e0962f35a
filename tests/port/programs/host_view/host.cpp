// port.program.host_view, the host side, compiled as it is (no __CUDACC__),
// as nvcc's host compiler compiles a .cpp. Like cuda-samples'
// mergeSort_host.cpp it includes <cuda_runtime.h> and defines functions
// named as CUDA's device functions: with CUDA, a .cpp does not see those,
// and with weft it must not either, or this file does not compile
// ("redefinition of umin"). The runtime API is there.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

typedef unsigned int uint;

static inline uint umin(uint a, uint b) { return a <= b ? a : b; }
static inline int __mul24(int a, int b) { return a * b; }  // the operands are below 2^23
static inline int min(int a, int b) { return a < b ? a : b; }
static inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
static const int warpSize = 32;  // a variable on the device

template <typename T>
static std::vector<T> to_host(const T* device, int n) {
  std::vector<T> host(n);
  cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost);
  return host;
}

int count_mismatches(int n, const uint* d_a, const uint* d_b, const uint* d_mins, const int* d_products,
                     const float* d_roots, const uint* d_mixed_mins, const double* d_mixed_maxes,
                     const unsigned long long* d_sum) {
  std::vector<uint> a = to_host(d_a, n), b = to_host(d_b, n), mins = to_host(d_mins, n);
  std::vector<uint> mixed_mins = to_host(d_mixed_mins, n);
  std::vector<int> products = to_host(d_products, n);
  std::vector<float> roots = to_host(d_roots, n);
  std::vector<double> mixed_maxes = to_host(d_mixed_maxes, n);
  unsigned long long sum = to_host(d_sum, 1)[0], expected_sum = 0;
  int mismatches = 0;
  for (int i = 0; i < n; ++i) {
    int ai = static_cast<int>(a[i]), bi = static_cast<int>(b[i]);
    uint mixed_min = ai == 0 ? b[i] : umin(a[i] - 1, b[i]);
    double mixed_max = std::fmax(a[i] * 0.5, b[i] * 0.25);
    float root = rsqrtf(static_cast<float>(a[i] + 1));
    bool right = mins[i] == umin(a[i], b[i]) && products[i] == __mul24(ai, bi) &&
                 std::fabs(roots[i] - root) <= 4e-7f * root && mixed_mins[i] == mixed_min &&
                 mixed_maxes[i] == mixed_max;
    if (!right && mismatches++ < 5) std::printf("element %d (a %u, b %u) differs\n", i, a[i], b[i]);
    expected_sum += static_cast<unsigned long long>(min(ai, bi));
  }
  if (sum != expected_sum) {
    std::printf("the atomic sum is %llu, not %llu\n", sum, expected_sum);
    ++mismatches;
  }
  if (warpSize != 32) ++mismatches;
  return mismatches;
}
