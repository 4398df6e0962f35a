// A header that stackless_header.cu and stackless_header_other.cpp both
// include: either port could write it, so its kernels stay on fibers.
__global__ void in_a_shared_header(int* values) {
  __shared__ int tile[32];
  tile[threadIdx.x] = values[threadIdx.x];
  __syncthreads();
  values[threadIdx.x] = tile[31 - threadIdx.x];
}

static void launch_shared(int* values) { in_a_shared_header<<<1, 32>>>(values); }
