// NVTX 3's C API: ranges and marks, drawn on weft's trace timeline
// (weft/cuda/runtime/nvtx.hpp). Nothing to link, as with NVTX 3 itself.
#pragma once
#include <weft/cuda/runtime/nvtx.hpp>

// NVTX spells its version and the attribute structure's size as macros,
// and programs fill nvtxEventAttributes_t with them.
#ifndef NVTX_VERSION
#define NVTX_VERSION 3
#endif
#define NVTX_EVENT_ATTRIB_STRUCT_SIZE ((uint16_t)(sizeof(nvtxEventAttributes_t)))
