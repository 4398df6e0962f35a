// Probe of the integer intrinsics added for cuda-samples (issue 13): __mul24
// and __umul24 (24-bit operands: the sign extension from bit 23 follows PTX's
// mul24 description), __mulhi, __umulhi, __sad, __usad, __rhadd, __uhadd,
// __urhadd, at the edges of their operand ranges. Recorded on an H100:
//
//   nvcc -arch=sm_90 -O2 integer_intrinsics_probe.cu -o p && ./p > integer_intrinsics_probe.expected
//
// The ctest test differential.integer_intrinsics_probe builds it with weft
// and requires the same output, line for line.
#include <cuda_runtime.h>
#include <cstdio>
__global__ void k(const int* a, const int* b, long long* out, int n) {
  int i = threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  unsigned ux = (unsigned)x, uy = (unsigned)y;
  long long* o = out + i * 9;
  o[0] = __mul24(x, y);
  o[1] = (long long)__umul24(ux, uy);
  o[2] = __mulhi(x, y);
  o[3] = (long long)__umulhi(ux, uy);
  o[4] = (long long)__sad(x, y, 7u);
  o[5] = (long long)__usad(ux, uy, 7u);
  o[6] = __rhadd(x, y);
  o[7] = (long long)__uhadd(ux, uy);
  o[8] = (long long)__urhadd(ux, uy);
}
int main() {
  const int n = 12;
  int ha[n] = {0,        1,         -1,         0x7fffff,   0x800000,        -0x800000,
               0xffffff, 0x1234567, -123456789, 2147483647, (int)0x80000000, 99999};
  int hb[n] = {5, -1, -1, 0x7fffff, 3, 0x800001, 0xffffff, -0x7654321, 987654321, 2147483647, -1, (int)0xfff00000};
  int *da, *db;
  long long* dout;
  cudaMalloc(&da, sizeof ha);
  cudaMalloc(&db, sizeof hb);
  cudaMalloc(&dout, n * 9 * sizeof(long long));
  cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice);
  cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice);
  k<<<1, 32>>>(da, db, dout, n);
  long long h[n * 9];
  cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    printf("%d %d:", ha[i], hb[i]);
    for (int j = 0; j < 9; ++j) printf(" %lld", h[i * 9 + j]);
    printf("\n");
  }
}
