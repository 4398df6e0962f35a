// A texture object: its sampler, which a cudaTextureObject_t points at so
// that a fetch reads it straight through the handle, and the descriptors it
// was made from; object_registry.hpp keeps the live ones.
#pragma once

#include <any>
#include <cstdint>
#include <memory>
#include <utility>

#include "weft/detail/textures/objects/object_registry.hpp"
#include "weft/detail/textures/sampling/texture_sampler.hpp"

namespace weft::detail::textures {

struct texture_object {
  texture_sampler sampler;
  /// What the object was created from, in the surface's own types, for
  /// the queries to hand back.
  std::any descriptors;
};

/// cudaTextureObject_t is the address of the object's sampler.
using texture_object_registry = object_registry<texture_object>;

}  // namespace weft::detail::textures
