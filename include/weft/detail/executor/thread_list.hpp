// The block executor's lists of CUDA threads (those waiting at the barrier,
// those ready to resume, ...), by linear thread id.
#pragma once

#include <algorithm>
#include <bit>
#include <utility>
#include <vector>

namespace weft::detail {

/// A list of thread ids with room for the whole block, reserved when a block
/// starts, so that adding one on a barrier's path is a store.
class thread_list {
 public:
  void reserve(unsigned n) {
    if (ids_.size() < n) ids_.resize(n);
  }
  void push_back(unsigned t) { ids_[size_++] = t; }
  /// Appends `first + i` for each bit i set in `bits`, in increasing order;
  /// returns how many. The count is kept in a local: a store through the
  /// ids could alias size_, which push_back in a loop reloads and stores
  /// again for every id.
  unsigned push_bits(unsigned first, unsigned bits) {
    unsigned* out = ids_.data() + size_;
    unsigned missing = ~bits;
    if ((missing & (missing - 1)) == 0) {
      // All 32 but at most one, as when a converged warp's last lane
      // releases the others: two runs of consecutive ids, which GCC writes
      // with vector stores, where the loop below takes a bit at a time.
      unsigned skipped = missing == 0 ? 32 : static_cast<unsigned>(std::countr_zero(missing));
      for (unsigned i = 0; i < skipped; ++i) out[i] = first + i;
      for (unsigned i = skipped + 1; i < 32; ++i) out[i - 1] = first + i;
      unsigned count = missing == 0 ? 32 : 31;
      size_ += count;
      return count;
    }
    unsigned count = 0;
    for (; bits != 0; bits &= bits - 1) out[count++] = first + static_cast<unsigned>(std::countr_zero(bits));
    size_ += count;
    return count;
  }
  unsigned capacity() const { return static_cast<unsigned>(ids_.size()); }
  void drop_front(unsigned n) {
    std::copy(ids_.begin() + n, ids_.begin() + size_, ids_.begin());
    size_ -= n;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  bool empty() const { return size_ == 0; }
  unsigned size() const { return size_; }
  unsigned operator[](unsigned i) const { return ids_[i]; }
  const unsigned* begin() const { return ids_.data(); }
  const unsigned* end() const { return ids_.data() + size_; }
  unsigned* begin() { return ids_.data(); }
  unsigned* end() { return ids_.data() + size_; }
  void swap(thread_list& other) {
    ids_.swap(other.ids_);
    std::swap(size_, other.size_);
  }

 private:
  std::vector<unsigned> ids_;
  unsigned size_ = 0;
};

}  // namespace weft::detail
