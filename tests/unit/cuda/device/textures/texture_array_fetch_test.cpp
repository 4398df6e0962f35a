// Texture fetches from CUDA arrays: 3D, layered 1D and 2D, cubemaps and
// layered cubemaps, mipmapped arrays (tex*Lod with each mipmap filter, the
// level clamps and bias, tex2DGrad) and tex2Dgather. Expected values are
// worked out by hand from the CUDA guide's rules (6.2.14.1; the appendix
// "Texture Fetching"; the cubemap table in "Cubemap Textures").
#include <doctest/doctest.h>
#include <weft.hpp>

#include <vector>

#include "device_buffer.hpp"
#include "texture_fetching.hpp"

namespace {

// A float array of the extent, flags and texels given (x fastest, then y, then z).
cudaArray_t float_array(cudaExtent extent, unsigned flags, const std::vector<float>& texels) {
  cudaChannelFormatDesc format = cudaCreateChannelDesc<float>();
  cudaArray_t array = nullptr;
  REQUIRE(cudaMalloc3DArray(&array, &format, extent, flags) == cudaSuccess);
  cudaMemcpy3DParms copy{};
  std::size_t rows = extent.height ? extent.height : 1;
  std::size_t slices = extent.depth ? extent.depth : 1;
  copy.srcPtr =
      make_cudaPitchedPtr(const_cast<float*>(texels.data()), extent.width * sizeof(float), extent.width, rows);
  copy.dstArray = array;
  copy.extent = make_cudaExtent(extent.width, rows, slices);
  copy.kind = cudaMemcpyHostToDevice;
  REQUIRE(cudaMemcpy3D(&copy) == cudaSuccess);
  return array;
}

cudaTextureObject_t array_texture(cudaArray_t array, cudaTextureFilterMode filter, bool normalized = false) {
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array;
  cudaTextureDesc desc{};
  desc.addressMode[0] = desc.addressMode[1] = desc.addressMode[2] = cudaAddressModeClamp;
  desc.filterMode = filter;
  desc.normalizedCoords = normalized;
  cudaTextureObject_t object = 0;
  REQUIRE(cudaCreateTextureObject(&object, &resource, &desc, nullptr) == cudaSuccess);
  return object;
}

}  // namespace

TEST_CASE("tex3D reads and blends a 3D array's eight neighbours") {
  // texel (x, y, z) = x + 10 y + 100 z
  cudaArray_t array = float_array(make_cudaExtent(2, 2, 2), cudaArrayDefault, {0, 1, 10, 11, 100, 101, 110, 111});
  cudaTextureObject_t point = array_texture(array, cudaFilterModePoint);
  cudaTextureObject_t linear = array_texture(array, cudaFilterModeLinear);
  auto got = run_fetches<float>(4, [=](int i) {
    switch (i) {
      case 0:
        return tex3D<float>(point, 1.5f, 0.5f, 1.5f);
      case 1:
        return tex3D<float>(point, 0.2f, 1.7f, 0.9f);
      case 2:
        return tex3D<float>(linear, 1.0f, 1.0f, 1.0f);  // the middle: the mean of all eight
      default:
        return tex3D<float>(linear, 1.5f, 0.5f, 1.0f);  // halfway between z = 0 and 1 at (1, 0)
    }
  });
  CHECK(got == std::vector<float>{101, 10, 55.5f, 51});
  CHECK(cudaDestroyTextureObject(point) == cudaSuccess);
  CHECK(cudaDestroyTextureObject(linear) == cudaSuccess);
  CHECK(cudaFreeArray(array) == cudaSuccess);
}

