// Warp matrix functions on an H100: how mma_sync rounds and sums (half,
// bfloat16 and tf32 factors, float and half accumulators), what happens on
// overflow with and without satf, how integer sums wrap, what double's
// product does with a fused multiply-add, the sub-byte and 1-bit products,
// and __float_to_tf32. Each case puts its values in row 0 of A and column 0
// of B (the rest zero) and prints D(0,0) as bits and as a decimal.
//
// Then it prints which matrix element each lane's x[i] holds after
// load_matrix_sync for the 16 x 16 half and float fragments (CUDA leaves
// this unspecified; weft uses the H100's).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

using namespace nvcuda;

// ---- the kernels: one warp, A row-major (m x k), B column-major, C and D row-major ----

// Integer products have a satf argument (floating-point ones no longer do).
template <int M, int N, int K, class AT, class Mem, class CT>
__global__ void product_kernel(const Mem* a, const Mem* b, const CT* c, CT* d, int satf) {
  wmma::fragment<wmma::matrix_a, M, N, K, AT, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, AT, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, M, N, K, CT> fc;
  wmma::load_matrix_sync(fa, a, K);
  wmma::load_matrix_sync(fb, b, K);
  wmma::load_matrix_sync(fc, c, N, wmma::mem_row_major);
  if (satf)
    wmma::mma_sync(fc, fa, fb, fc, true);
  else
    wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, N, wmma::mem_row_major);
}

template <int M, int N, int K, class AT, class Mem, class CT>
__global__ void plain_product_kernel(const Mem* a, const Mem* b, const CT* c, CT* d) {
  wmma::fragment<wmma::matrix_a, M, N, K, AT, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, AT, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, M, N, K, CT> fc;
  wmma::load_matrix_sync(fa, a, K);
  wmma::load_matrix_sync(fb, b, K);
  wmma::load_matrix_sync(fc, c, N, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, N, wmma::mem_row_major);
}

template <class AT>
__global__ void subbyte_kernel(const void* a, const void* b, const int* c, int* d, int satf) {
  wmma::fragment<wmma::matrix_a, 8, 8, 32, AT, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 32, AT, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 32, int> fc;
  wmma::load_matrix_sync(fa, a, 32);
  wmma::load_matrix_sync(fb, b, 32);
  wmma::load_matrix_sync(fc, c, 8, wmma::mem_row_major);
  if (satf)
    wmma::mma_sync(fc, fa, fb, fc, true);
  else
    wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
}

__global__ void bit_kernel(const void* a, const void* b, const int* c, int* d, int use_and) {
  using wmma::experimental::precision::b1;
  wmma::fragment<wmma::matrix_a, 8, 8, 128, b1, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 128, b1, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 128, int> fc;
  wmma::load_matrix_sync(fa, a, 128);
  wmma::load_matrix_sync(fb, b, 128);
  wmma::load_matrix_sync(fc, c, 8, wmma::mem_row_major);
  wmma::bmma_sync(fc, fa, fb, fc, use_and ? wmma::experimental::bmmaBitOpAND : wmma::experimental::bmmaBitOpXOR);
  wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
}

__global__ void tf32_kernel(const float* in, float* out, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = wmma::__float_to_tf32(in[i]);
}

// ---- host helpers ----

template <class T>
T* device_copy(const std::vector<T>& host) {
  T* p = nullptr;
  cudaMalloc(&p, host.size() * sizeof(T) + 256);
  cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return p;
}

template <class T>
T first_of(const T* d) {
  T v;
  cudaDeviceSynchronize();
  cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost);
  return v;
}

unsigned bits_of(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}
unsigned long long bits_of(double f) {
  unsigned long long u;
  std::memcpy(&u, &f, 8);
  return u;
}

void print_float(const char* name, float v) { std::printf("%s: 0x%08x %.9g\n", name, bits_of(v), v); }

