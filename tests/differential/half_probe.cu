// Probe of cuda_fp16.h and cuda_bf16.h: conversions from float, double and
// integers in every rounding mode, conversions to float and integers,
// arithmetic, comparisons, min/max, math functions, pair operations,
// atomicAdd and shuffles, on a table of inputs with the edge cases (65504,
// 65520, the smallest subnormal, ties, NaN payloads, -0, infinities). Every
// result is printed as the hex of its bits. An unmodified CUDA program: weft
// builds it through the porting step (weft_add_cuda_executable).
//
//   nvcc -arch=sm_90 -o half_probe half_probe.cu && ./half_probe > half_probe.expected
//
// Every input reaches the kernels through memory, so that no compiler folds
// a call on constants with its own idea of the result.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cstdio>
#include <cstring>

typedef unsigned long long u64;

template <class T>
T* to_device(const T* host, int n) {
  T* p = nullptr;
  cudaMalloc(&p, n * sizeof(T));
  cudaMemcpy(p, host, n * sizeof(T), cudaMemcpyHostToDevice);
  return p;
}

// Runs nothing itself: copies `k` results per input back and prints one
// line per input, "label(input): name=value ...".
static void print_rows(const char* label, const char* input_format, const u64* inputs, int n, const u64* device_out,
                       const char* const* names, int k) {
  u64* out = new u64[n * k];
  cudaMemcpy(out, device_out, n * k * sizeof(u64), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    std::printf("%s(", label);
    std::printf(input_format, inputs[i]);
    std::printf("):");
    for (int j = 0; j < k; ++j) std::printf(" %s=%llx", names[j], out[i * k + j]);
    std::printf("\n");
  }
  delete[] out;
}

// Bits of a value, on the host.
template <class T>
static unsigned raw(const T& v) {
  unsigned r = 0;
  std::memcpy(&r, &v, sizeof v);
  return r;
}
__device__ u64 pb(const void* p) {
  unsigned r;
  memcpy(&r, p, 4);
  return r;
}
__device__ u64 hb(__half h) { return __half_as_ushort(h); }
__device__ u64 bb(__nv_bfloat16 b) { return __bfloat16_as_ushort(b); }
__device__ u64 fb(float f) { return __float_as_uint(f); }
__device__ u64 sx(long long v) { return (u64)v; }

// ---------------------------------------------------------------------------
// float, double and integers to the 16-bit types.

const char* const float_names[] = {"h_rn",  "h_rz",  "h_rd",  "h_ru",  "h_ctor",
                                   "bf_rn", "bf_rz", "bf_rd", "bf_ru", "bf_ctor"};
const int float_k = 10;

__global__ void from_float(const unsigned* in, int n, u64* out) {
  for (int i = 0; i < n; ++i) {
    float x = __uint_as_float(in[i]);
    u64* o = out + i * float_k;
    o[0] = hb(__float2half_rn(x)), o[1] = hb(__float2half_rz(x)), o[2] = hb(__float2half_rd(x));
    o[3] = hb(__float2half_ru(x)), o[4] = hb(__half(x));
    o[5] = bb(__float2bfloat16_rn(x)), o[6] = bb(__float2bfloat16_rz(x)), o[7] = bb(__float2bfloat16_rd(x));
    o[8] = bb(__float2bfloat16_ru(x)), o[9] = bb(__nv_bfloat16(x));
  }
}

