// CUDA's surface_types.h: the boundary and format modes and
// cudaSurfaceObject_t (weft/cuda/runtime/textures/surface_types.hpp, in
// weft/host_view.hpp), with CUDA's include guard.
#pragma once
#include <weft/host_view.hpp>

#ifndef __SURFACE_TYPES_H__
#define __SURFACE_TYPES_H__
#endif