// D(0,0) of a 16x16x16 product with half factors, row 0 of A and column 0
// of B given (16 each), C(0,0) = c; float or half accumulator.
template <class Factor, class CT>
CT product16(const float* arow, const float* bcol, float c) {
  std::vector<Factor> a(16 * 16), b(16 * 16);
  std::vector<CT> cm(16 * 16);
  for (int i = 0; i < 16 * 16; ++i) a[i] = b[i] = Factor(0.0f), cm[i] = CT(0.0f);
  for (int k = 0; k < 16; ++k) a[k] = Factor(arow[k]), b[k] = Factor(bcol[k]);  // B column 0: its first 16 elements
  cm[0] = CT(c);
  Factor* da = device_copy(a);
  Factor* db = device_copy(b);
  CT* dc = device_copy(cm);
  CT* dd = device_copy(cm);
  if constexpr (std::is_same<Factor, __half>::value)
    plain_product_kernel<16, 16, 16, __half, __half, CT><<<1, 32>>>(da, db, dc, dd);
  else
    plain_product_kernel<16, 16, 16, __nv_bfloat16, __nv_bfloat16, float><<<1, 32>>>(da, db, dc, dd);
  CT r = first_of(dd);
  cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dd);
  return r;
}

float tf32_product(const float* arow, const float* bcol, float c) {
  std::vector<float> a(16 * 8, 0.0f), b(8 * 16, 0.0f), cm(16 * 16, 0.0f);
  for (int k = 0; k < 8; ++k) a[k] = arow[k], b[k] = bcol[k];
  cm[0] = c;
  float *da = device_copy(a), *db = device_copy(b), *dc = device_copy(cm), *dd = device_copy(cm);
  plain_product_kernel<16, 16, 8, wmma::precision::tf32, float, float><<<1, 32>>>(da, db, dc, dd);
  float r = first_of(dd);
  cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dd);
  return r;
}

double double_product(const double* arow, const double* bcol, double c) {
  std::vector<double> a(8 * 4, 0.0), b(4 * 8, 0.0), cm(8 * 8, 0.0);
  for (int k = 0; k < 4; ++k) a[k] = arow[k], b[k] = bcol[k];
  cm[0] = c;
  double *da = device_copy(a), *db = device_copy(b), *dc = device_copy(cm), *dd = device_copy(cm);
  plain_product_kernel<8, 8, 4, double, double, double><<<1, 32>>>(da, db, dc, dd);
  double r = first_of(dd);
  cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dd);
  return r;
}

template <class T>
int int_product(const int* arow, const int* bcol, int c, int satf) {
  std::vector<T> a(16 * 16, 0), b(16 * 16, 0);
  std::vector<int> cm(16 * 16, 0);
  for (int k = 0; k < 16; ++k) a[k] = static_cast<T>(arow[k]), b[k] = static_cast<T>(bcol[k]);
  cm[0] = c;
  T *da = device_copy(a), *db = device_copy(b);
  int *dc = device_copy(cm), *dd = device_copy(cm);
  product_kernel<16, 16, 16, T, T, int><<<1, 32>>>(da, db, dc, dd, satf);
  int r = first_of(dd);
  cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dd);
  return r;
}

// 4-bit: row 0 of A and column 0 of B as 32 nibbles each (4 words), c.
template <class T>
int nibble_product(unsigned a0, unsigned b0, int c, int satf) {
  std::vector<unsigned> a(8 * 32 / 8, 0u), b(8 * 32 / 8, 0u);
  std::vector<int> cm(64, 0);
  for (int w = 0; w < 4; ++w) a[w] = a0, b[w] = b0;
  cm[0] = c;
  unsigned *da = device_copy(a), *db = device_copy(b);
  int *dc = device_copy(cm), *dd = device_copy(cm);
  subbyte_kernel<T><<<1, 32>>>(da, db, dc, dd, satf);
  int r = first_of(dd);
  cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dd);
  return r;
}

int bit_product(unsigned a0, unsigned b0, int c, int use_and) {
  std::vector<unsigned> a(8 * 4, 0u), b(8 * 4, 0u);
  std::vector<int> cm(64, 0);
  for (int w = 0; w < 4; ++w) a[w] = a0 ^ (w * 0x11111111u), b[w] = b0;
  cm[0] = c;
  unsigned *da = device_copy(a), *db = device_copy(b);
  int *dc = device_copy(cm), *dd = device_copy(cm);
  bit_kernel<<<1, 32>>>(da, db, dc, dd, use_and);
  int r = first_of(dd);
  cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dd);
  return r;
}

// ---- the layout (not compared) ----

