// cuRAND's host API (curand.h): generators that fill device memory, in
// their stream's order, or host memory at once. A device generator's work
// is a host function enqueued in the generator's stream (cudaLaunchHostFunc),
// so it runs after the stream's earlier work and before its later work, as
// cuRAND's kernels would; the call returns at once.
#pragma once

#include <functional>
#include <memory>

#include "weft/cuda/curand/curand_types.hpp"
#include "weft/cuda/curand/generator.hpp"
#include "weft/cuda/device/curand/sobol_tables.hpp"
#include "weft/cuda/runtime/streams/stream_api.hpp"

namespace weft::detail {

inline bool curand_type_known(curandRngType_t t) {
  switch (t) {
    case CURAND_RNG_PSEUDO_DEFAULT:
    case CURAND_RNG_PSEUDO_XORWOW:
    case CURAND_RNG_PSEUDO_MRG32K3A:
    case CURAND_RNG_PSEUDO_MTGP32:
    case CURAND_RNG_PSEUDO_MT19937:
    case CURAND_RNG_PSEUDO_PHILOX4_32_10:
    case CURAND_RNG_QUASI_DEFAULT:
    case CURAND_RNG_QUASI_SOBOL32:
    case CURAND_RNG_QUASI_SOBOL64:
      return true;
    default:
      return false;  // the scrambled Sobol sets and the test type: not in weft (docs/curand.md)
  }
}

inline curandStatus_t curand_create(curandGenerator_t* generator, curandRngType_t type, bool on_host) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (!curand_type_known(type)) return CURAND_STATUS_TYPE_ERROR;
  if (type == CURAND_RNG_PSEUDO_DEFAULT) type = CURAND_RNG_PSEUDO_XORWOW;
  if (type == CURAND_RNG_QUASI_DEFAULT) type = CURAND_RNG_QUASI_SOBOL32;
  auto* g = new curandGenerator_st{};
  g->type = type;
  g->on_host = on_host;
  g->ordering = curand_is_quasi(type) ? CURAND_ORDERING_QUASI_DEFAULT : CURAND_ORDERING_PSEUDO_DEFAULT;
  *generator = g;
  return CURAND_STATUS_SUCCESS;
}

/// Checks a generation call and runs it: now for a host generator, in the
/// generator's stream for a device generator.
inline curandStatus_t curand_submit(curandGenerator_t g, curand_output kind, void* out, std::size_t n, double mean,
                                    double stddev) {
  if (g == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  bool wide = curand_is_wide(g->type);
  if ((kind == curand_output::bits64) != wide && (kind == curand_output::bits32 || kind == curand_output::bits64))
    return CURAND_STATUS_TYPE_ERROR;
  bool quasi = curand_is_quasi(g->type);
  bool pairs = !quasi && kind != curand_output::bits32 && kind != curand_output::uniform &&
               kind != curand_output::uniform_double && kind != curand_output::poisson;
  if (quasi && n % g->dimensions != 0) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  if (pairs && n % 2 != 0) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  if (n == 0) return CURAND_STATUS_SUCCESS;
  if (out == nullptr) return CURAND_STATUS_LAUNCH_FAILURE;
  curand_request request{kind, out, n, mean, stddev, g->offset};
  g->offset += quasi ? n / g->dimensions : n;
  if (g->on_host) {
    generate(*g, request);
    return CURAND_STATUS_SUCCESS;
  }
  auto* job = new std::function<void()>([g, request] { generate(*g, request); });
  cudaError_t e = cudaLaunchHostFunc(
      g->stream,
      [](void* p) {
        std::unique_ptr<std::function<void()>> work(static_cast<std::function<void()>*>(p));
        (*work)();
      },
      job);
  if (e != cudaSuccess) {
    delete job;
    return CURAND_STATUS_LAUNCH_FAILURE;
  }
  return CURAND_STATUS_SUCCESS;
}

}  // namespace weft::detail

/// A generator that fills device memory in its stream's order.
inline curandStatus_t curandCreateGenerator(curandGenerator_t* generator, curandRngType_t rng_type) {
  return weft::detail::curand_create(generator, rng_type, false);
}

/// A generator that fills host memory, synchronously.
inline curandStatus_t curandCreateGeneratorHost(curandGenerator_t* generator, curandRngType_t rng_type) {
  return weft::detail::curand_create(generator, rng_type, true);
}

