// The __global__ functions a file declares, and those it knows from its includes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace weft_port_tool {

// `k` of `ns::k`.
inline std::string bare_name(std::string_view qualified) {
  std::size_t colons = qualified.rfind("::");
  return std::string(colons == std::string_view::npos ? qualified : qualified.substr(colons + 2));
}

// How a rewritten launch passes its kernel (see porter::kernel_form).
enum class launch_kernel { value, compiled, deduced };

// A __global__ function declared at namespace scope.
struct kernel_decl {
  std::string name;          // qualified by its namespaces
  std::string signature;     // its parameter types (see signature())
  std::string cluster_dims;  // __cluster_dims__'s arguments, padded to three; empty if none
  bool default_arguments;    // a launch may leave some arguments out
  bool returns_void = true;  // false: written as a stackless kernel (weft::stackless_kernel)
  bool defined = false;      // a definition, not only a declaration
  bool conditional = false;  // inside an #if other than the include guard (see porter::inside_conditional)
  int line = 0;
};

// The kernels a file declares, and those of the files it includes: how its
// launches may name them (see porter::kernel_form).
struct known_kernels {
  std::vector<kernel_decl> kernels;
  // Names of template __global__ functions: a launch that names one without
  // template arguments lets the arguments pick them.
  std::set<std::string, std::less<>> templates;
  std::set<std::string, std::less<>> with_default_arguments;  // of the templates
  // The most template parameters a template of that name declares: a launch
  // that names fewer template arguments leaves the rest to deduction.
  std::map<std::string, std::size_t, std::less<>> template_parameters;
  // For stackless kernels (porter::find_stackless_kernels): the functions and
  // macros defined there whose bodies never wait, those that may, the type
  // names, and whether an operator, constructor or member function waits.
  std::set<std::string, std::less<>> never_wait, may_wait, type_names;
  std::set<std::string, std::less<>> wait_themselves;     // of may_wait: a barrier or collective in the body
  std::map<std::string, std::string, std::less<>> spins;  // of may_wait: where and how its body spins
  bool a_member_waits = false;
  bool includes_half = false;  // #include <cuda_fp16.h> or <cuda_bf16.h>
  // Kernels of an included header that stay void kernels forwarding to a
  // stackless body (see porter::void_kernel_body): the .cu registers them,
  // a header's registrations being outside its include guard.
  std::vector<kernel_decl> void_converted;
  // Kernels that the headers define (templates and those inside an #if
  // aside), which the .cu that includes them registers after its last line,
  // as nvcc's generated code registers every kernel of the translation unit.
  std::vector<kernel_decl> header_kernels;

  void add(const known_kernels& other) {
    never_wait.insert(other.never_wait.begin(), other.never_wait.end());
    may_wait.insert(other.may_wait.begin(), other.may_wait.end());
    wait_themselves.insert(other.wait_themselves.begin(), other.wait_themselves.end());
    spins.insert(other.spins.begin(), other.spins.end());
    type_names.insert(other.type_names.begin(), other.type_names.end());
    a_member_waits |= other.a_member_waits;
    includes_half |= other.includes_half;
    void_converted.insert(void_converted.end(), other.void_converted.begin(), other.void_converted.end());
    header_kernels.insert(header_kernels.end(), other.header_kernels.begin(), other.header_kernels.end());
    kernels.insert(kernels.end(), other.kernels.begin(), other.kernels.end());
    templates.insert(other.templates.begin(), other.templates.end());
    for (const auto& [name, count] : other.template_parameters)
      template_parameters[name] = std::max(template_parameters[name], count);
    with_default_arguments.insert(other.with_default_arguments.begin(), other.with_default_arguments.end());
  }
};

}  // namespace weft_port_tool
