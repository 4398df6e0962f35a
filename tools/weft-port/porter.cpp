// porter's interface: the port of one file, what it found, and the registrations written after its last line (see
// porter.hpp).
#include "porter.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft_port_tool {

porter::porter(std::string_view src, std::string file) : src_(src), file_(std::move(file)) {
  for (const token& t : scanner(src).run())
    if (t.k != kind::space && t.k != kind::comment) t_.push_back(t);
  // A #define's head (`#define NAME(params)`) is no part of its body: its
  // tokens get their own number, so no construct reaches into it.
  for (std::size_t i = 0; i < t_.size(); ++i) {
    if (t_[i].define == 0 || !is(i, "#") || (i > 0 && t_[i - 1].define == t_[i].define)) continue;
    int id = t_[i].define;
    std::size_t body = i;
    while (body < i + 3 && body < t_.size() && t_[body].define == id) ++body;  // # define NAME
    if (body < t_.size() && t_[body].define == id && is(body, "(") && adjacent(body - 1))
      if (auto params = match_forward(body)) body = *params + 1;
    for (std::size_t j = i; j < body; ++j) t_[j].define = -id;
    // `#define HD __host__ __device__`, `#define KERNEL(name) __global__ void name()`:
    // the macro qualifies the functions it heads as its body does.
    if (is_identifier(i + 2) && t_[i + 2].define == -id) {
      unsigned qualifiers = 0;
      for (std::size_t j = body; j < t_.size() && t_[j].define == id; ++j) qualifiers |= qualifier(j);
      if (qualifiers) qualifier_macros_.emplace_back(text(i + 2), qualifiers);
    }
  }
}

void porter::know(const known_kernels& included) {
  known_.add(included);
  for (const kernel_decl& d : included.kernels) {
    std::size_t colons = d.name.rfind("::");
    included_kernel_names_.insert(colons == std::string::npos ? d.name : d.name.substr(colons + 2));
  }
  included_kernel_names_.insert(included.templates.begin(), included.templates.end());
}

porter::included_kernel_uses porter::uses_of_included_kernel(std::string_view name, const known_kernels& header) {
  know(header);
  try {
    classify_scopes();
    find_constructs();
  } catch (const port_failure&) {
    return {"where weft-port cannot read it"};
  }
  included_kernel_uses out;
  for (std::size_t i = 0; i < t_.size(); ++i) {
    if (!is(i, name)) continue;
    std::string where = " (line " + std::to_string(t_[i].line) + ")";
    if (t_[i].define != 0) return {"in a macro" + where};
    auto launch = std::find_if(constructs_.begin(), constructs_.end(), [&](const construct& c) {
      return c.kind == construct_kind::launch && c.begin <= t_[i].begin && t_[i].end <= c.kernel_end;
    });
    if (launch != constructs_.end() && launch->kernel_as == launch_kernel::deduced)
      return {"in a launch that leaves template arguments to deduction or default arguments out" + where};
    if (launch != constructs_.end() && launch->kernel_as == launch_kernel::compiled) continue;
    // A void-pointer cast launches by address, which finds the void kernel registered.
    if (launch == constructs_.end() && as_void_pointer(i).first == i && passed_to_runtime_call(i)) continue;
    out.as_value = true;
  }
  return out;
}

bool porter::converted_kernels() const { return !converted_.empty(); }

const std::vector<kernel_decl>& porter::kernels_declared() const { return kernels_; }

bool porter::knows_header_kernel(const kernel_decl& d) const {
  return std::any_of(known_.header_kernels.begin(), known_.header_kernels.end(),
                     [&](const kernel_decl& e) { return e.name == d.name && e.signature == d.signature; });
}

known_kernels porter::kernels() const {
  known_kernels out = known_;
  out.kernels.insert(out.kernels.end(), kernels_.begin(), kernels_.end());
  for (const kernel_decl& d : kernels_) {
    if (void_kernels_converted_.contains(bare_name(d.name))) out.void_converted.push_back(d);
    // A prototype's kernel is registered where it is defined; one inside an
    // #if, by a pass that may not compile it, is left to the user.
    if (is_header_file && d.returns_void && d.defined && !d.conditional) out.header_kernels.push_back(d);
  }
  return out;
}

std::vector<quoted_include> porter::quoted_includes() const {
  std::vector<quoted_include> out;
  for (std::size_t i = 0; i < t_.size(); ++i) {
    const token& t = t_[i];
    if (t.k != kind::directive || t.define != 0) continue;
    std::string_view d = src_.substr(t.begin, t.end - t.begin);
    auto tokens = directive_tokens(d);
    if (directive_name(d, tokens) != "include") continue;
    std::size_t open = d.find_first_not_of(" \t", tokens[1].end);
    if (open == std::string_view::npos || d[open] != '"') continue;
    std::size_t close = d.find('"', open + 1);
    if (close == std::string_view::npos) continue;
    out.push_back({std::string(d.substr(open + 1, close - open - 1)), t.begin + open, t.begin + close + 1, t.line,
                   inside_conditional(i)});
  }
  return out;
}

void porter::replace_include(const quoted_include& include, const std::string& quoted_path) {
  construct c{};
  c.kind = construct_kind::text;
  c.begin = include.begin;
  c.end = include.end;
  c.text = quoted_path;
  constructs_.push_back(c);
}

