// The C runtime API header: weft's runtime API is all in
// weft/host_view.hpp. As
// CUDA's copy does, it brings driver_types.h and vector_types.h (through
// builtin_types.h) and defines the runtime's version and include guard,
// which programs test: `#if CUDART_VERSION >= 4000`, `#ifdef
// __CUDA_RUNTIME_API_H__`. The version is CUDA 13.0's, the CUDA weft
// follows (cudaRuntimeGetVersion answers the same).
#pragma once
#include <weft/host_view.hpp>
#include "builtin_types.h"

#ifndef __CUDA_RUNTIME_API_H__
#define __CUDA_RUNTIME_API_H__
#endif

#ifndef CUDART_VERSION
#define CUDART_VERSION 13000
#endif

// The API version a program asks for; CUDA derives it from
// __CUDA_API_VER_MAJOR__/__CUDA_API_VER_MINOR__ when a program sets them
// (to keep an older API's entry points), and otherwise uses CUDART_VERSION.
#ifndef __CUDART_API_VERSION
#if defined(__CUDA_API_VER_MAJOR__) && defined(__CUDA_API_VER_MINOR__)
#define __CUDART_API_VERSION ((__CUDA_API_VER_MAJOR__ * 1000) + (__CUDA_API_VER_MINOR__ * 10))
#else
#define __CUDART_API_VERSION CUDART_VERSION
#endif
#endif
