// Preprocessor conditionals that test __CUDA_ARCH__ (see arch_conditionals.hpp).
#include "arch_conditionals.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft_port_tool {

std::vector<directive_token> directive_tokens(std::string_view d) {
  std::vector<directive_token> out;
  std::size_t i = 0;
  while (i < d.size()) {
    char c = d[i];
    if (is_blank(c) || c == '\n' || c == '\\') {
      ++i;
    } else if (c == '/' && i + 1 < d.size() && d[i + 1] == '/') {
      break;
    } else if (c == '/' && i + 1 < d.size() && d[i + 1] == '*') {
      std::size_t end = d.find("*/", i + 2);
      i = end == std::string_view::npos ? d.size() : end + 2;
    } else if (c == '"' || c == '\'') {
      std::size_t j = i + 1;
      while (j < d.size() && d[j] != c) j += d[j] == '\\' ? 2 : 1;
      i = j + 1;
    } else if (is_ident_char(c)) {
      std::size_t j = i;
      while (j < d.size() && is_ident_char(d[j])) ++j;
      out.push_back({i, j, !is_digit(c)});
      i = j;
    } else {
      // Two-character operators the evaluator needs whole.
      static constexpr std::string_view pairs[] = {"&&", "||", "==", "!=", "<=", ">=", "<<", ">>"};
      std::size_t n = 1;
      for (std::string_view p : pairs)
        if (d.substr(i, 2) == p) n = 2;
      out.push_back({i, i + n, false});
      i += n;
    }
  }
  return out;
}

std::string_view directive_name(std::string_view d, const std::vector<directive_token>& tokens) {
  if (tokens.size() < 2 || d.substr(tokens[0].begin, 1) != "#" || !tokens[1].identifier) return {};
  return d.substr(tokens[1].begin, tokens[1].end - tokens[1].begin);
}

bool is_conditional(std::string_view name) {
  return name == "if" || name == "elif" || name == "ifdef" || name == "ifndef" || name == "elifdef" ||
         name == "elifndef";
}

bool tests_cuda_arch(std::string_view d) {
  auto tokens = directive_tokens(d);
  if (!is_conditional(directive_name(d, tokens))) return false;
  return std::any_of(tokens.begin(), tokens.end(),
                     [&](const directive_token& t) { return d.substr(t.begin, t.end - t.begin) == cuda_arch; });
}

std::string directive_in_view(std::string_view d, arch_view view) {
  auto tokens = directive_tokens(d);
  std::string_view name = directive_name(d, tokens);
  bool device = view == arch_view::device;
  std::string out;
  std::size_t pos = 0;
  auto replace = [&](std::size_t begin, std::size_t end, std::string_view with) {
    out.append(d.substr(pos, begin - pos));
    out += with;
    pos = end;
  };
  auto text = [&](std::size_t k) { return d.substr(tokens[k].begin, tokens[k].end - tokens[k].begin); };
  for (std::size_t k = 2; k < tokens.size(); ++k) {
    if (text(k) != cuda_arch) continue;
    if (name == "ifdef" || name == "ifndef" || name == "elifdef" || name == "elifndef") {
      bool defined = name.ends_with("ndef") ? !device : device;
      replace(tokens[1].begin, tokens[1].end, name.starts_with("el") ? "elif" : "if");
      replace(tokens[k].begin, tokens[k].end, defined ? "1" : "0");
    } else if (k >= 3 && text(k - 1) == "(" && text(k - 2) == "defined" && k + 1 < tokens.size() &&
               text(k + 1) == ")") {
      replace(tokens[k - 2].begin, tokens[k + 1].end, device ? "1" : "0");
    } else if (k >= 3 && text(k - 1) == "defined") {
      replace(tokens[k - 1].begin, tokens[k].end, device ? "1" : "0");
    } else {
      replace(tokens[k].begin, tokens[k].end, device ? cuda_arch_value : "0");
    }
  }
  out.append(d.substr(pos));
  return out;
}

condition_evaluator::condition_evaluator(std::string_view d, arch_view view)
    : d_(d), t_(directive_tokens(d)), view_(view) {}

condition_evaluator::value condition_evaluator::run() {
  std::string_view name = directive_name(d_, t_);
  i_ = 2;
  if (name.ends_with("ifdef") || name.ends_with("ifndef")) {
    value v = i_ < t_.size() ? defined(text(i_)) : std::nullopt;
    if (v && name.ends_with("ndef")) *v = !*v;
    return v;
  }
  value v = conditional();
  return i_ == t_.size() ? v : std::nullopt;
}

