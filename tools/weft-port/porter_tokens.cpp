// porter's token tests, and where each token is: host, device or __host__ __device__ code (see porter.hpp).
#include "one_of.hpp"
#include "porter.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace weft_port_tool {

std::string_view porter::text(std::size_t i) const { return src_.substr(t_[i].begin, t_[i].end - t_[i].begin); }

bool porter::is(std::size_t i, std::string_view s) const {
  return i < t_.size() && (t_[i].k == kind::punct || t_[i].k == kind::identifier) && text(i) == s;
}

bool porter::is_identifier(std::size_t i) const { return i < t_.size() && t_[i].k == kind::identifier; }

bool porter::adjacent(std::size_t i) const { return i + 1 < t_.size() && t_[i].end == t_[i + 1].begin; }

bool porter::is_opener(std::size_t i) const { return is(i, "(") || is(i, "[") || is(i, "{"); }

bool porter::is_closer(std::size_t i) const { return is(i, ")") || is(i, "]") || is(i, "}"); }

bool porter::is_keyword(std::size_t i) const {
  static constexpr std::string_view words[] = {
      "return", "else",     "do",       "case",    "throw",    "co_return", "co_yield", "co_await",
      "new",    "delete",   "sizeof",   "alignof", "decltype", "noexcept",  "if",       "while",
      "for",    "switch",   "goto",     "typeid",  "and",      "or",        "not",      "static_assert",
      "const",  "volatile", "operator", "typedef", "using",    "template",  "typename", "static",
      "extern", "inline",   "auto",     "void",    "int",      "char",      "float",    "double"};
  return is_identifier(i) && one_of(words, text(i));
}

std::size_t porter::run_of(std::size_t i, std::string_view c) const {
  std::size_t n = 0;
  while (is(i + n, c) && (n == 0 || adjacent(i + n - 1))) ++n;
  return n;
}

bool porter::spaced(std::size_t i) const {
  if (i + 1 >= t_.size() || t_[i].define != t_[i + 1].define) return false;
  std::string_view between = src_.substr(t_[i].end, t_[i + 1].begin - t_[i].end);
  return std::all_of(between.begin(), between.end(), [](char c) { return is_blank(c) || c == '\n'; });
}

std::size_t porter::spaced_run_of(std::size_t i, std::string_view c) const {
  std::size_t n = 0;
  while (is(i + n, c) && (n == 0 || spaced(i + n - 1))) ++n;
  return n;
}

unsigned porter::qualifier(std::size_t i) const {
  if (!is_identifier(i)) return 0;
  std::string_view word = text(i);
  if (word == "__global__") return qualifier_global;
  if (word == "__device__") return qualifier_device;
  if (word == "__host__") return qualifier_host;
  for (const auto& [name, qualifiers] : qualifier_macros_)
    if (name == word) return qualifiers;
  return 0;
}

std::optional<std::size_t> porter::match_forward(std::size_t i) const {
  int depth = 0;
  for (std::size_t j = i; j < t_.size() && t_[j].define == t_[i].define; ++j) {
    if (is_opener(j)) ++depth;
    if (is_closer(j) && --depth == 0) return j;
  }
  return std::nullopt;
}

std::optional<std::size_t> porter::match_backward(std::size_t i) const {
  int depth = 0;
  for (std::size_t j = i + 1; j-- > 0 && t_[j].define == t_[i].define;) {
    if (is_closer(j)) ++depth;
    if (is_opener(j) && --depth == 0) return j;
  }
  return std::nullopt;
}

std::optional<std::size_t> porter::match_angle_backward(std::size_t i) const {
  int depth = 0;
  for (std::size_t j = i + 1; j-- > 0 && t_[j].define == t_[i].define;) {
    if (is_closer(j)) {
      auto open = match_backward(j);
      if (!open) return std::nullopt;
      j = *open;
    } else if (is_opener(j) || is(j, ";")) {
      return std::nullopt;
    } else if (is(j, ">")) {
      ++depth;
    } else if (is(j, "<") && --depth == 0) {
      return j;
    }
  }
  return std::nullopt;
}

