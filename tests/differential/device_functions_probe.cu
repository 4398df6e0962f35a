// Probe of CUDA's device functions: conversions in each rounding mode, the
// rounding intrinsics, the fast intrinsics' special cases, CUDA-only math
// functions, min/max overloads, and what assert, __trap, __brkpt,
// __nanosleep and device printf do. Built with nvcc and run on an H100 by
// hand; its output is committed beside it (device_functions_probe.expected)
// and weft's unit tests assert the same results.
//
//   nvcc -arch=sm_90 -o probe device_functions_probe.cu
//   ./probe; ./probe assert; ./probe trap; ./probe brkpt; ./probe timing
//
// It also builds with weft, for a side-by-side comparison:
//   g++ -std=c++20 -x c++ -I include device_functions_probe.cu -lboost_context -rdynamic
// and tests/unit/cuda/device/device_functions_test.cpp runs it in-process and compares its
// output with the H100's, line by line.
//
// Every input reaches the kernels through memory, so that no compiler folds
// a call on constants with its own idea of the result.
#include <cassert>
#include <cfloat>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>

#ifdef __CUDACC__
#include <cuda_runtime.h>
#define LAUNCH(kernel, grid, block, ...) kernel<<<grid, block>>>(__VA_ARGS__)
#else
#include <weft.hpp>
#define LAUNCH(kernel, grid, block, ...) weft::launch(grid, block, kernel, __VA_ARGS__)
#endif

template <class T>
T* to_device(const T* host, int n) {
  T* p = nullptr;
  cudaMalloc(&p, n * sizeof(T));
  cudaMemcpy(p, host, n * sizeof(T), cudaMemcpyHostToDevice);
  return p;
}

template <class T>
void to_host(T* host, const T* device, int n) {
  cudaMemcpy(host, device, n * sizeof(T), cudaMemcpyDeviceToHost);
}

static unsigned bits_of(float x) {
  unsigned u;
  std::memcpy(&u, &x, 4);
  return u;
}
static unsigned long long bits_of(double x) {
  unsigned long long u;
  std::memcpy(&u, &x, 8);
  return u;
}
static void print_float(const char* what, float x) { std::printf("%-44s = 0x%08x %.9g\n", what, bits_of(x), x); }
static void print_double(const char* what, double x) { std::printf("%-44s = 0x%016llx %.17g\n", what, bits_of(x), x); }

// ---------------------------------------------------------------------------
// Floating-point to integer conversions, 16 per input.

__global__ void float_to_integer(const float* in, long long* out, int n) {
  for (int i = 0; i < n; ++i) {
    float x = in[i];
    long long* o = out + 16 * i;
    o[0] = __float2int_rn(x), o[1] = __float2int_rz(x), o[2] = __float2int_ru(x), o[3] = __float2int_rd(x);
    o[4] = __float2uint_rn(x), o[5] = __float2uint_rz(x), o[6] = __float2uint_ru(x), o[7] = __float2uint_rd(x);
    o[8] = __float2ll_rn(x), o[9] = __float2ll_rz(x), o[10] = __float2ll_ru(x), o[11] = __float2ll_rd(x);
    o[12] = (long long)__float2ull_rn(x), o[13] = (long long)__float2ull_rz(x);
    o[14] = (long long)__float2ull_ru(x), o[15] = (long long)__float2ull_rd(x);
  }
}

__global__ void double_to_integer(const double* in, long long* out, float* narrowed, int n) {
  for (int i = 0; i < n; ++i) {
    double x = in[i];
    long long* o = out + 16 * i;
    o[0] = __double2int_rn(x), o[1] = __double2int_rz(x), o[2] = __double2int_ru(x), o[3] = __double2int_rd(x);
    o[4] = __double2uint_rn(x), o[5] = __double2uint_rz(x), o[6] = __double2uint_ru(x), o[7] = __double2uint_rd(x);
    o[8] = __double2ll_rn(x), o[9] = __double2ll_rz(x), o[10] = __double2ll_ru(x), o[11] = __double2ll_rd(x);
    o[12] = (long long)__double2ull_rn(x), o[13] = (long long)__double2ull_rz(x);
    o[14] = (long long)__double2ull_ru(x), o[15] = (long long)__double2ull_rd(x);
    float* f = narrowed + 4 * i;
    f[0] = __double2float_rn(x), f[1] = __double2float_rz(x), f[2] = __double2float_ru(x), f[3] = __double2float_rd(x);
  }
}

static const char* mode_names[4] = {"rn", "rz", "ru", "rd"};
static const char* integer_names[4] = {"int", "uint", "ll", "ull"};

