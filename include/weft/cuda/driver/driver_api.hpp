// The driver API without modules (<cuda.h>): its vocabulary, errors,
// initialisation and contexts, devices, memory, virtual memory management,
// streams and events, launches of registered kernels, and the module calls
// that say why they are not supported. Not part of <weft.hpp>: a program
// gets it by including <cuda.h> (compat/cuda.h).
#pragma once

#include "weft/cuda/driver/context_api.hpp"
#include "weft/cuda/driver/device_api.hpp"
#include "weft/cuda/driver/driver_types.hpp"
#include "weft/cuda/driver/error_api.hpp"
#include "weft/cuda/driver/launch_api.hpp"
#include "weft/cuda/driver/memory_api.hpp"
#include "weft/cuda/driver/module_api.hpp"
#include "weft/cuda/driver/stream_event_api.hpp"
#include "weft/cuda/driver/virtual_memory_api.hpp"
