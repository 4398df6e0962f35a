// cuRAND's MTGP32 types (curand_mtgp32.h): a parameter set as the MTGP
// authors publish it, the sets a kernel reads (mtgp32_kernel_params_t), and
// one block's generator state (curandStateMtgp32_t).
#pragma once

#include <cstdint>

namespace weft::detail {
inline constexpr int mtgp32_parameter_sets = 200;  // CURAND_NUM_MTGP32_PARAMS
inline constexpr int mtgp32_table_size = 16;
inline constexpr int mtgp32_state_size = 1024;  // a ring buffer; the recursion uses 351 words of it
inline constexpr int mtgp32_words = 351;        // 11213 / 32 + 1
inline constexpr int mtgp32_block_threads = 256;
}  // namespace weft::detail

typedef struct mtgp32_params_fast {
  int mexp;
  int pos;
  int sh1;
  int sh2;
  std::uint32_t tbl[16];
  std::uint32_t tmp_tbl[16];
  std::uint32_t flt_tmp_tbl[16];
  std::uint32_t mask;
  unsigned char poly_sha1[21];
} mtgp32_params_fast_t;

typedef struct mtgp32_kernel_params {
  unsigned int pos_tbl[200];
  unsigned int param_tbl[200][16];
  unsigned int temper_tbl[200][16];
  unsigned int single_temper_tbl[200][16];
  unsigned int sh1_tbl[200];
  unsigned int sh2_tbl[200];
  unsigned int mask[1];
} mtgp32_kernel_params_t;

typedef struct curandStateMtgp32 {
  unsigned int s[1024];
  int offset;
  int pIdx;
  mtgp32_kernel_params_t* k;
} curandStateMtgp32_t;
