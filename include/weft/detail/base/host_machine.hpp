// The host machine a simulated device stands for: its memory, which is the
// devices' global memory, and its CPU's name, which goes into the devices'
// names.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace weft::detail {

/// The host's physical memory, which is the device's global memory.
inline std::size_t physical_memory_bytes() {
  return static_cast<std::size_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

inline std::size_t available_memory_bytes() {
  return static_cast<std::size_t>(::sysconf(_SC_AVPHYS_PAGES)) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

/// The host CPU's model name, where /proc/cpuinfo gives one. Read with stdio
/// rather than <fstream>, which every program would parse and compile for
/// these few lines (docs/performance.md, "Compile time").
inline std::string host_cpu_name() {
  std::FILE* cpuinfo = std::fopen("/proc/cpuinfo", "r");
  if (!cpuinfo) return {};
  std::string name;
  char* line = nullptr;
  std::size_t capacity = 0;
  for (ssize_t length; (length = ::getline(&line, &capacity, cpuinfo)) >= 0;) {
    std::string_view text(line, static_cast<std::size_t>(length));
    if (text.ends_with('\n')) text.remove_suffix(1);
    if (!text.starts_with("model name")) continue;
    auto colon = text.find(':');
    if (colon == text.npos) break;
    auto start = text.find_first_not_of(" \t", colon + 1);
    if (start != text.npos) name = text.substr(start);
    break;
  }
  std::free(line);
  std::fclose(cpuinfo);
  return name;
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
