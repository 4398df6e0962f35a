// The kernels of a header that only stackless_header_launched.cu includes,
// each with a barrier; that .cu names each of them.
#pragma once

// Converts: the .cu launches it by name.
__global__ void by_name(int* v) {
  __syncthreads();
  v[threadIdx.x] += 1;
}

// Converts: the .cu launches it with its template arguments.
template <int n>
__global__ void with_arguments(int* v) {
  __syncthreads();
  v[threadIdx.x] += n;
}

// Stays: the .cu's launch leaves its template arguments to deduction.
template <class T>
__global__ void deduced(T* v) {
  __syncthreads();
  v[threadIdx.x] += 1;
}

// Stays: the .cu's launch leaves its default argument out.
__global__ void with_defaults(int* v, int k = 1) {
  __syncthreads();
  v[threadIdx.x] += k;
}

// Stays: the .cu names it in a macro.
__global__ void in_a_macro(int* v) {
  __syncthreads();
  v[threadIdx.x] += 1;
}

// Converts: the .cu asks its attributes and launches it by name.
__global__ void queried(int* v) {
  __syncthreads();
  v[threadIdx.x] += 1;
}

// Converts through a void kernel, which the .cu registers: the .cu launches
// it by address and by name.
__global__ void by_address(int* v) {
  __syncthreads();
  v[threadIdx.x] += 1;
}

// Converts through a void kernel: the .cu declares it again.
__global__ void declared_again(int* v) {
  __syncthreads();
  v[threadIdx.x] += 1;
}

// Stays: the .cu takes a template's address (its void kernel would need
// registering for each instantiation).
template <int n>
__global__ void template_as_value(int* v) {
  __syncthreads();
  v[threadIdx.x] += n;
}

namespace tables {
// Converts through a void kernel: the .cu puts it in a table of pointers.
__global__ void in_a_table(int* v) {
  __syncthreads();
  v[threadIdx.x] += 1;
}
}  // namespace tables
