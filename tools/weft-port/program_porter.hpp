// program_porter: ports the input and the files it includes, and writes the output.
//
// The output begins with `#include <weft.hpp>` and
// `#include <weft/compat/cuda_runtime.h>`, as nvcc includes cuda_runtime.h
// with its device declarations in every .cu file (and, when needed, the small
// helper the namespace-scope form uses), then `#line 1 "in.cu"`. Every
// rewrite keeps the newlines of the text it replaces, so from there on line N
// of the input is the output's line N as the compiler counts, and errors point
// at the original file and line.
#pragma once

#include "kernels.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace weft_port_tool {

namespace fs = std::filesystem;

struct options {
  std::string input, output, source_root, port_root, depfile;
  bool stackless = true;                     // --no-stackless turns the conversion off
  bool explain = false;                      // --explain: says per kernel whether it converts, and why not
  bool race_check = false;                   // --race-check: for a race-check build (untraced_shared_reads.hpp)
  std::vector<std::string> program_sources;  // --program-source: the program's other sources
};

// One file of the program: the input, or a file it includes.
struct program_file {
  fs::path source;   // absolute
  std::string name;  // as the #line directives spell it
  std::string text;  // the source, then the port
  bool in_progress = false;
  bool ported = false;  // changed by the port, or includes a file that is
  known_kernels kernels;
};

// Ports the input and follows its #include "..." lines.
class program_porter {
 public:
  explicit program_porter(options o);

  // The input's port, or nullopt after the errors are reported.
  std::optional<std::string> run();

 private:
  options o_;
  bool writes_headers_ = false;
  fs::path source_root_, port_root_;
  std::map<fs::path, program_file> files_;
  std::vector<fs::path> read_;  // every file read, in order, for the depfile
  bool failed_ = false;
  // The files the input includes with #include "...", transitively, itself
  // among them; and those the program's other sources include so.
  std::set<fs::path> translation_unit_, elsewhere_;

  // Where the port of an included file goes: at its place below the source
  // root, `..` spelled `__` so that the ports stay below the port root.
  fs::path port_path(const fs::path& source) const;

  program_file& port(const fs::path& source, const std::string& name, bool is_main);

  // The identifiers of the given files, such as the program's other sources (--program-source).
  static std::set<std::string, std::less<>> names_in(const std::vector<std::string>& paths);

  // Adds `source` and what it includes with #include "..." (found beside the
  // file that includes it, as port() finds it), transitively, to `files`.
  static void include_closure(const fs::path& source, std::set<fs::path>& files);

  // Writes through a temporary file, so that a build that ports two files
  // including the same header at once never reads half a port; leaves an
  // unchanged port alone, so that what includes it is not rebuilt.
  static bool write_if_changed(const fs::path& path, const std::string& text);

 public:
  static bool write_file(const fs::path& path, const std::string& text);

 private:
  bool write_depfile() const;
};

}  // namespace weft_port_tool