const unsigned float_inputs[] = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3dcccccd,  // 0, -0, 1, -1, 0.1
    0x477fe000, 0x477fefff, 0x477ff000, 0x477ff001, 0xc77ff000,  // 65504, below/at/above the tie to inf, -65520
    0x47800000, 0x501502f9, 0x7f800000, 0xff800000,              // 65536, 1e10, inf, -inf
    0x7fc00000, 0xffc00000, 0x7fc00001, 0x7f800001, 0xff800001,  // NaNs: quiet, negative, payload, signalling
    0x33800000, 0x33000000, 0x33000001, 0xb3000000, 0x33c00000,  // 2^-24, 2^-25 (tie), above it, -2^-25, 1.5 * 2^-24
    0x32800000, 0xb2800000, 0x38800000, 0x387fc000, 0x387fe000,  // 2^-26, -2^-26, 2^-14, largest subnormal, tie
    0x3f801000, 0x3f803000, 0x3f801001, 0xbf801000,              // 1 + 2^-11 (tie), 1 + 3 * 2^-11, above, negative
    0x3f808000, 0x3f818000, 0x3f808001, 0xbf808000,              // bfloat16 ties at 1
    0x7f7fffff, 0x7f7f8000, 0x7f7f7fff, 0xff7fffff,              // float's largest, bfloat16's tie to inf
    0x00000001, 0x00008000, 0x00018000, 0x00008001, 0x80008000,  // float subnormals: bfloat16 ties
    0x00800000, 0x007fffff, 0x3eaaaaab, 0xc0200000, 0x4b800001,  // float's smallest normal, 1/3, -2.5, 2^24 + 2
};

__global__ void from_double(const double* in, int n, u64* out) {
  for (int i = 0; i < n; ++i) {
    out[i * 4 + 0] = hb(__double2half(in[i]));
    out[i * 4 + 1] = hb(__half(in[i]));
    out[i * 4 + 2] = bb(__double2bfloat16(in[i]));
    out[i * 4 + 3] = bb(__nv_bfloat16(in[i]));
  }
}
const char* const double_names[] = {"double2half", "h_ctor", "double2bfloat16", "bf_ctor"};

const u64 double_inputs[] = {
    0x3ff0020000010000ull,  // 1 + 2^-11 + 2^-40: above a half tie that float would round to
    0x3ff001fffffff000ull,  // just below the tie
    0x3ff0100000004000ull,  // 1 + 2^-8 + 2^-38: above a bfloat16 tie
    0x40effdfffffffffeull,  // just below 65520
    0x40effe0000000000ull,  // 65520
    0x3e70000000000000ull,  // 2^-24
    0x3e60000000000001ull,  // just above 2^-25
    0x3e60000000000000ull,  // 2^-25
    0x0000000000000001ull,  // double's smallest subnormal
    0x8000000000000000ull,  // -0
    0x7ff0000000000000ull,  // inf
    0x7ff8000000000001ull,  // NaN
    0x47efffffffffffffull,  // above float's range
    0x3ff5555555555555ull,  // 4/3
};

const char* const int_names[] = {"int_rn",     "int_rz",    "int_rd",    "int_ru",     "uint_rn",
                                 "short_rn",   "ushort_rn", "ll_rn",     "ll_rz",      "ull_rn",
                                 "h_int_ctor", "bf_int_rn", "bf_int_rz", "bf_int_rd",  "bf_int_ru",
                                 "bf_ll_rn",   "bf_ll_ru",  "bf_ull_rn", "bf_int_ctor"};
const int int_k = 19;

__global__ void from_integers(const long long* in, int n, u64* out) {
  for (int i = 0; i < n; ++i) {
    long long v = in[i];
    int iv = (int)v;
    u64* o = out + i * int_k;
    o[0] = hb(__int2half_rn(iv)), o[1] = hb(__int2half_rz(iv)), o[2] = hb(__int2half_rd(iv));
    o[3] = hb(__int2half_ru(iv)), o[4] = hb(__uint2half_rn((unsigned)v)), o[5] = hb(__short2half_rn((short)v));
    o[6] = hb(__ushort2half_rn((unsigned short)v)), o[7] = hb(__ll2half_rn(v)), o[8] = hb(__ll2half_rz(v));
    o[9] = hb(__ull2half_rn((u64)v)), o[10] = hb(__half(iv));
    o[11] = bb(__int2bfloat16_rn(iv)), o[12] = bb(__int2bfloat16_rz(iv)), o[13] = bb(__int2bfloat16_rd(iv));
    o[14] = bb(__int2bfloat16_ru(iv)), o[15] = bb(__ll2bfloat16_rn(v)), o[16] = bb(__ll2bfloat16_ru(v));
    o[17] = bb(__ull2bfloat16_rn((u64)v)), o[18] = bb(__nv_bfloat16(iv));
  }
}