TEST_CASE("layered textures select a layer and never blend between layers") {
  // 1D layered: width 2, 3 layers, texel (x, layer) = 10 layer + x.
  cudaArray_t one = float_array(make_cudaExtent(2, 0, 3), cudaArrayLayered, {0, 1, 10, 11, 20, 21});
  // 2D layered: 2 x 2, 2 layers, texel (x, y, layer) = 100 layer + 10 y + x.
  cudaArray_t two = float_array(make_cudaExtent(2, 2, 2), cudaArrayLayered, {0, 1, 10, 11, 100, 101, 110, 111});
  cudaTextureObject_t one_point = array_texture(one, cudaFilterModePoint);
  cudaTextureObject_t one_linear = array_texture(one, cudaFilterModeLinear);
  cudaTextureObject_t two_point = array_texture(two, cudaFilterModePoint);
  cudaTextureObject_t two_linear = array_texture(two, cudaFilterModeLinear);
  auto got = run_fetches<float>(5, [=](int i) {
    switch (i) {
      case 0:
        return tex1DLayered<float>(one_point, 1.5f, 2);
      case 1:
        return tex1DLayered<float>(one_linear, 1.0f, 1);
      case 2:
        return tex2DLayered<float>(two_point, 0.5f, 1.5f, 1);
      case 3:
        return tex2DLayered<float>(two_linear, 1.0f, 1.0f, 1);
      default:
        return tex2DLayered<float>(two_linear, 1.0f, 0.5f, 0);
    }
  });
  CHECK(got == std::vector<float>{21, 10.5f, 110, 105.5f, 0.5f});
  for (auto t : {one_point, one_linear, two_point, two_linear}) CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
  CHECK(cudaFreeArray(one) == cudaSuccess);
  CHECK(cudaFreeArray(two) == cudaSuccess);
}

TEST_CASE("texCubemap picks the face of the major axis and maps the other two onto it") {
  // Six faces of 2 x 2; texel (face, x, y) = 10 face + 2 y + x.
  std::vector<float> texels;
  for (int face = 0; face < 6; ++face)
    for (int i = 0; i < 4; ++i) texels.push_back(static_cast<float>(10 * face + i));
  cudaArray_t cube = float_array(make_cudaExtent(2, 2, 6), cudaArrayCubemap, texels);
  cudaTextureObject_t t = array_texture(cube, cudaFilterModePoint, true);
  auto got = run_fetches<float>(9, [=](int i) {
    switch (i) {
      case 0:
        return texCubemap<float>(t, 1, -0.5f, -0.5f);  // +x: s = -z, t = -y: (0.75, 0.75): texel (1, 1)
      case 1:
        return texCubemap<float>(t, 1, 0.5f, 0.5f);  // +x: (0.25, 0.25): texel (0, 0)
      case 2:
        return texCubemap<float>(t, -1, -0.5f, 0.5f);  // -x: s = z, t = -y: (0.75, 0.75)
      case 3:
        return texCubemap<float>(t, 0.5f, 1, -0.5f);  // +y: s = x, t = z: (0.75, 0.25): texel (1, 0)
      case 4:
        return texCubemap<float>(t, 0.5f, -1, -0.5f);  // -y: s = x, t = -z: (0.75, 0.75)
      case 5:
        return texCubemap<float>(t, -0.5f, 0.5f, 1);  // +z: s = x, t = -y: (0.25, 0.25)
      case 6:
        return texCubemap<float>(t, -0.5f, 0.5f, -1);  // -z: s = -x, t = -y: (0.75, 0.25)
      case 7:
        return texCubemap<float>(t, 2, -1, 1);  // +x, scaled: s = -0.5, t = 0.5: (0.25, 0.75)
      default:
        return texCubemap<float>(t, 0.25f, -3, 0.25f);  // -y: (0.5417, 0.4583): texel (1, 0)
    }
  });
  CHECK(got == std::vector<float>{3, 0, 13, 21, 33, 40, 51, 2, 31});
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
  CHECK(cudaFreeArray(cube) == cudaSuccess);
}

TEST_CASE("texCubemapLayered reads the faces of the cube of its layer") {
  // Two cubes of 1 x 1 faces: texel (cube, face) = 10 cube + face.
  std::vector<float> texels;
  for (int cube = 0; cube < 2; ++cube)
    for (int face = 0; face < 6; ++face) texels.push_back(static_cast<float>(10 * cube + face));
  cudaArray_t cubes = float_array(make_cudaExtent(1, 1, 12), cudaArrayCubemap | cudaArrayLayered, texels);
  cudaTextureObject_t t = array_texture(cubes, cudaFilterModePoint, true);
  auto got = run_fetches<float>(3, [=](int i) {
    switch (i) {
      case 0:
        return texCubemapLayered<float>(t, 0, 0, 1, 1);  // cube 1, +z
      case 1:
        return texCubemapLayered<float>(t, -1, 0, 0, 1);  // cube 1, -x
      default:
        return texCubemapLayered<float>(t, 0, 1, 0, 0);  // cube 0, +y
    }
  });
  CHECK(got == std::vector<float>{14, 11, 2});
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
  CHECK(cudaFreeArray(cubes) == cudaSuccess);
}

