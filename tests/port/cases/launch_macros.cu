// Launches in macro definitions (with line splices) and in macro arguments.
#include <cstdio>

#define CHECK(call)                                                   \
  do {                                                                \
    call;                                                             \
    cudaError_t err = cudaGetLastError();                             \
    if (err != cudaSuccess) std::printf("%s\n", cudaGetErrorName(err)); \
  } while (0)
#define LAUNCH(k, n) k<<<(n + 255) / 256, 256>>>(d, n)
#define LAUNCH_LINES(k, n)   \
  k<<<(n + 255) / 256,       \
      256>>>(d,              \
             n) /* done */
#define LAUNCH_T(T, ...) fill<T><<<1, 32>>>(__VA_ARGS__)
#define CONFIG(grid, block) <<<grid, block>>>

template <class T> __global__ void fill(T* d, int n) {}

void macros(float* d, int n) {
  LAUNCH(fill<float>, n);
  LAUNCH_LINES(fill<float>, n);
  LAUNCH_T(float, d, n);
  CHECK(fill<float><<<1, 1>>>(d, n));
  CHECK((fill<float><<<dim3(1, 1), dim3(32, 1)>>>(d, n)));
}