bool porter::rewrote() const { return rewrites_ > 0; }

std::size_t porter::added_lines() const { return added_lines_; }

std::string porter::registrations() const {
  std::string out;
  std::set<std::string, std::less<>> void_kernels_registered;
  for (std::size_t k = 0; k < kernels_.size(); ++k) {
    const kernel_decl& d = kernels_[k];
    // A kernel the file itself writes stackless is weft's native API, not
    // CUDA's: nothing launches it by address as nvcc's registration would.
    if (!d.returns_void) continue;
    std::string n = registration_tag + std::to_string(k);
    std::string bare = bare_name(d.name);
    // A prototype of a header's kernel that forwards to a stackless body:
    // registered with its body below.
    if (registers_headers_void_kernels && std::any_of(known_.void_converted.begin(), known_.void_converted.end(),
                                                      [&](const kernel_decl& v) { return v.name == d.name; }))
      continue;
    if (void_kernels_converted_.contains(bare)) {
      // k stays void, its launches by address run the stackless body. C has
      // no overloads, and an overloaded kernel stays on fibers: a prototype
      // spelled otherwise is k again.
      if (void_kernels_registered.insert(d.name).second) out += void_kernel_registration(d, n);
      continue;
    }
    // On fibers, or made stackless (launched by address as it was, a
    // cooperative launch say, its __cluster_dims__ shaping its launches).
    out += kernel_registration(d, n);
  }
  if (!registers_headers_void_kernels) return out;
  for (std::size_t k = 0; k < known_.void_converted.size(); ++k)
    if (void_kernels_registered.insert(known_.void_converted[k].name).second)
      out += void_kernel_registration(known_.void_converted[k], "header_" + std::to_string(k));
  // The headers' other kernels, but those registered above: the .cu's own
  // declarations, and a header that two of the .cu's files include.
  std::set<std::string, std::less<>> registered;
  for (const kernel_decl& d : kernels_)
    if (d.returns_void) registered.insert(d.name + "(" + d.signature + ")");
  for (std::size_t k = 0; k < known_.header_kernels.size(); ++k) {
    const kernel_decl& d = known_.header_kernels[k];
    if (void_kernels_registered.contains(d.name) || !registered.insert(d.name + "(" + d.signature + ")").second)
      continue;
    out += kernel_registration(d, "included_" + std::to_string(k));
  }
  return out;
}

std::string porter::kernel_registration(const kernel_decl& d, const std::string& n) const {
  // An overloaded name needs the parameter types to pick one (an
  // overloaded kernel stays on fibers, so its type is void's).
  auto other_signature = [&](const kernel_decl& e) { return e.name == d.name && e.signature != d.signature; };
  bool overloaded = std::any_of(kernels_.begin(), kernels_.end(), other_signature) ||
                    (registers_headers_void_kernels &&
                     std::any_of(known_.header_kernels.begin(), known_.header_kernels.end(), other_signature));
  std::string address = overloaded ? "static_cast<void (*)(" + d.signature + ")>(&" + d.name + ")" : "&" + d.name;
  return registration_lines(n, address, address, d.cluster_dims);
}

std::string porter::void_kernel_registration(const kernel_decl& d, const std::string& n) {
  std::size_t colons = d.name.rfind("::");
  std::string body =
      d.name.substr(0, colons == std::string::npos ? 0 : colons + 2) + "weft_port_stackless_" + bare_name(d.name);
  return registration_lines(n, "&" + d.name + ", &" + body, "&" + d.name, d.cluster_dims);
}

std::string porter::registration_lines(const std::string& n, const std::string& kernel_arguments,
                                       const std::string& address, const std::string& cluster_dims) {
  std::string out = "[[maybe_unused]] static const bool weft_port_kernel_" + n + " = weft::register_kernel<" +
                    kernel_arguments + ">();\n";
  if (!cluster_dims.empty())
    out += "[[maybe_unused]] static const bool weft_port_cluster_" + n + " = weft::detail::register_cluster_dims(" +
           address + ", " + cluster_dims + ");\n";
  return out;
}

std::string porter::run() {
  std::size_t include_rewrites = constructs_.size();
  classify_scopes();
  find_constructs();
  pass_included_void_kernels_as_values();
  find_arch_tests();
  find_device_clock_calls();
  find_inline_ptx();
  find_stackless_kernels();
  rewrites_ = constructs_.size() - include_rewrites;
  std::sort(constructs_.begin(), constructs_.end(), [](const construct& a, const construct& b) {
    return a.begin < b.begin || (a.begin == b.begin && a.end > b.end);
  });
  std::string out = render(0, src_.size(), std::nullopt);
  awaitable_functions_ = render_awaitable_functions();
  return out;
}

const std::string& porter::awaitable_functions() const { return awaitable_functions_; }

const std::string& porter::region_versions() const { return region_versions_; }

std::optional<std::pair<std::size_t, int>> porter::guard_end() const { return include_guard_end(); }

bool porter::uses_groups() const { return uses_groups_; }

bool porter::uses_barriers() const { return uses_barriers_; }

bool porter::uses_pipelines() const { return uses_pipelines_; }

bool porter::uses_named_barriers() const { return uses_named_barriers_; }

}  // namespace weft_port_tool
