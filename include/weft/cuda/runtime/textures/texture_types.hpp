// Texture objects' vocabulary in CUDA's spelling (texture_types.h in CUDA
// 13): the address, filter and read modes, cudaTextureDesc with CUDA's
// layout, the cudaTextureObject_t handle and the cudaTextureType* numbers.
#pragma once

enum cudaTextureAddressMode : int {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3,
};

enum cudaTextureFilterMode : int {
  cudaFilterModePoint = 0,
  cudaFilterModeLinear = 1,
};

enum cudaTextureReadMode : int {
  cudaReadModeElementType = 0,
  cudaReadModeNormalizedFloat = 1,
};

struct cudaTextureDesc {
  cudaTextureAddressMode addressMode[3];
  cudaTextureFilterMode filterMode;
  cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};

static_assert(sizeof(cudaTextureDesc) == 72, "CUDA 13's layout");

using cudaTextureObject_t = unsigned long long;

// The kinds of texture CUDA numbers (macros of int literals in CUDA's header).
inline constexpr int cudaTextureType1D = 0x01;
inline constexpr int cudaTextureType2D = 0x02;
inline constexpr int cudaTextureType3D = 0x03;
inline constexpr int cudaTextureTypeCubemap = 0x0C;
inline constexpr int cudaTextureType1DLayered = 0xF1;
inline constexpr int cudaTextureType2DLayered = 0xF2;
inline constexpr int cudaTextureTypeCubemapLayered = 0xFC;
