// Probe of cuRAND's host API (curand.h): for each generator type, with a
// fixed seed, the raw draws, uniform floats and doubles (as bits) and
// normals (rounded, since weft's logf/sinf are the host's) at chosen
// offsets of one generation, the same from a host generator, the results
// after a second call and after curandSetGeneratorOffset, the statuses of
// bad calls, and the Sobol direction vectors. An unmodified CUDA program:
// weft builds it through the porting step.
//
// Left out, because weft does not make them as cuRAND does
// (docs/curand.md): MT19937 and the scrambled Sobol generators
// (with cuRAND's scramble constants and scrambled direction vectors). The
// H100 recorded them too; their lines were taken out of the .expected file
// with them.
//
//   nvcc -arch=sm_90 -o curand_host_probe curand_host_probe.cu -lcurand && ./curand_host_probe >
//   curand_host_probe.expected
#include <cuda_runtime.h>
#include <curand.h>

#include <cstdio>
#include <cstring>
#include <vector>

const size_t count = 8192;
const size_t picks[] = {0, 1, 2, 3, 255, 256, 4095, 4096, 4097, 8191};

struct kind {
  curandRngType_t type;
  const char* name;
  bool quasi, wide;
};

const kind kinds[] = {
    {CURAND_RNG_PSEUDO_XORWOW, "xorwow", false, false}, {CURAND_RNG_PSEUDO_MRG32K3A, "mrg32k3a", false, false},
    {CURAND_RNG_PSEUDO_MTGP32, "mtgp32", false, false}, {CURAND_RNG_PSEUDO_PHILOX4_32_10, "philox", false, false},
    {CURAND_RNG_QUASI_SOBOL32, "sobol32", true, false}, {CURAND_RNG_QUASI_SOBOL64, "sobol64", true, true},
};

enum what { raw, uniform, uniform_double, normal, normal_double };
const char* what_names[] = {"raw", "uniform", "uniform_double", "normal", "normal_double"};

curandGenerator_t make(const kind& k, bool host) {
  curandGenerator_t g;
  curandStatus_t s = host ? curandCreateGeneratorHost(&g, k.type) : curandCreateGenerator(&g, k.type);
  if (s != CURAND_STATUS_SUCCESS) {
    printf("%s create %d\n", k.name, (int)s);
    return nullptr;
  }
  if (k.quasi)
    curandSetQuasiRandomGeneratorDimensions(g, 2);
  else
    curandSetPseudoRandomGeneratorSeed(g, 1234ULL);
  return g;
}

// One generation of `count` values of kind w into memory of the generator's
// side, copied back as 64-bit words (bits of the float or double).
curandStatus_t generate(curandGenerator_t g, const kind& k, what w, bool host, std::vector<unsigned long long>& out) {
  size_t bytes = count * 8;
  void* p;
  if (host)
    p = malloc(bytes);
  else
    cudaMalloc(&p, bytes);
  curandStatus_t s = CURAND_STATUS_SUCCESS;
  switch (w) {
    case raw:
      s = k.wide ? curandGenerateLongLong(g, (unsigned long long*)p, count) : curandGenerate(g, (unsigned*)p, count);
      break;
    case uniform:
      s = curandGenerateUniform(g, (float*)p, count);
      break;
    case uniform_double:
      s = curandGenerateUniformDouble(g, (double*)p, count);
      break;
    case normal:
      s = curandGenerateNormal(g, (float*)p, count, 0.0f, 1.0f);
      break;
    case normal_double:
      s = curandGenerateNormalDouble(g, (double*)p, count, 0.0, 1.0);
      break;
  }
  std::vector<unsigned char> bytes_back(bytes);
  if (host)
    memcpy(bytes_back.data(), p, bytes);
  else
    cudaMemcpy(bytes_back.data(), p, bytes, cudaMemcpyDeviceToHost);
  out.assign(count, 0);
  for (size_t i = 0; i < count; ++i) {
    bool eight = (w == raw && k.wide) || w == uniform_double || w == normal_double;
    if (eight)
      memcpy(&out[i], &bytes_back[i * 8], 8);
    else {
      unsigned v;
      memcpy(&v, &bytes_back[i * 4], 4);
      out[i] = v;
    }
  }
  if (host)
    free(p);
  else
    cudaFree(p);
  return s;
}

void print_value(what w, unsigned long long bits) {
  if (w == normal) {
    float f;
    unsigned b = (unsigned)bits;
    memcpy(&f, &b, 4);
    printf(" %.4f", f);
  } else if (w == normal_double) {
    double d;
    memcpy(&d, &bits, 8);
    printf(" %.6f", d);
  } else {
    printf(" %llx", bits);
  }
}

