// Deliberate compile errors. The test builds this file and checks that g++
// reports each line that ends in an ERROR-HERE comment at this file's own
// line numbers, after a namespace-scope extern __shared__ (whose helper
// lengthens the port's prelude), a launch spread over several lines, and in
// a kernel weft-port converts to a stackless kernel.
#include <cstdio>

extern __shared__ float shared_values[];

__global__ void scale(float* data, float factor, int n) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = data[threadIdx.x] * factor;
}

__global__ void swap_pairs(int* data) {
  __shared__ int pairs[64];
  pairs[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = pairs[threadIdx.x ^ 1] + undeclared_in_a_stackless_kernel;  // ERROR-HERE
}

int main() {
  float* d = nullptr;
  swap_pairs<<<1, 64>>>(nullptr);
  // The line layout is what the test checks.
  // clang-format off
  scale<<<1,
          32,
          32 * sizeof(float)>>>(d,
                                2.0f,
                                not_declared_anywhere);  // ERROR-HERE
  int wrong = "not an int";  // ERROR-HERE
  // clang-format on
  std::printf("%d\n", wrong);
  return 0;
}
