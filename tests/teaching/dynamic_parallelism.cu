// Dynamic parallelism, as CUDA courses teach it with CDP2 (CUDA 12 and
// later): a kernel that launches kernels. A quicksort partitions its range
// on the GPU and launches one child grid per half into
// cudaStreamFireAndForget, recursing until a range is small enough for a
// selection sort; the host waits only for the top-level launch, since a
// parent grid is not complete until all its children are. A tail launch
// (cudaStreamTailLaunch) then checks the order once every child has
// finished. Build with `nvcc -rdc=true dynamic_parallelism.cu`.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                    \
  do {                                                                                 \
    cudaError_t err = (call);                                                          \
    if (err != cudaSuccess) {                                                          \
      printf("CUDA error %s at %s:%d\n", cudaGetErrorString(err), __FILE__, __LINE__); \
      printf("FAIL\n");                                                                \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

const int N = 20000;
const int SMALL = 32;     // ranges this short are sorted by one thread
const int MAX_DEPTH = 16;  // deeper ranges fall back to the selection sort

__device__ void selection_sort(unsigned* data, int left, int right) {
  for (int i = left; i <= right; ++i) {
    int smallest = i;
    for (int j = i + 1; j <= right; ++j)
      if (data[j] < data[smallest]) smallest = j;
    unsigned t = data[i];
    data[i] = data[smallest];
    data[smallest] = t;
  }
}

// Sorts data[left..right]; each half goes to a child grid of its own.
__global__ void quicksort(unsigned* data, int left, int right, int depth, int* launchErrors) {
  if (right - left < SMALL || depth >= MAX_DEPTH) {
    selection_sort(data, left, right);
    return;
  }
  unsigned pivot = data[(left + right) / 2];
  int i = left, j = right;
  while (i <= j) {
    while (data[i] < pivot) ++i;
    while (data[j] > pivot) --j;
    if (i <= j) {
      unsigned t = data[i];
      data[i] = data[j];
      data[j] = t;
      ++i;
      --j;
    }
  }
  if (left < j) {
    quicksort<<<1, 1, 0, cudaStreamFireAndForget>>>(data, left, j, depth + 1, launchErrors);
    if (cudaGetLastError() != cudaSuccess) atomicAdd(launchErrors, 1);
  }
  if (i < right) {
    quicksort<<<1, 1, 0, cudaStreamFireAndForget>>>(data, i, right, depth + 1, launchErrors);
    if (cudaGetLastError() != cudaSuccess) atomicAdd(launchErrors, 1);
  }
}

__global__ void count_out_of_order(const unsigned* data, int n, int* outOfOrder) {
  for (int k = 1; k < n; ++k)
    if (data[k - 1] > data[k]) ++*outOfOrder;
}

// Sorts, then checks the result in a tail launch: it runs only after the
// whole tree of child grids has completed.
__global__ void sort_and_check(unsigned* data, int n, int* launchErrors, int* outOfOrder) {
  quicksort<<<1, 1>>>(data, 0, n - 1, 0, launchErrors);
  count_out_of_order<<<1, 1, 0, cudaStreamTailLaunch>>>(data, n, outOfOrder);
}

int main() {
  unsigned* data;
  int *launchErrors, *outOfOrder;
  CHECK(cudaMallocManaged(&data, N * sizeof(unsigned)));
  CHECK(cudaMallocManaged(&launchErrors, sizeof(int)));
  CHECK(cudaMallocManaged(&outOfOrder, sizeof(int)));
  srand(2024);
  unsigned long long sum = 0;
  for (int k = 0; k < N; ++k) {
    data[k] = (unsigned)rand() % 100000;
    sum += data[k];
  }
  *launchErrors = 0;
  *outOfOrder = 0;
  // One launch of the parent: the host never sees the children.
  sort_and_check<<<1, 1>>>(data, N, launchErrors, outOfOrder);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  unsigned long long after = 0;
  for (int k = 0; k < N; ++k) after += data[k];
  printf("sorted %d keys: %d launch errors, %d out of order, sum %s\n", N, *launchErrors, *outOfOrder,
         after == sum ? "kept" : "changed");
  bool ok = *launchErrors == 0 && *outOfOrder == 0 && after == sum;
  CHECK(cudaFree(data));
  CHECK(cudaFree(launchErrors));
  CHECK(cudaFree(outOfOrder));
  printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