static void probe_float_to_integer() {
  // clang-format off
  const float in[] = {0.0f,         -0.0f,        0.5f,         -0.5f,         1.5f,
                      -1.5f,        2.5f,         -2.5f,        0.49999997f,   2.7f,
                      -2.7f,        -1e-45f,      2147483520.0f, 2147483648.0f, -2147483648.0f,
                      -2147483904.0f, 4294967040.0f, 4294967296.0f, 9223371487098961920.0f,
                      9223372036854775808.0f, -9223372036854775808.0f, -9223373136366403584.0f,
                      18446742974197923840.0f, 18446744073709551616.0f, INFINITY, -INFINITY, NAN};
  // clang-format on
  const int n = sizeof in / sizeof in[0];
  float* d_in = to_device(in, n);
  long long* d_out = nullptr;
  cudaMalloc(&d_out, 16 * n * sizeof(long long));
  LAUNCH(float_to_integer, 1, 1, d_in, d_out, n);
  long long out[16 * n];
  to_host(out, d_out, 16 * n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 16; ++k) {
      char what[64];
      std::snprintf(what, sizeof what, "__float2%s_%s(%.9g)", integer_names[k / 4], mode_names[k % 4], in[i]);
      long long v = out[16 * i + k];
      if (k / 4 == 0) std::printf("%-44s = %d\n", what, (int)v);
      if (k / 4 == 1) std::printf("%-44s = %u\n", what, (unsigned)v);
      if (k / 4 == 2) std::printf("%-44s = %lld\n", what, v);
      if (k / 4 == 3) std::printf("%-44s = %llu\n", what, (unsigned long long)v);
    }
  cudaFree(d_in);
  cudaFree(d_out);
}

static void probe_double_to_integer() {
  // clang-format off
  const double in[] = {0.5,     -0.5,    2.5,      -2.5,          2147483647.0, 2147483647.5, 2147483648.0,
                       -2147483648.5, -2147483649.0, 4294967295.5, 4294967296.0, 9007199254740993.0,
                       9223372036854775808.0, -9223372036854775808.0, 18446744073709551616.0, INFINITY,
                       -INFINITY, NAN, 1.0 / 3, -1.0 / 3, 1e300, -1e300, 1e-50, -1e-50, 3.4028235677973366e38,
                       1.1754942807573643e-38};
  // clang-format on
  const int n = sizeof in / sizeof in[0];
  double* d_in = to_device(in, n);
  long long* d_out = nullptr;
  float* d_narrow = nullptr;
  cudaMalloc(&d_out, 16 * n * sizeof(long long));
  cudaMalloc(&d_narrow, 4 * n * sizeof(float));
  LAUNCH(double_to_integer, 1, 1, d_in, d_out, d_narrow, n);
  long long out[16 * n];
  float narrowed[4 * n];
  to_host(out, d_out, 16 * n);
  to_host(narrowed, d_narrow, 4 * n);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 16; ++k) {
      char what[64];
      std::snprintf(what, sizeof what, "__double2%s_%s(%.17g)", integer_names[k / 4], mode_names[k % 4], in[i]);
      long long v = out[16 * i + k];
      if (k / 4 == 0) std::printf("%-44s = %d\n", what, (int)v);
      if (k / 4 == 1) std::printf("%-44s = %u\n", what, (unsigned)v);
      if (k / 4 == 2) std::printf("%-44s = %lld\n", what, v);
      if (k / 4 == 3) std::printf("%-44s = %llu\n", what, (unsigned long long)v);
    }
    for (int k = 0; k < 4; ++k) {
      char what[64];
      std::snprintf(what, sizeof what, "__double2float_%s(%.17g)", mode_names[k], in[i]);
      print_float(what, narrowed[4 * i + k]);
    }
  }
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_narrow);
}

// ---------------------------------------------------------------------------
// Integer to floating-point conversions: 4 modes of each.

__global__ void integer_to_floating(const long long* in, float* f, double* d, int n) {
  for (int i = 0; i < n; ++i) {
    long long v = in[i];
    float* o = f + 16 * i;
    o[0] = __int2float_rn((int)v), o[1] = __int2float_rz((int)v), o[2] = __int2float_ru((int)v);
    o[3] = __int2float_rd((int)v);
    o[4] = __uint2float_rn((unsigned)v), o[5] = __uint2float_rz((unsigned)v), o[6] = __uint2float_ru((unsigned)v);
    o[7] = __uint2float_rd((unsigned)v);
    o[8] = __ll2float_rn(v), o[9] = __ll2float_rz(v), o[10] = __ll2float_ru(v), o[11] = __ll2float_rd(v);
    unsigned long long u = (unsigned long long)v;
    o[12] = __ull2float_rn(u), o[13] = __ull2float_rz(u), o[14] = __ull2float_ru(u), o[15] = __ull2float_rd(u);
    double* p = d + 10 * i;
    p[0] = __ll2double_rn(v), p[1] = __ll2double_rz(v), p[2] = __ll2double_ru(v), p[3] = __ll2double_rd(v);
    p[4] = __ull2double_rn(u), p[5] = __ull2double_rz(u), p[6] = __ull2double_ru(u), p[7] = __ull2double_rd(u);
    p[8] = __int2double_rn((int)v), p[9] = __uint2double_rn((unsigned)v);
  }
}

