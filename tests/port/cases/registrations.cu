// What weft-port registers after the last line: every non-template
// __global__ function at namespace scope, launchable by address, with its
// __cluster_dims__ (one or two arguments leave the rest 1).
__global__ void __cluster_dims__(2, 1, 1) cluster_kernel(float* input, float* output) {}
__global__ void __launch_bounds__(256) __cluster_dims__(4) bounded(int* p) {}
namespace outer {
inline namespace v1 {
static __global__ void inner(int* p) {}
}  // namespace v1
namespace {
__global__ void hidden() {}
}  // namespace
}  // namespace outer
__global__ void overloaded(int* p);
__global__ void overloaded(float* p, int n) {}
__global__ void overloaded(int* p) {}
template <int N>
__global__ void templated(int* p) {}
struct holder {
  static void not_a_kernel();
};
__global__ void with_default(int* p, int n = 4) {}
__global__ void overloaded_with_default(int* p, int n = 4) {}
__global__ void overloaded_with_default(float* p) {}
