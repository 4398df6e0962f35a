// program_porter: the port of a program's files (see program_porter.hpp).
#include "program_porter.hpp"
#include "extern_shared_helper.hpp"
#include "porter.hpp"
#include "scanner.hpp"

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

namespace weft_port_tool {

std::string quote_path(const std::string& path) {
  std::string out = "\"";
  for (char c : path) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

bool is_header(std::string_view path) {
  for (std::string_view ext : {".cuh", ".h", ".hpp", ".hh", ".hxx", ".inl"})
    if (path.ends_with(ext)) return true;
  return false;
}

// What nvcc defines when it compiles a .cu, and a port says it was (see
// docs/porting.md, "The porting step"): __CUDACC__ and CUDA 13.0's version,
// not __NVCC__ (the promise of nvcc's own host-compiler wrapper).
constexpr std::string_view cuda_compiler_macros = R"(#ifndef __CUDACC__
#define __CUDACC__ 1
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#endif
)";

program_porter::program_porter(options o) : o_(std::move(o)) {
  writes_headers_ = !o_.output.empty();
  if (writes_headers_) {
    fs::path input = fs::absolute(o_.input).lexically_normal();
    source_root_ = o_.source_root.empty() ? input.parent_path() : fs::absolute(o_.source_root).lexically_normal();
    port_root_ = o_.port_root.empty() ? fs::absolute(o_.output).lexically_normal().parent_path()
                                      : fs::absolute(o_.port_root).lexically_normal();
  }
}

std::optional<std::string> program_porter::run() {
  fs::path input = fs::absolute(o_.input).lexically_normal();
  if (o_.stackless) {
    include_closure(input, translation_unit_);
    for (const std::string& other : o_.program_sources)
      include_closure(fs::absolute(other).lexically_normal(), elsewhere_);
  }
  program_file& main = port(input, o_.input, true);
  if (failed_) return std::nullopt;
  // Which headers the other sources include decides what converts: a
  // change to one of those must port the input again.
  for (const fs::path& file : elsewhere_)
    if (std::find(read_.begin(), read_.end(), file) == read_.end()) read_.push_back(file);
  if (writes_headers_)
    for (auto& [source, file] : files_)
      if (&file != &main && file.ported && !write_if_changed(port_path(source), file.text)) return std::nullopt;
  if (!o_.depfile.empty() && !write_depfile()) return std::nullopt;
  return main.text;
}

fs::path program_porter::port_path(const fs::path& source) const {
  fs::path relative = source.lexically_relative(source_root_);
  if (relative.empty()) relative = fs::path("__root") / source.relative_path();
  fs::path out = port_root_;
  for (const fs::path& part : relative) out /= part == ".." ? fs::path("__") : part;
  return out;
}

program_file& program_porter::port(const fs::path& source, const std::string& name, bool is_main) {
  program_file& f = files_[source];
  if (f.in_progress || !f.source.empty()) return f;
  f.source = source;
  f.name = name;
  f.in_progress = true;
  read_.push_back(source);
  std::ifstream in(source, std::ios::binary);
  if (!in) {
    std::cerr << "weft-port: cannot read " << name << "\n";
    failed_ = true;
    return f;
  }
  f.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::string_view body = f.text;
  if (body.starts_with("\xEF\xBB\xBF")) body.remove_prefix(3);  // a UTF-8 byte order mark

  porter p(body, quote_path(name));
  bool header = is_header(name);
  // The input's kernels convert, and those of a header that no other source
  // of the program includes: only this port writes that header's port, and
  // only the files this port reads can name its kernels (which
  // why_not_stackless checks). Another source's header, or an included .cu,
  // may be declared `void` or taken by address elsewhere.
  bool header_of_this_unit = header && !is_main && !elsewhere_.contains(source);
  p.convert_stackless = o_.stackless && ((is_main && !header) || header_of_this_unit);
  p.race_check = o_.race_check;
  if (o_.stackless && !p.convert_stackless)
    p.not_converted_here =
        is_main  ? "defined in a header given as the input (only a .cu's kernels and its own headers' convert)"
        : header ? "defined in a header that another source of the program includes too"
                 : "defined in an included .cu (only the ported .cu's own kernels and its own headers' convert)";
  if (p.convert_stackless) p.outside_names = names_in(o_.program_sources);
  if (p.convert_stackless && !is_main) {
    p.in_header = true;
    std::vector<std::string> others;
    for (const fs::path& file : translation_unit_)
      if (file != source) others.push_back(file.string());
    p.names_in_other_files = names_in(others);
    for (const std::string& other : others) {
      std::ifstream in(other, std::ios::binary);
      p.other_files.emplace_back(fs::path(other).lexically_relative(source.parent_path()).generic_string(),
                                 std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
    }
  }
  // A .cu that another includes registers its kernels under names of its own.
  p.registers_headers_void_kernels = is_main && !header;
  p.includer_registers = !is_header(o_.input);
  p.is_header_file = header;
  if (!is_main && !header) {
    p.registration_tag = fs::path(name).stem().string() + "_";
    for (char& c : p.registration_tag)
      if (!is_ident_char(c)) c = '_';
  }
  bool includes_port = false;
  // Header kernels behind a conditional #include: --explain says so once
  // every #include is read, as another header may include theirs unconditionally.
  std::vector<std::pair<int, kernel_decl>> left_out;
  for (const quoted_include& include : p.quoted_includes()) {
    fs::path child = (source.parent_path() / include.path).lexically_normal();
    std::error_code error;
    if (!fs::is_regular_file(child, error)) continue;  // found on the include path, if anywhere
    std::string child_name = (fs::path(name).parent_path() / include.path).lexically_normal().generic_string();
    program_file& c = port(child, child_name, false);
    if (c.in_progress) continue;  // it includes itself, through others
    if (include.conditional && !c.kernels.header_kernels.empty()) {
      // Whether the #if takes the #include is the compiler's to know: a
      // registration of a kernel it leaves out would not compile.
      known_kernels kernels = c.kernels;
      for (const kernel_decl& d : kernels.header_kernels) left_out.push_back({include.line, d});
      kernels.header_kernels.clear();
      p.know(kernels);
    } else {
      p.know(c.kernels);
    }
    includes_port |= c.ported;
    if (!writes_headers_) continue;
    // The port of an #include line must read the port of the file it
    // names, or the file itself where that is not ported.
    fs::path from =
        is_main ? fs::absolute(o_.output).lexically_normal().parent_path() : port_path(source).parent_path();
    if (c.ported) {
      if ((from / include.path).lexically_normal() != port_path(child))
        p.replace_include(include, quote_path(port_path(child).generic_string()));
    } else if (!is_main) {  // a .cu's port finds the files beside it through -iquote
      p.replace_include(include, quote_path(child.generic_string()));
    }
  }

  if (o_.explain && !is_header(o_.input))
    for (const auto& [line, d] : left_out)
      if (!p.knows_header_kernel(d))
        std::cerr << name << ":" << line << ": note: kernel `" << d.name
                  << "` is not registered for launches by address: its header's #include is inside an #if\n";

  std::string rewritten;
  try {
    rewritten = p.run();
  } catch (const port_failure& failure) {
    p.diagnostics.push_back({failure.line, failure.what, true});
  }
  bool failed = false;
  if (o_.explain)
    for (const auto& v : p.stackless_verdicts)
      std::cerr << name << ":" << v.line << ": note: kernel `" << v.kernel << "` "
                << (!v.why_not.empty()     ? "stays on fibers: " + v.why_not
                    : v.no_regions.empty() ? "runs stackless, with a region version"
                                           : "runs stackless (no region version: " + v.no_regions + ")")
                << "\n";
  if (o_.explain && header && !is_main && !is_header(o_.input))
    for (const kernel_decl& d : p.kernels_declared())
      if (d.returns_void && d.defined && d.conditional)
        std::cerr << name << ":" << d.line << ": note: kernel `" << d.name
                  << "` is not registered for launches by address: it is inside an #if, which the .cu's "
                     "registrations after its last line cannot test\n";
  for (const diagnostic& d : p.diagnostics) {
    std::cerr << name << ":" << d.line << ": " << (d.error ? "error: " : "warning: ") << d.what << "\n";
    failed |= d.error;
  }
  // Every rewrite keeps its lines; this guards the line mapping for good.
  std::size_t lines = std::count(rewritten.begin(), rewritten.end(), '\n') - p.added_lines();
  if (!failed && lines != static_cast<std::size_t>(std::count(body.begin(), body.end(), '\n'))) {
    std::cerr << "weft-port: internal error: the output's lines do not match " << name << "'s\n";
    failed = true;
  }
  f.in_progress = false;
  f.kernels = p.kernels();
  if (failed) {
    failed_ = true;
    return f;
  }
  // An included .cu is ported for its registrations too.
  f.ported = is_main || p.rewrote() || includes_port || (!header && !p.registrations().empty());
  if (f.ported && !is_main && writes_headers_ && port_path(source) == source) {
    std::cerr << "weft-port: " << name
              << " needs porting, but its port would replace it: give -o a folder other "
                 "than the source's, or --port-root\n";
    failed_ = true;
    return f;
  }

  // CUDA's runtime header, which nvcc includes in every .cu file: programs
  // test its guard and version macros (__CUDA_RUNTIME_H__, CUDART_VERSION)
  // without including it themselves. A .cu also sees the device functions
  // and variables, which a .cpp's <cuda_runtime.h> leaves out: they are
  // <weft.hpp>'s, which is first so that the precompiled <weft.hpp> serves.
  std::string out = "#include <weft.hpp>\n#include <weft/compat/cuda_runtime.h>\n";
  if (is_main && !header) out += cuda_compiler_macros;
  if (p.converted_kernels()) out += "#include <weft/stackless_kernel.hpp>\n";
  if (!p.region_versions().empty()) out += "#include <weft/region_kernel.hpp>\n";
  if (p.uses_groups()) out += "#include <weft/stackless_groups.hpp>\n";
  if (p.uses_barriers()) out += "#include <weft/stackless_barrier.hpp>\n";
  if (p.uses_pipelines()) out += "#include <weft/stackless_pipeline.hpp>\n";
  if (p.uses_named_barriers()) out += "#include <weft/stackless_named_barriers.hpp>\n";
  if (p.uses_extern_shared_helper) out += extern_shared_helper;
  // The next line is the input's line 1.
  out += "#line 1 " + quote_path(name) + "\n";
  // A header's awaitable versions go inside its include guard, before the
  // #endif that closes it (the file's last directive, so the last line of
  // the port that starts with `#` and `endif`), numbered as its own line.
  std::optional<std::pair<std::size_t, int>> guard_end;
  if (header && (!p.awaitable_functions().empty() || !p.region_versions().empty())) guard_end = p.guard_end();
  std::size_t endif_at = std::string::npos;
  for (std::size_t at = rewritten.size(); guard_end && at-- > 0;) {
    if (at > 0 && rewritten[at - 1] != '\n') continue;
    std::size_t hash = rewritten.find_first_not_of(" \t", at);
    if (hash == std::string::npos || rewritten[hash] != '#') continue;
    std::size_t word = rewritten.find_first_not_of(" \t", hash + 1);
    if (word != std::string::npos && rewritten.compare(word, 5, "endif") == 0) {
      endif_at = at;
      break;
    }
  }
  if (guard_end && endif_at == std::string::npos) {
    std::cerr << "weft-port: internal error: the port of " << name << " lost its include guard's #endif\n";
    failed_ = true;
    return f;
  }
  if (endif_at != std::string::npos) {
    out += rewritten.substr(0, endif_at);
    if (!p.awaitable_functions().empty())
      out +=
          "// weft-port: the awaitable versions of the __device__ functions above that wait, which its stackless\n"
          "// kernels call (each body at its own lines), inside the include guard.\n" +
          p.awaitable_functions();
    if (!out.ends_with('\n')) out += '\n';
    if (!p.region_versions().empty())
      out +=
          "// weft-port: region versions of the stackless kernels whose barriers every thread reaches together:\n"
          "// a loop over the block's threads between barriers (weft/region_kernel.hpp; each body at its own "
          "lines), inside the include guard.\n" +
          p.region_versions();
    if (!out.ends_with('\n')) out += '\n';
    out += "#line " + std::to_string(guard_end->second) + " " + quote_path(name) + "\n";
    out += rewritten.substr(endif_at);
  } else {
    out += rewritten;
  }
  bool appends_awaitables = endif_at == std::string::npos && !p.awaitable_functions().empty();
  bool appends_regions = endif_at == std::string::npos && !p.region_versions().empty();
  if (appends_awaitables || appends_regions) {
    if (!out.ends_with('\n')) out += '\n';
    // The line after the input's last, as the compiler numbers it.
    std::size_t after_input =
        std::count(body.begin(), body.end(), '\n') + (body.empty() || body.ends_with('\n') ? 1 : 2);
    std::size_t appended_from = out.size();
    if (appends_awaitables)
      out +=
          "// weft-port: the awaitable versions of the __device__ functions above that wait, which its stackless\n"
          "// kernels call (each body at its own lines).\n" +
          p.awaitable_functions();
    if (!out.ends_with('\n')) out += '\n';
    if (appends_regions)
      out +=
          "// weft-port: region versions of the stackless kernels whose barriers every thread reaches together:\n"
          "// a loop over the block's threads between barriers (weft/region_kernel.hpp; each body at its own "
          "lines).\n" +
          p.region_versions();
    if (!out.ends_with('\n')) out += '\n';
    // The bodies' #line directives put them at the input's lines; what
    // follows is numbered again as if they had not moved it: past the
    // input's last line by as many lines as weft-port appended, as it is
    // where no function is made awaitable.
    std::size_t appended = std::count(out.begin() + appended_from, out.end(), '\n');
    out += "#line " + std::to_string(after_input + appended + 1) + " " + quote_path(name) + "\n";
  }
  // A header's kernels are registered by the .cu that defines them: a
  // header's registrations would be outside its include guard.
  if (std::string registrations = header ? "" : p.registrations(); !registrations.empty()) {
    if (!out.ends_with('\n')) out += '\n';
    out += "// weft-port: kernels launchable by address, and their __cluster_dims__.\n" + registrations;
  }
  f.text = std::move(out);
  return f;
}

std::set<std::string, std::less<>> program_porter::names_in(const std::vector<std::string>& paths) {
  std::set<std::string, std::less<>> out;
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const token& t : scanner(text).run())
      if (t.k == kind::identifier) out.insert(text.substr(t.begin, t.end - t.begin));
  }
  return out;
}

