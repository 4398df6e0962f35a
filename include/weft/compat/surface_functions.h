// surface_functions.h, which CUDA 11 had and older programs still include:
// the surface reads and writes (surf2Dread, surf2Dwrite, ... over surface
// objects: weft/cuda/device/textures/surface_functions.hpp, in weft.hpp),
// with CUDA 11's include guard.
#pragma once
#include <weft.hpp>

#ifndef __SURFACE_FUNCTIONS_H__
#define __SURFACE_FUNCTIONS_H__
#endif
