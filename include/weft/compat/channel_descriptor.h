// CUDA's channel_descriptor.h: cudaCreateChannelDesc in its template forms
// and the half-precision and NV12 helpers (weft/cuda/runtime/textures/
// channel_descriptor.hpp, in weft/host_view.hpp), with CUDA's include guard.
#pragma once
#include <weft/host_view.hpp>

#ifndef __CHANNEL_DESCRIPTOR_H__
#define __CHANNEL_DESCRIPTOR_H__
#endif
