// A kernel that another source of the program names stays `void`: that
// source may declare it so (stackless_program_other.cpp). The case runs with
// --explain --program-source stackless_program_other.cpp.
__global__ void shared_with_the_host_file(int* data) {
  __shared__ int tile[32];
  tile[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = tile[31 - threadIdx.x];
}

__global__ void only_here(int* data) {
  __shared__ int tile[32];
  tile[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = tile[31 - threadIdx.x];
}

void launch_only_here(int* data) { only_here<<<1, 32>>>(data); }