/// Waits for the generator's work in its stream, then frees it.
inline curandStatus_t curandDestroyGenerator(curandGenerator_t generator) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (!generator->on_host) cudaStreamSynchronize(generator->stream);
  delete generator;
  return CURAND_STATUS_SUCCESS;
}

inline curandStatus_t curandGetVersion(int* version) {
  if (version == nullptr) return CURAND_STATUS_OUT_OF_RANGE;
  *version = weft::detail::curand_major * 1000 + weft::detail::curand_minor * 100 + weft::detail::curand_patch;
  return CURAND_STATUS_SUCCESS;
}

inline curandStatus_t curandGetProperty(libraryPropertyType type, int* value) {
  if (value == nullptr) return CURAND_STATUS_OUT_OF_RANGE;
  switch (type) {
    case MAJOR_VERSION:
      *value = weft::detail::curand_major;
      return CURAND_STATUS_SUCCESS;
    case MINOR_VERSION:
      *value = weft::detail::curand_minor;
      return CURAND_STATUS_SUCCESS;
    case PATCH_LEVEL:
      *value = weft::detail::curand_patch;
      return CURAND_STATUS_SUCCESS;
  }
  return CURAND_STATUS_OUT_OF_RANGE;
}

/// The stream of a device generator's work (0: the default stream). The
/// work already in the old stream is waited for first: it and the new
/// stream's work step the same generator state.
inline curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (!generator->on_host && generator->stream != stream) cudaStreamSynchronize(generator->stream);
  generator->stream = stream;
  return CURAND_STATUS_SUCCESS;
}

/// A pseudo-random generator's seed; the generator starts over from it.
inline curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (weft::detail::curand_is_quasi(generator->type)) return CURAND_STATUS_TYPE_ERROR;
  if (!generator->on_host) cudaStreamSynchronize(generator->stream);  // earlier calls keep the old seed
  generator->seed = seed;
  generator->offset = 0;
  generator->engines_seeded = false;
  return CURAND_STATUS_SUCCESS;
}

/// Skips results (pseudo-random) or points (quasi-random); MTGP32 and
/// MT19937 cannot skip.
inline curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (generator->type == CURAND_RNG_PSEUDO_MTGP32 || generator->type == CURAND_RNG_PSEUDO_MT19937)
    return CURAND_STATUS_TYPE_ERROR;
  generator->offset = offset;
  return CURAND_STATUS_SUCCESS;
}

inline curandStatus_t curandSetGeneratorOrdering(curandGenerator_t generator, curandOrdering_t order) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  bool quasi = weft::detail::curand_is_quasi(generator->type);
  bool ok = quasi ? order == CURAND_ORDERING_QUASI_DEFAULT
                  : (order == CURAND_ORDERING_PSEUDO_BEST || order == CURAND_ORDERING_PSEUDO_DEFAULT ||
                     order == CURAND_ORDERING_PSEUDO_LEGACY || order == CURAND_ORDERING_PSEUDO_DYNAMIC ||
                     (order == CURAND_ORDERING_PSEUDO_SEEDED && generator->type == CURAND_RNG_PSEUDO_XORWOW));
  if (!ok) return CURAND_STATUS_OUT_OF_RANGE;
  generator->ordering = order;
  return CURAND_STATUS_SUCCESS;
}

/// How many dimensions a quasi-random generator's results cycle through (1 to 20000).
inline curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t generator,
                                                              unsigned int num_dimensions) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (!weft::detail::curand_is_quasi(generator->type)) return CURAND_STATUS_TYPE_ERROR;
  if (num_dimensions < 1 || num_dimensions > static_cast<unsigned>(weft::detail::sobol_joe_kuo_dimensions))
    return CURAND_STATUS_OUT_OF_RANGE;
  generator->dimensions = num_dimensions;
  generator->offset = 0;
  return CURAND_STATUS_SUCCESS;
}

