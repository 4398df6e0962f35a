// The kernels of a header that header_registrations.cu includes: its port
// registers those it can name after its last line.
#ifndef HEADER_REGISTRATIONS_CUH
#define HEADER_REGISTRATIONS_CUH

#include "header_registrations_nested.cuh"

__global__ void __cluster_dims__(2) clustered(int* p) {}
namespace outer {
static __global__ void inner(int* p) {}
namespace {
__global__ void hidden() {}
}  // namespace
}  // namespace outer
extern "C" __global__ void c_named(int* p) {}
__global__ void overloaded(int* p) {}
__global__ void overloaded(float* p, int n) {}
// Declared again by the .cu: registered once.
__global__ void declared_again(int* p) {}

// Not registered: a template, a declaration (registered where it is
// defined), a kernel inside an #if.
template <int N>
__global__ void templated(int* p) {}
__global__ void defined_elsewhere(int* p);
#if defined(HEADER_REGISTRATIONS_EXTRA)
__global__ void optional_kernel(int* p) {}
#endif

#endif