namespace {

// A 4 x 4 mipmapped float array of 3 levels (4 x 4, 2 x 2, 1 x 1), every
// texel of level l equal to l + 1, so that a fetch shows the level it read.
struct mipmapped_levels {
  cudaMipmappedArray_t array = nullptr;
  mipmapped_levels() {
    cudaChannelFormatDesc format = cudaCreateChannelDesc<float>();
    REQUIRE(cudaMallocMipmappedArray(&array, &format, make_cudaExtent(4, 4, 0), 3) == cudaSuccess);
    for (unsigned level = 0; level < 3; ++level) {
      cudaArray_t texels = nullptr;
      REQUIRE(cudaGetMipmappedArrayLevel(&texels, array, level) == cudaSuccess);
      std::size_t side = std::size_t{4} >> level;
      std::vector<float> values(side * side, static_cast<float>(level + 1));
      REQUIRE(cudaMemcpy2DToArray(texels, 0, 0, values.data(), side * sizeof(float), side * sizeof(float), side,
                                  cudaMemcpyHostToDevice) == cudaSuccess);
    }
  }
  ~mipmapped_levels() { cudaFreeMipmappedArray(array); }

  cudaTextureObject_t texture(cudaTextureFilterMode mipmap_filter, float min_clamp = 0, float max_clamp = 100,
                              float bias = 0) const {
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeMipmappedArray;
    resource.res.mipmap.mipmap = array;
    cudaTextureDesc desc{};
    desc.addressMode[0] = desc.addressMode[1] = cudaAddressModeClamp;
    desc.filterMode = cudaFilterModePoint;
    desc.normalizedCoords = 1;
    desc.mipmapFilterMode = mipmap_filter;
    desc.minMipmapLevelClamp = min_clamp;
    desc.maxMipmapLevelClamp = max_clamp;
    desc.mipmapLevelBias = bias;
    cudaTextureObject_t object = 0;
    REQUIRE(cudaCreateTextureObject(&object, &resource, &desc, nullptr) == cudaSuccess);
    return object;
  }
};

std::vector<float> lod_fetches(cudaTextureObject_t t, std::vector<float> levels) {
  device_buffer<float> at(levels);
  const float* lod = at.p;
  auto got = run_fetches<float>(static_cast<int>(levels.size()),
                                [=](int i) { return tex2DLod<float>(t, 0.5f, 0.5f, lod[i]); });
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
  return got;
}

}  // namespace

TEST_CASE("tex2DLod with point mipmap filtering reads the nearest level, within the texture's levels") {
  mipmapped_levels m;
  CHECK(lod_fetches(m.texture(cudaFilterModePoint), {0, 0.25f, 0.75f, 1, 2, 7, -1}) ==
        std::vector<float>{1, 1, 2, 2, 3, 3, 1});
}

TEST_CASE("tex2DLod with linear mipmap filtering blends the two levels around the level of detail") {
  mipmapped_levels m;
  CHECK(lod_fetches(m.texture(cudaFilterModeLinear), {0.5f, 1.25f, 2, 3}) == std::vector<float>{1.5f, 2.25f, 3, 3});
}

TEST_CASE("mipmap level clamps and bias move the level of detail") {
  mipmapped_levels m;
  CHECK(lod_fetches(m.texture(cudaFilterModePoint, 0, 1), {0, 2}) == std::vector<float>{1, 2});
  CHECK(lod_fetches(m.texture(cudaFilterModePoint, 1, 100), {0, 2}) == std::vector<float>{2, 3});
  CHECK(lod_fetches(m.texture(cudaFilterModePoint, 0, 100, 1), {0, 1}) == std::vector<float>{2, 3});
}

TEST_CASE("tex2DGrad takes the level of detail from the gradients, in texels of level 0") {
  mipmapped_levels m;
  cudaTextureObject_t t = m.texture(cudaFilterModePoint);
  auto got = run_fetches<float>(4, [=](int i) {
    float step = 0.25f * static_cast<float>(1 << i);  // 1, 2, 4 and 8 texels of level 0
    return tex2DGrad<float>(t, 0.5f, 0.5f, make_float2(step, 0), make_float2(0, step / 2));
  });
  CHECK(got == std::vector<float>{1, 2, 3, 3});
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
}

