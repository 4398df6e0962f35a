// CUDA's surface_indirect_functions.h: the surface reads and writes over
// surface objects (weft/cuda/device/textures/surface_functions.hpp, in
// weft.hpp), with CUDA's include guard.
#pragma once
#include <weft.hpp>

#ifndef __SURFACE_INDIRECT_FUNCTIONS_H__
#define __SURFACE_INDIRECT_FUNCTIONS_H__
#endif