static void probe_integer_to_floating() {
  // clang-format off
  const long long in[] = {0,         1,          -1,         16777217,   -16777217, 16777219,
                          33554435,  2147483647, -2147483647 - 1, 4294967295LL, 9007199254740993LL,
                          -9007199254740993LL, 9223372036854775807LL, -9223372036854775807LL - 1,
                          (long long)0xffffffffffffffffULL, (long long)0x8000000000000001ULL};
  // clang-format on
  const int n = sizeof in / sizeof in[0];
  long long* d_in = to_device(in, n);
  float* d_f = nullptr;
  double* d_d = nullptr;
  cudaMalloc(&d_f, 16 * n * sizeof(float));
  cudaMalloc(&d_d, 10 * n * sizeof(double));
  LAUNCH(integer_to_floating, 1, 1, d_in, d_f, d_d, n);
  float f[16 * n];
  double d[10 * n];
  to_host(f, d_f, 16 * n);
  to_host(d, d_d, 10 * n);
  for (int i = 0; i < n; ++i) {
    long long v = in[i];
    for (int k = 0; k < 16; ++k) {
      int kind = k / 4;
      if (kind == 0 && (v < INT_MIN || v > INT_MAX)) continue;
      if (kind == 1 && (v < 0 || v > (long long)UINT_MAX)) continue;
      char what[64];
      if (kind == 3)
        std::snprintf(what, sizeof what, "__ull2float_%s(%llu)", mode_names[k % 4], (unsigned long long)v);
      else
        std::snprintf(what, sizeof what, "__%s2float_%s(%lld)", integer_names[kind], mode_names[k % 4], v);
      print_float(what, f[16 * i + k]);
    }
    for (int k = 0; k < 8; ++k) {
      char what[64];
      if (k >= 4)
        std::snprintf(what, sizeof what, "__ull2double_%s(%llu)", mode_names[k % 4], (unsigned long long)v);
      else
        std::snprintf(what, sizeof what, "__ll2double_%s(%lld)", mode_names[k % 4], v);
      print_double(what, d[10 * i + k]);
    }
    char what[64];
    if (v >= INT_MIN && v <= INT_MAX) {
      std::snprintf(what, sizeof what, "__int2double_rn(%lld)", v);
      print_double(what, d[10 * i + 8]);
    }
    if (v >= 0 && v <= (long long)UINT_MAX) {
      std::snprintf(what, sizeof what, "__uint2double_rn(%lld)", v);
      print_double(what, d[10 * i + 9]);
    }
  }
  cudaFree(d_in);
  cudaFree(d_f);
  cudaFree(d_d);
}

// ---------------------------------------------------------------------------
// The IEEE operations in each rounding mode: add, sub, mul, div of (a, b),
// rcp and sqrt of a, fma(a, b, c): 28 per triple.

template <class T>
struct triple {
  T a, b, c;
};

__global__ void rounding_float(const triple<float>* in, float* out, int n) {
  for (int i = 0; i < n; ++i) {
    float a = in[i].a, b = in[i].b, c = in[i].c;
    float* o = out + 28 * i;
    o[0] = __fadd_rn(a, b), o[1] = __fadd_rz(a, b), o[2] = __fadd_ru(a, b), o[3] = __fadd_rd(a, b);
    o[4] = __fsub_rn(a, b), o[5] = __fsub_rz(a, b), o[6] = __fsub_ru(a, b), o[7] = __fsub_rd(a, b);
    o[8] = __fmul_rn(a, b), o[9] = __fmul_rz(a, b), o[10] = __fmul_ru(a, b), o[11] = __fmul_rd(a, b);
    o[12] = __fdiv_rn(a, b), o[13] = __fdiv_rz(a, b), o[14] = __fdiv_ru(a, b), o[15] = __fdiv_rd(a, b);
    o[16] = __frcp_rn(a), o[17] = __frcp_rz(a), o[18] = __frcp_ru(a), o[19] = __frcp_rd(a);
    o[20] = __fsqrt_rn(a), o[21] = __fsqrt_rz(a), o[22] = __fsqrt_ru(a), o[23] = __fsqrt_rd(a);
    o[24] = __fmaf_rn(a, b, c), o[25] = __fmaf_rz(a, b, c), o[26] = __fmaf_ru(a, b, c), o[27] = __fmaf_rd(a, b, c);
  }
}

__global__ void rounding_double(const triple<double>* in, double* out, int n) {
  for (int i = 0; i < n; ++i) {
    double a = in[i].a, b = in[i].b, c = in[i].c;
    double* o = out + 28 * i;
    o[0] = __dadd_rn(a, b), o[1] = __dadd_rz(a, b), o[2] = __dadd_ru(a, b), o[3] = __dadd_rd(a, b);
    o[4] = __dsub_rn(a, b), o[5] = __dsub_rz(a, b), o[6] = __dsub_ru(a, b), o[7] = __dsub_rd(a, b);
    o[8] = __dmul_rn(a, b), o[9] = __dmul_rz(a, b), o[10] = __dmul_ru(a, b), o[11] = __dmul_rd(a, b);
    o[12] = __ddiv_rn(a, b), o[13] = __ddiv_rz(a, b), o[14] = __ddiv_ru(a, b), o[15] = __ddiv_rd(a, b);
    o[16] = __drcp_rn(a), o[17] = __drcp_rz(a), o[18] = __drcp_ru(a), o[19] = __drcp_rd(a);
    o[20] = __dsqrt_rn(a), o[21] = __dsqrt_rz(a), o[22] = __dsqrt_ru(a), o[23] = __dsqrt_rd(a);
    o[24] = __fma_rn(a, b, c), o[25] = __fma_rz(a, b, c), o[26] = __fma_ru(a, b, c), o[27] = __fma_rd(a, b, c);
  }
}

