// Configurations and arguments that are expressions: nested parentheses,
// templates, shifts (which must not close the configuration), braces,
// lambdas, and a launch inside a launch's argument.
#include <algorithm>
#include <vector>

__global__ void k(float* d, int n) {}
template <class T> __global__ void kt(T* d, int n) {}
__global__ void apply(int (*f)(int), int n) {}
__global__ void child(int* p) {}
__global__ void parent(int* p) { child<<<1, 1>>>(p); }

struct Grid { dim3 blocks() const { return dim3(2); } };

void expressions(float* d, int n, std::vector<std::vector<int>> v, Grid g) {
  k<<<(n + 255) >> 8, 256>>>(d, n);
  k<<<n >> 1, (n << 1) >> 2>>>(d, n >> 1);
  k<<<std::max<int>(n, 1), std::min<unsigned>(256u, (unsigned)n)>>>(d, static_cast<int>(v.size()));
  k<<<dim3{16, 16}, dim3{8, 8, 1}, sizeof(float) * (n > 32 ? 32 : n)>>>(d, n);
  k<<<g.blocks(), {32, 1, 1}>>>(d, int(v[0][1]));
  k<<<(int)v.size(), v[0].size() > 4 ? 64 : 32>>>(d, n);
  kt<float><<<1, 1>>>(d, std::vector<std::vector<int>>{{1, 2}, {3}}.size());
  kt<std::vector<std::vector<int>>><<<1, 1>>>(nullptr, 0);
  apply<<<1, 1>>>([](int i) { return i >> 2; }, n);
  apply<<<1, 1>>>([](int i) { parent<<<1, 1>>>(nullptr); return i; }, 0);
  n >>= 1;
  k<<<1, 1>>>(d, n>>1);
  k<<<n>>2, 64>>>(d, n);
}