const long long int_inputs[] = {
    0,
    1,
    -1,
    257,
    259,
    2049,
    2051,
    -2049,
    65504,
    65519,
    65520,
    65535,
    100000,
    -100000,
    INT_MAX,
    INT_MIN,
    LLONG_MAX,
    LLONG_MIN,
    (1ll << 60) + (1ll << 52) + 1,
    (1ll << 60) + (1ll << 52),
    0x7fffffffffffffffll >> 10,
};

// ---------------------------------------------------------------------------
// The 16-bit types to float and integers, and their one-operand functions.

const char* const unary_names[] = {
    "float",    "int_rn",   "int_rz",   "int_rd",   "int_ru",    "uint_rn", "uint_rz", "uint_rd", "uint_ru",
    "short_rn", "short_rz", "short_rd", "short_ru", "ushort_rz", "ll_rn",   "ll_rz",   "ll_rd",   "ll_ru",
    "ull_rz",   "char_rz",  "uchar_rz", "op_int",   "op_bool",   "neg",     "abs",     "isnan",   "isinf",
    "sqrt",     "rsqrt",    "rcp",      "exp",      "exp2",      "exp10",   "log",     "log2",    "log10",
    "sin",      "cos",      "ceil",     "floor",    "trunc",     "rint",    "op_neg",  "to_other"};
const int unary_k = 44;

__global__ void half_unary(const unsigned short* in, int n, u64* out) {
  for (int i = 0; i < n; ++i) {
    __half h = __ushort_as_half(in[i]);
    u64* o = out + i * unary_k;
    o[0] = fb(__half2float(h));
    o[1] = sx(__half2int_rn(h)), o[2] = sx(__half2int_rz(h)), o[3] = sx(__half2int_rd(h)), o[4] = sx(__half2int_ru(h));
    o[5] = __half2uint_rn(h), o[6] = __half2uint_rz(h), o[7] = __half2uint_rd(h), o[8] = __half2uint_ru(h);
    o[9] = sx(__half2short_rn(h)), o[10] = sx(__half2short_rz(h)), o[11] = sx(__half2short_rd(h));
    o[12] = sx(__half2short_ru(h)), o[13] = __half2ushort_rz(h);
    o[14] = sx(__half2ll_rn(h)), o[15] = sx(__half2ll_rz(h)), o[16] = sx(__half2ll_rd(h)), o[17] = sx(__half2ll_ru(h));
    o[18] = __half2ull_rz(h), o[19] = sx(__half2char_rz(h)), o[20] = __half2uchar_rz(h);
    o[21] = sx(static_cast<int>(h)), o[22] = static_cast<bool>(h);
    o[23] = hb(__hneg(h)), o[24] = hb(__habs(h)), o[25] = __hisnan(h), o[26] = sx(__hisinf(h));
    o[27] = hb(hsqrt(h)), o[28] = hb(hrsqrt(h)), o[29] = hb(hrcp(h)), o[30] = hb(hexp(h)), o[31] = hb(hexp2(h));
    o[32] = hb(hexp10(h)), o[33] = hb(hlog(h)), o[34] = hb(hlog2(h)), o[35] = hb(hlog10(h)), o[36] = hb(hsin(h));
    o[37] = hb(hcos(h)), o[38] = hb(hceil(h)), o[39] = hb(hfloor(h)), o[40] = hb(htrunc(h)), o[41] = hb(hrint(h));
    o[42] = hb(-h), o[43] = bb(__nv_bfloat16(h));
  }
}

