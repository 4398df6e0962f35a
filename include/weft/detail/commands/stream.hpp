// A stream: an in-order queue of commands on one device. cudaStream_t is a
// pointer to one (CUDA leaves CUstream_st opaque, so weft defines it).
//
// Only the stream's last command is kept: each new command depends on it, so
// the chain of dependencies is the queue. Whether the stream synchronises
// with the legacy default stream is its `blocking` property (CUDA guide,
// "Default Stream" and "Implicit Synchronization").
#pragma once

#include <cstdint>
#include <memory>

#include "weft/detail/commands/command.hpp"

struct CUstream_st {
  int device = 0;
  unsigned flags = 0;  // cudaStreamDefault or cudaStreamNonBlocking
  int priority = 0;    // lower is more urgent, as in CUDA
  std::uint64_t id = 0;
  bool legacy = false;  // the device's NULL stream
  // Created by a kernel (dynamic parallelism's named streams): launches
  // into it from the device are children of the launching grid.
  bool device_created = false;

  bool blocking() const { return !legacy && (flags & 1u) == 0; }

  // Guarded by the device's command graph.
  std::shared_ptr<weft::detail::command> last;
  bool destroyed = false;
};