static const char* operation_names[7] = {"add", "sub", "mul", "div", "rcp", "sqrt", "fma"};

static void probe_rounding() {
  const triple<float> f[] = {{1.0f, 1e-8f, 1.0f},  {-1.0f, -1e-8f, -1.0f},       {1.0f, 3.0f, 0.1f},
                             {-1.0f, 3.0f, -0.1f}, {FLT_MAX, FLT_MAX, -FLT_MAX}, {FLT_MIN, 0.3f, 0.0f},
                             {2.0f, 0.0f, -0.0f},  {-2.0f, -0.0f, 0.0f},         {1.00000012f, 0.99999994f, -1.0f},
                             {0.1f, 10.0f, -1.0f}, {3.0f, -7.0f, 1e-30f}};
  const triple<double> d[] = {{1.0, 1e-17, 1.0},
                              {-1.0, -1e-17, -1.0},
                              {1.0, 3.0, 0.1},
                              {-1.0, 3.0, -0.1},
                              {DBL_MAX, DBL_MAX, -DBL_MAX},
                              {DBL_MIN, 0.3, 0.0},
                              {2.0, 0.0, -0.0},
                              {-2.0, -0.0, 0.0},
                              {1.0000000000000002, 0.99999999999999989, -1.0},
                              {0.1, 10.0, -1.0},
                              {3.0, -7.0, 1e-300}};
  const int nf = sizeof f / sizeof f[0], nd = sizeof d / sizeof d[0];
  triple<float>* d_f = to_device(f, nf);
  triple<double>* d_d = to_device(d, nd);
  float* d_of = nullptr;
  double* d_od = nullptr;
  cudaMalloc(&d_of, 28 * nf * sizeof(float));
  cudaMalloc(&d_od, 28 * nd * sizeof(double));
  LAUNCH(rounding_float, 1, 1, d_f, d_of, nf);
  LAUNCH(rounding_double, 1, 1, d_d, d_od, nd);
  float of[28 * nf];
  double od[28 * nd];
  to_host(of, d_of, 28 * nf);
  to_host(od, d_od, 28 * nd);
  for (int i = 0; i < nf; ++i)
    for (int k = 0; k < 28; ++k) {
      char what[96];
      int op = k / 4;
      if (op >= 4 && op <= 5)
        std::snprintf(what, sizeof what, "f%s_%s(%.9g)", operation_names[op], mode_names[k % 4], f[i].a);
      else if (op == 6)
        std::snprintf(what, sizeof what, "ffma_%s(%.9g, %.9g, %.9g)", mode_names[k % 4], f[i].a, f[i].b, f[i].c);
      else
        std::snprintf(what, sizeof what, "f%s_%s(%.9g, %.9g)", operation_names[op], mode_names[k % 4], f[i].a, f[i].b);
      print_float(what, of[28 * i + k]);
    }
  for (int i = 0; i < nd; ++i)
    for (int k = 0; k < 28; ++k) {
      char what[128];
      int op = k / 4;
      if (op >= 4 && op <= 5)
        std::snprintf(what, sizeof what, "d%s_%s(%.17g)", operation_names[op], mode_names[k % 4], d[i].a);
      else if (op == 6)
        std::snprintf(what, sizeof what, "dfma_%s(%.17g, %.17g, %.17g)", mode_names[k % 4], d[i].a, d[i].b, d[i].c);
      else
        std::snprintf(what, sizeof what, "d%s_%s(%.17g, %.17g)", operation_names[op], mode_names[k % 4], d[i].a,
                      d[i].b);
      print_double(what, od[28 * i + k]);
    }
  cudaFree(d_f);
  cudaFree(d_d);
  cudaFree(d_of);
  cudaFree(d_od);
}

// ---------------------------------------------------------------------------
// Everything else: one expression per line. V(x) launders a constant
// through memory.

template <class T>
__device__ T V(T x) {
  volatile T v = x;
  return v;
}

template <class T>
__device__ int type_code(T) {
  return 0;
}
__device__ int type_code(int) { return 1; }
__device__ int type_code(unsigned) { return 2; }
__device__ int type_code(long) { return 3; }
__device__ int type_code(unsigned long) { return 4; }
__device__ int type_code(long long) { return 5; }
__device__ int type_code(unsigned long long) { return 6; }
__device__ int type_code(float) { return 7; }
__device__ int type_code(double) { return 8; }