porter::brace_head porter::head_of(std::size_t brace) const {
  brace_head h;
  // A body follows `)` (past const, noexcept, ...), a lambda's `]`, or a
  // trailing return type.
  static constexpr std::string_view trailing[] = {"const",   "volatile", "noexcept", "override", "final",
                                                  "mutable", "&",        "&&",       "throw",    "__restrict__"};
  std::size_t k = brace;
  while (k > 0) {
    --k;
    if (t_[k].define != 0 || t_[k].k == kind::directive) continue;
    if (one_of(trailing, text(k)) || qualifier(k)) continue;
    if (is(k, ")") || is(k, "]")) {
      auto open = match_backward(k);
      if (open && *open > 0 &&
          (is(*open - 1, "noexcept") || is(*open - 1, "throw") || is(*open - 1, "__attribute__") ||
           is(*open - 1, "__launch_bounds__") || (is(k, "]") && is(*open + 1, "[")))) {
        k = *open;
        continue;
      }
      h.function = true;
    }
    break;
  }
  bool class_key = false;
  for (std::size_t j = brace; j > 0;) {
    --j;
    if (t_[j].define != 0 || t_[j].k == kind::directive) continue;
    if (is(j, ";") || is(j, "{")) break;
    if (is(j, "}")) {
      // A member initialised with braces, `: x{a}, y{b} {`, is part of the head.
      auto open = match_backward(j);
      if (open && *open >= 2 && (is_identifier(*open - 1) || is(*open - 1, ">")) &&
          (is(*open - 2, ",") || is(*open - 2, ":"))) {
        j = *open;
        continue;
      }
      break;
    }
    if (is(j, ")") || is(j, "]")) {
      auto open = match_backward(j);
      if (!open) break;
      j = *open;
      continue;
    }
    if (is(j, ":") && j > 0 && (is(j - 1, "public") || is(j - 1, "private") || is(j - 1, "protected"))) break;
    if (is(j, "->")) h.function = true;  // a trailing return type
    if (is(j, "struct") || is(j, "class") || is(j, "union") || is(j, "enum")) class_key = true;
    h.qualifiers |= qualifier(j);
  }
  h.type = class_key && !h.function;
  return h;
}

void porter::classify_scopes() {
  scope_.assign(t_.size(), scope_info{});
  std::vector<scope_info> open;  // the enclosing braces
  for (std::size_t i = 0; i < t_.size(); ++i) {
    scope_info here = open.empty() ? scope_info{} : open.back();
    if (t_[i].define != 0) {
      scope_[i] = here;
      continue;
    }
    if (is(i, "{")) {
      scope_info inner = here;
      if (opens_namespace(i)) {
        inner = scope_info{};
      } else if (brace_head h = head_of(i); h.function) {
        bool device_only = (h.qualifiers & qualifier_global) ||
                           ((h.qualifiers & qualifier_device) && !(h.qualifiers & qualifier_host));
        if (here.where == space::file || here.where == space::host) {
          if (device_only) {
            inner.where = space::device;
            inner.kernel = h.qualifiers & qualifier_global;
          } else if (h.qualifiers & qualifier_device) {
            inner.where = space::dual;
            inner.dual_open = i;
          } else {
            inner.where = space::host;
          }
        } else if (here.where == space::dual && device_only) {
          inner.where = space::device;
        }
      } else if (h.type && here.where == space::host) {
        inner.where = space::file;  // a class in a host function: its members are what they say
      }
      open.push_back(inner);
      scope_[i] = inner;
      continue;
    }
    scope_[i] = here;
    if (is(i, "}") && !open.empty()) open.pop_back();
  }
}

}  // namespace weft_port_tool
