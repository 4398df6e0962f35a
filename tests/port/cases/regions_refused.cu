// Stackless kernels that keep their stackless version only, without a region
// version: each breaks one rule of the transformation (regions.cu has those
// that keep them), and --explain says which (regions_refused.expected-stderr).
__device__ int counter;

// The loop's bound differs by thread: threads reach different barriers.
__global__ void thread_bound(int* data) {
  for (int i = 0; i < (int)threadIdx.x; ++i) {
    data[i] += 1;
    __syncthreads();
  }
}

// A barrier under a condition on the thread.
__global__ void barrier_in_if(int* data) {
  if (threadIdx.x < 16) {
    data[threadIdx.x] = 1;
    __syncthreads();
  }
}

// A local of deduced type lives across the barrier.
__global__ void auto_local(const int* in, int* out) {
  auto v = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = v;
}

// `break` leaves the barrier loop.
__global__ void break_out(int* data, int n) {
  for (int i = 0; i < n; ++i) {
    if (data[i] < 0) break;
    __syncthreads();
  }
}

// The loop's body changes its variable.
__global__ void variable_changed(int* data, int n) {
  for (int i = 0; i < n; ++i) {
    data[threadIdx.x] += i;
    __syncthreads();
    i += data[0] > 100;
  }
}

// The kernel changes its parameter, which the block's threads would share.
__global__ void parameter_changed(int* data, int n) {
  n += threadIdx.x;
  __syncthreads();
  data[threadIdx.x] = n;
}

// The kernel moves its pointer parameter, which the block's threads would share.
__global__ void pointer_parameter_moved(int* data) {
  *data++ = threadIdx.x;
  __syncthreads();
  data[threadIdx.x] = 1;
}

// The bound reads memory.
__global__ void bound_from_memory(int* data, const int* bound) {
  for (int i = 0; i < *bound; ++i) {
    data[threadIdx.x] += i;
    __syncthreads();
  }
}

// A barrier in a `while`.
__global__ void barrier_in_while(int* data) {
  int i = 0;
  while (i < 4) {
    data[threadIdx.x] += i++;
    __syncthreads();
  }
}

// A local of a struct type lives across the barrier.
struct pair_of {
  int a, b;
};
__global__ void struct_local(const int* in, int* out) {
  pair_of p{in[threadIdx.x], 1};
  __syncthreads();
  out[threadIdx.x] = p.a + p.b;
}

// The bound names a global variable that the kernel changes.
__global__ void changed_global(int* data) {
  for (int i = 0; i < counter; ++i) {
    if (threadIdx.x == 0) counter = 0;
    __syncthreads();
  }
  data[0] = 1;
}

// Other waits than __syncthreads();
__global__ void counting_barrier(int* data) {
  data[0] = __syncthreads_count(data[threadIdx.x] > 0);
}

// A local type alias, which a later region would not see.
__global__ void local_alias(float* data) {
  using real = float;
  real x = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = x;
}

// A declaration weft-port cannot read.
__global__ void decltype_local(int* data) {
  decltype(data[0] + 1) v = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = v;
}

// A __shared__ array declared inside a statement.
__global__ void nested_shared(int* data) {
  if (blockDim.x == 32) {
    __shared__ int tile[32];
    tile[threadIdx.x] = data[threadIdx.x];
    data[threadIdx.x] = tile[31 - threadIdx.x];
  }
  __syncthreads();
}