__device__ float sincosf_s(float x) {
  float s, c;
  sincosf(x, &s, &c);
  return s;
}
__device__ float sincosf_c(float x) {
  float s, c;
  sincosf(x, &s, &c);
  return c;
}
__device__ float fast_sincosf_s(float x) {
  float s, c;
  __sincosf(x, &s, &c);
  return s;
}
__device__ float fast_sincosf_c(float x) {
  float s, c;
  __sincosf(x, &s, &c);
  return c;
}
__device__ float sincospif_s(float x) {
  float s, c;
  sincospif(x, &s, &c);
  return s;
}
__device__ float sincospif_c(float x) {
  float s, c;
  sincospif(x, &s, &c);
  return c;
}
__device__ double sincospi_s(double x) {
  double s, c;
  sincospi(x, &s, &c);
  return s;
}
__device__ double sincos_c(double x) {
  double s, c;
  sincos(x, &s, &c);
  return c;
}
__device__ float normf_of(float a, float b, float c, float d, float e) {
  float v[5] = {a, b, c, d, e};
  return normf(5, v);
}
__device__ float rnormf_of(float a, float b) {
  float v[2] = {a, b};
  return rnormf(2, v);
}
__device__ double norm_of(double a, double b, double c, double d, double e) {
  double v[5] = {a, b, c, d, e};
  return norm(5, v);
}

