// cudaCreateTextureObject, cudaDestroyTextureObject and the three queries:
// what they accept, the codes they return for what they refuse (an H100's,
// recorded by tests/differential/texture_probe.cu), and CUDA's last-error
// rules.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstring>
#include <vector>

#include "error_checks.hpp"
#include "stream_gates.hpp"

namespace {

struct linear_floats {
  float* memory = nullptr;
  linear_floats() { REQUIRE(cudaMalloc(&memory, 1 << 16) == cudaSuccess); }
  ~linear_floats() { cudaFree(memory); }

  cudaResourceDesc resource(cudaChannelFormatDesc format = cudaCreateChannelDesc<float>()) const {
    cudaResourceDesc r{};
    r.resType = cudaResourceTypeLinear;
    r.res.linear.devPtr = memory;
    r.res.linear.desc = format;
    r.res.linear.sizeInBytes = 1024;
    return r;
  }
};

cudaTextureDesc point_clamp() {
  cudaTextureDesc d{};
  d.addressMode[0] = d.addressMode[1] = d.addressMode[2] = cudaAddressModeClamp;
  d.filterMode = cudaFilterModePoint;
  d.readMode = cudaReadModeElementType;
  return d;
}

__global__ void fetch_all(cudaTextureObject_t t, float* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = tex1Dfetch<float>(t, i);
}

}  // namespace

TEST_CASE("a texture object hands back the descriptors it was made from") {
  linear_floats m;
  cudaResourceDesc resource = m.resource();
  cudaTextureDesc desc = point_clamp();
  desc.borderColor[2] = 0.5f;
  desc.maxAnisotropy = 4;
  cudaTextureObject_t t = 0;
  check_succeeded(cudaCreateTextureObject(&t, &resource, &desc, nullptr));
  CHECK(t != 0);
  cudaResourceDesc resource_back;
  std::memset(&resource_back, 0xcc, sizeof resource_back);
  check_succeeded(cudaGetTextureObjectResourceDesc(&resource_back, t));
  CHECK(resource_back.resType == cudaResourceTypeLinear);
  CHECK(resource_back.res.linear.devPtr == m.memory);
  CHECK(resource_back.res.linear.sizeInBytes == 1024);
  cudaTextureDesc desc_back;
  check_succeeded(cudaGetTextureObjectTextureDesc(&desc_back, t));
  CHECK(desc_back.addressMode[0] == cudaAddressModeClamp);
  CHECK(desc_back.borderColor[2] == 0.5f);
  CHECK(desc_back.maxAnisotropy == 4);
  check_succeeded(cudaDestroyTextureObject(t));
  check_succeeded(cudaDestroyTextureObject(0));  // as on an H100
}

TEST_CASE("cudaCreateTextureObject refuses bad arguments with an H100's codes") {
  linear_floats m;
  cudaResourceDesc resource = m.resource();
  cudaTextureDesc desc = point_clamp();
  cudaTextureObject_t t = 0;
  check_failed_with(cudaCreateTextureObject(nullptr, &resource, &desc, nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaCreateTextureObject(&t, nullptr, &desc, nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaCreateTextureObject(&t, &resource, nullptr, nullptr), cudaErrorInvalidResourceHandle);

  cudaResourceDesc misaligned = resource;
  misaligned.res.linear.devPtr = reinterpret_cast<char*>(m.memory) + 4;  // textureAlignment is 512
  check_failed_with(cudaCreateTextureObject(&t, &misaligned, &desc, nullptr), cudaErrorInvalidValue);

  cudaResourceDesc three_channels = m.resource(cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat));
  check_failed_with(cudaCreateTextureObject(&t, &three_channels, &desc, nullptr), cudaErrorInvalidChannelDescriptor);

  cudaResourceDesc ints = m.resource(cudaCreateChannelDesc<int>());
  cudaTextureDesc linear = desc;
  linear.filterMode = cudaFilterModeLinear;  // integers read as elements cannot be filtered
  check_failed_with(cudaCreateTextureObject(&t, &ints, &linear, nullptr), cudaErrorInvalidFilterSetting);
  cudaTextureDesc normalized_read = desc;
  normalized_read.readMode = cudaReadModeNormalizedFloat;  // only 8- and 16-bit integers normalize
  check_failed_with(cudaCreateTextureObject(&t, &ints, &normalized_read, nullptr), cudaErrorInvalidNormSetting);
  check_failed_with(cudaCreateTextureObject(&t, &resource, &normalized_read, nullptr), cudaErrorInvalidNormSetting);

  cudaResourceDesc pitched{};
  pitched.resType = cudaResourceTypePitch2D;
  pitched.res.pitch2D.devPtr = m.memory;
  pitched.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  pitched.res.pitch2D.width = 16;
  pitched.res.pitch2D.height = 16;
  pitched.res.pitch2D.pitchInBytes = 68;  // texturePitchAlignment is 32
  check_failed_with(cudaCreateTextureObject(&t, &pitched, &desc, nullptr), cudaErrorInvalidValue);
  pitched.res.pitch2D.pitchInBytes = 96;
  check_succeeded(cudaCreateTextureObject(&t, &pitched, &desc, nullptr));
  check_succeeded(cudaDestroyTextureObject(t));

  cudaResourceDesc no_array{};
  no_array.resType = cudaResourceTypeArray;
  check_failed_with(cudaCreateTextureObject(&t, &no_array, &desc, nullptr), cudaErrorInvalidResourceHandle);
}

// cuda-samples' NV12toBGRandResize destroys its texture objects right after
// launching the kernels that fetch through them; the kernels still read
// them, as on a GPU.
TEST_CASE("a texture object destroyed while a launched kernel has yet to fetch through it still reads") {
  linear_floats m;
  float values[16];
  for (int i = 0; i < 16; ++i) values[i] = static_cast<float>(i) * 1.5f;
  check_succeeded(cudaMemcpy(m.memory, values, sizeof values, cudaMemcpyHostToDevice));
  float* out = nullptr;
  check_succeeded(cudaMallocManaged(&out, sizeof values));
  // Non-blocking: the copies and sets below on the legacy stream must not
  // wait for the held stream.
  cudaStream_t s;
  check_succeeded(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  gate held;
  held.hold(s);
  // Objects made after the destroy, over other memory, that would take the
  // destroyed objects' place if those were freed at once.
  linear_floats elsewhere;
  check_succeeded(cudaMemset(elsewhere.memory, 0xff, 1024));
  std::vector<cudaTextureObject_t> others;
  for (int round = 0; round < 8; ++round) {
    cudaResourceDesc resource = m.resource();
    cudaTextureDesc desc = point_clamp();
    cudaTextureObject_t t = 0;
    check_succeeded(cudaCreateTextureObject(&t, &resource, &desc, nullptr));
    REQUIRE(weft::launch({1, 1, 0, s}, fetch_all, t, out, 16) == cudaSuccess);
    check_succeeded(cudaDestroyTextureObject(t));
    cudaResourceDesc other_resource = elsewhere.resource();
    cudaTextureObject_t other = 0;
    check_succeeded(cudaCreateTextureObject(&other, &other_resource, &desc, nullptr));
    others.push_back(other);
  }
  held.open();
  check_succeeded(cudaStreamSynchronize(s));
  for (int i = 0; i < 16; ++i) CHECK(out[i] == values[i]);
  for (cudaTextureObject_t other : others) check_succeeded(cudaDestroyTextureObject(other));
  cudaStreamDestroy(s);
  cudaFree(out);
}
