// CUDA's texture_indirect_functions.h: the texture fetch functions over
// texture objects (weft/cuda/device/textures/texture_fetch_functions.hpp, in
// weft.hpp), with CUDA's include guard.
#pragma once
#include <weft.hpp>

#ifndef __TEXTURE_INDIRECT_FUNCTIONS_H__
#define __TEXTURE_INDIRECT_FUNCTIONS_H__
#endif