// clang-format off
#define CASES(X) \
  X(F, __saturatef(V(-0.5f))) X(F, __saturatef(V(-0.0f))) X(F, __saturatef(V(NAN))) X(F, __saturatef(V(0.5f))) \
  X(F, __saturatef(V(1.5f))) X(F, __saturatef(V(1.0f))) X(F, __saturatef(V(INFINITY))) X(F, __saturatef(V(-INFINITY))) \
  X(I, __float_as_int(V(1.0f))) X(I, __float_as_int(V(-0.0f))) X(U, __float_as_uint(V(-1.5f))) \
  X(F, __int_as_float(V(0x3f800000))) X(F, __uint_as_float(V(0x7f800000u))) X(F, __int_as_float(V(1))) \
  X(I, __float_as_int(V(0.0f) / V(0.0f))) X(I, __float_as_int(sqrtf(V(-1.0f)))) X(I, __float_as_int(V(INFINITY) - V(INFINITY))) \
  X(L, __double_as_longlong(V(1.0))) X(L, __double_as_longlong(V(0.0) / V(0.0))) \
  X(D, __longlong_as_double(V(0x3ff8000000000000LL))) X(I, __double2hiint(V(1.0))) X(I, __double2loint(V(1.0000000000000002))) \
  X(D, __hiloint2double(V(0x40000000), V(1))) X(I, __double2hiint(V(-2.5))) \
  X(U, min(V(-1), V(1u))) X(U, max(V(-1), V(1u))) X(Q, min(V(-1LL), V(1ULL))) X(Q, max(V(-1LL), V(1ULL))) \
  X(Q, max(V(-1L), V(1UL))) X(I, max(V(3), V(-4))) X(I, min(V(3), V(-4))) X(L, min(V(-5L), V(7L))) \
  X(F, min(V(2.0f), V(NAN))) X(F, max(V(NAN), V(2.0f))) X(F, max(V(-0.0f), V(0.0f))) X(F, min(V(0.0f), V(-0.0f))) \
  X(F, fmaxf(V(-0.0f), V(0.0f))) X(F, fminf(V(0.0f), V(-0.0f))) X(F, fminf(V(NAN), V(NAN))) \
  X(D, min(V(1.5f), V(2.0))) X(D, max(V(1.5), V(2.0f))) \
  X(U, umin(V(3u), V(4u))) X(U, umax(V(3u), V(4u))) X(L, llmin(V(-3LL), V(4LL))) X(L, llmax(V(-3LL), V(4LL))) \
  X(Q, ullmin(V(3ULL), V(4ULL))) X(Q, ullmax(V(3ULL), V(4ULL))) \
  X(I, type_code(min(1, 1u))) X(I, type_code(min(1u, 1u))) X(I, type_code(min(1L, 1UL))) X(I, type_code(min(1L, 1L))) \
  X(I, type_code(min(1LL, 1ULL))) X(I, type_code(min(1.0f, 1.0))) X(I, type_code(min(1.0f, 1.0f))) \
  X(I, type_code(max(1, 1))) X(I, type_code(abs(1.0f))) X(I, type_code(abs(-1LL))) X(I, type_code(abs(-1L))) \
  X(I, type_code(sin(1.0f))) X(I, type_code(rsqrt(1.0f))) X(I, type_code(pow(2.0f, 2))) X(I, type_code(pow(2.0f, 2.0f))) \
  X(I, type_code(sqrt(2.0f))) X(I, type_code(clock())) X(I, type_code(clock64())) X(I, type_code(exp10(1.0f))) \
  X(I, abs(V(-3))) X(F, abs(V(-2.5f))) X(D, abs(V(-2.5))) X(L, abs(V(-3LL))) X(L, llabs(V(-4LL))) \
  X(F, __fdividef(V(1.0f), V(0x1.8p126f))) X(F, __fdividef(V(INFINITY), V(0x1.8p126f))) X(F, __fdividef(V(6.0f), V(3.0f))) \
  X(F, __fdividef(V(1.0f), V(0.0f))) X(F, __fdividef(V(1.0f), V(3.0f))) X(F, __fdividef(V(1.0f), V(INFINITY))) \
  X(F, __fdividef(V(-1.0f), V(-0x1.8p126f))) X(F, fdividef(V(1.0f), V(0x1.8p126f))) X(F, __fdividef(V(0x1p127f), V(0x1p127f))) \
  X(F, __powf(V(-2.0f), V(2.0f))) X(F, __powf(V(-2.0f), V(3.0f))) X(F, __powf(V(0.0f), V(0.0f))) X(F, __powf(V(0.0f), V(-1.0f))) \
  X(F, __powf(V(2.0f), V(10.0f))) X(F, __powf(V(2.0f), V(0.5f))) X(F, __powf(V(1.0f), V(INFINITY))) \
  X(F, __powf(V(INFINITY), V(0.0f))) X(F, __powf(V(1e-40f), V(1.0f))) X(F, __powf(V(10.0f), V(-40.0f))) \
  X(F, __expf(V(1.0f))) X(F, __expf(V(10.0f))) X(F, __expf(V(-100.0f))) X(F, __expf(V(-87.0f))) X(F, __expf(V(88.0f))) \
  X(F, __expf(V(89.0f))) X(F, __expf(V(0.0f))) X(F, __exp10f(V(2.0f))) X(F, __exp10f(V(-40.0f))) \
  X(F, __logf(V(2.0f))) X(F, __logf(V(0.0f))) X(F, __logf(V(-1.0f))) X(F, __logf(V(1e-40f))) X(F, __logf(V(INFINITY))) \
  X(F, __log2f(V(8.0f))) X(F, __log2f(V(1e-40f))) X(F, __log10f(V(1000.0f))) X(F, __logf(V(1.0f))) \
  X(F, __sinf(V(1.0f))) X(F, __sinf(V(1e-40f))) X(F, __sinf(V(-1e-40f))) X(F, __sinf(V(100.0f))) X(F, __sinf(V(1e6f))) \
  X(F, __cosf(V(1.0f))) X(F, __cosf(V(1e6f))) X(F, __tanf(V(1.0f))) X(F, __tanf(V(1.5707964f))) X(F, __tanf(V(1e-40f))) \
  X(F, fast_sincosf_s(V(0.5f))) X(F, fast_sincosf_c(V(0.5f))) X(F, fast_sincosf_s(V(-1e-40f))) X(F, __tanhf(V(0.5f))) \
  X(F, sinf(V(1.0f))) X(F, expf(V(1.0f))) X(F, exp10f(V(2.0f))) X(F, sincosf_s(V(1.0f))) X(F, sincosf_c(V(1.0f))) \
  X(D, sincos_c(V(1.0))) X(D, exp10(V(2.0))) X(F, sin(V(1.0f))) X(F, sinf(V(1e-40f))) X(F, expf(V(-100.0f))) \
  X(F, sinpif(V(1.0f))) X(F, sinpif(V(-1.0f))) X(F, sinpif(V(2.0f))) X(F, sinpif(V(0.5f))) X(F, sinpif(V(-0.5f))) \
  X(F, sinpif(V(1.5f))) X(F, sinpif(V(-0.0f))) X(F, sinpif(V(0.25f))) X(F, sinpif(V(1e30f))) X(F, sinpif(V(INFINITY))) \
  X(F, cospif(V(0.5f))) X(F, cospif(V(1.5f))) X(F, cospif(V(1.0f))) X(F, cospif(V(-0.5f))) X(F, cospif(V(0.25f))) \
  X(F, cospif(V(1e30f))) X(F, sincospif_s(V(-2.0f))) X(F, sincospif_c(V(2.5f))) \
  X(D, sinpi(V(1.0))) X(D, sinpi(V(-2.0))) X(D, sinpi(V(0.1))) X(D, sinpi(V(-0.75))) X(D, cospi(V(0.5))) X(D, cospi(V(2.5))) \
  X(D, cospi(V(0.1))) X(D, cospi(V(-3.0))) X(D, sincospi_s(V(-3.0))) X(D, sinpi(V(1e300))) \
  X(F, rsqrtf(V(0.0f))) X(F, rsqrtf(V(-0.0f))) X(F, rsqrtf(V(4.0f))) X(F, rsqrtf(V(2.0f))) X(F, rsqrtf(V(INFINITY))) \
  X(F, rsqrtf(V(-1.0f))) X(D, rsqrt(V(2.0))) X(D, rsqrt(V(0.25))) X(F, rcbrtf(V(8.0f))) X(F, rcbrtf(V(-0.0f))) \
  X(D, rcbrt(V(27.0))) X(F, rcbrtf(V(INFINITY))) X(F, rcbrtf(V(-INFINITY))) X(D, rcbrt(V(-8.0))) \
  X(F, __frsqrt_rn(V(2.0f))) X(F, __frsqrt_rn(V(3.0f))) X(F, __frsqrt_rn(V(0.5f))) X(F, __frsqrt_rn(V(0.0f))) \
  X(F, __frsqrt_rn(V(-0.0f))) X(F, __frsqrt_rn(V(INFINITY))) X(F, __frsqrt_rn(V(-1.0f))) X(F, __frsqrt_rn(V(1e-45f))) \
  X(F, __frsqrt_rn(V(4.0f))) X(F, __frsqrt_rn(V(5.0f))) X(F, __frsqrt_rn(V(1e30f))) \
  X(F, norm3df(V(3.0f), V(4.0f), V(12.0f))) X(F, norm4df(V(1.0f), V(2.0f), V(2.0f), V(4.0f))) \
  X(D, norm3d(V(3e200), V(4e200), V(12e200))) X(D, norm4d(V(1e-300), V(2e-300), V(2e-300), V(4e-300))) \
  X(F, normf_of(V(1.0f), V(1.0f), V(1.0f), V(1.0f), V(0.0f))) X(D, norm_of(V(3.0), V(4.0), V(12.0), V(84.0), V(0.0))) \
  X(F, rnorm3df(V(3.0f), V(4.0f), V(12.0f))) X(F, rhypotf(V(3.0f), V(4.0f))) X(D, rhypot(V(3.0), V(4.0))) \
  X(F, norm3df(V(INFINITY), V(NAN), V(1.0f))) X(F, norm3df(V(NAN), V(1.0f), V(1.0f))) X(F, rnormf_of(V(0.0f), V(0.0f))) \
  X(D, norm4d(V(0.0), V(0.0), V(0.0), V(0.0))) X(D, rnorm3d(V(INFINITY), V(1.0), V(1.0))) X(F, norm3df(V(3e38f), V(3e38f), V(0.0f))) \
  X(F, erfinvf(V(0.5f))) X(F, erfinvf(V(-0.9f))) X(F, erfinvf(V(1.0f))) X(F, erfinvf(V(1.5f))) X(F, erfinvf(V(-0.0f))) \
  X(D, erfinv(V(0.999999))) X(D, erfinv(V(1e-300))) X(D, erfinv(V(0.5))) X(F, erfcinvf(V(0.5f))) X(D, erfcinv(V(1e-300))) \
  X(D, erfcinv(V(1.5))) X(D, erfcinv(V(2.0))) X(D, erfcinv(V(0.0))) X(D, erfcinv(V(1e-10))) X(D, erfcx(V(1.0))) X(D, erfcx(V(30.0))) \
  X(D, erfcx(V(-1.0))) X(D, erfcx(V(-30.0))) X(D, erfcx(V(5.0))) X(F, erfcxf(V(1.0f))) X(D, normcdf(V(1.0))) X(D, normcdf(V(-30.0))) \
  X(D, normcdf(V(0.0))) X(F, normcdff(V(1.96f))) X(D, normcdfinv(V(0.975))) X(D, normcdfinv(V(0.5))) \
  X(D, normcdfinv(V(1e-300))) X(F, normcdfinvf(V(0.025f))) X(D, normcdfinv(V(0.0))) X(D, normcdfinv(V(1.0))) \
  X(D, cyl_bessel_i0(V(1.0))) X(D, cyl_bessel_i1(V(-1.0))) X(F, cyl_bessel_i0f(V(10.0f))) X(F, cyl_bessel_i1f(V(-0.0f))) \
  X(D, cyl_bessel_i0(V(800.0))) X(F, cyl_bessel_i0f(V(100.0f)))
