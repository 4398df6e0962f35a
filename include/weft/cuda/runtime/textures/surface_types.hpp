// Surface objects' vocabulary in CUDA's spelling (surface_types.h in CUDA
// 13): the boundary and format modes, the cudaSurfaceObject_t handle and the
// cudaSurfaceType* numbers.
#pragma once

enum cudaSurfaceBoundaryMode : int {
  cudaBoundaryModeZero = 0,
  cudaBoundaryModeClamp = 1,
  cudaBoundaryModeTrap = 2,
};

enum cudaSurfaceFormatMode : int {
  cudaFormatModeForced = 0,
  cudaFormatModeAuto = 1,
};

using cudaSurfaceObject_t = unsigned long long;

// The kinds of surface CUDA numbers (macros of int literals in CUDA's header).
inline constexpr int cudaSurfaceType1D = 0x01;
inline constexpr int cudaSurfaceType2D = 0x02;
inline constexpr int cudaSurfaceType3D = 0x03;
inline constexpr int cudaSurfaceTypeCubemap = 0x0C;
inline constexpr int cudaSurfaceType1DLayered = 0xF1;
inline constexpr int cudaSurfaceType2DLayered = 0xF2;
inline constexpr int cudaSurfaceTypeCubemapLayered = 0xFC;
