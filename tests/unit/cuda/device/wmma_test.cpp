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

#include <bit>
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
