// Surface reads and writes over surface objects, in CUDA's spelling (CUDA
// guide 6.2.14.2, "Surface Memory"; surface_indirect_functions.h in CUDA
// 13): surf1D, surf2D, surf3D, surf1DLayered, surf2DLayered, surfCubemap and
// surfCubemapLayered, each as read (returning the value, or through a
// pointer) and write.
//
// x counts bytes, y rows, and the last coordinate is a 3D surface's depth, a
// layered surface's layer, a cubemap's face (+x, -x, +y, -y, +z, -z), or a
// layered cubemap's face + 6 * layer. The boundary mode says what an access
// out of range does, as on an H100 (detail/textures/objects/surface_access.hpp has
// the rules): cudaBoundaryModeTrap, the default, fails the launch with
// cudaErrorIllegalAddress and a report naming the block, the thread and the
// call; Clamp moves the access to the nearest element in range; Zero reads
// zero and drops a write. An x that is no multiple of the access's size
// fails the launch with cudaErrorMisalignedAddress in every mode.
//
// Each function takes one more parameter than CUDA's, defaulted to the
// caller's source location, so that a fault's report names the line.
#pragma once

#include <cstring>
#include <source_location>
#include <type_traits>

#include "weft/cuda/runtime/textures/surface_types.hpp"
#include "weft/cuda/vector_types.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/textures/objects/surface_access.hpp"
#include "weft/detail/textures/objects/surface_object.hpp"

static_assert(static_cast<int>(weft::detail::textures::surface_boundary::zero) == cudaBoundaryModeZero);
static_assert(static_cast<int>(weft::detail::textures::surface_boundary::clamp) == cudaBoundaryModeClamp);
static_assert(static_cast<int>(weft::detail::textures::surface_boundary::trap) == cudaBoundaryModeTrap);

namespace weft::surface {

/// The types a surface function reads and writes: CUDA's list (1-, 2-, 4-,
/// 8- and 16-byte integers and floats and their vectors).
template <class T>
concept surface_element = std::is_same_v<T, char> || std::is_same_v<T, signed char> ||
    std::is_same_v<T, unsigned char> || std::is_same_v<T, char1> || std::is_same_v<T, uchar1> ||
    std::is_same_v<T, char2> || std::is_same_v<T, uchar2> || std::is_same_v<T, char4> || std::is_same_v<T, uchar4> ||
    std::is_same_v<T, short> || std::is_same_v<T, unsigned short> || std::is_same_v<T, short1> ||
    std::is_same_v<T, ushort1> || std::is_same_v<T, short2> || std::is_same_v<T, ushort2> ||
    std::is_same_v<T, short4> || std::is_same_v<T, ushort4> || std::is_same_v<T, int> ||
    std::is_same_v<T, unsigned int> || std::is_same_v<T, int1> || std::is_same_v<T, uint1> || std::is_same_v<T, int2> ||
    std::is_same_v<T, uint2> || std::is_same_v<T, int4> || std::is_same_v<T, uint4> || std::is_same_v<T, long long> ||
    std::is_same_v<T, unsigned long long> || std::is_same_v<T, longlong1> || std::is_same_v<T, ulonglong1> ||
    std::is_same_v<T, longlong2> || std::is_same_v<T, ulonglong2> || std::is_same_v<T, float> ||
    std::is_same_v<T, float1> || std::is_same_v<T, float2> || std::is_same_v<T, float4>;

using weft::detail::textures::slice_kind;

/// The element an access of `bytes` at (x, y, z) reaches, or null where
/// cudaBoundaryModeZero drops it. Surface object 0 reads zero and drops
/// writes, as on an H100 (surface_trap_probe.cu).
inline std::byte* surface_element_at(cudaSurfaceObject_t object, int x, int y, int z, slice_kind slice,
                                     std::size_t bytes, cudaSurfaceBoundaryMode mode, const char* function,
                                     std::source_location where) {
  namespace tx = weft::detail::textures;
  if (object == 0) [[unlikely]]
    return nullptr;
  return tx::surface_address(*reinterpret_cast<const tx::surface_object*>(object), x, y, z, slice, bytes,
                             static_cast<tx::surface_boundary>(mode), {function, where});
}

template <class T>
void surface_read(T* value, cudaSurfaceObject_t object, int x, int y, int z, slice_kind slice,
                  cudaSurfaceBoundaryMode mode, const char* function, std::source_location where) {
  if (std::byte* element = surface_element_at(object, x, y, z, slice, sizeof(T), mode, function, where))
    std::memcpy(static_cast<void*>(value), element, sizeof(T));
  else
    std::memset(static_cast<void*>(value), 0, sizeof(T));
}

template <class T>
void surface_write(const T& value, cudaSurfaceObject_t object, int x, int y, int z, slice_kind slice,
                   cudaSurfaceBoundaryMode mode, const char* function, std::source_location where) {
  if (std::byte* element = surface_element_at(object, x, y, z, slice, sizeof(T), mode, function, where))
    std::memcpy(element, static_cast<const void*>(&value), sizeof(T));
}

}  // namespace weft::surface