__global__ void bfloat16_unary(const unsigned short* in, int n, u64* out) {
  for (int i = 0; i < n; ++i) {
    __nv_bfloat16 h = __ushort_as_bfloat16(in[i]);
    u64* o = out + i * unary_k;
    o[0] = fb(__bfloat162float(h));
    o[1] = sx(__bfloat162int_rn(h)), o[2] = sx(__bfloat162int_rz(h)), o[3] = sx(__bfloat162int_rd(h));
    o[4] = sx(__bfloat162int_ru(h));
    o[5] = __bfloat162uint_rn(h), o[6] = __bfloat162uint_rz(h), o[7] = __bfloat162uint_rd(h);
    o[8] = __bfloat162uint_ru(h);
    o[9] = sx(__bfloat162short_rn(h)), o[10] = sx(__bfloat162short_rz(h)), o[11] = sx(__bfloat162short_rd(h));
    o[12] = sx(__bfloat162short_ru(h)), o[13] = __bfloat162ushort_rz(h);
    o[14] = sx(__bfloat162ll_rn(h)), o[15] = sx(__bfloat162ll_rz(h)), o[16] = sx(__bfloat162ll_rd(h));
    o[17] = sx(__bfloat162ll_ru(h));
    o[18] = __bfloat162ull_rz(h), o[19] = sx(__bfloat162char_rz(h)), o[20] = __bfloat162uchar_rz(h);
    o[21] = sx(static_cast<int>(h)), o[22] = static_cast<bool>(h);
    o[23] = bb(__hneg(h)), o[24] = bb(__habs(h)), o[25] = __hisnan(h), o[26] = sx(__hisinf(h));
    o[27] = bb(hsqrt(h)), o[28] = bb(hrsqrt(h)), o[29] = bb(hrcp(h)), o[30] = bb(hexp(h)), o[31] = bb(hexp2(h));
    o[32] = bb(hexp10(h)), o[33] = bb(hlog(h)), o[34] = bb(hlog2(h)), o[35] = bb(hlog10(h)), o[36] = bb(hsin(h));
    o[37] = bb(hcos(h)), o[38] = bb(hceil(h)), o[39] = bb(hfloor(h)), o[40] = bb(htrunc(h)), o[41] = bb(hrint(h));
    o[42] = bb(-h), o[43] = hb(__half(h));
  }
}

const u64 half_inputs[] = {
    0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0x3c01, 0xbc00, 0x3555, 0x3800, 0x3e00, 0x4100,
    0xc100, 0x4200, 0x5640, 0x7800, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7fff, 0xfe00, 0x7c01, 0x4248,
};
const u64 bfloat16_inputs[] = {
    0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x0080, 0x3f80, 0x3f81, 0xbf80, 0x3eab, 0x3f00, 0x3fc0, 0x4020, 0xc020,
    0x4040, 0x42c8, 0x4700, 0x477f, 0x4f00, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7fff, 0xffc0, 0x7f81,
};

// ---------------------------------------------------------------------------
// Two-operand operations on every pair of a smaller table.

const char* const binary_names[] = {"add", "sub", "mul",     "div",     "add_sat", "sub_sat", "mul_sat",
                                    "max", "min", "max_nan", "min_nan", "eq",      "ne",      "lt",
                                    "le",  "gt",  "ge",      "equ",     "neu",     "ltu",     "leu",
                                    "gtu", "geu", "op_add",  "op_mul",  "op_eq",   "op_ne",   "op_lt"};
const int binary_k = 28;

__global__ void half_binary(const unsigned short* in, int n, u64* out) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      __half a = __ushort_as_half(in[i]), b = __ushort_as_half(in[j]);
      u64* o = out + (i * n + j) * binary_k;
      o[0] = hb(__hadd(a, b)), o[1] = hb(__hsub(a, b)), o[2] = hb(__hmul(a, b)), o[3] = hb(__hdiv(a, b));
      o[4] = hb(__hadd_sat(a, b)), o[5] = hb(__hsub_sat(a, b)), o[6] = hb(__hmul_sat(a, b));
      o[7] = hb(__hmax(a, b)), o[8] = hb(__hmin(a, b)), o[9] = hb(__hmax_nan(a, b)), o[10] = hb(__hmin_nan(a, b));
      o[11] = __heq(a, b), o[12] = __hne(a, b), o[13] = __hlt(a, b), o[14] = __hle(a, b), o[15] = __hgt(a, b);
      o[16] = __hge(a, b), o[17] = __hequ(a, b), o[18] = __hneu(a, b), o[19] = __hltu(a, b), o[20] = __hleu(a, b);
      o[21] = __hgtu(a, b), o[22] = __hgeu(a, b);
      o[23] = hb(a + b), o[24] = hb(a * b), o[25] = a == b, o[26] = a != b, o[27] = a < b;
    }
}