inline curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int* outputPtr, std::size_t num) {
  return weft::detail::curand_submit(generator, weft::detail::curand_output::bits32, outputPtr, num, 0, 0);
}
inline curandStatus_t curandGenerateLongLong(curandGenerator_t generator, unsigned long long* outputPtr,
                                             std::size_t num) {
  return weft::detail::curand_submit(generator, weft::detail::curand_output::bits64, outputPtr, num, 0, 0);
}
inline curandStatus_t curandGenerateUniform(curandGenerator_t generator, float* outputPtr, std::size_t num) {
  return weft::detail::curand_submit(generator, weft::detail::curand_output::uniform, outputPtr, num, 0, 0);
}
inline curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double* outputPtr, std::size_t num) {
  return weft::detail::curand_submit(generator, weft::detail::curand_output::uniform_double, outputPtr, num, 0, 0);
}
inline curandStatus_t curandGenerateNormal(curandGenerator_t generator, float* outputPtr, std::size_t n, float mean,
                                           float stddev) {
  return weft::detail::curand_submit(generator, weft::detail::curand_output::normal, outputPtr, n, mean, stddev);
}
inline curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double* outputPtr, std::size_t n,
                                                 double mean, double stddev) {
  return weft::detail::curand_submit(generator, weft::detail::curand_output::normal_double, outputPtr, n, mean, stddev);
}
inline curandStatus_t curandGenerateLogNormal(curandGenerator_t generator, float* outputPtr, std::size_t n, float mean,
                                              float stddev) {
  return weft::detail::curand_submit(generator, weft::detail::curand_output::log_normal, outputPtr, n, mean, stddev);
}
inline curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t generator, double* outputPtr, std::size_t n,
                                                    double mean, double stddev) {
  return weft::detail::curand_submit(generator, weft::detail::curand_output::log_normal_double, outputPtr, n, mean,
                                     stddev);
}

/// Poisson-distributed integers with mean lambda, one uniform draw each (the
/// generator's layout as for curandGenerateUniform), by inversion of the
/// Poisson CDF; above lambda = 1000 by the normal approximation. The
/// distribution is cuRAND's, the values are not an H100's (docs/curand.md).
inline curandStatus_t curandGeneratePoisson(curandGenerator_t generator, unsigned int* outputPtr, std::size_t n,
                                            double lambda) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (!(lambda > 0.0)) return CURAND_STATUS_OUT_OF_RANGE;
  if (weft::detail::curand_is_wide(generator->type)) return CURAND_STATUS_TYPE_ERROR;
  return weft::detail::curand_submit(generator, weft::detail::curand_output::poisson, outputPtr, n, lambda, 0);
}

/// A Poisson distribution's handle (cuRAND precomputes tables in it; weft
/// keeps only lambda).
inline curandStatus_t curandCreatePoissonDistribution(double lambda,
                                                      curandDiscreteDistribution_t* discrete_distribution) {
  if (discrete_distribution == nullptr || !(lambda > 0.0)) return CURAND_STATUS_OUT_OF_RANGE;
  *discrete_distribution = new curandDiscreteDistribution_st{lambda};
  return CURAND_STATUS_SUCCESS;
}
inline curandStatus_t curandDestroyDistribution(curandDiscreteDistribution_t discrete_distribution) {
  if (discrete_distribution == nullptr) return CURAND_STATUS_OUT_OF_RANGE;
  delete discrete_distribution;
  return CURAND_STATUS_SUCCESS;
}

/// Seeding happens at generation in weft; there is nothing to prepare.
inline curandStatus_t curandGenerateSeeds(curandGenerator_t generator) {
  return generator == nullptr ? CURAND_STATUS_NOT_INITIALIZED : CURAND_STATUS_SUCCESS;
}

/// Joe and Kuo's direction vectors for 20000 dimensions; the scrambled sets
/// are cuRAND's own figures, which weft does not have.
inline curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t* vectors[],
                                                  curandDirectionVectorSet_t set) {
  if (vectors == nullptr) return CURAND_STATUS_OUT_OF_RANGE;
  if (set != CURAND_DIRECTION_VECTORS_32_JOEKUO6) return CURAND_STATUS_OUT_OF_RANGE;
  *vectors = weft::detail::sobol_vectors32();
  return CURAND_STATUS_SUCCESS;
}
inline curandStatus_t curandGetDirectionVectors64(curandDirectionVectors64_t* vectors[],
                                                  curandDirectionVectorSet_t set) {
  if (vectors == nullptr) return CURAND_STATUS_OUT_OF_RANGE;
  if (set != CURAND_DIRECTION_VECTORS_64_JOEKUO6) return CURAND_STATUS_OUT_OF_RANGE;
  *vectors = weft::detail::sobol_vectors64();
  return CURAND_STATUS_SUCCESS;
}

/// cuRAND's scramble constants are its own figures: not in weft.
inline curandStatus_t curandGetScrambleConstants32(unsigned int** constants) {
  (void)constants;
  return CURAND_STATUS_OUT_OF_RANGE;
}
inline curandStatus_t curandGetScrambleConstants64(unsigned long long** constants) {
  (void)constants;
  return CURAND_STATUS_OUT_OF_RANGE;
}