// ---- 1D ----

template <weft::surface::surface_element T>
void surf1Dread(T* ptr, cudaSurfaceObject_t obj, int x, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                std::source_location where = std::source_location::current()) {
  weft::surface::surface_read(ptr, obj, x, 0, 0, weft::surface::slice_kind::none, mode, "surf1Dread", where);
}

template <weft::surface::surface_element T>
T surf1Dread(cudaSurfaceObject_t surfObject, int x, cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap,
             std::source_location where = std::source_location::current()) {
  T value;
  weft::surface::surface_read(&value, surfObject, x, 0, 0, weft::surface::slice_kind::none, boundaryMode, "surf1Dread",
                              where);
  return value;
}

template <weft::surface::surface_element T>
void surf1Dwrite(T val, cudaSurfaceObject_t obj, int x, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                 std::source_location where = std::source_location::current()) {
  weft::surface::surface_write(val, obj, x, 0, 0, weft::surface::slice_kind::none, mode, "surf1Dwrite", where);
}

// ---- 2D ----

template <weft::surface::surface_element T>
void surf2Dread(T* ptr, cudaSurfaceObject_t obj, int x, int y, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                std::source_location where = std::source_location::current()) {
  weft::surface::surface_read(ptr, obj, x, y, 0, weft::surface::slice_kind::none, mode, "surf2Dread", where);
}

template <weft::surface::surface_element T>
T surf2Dread(cudaSurfaceObject_t surfObject, int x, int y, cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap,
             std::source_location where = std::source_location::current()) {
  T value;
  weft::surface::surface_read(&value, surfObject, x, y, 0, weft::surface::slice_kind::none, boundaryMode, "surf2Dread",
                              where);
  return value;
}

template <weft::surface::surface_element T>
void surf2Dwrite(T val, cudaSurfaceObject_t obj, int x, int y, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                 std::source_location where = std::source_location::current()) {
  weft::surface::surface_write(val, obj, x, y, 0, weft::surface::slice_kind::none, mode, "surf2Dwrite", where);
}

// ---- 3D ----

template <weft::surface::surface_element T>
void surf3Dread(T* ptr, cudaSurfaceObject_t obj, int x, int y, int z,
                cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                std::source_location where = std::source_location::current()) {
  weft::surface::surface_read(ptr, obj, x, y, z, weft::surface::slice_kind::depth, mode, "surf3Dread", where);
}

template <weft::surface::surface_element T>
T surf3Dread(cudaSurfaceObject_t surfObject, int x, int y, int z,
             cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap,
             std::source_location where = std::source_location::current()) {
  T value;
  weft::surface::surface_read(&value, surfObject, x, y, z, weft::surface::slice_kind::depth, boundaryMode, "surf3Dread",
                              where);
  return value;
}

template <weft::surface::surface_element T>
void surf3Dwrite(T val, cudaSurfaceObject_t obj, int x, int y, int z,
                 cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                 std::source_location where = std::source_location::current()) {
  weft::surface::surface_write(val, obj, x, y, z, weft::surface::slice_kind::depth, mode, "surf3Dwrite", where);
}

// ---- 1D layered ----

template <weft::surface::surface_element T>
void surf1DLayeredread(T* ptr, cudaSurfaceObject_t obj, int x, int layer,
                       cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                       std::source_location where = std::source_location::current()) {
  weft::surface::surface_read(ptr, obj, x, 0, layer, weft::surface::slice_kind::layer, mode, "surf1DLayeredread",
                              where);
}

