// A header of stackless_header_launched.cu whose last line is an #endif that
// closes no include guard: weft-port cannot tell where its guard, if any,
// ends, so its waiting helper is not made awaitable.
__device__ void wait_for_the_block() { __syncthreads(); }

// Stays: calls that helper.
__global__ void calls_a_helper_before_endif(int* v) {
  wait_for_the_block();
  v[threadIdx.x] = 0;
}

#ifdef STACKLESS_HEADER_ENDIF_EXTRA
__device__ int extra;
#endif