std::string_view condition_evaluator::text(std::size_t k) const {
  return k < t_.size() ? d_.substr(t_[k].begin, t_[k].end - t_[k].begin) : std::string_view();
}

bool condition_evaluator::accept(std::string_view op) {
  if (text(i_) != op) return false;
  ++i_;
  return true;
}

condition_evaluator::value condition_evaluator::defined(std::string_view name) const {
  if (name == cuda_arch) return view_ == arch_view::device ? 1 : 0;
  if (name == "__CUDACC__") return 1;
  return std::nullopt;
}

condition_evaluator::value condition_evaluator::conditional() {
  value c = logical_or();
  if (!accept("?")) return c;
  value a = conditional();
  if (!accept(":")) return std::nullopt;
  value b = conditional();
  if (!c) return a && b && *a == *b ? a : std::nullopt;
  return *c ? a : b;
}

condition_evaluator::value condition_evaluator::logical_or() {
  value v = logical_and();
  while (accept("||")) {
    value r = logical_and();
    if ((v && *v) || (r && *r))
      v = 1;
    else
      v = v && r ? value(0) : std::nullopt;
  }
  return v;
}

condition_evaluator::value condition_evaluator::logical_and() {
  value v = binary(0);
  while (accept("&&")) {
    value r = binary(0);
    if ((v && !*v) || (r && !*r))
      v = 0;
    else
      v = v && r ? value(1) : std::nullopt;
  }
  return v;
}

condition_evaluator::value condition_evaluator::binary(int level) {
  static const std::vector<std::vector<std::string_view>> levels = {
      {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", ">", "<=", ">="}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
  if (level == static_cast<int>(levels.size())) return unary();
  value v = binary(level + 1);
  for (;;) {
    auto op = std::find(levels[level].begin(), levels[level].end(), text(i_));
    if (op == levels[level].end()) return v;
    ++i_;
    value r = binary(level + 1);
    if (!v || !r || ((*op == "/" || *op == "%") && *r == 0)) {
      v = std::nullopt;
      continue;
    }
    long long a = *v, b = *r;
    std::string_view o = *op;
    v = o == "|"    ? a | b
        : o == "^"  ? a ^ b
        : o == "&"  ? a & b
        : o == "==" ? a == b
        : o == "!=" ? a != b
        : o == "<"  ? a < b
        : o == ">"  ? a > b
        : o == "<=" ? a <= b
        : o == ">=" ? a >= b
        : o == "<<" ? (b >= 0 && b < 63 ? a << b : 0)
        : o == ">>" ? (b >= 0 && b < 63 ? a >> b : 0)
        : o == "+"  ? a + b
        : o == "-"  ? a - b
        : o == "*"  ? a * b
        : o == "/"  ? a / b
                    : a % b;
  }
}

condition_evaluator::value condition_evaluator::unary() {
  if (accept("!")) {
    value v = unary();
    return v ? value(!*v) : v;
  }
  if (accept("-")) {
    value v = unary();
    return v ? value(-*v) : v;
  }
  if (accept("~")) {
    value v = unary();
    return v ? value(~*v) : v;
  }
  if (accept("+")) return unary();
  return primary();
}

condition_evaluator::value condition_evaluator::primary() {
  if (accept("(")) {
    value v = conditional();
    return accept(")") ? v : std::nullopt;
  }
  if (i_ >= t_.size()) return std::nullopt;
  std::string_view word = text(i_++);
  if (word == "defined") {
    bool paren = accept("(");
    value v = defined(text(i_++));
    if (paren && !accept(")")) return std::nullopt;
    return v;
  }
  if (is_digit(word[0])) {
    std::string digits(word);
    while (!digits.empty() && std::strchr("uUlL", digits.back())) digits.pop_back();
    try {
      return std::stoll(digits, nullptr, 0);
    } catch (...) {
      return std::nullopt;
    }
  }
  if (word == cuda_arch) return view_ == arch_view::device ? 900 : 0;
  if (word == "true") return 1;
  if (word == "false") return 0;
  // Another macro, perhaps function-like: unknown.
  if (accept("(")) {
    for (int depth = 1; i_ < t_.size() && depth > 0; ++i_) depth += text(i_) == "(" ? 1 : text(i_) == ")" ? -1 : 0;
  }
  return std::nullopt;
}

}  // namespace weft_port_tool
