// Probe of CUDA's codes for cluster and cooperative launches that the
// documentation does not give. Build with `nvcc -arch=sm_90 cluster_probe.cu`
// on a GPU and commit its output beside it as cluster_probe.expected.
// Only lines that do not depend on the GPU's size are compared with weft.
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void plain_kernel(int* out) {
  cg::grid_group grid = cg::this_grid();
  cg::cluster_group cluster = cg::this_cluster();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    out[0] = grid.is_valid();
    out[1] = cluster.num_blocks();
    out[2] = cluster.block_rank();
  }
}

__global__ void __cluster_dims__(2, 1, 1) fixed_cluster_kernel(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) out[blockIdx.x] = cluster.block_rank() + 10 * cluster.num_blocks();
}

__global__ void grid_kernel(int* out) {
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) atomicAdd(out, 1);
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) out[1] = out[0] + 100 * grid.is_valid();
}

static void report(const char* what, cudaError_t r) {
  cudaError_t last = cudaGetLastError();
  std::printf("%-60s returned=%d(%s) last=%d\n", what, (int)r, cudaGetErrorName(r), (int)last);
}

static cudaError_t launch_cluster(unsigned grid, unsigned cx, unsigned cy, int* out) {
  cudaLaunchConfig_t config = {0};
  config.gridDim = dim3(grid, cy == 0 ? 1 : cy, 1);
  config.blockDim = 32;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeClusterDimension;
  attribute[0].val.clusterDim.x = cx;
  attribute[0].val.clusterDim.y = cy;
  attribute[0].val.clusterDim.z = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, plain_kernel, out);
}

int main() {
  int* out = nullptr;
  cudaMallocManaged(&out, 64 * sizeof(int));
  int value = -1;
  cudaDeviceGetAttribute(&value, cudaDevAttrCooperativeLaunch, 0);
  std::printf("cooperative launch attribute=%d\n", value);
  cudaDeviceGetAttribute(&value, cudaDevAttrClusterLaunch, 0);
  std::printf("cluster launch attribute=%d\n", value);

  plain_kernel<<<2, 32>>>(out);
  report("plain launch", cudaDeviceSynchronize());
  std::printf("  grid valid=%d cluster blocks=%d cluster rank=%d\n", out[0], out[1], out[2]);

  report("cluster (2,1,1), grid 4", launch_cluster(4, 2, 1, out));
  report("  sync", cudaDeviceSynchronize());
  std::printf("  grid valid=%d cluster blocks=%d cluster rank=%d\n", out[0], out[1], out[2]);
  report("cluster (3,1,1), grid 4", launch_cluster(4, 3, 1, out));
  report("cluster (0,1,1), grid 4", launch_cluster(4, 0, 1, out));
  report("cluster (16,1,1), grid 16, portable", launch_cluster(16, 16, 1, out));
  report("cluster (9,1,1), grid 9, portable", launch_cluster(9, 9, 1, out));
  report("cluster (8,1,1), grid 8", launch_cluster(8, 8, 1, out));
  report("  sync", cudaDeviceSynchronize());
  report("set non-portable cluster size allowed",
         cudaFuncSetAttribute(plain_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  report("cluster (16,1,1), grid 16, non-portable", launch_cluster(16, 16, 1, out));
  report("  sync", cudaDeviceSynchronize());
  report("cluster (32,1,1), grid 32, non-portable", launch_cluster(32, 32, 1, out));

  fixed_cluster_kernel<<<4, 32>>>(out);
  report("__cluster_dims__(2,1,1), grid 4", cudaGetLastError());
  report("  sync", cudaDeviceSynchronize());
  std::printf("  ranks: %d %d %d %d\n", out[0], out[1], out[2], out[3]);
  fixed_cluster_kernel<<<3, 32>>>(out);
  report("__cluster_dims__(2,1,1), grid 3", cudaGetLastError());
  report("  sync", cudaDeviceSynchronize());
  {
    cudaLaunchConfig_t config = {0};
    config.gridDim = 4;
    config.blockDim = 32;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = 4;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    report("__cluster_dims__(2,1,1) launched with cluster (4,1,1)",
           cudaLaunchKernelEx(&config, fixed_cluster_kernel, out));
    report("  sync", cudaDeviceSynchronize());
  }

  int size = -1;
  {
    cudaLaunchConfig_t config = {0};
    config.gridDim = 16;
    config.blockDim = 128;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = 2;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    report("cudaOccupancyMaxPotentialClusterSize (non-portable allowed)",
           cudaOccupancyMaxPotentialClusterSize(&size, (void*)plain_kernel, &config));
    std::printf("  size=%d\n", size);
    report("cudaOccupancyMaxPotentialClusterSize (portable)",
           cudaOccupancyMaxPotentialClusterSize(&size, (void*)grid_kernel, &config));
    std::printf("  size=%d\n", size);
  }

  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_kernel, 32, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  out[0] = out[1] = 0;
  void* args[] = {&out};
  report("cooperative, grid = all SMs", cudaLaunchCooperativeKernel((void*)grid_kernel, sms, 32, args, 0, 0));
  report("  sync", cudaDeviceSynchronize());
  std::printf("  blocks counted=%d, seen after grid.sync=%d\n", out[0] == sms, out[1] == sms + 100);
  // An H100 has 132 SMs; weft's multiProcessorCount is its worker count,
  // but it refuses what an H100 refuses.
  report("cooperative, grid = one more than resident",
         cudaLaunchCooperativeKernel((void*)grid_kernel, per_sm * 132 + 1, 32, args, 0, 0));
  report("  sync", cudaDeviceSynchronize());
  return 0;
}
