// CUDA's texture_types.h: the address, filter and read modes,
// cudaTextureDesc and cudaTextureObject_t (weft/cuda/runtime/textures/
// texture_types.hpp, in weft/host_view.hpp), with CUDA's include guard.
#pragma once
#include <weft/host_view.hpp>

#ifndef __TEXTURE_TYPES_H__
#define __TEXTURE_TYPES_H__
#endif