TEST_CASE("tex2Dgather returns one channel of the four texels a linear fetch would blend") {
  // 2 x 2 float4 texels: channel c of texel (x, y) = 10 c + 2 y + x.
  cudaChannelFormatDesc format = cudaCreateChannelDesc<float4>();
  cudaArray_t array = nullptr;
  REQUIRE(cudaMallocArray(&array, &format, 2, 2, cudaArrayTextureGather) == cudaSuccess);
  std::vector<float4> texels;
  for (int i = 0; i < 4; ++i) {
    float v = static_cast<float>(i);
    texels.push_back(make_float4(v, 10 + v, 20 + v, 30 + v));
  }
  REQUIRE(cudaMemcpy2DToArray(array, 0, 0, texels.data(), 2 * sizeof(float4), 2 * sizeof(float4), 2,
                              cudaMemcpyHostToDevice) == cudaSuccess);
  cudaTextureObject_t t = array_texture(array, cudaFilterModePoint);
  auto got = run_fetches<float4>(2, [=](int i) { return tex2Dgather<float4>(t, 1.0f, 1.0f, i == 0 ? 0 : 3); });
  // The footprint of (1, 1) is texels (0, 0), (1, 0), (0, 1), (1, 1), returned
  // as (0, 1), (1, 1), (1, 0), (0, 0).
  CHECK((got[0].x == 2 && got[0].y == 3 && got[0].z == 1 && got[0].w == 0));
  CHECK((got[1].x == 32 && got[1].y == 33 && got[1].z == 31 && got[1].w == 30));
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
  CHECK(cudaFreeArray(array) == cudaSuccess);
}

// What an H100 does where the guide leaves it open (texture_probe.cu).

TEST_CASE("a 1D fetch is a 2D fetch at y = 0: with border addressing half the border colour blends in") {
  cudaArray_t array = float_array(make_cudaExtent(2, 0, 0), cudaArrayDefault, {4, 8});
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array;
  cudaTextureDesc desc{};
  desc.addressMode[0] = desc.addressMode[1] = cudaAddressModeBorder;
  desc.filterMode = cudaFilterModeLinear;
  desc.borderColor[0] = 2.0f;
  cudaTextureObject_t t = 0;
  REQUIRE(cudaCreateTextureObject(&t, &resource, &desc, nullptr) == cudaSuccess);
  // At texel 0's centre: half texel 0 (row 0), half the border (row -1).
  auto got = run_fetches<float>(2, [=](int i) { return tex1D<float>(t, i == 0 ? 0.5f : 1.0f); });
  CHECK(got == std::vector<float>{3.0f, 4.0f});
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
  CHECK(cudaFreeArray(array) == cudaSuccess);
}

TEST_CASE("a negative layer reads the last layer, as one past the end does") {
  cudaArray_t layers = float_array(make_cudaExtent(1, 0, 3), cudaArrayLayered, {10, 20, 30});
  cudaTextureObject_t t = array_texture(layers, cudaFilterModePoint);
  auto got = run_fetches<float>(3, [=](int i) {
    const int layer[] = {-1, 3, 1};
    return tex1DLayered<float>(t, 0.5f, layer[i]);
  });
  CHECK(got == std::vector<float>{30, 30, 20});
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
  CHECK(cudaFreeArray(layers) == cudaSuccess);
}

TEST_CASE("a cubemap direction on an edge or corner reads the face of z over y over x") {
  std::vector<float> texels;
  for (int face = 0; face < 6; ++face) texels.push_back(static_cast<float>(face));
  cudaArray_t cube = float_array(make_cudaExtent(1, 1, 6), cudaArrayCubemap, texels);
  cudaTextureObject_t t = array_texture(cube, cudaFilterModePoint, true);
  auto got = run_fetches<float>(4, [=](int i) {
    const float d[][3] = {{1, 1, 0}, {1, -1, 0}, {1, 0, 1}, {-1, -1, -1}};
    return texCubemap<float>(t, d[i][0], d[i][1], d[i][2]);
  });
  CHECK(got == std::vector<float>{2, 3, 4, 5});
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
  CHECK(cudaFreeArray(cube) == cudaSuccess);
}
