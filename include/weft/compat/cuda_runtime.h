// CUDA's runtime header, as weft provides it: a program that includes
// <cuda_runtime.h> gets all of weft. This folder is on the include path of
// targets that link weft::cuda (or are built by weft_add_cuda_executable).
#pragma once
#include <weft.hpp>
