// CUDA graphs built by hand, as CUDA courses teach them after the guide's
// "CUDA Graphs" section: a step of a simulation (clear a buffer, two
// independent kernels, a kernel that combines them, a copy back, a host
// node that checks the step) is described once as a graph, instantiated
// once, and launched many times; each launch costs one call instead of six.
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

const int N = 1 << 16;
const int STEPS = 20;

__global__ void fillRamp(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += (float)(i % 10);
}

__global__ void scale(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

__global__ void combine(float* out, const float* a, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

struct StepCheck {
  const float* result;
  int steps;
  int wrong;
};

void CUDART_CB checkStep(void* userData) {
  StepCheck* c = (StepCheck*)userData;
  c->steps++;
  for (int i = 0; i < N; i += 101) {
    float expected = (float)(i % 10) * (2.0f + 3.0f);
    if (c->result[i] != expected) c->wrong++;
  }
}

int main() {
  float *d_x, *d_a, *d_b, *d_out, *h_out;
  CHECK(cudaMalloc(&d_x, N * sizeof(float)));
  CHECK(cudaMalloc(&d_a, N * sizeof(float)));
  CHECK(cudaMalloc(&d_b, N * sizeof(float)));
  CHECK(cudaMalloc(&d_out, N * sizeof(float)));
  CHECK(cudaMallocHost(&h_out, N * sizeof(float)));

  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));

  // Node 1: clear x.
  cudaMemsetParams memsetParams = {0};
  memsetParams.dst = d_x;
  memsetParams.value = 0;
  memsetParams.elementSize = sizeof(float);
  memsetParams.width = N;
  memsetParams.height = 1;
  cudaGraphNode_t clearNode;
  CHECK(cudaGraphAddMemsetNode(&clearNode, graph, NULL, 0, &memsetParams));

  int n = N;
  dim3 block(256);
  dim3 grid((N + block.x - 1) / block.x);

  // Node 2: x[i] = i % 10, after the clear.
  void* rampArgs[] = {&d_x, &n};
  cudaKernelNodeParams kernelParams = {0};
  kernelParams.func = (void*)fillRamp;
  kernelParams.gridDim = grid;
  kernelParams.blockDim = block;
  kernelParams.sharedMemBytes = 0;
  kernelParams.kernelParams = rampArgs;
  kernelParams.extra = NULL;
  cudaGraphNode_t rampNode;
  CHECK(cudaGraphAddKernelNode(&rampNode, graph, &clearNode, 1, &kernelParams));

  // Nodes 3 and 4: a = 2x and b = 3x, independent of each other.
  float two = 2.0f, three = 3.0f;
  void* scaleA[] = {&d_a, &d_x, &two, &n};
  void* scaleB[] = {&d_b, &d_x, &three, &n};
  kernelParams.func = (void*)scale;
  kernelParams.kernelParams = scaleA;
  cudaGraphNode_t scaleANode, scaleBNode;
  CHECK(cudaGraphAddKernelNode(&scaleANode, graph, &rampNode, 1, &kernelParams));
  kernelParams.kernelParams = scaleB;
  CHECK(cudaGraphAddKernelNode(&scaleBNode, graph, &rampNode, 1, &kernelParams));

  // Node 5: out = a + b, after both.
  void* combineArgs[] = {&d_out, &d_a, &d_b, &n};
  kernelParams.func = (void*)combine;
  kernelParams.kernelParams = combineArgs;
  cudaGraphNode_t both[] = {scaleANode, scaleBNode};
  cudaGraphNode_t combineNode;
  CHECK(cudaGraphAddKernelNode(&combineNode, graph, both, 2, &kernelParams));

  // Node 6: copy back; node 7: check on the host.
  cudaGraphNode_t copyNode;
  CHECK(cudaGraphAddMemcpyNode1D(&copyNode, graph, &combineNode, 1, h_out, d_out, N * sizeof(float),
                                 cudaMemcpyDeviceToHost));
  StepCheck check = {h_out, 0, 0};
  cudaHostNodeParams hostParams = {0};
  hostParams.fn = checkStep;
  hostParams.userData = &check;
  cudaGraphNode_t hostNode;
  CHECK(cudaGraphAddHostNode(&hostNode, graph, &copyNode, 1, &hostParams));

  size_t numNodes = 0;
  CHECK(cudaGraphGetNodes(graph, NULL, &numNodes));
  printf("graph has %zu nodes\n", numNodes);

  cudaGraphExec_t graphExec;
  CHECK(cudaGraphInstantiate(&graphExec, graph, 0));

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int step = 0; step < STEPS; step++) CHECK(cudaGraphLaunch(graphExec, stream));
  CHECK(cudaStreamSynchronize(stream));

  printf("%d steps run, %d wrong values\n", check.steps, check.wrong);
  int ok = numNodes == 7 && check.steps == STEPS && check.wrong == 0;

  CHECK(cudaGraphExecDestroy(graphExec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_out));
  CHECK(cudaFreeHost(h_out));
  printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