// clang-format on

enum kind { I, U, L, Q, F, D };

struct record {
  int kind;
  unsigned long long bits;
};

__device__ record make_record(int v) { return {I, (unsigned long long)(unsigned)v}; }
__device__ record make_record(unsigned v) { return {U, v}; }
__device__ record make_record(long v) { return {L, (unsigned long long)v}; }
__device__ record make_record(long long v) { return {L, (unsigned long long)v}; }
__device__ record make_record(unsigned long v) { return {Q, v}; }
__device__ record make_record(unsigned long long v) { return {Q, v}; }
__device__ record make_record(float v) { return {F, __float_as_uint(v)}; }
__device__ record make_record(double v) { return {D, (unsigned long long)__double_as_longlong(v)}; }

__global__ void cases_kernel(record* out, int* printf_result) {
  int i = 0;
#define X(kind, expression) out[i++] = make_record(expression);
  CASES(X)
#undef X
  *printf_result = printf("device printf %d %s %.2f\n", V(42), "x", V(1.5));
}

static void probe_cases() {
  const char* names[] = {
#define X(kind, expression) #expression,
      CASES(X)
#undef X
  };
  const int n = sizeof names / sizeof names[0];
  record* d_out = nullptr;
  int* d_printf = nullptr;
  cudaMalloc(&d_out, n * sizeof(record));
  cudaMalloc(&d_printf, sizeof(int));
  LAUNCH(cases_kernel, 1, 1, d_out, d_printf);
  cudaDeviceSynchronize();
  record out[n];
  int printf_result = 0;
  to_host(out, d_out, n);
  to_host(&printf_result, d_printf, 1);
  for (int i = 0; i < n; ++i) {
    record r = out[i];
    switch (r.kind) {
      case I:
        std::printf("%-44s = %d\n", names[i], (int)r.bits);
        break;
      case U:
        std::printf("%-44s = %u\n", names[i], (unsigned)r.bits);
        break;
      case L:
        std::printf("%-44s = %lld\n", names[i], (long long)r.bits);
        break;
      case Q:
        std::printf("%-44s = %llu\n", names[i], r.bits);
        break;
      case F: {
        unsigned u = (unsigned)r.bits;
        float f;
        std::memcpy(&f, &u, 4);
        print_float(names[i], f);
        break;
      }
      case D: {
        double d;
        std::memcpy(&d, &r.bits, 8);
        print_double(names[i], d);
        break;
      }
    }
  }
  std::printf("%-44s = %d\n", "device printf's return value", printf_result);
  cudaFree(d_out);
  cudaFree(d_printf);
}

