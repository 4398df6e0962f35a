// The kernels of stackless_header_launched.cuh, a header that only this .cu
// includes, launched from here: each converts where this file launches it
// by name at compile time, or uses it as a value through a void kernel
// that this file's port registers. The case runs with --explain.
#include "stackless_header_launched.cuh"
#include "stackless_header_endif.cuh"

#define LAUNCH_IN_A_MACRO(v) in_a_macro<<<1, 32>>>(v)

__global__ void declared_again(int* v);

void (*const table[])(int*) = {tables::in_a_table};

void launch_all(int* v, float* f) {
  by_name<<<1, 32>>>(v);
  with_arguments<3><<<1, 32>>>(v);
  deduced<<<1, 32>>>(f);
  with_defaults<<<1, 32>>>(v);
  LAUNCH_IN_A_MACRO(v);
  cudaFuncAttributes attributes;
  cudaFuncGetAttributes(&attributes, queried);
  queried<<<1, 32>>>(v);
  void* args[] = {&v};
  cudaLaunchKernel((void*)by_address, dim3(1), dim3(32), args, 0, nullptr);
  by_address<<<1, 32>>>(v);
  declared_again<<<1, 32>>>(v);
  cudaLaunchKernel((void*)template_as_value<2>, dim3(1), dim3(32), args, 0, nullptr);
  table[0]<<<1, 32>>>(v);
  calls_a_helper_before_endif<<<1, 32>>>(v);
}
