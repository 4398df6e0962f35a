// A map from non-null pointers to small values that allocates only when it
// grows: open addressing with linear probing, and deletion by shifting the
// entries after a hole back into it (no tombstones, so a table whose keys
// come and go forever keeps short probe runs).
//
// The sanitizer announcements (fiber_sanitizer.hpp) look up the fiber that
// a switch goes to on every switch, and insert the fiber that leaves: with
// a node-based map that was an allocation per switch, which under
// AddressSanitizer (whose allocator records a stack trace for each) cost
// more than the switch itself (docs/debugging.md, "What each mode costs").
// For the same reason its functions are not instrumented by ASan: they run
// on every switch, the table is weft's own, and ASan's calls for each copy
// of a slot cost more than the lookup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace weft::detail {

template <class Value>
class pointer_keyed_table {
 public:
  /// Adds `key` (not null), or gives it `value` if it is there.
  [[gnu::no_sanitize_address]] void insert(const void* key, const Value& value) {
    if (2 * (count_ + 1) > mask_ + 1) grow();
    std::size_t i = home(key);
    while (slots_[i].key && slots_[i].key != key) i = (i + 1) & mask_;
    if (!slots_[i].key) ++count_;
    slots_[i].key = key;
    slots_[i].value = value;
  }

  /// Removes `key`, storing its value in `value`; false if it is not there.
  [[gnu::no_sanitize_address]] bool take(const void* key, Value& value) {
    if (!slots_) return false;
    std::size_t i = home(key);
    while (slots_[i].key != key) {
      if (!slots_[i].key) return false;
      i = (i + 1) & mask_;
    }
    value = slots_[i].value;
    close_hole(i);
    --count_;
    return true;
  }

  std::size_t size() const { return count_; }

 private:
  struct slot {
    const void* key = nullptr;
    Value value{};
  };

  // A full mix of the address's bits (splitmix64's finaliser): the
  // contexts of a block's parked threads lie at one offset in stacks spaced
  // evenly, and a multiplicative hash gave them consecutive home slots, one
  // long run that each removal had to walk.
  [[gnu::no_sanitize_address]] std::size_t home(const void* key) const {
    auto x = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(key));
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return static_cast<std::size_t>(x ^ (x >> 31)) & mask_;
  }

  // Moves back into the hole at `hole` every later entry of the run that
  // would otherwise no longer be found from its home slot.
  [[gnu::no_sanitize_address]] void close_hole(std::size_t hole) {
    for (std::size_t i = (hole + 1) & mask_; slots_[i].key; i = (i + 1) & mask_) {
      std::size_t h = home(slots_[i].key);
      // Whether h lies cyclically in (hole, i]: then the entry may stay.
      bool stays = hole <= i ? (hole < h && h <= i) : (hole < h || h <= i);
      if (stays) continue;
      slots_[hole] = slots_[i];
      hole = i;
    }
    slots_[hole].key = nullptr;
  }

  [[gnu::noinline]] void grow() {
    std::vector<slot> old = std::move(storage_);
    std::size_t size = old.empty() ? 64 : 2 * old.size();
    storage_.assign(size, slot{});
    // The hot functions index a plain pointer: std::vector's operator[] is
    // instrumented code, which is not inlined into uninstrumented functions.
    slots_ = storage_.data();
    mask_ = size - 1;
    count_ = 0;
    for (const slot& s : old)
      if (s.key) insert(s.key, s.value);
  }

  std::vector<slot> storage_;
  slot* slots_ = nullptr;
  std::size_t mask_ = 0;  // the slot count less one (a power of two less one)
  std::size_t count_ = 0;
};

}  // namespace weft::detail
