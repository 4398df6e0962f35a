// The host machine a simulated device stands for: its memory, which is the
// devices' global memory, and its CPU's name, which goes into the devices'
// names.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <fstream>
#include <string>

namespace weft::detail {

/// The host's physical memory, which is the device's global memory.
inline std::size_t physical_memory_bytes() {
  return static_cast<std::size_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

inline std::size_t available_memory_bytes() {
  return static_cast<std::size_t>(::sysconf(_SC_AVPHYS_PAGES)) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

/// The host CPU's model name, where /proc/cpuinfo gives one.
inline std::string host_cpu_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) break;
    auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
  }
  return {};
}

/// What the devices' descriptions need of the host, read once: it does not
/// change while the program runs, and reading /proc/cpuinfo costs a file's
/// parse.
struct host_description {
  std::string cpu_name;
  std::size_t physical_memory;
};

inline const host_description& this_host() {
  static const host_description host{host_cpu_name(), physical_memory_bytes()};
  return host;
}

}  // namespace weft::detail
