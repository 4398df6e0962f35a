// Every launch configuration form, and every way of naming the kernel.
#include <cstdio>

namespace ns {
template <class T>
__global__ void scale(T* data, T factor) { data[threadIdx.x] *= factor; }
namespace detail {
__global__ void touch(int* p) { p[0] = 1; }
}  // namespace detail
}  // namespace ns

template <class T, int N>
__global__ void fill(T* data, T value) { data[threadIdx.x % N] = value; }
__global__ void empty() {}
__global__ void vec_add(const float* a, const float* b, float* c, int n) {}

typedef void (*kernel_ptr)(int*);
kernel_ptr pick(int which);

void forms(float* a, float* b, float* c, int* p, int n, cudaStream_t stream) {
  empty<<<1, 1>>>();
  vec_add<<<(n + 255) / 256, 256>>>(a, b, c, n);
  vec_add<<<n / 256, 256, 0>>>(a, b, c, n);
  vec_add<<<n / 256, 256, 64 * sizeof(float), stream>>>(a, b, c, n);
  vec_add<<<dim3(4, 4), dim3(16, 16)>>>(a, b, c, n);
  vec_add <<< 2, 128 >>> (a, b, c, n);
  fill<float, 4><<<1, 32>>>(a, 2.0f);
  fill<float, (4 > 2 ? 8 : 16)><<<1, 32>>>(a, 2.0f);
  ns::scale<float><<<1, 32>>>(a, 3.0f);
  ::ns::scale<float><<<1, 32>>>(a, 3.0f);
  ns::detail::touch<<<1, 1>>>(p);
  ns::template scale<double><<<1, 32>>>(nullptr, 1.0);
  (empty)<<<1, 1>>>();
  (ns::detail::touch)<<<1, 1>>>(p);
  kernel_ptr table[2] = {ns::detail::touch, ns::detail::touch};
  table[n % 2]<<<1, 1>>>(p);
  pick(n)<<<1, 1>>>(p);
  empty<<<1, 1>>>(); empty<<<2, 2>>>(); vec_add<<<3, 3>>>(a, b, c, n);
  if (n > 0) empty<<<1, 1>>>();
  else vec_add<<<1, 1>>>(a, b, c, n);
  for (int i = 0; i < 2; ++i) (empty)<<<1, 1>>>();
  empty<<<1, 1>>>( );
  empty<<<1, 1>>>(/* no arguments */);
}