int main() {
  for (const kind& k : kinds) {
    for (int w = raw; w <= normal_double; ++w) {
      curandGenerator_t g = make(k, false);
      curandGenerator_t h = make(k, true);
      if (!g || !h) continue;
      std::vector<unsigned long long> d1, d2, h1;
      curandStatus_t s1 = generate(g, k, (what)w, false, d1);
      curandStatus_t s2 = generate(g, k, (what)w, false, d2);
      curandStatus_t s3 = generate(h, k, (what)w, true, h1);
      printf("%s %s status %d %d %d:", k.name, what_names[w], (int)s1, (int)s2, (int)s3);
      for (size_t i : picks) print_value((what)w, d1[i]);
      printf(" | second:");
      for (size_t i : picks) print_value((what)w, d2[i]);
      int host_same = 1;
      for (size_t i = 0; i < count; ++i)
        if (w <= uniform_double && h1[i] != d1[i]) host_same = 0;
      printf(" | host same %d\n", host_same);
      curandDestroyGenerator(g);
      curandDestroyGenerator(h);
    }
    // The offset: a generation after curandSetGeneratorOffset(4096 + 3).
    curandGenerator_t g = make(k, false);
    if (!g) continue;
    printf("%s offset status %d:", k.name, (int)curandSetGeneratorOffset(g, 4099));
    std::vector<unsigned long long> d;
    generate(g, k, raw, false, d);
    for (size_t i : picks) print_value(raw, d[i]);
    printf("\n");
    curandDestroyGenerator(g);
  }

  // Statuses of bad calls.
  curandGenerator_t g;
  curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);
  float* d;
  cudaMalloc(&d, 64 * sizeof(float));
  printf("odd normal %d\n", (int)curandGenerateNormal(g, d, 7, 0.0f, 1.0f));
  printf("quasi dims on pseudo %d\n", (int)curandSetQuasiRandomGeneratorDimensions(g, 2));
  printf("quasi ordering on pseudo %d\n", (int)curandSetGeneratorOrdering(g, CURAND_ORDERING_QUASI_DEFAULT));
  printf("legacy ordering %d\n", (int)curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_LEGACY));
  printf("long long on pseudo %d\n", (int)curandGenerateLongLong(g, (unsigned long long*)d, 4));
  printf("bad type %d\n", (int)curandCreateGenerator(&g, (curandRngType_t)999));
  curandGenerator_t q;
  curandCreateGenerator(&q, CURAND_RNG_QUASI_SOBOL32);
  printf("sobol dims 0 %d\n", (int)curandSetQuasiRandomGeneratorDimensions(q, 0));
  printf("sobol dims 20001 %d\n", (int)curandSetQuasiRandomGeneratorDimensions(q, 20001));
  printf("sobol dims 20000 %d\n", (int)curandSetQuasiRandomGeneratorDimensions(q, 20000));
  curandSetQuasiRandomGeneratorDimensions(q, 3);
  printf("sobol not multiple %d\n", (int)curandGenerateUniform(q, d, 7));
  printf("sobol seed %d\n", (int)curandSetPseudoRandomGeneratorSeed(q, 5));
  printf("sobol pseudo ordering %d\n", (int)curandSetGeneratorOrdering(q, CURAND_ORDERING_PSEUDO_DEFAULT));
  printf("null generator %d\n", (int)curandGenerateUniform(nullptr, d, 8));
  curandDestroyGenerator(q);
  curandDestroyGenerator(g);
  cudaFree(d);
  int version = 0;
  printf("version status %d\n", (int)curandGetVersion(&version));

  // Direction vectors and scramble constants.
  curandDirectionVectors32_t* v32;
  curandDirectionVectors64_t* v64;
  printf("vectors32 %d", (int)curandGetDirectionVectors32(&v32, CURAND_DIRECTION_VECTORS_32_JOEKUO6));
  for (int dim : {0, 1, 2, 100, 19999}) printf(" %x %x %x", v32[dim][0], v32[dim][5], v32[dim][31]);
  printf("\nvectors64 %d", (int)curandGetDirectionVectors64(&v64, CURAND_DIRECTION_VECTORS_64_JOEKUO6));
  for (int dim : {0, 1, 2, 100, 19999}) printf(" %llx %llx %llx", v64[dim][0], v64[dim][40], v64[dim][63]);
  printf("\n");
  return 0;
}
