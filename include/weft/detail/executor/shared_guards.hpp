// The memory check's guards beside `__shared__` variables, as the workers and
// the memory check call them (what they are: shared_guard.hpp). Defined in
// shared_guard_poisoning.hpp, which reads the executable's symbol table
// (<elf.h>, the demangler) and is included here in builds with
// AddressSanitizer only: other builds have no guards, and their callers name
// these functions only inside `if constexpr (fiber_sanitizer::address_sanitizer)`,
// a discarded statement there, which needs no definition.
#pragma once

#include <cstdint>
#include <string>

namespace weft::detail {

/// Poisons the calling thread's guards, the first time it is called on the
/// thread; a thread calls it before it runs its first block.
inline void poison_shared_guards();

/// What a bad access at `address` missed, where it is in one of the calling
/// thread's guards: "0 bytes past the 1024-byte __shared__ 'tile' of
/// kernel(float*)". Empty elsewhere.
inline std::string describe_shared_guard_access(std::uintptr_t address);

}  // namespace weft::detail

#if defined(__SANITIZE_ADDRESS__)
#include "weft/detail/executor/shared_guard_poisoning.hpp"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#include "weft/detail/executor/shared_guard_poisoning.hpp"
#endif
#endif