template <class Frag, class Mem>
__global__ void layout_kernel(const Mem* p, unsigned ldm, float* out) {
  Frag f;
  wmma::load_matrix_sync(f, p, ldm);
  for (int i = 0; i < Frag::num_elements; ++i) out[threadIdx.x * Frag::num_elements + i] = float(f.x[i]);
}
__global__ void accumulator_layout_kernel(const float* p, float* out) {
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;
  wmma::load_matrix_sync(f, p, 16, wmma::mem_row_major);
  for (int i = 0; i < f.num_elements; ++i) out[threadIdx.x * f.num_elements + i] = f.x[i];
}

void print_layout(const char* name, const float* d, int per_lane) {
  std::vector<float> h(32 * per_lane);
  cudaDeviceSynchronize();
  cudaMemcpy(h.data(), d, h.size() * sizeof(float), cudaMemcpyDeviceToHost);
  for (int lane = 0; lane < 32; ++lane) {
    std::printf("%s lane %2d:", name, lane);
    for (int i = 0; i < per_lane; ++i) std::printf(" %d", static_cast<int>(h[lane * per_lane + i]));
    std::printf("\n");
  }
}

void layouts() {
  // Element (r, c) of each 16x16 matrix holds r * 16 + c (exact in half).
  std::vector<__half> hm(256);
  std::vector<float> fm(256);
  for (int i = 0; i < 256; ++i) hm[i] = __float2half(static_cast<float>(i)), fm[i] = static_cast<float>(i);
  __half* dh = device_copy(hm);
  float* df = device_copy(fm);
  float* out = nullptr;
  cudaMalloc(&out, 32 * 16 * sizeof(float));
  layout_kernel<wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>, __half><<<1, 32>>>(dh, 16, out);
  print_layout("matrix_a m16n16k16 half row_major (r*16+c)", out, 16);
  layout_kernel<wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major>, __half><<<1, 32>>>(dh, 16, out);
  print_layout("matrix_b m16n16k16 half col_major (c*16+r)", out, 16);
  accumulator_layout_kernel<<<1, 32>>>(df, out);
  print_layout("accumulator m16n16k16 float (r*16+c)", out, 8);
}