__global__ void bfloat16_binary(const unsigned short* in, int n, u64* out) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      __nv_bfloat16 a = __ushort_as_bfloat16(in[i]), b = __ushort_as_bfloat16(in[j]);
      u64* o = out + (i * n + j) * binary_k;
      o[0] = bb(__hadd(a, b)), o[1] = bb(__hsub(a, b)), o[2] = bb(__hmul(a, b)), o[3] = bb(__hdiv(a, b));
      o[4] = bb(__hadd_sat(a, b)), o[5] = bb(__hsub_sat(a, b)), o[6] = bb(__hmul_sat(a, b));
      o[7] = bb(__hmax(a, b)), o[8] = bb(__hmin(a, b)), o[9] = bb(__hmax_nan(a, b)), o[10] = bb(__hmin_nan(a, b));
      o[11] = __heq(a, b), o[12] = __hne(a, b), o[13] = __hlt(a, b), o[14] = __hle(a, b), o[15] = __hgt(a, b);
      o[16] = __hge(a, b), o[17] = __hequ(a, b), o[18] = __hneu(a, b), o[19] = __hltu(a, b), o[20] = __hleu(a, b);
      o[21] = __hgtu(a, b), o[22] = __hgeu(a, b);
      o[23] = bb(a + b), o[24] = bb(a * b), o[25] = a == b, o[26] = a != b, o[27] = a < b;
    }
}

const unsigned short half_pair_inputs[] = {0x0000, 0x8000, 0x0001, 0x0400, 0x3800, 0x3c00, 0x3c01, 0xc000,
                                           0x4c00, 0x6800, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x1400};
const unsigned short bfloat16_pair_inputs[] = {0x0000, 0x8000, 0x0001, 0x0080, 0x3f00, 0x3f80, 0x3f81, 0xc000,
                                               0x4380, 0x7f7f, 0x7f80, 0xff80, 0x7fc0, 0x1f80, 0xbf81};

// ---------------------------------------------------------------------------
// fma on triples: crafted ties, then every triple of a small table.

__global__ void fmas(const unsigned short* h, const unsigned short* b, int n, u64* out) {
  for (int i = 0; i < n; ++i) {
    __half x = __ushort_as_half(h[3 * i]), y = __ushort_as_half(h[3 * i + 1]), z = __ushort_as_half(h[3 * i + 2]);
    __nv_bfloat16 p = __ushort_as_bfloat16(b[3 * i]), q = __ushort_as_bfloat16(b[3 * i + 1]);
    __nv_bfloat16 r = __ushort_as_bfloat16(b[3 * i + 2]);
    out[2 * i] = hb(__hfma(x, y, z)), out[2 * i + 1] = hb(__hfma_sat(x, y, z));
    out[2 * (n + i)] = bb(__hfma(p, q, r)), out[2 * (n + i) + 1] = bb(__hfma_sat(p, q, r));
  }
}

// ---------------------------------------------------------------------------
// Pairs, atomics, shuffles.

