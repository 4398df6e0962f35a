// The CUDA guide's distributed shared memory histogram ("Distributed Shared
// Memory"), as the guide writes it, launched with cudaLaunchKernelEx and a
// cluster size from cudaOccupancyMaxPotentialClusterSize, checked against a
// histogram computed on the host, for bins that fit one block's shared
// memory and for bins that need the whole cluster's.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// Distributed Shared memory histogram kernel
__global__ void clusterHist_kernel(int *bins, const int nbins, const int bins_per_block, const int *__restrict__ input,
                                   size_t array_size)
{
  extern __shared__ int smem[];
  namespace cg = cooperative_groups;
  int tid = cg::this_grid().thread_rank();

  // Cluster initialization, size and calculating local bin offsets.
  cg::cluster_group cluster = cg::this_cluster();
  unsigned int clusterBlockRank = cluster.block_rank();
  int cluster_size = cluster.dim_blocks().x;

  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x)
  {
    smem[i] = 0; //Initialize shared memory histogram to zeros
  }

  // cluster synchronization ensures that shared memory is initialized to zero in
  // all thread blocks in the cluster. It also ensures that all thread blocks
  // have started executing and they exist concurrently.
  cluster.sync();

  for (int i = tid; i < array_size; i += blockDim.x * gridDim.x)
  {
    int ldata = input[i];

    //Find the right histogram bin.
    int binid = ldata;
    if (ldata < 0)
      binid = 0;
    else if (ldata >= nbins)
      binid = nbins - 1;

    //Find destination block rank and offset for computing
    //distributed shared memory histogram
    int dst_block_rank = (int)(binid / bins_per_block);
    int dst_offset = binid % bins_per_block;

    //Pointer to target block shared memory
    int *dst_smem = cluster.map_shared_rank(smem, dst_block_rank);

    //Perform atomic update of the histogram bin
    atomicAdd(dst_smem + dst_offset, 1);
  }

  // cluster synchronization is required to ensure all distributed shared
  // memory operations are completed and no thread block exits while
  // other thread blocks are still accessing distributed shared memory
  cluster.sync();

  // Perform global memory histogram, using the local distributed memory histogram
  int *lbins = bins + cluster.block_rank() * bins_per_block;
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x)
  {
    atomicAdd(&lbins[i], smem[i]);
  }
}

int main() {
  const size_t array_size = 1 << 18;
  const int threads_per_block = 256;
  int* input;
  int* bins;
  cudaMallocManaged(&input, array_size * sizeof(int));
  srand(7);
  for (size_t i = 0; i < array_size; i++) input[i] = rand() % 1100 - 50;

  bool ok = true;
  // 256 bins fit one block's shared memory; 40960 bins (160 KiB) need the
  // whole cluster's.
  for (int nbins : {256, 40960}) {
    cudaMallocManaged(&bins, nbins * sizeof(int));
    cudaMemset(bins, 0, nbins * sizeof(int));

    cudaLaunchConfig_t config = {0};
    config.gridDim = 16;
    config.blockDim = threads_per_block;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = 2;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    int cluster_size = 0;
    cudaOccupancyMaxPotentialClusterSize(&cluster_size, (void*)clusterHist_kernel, &config);
    if (cluster_size > 4) cluster_size = 4;
    if (cluster_size < 1) cluster_size = 1;
    attribute[0].val.clusterDim.x = cluster_size;
    // cluster_size depends on the histogram size.
    // ( cluster_size == 1 ) implies no distributed shared memory, just thread block local shared memory
    int bins_per_block = nbins / cluster_size;
    config.gridDim = 8 * cluster_size;
    config.dynamicSmemBytes = bins_per_block * sizeof(int);
    if (config.dynamicSmemBytes > 48 * 1024)
      cudaFuncSetAttribute((void*)clusterHist_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           config.dynamicSmemBytes);

    cudaError_t err = cudaLaunchKernelEx(&config, clusterHist_kernel, bins, nbins, bins_per_block, input, array_size);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
      printf("launch failed: %s\n", cudaGetErrorString(err));
      ok = false;
    }

    int* reference = (int*)calloc(nbins, sizeof(int));
    for (size_t i = 0; i < array_size; i++) {
      int b = input[i] < 0 ? 0 : input[i] >= nbins ? nbins - 1 : input[i];
      reference[b]++;
    }
    int wrong = 0;
    for (int b = 0; b < nbins; b++)
      if (bins[b] != reference[b]) wrong++;
    printf("%d bins over clusters of %d blocks: %d wrong\n", nbins, cluster_size, wrong);
    ok = ok && wrong == 0;
    free(reference);
    cudaFree(bins);
  }
  cudaFree(input);
  printf(ok ? "PASS\n" : "FAIL\n");
  return 0;
}