template <weft::surface::surface_element T>
T surf1DLayeredread(cudaSurfaceObject_t surfObject, int x, int layer,
                    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap,
                    std::source_location where = std::source_location::current()) {
  T value;
  weft::surface::surface_read(&value, surfObject, x, 0, layer, weft::surface::slice_kind::layer, boundaryMode,
                              "surf1DLayeredread", where);
  return value;
}

template <weft::surface::surface_element T>
void surf1DLayeredwrite(T val, cudaSurfaceObject_t obj, int x, int layer,
                        cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                        std::source_location where = std::source_location::current()) {
  weft::surface::surface_write(val, obj, x, 0, layer, weft::surface::slice_kind::layer, mode, "surf1DLayeredwrite",
                               where);
}

// ---- 2D layered ----

template <weft::surface::surface_element T>
void surf2DLayeredread(T* ptr, cudaSurfaceObject_t obj, int x, int y, int layer,
                       cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                       std::source_location where = std::source_location::current()) {
  weft::surface::surface_read(ptr, obj, x, y, layer, weft::surface::slice_kind::layer, mode, "surf2DLayeredread",
                              where);
}

template <weft::surface::surface_element T>
T surf2DLayeredread(cudaSurfaceObject_t surfObject, int x, int y, int layer,
                    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap,
                    std::source_location where = std::source_location::current()) {
  T value;
  weft::surface::surface_read(&value, surfObject, x, y, layer, weft::surface::slice_kind::layer, boundaryMode,
                              "surf2DLayeredread", where);
  return value;
}

template <weft::surface::surface_element T>
void surf2DLayeredwrite(T val, cudaSurfaceObject_t obj, int x, int y, int layer,
                        cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                        std::source_location where = std::source_location::current()) {
  weft::surface::surface_write(val, obj, x, y, layer, weft::surface::slice_kind::layer, mode, "surf2DLayeredwrite",
                               where);
}

// ---- Cubemap: face 0 to 5 ----

template <weft::surface::surface_element T>
void surfCubemapread(T* ptr, cudaSurfaceObject_t obj, int x, int y, int face,
                     cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                     std::source_location where = std::source_location::current()) {
  weft::surface::surface_read(ptr, obj, x, y, face, weft::surface::slice_kind::layer, mode, "surfCubemapread", where);
}

template <weft::surface::surface_element T>
T surfCubemapread(cudaSurfaceObject_t surfObject, int x, int y, int face,
                  cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap,
                  std::source_location where = std::source_location::current()) {
  T value;
  weft::surface::surface_read(&value, surfObject, x, y, face, weft::surface::slice_kind::layer, boundaryMode,
                              "surfCubemapread", where);
  return value;
}

template <weft::surface::surface_element T>
void surfCubemapwrite(T val, cudaSurfaceObject_t obj, int x, int y, int face,
                      cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                      std::source_location where = std::source_location::current()) {
  weft::surface::surface_write(val, obj, x, y, face, weft::surface::slice_kind::layer, mode, "surfCubemapwrite", where);
}

// ---- Layered cubemap: layerface = face + 6 * layer ----

template <weft::surface::surface_element T>
void surfCubemapLayeredread(T* ptr, cudaSurfaceObject_t obj, int x, int y, int layerface,
                            cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                            std::source_location where = std::source_location::current()) {
  weft::surface::surface_read(ptr, obj, x, y, layerface, weft::surface::slice_kind::layer, mode,
                              "surfCubemapLayeredread", where);
}

template <weft::surface::surface_element T>
T surfCubemapLayeredread(cudaSurfaceObject_t surfObject, int x, int y, int layerface,
                         cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap,
                         std::source_location where = std::source_location::current()) {
  T value;
  weft::surface::surface_read(&value, surfObject, x, y, layerface, weft::surface::slice_kind::layer, boundaryMode,
                              "surfCubemapLayeredread", where);
  return value;
}

template <weft::surface::surface_element T>
void surfCubemapLayeredwrite(T val, cudaSurfaceObject_t obj, int x, int y, int layerface,
                             cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                             std::source_location where = std::source_location::current()) {
  weft::surface::surface_write(val, obj, x, y, layerface, weft::surface::slice_kind::layer, mode,
                               "surfCubemapLayeredwrite", where);
}
