// Preprocessor conditionals that test __CUDA_ARCH__.
#pragma once

#include "scanner.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft_port_tool {

// ---- preprocessor conditionals that test __CUDA_ARCH__ ----
//
// nvcc compiles a .cu twice: the device pass with __CUDA_ARCH__ set (900 for
// sm_90) and the host pass without it. weft compiles once, so weft-port gives
// each conditional that tests it the view of the pass that would compile the
// code it guards (see porter::classify_scopes and docs/porting.md).

enum class arch_view { device, host };
inline constexpr std::string_view cuda_arch = "__CUDA_ARCH__";
inline constexpr std::string_view cuda_arch_value = "900";  // sm_90, the GPU weft behaves as

// A token of a directive's text: an identifier, a number or a punctuator.
struct directive_token {
  std::size_t begin, end;  // within the directive's text
  bool identifier;
};

// Splits a directive's text (`#if defined(X) && Y >= 2 // note`) into
// tokens, without its comments, line splices and literals.
std::vector<directive_token> directive_tokens(std::string_view d);

// The directive's name: `if`, `ifdef`, `elif`, `define`, ... ("" if none).
std::string_view directive_name(std::string_view d, const std::vector<directive_token>& tokens);

bool is_conditional(std::string_view name);

bool tests_cuda_arch(std::string_view d);

// The directive as one view sees it: __CUDA_ARCH__ replaced by its value
// there, `defined(__CUDA_ARCH__)` by 1 or 0, `#ifdef __CUDA_ARCH__` as `#if 1`.
// Everything else, line splices included, is kept.
std::string directive_in_view(std::string_view d, arch_view view);

// Evaluates a conditional directive's condition in one view, as far as it
// can be known: identifiers other than __CUDA_ARCH__ (and __CUDACC__, which
// a port defines) are unknown, and so is anything that depends on them.
class condition_evaluator {
 public:
  using value = std::optional<long long>;

  condition_evaluator(std::string_view d, arch_view view);

  value run();

 private:
  std::string_view d_;
  std::vector<directive_token> t_;
  arch_view view_;
  std::size_t i_ = 0;

  std::string_view text(std::size_t k) const;
  bool accept(std::string_view op);
  value defined(std::string_view name) const;

  value conditional();
  value logical_or();
  value logical_and();
  // Binary operators by precedence level, loosest first.
  value binary(int level);
  value unary();
  value primary();
};

}  // namespace weft_port_tool
