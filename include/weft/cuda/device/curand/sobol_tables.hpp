// The Sobol direction vectors of all 20000 dimensions, 32- and 64-bit, as
// curandGetDirectionVectors32/64 return them for
// CURAND_DIRECTION_VECTORS_32/64_JOEKUO6: expanded once, on first use, from
// Joe and Kuo's numbers (sobol_direction_numbers.hpp). Dimension 0 is van
// der Corput's (every m_i = 1).
#pragma once

#include <cstring>
#include <memory>

#include "weft/cuda/device/curand/sobol.hpp"
#include "weft/cuda/device/curand/sobol_direction_numbers.hpp"

namespace weft::detail {

struct sobol_table {
  std::unique_ptr<curandDirectionVectors32_t[]> v32{new curandDirectionVectors32_t[sobol_joe_kuo_dimensions]};
  std::unique_ptr<curandDirectionVectors64_t[]> v64{new curandDirectionVectors64_t[sobol_joe_kuo_dimensions]};

  sobol_table() {
    // Dimension 0: v_k = 2^(bits - 1 - k), the bit-reversed counter.
    for (int k = 0; k < 32; ++k) v32[0][k] = 1u << (31 - k);
    for (int k = 0; k < 64; ++k) v64[0][k] = 1ull << (63 - k);
    const char* p = sobol_joe_kuo_rows;
    for (int d = 1; d < sobol_joe_kuo_dimensions; ++d) {
      unsigned fields[2 + 20] = {};
      fields[0] = read_hex(p);
      fields[1] = read_hex(p);
      for (unsigned k = 0; k < fields[0] && k < 20; ++k) fields[2 + k] = read_hex(p);
      sobol_direction_vectors(static_cast<int>(fields[0]), fields[1], fields + 2, v32[d]);
      sobol_direction_vectors(static_cast<int>(fields[0]), fields[1], fields + 2, v64[d]);
    }
  }
};

inline const sobol_table& sobol_tables() {
  static const sobol_table table;
  return table;
}
inline curandDirectionVectors32_t* sobol_vectors32() {
  return const_cast<curandDirectionVectors32_t*>(sobol_tables().v32.get());
}
inline curandDirectionVectors64_t* sobol_vectors64() {
  return const_cast<curandDirectionVectors64_t*>(sobol_tables().v64.get());
}

}  // namespace weft::detail
