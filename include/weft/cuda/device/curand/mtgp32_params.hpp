// mtgp32dc_params_fast_11213, cuRAND's array of MTGP32's 200 parameter sets
// for period 2^11213 - 1, read on first use from the figures in
// mtgp32_params_11213.hpp. It is an array (a reference to one), as in CUDA,
// so that programs pass it to curandMakeMTGP32Constants and
// curandMakeMTGP32KernelState unchanged.
#pragma once

#include "weft/cuda/device/curand/mtgp32_params_11213.hpp"
#include "weft/cuda/device/curand/mtgp32_types.hpp"
#include "weft/cuda/device/curand/sobol.hpp"

namespace weft::detail {

struct mtgp32_parameter_table {
  mtgp32_params_fast_t sets[mtgp32_parameter_sets];

  mtgp32_parameter_table() {
    const char* p = mtgp32_11213_rows;
    for (mtgp32_params_fast_t& set : sets) {
      unsigned fields[4 + 3 * 16 + 1 + 21] = {};
      for (unsigned& field : fields) field = read_hex(p);
      set.mexp = static_cast<int>(fields[0]);
      set.pos = static_cast<int>(fields[1]);
      set.sh1 = static_cast<int>(fields[2]);
      set.sh2 = static_cast<int>(fields[3]);
      for (int j = 0; j < 16; ++j) {
        set.tbl[j] = fields[4 + j];
        set.tmp_tbl[j] = fields[20 + j];
        set.flt_tmp_tbl[j] = fields[36 + j];
      }
      set.mask = fields[52];
      for (int j = 0; j < 21; ++j) set.poly_sha1[j] = static_cast<unsigned char>(fields[53 + j]);
    }
  }
};

inline mtgp32_parameter_table& mtgp32_parameters() {
  static mtgp32_parameter_table table;
  return table;
}

}  // namespace weft::detail

inline mtgp32_params_fast_t (&mtgp32dc_params_fast_11213)[200] = weft::detail::mtgp32_parameters().sets;