__global__ void pairs(const unsigned* in, int n, u64* out) {
  for (int i = 0; i + 1 < n; i += 2) {
    __half2 a, b;
    __nv_bfloat162 c, d;
    memcpy(&a, &in[i], 4), memcpy(&b, &in[i + 1], 4), memcpy(&c, &in[i], 4), memcpy(&d, &in[i + 1], 4);
    u64* o = out + (i / 2) * 16;
    __half2 r[] = {__hadd2(a, b), __hmul2(a, b), __h2div(a, b),        __hfma2(a, b, a), __heq2(a, b),
                   __hisnan2(a),  __hmax2(a, b), __lowhigh2highlow(a), h2sqrt(a)};
    for (int k = 0; k < 9; ++k) o[k] = pb(&r[k]);
    o[9] = __hbeq2(a, b) | __hbneu2(a, b) << 1 | (a == b) << 2 | (a != b) << 3;
    float2 f = __half22float2(a);
    o[10] = fb(f.x) << 32 | fb(f.y);
    __nv_bfloat162 s[] = {__hadd2(c, d), __hmul2(c, d), __heq2(c, d), __hmax2(c, d)};
    for (int k = 0; k < 4; ++k) o[11 + k] = pb(&s[k]);
    o[15] = __hbeq2(c, d) | __hbneu2(c, d) << 1;
  }
}
const char* const pair_names[] = {"hadd2",           "hmul2",    "h2div",           "hfma2",   "heq2",
                                  "hisnan2",         "hmax2",    "lowhigh2highlow", "h2sqrt",  "hbeq2+2hbneu2+4eq+8ne",
                                  "half22float2",    "bf_hadd2", "bf_hmul2",        "bf_heq2", "bf_hmax2",
                                  "bf_hbeq2+2hbneu2"};
const unsigned pair_inputs[] = {0x40003c00, 0x42003c00, 0x7e003c00, 0x7e003c00, 0x80000000,
                                0x00008000, 0x7bff7bff, 0x3c003c00, 0xfc007c00, 0x00010001};

__global__ void constants(u64* o) {
  o[0] = hb(CUDART_INF_FP16), o[1] = hb(CUDART_NAN_FP16), o[2] = hb(CUDART_MIN_DENORM_FP16);
  o[3] = hb(CUDART_MAX_NORMAL_FP16), o[4] = hb(CUDART_NEG_ZERO_FP16), o[5] = hb(CUDART_ZERO_FP16);
  o[6] = hb(CUDART_ONE_FP16);
  o[7] = bb(CUDART_INF_BF16), o[8] = bb(CUDART_NAN_BF16), o[9] = bb(CUDART_MIN_DENORM_BF16);
  o[10] = bb(CUDART_MAX_NORMAL_BF16), o[11] = bb(CUDART_NEG_ZERO_BF16), o[12] = bb(CUDART_ZERO_BF16);
  o[13] = bb(CUDART_ONE_BF16);
}
const char* const constant_names[] = {
    "INF_FP16", "NAN_FP16", "MIN_DENORM_FP16", "MAX_NORMAL_FP16", "NEG_ZERO_FP16", "ZERO_FP16", "ONE_FP16",
    "INF_BF16", "NAN_BF16", "MIN_DENORM_BF16", "MAX_NORMAL_BF16", "NEG_ZERO_BF16", "ZERO_BF16", "ONE_BF16"};

struct sums {
  __half h;
  __half2 h2;
  __nv_bfloat16 b;
  __nv_bfloat162 b2;
};

// Past 2048 (256 for bfloat16) adding 1 is a tie that rounds back down, so
// the sums stop there whatever the order in which the threads add.
__global__ void atomics(sums* s) {
  atomicAdd(&s->h, __float2half(1.0f));
  atomicAdd(&s->h2, __floats2half2_rn(1.0f, 0.5f));
  atomicAdd(&s->b, __float2bfloat16(1.0f));
  atomicAdd(&s->b2, __floats2bfloat162_rn(0.25f, 1.0f));
}

__global__ void shuffles(u64* out) {
  unsigned lane = threadIdx.x;
  __half sum = __float2half((float)lane * 0.75f);
  for (int offset = 16; offset > 0; offset /= 2) sum = __hadd(sum, __shfl_down_sync(0xffffffff, sum, offset));
  __half2 pair = __floats2half2_rn((float)lane, -(float)lane * 0.5f);
  for (int m = 16; m > 0; m /= 2) pair = __hadd2(pair, __shfl_xor_sync(0xffffffff, pair, m));
  __nv_bfloat16 b = __shfl_sync(0xffffffff, __float2bfloat16((float)lane * 1.25f), 7);
  __half up = __shfl_up_sync(0xffffffff, __ushort_as_half((unsigned short)(0x7c01 + lane)), 3);
  __half seg = __shfl_down_sync(0xffffffff, __float2half((float)lane), 2, 16);
  __nv_bfloat162 bp = __shfl_xor_sync(0xffffffff, __floats2bfloat162_rn((float)lane, 1.0f), 1);
  u64* o = out + lane * 6;
  o[0] = hb(sum), o[1] = pb(&pair), o[2] = bb(b), o[3] = hb(up), o[4] = hb(seg), o[5] = pb(&bp);
}
const char* const shuffle_names[] = {"down_sum", "xor_half2", "bf_broadcast", "up_nan", "down_width16", "xor_bf162"};