int main() {
  const float t12 = std::ldexp(1.0f, -12), p15 = std::ldexp(1.0f, 15);
  float a[16], b[16];

  // half x half -> float
  for (int k = 0; k < 16; ++k) a[k] = b[k] = t12;  // sixteen products of 2^-24
  print_float("half f32: 1 + 16 * 2^-24", product16<__half, float>(a, b, 1.0f));
  for (int k = 0; k < 16; ++k) a[k] = b[k] = 0.0f;
  a[0] = p15, b[0] = p15, a[1] = 1.0f, b[1] = 1.0f, a[2] = -p15, b[2] = p15;
  print_float("half f32: 2^30 + 1 - 2^30 (k = 0, 1, 2)", product16<__half, float>(a, b, 0.0f));
  for (int k = 0; k < 16; ++k) a[k] = b[k] = 0.0f;
  a[0] = 1.0f, b[0] = 1.0f, a[8] = p15, b[8] = p15, a[15] = -p15, b[15] = p15;
  print_float("half f32: 1 (k = 0) + 2^30 (k = 8) - 2^30 (k = 15)", product16<__half, float>(a, b, 0.0f));
  for (int k = 0; k < 16; ++k) a[k] = b[k] = 0.0f;
  a[0] = 1.0f, b[0] = 1.5f;
  print_float("half f32: 2^24 + 1.5", product16<__half, float>(a, b, 16777216.0f));
  print_float("half f32: -2^24 + 1.5", product16<__half, float>(a, b, -16777216.0f));
  a[0] = -1.0f;
  print_float("half f32: 2^24 - 1.5", product16<__half, float>(a, b, 16777216.0f));
  a[0] = 1.0f, b[0] = 0.5f;
  print_float("half f32: 2^24 + 0.5 + 0.5 (k = 0, 1)", [&] {
    a[1] = 1.0f, b[1] = 0.5f;
    return product16<__half, float>(a, b, 16777216.0f);
  }());
  for (int k = 0; k < 16; ++k) a[k] = 1.0f, b[k] = 0.25f;
  print_float("half f32: 2^24 + 16 * 0.25", product16<__half, float>(a, b, 16777216.0f));
  for (int k = 0; k < 16; ++k) a[k] = b[k] = 0.0f;
  a[0] = std::ldexp(1.0f, -24), b[0] = std::ldexp(1.0f, -24);
  print_float("half f32: subnormal x subnormal (2^-48)", product16<__half, float>(a, b, 0.0f));
  a[0] = INFINITY, b[0] = 0.0f;
  print_float("half f32: inf x 0", product16<__half, float>(a, b, 0.0f));
  a[0] = INFINITY, b[0] = 1.0f, a[1] = -INFINITY, b[1] = 1.0f;
  print_float("half f32: inf - inf", product16<__half, float>(a, b, 0.0f));
  for (int k = 0; k < 16; ++k) a[k] = b[k] = 0.0f;
  a[0] = 1.0f, b[0] = 1.0f;
  print_float("half f32: FLT_MAX + 1", product16<__half, float>(a, b, 3.4028235e38f));
  a[0] = 65504.0f, b[0] = 65504.0f;
  print_float("half f32: C = NaN", product16<__half, float>(a, b, NAN));

  // How many bits below the largest term survive: C = 1 plus sixteen
  // products of 2^-e; and whether the sixteen products form one group.
  for (int e = 24; e <= 30; ++e) {
    for (int k = 0; k < 16; ++k) a[k] = t12, b[k] = std::ldexp(1.0f, 12 - e);
    char name[64];
    std::snprintf(name, sizeof name, "half f32: 1 + 16 * 2^-%d", e);
    print_float(name, product16<__half, float>(a, b, 1.0f));
    std::snprintf(name, sizeof name, "bf16: 1 + 16 * 2^-%d", e);
    print_float(name, product16<__nv_bfloat16, float>(a, b, 1.0f));
  }
  for (int k = 0; k < 16; ++k) a[k] = std::ldexp(1.0f, -6), b[k] = 1.0f;
  a[0] = 4096.0f, b[0] = 4096.0f, a[1] = -4096.0f, b[1] = 4096.0f;
  print_float("half f32: 2^24 - 2^24 (k = 0, 1) + 14 * 2^-6", product16<__half, float>(a, b, 0.0f));
  for (int k = 0; k < 16; ++k) a[k] = std::ldexp(1.0f, -6), b[k] = 1.0f;
  a[8] = 4096.0f, b[8] = 4096.0f, a[9] = -4096.0f, b[9] = 4096.0f;
  print_float("half f32: 2^24 - 2^24 (k = 8, 9) + 14 * 2^-6", product16<__half, float>(a, b, 0.0f));
  for (int k = 0; k < 16; ++k) a[k] = std::ldexp(1.0f, -6), b[k] = 1.0f;
  a[4] = 4096.0f, b[4] = 4096.0f, a[5] = -4096.0f, b[5] = 4096.0f;
  print_float("half f32: 2^24 - 2^24 (k = 4, 5) + 14 * 2^-6", product16<__half, float>(a, b, 0.0f));
  for (int k = 0; k < 16; ++k) a[k] = b[k] = 0.0f;
  a[0] = -1.0f, b[0] = std::ldexp(1.0f, -24), a[1] = -1.0f, b[1] = std::ldexp(1.0f, -24);
  print_float("half f32: 1 - 2 * 2^-24", product16<__half, float>(a, b, 1.0f));
  print_float("half f32: -1 - 2 * 2^-24", product16<__half, float>(a, b, -1.0f));
  a[0] = 1.0f, a[1] = 1.0f;
  print_float("half f32: -1 + 2 * 2^-24", product16<__half, float>(a, b, -1.0f));
  a[0] = 1.0f, b[0] = std::ldexp(1.0f, -24), a[1] = -1.0f, b[1] = std::ldexp(1.0f, -14);
  print_float("half f32: 1 + 2^-24 - 2^-14", product16<__half, float>(a, b, 1.0f));

  // half x half -> half
  for (int k = 0; k < 16; ++k) a[k] = b[k] = 0.0f;
  a[0] = std::ldexp(1.0f, -11), b[0] = 1.0f, a[1] = std::ldexp(1.0f, -12), b[1] = 1.0f;
  print_float("half f16: 1 + 2^-11 + 2^-12", __half2float(product16<__half, __half>(a, b, 1.0f)));
  a[1] = 0.0f;
  print_float("half f16: 1 + 2^-11 (tie)", __half2float(product16<__half, __half>(a, b, 1.0f)));
  for (int k = 0; k < 16; ++k) a[k] = t12, b[k] = 1.0f;  // sixteen times 2^-12
  print_float("half f16: 1 + 16 * 2^-12", __half2float(product16<__half, __half>(a, b, 1.0f)));
  for (int k = 0; k < 16; ++k) a[k] = b[k] = 0.0f;
  a[0] = 16.0f, b[0] = 1.0f;
  print_float("half f16: 65504 + 16", __half2float(product16<__half, __half>(a, b, 65504.0f)));
  a[0] = 256.0f, b[0] = 256.0f;
  print_float("half f16: 65504 + 65536", __half2float(product16<__half, __half>(a, b, 65504.0f)));

  // bfloat16 x bfloat16 -> float
  for (int k = 0; k < 16; ++k) a[k] = b[k] = 0.0f;
  a[0] = std::ldexp(1.0f, -70), b[0] = std::ldexp(1.0f, -70);
  print_float("bf16: 2^-70 x 2^-70 (float subnormal)", product16<__nv_bfloat16, float>(a, b, 0.0f));
  a[0] = 1e30f, b[0] = 1e30f;
  print_float("bf16: 1e30 x 1e30", product16<__nv_bfloat16, float>(a, b, 0.0f));
  a[0] = 1e30f, b[0] = 1e30f, a[1] = -1e30f, b[1] = 1e30f;
  print_float("bf16: 1e30^2 - 1e30^2", product16<__nv_bfloat16, float>(a, b, 0.0f));
  for (int k = 0; k < 16; ++k) a[k] = b[k] = t12;
  print_float("bf16: 1 + 16 * 2^-24", product16<__nv_bfloat16, float>(a, b, 1.0f));
  for (int k = 0; k < 16; ++k) a[k] = b[k] = 0.0f;
  a[0] = 1.0f, b[0] = 1.5f;
  print_float("bf16: 2^24 + 1.5", product16<__nv_bfloat16, float>(a, b, 16777216.0f));

  // tf32: factors not rounded first, and __float_to_tf32
  float ta[8] = {}, tb[8] = {};
  ta[0] = 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -12), tb[0] = 1.0f;
  print_float("tf32: (1 + 2^-11 + 2^-12) x 1", tf32_product(ta, tb, 0.0f));
  ta[0] = -ta[0];
  print_float("tf32: -(1 + 2^-11 + 2^-12) x 1", tf32_product(ta, tb, 0.0f));
  ta[0] = 1.0f, tb[0] = 1.5f;
  print_float("tf32: 2^24 + 1.5", tf32_product(ta, tb, 16777216.0f));
  for (int k = 0; k < 8; ++k) ta[k] = tb[k] = t12;
  print_float("tf32: 1 + 8 * 2^-24", tf32_product(ta, tb, 1.0f));
  for (int e = 24; e <= 30; ++e) {
    for (int k = 0; k < 8; ++k) ta[k] = t12, tb[k] = std::ldexp(1.0f, 12 - e);
    char name[64];
    std::snprintf(name, sizeof name, "tf32: 1 + 8 * 2^-%d", e);
    print_float(name, tf32_product(ta, tb, 1.0f));
  }
  {
    std::vector<float> in = {1.0f + std::ldexp(1.0f, -11),
                             -(1.0f + std::ldexp(1.0f, -11)),
                             1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -10),
                             1.0f + std::ldexp(1.0f, -12),
                             1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -23),
                             3.4028235e38f,
                             1e-40f,
                             INFINITY,
                             -INFINITY};
    unsigned nan_bits = 0x7f800001u, big = 0x7f7ff000u;
    float nan_low, big_tie;
    std::memcpy(&nan_low, &nan_bits, 4);
    std::memcpy(&big_tie, &big, 4);
    in.push_back(nan_low);
    in.push_back(big_tie);
    float* din = device_copy(in);
    float* dout = device_copy(in);
    tf32_kernel<<<1, 32>>>(din, dout, static_cast<int>(in.size()));
    std::vector<float> out(in.size());
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < in.size(); ++i)
      std::printf("__float_to_tf32(0x%08x): 0x%08x\n", bits_of(in[i]), bits_of(out[i]));
  }

  // double m8n8k4: fused or not
  {
    double da[4] = {1.0 + std::ldexp(1.0, -52), 0, 0, 0}, db[4] = {1.0 - std::ldexp(1.0, -52), 0, 0, 0};
    double r = double_product(da, db, -1.0);
    std::printf("double: (1 + 2^-52)(1 - 2^-52) - 1: 0x%016llx %.17g\n", bits_of(r), r);
    double ea[4] = {std::ldexp(1.0, 53), 1.0, -std::ldexp(1.0, 53), 1.0}, eb[4] = {1.0, 1.0, 1.0, 1.0};
    r = double_product(ea, eb, 0.0);
    std::printf("double: 2^53 + 1 - 2^53 + 1: 0x%016llx %.17g\n", bits_of(r), r);
    double fa[4] = {1.0, 1.0, 0, 0}, fb[4] = {1.0, std::ldexp(1.0, -53), 0, 0};
    r = double_product(fa, fb, std::ldexp(1.0, 53) - 1.0 + 0.0);
    std::printf("double: (2^53 - 1) + 1 + 2^-53: 0x%016llx %.17g\n", bits_of(r), r);
  }

  // 8-bit integers
  int ia[16] = {}, ib[16] = {};
  ia[0] = 1, ib[0] = 1;
  std::printf("s8: INT_MAX + 1: %d\n", int_product<signed char>(ia, ib, 2147483647, 0));
  std::printf("s8: INT_MAX + 1 (satf 1): %d\n", int_product<signed char>(ia, ib, 2147483647, 1));
  ia[0] = -128, ib[0] = 127;
  std::printf("s8: INT_MIN - 16256: %d\n", int_product<signed char>(ia, ib, -2147483647 - 1, 0));
  std::printf("s8: INT_MIN - 16256 (satf 1): %d\n", int_product<signed char>(ia, ib, -2147483647 - 1, 1));
  for (int k = 0; k < 16; ++k) ia[k] = -128, ib[k] = -128;
  std::printf("s8: 16 * (-128)^2 + 5: %d\n", int_product<signed char>(ia, ib, 5, 0));
  for (int k = 0; k < 16; ++k) ia[k] = 255, ib[k] = 255;
  std::printf("u8: 16 * 255^2 - 7: %d\n", int_product<unsigned char>(ia, ib, -7, 0));
  std::printf("u8: 16 * 255^2 + INT_MAX - 1040399 (satf 1): %d\n",
              int_product<unsigned char>(ia, ib, 2147483647 - 1040399, 1));

  // 4-bit and 1-bit
  std::printf("s4: 32 * (-8 x -8): %d\n",
              nibble_product<wmma::experimental::precision::s4>(0x88888888u, 0x88888888u, 0, 0));
  std::printf("s4: 32 * (7 x -1) + 3: %d\n",
              nibble_product<wmma::experimental::precision::s4>(0x77777777u, 0xffffffffu, 3, 0));
  std::printf("s4: nibbles 0..7 x 8..f: %d\n",
              nibble_product<wmma::experimental::precision::s4>(0x76543210u, 0xfedcba98u, 0, 0));
  std::printf("u4: nibbles 0..7 x 8..f: %d\n",
              nibble_product<wmma::experimental::precision::u4>(0x76543210u, 0xfedcba98u, 0, 0));
  std::printf("u4: 32 * 15 x 15 + INT_MAX (satf 1): %d\n",
              nibble_product<wmma::experimental::precision::u4>(0xffffffffu, 0xffffffffu, 2147483647, 1));
  std::printf("b1 xor: %d\n", bit_product(0xf0f0f0f0u, 0xff00ff00u, 1, 0));
  std::printf("b1 and: %d\n", bit_product(0xf0f0f0f0u, 0xff00ff00u, -1, 1));
  std::printf("b1 xor of 0x00000001 and 0x80000000 words: %d\n", bit_product(0x00000001u, 0x80000000u, 0, 0));
  layouts();
  cudaError_t e = cudaGetLastError();
  std::printf("last error: %s\n", cudaGetErrorName(e));
  return 0;
}
