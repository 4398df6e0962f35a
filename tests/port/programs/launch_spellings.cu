// Launch spellings that nvcc accepts, run: clang-format's `<< <` and `>> >`,
// chevrons and arguments over lines with comments, template arguments
// ending in `>>`, a launch in a macro, and a kernel with a default argument
// launched without it (the pattern of cuda-samples' shfl_scan). Prints PASS
// or FAIL.
#include <cstdio>

template <class T>
struct wrapped {
  T value;
};

template <class T>
__global__ void store(T* out, int value) {
  out[threadIdx.x].value.value = value;
}

// Adds the block's partial sum when there is one.
__global__ void add_partial(int* data, int width, int* partial_sums = nullptr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] += width + (partial_sums ? partial_sums[blockIdx.x] : 0);
}

// The spellings are the test (older clang-format writes `<< <`).
// clang-format off
#define ADD(data, width) add_partial << < 1, 32 >> > (data, width)
// clang-format on

int main() {
  int *data, *sums;
  wrapped<wrapped<int>>* boxes;
  cudaMallocManaged(&data, 64 * sizeof(int));
  cudaMallocManaged(&sums, 2 * sizeof(int));
  cudaMallocManaged(&boxes, 32 * sizeof(wrapped<wrapped<int>>));
  for (int i = 0; i < 64; ++i) data[i] = 0;
  sums[0] = 100;
  sums[1] = 200;
  // clang-format off
  add_partial << < 2, 32 >> > (data, 1, sums);  // 101 and 201
  add_partial <<<
      /* grid */ 2,
      32  // block
  >>>
  (data,  // no partial sums: the default
   2);    // 103 and 203
  ADD(data, 4);  // the first block only: 107
  store<wrapped<wrapped<int>>><<<1, 32>>>(boxes, 5);
  store<wrapped<wrapped<int>>> << < 1, 16 >> > (boxes, 6);
  // clang-format on
  cudaDeviceSynchronize();
  int errors = 0;
  for (int i = 0; i < 64; ++i) errors += data[i] != (i < 32 ? 107 : 203);
  for (int i = 0; i < 32; ++i) errors += boxes[i].value.value != (i < 16 ? 6 : 5);
  std::printf(errors == 0 ? "PASS\n" : "FAIL: %d wrong values\n", errors);
  return errors == 0 ? 0 : 1;
}