void program_porter::include_closure(const fs::path& source, std::set<fs::path>& files) {
  if (!files.insert(source).second) return;
  std::ifstream in(source, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  porter p(text, source.string());
  for (const quoted_include& include : p.quoted_includes()) {
    fs::path child = (source.parent_path() / include.path).lexically_normal();
    std::error_code error;
    if (fs::is_regular_file(child, error)) include_closure(child, files);
  }
}

bool program_porter::write_if_changed(const fs::path& path, const std::string& text) {
  {
    std::ifstream old(path, std::ios::binary);
    if (old && std::string(std::istreambuf_iterator<char>(old), std::istreambuf_iterator<char>()) == text) return true;
  }
  return write_file(path, text);
}

bool program_porter::write_file(const fs::path& path, const std::string& text) {
  std::error_code error;
  fs::create_directories(path.parent_path(), error);
  fs::path temporary = path;
  temporary += ".weft-port-" + std::to_string(static_cast<unsigned long>(::getpid()));
  std::ofstream file(temporary, std::ios::binary);
  file << text;
  file.close();
  if (!file || (fs::rename(temporary, path, error), error)) {
    std::cerr << "weft-port: cannot write " << path.string() << "\n";
    fs::remove(temporary, error);
    return false;
  }
  return true;
}

bool program_porter::write_depfile() const {
  auto escape = [](const std::string& path) {
    std::string out;
    for (char c : path) {
      if (c == ' ' || c == '#') out += '\\';
      if (c == '$') out += '$';
      out += c;
    }
    return out;
  };
  std::string rule = escape(o_.output.empty() ? o_.input : o_.output) + ":";
  for (const fs::path& source : read_) rule += " \\\n  " + escape(source.string());
  return write_file(o_.depfile, rule + "\n");
}

}  // namespace weft_port_tool
