// CUDA graphs made by stream capture, as CUDA courses teach them after the
// guide's "Creating a Graph Using Stream Capture": the same code that would
// run a step of an iteration in a stream (copy in, a few kernels, a second
// stream forked and joined with events, a copy back) is recorded once between
// cudaStreamBeginCapture and cudaStreamEndCapture, instantiated, and then
// replayed for every step with one cudaGraphLaunch.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                 \
  do {                                                                              \
    cudaError_t err = (call);                                                       \
    if (err != cudaSuccess) {                                                       \
      printf("CUDA error %s at %s:%d\n", cudaGetErrorString(err), __FILE__, __LINE__); \
      printf("FAIL\n");                                                             \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

const int N = 1 << 14;
const int STEPS = 25;

__global__ void addOne(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

__global__ void square(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i];
}

__global__ void doubleIt(float* z, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = 2.0f * x[i];
}

__global__ void sum(float* out, const float* y, const float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = y[i] + z[i];
}

int main() {
  float *h_in, *h_out, *d_x, *d_y, *d_z, *d_out;
  CHECK(cudaMallocHost(&h_in, N * sizeof(float)));
  CHECK(cudaMallocHost(&h_out, N * sizeof(float)));
  CHECK(cudaMalloc(&d_x, N * sizeof(float)));
  CHECK(cudaMalloc(&d_y, N * sizeof(float)));
  CHECK(cudaMalloc(&d_z, N * sizeof(float)));
  CHECK(cudaMalloc(&d_out, N * sizeof(float)));

  cudaStream_t stream, side;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  cudaEvent_t forkEvent, joinEvent;
  CHECK(cudaEventCreate(&forkEvent));
  CHECK(cudaEventCreate(&joinEvent));

  dim3 block(256);
  dim3 grid((N + block.x - 1) / block.x);

  // Record one step: nothing runs until the graph is launched.
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemcpyAsync(d_x, h_in, N * sizeof(float), cudaMemcpyHostToDevice, stream));
  addOne<<<grid, block, 0, stream>>>(d_x, N);
  CHECK(cudaEventRecord(forkEvent, stream));
  CHECK(cudaStreamWaitEvent(side, forkEvent, 0));  // the side stream joins the capture
  square<<<grid, block, 0, stream>>>(d_y, d_x, N);
  doubleIt<<<grid, block, 0, side>>>(d_z, d_x, N);
  CHECK(cudaEventRecord(joinEvent, side));
  CHECK(cudaStreamWaitEvent(stream, joinEvent, 0));  // and is joined back
  sum<<<grid, block, 0, stream>>>(d_out, d_y, d_z, N);
  CHECK(cudaMemcpyAsync(h_out, d_out, N * sizeof(float), cudaMemcpyDeviceToHost, stream));
  cudaGraph_t graph;
  CHECK(cudaStreamEndCapture(stream, &graph));

  size_t numNodes = 0, numEdges = 0;
  CHECK(cudaGraphGetNodes(graph, NULL, &numNodes));
  CHECK(cudaGraphGetEdges(graph, NULL, NULL, NULL, &numEdges));
  printf("captured graph has %zu nodes and %zu edges\n", numNodes, numEdges);

  cudaGraphExec_t graphExec;
  CHECK(cudaGraphInstantiate(&graphExec, graph, 0));

  int wrong = 0;
  for (int step = 0; step < STEPS; step++) {
    for (int i = 0; i < N; i++) h_in[i] = (float)((i + step) % 7);
    CHECK(cudaGraphLaunch(graphExec, stream));
    CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < N; i++) {
      float x = (float)((i + step) % 7) + 1.0f;
      if (h_out[i] != x * x + 2.0f * x) wrong++;
    }
  }
  printf("%d steps replayed, %d wrong values\n", STEPS, wrong);
  int ok = numNodes == 6 && numEdges == 6 && wrong == 0;

  CHECK(cudaGraphExecDestroy(graphExec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaEventDestroy(forkEvent));
  CHECK(cudaEventDestroy(joinEvent));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaStreamDestroy(side));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
  CHECK(cudaFree(d_z));
  CHECK(cudaFree(d_out));
  CHECK(cudaFreeHost(h_in));
  CHECK(cudaFreeHost(h_out));
  printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
