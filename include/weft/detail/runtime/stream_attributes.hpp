// The attributes a program set on its streams (cudaStreamSetAttribute). A
// CPU has no L2 access policy, synchronisation policy or memory
// synchronisation domain to apply them to, so they are only stored, to be
// read back by cudaStreamGetAttribute as CUDA reads them back. The value is
// kept as the 64 bytes of CUDA's cudaLaunchAttributeValue union, which this
// layer does not know by type.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

namespace weft::detail {

class stream_attributes {
 public:
  using value = std::array<unsigned char, 64>;

  static stream_attributes& get() {
    static stream_attributes instance;
    return instance;
  }

  // A stream is named by its device and its number there, which is never
  // reused, so a stream created at a destroyed one's address starts with none.
  void set(int device, std::uint64_t stream, int attribute, const value& v) {
    std::lock_guard lock(mutex_);
    values_[{device, stream, attribute}] = v;
  }

  std::optional<value> find(int device, std::uint64_t stream, int attribute) {
    std::lock_guard lock(mutex_);
    auto it = values_.find({device, stream, attribute});
    if (it == values_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::tuple<int, std::uint64_t, int>, value> values_;
};

}  // namespace weft::detail
