// CUDA's driver_types.h: error codes, copy kinds, stream and event handles,
// compute modes, access policy windows, memory pool types, ... (all in
// weft/host_view.hpp). It defines the include guard CUDA's copy defines, because
// programs test it: cuda-samples' helper_cuda.h enables checkCudaErrors and
// its error-name lookup only #ifdef __DRIVER_TYPES_H__.
#pragma once
#include <weft/host_view.hpp>

#ifndef __DRIVER_TYPES_H__
#define __DRIVER_TYPES_H__
#endif
