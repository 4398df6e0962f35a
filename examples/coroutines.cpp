// Host coroutines (weft/coroutine.hpp): a pipeline that pushes chunks of
// input through copy in -> kernel -> copy out in two streams. Each stream is
// driven by a coroutine that co_awaits its work instead of blocking a thread
// on it, and checks each chunk on the host while the other stream's work
// goes on. Both first wait for a table that a setup kernel builds in a third
// stream, through an event.
#include <weft.hpp>
#include <weft/coroutine.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

constexpr int chunk = 1 << 16;  // elements per chunk
constexpr int chunks = 16;
constexpr int table_size = 256;
constexpr float a = 3.0f;

__global__ void build_table(float* table) { table[threadIdx.x] = 0.5f * threadIdx.x; }

// y = a * x + table[i % table_size], grid-stride.
__global__ void transform(float* y, const float* x, const float* table, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + table[i % table_size];
}

float input(int i) { return 0.001f * (i % 1000); }

// Processes chunks first, first + step, ... in `stream`; gives the number of
// wrong elements, or -1 if the device failed.
weft::task<int> pipeline(cudaStream_t stream, cudaEvent_t table_ready, const float* table, float* host_in,
                         float* host_out, int first, int step) {
  if (co_await weft::completion(table_ready) != cudaSuccess) co_return -1;
  float *x = nullptr, *y = nullptr;
  // Stream-ordered: cudaFree would wait for the whole device, holding up
  // the other coroutine.
  cudaMallocAsync(&x, chunk * sizeof(float), stream);
  cudaMallocAsync(&y, chunk * sizeof(float), stream);
  int wrong = 0;
  for (int c = first; c < chunks; c += step) {
    float* in = host_in + static_cast<size_t>(c) * chunk;
    float* out = host_out + static_cast<size_t>(c) * chunk;
    cudaMemcpyAsync(x, in, chunk * sizeof(float), cudaMemcpyHostToDevice, stream);
    // Resumes once the copy and the kernel are done (the stream keeps them in order).
    if (co_await weft::launch_and_await({64, 256, 0, stream}, transform, y, x, table, chunk) != cudaSuccess) {
      wrong = -1;
      break;
    }
    cudaMemcpyAsync(out, y, chunk * sizeof(float), cudaMemcpyDeviceToHost, stream);
    if (co_await weft::completion(stream) != cudaSuccess) {
      wrong = -1;
      break;
    }
    // On weft's resumption thread, while the other stream's work runs.
    for (int i = 0; i < chunk; ++i) {
      int global = c * chunk + i;
      float expected = a * input(global) + 0.5f * (i % table_size);
      if (std::fabs(out[i] - expected) > 1e-5f) ++wrong;
    }
  }
  cudaFreeAsync(x, stream);
  cudaFreeAsync(y, stream);
  co_return wrong;
}

int main() {
  cudaStream_t setup, stream[2];
  cudaStreamCreateWithFlags(&setup, cudaStreamNonBlocking);
  for (auto& s : stream) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float *host_in = nullptr, *host_out = nullptr, *table = nullptr;
  cudaMallocHost(&host_in, static_cast<size_t>(chunks) * chunk * sizeof(float));
  cudaMallocHost(&host_out, static_cast<size_t>(chunks) * chunk * sizeof(float));
  for (int i = 0; i < chunks * chunk; ++i) host_in[i] = input(i);
  cudaMalloc(&table, table_size * sizeof(float));

  cudaEvent_t table_ready;
  cudaEventCreateWithFlags(&table_ready, cudaEventDisableTiming);
  weft::launch({1, table_size, 0, setup}, build_table, table);
  cudaEventRecord(table_ready, setup);

  std::vector<weft::task<int>> pipelines;
  for (int p = 0; p < 2; ++p) pipelines.push_back(pipeline(stream[p], table_ready, table, host_in, host_out, p, 2));
  // Blocks until both pipelines have finished; their coroutines run on weft's resumption thread.
  std::vector<int> wrong = weft::sync_wait(weft::when_all(std::move(pipelines)));

  bool ok = cudaGetLastError() == cudaSuccess;
  for (int p = 0; p < 2; ++p) {
    std::printf("pipeline %d: %d chunks of %d elements, %d wrong\n", p, chunks / 2, chunk, wrong[p]);
    ok = ok && wrong[p] == 0;
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");

  cudaEventDestroy(table_ready);
  for (auto& s : stream) cudaStreamDestroy(s);
  cudaStreamDestroy(setup);
  cudaFree(table);
  cudaFreeHost(host_in);
  cudaFreeHost(host_out);
  return ok ? 0 : 1;
}
