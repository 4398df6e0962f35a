// nvcuda::wmma (<mma.h>): for each shape and type sm_90 supports, a warp
// multiplies small tiles loaded with both layouts and padded strides, and
// the result is checked against a host product; fill_fragment, element-wise
// changes to x[], accumulating in place, the precision rules (exact half
// products, tf32 truncation and rounding, integer wrap and satf), bmma_sync,
// and misuse reported as a failed launch.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/wmma/conversions.hpp>
#include <weft/cuda/device/wmma/fill.hpp>
#include <weft/cuda/device/wmma/fragment.hpp>
#include <weft/cuda/device/wmma/load_store.hpp>
#include <weft/cuda/device/wmma/mma.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

using namespace nvcuda;

namespace {

template <class T>
T* managed(std::size_t n) {
  T* p = nullptr;
  REQUIRE(cudaMallocManaged(&p, n * sizeof(T)) == cudaSuccess);
  std::memset(static_cast<void*>(p), 0, n * sizeof(T));
  return p;
}

template <class T>
float as_float(T v) {
  if constexpr (std::is_same_v<T, __half>)
    return __half2float(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __bfloat162float(v);
  else
    return static_cast<float>(v);
}

template <class T>
T from_int(int v) {
  if constexpr (std::is_same_v<T, __half>)
    return __float2half_rn(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16_rn(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

// What a test kernel does to C between loading it and the product.
enum class c_change { none, doubled, filled_with_3 };

template <int M, int N, int K, class AT, class AL, class BL, class CT, class Mem>
__global__ void gemm_kernel(const Mem* a, unsigned lda, const Mem* b, unsigned ldb, const CT* c, unsigned ldc,
                            wmma::layout_t c_layout, CT* d, unsigned ldd, wmma::layout_t d_layout, c_change change) {
  wmma::fragment<wmma::matrix_a, M, N, K, AT, AL> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, AT, BL> fb;
  wmma::fragment<wmma::accumulator, M, N, K, CT> fc;
  wmma::load_matrix_sync(fa, a, lda);
  wmma::load_matrix_sync(fb, b, ldb);
  if (change == c_change::filled_with_3) {
    wmma::fill_fragment(fc, from_int<CT>(3));
  } else {
    wmma::load_matrix_sync(fc, c, ldc, c_layout);
    if (change == c_change::doubled)
      for (int i = 0; i < fc.num_elements; ++i) fc.x[i] = from_int<CT>(2) * fc.x[i];
  }
  wmma::mma_sync(fc, fa, fb, fc);  // accumulates in place: D is C
  wmma::store_matrix_sync(d, fc, ldd, d_layout);
}

// Places element (r, c) of a rows x cols matrix at stride ld.
std::size_t at(int r, int c, unsigned ld, bool row_major) { return row_major ? r * ld + c : c * ld + r; }

// One warp computes D = A x B + C with small integer values (exact in every
// type); A, B, C and D are laid out with strides padded by 16 bytes.
template <int M, int N, int K, class AT, class AL, class BL, class CT>
void check_product(wmma::layout_t c_layout, wmma::layout_t d_layout, c_change change, unsigned seed) {
  using Mem = typename weft::detail::wmma::element_traits<AT>::memory;
  constexpr bool a_rows = std::is_same_v<AL, wmma::row_major>, b_rows = std::is_same_v<BL, wmma::row_major>;
  unsigned pad_ab = 16 / sizeof(Mem), pad_c = 16 / sizeof(CT);
  // CUDA requires strides of a multiple of 16 bytes: each is the next one
  // up, plus 16 or 32 bytes.
  auto stride = [](unsigned extent, unsigned pad) { return (extent + pad - 1) / pad * pad + pad; };
  unsigned lda = stride(a_rows ? K : M, pad_ab), ldb = stride(b_rows ? N : K, pad_ab);
  unsigned ldc = stride(c_layout == wmma::mem_row_major ? N : M, pad_c);
  unsigned ldd = stride(d_layout == wmma::mem_row_major ? N : M, pad_c) + pad_c;
  Mem* a = managed<Mem>(lda * (a_rows ? M : K));
  Mem* b = managed<Mem>(ldb * (b_rows ? K : N));
  CT* c = managed<CT>(ldc * (c_layout == wmma::mem_row_major ? M : N));
  CT* d = managed<CT>(ldd * (d_layout == wmma::mem_row_major ? M : N));
  std::vector<int> ha(M * K), hb(K * N), hc(M * N);
  unsigned state = seed;
  auto next = [&](int lo, int hi) {
    state = state * 1664525u + 1013904223u;
    return lo + static_cast<int>((state >> 16) % static_cast<unsigned>(hi - lo + 1));
  };
  bool is_unsigned = std::is_same_v<AT, unsigned char>;
  for (int r = 0; r < M; ++r)
    for (int k = 0; k < K; ++k) a[at(r, k, lda, a_rows)] = from_int<Mem>(ha[r * K + k] = next(is_unsigned ? 0 : -4, 4));
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) b[at(k, n, ldb, b_rows)] = from_int<Mem>(hb[k * N + n] = next(is_unsigned ? 0 : -4, 4));
  for (int r = 0; r < M; ++r)
    for (int n = 0; n < N; ++n)
      c[at(r, n, ldc, c_layout == wmma::mem_row_major)] = from_int<CT>(hc[r * N + n] = next(-20, 20));
  REQUIRE(weft::launch(1, 32, gemm_kernel<M, N, K, AT, AL, BL, CT, Mem>, a, lda, b, ldb, c, ldc, c_layout, d, ldd,
                       d_layout, change) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  int wrong = 0;
  for (int r = 0; r < M; ++r)
    for (int n = 0; n < N; ++n) {
      int expected = change == c_change::filled_with_3 ? 3
                     : change == c_change::doubled     ? 2 * hc[r * N + n]
                                                       : hc[r * N + n];
      for (int k = 0; k < K; ++k) expected += ha[r * K + k] * hb[k * N + n];
      float got = as_float(d[at(r, n, ldd, d_layout == wmma::mem_row_major)]);
      if (got != static_cast<float>(expected) && wrong++ < 5)
        FAIL_CHECK("D(" << r << "," << n << ") = " << got << ", expected " << expected);
    }
  CHECK(wrong == 0);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(d);
}

// Every layout combination, and each change to C, for one shape and type.
template <int M, int N, int K, class AT, class CT>
void check_shape() {
  using wmma::col_major;
  using wmma::row_major;
  unsigned seed = 1;
  for (auto cl : {wmma::mem_row_major, wmma::mem_col_major})
    for (auto dl : {wmma::mem_row_major, wmma::mem_col_major}) {
      check_product<M, N, K, AT, row_major, col_major, CT>(cl, dl, c_change::none, seed++);
      check_product<M, N, K, AT, col_major, row_major, CT>(cl, dl, c_change::none, seed++);
    }
  check_product<M, N, K, AT, row_major, row_major, CT>(wmma::mem_row_major, wmma::mem_row_major, c_change::doubled,
                                                       seed++);
  check_product<M, N, K, AT, col_major, col_major, CT>(wmma::mem_col_major, wmma::mem_row_major,
                                                       c_change::filled_with_3, seed++);
}

}  // namespace

TEST_CASE("wmma: num_elements as CUDA defines them") {
  CHECK(wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>::num_elements == 16);
  CHECK(wmma::fragment<wmma::matrix_b, 32, 8, 16, __half, wmma::col_major>::num_elements == 16);
  CHECK(wmma::fragment<wmma::accumulator, 16, 16, 16, float>::num_elements == 8);
  CHECK(wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major>::num_elements == 8);
  CHECK(wmma::fragment<wmma::matrix_a, 32, 8, 16, __nv_bfloat16, wmma::row_major>::num_elements == 16);
  CHECK(wmma::fragment<wmma::matrix_b, 32, 8, 16, signed char, wmma::row_major>::num_elements == 4);
  CHECK(wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major>::num_elements == 4);
  CHECK(std::is_same_v<
        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major>::storage_element_type,
        float>);
  CHECK(wmma::fragment<wmma::accumulator, 8, 8, 4, double>::num_elements == 2);
  CHECK(wmma::fragment<wmma::matrix_a, 8, 8, 32, wmma::experimental::precision::s4, wmma::row_major>::num_elements ==
        8);
  CHECK(wmma::fragment<wmma::matrix_a, 8, 8, 32, wmma::experimental::precision::s4,
                       wmma::row_major>::num_storage_elements == 1);
  CHECK(wmma::fragment<wmma::matrix_b, 8, 8, 128, wmma::experimental::precision::b1, wmma::col_major>::num_elements ==
        32);
}

TEST_CASE("wmma: half x half -> float and half, every shape and layout") {
  check_shape<16, 16, 16, __half, float>();
  check_shape<32, 8, 16, __half, float>();
  check_shape<8, 32, 16, __half, float>();
  check_shape<16, 16, 16, __half, __half>();
  check_shape<32, 8, 16, __half, __half>();
  check_shape<8, 32, 16, __half, __half>();
}

TEST_CASE("wmma: bfloat16 x bfloat16 -> float") {
  check_shape<16, 16, 16, __nv_bfloat16, float>();
  check_shape<32, 8, 16, __nv_bfloat16, float>();
  check_shape<8, 32, 16, __nv_bfloat16, float>();
}

TEST_CASE("wmma: tf32 m16n16k8 and double m8n8k4") {
  check_shape<16, 16, 8, wmma::precision::tf32, float>();
  check_shape<8, 8, 4, double, double>();
}

TEST_CASE("wmma: s8 and u8 -> int, every shape") {
  check_shape<16, 16, 16, signed char, int>();
  check_shape<32, 8, 16, signed char, int>();
  check_shape<8, 32, 16, signed char, int>();
  check_shape<16, 16, 16, unsigned char, int>();
  check_shape<32, 8, 16, unsigned char, int>();
  check_shape<8, 32, 16, unsigned char, int>();
}

// ---- precision: what tests/differential/wmma_probe.expected recorded on an H100 ----

namespace {

// D(0,0) of a 16x16x16 half product whose row 0 of A and column 0 of B are
// given, with C(0,0) = c.
__global__ void half_row_kernel(const __half* a, const __half* b, const float* c, float* d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

float half_dot(const std::vector<float>& arow, const std::vector<float>& bcol, float c) {
  __half* a = managed<__half>(256);
  __half* b = managed<__half>(256);
  float* cm = managed<float>(256);
  float* d = managed<float>(256);
  for (std::size_t k = 0; k < arow.size(); ++k) a[k] = __float2half_rn(arow[k]), b[k] = __float2half_rn(bcol[k]);
  cm[0] = c;
  REQUIRE(weft::launch(1, 32, half_row_kernel, a, b, cm, d) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  float r = d[0];
  cudaFree(a), cudaFree(b), cudaFree(cm), cudaFree(d);
  return r;
}

__global__ void tf32_kernel(const float* a, const float* b, float* d, bool round_first) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::load_matrix_sync(fa, a, 8);
  wmma::load_matrix_sync(fb, b, 8);
  if (round_first)
    for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
  wmma::fill_fragment(fc, 0.0f);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

}  // namespace

TEST_CASE("wmma: half products are exact and summed as an H100 sums them") {
  std::vector<float> a(16, 0.0f), b(16, 0.0f);
  // Sixteen products of 2^-24 added to 1: kept (25 bits below the leading bit), not lost one by one.
  std::fill(a.begin(), a.end(), std::ldexp(1.0f, -12));
  b = a;
  CHECK(half_dot(a, b, 1.0f) == 1.0f + std::ldexp(1.0f, -20));
  // 2^-26 is below the 25 bits the group keeps.
  std::fill(b.begin(), b.end(), std::ldexp(1.0f, -14));
  CHECK(half_dot(a, b, 1.0f) == 1.0f);
  // The sum is rounded towards zero: 2^24 + 1.5 gives 2^24, -2^24 + 1.5 gives -(2^24 - 2).
  std::fill(a.begin(), a.end(), 0.0f);
  std::fill(b.begin(), b.end(), 0.0f);
  a[0] = 1.0f, b[0] = 1.5f;
  CHECK(half_dot(a, b, 16777216.0f) == 16777216.0f);
  CHECK(half_dot(a, b, -16777216.0f) == -16777214.0f);
  // An exact product: (1 + 2^-10)^2 needs 21 bits.
  a[0] = b[0] = 1.0f + std::ldexp(1.0f, -10);
  CHECK(half_dot(a, b, 0.0f) == 1.0f + std::ldexp(1.0f, -9) + std::ldexp(1.0f, -20));
  // inf x 0 is the GPU's NaN.
  a[0] = INFINITY, b[0] = 0.0f;
  CHECK(std::bit_cast<std::uint32_t>(half_dot(a, b, 0.0f)) == 0x7fffffffu);
}

TEST_CASE("wmma: tf32 factors are truncated; __float_to_tf32 rounds to nearest, ties away") {
  float* a = managed<float>(16 * 8);
  float* b = managed<float>(8 * 16);
  float* d = managed<float>(256);
  a[0] = 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -12);  // not a tf32 value
  b[0] = 1.0f;
  REQUIRE(weft::launch(1, 32, tf32_kernel, a, b, d, false) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(d[0] == 1.0f);
  REQUIRE(weft::launch(1, 32, tf32_kernel, a, b, d, true) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(d[0] == 1.0f + std::ldexp(1.0f, -10));
  CHECK(wmma::__float_to_tf32(1.0f + std::ldexp(1.0f, -11)) == 1.0f + std::ldexp(1.0f, -10));
  CHECK(wmma::__float_to_tf32(-(1.0f + std::ldexp(1.0f, -11))) == -(1.0f + std::ldexp(1.0f, -10)));
  CHECK(wmma::__float_to_tf32(1.0f + std::ldexp(1.0f, -12)) == 1.0f);
  CHECK(std::bit_cast<std::uint32_t>(wmma::__float_to_tf32(std::bit_cast<float>(0x7f7fffffu))) == 0x7f800000u);
  cudaFree(a), cudaFree(b), cudaFree(d);
}

// ---- every vector width the CPU runs: the scalar rule's bits ----

namespace {

using weft::detail::wmma::vector_isa;

// Random factors that reach every case of the sum: half values (any bit
// pattern: subnormals, infinities, NaN) when `halves`, otherwise tf32
// values (whose products, like half's and bfloat16's, are exact in float;
// C may be any float),
// with exponents drawn mostly near 1 so that terms are comparable, and now
// and then zeros, tiny and huge ones.
struct float_source {
  unsigned state;
  unsigned next() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  }
  float operator()(bool halves, bool any_mantissa = false) {
    unsigned pick = next() % 64;
    if (pick == 0) return 0.0f;
    if (halves) return weft::detail::wmma::half_to_float(std::bit_cast<__half>(static_cast<std::uint16_t>(next())));
    std::uint32_t sign = (next() & 1u) << 31, mantissa = next() & (any_mantissa ? 0x7fffffu : 0x7fe000u);
    std::uint32_t exponent = pick == 1   ? next() % 256        // anything: subnormal, infinite, NaN
                             : pick == 2 ? 1 + next() % 30     // tiny
                             : pick == 3 ? 225 + next() % 30   // huge
                                         : 112 + next() % 30;  // near 1
    return std::bit_cast<float>(sign | exponent << 23 | mantissa);
  }
};

template <int m, int n, int k, bool halves>
void check_widths_against_rule(unsigned seed) {
  using namespace weft::detail::wmma;
  std::vector<float> a(m * k), b(k * n), c(m * n), rounded(m * n);
  std::vector<double> sums(m * n);
  float_source random{seed};
  for (float& v : a) v = random(halves);
  for (float& v : b) v = random(halves);
  for (float& v : c) v = random(false, true);  // C: any float
  // D(0, 0): terms that cancel exactly; D(1, 1): terms below 2^-102 (as
  // small as half allows, for half factors).
  for (int kk = 0; kk < k; ++kk) {
    a[kk] = kk % 2 ? 1.0f : -1.0f, b[kk * n] = 1.0f;
    a[k + kk] = halves ? 0x1p-14f : 0x1p-60f, b[kk * n + 1] = halves ? 0x1p-14f : 0x1p-50f;
  }
  c[0] = 0.0f, c[n + 1] = halves ? 0.0f : 0x1p-120f;
  for (vector_isa isa : {vector_isa::sse2, vector_isa::avx2, vector_isa::avx512}) {
    if (!cpu_runs(isa)) continue;
    CAPTURE(static_cast<int>(isa));
    tensor_core_product<m, n, k, halves>(isa, a.data(), b.data(), c.data(), rounded.data());
    tensor_core_product<m, n, k, halves>(isa, a.data(), b.data(), c.data(), sums.data());
    int wrong = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double exact = tensor_core_sum<m, n, k>(a.data(), b.data(), c.data(), i, j);
        float expected = round_sum<float>(exact);
        bool same_sum = exact != exact
                            ? sums[i * n + j] != sums[i * n + j]
                            : std::bit_cast<std::uint64_t>(exact) == std::bit_cast<std::uint64_t>(sums[i * n + j]);
        if ((std::bit_cast<std::uint32_t>(rounded[i * n + j]) != std::bit_cast<std::uint32_t>(expected) || !same_sum) &&
            wrong++ < 5)
          FAIL_CHECK("D(" << i << "," << j << ") = 0x" << std::hex << std::bit_cast<std::uint32_t>(rounded[i * n + j])
                          << " (sum " << sums[i * n + j] << "), expected 0x" << std::bit_cast<std::uint32_t>(expected)
                          << " (sum " << exact << ")" << std::dec);
      }
    CHECK(wrong == 0);
  }
}

template <int m, int n>
void check_integer_widths(unsigned seed) {
  using namespace weft::detail::wmma;
  constexpr int k = 16;
  std::vector<float> a(m * k), b(k * n), sums(m * n);
  float_source random{seed};
  bool is_unsigned = seed % 2;  // u8 or s8 ranges, the extremes included
  auto next_factor = [&] {
    return static_cast<float>(static_cast<int>(random.next() % 256) - (is_unsigned ? 0 : 128));
  };
  for (float& v : a) v = next_factor();
  for (float& v : b) v = next_factor();
  a[0] = b[0] = is_unsigned ? 255.0f : -128.0f;
  for (vector_isa isa : {vector_isa::sse2, vector_isa::avx2, vector_isa::avx512}) {
    if (!cpu_runs(isa)) continue;
    CAPTURE(static_cast<int>(isa));
    integer_product_sums<m, n, k>(isa, a.data(), b.data(), sums.data());
    int wrong = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        std::int64_t expected = 0;
        for (int kk = 0; kk < k; ++kk)
          expected += static_cast<std::int64_t>(a[i * k + kk]) * static_cast<std::int64_t>(b[kk * n + j]);
        if (static_cast<std::int64_t>(sums[i * n + j]) != expected && wrong++ < 5)
          FAIL_CHECK("sum(" << i << "," << j << ") = " << sums[i * n + j] << ", expected " << expected);
      }
    CHECK(wrong == 0);
  }
}

}  // namespace

TEST_CASE("wmma: every vector width gives the bits of the tensor cores' rule, element by element") {
  for (unsigned seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    check_widths_against_rule<16, 16, 16, true>(seed);
    check_widths_against_rule<16, 16, 16, false>(seed);
    check_widths_against_rule<32, 8, 16, true>(seed);
    check_widths_against_rule<8, 32, 16, false>(seed);
    check_widths_against_rule<16, 16, 8, false>(seed);
    check_integer_widths<16, 16>(seed);
    check_integer_widths<32, 8>(seed);
    check_integer_widths<8, 32>(seed);
  }
}

// ---- integers: wrap and satf; 4-bit and 1-bit ----

namespace {

__global__ void s8_kernel(const signed char* a, const signed char* b, const int* c, int* d, bool satf) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc, satf);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

template <class T>
__global__ void nibble_kernel(const void* a, const void* b, int* d) {
  wmma::fragment<wmma::matrix_a, 8, 8, 32, T, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 32, T, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 32, int> fc;
  wmma::load_matrix_sync(fa, a, 32);
  wmma::load_matrix_sync(fb, b, 32);
  wmma::fill_fragment(fc, 0);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 8, wmma::mem_col_major);
}

__global__ void bit_kernel(const void* a, const void* b, int* d, bool use_and) {
  using wmma::experimental::precision::b1;
  wmma::fragment<wmma::matrix_a, 8, 8, 128, b1, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 128, b1, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 128, int> fc;
  wmma::load_matrix_sync(fa, a, 128);
  wmma::load_matrix_sync(fb, b, 128);
  wmma::fill_fragment(fc, 1);
  wmma::bmma_sync(fc, fa, fb, fc, use_and ? wmma::experimental::bmmaBitOpAND : wmma::experimental::bmmaBitOpXOR);
  wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
}

}  // namespace

TEST_CASE("wmma: s8 sums wrap, or clamp with satf") {
  signed char* a = managed<signed char>(256);
  signed char* b = managed<signed char>(256);
  int* c = managed<int>(256);
  int* d = managed<int>(256);
  a[0] = 1, b[0] = 1, c[0] = 2147483647;
  a[16] = -128, b[16] = 127, c[16] = -2147483647 - 1;  // row 1 of A, column 1 of B: D(1,1)
  c[17] = -2147483647 - 1;
  for (bool satf : {false, true}) {
    CAPTURE(satf);
    REQUIRE(weft::launch(1, 32, s8_kernel, a, b, c, d, satf) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(d[0] == (satf ? 2147483647 : -2147483647 - 1));
    CHECK(d[17] == (satf ? -2147483647 - 1 : 2147467392));
  }
  cudaFree(a), cudaFree(b), cudaFree(c), cudaFree(d);
}

TEST_CASE("wmma: s4 and u4 products, bmma_sync with XOR and AND") {
  unsigned* a = managed<unsigned>(32);
  unsigned* b = managed<unsigned>(32);
  int* d = managed<int>(64);
  for (int w = 0; w < 32; ++w) a[w] = 0x76543210u, b[w] = 0xfedcba98u;
  // Every row of A: nibbles 0..7 repeated; every column of B: 8..15 (u4) or -8..-1 (s4).
  REQUIRE(weft::launch(1, 32, nibble_kernel<wmma::experimental::precision::s4>, a, b, d) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(d[0] == -336);
  CHECK(d[63] == -336);
  REQUIRE(weft::launch(1, 32, nibble_kernel<wmma::experimental::precision::u4>, a, b, d) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(d[0] == 1456);
  CHECK(d[63] == 1456);
  for (int w = 0; w < 32; ++w) a[w] = 0xf0f0f0f0u, b[w] = 0xff00ff00u;
  a[4] = 0xffffffffu;  // row 1 of A, first word
  REQUIRE(weft::launch(1, 32, bit_kernel, a, b, d, false) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(d[0] == 1 + 64);
  CHECK(d[8] == 1 + 64);  // row 1: 16 + 3 * 16 set bits of XOR
  REQUIRE(weft::launch(1, 32, bit_kernel, a, b, d, true) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(d[0] == 1 + 32);
  CHECK(d[8] == 1 + 16 + 3 * 8);
  cudaFree(a), cudaFree(b), cudaFree(d);
}

// ---- misuse: reported, never a hang ----

namespace {

__device__ void product_site() {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fa, __float2half_rn(1.0f));
  wmma::fill_fragment(fb, __float2half_rn(1.0f));
  wmma::fill_fragment(fc, 0.0f);
  wmma::mma_sync(fc, fa, fb, fc);
}

__global__ void wmma_half_warp_exits_kernel() {
  if (threadIdx.x >= 16) return;
  product_site();
}

// 40 threads: the second warp has 8 lanes.
__global__ void wmma_partial_warp_kernel() { product_site(); }

__global__ void wmma_different_shapes_kernel() {
  if (threadIdx.x < 16) {
    product_site();
  } else {
    wmma::fragment<wmma::matrix_a, 32, 8, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, float> fc;
    wmma::fill_fragment(fa, __float2half_rn(1.0f));
    wmma::fill_fragment(fb, __float2half_rn(1.0f));
    wmma::fill_fragment(fc, 0.0f);
    wmma::mma_sync(fc, fa, fb, fc);
  }
}

__global__ void wmma_bad_stride_kernel(const float* p) {
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fc, p, 18, wmma::mem_row_major);
}

std::string failure_report(cudaError_t launched) {
  CHECK(launched == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  std::string report = weft::fault_message();
  CHECK(cudaDeviceReset() == cudaSuccess);
  cudaGetLastError();
  return report;
}

}  // namespace

TEST_CASE("wmma: misuse fails the launch with a report") {
  std::string r = failure_report(weft::launch(1, 32, wmma_half_warp_exits_kernel));
  INFO(r);
  CHECK(r.find("exited") != std::string::npos);
  r = failure_report(weft::launch(1, 40, wmma_partial_warp_kernel));
  CHECK(r.find("warp 1 has 8 threads; a warp matrix operation needs all 32 lanes") != std::string::npos);
  r = failure_report(weft::launch(1, 32, wmma_different_shapes_kernel));
  CHECK(r.find("the lanes of a warp must call mma_sync with the same shape and types") != std::string::npos);
  float* p = managed<float>(16 * 18);
  r = failure_report(weft::launch(1, 32, wmma_bad_stride_kernel, p));
  CHECK(r.find("ldm 18 is not a multiple of 16 bytes") != std::string::npos);
  cudaFree(p);
}

namespace {

__global__ void layout_kernel(const __half* h, const float* f, float* out) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::load_matrix_sync(a, h, 16);
  wmma::load_matrix_sync(b, h, 16);
  wmma::load_matrix_sync(c, f, 16, wmma::mem_row_major);
  for (int i = 0; i < 16; ++i) out[threadIdx.x * 40 + i] = __half2float(a.x[i]);
  for (int i = 0; i < 16; ++i) out[threadIdx.x * 40 + 16 + i] = __half2float(b.x[i]);
  for (int i = 0; i < 8; ++i) out[threadIdx.x * 40 + 32 + i] = c.x[i];
}

}  // namespace

TEST_CASE("wmma: 16x16 fragments hold the elements an H100's lanes hold") {
  // Lane 5's lines of tests/differential/wmma_probe.expected: element (r, c) holds r * 16 + c.
  __half* h = managed<__half>(256);
  float* f = managed<float>(256);
  float* out = managed<float>(32 * 40);
  for (int i = 0; i < 256; ++i) h[i] = __float2half_rn(static_cast<float>(i)), f[i] = static_cast<float>(i);
  REQUIRE(weft::launch(1, 32, layout_kernel, h, f, out) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const float a5[8] = {18, 19, 146, 147, 26, 27, 154, 155}, b5[8] = {18, 19, 26, 27, 146, 147, 154, 155};
  for (int i = 0; i < 16; ++i) {
    CAPTURE(i);
    CHECK(out[5 * 40 + i] == a5[i % 8]);
    CHECK(out[5 * 40 + 16 + i] == b5[i % 8]);
    if (i < 8) CHECK(out[5 * 40 + 32 + i] == a5[i]);
  }
  cudaFree(h), cudaFree(f), cudaFree(out);
}
