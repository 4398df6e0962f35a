// porter: tests of __CUDA_ARCH__, and clock() in device code (see porter.hpp).
#include "porter.hpp"

#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft_port_tool {

std::string_view porter::text_of(std::size_t i) const { return src_.substr(t_[i].begin, t_[i].end - t_[i].begin); }

std::vector<porter::conditional_group> porter::conditional_groups() const {
  std::vector<conditional_group> done, open;
  for (std::size_t i = 0; i < t_.size(); ++i) {
    if (t_[i].k != kind::directive || t_[i].define != 0) continue;
    std::string_view d = text_of(i);
    std::string_view name = directive_name(d, directive_tokens(d));
    if (name == "if" || name == "ifdef" || name == "ifndef") {
      open.push_back({{i}});
    } else if (!open.empty() && (name == "elif" || name == "elifdef" || name == "elifndef" || name == "else")) {
      open.back().directives.push_back(i);
    } else if (!open.empty() && name == "endif") {
      open.back().directives.push_back(i);
      done.push_back(std::move(open.back()));
      open.pop_back();
    }
  }
  return done;
}

void porter::find_arch_tests() {
  auto device_directive = [&](std::size_t i) {
    construct c{};
    c.kind = construct_kind::text;
    c.begin = t_[i].begin;
    c.end = t_[i].end;
    c.text = directive_in_view(text_of(i), arch_view::device);
    constructs_.push_back(c);
  };
  auto dual_directive = [&](std::size_t i, std::string device_text) {
    construct c{};
    c.kind = construct_kind::arch;
    c.begin = t_[i].begin;
    c.end = t_[i].end;
    c.text = std::move(device_text);
    constructs_.push_back(c);
  };
  std::set<std::size_t> dual_bodies;
  for (std::size_t i = 0; i < t_.size(); ++i) {
    if (t_[i].define != 0 || !(is(i, cuda_arch) || t_[i].k == kind::directive)) continue;
    if (t_[i].k == kind::directive && !tests_cuda_arch(text_of(i))) continue;
    const scope_info& where = scope_[i];
    if (where.where == space::device) {
      if (t_[i].k == kind::directive)
        device_directive(i);
      else
        constructs_.push_back(replacement(i, std::string(cuda_arch_value)));
    } else if (where.where == space::dual) {
      dual_bodies.insert(where.dual_open);
      dual_directive(i, t_[i].k == kind::directive ? directive_in_view(text_of(i), arch_view::device)
                                                   : std::string(cuda_arch_value));
    }
  }
  for (const conditional_group& g : conditional_groups()) {
    std::size_t first = g.directives.front();
    bool arch = std::any_of(g.directives.begin(), g.directives.end(),
                            [&](std::size_t d) { return tests_cuda_arch(text_of(d)); });
    if (!arch) continue;
    if (scope_[first].where == space::file)
      file_scope_group(g, device_directive);
    else if (scope_[first].kernel)
      warn_if_kernel_code_left_out(g);
  }
  for (std::size_t open : dual_bodies) {
    auto close = match_forward(open);
    if (!close) fail(open, "a __host__ __device__ function's body has no closing `}`");
    construct c{};
    c.kind = construct_kind::dual_body;
    c.begin = t_[open].end;
    c.end = t_[*close].begin;
    constructs_.push_back(c);
  }
}

porter::construct porter::replacement(std::size_t i, std::string with) const {
  construct c{};
  c.kind = construct_kind::text;
  c.begin = t_[i].begin;
  c.end = t_[i].end;
  c.text = std::move(with);
  return c;
}

void porter::find_device_clock_calls() {
  for (std::size_t i = 1; i + 2 < t_.size(); ++i) {
    if (t_[i].define != 0 || !is(i, "clock") || !is(i + 1, "(") || !is(i + 2, ")")) continue;
    if (is(i - 1, ".") || is(i - 1, "->") || is(i - 1, "::") || (is_identifier(i - 1) && !is_keyword(i - 1))) continue;
    space where = scope_[i].where;
    if (where == space::device || where == space::dual)
      constructs_.push_back(replacement(i, "weft::detail::clock_as_called"));
  }
}

template <class DeviceDirective>
void porter::file_scope_group(const conditional_group& g, DeviceDirective& device_directive) {
  // Where both views read each test alike, there is nothing to choose.
  bool same = true;
  for (std::size_t d : g.directives) {
    std::string_view dt = text_of(d);
    if (!tests_cuda_arch(dt)) continue;
    auto device = condition_evaluator(dt, arch_view::device).run();
    auto host = condition_evaluator(dt, arch_view::host).run();
    same &= device && host && *device == *host;
  }
  if (same) return;
  // What the group guards: code in host functions, and device code (a
  // function's body, or a declaration with __global__ or __device__).
  bool host = false, device = false;
  for (std::size_t k = g.directives.front() + 1; k < g.directives.back(); ++k) {
    if (t_[k].define != 0 || t_[k].k == kind::directive) continue;
    space where = scope_[k].where;
    host |= where == space::host || where == space::dual || (qualifier(k) & qualifier_host);
    device |= where == space::device || where == space::dual || (qualifier(k) & (qualifier_device | qualifier_global));
  }
  if (host && device) {
    diagnostics.push_back(
        {t_[g.directives.front()].line,
         "this conditional tests __CUDA_ARCH__ around both host and device code, and the two read it "
         "differently: weft compiles the file once, so it cannot give each its own view; test __CUDA_ARCH__ "
         "inside the functions instead (a __host__ __device__ function may: weft compiles its body in both views)",
         true});
    return;
  }
  if (host) return;  // the host view: __CUDA_ARCH__ stays undefined
  for (std::size_t d : g.directives)
    if (tests_cuda_arch(text_of(d))) device_directive(d);
}

void porter::warn_if_kernel_code_left_out(const conditional_group& g) {
  std::size_t last = g.directives.size() - 1;
  for (std::size_t n = 0; n < last; ++n) {
    std::string_view d = text_of(g.directives[n]);
    std::string_view name = directive_name(d, directive_tokens(d));
    if (name == "else") return;
    auto device = condition_evaluator(d, arch_view::device).run();
    auto host = condition_evaluator(d, arch_view::host).run();
    if (!device || *device || !host || *host) return;
  }
  std::size_t from = g.directives.front(), to = g.directives.back();
  bool code = false;
  for (std::size_t k = from + 1; k < to; ++k) code |= t_[k].k != kind::directive;
  if (!code) return;
  diagnostics.push_back({t_[from].line,
                         "this test of __CUDA_ARCH__ leaves lines " + std::to_string(t_[from].line + 1) + "-" +
                             std::to_string(t_[to].line - 1) +
                             " out of a kernel: weft compiles device code as nvcc -arch=sm_90 does "
                             "(__CUDA_ARCH__ == 900)",
                         false});
}

}  // namespace weft_port_tool