int main() {
  u64* out = nullptr;
  cudaMalloc(&out, 1 << 20);

  std::printf("sizeof half=%d half2=%d bfloat16=%d bfloat162=%d alignof half2=%d bfloat162=%d\n", (int)sizeof(__half),
              (int)sizeof(__half2), (int)sizeof(__nv_bfloat16), (int)sizeof(__nv_bfloat162), (int)alignof(__half2),
              (int)alignof(__nv_bfloat162));
  {
    constants<<<1, 1>>>(out);
    const u64 none[] = {0};
    print_rows("CUDART", "%llu", none, 1, out, constant_names, 14);
  }

  {
    const int n = sizeof float_inputs / sizeof float_inputs[0];
    unsigned* d = to_device(float_inputs, n);
    from_float<<<1, 1>>>(d, n, out);
    u64 inputs[n];
    for (int i = 0; i < n; ++i) inputs[i] = float_inputs[i];
    print_rows("from_float", "0x%08llx", inputs, n, out, float_names, float_k);
    cudaFree(d);
  }
  {
    const int n = sizeof double_inputs / sizeof double_inputs[0];
    double host[n];
    std::memcpy(host, double_inputs, sizeof host);
    double* d = to_device(host, n);
    from_double<<<1, 1>>>(d, n, out);
    print_rows("from_double", "0x%016llx", double_inputs, n, out, double_names, 4);
    cudaFree(d);
  }
  {
    const int n = sizeof int_inputs / sizeof int_inputs[0];
    long long* d = to_device(int_inputs, n);
    from_integers<<<1, 1>>>(d, n, out);
    print_rows("from_integer", "%lld", reinterpret_cast<const u64*>(int_inputs), n, out, int_names, int_k);
    cudaFree(d);
  }
  for (int type = 0; type < 2; ++type) {
    const u64* table = type == 0 ? half_inputs : bfloat16_inputs;
    const int n = type == 0 ? sizeof half_inputs / sizeof(u64) : sizeof bfloat16_inputs / sizeof(u64);
    unsigned short host[64];
    for (int i = 0; i < n; ++i) host[i] = (unsigned short)table[i];
    unsigned short* d = to_device(host, n);
    if (type == 0)
      half_unary<<<1, 1>>>(d, n, out);
    else
      bfloat16_unary<<<1, 1>>>(d, n, out);
    print_rows(type == 0 ? "half" : "bfloat16", "0x%04llx", table, n, out, unary_names, unary_k);
    cudaFree(d);
  }
  for (int type = 0; type < 2; ++type) {
    const unsigned short* table = type == 0 ? half_pair_inputs : bfloat16_pair_inputs;
    const int n = 15;
    unsigned short* d = to_device(table, n);
    if (type == 0)
      half_binary<<<1, 1>>>(d, n, out);
    else
      bfloat16_binary<<<1, 1>>>(d, n, out);
    u64 inputs[n * n];
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) inputs[i * n + j] = (u64)table[i] << 16 | table[j];
    print_rows(type == 0 ? "half_binary" : "bfloat16_binary", "0x%08llx", inputs, n * n, out, binary_names, binary_k);
    cudaFree(d);
  }
  {
    // Crafted triples first (a * b exactly on a tie, c tipping it), then a grid.
    unsigned short h[3 * 400], b[3 * 400];
    const unsigned short crafted_h[] = {0x3e00, 0x3956, 0x0001, 0x3e00, 0x3956, 0x8001, 0x3e00, 0x3956, 0x0000,
                                        0x5c00, 0x5c00, 0xbc00, 0xbc00, 0x0000, 0x8000, 0x7c00, 0x0000, 0x3c00,
                                        0x7bff, 0x4000, 0xfbff, 0x0001, 0x3800, 0x0000, 0x3800, 0x3800, 0x3400};
    const unsigned short crafted_b[] = {0x3fe0, 0x3f14, 0x3080, 0x3fe0, 0x3f14, 0xb080, 0x3fe0, 0x3f14, 0x0000,
                                        0x4380, 0x4380, 0xbf80, 0xbf80, 0x0000, 0x8000, 0x7f80, 0x0000, 0x3f80,
                                        0x7f7f, 0x4000, 0xff7f, 0x0001, 0x3f00, 0x0000, 0x3f00, 0x3f00, 0x3e80};
    const int crafted = sizeof crafted_h / sizeof crafted_h[0] / 3;
    std::memcpy(h, crafted_h, sizeof crafted_h);
    std::memcpy(b, crafted_b, sizeof crafted_b);
    const unsigned short grid_h[] = {0x0000, 0x8000, 0x3c01, 0xc200, 0x7bff, 0x0200, 0x7e00};
    const unsigned short grid_b[] = {0x0000, 0x8000, 0x3f81, 0xc040, 0x7f7f, 0x0040, 0x7fc0};
    int n = crafted;
    for (int i = 0; i < 7; ++i)
      for (int j = 0; j < 7; ++j)
        for (int k = 0; k < 7; ++k, ++n) {
          h[3 * n] = grid_h[i], h[3 * n + 1] = grid_h[j], h[3 * n + 2] = grid_h[k];
          b[3 * n] = grid_b[i], b[3 * n + 1] = grid_b[j], b[3 * n + 2] = grid_b[k];
        }
    unsigned short* dh = to_device(h, 3 * n);
    unsigned short* db = to_device(b, 3 * n);
    fmas<<<1, 1>>>(dh, db, n, out);
    u64* inputs = new u64[n];
    const char* const names[] = {"fma", "fma_sat"};
    for (int i = 0; i < n; ++i) inputs[i] = (u64)h[3 * i] << 32 | (u64)h[3 * i + 1] << 16 | h[3 * i + 2];
    print_rows("half_fma", "0x%012llx", inputs, n, out, names, 2);
    for (int i = 0; i < n; ++i) inputs[i] = (u64)b[3 * i] << 32 | (u64)b[3 * i + 1] << 16 | b[3 * i + 2];
    print_rows("bfloat16_fma", "0x%012llx", inputs, n, out + 2 * n, names, 2);
    delete[] inputs;
    cudaFree(dh);
    cudaFree(db);
  }
  {
    const int n = sizeof pair_inputs / sizeof pair_inputs[0];
    unsigned* d = to_device(pair_inputs, n);
    pairs<<<1, 1>>>(d, n, out);
    u64 inputs[n / 2];
    for (int i = 0; i < n / 2; ++i) inputs[i] = (u64)pair_inputs[2 * i] << 32 | pair_inputs[2 * i + 1];
    print_rows("pairs", "0x%016llx", inputs, n / 2, out, pair_names, 16);
    cudaFree(d);
  }
  {
    sums* s = nullptr;
    cudaMalloc(&s, sizeof(sums));
    cudaMemset(s, 0, sizeof(sums));
    atomics<<<32, 128>>>(s);
    sums host;
    cudaMemcpy(&host, s, sizeof host, cudaMemcpyDeviceToHost);
    std::printf("atomicAdd x4096: half=%x half2=%x bfloat16=%x bfloat162=%x\n", raw(host.h), raw(host.h2), raw(host.b),
                raw(host.b2));
    cudaFree(s);
  }
  {
    shuffles<<<1, 32>>>(out);
    u64 lanes[32];
    for (int i = 0; i < 32; ++i) lanes[i] = i;
    print_rows("shuffle_lane", "%llu", lanes, 32, out, shuffle_names, 6);
  }
  std::printf("last error: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaFree(out);
  return 0;
}