// ---------------------------------------------------------------------------
// Kernels that fail, each run in its own process: a fault ends the context.

__global__ void assert_kernel(int* p) {
  if (blockIdx.x == 1) assert(threadIdx.x != 3);
  p[threadIdx.x] = 1;
}
__global__ void trap_kernel(int* p) {
  if (threadIdx.x == 3) __trap();
  p[threadIdx.x] = 1;
}
__global__ void brkpt_kernel(int* p) {
  if (threadIdx.x == 3) __brkpt();
  p[threadIdx.x] = 1;
}

static void report(const char* what, cudaError_t e) {
  std::printf("%-44s = %d(%s)\n", what, (int)e, cudaGetErrorName(e));
}

static void probe_failure(const char* which) {
  int* p = nullptr;
  report("cudaMalloc", cudaMalloc(&p, 64 * sizeof(int)));
  if (std::strcmp(which, "assert") == 0) LAUNCH(assert_kernel, 2, 32, p);
  if (std::strcmp(which, "trap") == 0) LAUNCH(trap_kernel, 2, 32, p);
  if (std::strcmp(which, "brkpt") == 0) LAUNCH(brkpt_kernel, 2, 32, p);
  report("launch (peek)", cudaPeekAtLastError());
  report("cudaDeviceSynchronize", cudaDeviceSynchronize());
  report("cudaGetLastError", cudaGetLastError());
  report("cudaGetLastError again", cudaGetLastError());
  int* q = nullptr;
  report("cudaMalloc after", cudaMalloc(&q, 16));
  int host = 0;
  report("cudaMemcpy after", cudaMemcpy(&host, p, sizeof host, cudaMemcpyDeviceToHost));
  report("cudaDeviceSynchronize again", cudaDeviceSynchronize());
  report("cudaDeviceReset", cudaDeviceReset());
  report("cudaGetLastError after reset", cudaGetLastError());
}

// ---------------------------------------------------------------------------
// Timing: __nanosleep's range, and the clock counters' rates.

__global__ void sleep_kernel(unsigned ns, int times, long long* cycles) {
  long long start = clock64();
  for (int i = 0; i < times; ++i) __nanosleep(ns);
  *cycles = clock64() - start;
}

static void probe_timing() {
  long long* d_cycles = nullptr;
  cudaMalloc(&d_cycles, sizeof(long long));
  const unsigned sleeps[] = {0, 1000, 100000, 1000000, 10000000, 100000000};
  LAUNCH(sleep_kernel, 1, 1, 1000u, 1, d_cycles);  // warm-up
  cudaDeviceSynchronize();
  for (unsigned ns : sleeps) {
    auto start = std::chrono::steady_clock::now();
    LAUNCH(sleep_kernel, 1, 1, ns, 10, d_cycles);
    cudaDeviceSynchronize();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    long long cycles = 0;
    to_host(&cycles, d_cycles, 1);
    std::printf("10 x __nanosleep(%u): %.3f ms on the host clock, %lld clock64() ticks\n", ns, ms, cycles);
  }
  cudaFree(d_cycles);
}

// The probe's modes: values (the default), assert, trap, brkpt, timing.
int run_probe(const char* mode) {
  cudaFree(0);
  if (std::strcmp(mode, "values") == 0) {
    probe_float_to_integer();
    probe_double_to_integer();
    probe_integer_to_floating();
    probe_rounding();
    probe_cases();
  } else if (std::strcmp(mode, "timing") == 0) {
    probe_timing();
  } else {
    probe_failure(mode);
  }
  std::fflush(stdout);
  return 0;
}

// weft's unit tests include this file and call run_probe themselves.
#ifndef DEVICE_FUNCTIONS_PROBE_NO_MAIN
int main(int argc, char** argv) { return run_probe(argc > 1 ? argv[1] : "values"); }
#endif
