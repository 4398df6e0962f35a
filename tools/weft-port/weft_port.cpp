// weft-port: makes an unmodified CUDA source file compile with g++ against weft.
//
//   weft-port in.cu > out.cpp
//   weft-port in.cu -o out.cpp
//
// It rewrites these constructs (and, below, clock() and tests of __CUDA_ARCH__
// in device code) and copies every other byte unchanged:
//
//   kernel<<<grid, block, shmem, stream>>>(args)
//     -> weft::launch(weft::launch_config{grid, block, shmem, stream}, kernel, args)
//     -> weft::launch<kernel>(weft::launch_config{grid, block, shmem, stream}, args)
//     (the second where `kernel` names a __global__ function this file
//     declares, `k`, `ns::k` or `k<float>`: known at compile time, it is
//     called directly for each CUDA thread, not through a pointer; a template
//     kernel named without template arguments, `k<<<g, b>>>(x)`, becomes
//     `[](auto... a) { k(a...); }`, so that x deduces them)
//   extern __shared__ T name[];
//     -> T* name = weft::dynamic_shared<T>();                         (in a function)
//     -> [[maybe_unused]] static weft_port::extern_shared<T> name;   (at namespace scope)
//   asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t))
//     -> (t) = weft::ptx::globaltimer()   (a read of one PTX special register, in device code)
//   asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(n))
//     -> weft::ptx::bar_sync((id), (n))   (a named barrier: bar.sync, barrier.sync, bar.arrive;
//        co_await weft::bar_sync((id), (n)) in a stackless kernel)
//   __global__ void k(...) { ... __syncthreads(); ... return; }
//     -> __global__ weft::stackless_kernel k(...) { ... co_await weft::syncthreads(); ... co_return; }
//     (a kernel of the input whose every wait is its own barrier, named
//     barrier, warp collective or cooperative-group wait, or a call of one of the input's
//     __device__ functions that wait, which then get an awaitable version
//     `weft_port_awaitable_NAME` after the last line: see
//     find_stackless_kernels; --no-stackless turns it off; a kernel of C
//     linkage, or one whose name is used as a value, stays a void kernel
//     that forwards to a stackless body of C++ linkage,
//     `weft_port_stackless_NAME`: see void_kernel_body)
//
// and, after the last line of a source file (not a header), registers every
// non-template __global__ function declared at namespace scope (but the
// stackless ones, which are launched by name only), with its
// __cluster_dims__ if it has them (a converted kernel that stays void as
// weft::register_kernel<&k, &weft_port_stackless_k>()), and the .cu's port
// also those that its headers define (known_kernels::header_kernels: not
// those only declared there, nor inside an #if, nor behind an #include
// inside one, which the port cannot tell the compiler takes):
//
//   static const bool weft_port_kernel_N = weft::register_kernel<&ns::kernel>();
//   static const bool weft_port_cluster_N = weft::detail::register_cluster_dims(&ns::kernel, 2, 1, 1);
//
// so that a kernel known only by address (cudaLaunchKernel((void*)k, ...),
// cudaLaunchCooperativeKernel) can be launched, and a compile-time cluster
// shape takes effect, as they do with nvcc. A registered kernel launched by
// address (from another file, say) also runs the grid compiled for it.
//
// The output begins with `#include <weft.hpp>` and
// `#include <weft/compat/cuda_runtime.h>`, as nvcc includes cuda_runtime.h
// with its device declarations in every .cu file (and, when needed, the small
// helper the namespace-scope form uses), then `#line 1 "in.cu"`. Every
// rewrite keeps the newlines of the text it replaces, so from there on line N
// of the input is the output's line N as the compiler counts, and errors point
// at the original file and line.
//
// How: a scanner splits the file into tokens, knowing comments, string, char
// and raw string literals, line splices and preprocessor lines, so that
// nothing inside a comment or a literal is ever rewritten. `#define` bodies
// are scanned as code (launches in macros are rewritten); other directives are
// kept whole. The rewriter then finds the two constructs among the tokens and
// renders the output from the original text and those rewrites.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace {

// Whether `name` is one of the words of a fixed list.
template <std::size_t N>
bool one_of(const std::string_view (&words)[N], std::string_view name) {
  return std::find(std::begin(words), std::end(words), name) != std::end(words);
}

enum class kind { space, comment, identifier, number, literal, punct, directive };

struct token {
  kind k;
  std::size_t begin, end;  // byte range in the source
  int line;                // line of the first byte
  int define;              // the #define whose body holds the token, 0 for ordinary code
};

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// Splits a source file into tokens that cover it completely.
class scanner {
 public:
  explicit scanner(std::string_view src) : s_(src) {}

  std::vector<token> run() {
    std::vector<token> out;
    while (i_ < s_.size()) {
      std::size_t begin = i_;
      int line = line_;
      kind k = next();
      out.push_back({k, begin, i_, line, define_});
    }
    return out;
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
  int line_ = 1;
  bool line_start_ = true;  // nothing but spaces and comments so far on this line
  int define_ = 0;          // the #define being scanned, 0 outside one
  int defines_ = 0;

  char at(std::size_t j) const { return j < s_.size() ? s_[j] : '\0'; }

  // Length of the line splice (backslash-newline) at j, 0 if there is none.
  std::size_t splice(std::size_t j) const {
    if (at(j) != '\\') return 0;
    if (at(j + 1) == '\n') return 2;
    if (at(j + 1) == '\r' && at(j + 2) == '\n') return 3;
    return 0;
  }

  void advance(std::size_t n) {
    for (; n > 0 && i_ < s_.size(); --n)
      if (s_[i_++] == '\n') ++line_;
  }

  kind next() {
    char c = s_[i_];
    if (is_blank(c) || c == '\n' || splice(i_)) return spaces();
    if (c == '/' && at(i_ + 1) == '/') return line_comment();
    if (c == '/' && at(i_ + 1) == '*') return block_comment();
    bool first_on_line = line_start_;
    line_start_ = false;
    if (c == '#' && first_on_line) return directive();
    if (is_digit(c) || (c == '.' && is_digit(at(i_ + 1)))) return number();
    if (is_ident_char(c)) return identifier();
    if (c == '"' || c == '\'') return quoted();
    if ((c == ':' && at(i_ + 1) == ':') || (c == '-' && at(i_ + 1) == '>')) {
      advance(2);
      return kind::punct;
    }
    advance(1);
    return kind::punct;
  }

  kind spaces() {
    while (i_ < s_.size()) {
      if (std::size_t n = splice(i_)) {
        advance(n);
      } else if (s_[i_] == '\n') {
        // An unspliced newline ends a line, and with it any #define.
        line_start_ = true;
        define_ = 0;
        advance(1);
      } else if (is_blank(s_[i_])) {
        advance(1);
      } else {
        break;
      }
    }
    return kind::space;
  }

  // A // comment runs to the end of the line, line splices included.
  kind line_comment() {
    while (i_ < s_.size() && s_[i_] != '\n') advance(splice(i_) ? splice(i_) : 1);
    return kind::comment;
  }

  kind block_comment() {
    std::size_t end = s_.find("*/", i_ + 2);
    advance(end == std::string_view::npos ? s_.size() - i_ : end + 2 - i_);
    return kind::comment;
  }

  // `#define` starts a macro body that is scanned as code, so that launches
  // in macros are found. Any other directive (#include <a>, #if x << 2,
  // #error don't) is one opaque token up to the end of its line.
  kind directive() {
    std::size_t j = i_ + 1;
    while (is_blank(at(j))) ++j;
    std::size_t name_end = j;
    while (is_ident_char(at(name_end))) ++name_end;
    if (s_.substr(j, name_end - j) == "define") {
      define_ = ++defines_;
      advance(1);
      return kind::punct;
    }
    while (i_ < s_.size() && s_[i_] != '\n') {
      if (std::size_t n = splice(i_)) {
        advance(n);
      } else if (s_[i_] == '/' && at(i_ + 1) == '/') {
        line_comment();
      } else if (s_[i_] == '/' && at(i_ + 1) == '*') {
        block_comment();
      } else if (s_[i_] == '"') {
        quoted();
      } else {
        advance(1);
      }
    }
    return kind::directive;
  }

  // A preprocessing number, which includes digit separators (1'000) and
  // exponents with signs (1e+5), so that neither looks like something else.
  kind number() {
    std::size_t j = i_ + 1;
    for (;;) {
      char c = at(j);
      if ((c == '+' || c == '-') && std::strchr("eEpP", at(j - 1)))
        ++j;
      else if (c == '\'' && is_ident_char(at(j + 1)))
        j += 2;
      else if (is_ident_char(c) || c == '.')
        ++j;
      else
        break;
    }
    advance(j - i_);
    return kind::number;
  }

  // An identifier, or the encoding prefix of a literal (u8"...", L'x', R"(...)").
  kind identifier() {
    std::size_t j = i_;
    while (is_ident_char(at(j))) ++j;
    std::string_view word = s_.substr(i_, j - i_);
    char after = at(j);
    if (after == '"' && (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR")) {
      advance(j - i_);
      return raw_string();
    }
    if ((after == '"' || after == '\'') && (word == "u8" || word == "u" || word == "U" || word == "L")) {
      advance(j - i_);
      return quoted();
    }
    advance(j - i_);
    return kind::identifier;
  }

  // A string or char literal; an unterminated one stops at the end of the line.
  kind quoted() {
    char quote = s_[i_];
    advance(1);
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '\\') {
        advance(2);
      } else if (c == '\n') {
        break;
      } else {
        advance(1);
        if (c == quote) break;
      }
    }
    return kind::literal;
  }

  // R"delim( ... )delim": nothing inside is special, not even a backslash.
  kind raw_string() {
    std::size_t open = s_.find('(', i_);
    if (open == std::string_view::npos) return quoted();
    std::string closing = ")" + std::string(s_.substr(i_ + 1, open - i_ - 1)) + "\"";
    std::size_t end = s_.find(closing, open);
    advance(end == std::string_view::npos ? s_.size() - i_ : end + closing.size() - i_);
    return kind::literal;
  }
};

// ---- preprocessor conditionals that test __CUDA_ARCH__ ----
//
// nvcc compiles a .cu twice: the device pass with __CUDA_ARCH__ set (900 for
// sm_90) and the host pass without it. weft compiles once, so weft-port gives
// each conditional that tests it the view of the pass that would compile the
// code it guards (see porter::classify_scopes and docs/porting.md).

enum class arch_view { device, host };
constexpr std::string_view cuda_arch = "__CUDA_ARCH__";
constexpr std::string_view cuda_arch_value = "900";  // sm_90, the GPU weft behaves as

// A token of a directive's text: an identifier, a number or a punctuator.
struct directive_token {
  std::size_t begin, end;  // within the directive's text
  bool identifier;
};

// Splits a directive's text (`#if defined(X) && Y >= 2 // note`) into
// tokens, without its comments, line splices and literals.
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

// The directive's name: `if`, `ifdef`, `elif`, `define`, ... ("" if none).
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

// The directive as one view sees it: __CUDA_ARCH__ replaced by its value
// there, `defined(__CUDA_ARCH__)` by 1 or 0, `#ifdef __CUDA_ARCH__` as `#if 1`.
// Everything else, line splices included, is kept.
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

// Evaluates a conditional directive's condition in one view, as far as it
// can be known: identifiers other than __CUDA_ARCH__ (and __CUDACC__, which
// a port defines) are unknown, and so is anything that depends on them.
class condition_evaluator {
 public:
  using value = std::optional<long long>;

  condition_evaluator(std::string_view d, arch_view view) : d_(d), t_(directive_tokens(d)), view_(view) {}

  value run() {
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

 private:
  std::string_view d_;
  std::vector<directive_token> t_;
  arch_view view_;
  std::size_t i_ = 0;

  std::string_view text(std::size_t k) const {
    return k < t_.size() ? d_.substr(t_[k].begin, t_[k].end - t_[k].begin) : std::string_view();
  }
  bool accept(std::string_view op) {
    if (text(i_) != op) return false;
    ++i_;
    return true;
  }
  value defined(std::string_view name) const {
    if (name == cuda_arch) return view_ == arch_view::device ? 1 : 0;
    if (name == "__CUDACC__") return 1;
    return std::nullopt;
  }

  value conditional() {
    value c = logical_or();
    if (!accept("?")) return c;
    value a = conditional();
    if (!accept(":")) return std::nullopt;
    value b = conditional();
    if (!c) return a && b && *a == *b ? a : std::nullopt;
    return *c ? a : b;
  }
  value logical_or() {
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
  value logical_and() {
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
  // Binary operators by precedence level, loosest first.
  value binary(int level) {
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
  value unary() {
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
  value primary() {
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
};

// A problem with the input, reported as `file:line: error: what`.
struct diagnostic {
  int line;
  std::string what;
  bool error;  // false: a warning, and the construct is left as it was
};

struct port_failure {
  int line;
  std::string what;
};

// `extern __shared__ T name[]` at namespace scope becomes an object of this
// type: each use converts to a T* to the running block's dynamic shared
// memory, so indexing, pointer arithmetic, passing it on, casts and `&name`
// read as they do for the array. Guarded: ported headers may bring it too.
constexpr std::string_view extern_shared_helper = R"(#ifndef WEFT_PORT_EXTERN_SHARED
#define WEFT_PORT_EXTERN_SHARED
namespace weft_port {
// weft-port: what `extern __shared__ T name[];` at namespace scope became. Each use converts to a T* to
// the running block's dynamic shared memory, as the array does.
template <class T>
struct extern_shared {
  operator T*() const { return weft::dynamic_shared<T>(); }
  template <class U>
  explicit operator U*() const { return reinterpret_cast<U*>(weft::dynamic_shared<T>()); }
  auto operator&() const -> T (*)[] { return reinterpret_cast<T (*)[]>(weft::dynamic_shared<T>()); }
};
}  // namespace weft_port
#endif
)";

// `k` of `ns::k`.
std::string bare_name(std::string_view qualified) {
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

// `#include "path"`: where its spelling (quotes included) sits in the source.
struct quoted_include {
  std::string path;
  std::size_t begin, end;
  int line;
  bool conditional;  // inside an #if other than the include guard
};

// Where a token is, as nvcc's two passes would compile it.
enum class space : std::uint8_t {
  file,    // outside every function: namespace or class scope
  host,    // in a host function
  device,  // in a __global__ or __device__ function (or a lambda or class inside one)
  dual,    // in a __host__ __device__ function
};

class porter {
 public:
  // `file` is the input's name as #line directives spell it, quoted.
  porter(std::string_view src, std::string file) : src_(src), file_(std::move(file)) {
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

  std::vector<diagnostic> diagnostics;
  bool uses_extern_shared_helper = false;
  // Distinguishes the registrations of a .cu that another .cu includes.
  std::string registration_tag;
  // The ported .cu registers its headers' void kernels that forward to a
  // stackless body (known_kernels::void_converted) too.
  bool registers_headers_void_kernels = false;
  // The file is a header: the .cu that includes it registers its kernels
  // (known_kernels::header_kernels).
  bool is_header_file = false;

  // The kernels of the files this one includes, known before run().
  void know(const known_kernels& included) {
    known_.add(included);
    for (const kernel_decl& d : included.kernels) {
      std::size_t colons = d.name.rfind("::");
      included_kernel_names_.insert(colons == std::string::npos ? d.name : d.name.substr(colons + 2));
    }
    included_kernel_names_.insert(included.templates.begin(), included.templates.end());
  }

  // Whether to convert eligible kernels to stackless ones (see
  // find_stackless_kernels), and the names the program's other sources use:
  // a kernel one of them names may be declared there with `void`.
  bool convert_stackless = false;
  std::string not_converted_here;  // why not, where --explain asks about a file that is not converted
  std::set<std::string, std::less<>> outside_names;
  // A header whose kernels convert (see program_porter::port): the names of
  // the other files of the ported .cu's translation unit, and no awaitable
  // functions or C-linkage bodies, which would follow the header's last line.
  bool in_header = false;
  std::set<std::string, std::less<>> names_in_other_files;
  // Those files' names (as #line directives spell them) and texts: a kernel
  // one of them names still converts where that file only launches it (see
  // why_uses_need_void).
  std::vector<std::pair<std::string, std::string>> other_files;
  // Whether the ported file is a .cu, which registers the header's void
  // kernels that forward to a stackless body (registers_headers_void_kernels).
  bool includer_registers = false;

  // How this file uses `name`, a kernel of a header it includes (which
  // `header` describes): `refusal` says what keeps that kernel on fibers ("" if
  // nothing does), `as_value` whether the kernel must stay a void kernel that
  // forwards to its stackless body (see void_kernel_body), which this file's
  // port then registers. A launch that names the kernel at compile time
  // (`k<<<...>>>`, `k<32, 6><<<...>>>`) becomes weft::launch<k>, a call of
  // whatever k returns, as for the .cu's own kernels; a runtime call that
  // takes a stackless kernel as any (cudaFuncGetAttributes(&a, k), ...) too.
  struct included_kernel_uses {
    std::string refusal;
    bool as_value = false;
  };
  included_kernel_uses uses_of_included_kernel(std::string_view name, const known_kernels& header) {
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

  // A kernel defined in this file, and why it stays on fibers ("" if converted).
  struct stackless_verdict {
    std::string kernel;
    int line;
    std::string why_not;
    std::string no_regions = {};  // for a converted kernel: why it has no region version, "" if it has one
  };
  std::vector<stackless_verdict> stackless_verdicts;
  bool converted_kernels() const { return !converted_.empty(); }

  // The kernels this file itself declares.
  const std::vector<kernel_decl>& kernels_declared() const { return kernels_; }
  bool knows_header_kernel(const kernel_decl& d) const {
    return std::any_of(known_.header_kernels.begin(), known_.header_kernels.end(),
                       [&](const kernel_decl& e) { return e.name == d.name && e.signature == d.signature; });
  }

  // The kernels this file declares, and those it knew from its includes.
  known_kernels kernels() const {
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

  // The `#include "..."` lines (outside macro definitions).
  std::vector<quoted_include> quoted_includes() const {
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

  // Makes an #include read another file (a port of it, or the original from
  // where the port lies).
  void replace_include(const quoted_include& include, const std::string& quoted_path) {
    construct c{};
    c.kind = construct_kind::text;
    c.begin = include.begin;
    c.end = include.end;
    c.text = quoted_path;
    constructs_.push_back(c);
  }

  // Whether run() changed anything but the #include lines.
  bool rewrote() const { return rewrites_ > 0; }

  // Lines the output has beyond the input's: the second copy of each
  // __host__ __device__ function body that tests __CUDA_ARCH__, and the
  // #line directives that keep the copies at the input's lines.
  std::size_t added_lines() const { return added_lines_; }

  // The registrations written after the last line (see the top of the file).
  std::string registrations() const {
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

  // weft::register_kernel<&k>(), and k's __cluster_dims__, for a kernel the
  // file or its headers define (on fibers, or made stackless by its header's port).
  std::string kernel_registration(const kernel_decl& d, const std::string& n) const {
    // An overloaded name needs the parameter types to pick one (an
    // overloaded kernel stays on fibers, so its type is void's).
    auto other_signature = [&](const kernel_decl& e) { return e.name == d.name && e.signature != d.signature; };
    bool overloaded = std::any_of(kernels_.begin(), kernels_.end(), other_signature) ||
                      (registers_headers_void_kernels &&
                       std::any_of(known_.header_kernels.begin(), known_.header_kernels.end(), other_signature));
    std::string address = overloaded ? "static_cast<void (*)(" + d.signature + ")>(&" + d.name + ")" : "&" + d.name;
    return registration_lines(n, address, address, d.cluster_dims);
  }

  // weft::register_kernel<&k, &weft_port_stackless_k>(), and k's __cluster_dims__.
  static std::string void_kernel_registration(const kernel_decl& d, const std::string& n) {
    std::size_t colons = d.name.rfind("::");
    std::string body =
        d.name.substr(0, colons == std::string::npos ? 0 : colons + 2) + "weft_port_stackless_" + bare_name(d.name);
    return registration_lines(n, "&" + d.name + ", &" + body, "&" + d.name, d.cluster_dims);
  }

  // The registration statements written after a file's last line, `n` their tag.
  static std::string registration_lines(const std::string& n, const std::string& kernel_arguments,
                                        const std::string& address, const std::string& cluster_dims) {
    std::string out = "[[maybe_unused]] static const bool weft_port_kernel_" + n + " = weft::register_kernel<" +
                      kernel_arguments + ">();\n";
    if (!cluster_dims.empty())
      out += "[[maybe_unused]] static const bool weft_port_cluster_" + n + " = weft::detail::register_cluster_dims(" +
             address + ", " + cluster_dims + ");\n";
    return out;
  }

  // The rewritten source (without the prelude).
  std::string run() {
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

  // The awaitable versions of the __device__ functions that wait, which
  // converted kernels call, written after the last line (see find_awaitable_functions).
  const std::string& awaitable_functions() const { return awaitable_functions_; }
  // The region versions of kernels, written after the last line (see plan_regions).
  const std::string& region_versions() const { return region_versions_; }
  // Where the #endif of the file's include guard is, if it has one (see include_guard_end).
  std::optional<std::pair<std::size_t, int>> guard_end() const { return include_guard_end(); }
  bool uses_groups() const { return uses_groups_; }
  bool uses_barriers() const { return uses_barriers_; }
  bool uses_pipelines() const { return uses_pipelines_; }
  bool uses_named_barriers() const { return uses_named_barriers_; }

 private:
  enum class construct_kind {
    launch,     // rendered from its parts, recursively (an argument may hold another launch)
    text,       // replaced by fixed text
    arch,       // a test of __CUDA_ARCH__ in a __host__ __device__ function: as the view sees it
    dual_body,  // a __host__ __device__ function's body: in both views, chosen at run time
  };

  struct construct {
    std::size_t begin, end;  // the source bytes replaced
    construct_kind kind;
    std::string text;  // the replacement (kind text), the device view's (kind arch)
    // A launch's parts: kernel [begin, kernel_end), configuration
    // [config_begin, config_end), arguments [args_begin, args_end), and the
    // spaces or comments after the kernel and after `>>>`, kept as they are.
    std::size_t kernel_end, open, config_begin, config_end, close_end, lparen, args_begin, args_end;
    bool has_args;
    bool variadic_args;  // the arguments are a macro's __VA_ARGS__, which may be empty
    launch_kernel kernel_as;
  };

  // What each token's enclosing functions make of it (see classify_scopes).
  struct scope_info {
    space where = space::file;
    bool kernel = false;                                              // inside a __global__ function's body
    std::size_t dual_open = std::numeric_limits<std::size_t>::max();  // the outermost __host__ __device__ body's `{`
  };

  static constexpr unsigned qualifier_global = 1, qualifier_device = 2, qualifier_host = 4;

  std::string_view src_;
  std::string file_;
  std::vector<token> t_;  // tokens other than spaces and comments
  std::vector<construct> constructs_;
  std::vector<kernel_decl> kernels_;
  known_kernels known_;  // from the included files, then this file's templates
  std::vector<scope_info> scope_;
  std::vector<std::pair<std::string_view, unsigned>> qualifier_macros_;
  std::size_t rewrites_ = 0;
  std::set<std::string, std::less<>> converted_;  // the kernels made stackless
  // Those of them that stay void kernels forwarding to a stackless body:
  // kernels of C linkage and kernels whose name is used as a value.
  std::set<std::string, std::less<>> void_kernels_converted_;
  std::set<std::string, std::less<>> included_kernel_names_;
  std::set<std::string, std::less<>> types_;          // type names known here (find_functions_that_never_wait)
  std::set<std::string, std::less<>> group_aliases_;  // `namespace cg = cooperative_groups;`
  // `using namespace cooperative_groups;` (or an alias of it): its functions
  // may be called unqualified, unless the file defines a function of that name.
  bool groups_namespace_used_ = false;
  std::set<std::string, std::less<>> file_function_names_;
  // Variables declared volatile or atomic outside the file's functions
  // (`__device__ volatile int flag;`): a loop whose condition reads one spins.
  std::map<std::string, std::string_view, std::less<>> namespace_scope_flags_;  // name: "volatile" or "atomic"
  bool uses_groups_ = false;
  bool uses_barriers_ = false;        // a converted kernel awaits a block-scope cuda::barrier
  bool uses_pipelines_ = false;       // ... or a block's cuda::pipeline
  bool uses_named_barriers_ = false;  // ... or a named barrier (inline PTX)
  // The named barriers' asm statements ported to weft::ptx calls (outside
  // macros), by their `asm` token: what a stackless kernel awaits instead.
  std::set<std::size_t> ported_named_barriers_;
  mutable const std::vector<construct>* rendering_ = &constructs_;  // what render() rewrites
  std::string awaitable_functions_;
  std::string region_versions_;  // the region versions of the file's kernels (see plan_regions)
  mutable std::size_t added_lines_ = 0;

  // ---- token tests ----

  std::string_view text(std::size_t i) const { return src_.substr(t_[i].begin, t_[i].end - t_[i].begin); }
  bool is(std::size_t i, std::string_view s) const {
    return i < t_.size() && (t_[i].k == kind::punct || t_[i].k == kind::identifier) && text(i) == s;
  }
  bool is_identifier(std::size_t i) const { return i < t_.size() && t_[i].k == kind::identifier; }
  bool adjacent(std::size_t i) const { return i + 1 < t_.size() && t_[i].end == t_[i + 1].begin; }  // i, i+1 touch
  bool is_opener(std::size_t i) const { return is(i, "(") || is(i, "[") || is(i, "{"); }
  bool is_closer(std::size_t i) const { return is(i, ")") || is(i, "]") || is(i, "}"); }

  // Words that end an expression on their left: `return k<<<...`, `if (x) (k)<<<...`.
  bool is_keyword(std::size_t i) const {
    static constexpr std::string_view words[] = {
        "return", "else",     "do",       "case",    "throw",    "co_return", "co_yield", "co_await",
        "new",    "delete",   "sizeof",   "alignof", "decltype", "noexcept",  "if",       "while",
        "for",    "switch",   "goto",     "typeid",  "and",      "or",        "not",      "static_assert",
        "const",  "volatile", "operator", "typedef", "using",    "template",  "typename", "static",
        "extern", "inline",   "auto",     "void",    "int",      "char",      "float",    "double"};
    return is_identifier(i) && one_of(words, text(i));
  }

  // Number of adjacent copies of the one-character token c starting at i.
  std::size_t run_of(std::size_t i, std::string_view c) const {
    std::size_t n = 0;
    while (is(i + n, c) && (n == 0 || adjacent(i + n - 1))) ++n;
    return n;
  }

  // Whether only whitespace (no comment) separates tokens i and i+1.
  bool spaced(std::size_t i) const {
    if (i + 1 >= t_.size() || t_[i].define != t_[i + 1].define) return false;
    std::string_view between = src_.substr(t_[i].end, t_[i + 1].begin - t_[i].end);
    return std::all_of(between.begin(), between.end(), [](char c) { return is_blank(c) || c == '\n'; });
  }

  // Like run_of, but the copies may be apart by whitespace, as clang-format
  // writes a launch: `k << < grid, block >> > (args)`.
  std::size_t spaced_run_of(std::size_t i, std::string_view c) const {
    std::size_t n = 0;
    while (is(i + n, c) && (n == 0 || spaced(i + n - 1))) ++n;
    return n;
  }

  // The execution space keywords token i stands for: __global__,
  // __device__, __host__, or a macro defined as some of them.
  unsigned qualifier(std::size_t i) const {
    if (!is_identifier(i)) return 0;
    std::string_view word = text(i);
    if (word == "__global__") return qualifier_global;
    if (word == "__device__") return qualifier_device;
    if (word == "__host__") return qualifier_host;
    for (const auto& [name, qualifiers] : qualifier_macros_)
      if (name == word) return qualifiers;
    return 0;
  }

  // The bracket closing the one opened at i, in the same macro body; nullopt if none.
  std::optional<std::size_t> match_forward(std::size_t i) const {
    int depth = 0;
    for (std::size_t j = i; j < t_.size() && t_[j].define == t_[i].define; ++j) {
      if (is_opener(j)) ++depth;
      if (is_closer(j) && --depth == 0) return j;
    }
    return std::nullopt;
  }

  // The bracket opening the one closed at i.
  std::optional<std::size_t> match_backward(std::size_t i) const {
    int depth = 0;
    for (std::size_t j = i + 1; j-- > 0 && t_[j].define == t_[i].define;) {
      if (is_closer(j)) ++depth;
      if (is_opener(j) && --depth == 0) return j;
    }
    return std::nullopt;
  }

  // The `<` opening the template argument list closed by the `>` at i.
  // Brackets are skipped whole, so `k<(a > b)>` and `k<f(x)>` match.
  std::optional<std::size_t> match_angle_backward(std::size_t i) const {
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

  // ---- where each token is: host, device or __host__ __device__ code ----

  // What the declaration that a `{` ends says about that brace.
  struct brace_head {
    unsigned qualifiers = 0;  // __global__ / __device__ / __host__ among its specifiers
    bool function = false;    // the brace opens a function's or a lambda's body (or a statement's block)
    bool type = false;        // the brace opens a class, struct, union or enum
  };

  // Reads back from the `{` at `brace` to the start of its declaration:
  // `template <class T> __device__ T f(T x) const {`, `[=] __device__ (int i) {`,
  // `S(int a) : x{a}, y(0) {`, `struct S : B {`, `if (c) {`.
  brace_head head_of(std::size_t brace) const {
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

  // Gives each token the execution space nvcc would compile it for: a
  // __global__ or __device__ function's body (and every lambda, block and
  // class inside it) is device code; a __host__ __device__ function's body is
  // both, unless a __device__ lambda inside it says otherwise; any other
  // function's body is host code; the rest is at namespace or class scope.
  void classify_scopes() {
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

  // ---- tests of __CUDA_ARCH__ ----

  // A conditional group, `#if` ... `#elif` ... `#else` ... `#endif`: its
  // directives' tokens, the #endif's last.
  struct conditional_group {
    std::vector<std::size_t> directives;
  };

  std::string_view text_of(std::size_t i) const { return src_.substr(t_[i].begin, t_[i].end - t_[i].begin); }

  std::vector<conditional_group> conditional_groups() const {
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

  // Gives each test of __CUDA_ARCH__ the view of the nvcc pass that would
  // compile what it guards (docs/porting.md, "The porting step"):
  //  - in a __global__ or __device__ function, the device view: 900;
  //  - in a host function, the host view: undefined, left as it is;
  //  - in a __host__ __device__ function, both: its body is compiled twice,
  //    once in each view, and runs the device view's in a kernel;
  //  - at namespace or class scope, the view of what the group guards:
  //    the host view if it guards host functions only, the device view
  //    otherwise (device functions, kernels, #include lines, declarations);
  //    an error where it guards host and device code and the views differ.
  // __CUDA_ARCH__ in code (not in a directive) is 900 in device code.
  void find_arch_tests() {
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

  construct replacement(std::size_t i, std::string with) const {
    construct c{};
    c.kind = construct_kind::text;
    c.begin = t_[i].begin;
    c.end = t_[i].end;
    c.text = std::move(with);
    return c;
  }

  // `clock()` in device code is CUDA's SM cycle counter, not C's process CPU
  // time, which a host compiler would call: programs spin on it for a number
  // of cycles computed from clockRate (cuda-samples' simpleHyperQ, clock).
  // In __global__, __device__ and __host__ __device__ functions it becomes
  // weft::detail::clock_as_called(), which counts cycles in a kernel and is
  // C's clock() outside one (a __host__ __device__ function called on the
  // host). Not a member call, a qualified name, or a declaration of clock.
  void find_device_clock_calls() {
    for (std::size_t i = 1; i + 2 < t_.size(); ++i) {
      if (t_[i].define != 0 || !is(i, "clock") || !is(i + 1, "(") || !is(i + 2, ")")) continue;
      if (is(i - 1, ".") || is(i - 1, "->") || is(i - 1, "::") || (is_identifier(i - 1) && !is_keyword(i - 1)))
        continue;
      space where = scope_[i].where;
      if (where == space::device || where == space::dual)
        constructs_.push_back(replacement(i, "weft::detail::clock_as_called"));
    }
  }

  // ---- inline PTX that reads a special register ----
  //
  // A CPU cannot run PTX, but a statement that only copies one of PTX's
  // special registers into a variable has a C++ equivalent:
  //   asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));  ->  (t) = weft::ptx::globaltimer();
  // in __global__, __device__ and __host__ __device__ functions, and in
  // macro definitions (an `asm` in host code is the host's own assembly, and
  // stays). Any other inline PTX in device code is an error naming its
  // instruction, instead of the assembler's; in a macro it stays, as it may
  // be the host's.

  struct special_register {
    std::string_view ptx;   // as PTX spells it, without the %
    std::string_view weft;  // the function in namespace weft::ptx
    int bits;
  };

  static const special_register* find_special_register(std::string_view name) {
    static constexpr special_register registers[] = {
        {"globaltimer", "globaltimer", 64},
        {"globaltimer_lo", "globaltimer_lo", 32},
        {"globaltimer_hi", "globaltimer_hi", 32},
        {"clock", "clock", 32},
        {"clock64", "clock64", 64},
        {"laneid", "laneid", 32},
        {"warpid", "warpid", 32},
        {"nwarpid", "nwarpid", 32},
        {"smid", "smid", 32},
        {"nsmid", "nsmid", 32},
        {"gridid", "gridid", 64},
        {"lanemask_eq", "lanemask_eq", 32},
        {"lanemask_le", "lanemask_le", 32},
        {"lanemask_lt", "lanemask_lt", 32},
        {"lanemask_ge", "lanemask_ge", 32},
        {"lanemask_gt", "lanemask_gt", 32},
        {"tid.x", "tid_x", 32},
        {"tid.y", "tid_y", 32},
        {"tid.z", "tid_z", 32},
        {"ntid.x", "ntid_x", 32},
        {"ntid.y", "ntid_y", 32},
        {"ntid.z", "ntid_z", 32},
        {"ctaid.x", "ctaid_x", 32},
        {"ctaid.y", "ctaid_y", 32},
        {"ctaid.z", "ctaid_z", 32},
        {"nctaid.x", "nctaid_x", 32},
        {"nctaid.y", "nctaid_y", 32},
        {"nctaid.z", "nctaid_z", 32},
        {"dynamic_smem_size", "dynamic_smem_size", 32},
        {"total_smem_size", "total_smem_size", 32},
    };
    for (const special_register& r : registers)
      if (r.ptx == name) return &r;
    return nullptr;
  }

  // The characters of a string literal token (`"..."`, no prefix), with
  // the escapes PTX text uses read; nullopt for anything else.
  std::optional<std::string> string_contents(std::size_t i) const {
    if (i >= t_.size() || t_[i].k != kind::literal) return std::nullopt;
    std::string_view lit = text(i);
    if (lit.size() < 2 || lit.front() != '"' || lit.back() != '"') return std::nullopt;
    std::string out;
    for (std::size_t k = 1; k + 1 < lit.size(); ++k) {
      if (lit[k] != '\\' || k + 2 >= lit.size()) {
        out += lit[k];
        continue;
      }
      char e = lit[++k];
      out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
    }
    return out;
  }

  // The PTX instructions of an asm template, each trimmed, without the `;`.
  static std::vector<std::string> ptx_instructions(std::string_view body) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= body.size()) {
      std::size_t end = body.find(';', start);
      if (end == std::string_view::npos) end = body.size();
      std::string_view one = body.substr(start, end - start);
      std::size_t first = one.find_first_not_of(" \t\n\r");
      if (first != std::string_view::npos) {
        std::size_t last = one.find_last_not_of(" \t\n\r");
        out.emplace_back(one.substr(first, last - first + 1));
      }
      start = end + 1;
    }
    return out;
  }

  // The `(` of the asm statement at `i` (past its qualifiers), if `i` starts one.
  std::optional<std::size_t> asm_open(std::size_t i) const {
    if (!(is(i, "asm") || is(i, "__asm__") || is(i, "__asm"))) return std::nullopt;
    std::size_t open = i + 1;
    while (is(open, "volatile") || is(open, "__volatile__") || is(open, "__volatile") || is(open, "inline") ||
           is(open, "goto"))
      ++open;
    if (!is(open, "(")) return std::nullopt;
    return open;
  }

  // The first PTX opcode of the asm statement at `i`, if its text starts
  // with a string literal.
  std::optional<std::string> asm_opcode(std::size_t i) const {
    auto open = asm_open(i);
    if (!open) return std::nullopt;
    auto body = string_contents(*open + 1);
    if (!body) return std::nullopt;
    std::size_t first = body->find_first_not_of(" \t\n\r");
    if (first == std::string::npos) return std::nullopt;
    return body->substr(first, body->find_first_of(" \t\n\r;", first) - first);
  }

  // A named barrier's PTX opcode: bar.sync, bar.arrive, barrier.sync and
  // barrier.arrive, each with .cta or .aligned or both (bar.sync is
  // barrier.sync.aligned; weft runs them alike). The weft::ptx function
  // for it, or nullopt.
  static std::optional<std::string_view> named_barrier_function(std::string_view op) {
    if (op.starts_with("barrier."))
      op.remove_prefix(8);
    else if (op.starts_with("bar."))
      op.remove_prefix(4);
    else
      return std::nullopt;
    if (op.starts_with("cta.")) op.remove_prefix(4);
    if (op.ends_with(".aligned")) op.remove_suffix(8);
    if (op == "sync") return "bar_sync";
    if (op == "arrive") return "bar_arrive";
    return std::nullopt;
  }

  // The call that replaces a named barrier's asm statement, whose operand
  // sections are the tokens [from, close): `weft::ptx::bar_sync(1, 64)`
  // for immediates, `weft::ptx::bar_sync((id), (n))` for `%0` and `%1`
  // naming "r" or "n" inputs. Reports what it cannot port and returns nullopt.
  template <class Report>
  std::optional<std::string> named_barrier_call(std::string_view function, const std::string& instruction,
                                                const std::string& op, int line, std::size_t from, std::size_t close,
                                                const Report& report) const {
    auto refuse = [&](const std::string& why) {
      report({line, "inline PTX `" + instruction + "`: " + why, true});
      return std::nullopt;
    };
    // The sections between the colons, each a list of `"constraint"(expression)`.
    struct operand {
      std::string constraint, expression;
    };
    std::vector<std::vector<operand>> sections;
    for (std::size_t r = from; r < close; ++r) {
      if (is(r, ":") || is(r, "::")) {
        sections.resize(sections.size() + (is(r, "::") ? 2 : 1));
      } else if (is(r, ",") && !sections.empty()) {
      } else if (!sections.empty() && sections.size() <= 3 && string_contents(r) &&
                 (sections.size() == 3 || is(r + 1, "("))) {
        if (sections.size() == 3) continue;  // a clobber
        auto end = match_forward(r + 1);
        if (!end || *end >= close) return refuse("an operand weft-port cannot read");
        sections.back().push_back({*string_contents(r), join(r + 2, *end, nullptr)});
        r = *end;
      } else {
        return refuse("an operand list weft-port cannot read");
      }
    }
    if (sections.size() > 3 || (!sections.empty() && !sections[0].empty())) return refuse("a barrier has no outputs");
    const std::vector<operand> none;
    const std::vector<operand>& inputs = sections.size() >= 2 ? sections[1] : none;
    // `a` or `a, b`: an immediate, or %N naming an input.
    std::string operands = instruction.substr(op.size());
    std::erase_if(operands, [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
    std::vector<std::string> arguments;
    for (std::size_t start = 0; start <= operands.size() && !operands.empty();) {
      std::size_t comma = std::min(operands.find(',', start), operands.size());
      std::string one = operands.substr(start, comma - start);
      if (one.size() > 1 && one[0] == '%' && std::all_of(one.begin() + 1, one.end(), ::isdigit)) {
        std::size_t n = std::stoul(one.substr(1));
        if (n >= inputs.size()) return refuse("`" + one + "` names no input");
        if (inputs[n].constraint != "r" && inputs[n].constraint != "n")
          return refuse("input `" + one + "` has the constraint \"" + inputs[n].constraint + "\", not \"r\" or \"n\"");
        arguments.push_back("(" + inputs[n].expression + ")");
      } else if (!one.empty() && std::all_of(one.begin(), one.end(), ::isalnum) && ::isdigit(one[0])) {
        arguments.push_back(one);
      } else {
        return refuse("operand `" + one + "` is neither an immediate nor an input");
      }
      start = comma + 1;
    }
    if (arguments.empty() || arguments.size() > 2)
      return refuse("a barrier takes an id and, optionally, a thread count");
    if (function == "bar_arrive" && arguments.size() != 2) return refuse("bar.arrive needs a thread count");
    std::string call = "weft::ptx::" + std::string(function) + "(" + arguments[0];
    if (arguments.size() == 2) call += ", " + arguments[1];
    return call + ")";
  }

  void find_inline_ptx() {
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (t_[i].define < 0) continue;
      auto asm_paren = asm_open(i);
      if (!asm_paren) continue;
      // A macro's body may be expanded anywhere: there a read of a special
      // register (PTX, whatever the code around) is ported, and any other
      // assembly left as it is, since it may be the host's.
      bool in_macro = t_[i].define > 0;
      if (!in_macro && scope_[i].where != space::device && scope_[i].where != space::dual) continue;
      auto report = [&](diagnostic d) {
        if (!in_macro) diagnostics.push_back(std::move(d));
      };
      std::size_t open = *asm_paren;
      auto close = match_forward(open);
      if (!close) continue;
      auto unsupported = [&](const std::string& what) {
        report({t_[i].line,
                what + ": weft runs no PTX; weft-port rewrites only a `mov` from one special "
                       "register (%globaltimer, %clock64, %laneid, ...) into one \"=r\" or \"=l\" "
                       "output, and the named barriers bar.sync and bar.arrive (docs/porting.md); "
                       "write this in CUDA C++",
                true});
      };
      std::string body;
      std::size_t k = open + 1;
      for (; k < *close && t_[k].k == kind::literal; ++k) {
        auto part = string_contents(k);
        if (!part) break;
        body += *part;
      }
      if (k == open + 1) {
        unsupported("inline PTX whose text is not a string literal");
        i = *close;
        continue;
      }
      // With operands, GCC's syntax spells a register `%%reg`; nvcc also takes `%reg`.
      for (std::size_t at = body.find("%%"); at != std::string::npos; at = body.find("%%", at + 1)) body.erase(at, 1);
      auto instructions = ptx_instructions(body);
      auto opcode = [](const std::string& instruction) {
        return instruction.substr(0, instruction.find_first_of(" \t\n"));
      };
      if (instructions.size() != 1) {
        std::string names;
        for (const std::string& in : instructions) names += (names.empty() ? "`" : ", `") + opcode(in) + "`";
        unsupported(instructions.empty() ? std::string("empty inline PTX")
                                         : "inline PTX with several instructions (" + names + ")");
        i = *close;
        continue;
      }
      const std::string& instruction = instructions.front();
      std::string op = opcode(instruction);
      if (auto function = named_barrier_function(op)) {
        if (auto call = named_barrier_call(*function, instruction, op, t_[i].line, k, *close, report)) {
          construct c{};
          c.kind = construct_kind::text;
          c.begin = t_[i].begin;
          c.end = t_[*close].end;
          c.text = *call + line_breaks(c.begin, c.end);
          constructs_.push_back(c);
          if (!in_macro) ported_named_barriers_.insert(i);
        }
        i = *close;
        continue;
      }
      int bits = op == "mov.u32" || op == "mov.s32" || op == "mov.b32"   ? 32
                 : op == "mov.u64" || op == "mov.s64" || op == "mov.b64" ? 64
                                                                         : 0;
      if (bits == 0) {
        unsupported("unsupported inline PTX instruction `" + op + "`");
        i = *close;
        continue;
      }
      // The operands: `%0, %reg` (or `%%reg`, as GCC's syntax needs with operands).
      std::string operands = instruction.substr(op.size());
      std::erase_if(operands, [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
      std::size_t comma = operands.find(',');
      std::string source = comma == std::string::npos ? "" : operands.substr(comma + 1);
      const special_register* reg = source.starts_with("%") ? find_special_register(source.substr(1)) : nullptr;
      if (comma == std::string::npos || operands.substr(0, comma) != "%0" || !reg) {
        unsupported("unsupported inline PTX `" + instruction + "` (not a read of a special register weft knows)");
        i = *close;
        continue;
      }
      if (reg->bits != bits) {
        report({t_[i].line,
                "inline PTX `" + instruction + "` moves the " + std::to_string(reg->bits) + "-bit register %" +
                    std::string(reg->ptx) + " with a " + std::to_string(bits) + "-bit `" + op +
                    "`, which ptxas rejects",
                true});
        i = *close;
        continue;
      }
      // The one output: `: "=r"(lvalue)` (32 bits) or `: "=l"(lvalue)` (64 bits),
      // then nothing but empty inputs and clobbers.
      std::size_t j = k;
      std::optional<std::string> constraint = is(j, ":") ? string_contents(j + 1) : std::nullopt;
      std::string wanted = bits == 32 ? "=r" : "=l";
      if (!constraint || !is(j + 2, "(")) {
        unsupported("inline PTX `" + instruction + "` without one \"" + wanted + "\" output");
        i = *close;
        continue;
      }
      auto output_close = match_forward(j + 2);
      if (*constraint != wanted) {
        report({t_[i].line,
                "inline PTX `" + instruction + "` writes a " + std::to_string(bits) +
                    "-bit register, whose output constraint is \"" + wanted + "\", not \"" + *constraint + "\"",
                true});
        i = *close;
        continue;
      }
      bool rest_ok = output_close && *output_close < *close;
      if (rest_ok) {
        // `: /*inputs*/ : "memory"` or `:: "memory"`: no inputs; clobbers are fine.
        std::size_t r = *output_close + 1;
        int colons = 0;
        for (; r < *close; ++r) {
          if (is(r, ":")) {
            ++colons;
          } else if (is(r, "::")) {
            colons += 2;
          } else if (colons >= 2 && (t_[r].k == kind::literal || is(r, ","))) {
          } else {
            rest_ok = false;
            break;
          }
        }
      }
      if (!rest_ok) {
        unsupported("inline PTX `" + instruction + "` with inputs or more outputs");
        i = *close;
        continue;
      }
      construct c{};
      c.kind = construct_kind::text;
      c.begin = t_[i].begin;
      c.end = t_[*close].end;
      c.text = "(" + join(j + 3, *output_close, nullptr) + ") = weft::ptx::" + std::string(reg->weft) + "()" +
               line_breaks(c.begin, c.end);
      constructs_.push_back(c);
      i = *close;
    }
  }

  // A group at namespace or class scope that tests __CUDA_ARCH__.
  template <class DeviceDirective>
  void file_scope_group(const conditional_group& g, DeviceDirective& device_directive) {
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
      device |=
          where == space::device || where == space::dual || (qualifier(k) & (qualifier_device | qualifier_global));
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

  // nvcc -arch=sm_90 leaves out of a kernel what a test of __CUDA_ARCH__
  // excludes at 900 (`#if __CUDA_ARCH__ >= 1000`), and so does weft: a
  // warning says so, so that a kernel that does nothing on weft never does so
  // silently. (Code for the host pass only, `#ifndef __CUDA_ARCH__`, is
  // meant to be left out.)
  void warn_if_kernel_code_left_out(const conditional_group& g) {
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

  // ---- stackless kernels ----
  //
  // A kernel whose every wait is a barrier or warp collective in its own
  // body can run its CUDA threads as C++20 coroutines (weft/stackless_kernel.hpp,
  // docs/architecture.md, "Stackless kernels"): its return type becomes
  // weft::stackless_kernel, each `__syncthreads()` `(co_await weft::syncthreads())`
  // (the others alike), each `return` `co_return`, one token for one token, so
  // the lines stay. weft-port converts a kernel only where it can see that
  // nothing else waits: every call in its body is to a function known not to
  // wait (CUDA's math, atomics and intrinsics, or a function of this file or
  // of a file it includes whose body calls only such functions), and its name
  // is used only by launches and the attribute calls that take a stackless
  // kernel. Anything else stays on fibers, which run every kernel.

  // CUDA's blocking calls and the awaitable each becomes.
  static std::optional<std::string_view> awaitable_for(std::string_view name) {
    static constexpr std::pair<std::string_view, std::string_view> names[] = {
        {"__syncthreads", "syncthreads"},
        {"__syncthreads_count", "syncthreads_count"},
        {"__syncthreads_and", "syncthreads_and"},
        {"__syncthreads_or", "syncthreads_or"},
        {"__syncwarp", "syncwarp"},
        {"__shfl_sync", "shfl_sync"},
        {"__shfl_up_sync", "shfl_up_sync"},
        {"__shfl_down_sync", "shfl_down_sync"},
        {"__shfl_xor_sync", "shfl_xor_sync"},
        {"__all_sync", "all_sync"},
        {"__any_sync", "any_sync"},
        {"__ballot_sync", "ballot_sync"},
        {"__match_any_sync", "match_any_sync"},
        {"__match_all_sync", "match_all_sync"},
        {"__reduce_add_sync", "reduce_add_sync"},
        {"__reduce_min_sync", "reduce_min_sync"},
        {"__reduce_max_sync", "reduce_max_sync"},
        {"__reduce_and_sync", "reduce_and_sync"},
        {"__reduce_or_sync", "reduce_or_sync"},
        {"__reduce_xor_sync", "reduce_xor_sync"},
        {"__activemask", "activemask"},
    };
    for (const auto& [cuda, weft] : names)
      if (cuda == name) return weft;
    return std::nullopt;
  }

  // Names that wait, or that a coroutine cannot hold, with no awaitable yet:
  // a kernel that mentions one stays on fibers.
  static std::optional<std::string_view> unconvertible(std::string_view name) {
    static constexpr std::pair<std::string_view, std::string_view> names[] = {
        {"__shfl", "uses a pre-CUDA 9 warp function"},
        {"__shfl_up", "uses a pre-CUDA 9 warp function"},
        {"__shfl_down", "uses a pre-CUDA 9 warp function"},
        {"__shfl_xor", "uses a pre-CUDA 9 warp function"},
        {"__all", "uses a pre-CUDA 9 warp function"},
        {"__any", "uses a pre-CUDA 9 warp function"},
        {"__ballot", "uses a pre-CUDA 9 warp function"},
        {"__barrier_sync", "uses a named barrier"},
        {"__nanosleep", "sleeps (a spin-wait: another thread of the block must run meanwhile)"},
        {"this_multi_grid", "uses a multi-device grid group (deprecated, and not awaited)"},
        {"nvcuda", "uses warp matrix functions (they wait)"},
        {"wmma", "uses warp matrix functions (they wait)"},
        {"asm", "has inline assembly"},
        {"__asm__", "has inline assembly"},
        {"__asm", "has inline assembly"},
        {"try", "has a try block (a coroutine cannot wait in a handler)"},
        {"co_await", "is a coroutine already"},
        {"co_return", "is a coroutine already"},
        {"co_yield", "is a coroutine already"},
        {"setjmp", "uses setjmp"},
    };
    for (const auto& [cuda, why] : names)
      if (cuda == name) return why;
    return std::nullopt;
  }

  // Words followed by `(` that are no call, and the built-in types whose
  // `T(x)` is a conversion.
  static bool is_not_a_call(std::string_view name) {
    static constexpr std::string_view words[] = {"if",
                                                 "for",
                                                 "while",
                                                 "switch",
                                                 "return",
                                                 "sizeof",
                                                 "alignof",
                                                 "decltype",
                                                 "static_cast",
                                                 "const_cast",
                                                 "reinterpret_cast",
                                                 "dynamic_cast",
                                                 "noexcept",
                                                 "alignas",
                                                 "__align__",
                                                 "static_assert",
                                                 "typeid",
                                                 "throw",
                                                 "new",
                                                 "delete",
                                                 "defined",
                                                 "__attribute__",
                                                 "__launch_bounds__",
                                                 "__declspec",
                                                 "int",
                                                 "unsigned",
                                                 "signed",
                                                 "float",
                                                 "double",
                                                 "char",
                                                 "short",
                                                 "long",
                                                 "bool",
                                                 "void",
                                                 "auto",
                                                 "size_t",
                                                 "dim3",
                                                 "case",
                                                 "else",
                                                 "do",
                                                 "operator",
                                                 "__restrict__",
                                                 "const",
                                                 "volatile",
                                                 "__half",
                                                 "__half2",
                                                 "__nv_bfloat16",
                                                 "__nv_bfloat162",
                                                 "uint3"};
    if (one_of(words, name)) return true;
    if (name.ends_with("_t")) return true;  // uint32_t, ptrdiff_t, ...
    // CUDA's vector types: float4, uchar2, longlong3, ...
    static constexpr std::string_view vectors[] = {"char", "uchar", "short",    "ushort",    "int",   "uint",
                                                   "long", "ulong", "longlong", "ulonglong", "float", "double"};
    for (std::string_view v : vectors)
      if (name.size() == v.size() + 1 && name.starts_with(v) && name.back() >= '1' && name.back() <= '4') return true;
    return false;
  }

  // CUDA and C++ functions a kernel may call that never wait: math,
  // conversions, atomics, printf, texture fetches, cuRAND, vector makers.
  static bool never_waits(std::string_view name) {
    static constexpr std::string_view functions[] = {"printf",
                                                     "assert",
                                                     "malloc",
                                                     "free",
                                                     "memcpy",
                                                     "memset",
                                                     "min",
                                                     "max",
                                                     "abs",
                                                     "fabs",
                                                     "fabsf",
                                                     "sqrt",
                                                     "sqrtf",
                                                     "rsqrt",
                                                     "rsqrtf",
                                                     "cbrt",
                                                     "cbrtf",
                                                     "exp",
                                                     "expf",
                                                     "exp2",
                                                     "exp2f",
                                                     "exp10",
                                                     "exp10f",
                                                     "expm1",
                                                     "expm1f",
                                                     "log",
                                                     "logf",
                                                     "log2",
                                                     "log2f",
                                                     "log10",
                                                     "log10f",
                                                     "log1p",
                                                     "log1pf",
                                                     "pow",
                                                     "powf",
                                                     "sin",
                                                     "sinf",
                                                     "cos",
                                                     "cosf",
                                                     "tan",
                                                     "tanf",
                                                     "asin",
                                                     "asinf",
                                                     "acos",
                                                     "acosf",
                                                     "atan",
                                                     "atanf",
                                                     "atan2",
                                                     "atan2f",
                                                     "sinh",
                                                     "sinhf",
                                                     "cosh",
                                                     "coshf",
                                                     "tanh",
                                                     "tanhf",
                                                     "sincos",
                                                     "sincosf",
                                                     "sinpi",
                                                     "sinpif",
                                                     "cospi",
                                                     "cospif",
                                                     "floor",
                                                     "floorf",
                                                     "ceil",
                                                     "ceilf",
                                                     "round",
                                                     "roundf",
                                                     "trunc",
                                                     "truncf",
                                                     "rint",
                                                     "rintf",
                                                     "lrint",
                                                     "lrintf",
                                                     "llrint",
                                                     "llrintf",
                                                     "lround",
                                                     "lroundf",
                                                     "llround",
                                                     "llroundf",
                                                     "fmin",
                                                     "fminf",
                                                     "fmax",
                                                     "fmaxf",
                                                     "fmod",
                                                     "fmodf",
                                                     "fma",
                                                     "fmaf",
                                                     "hypot",
                                                     "hypotf",
                                                     "erf",
                                                     "erff",
                                                     "erfc",
                                                     "erfcf",
                                                     "erfinv",
                                                     "erfinvf",
                                                     "lgamma",
                                                     "lgammaf",
                                                     "tgamma",
                                                     "tgammaf",
                                                     "copysign",
                                                     "copysignf",
                                                     "isnan",
                                                     "isinf",
                                                     "isfinite",
                                                     "signbit",
                                                     "fdividef",
                                                     "frexp",
                                                     "frexpf",
                                                     "ldexp",
                                                     "ldexpf",
                                                     "normcdf",
                                                     "normcdff",
                                                     "remainder",
                                                     "remainderf",
                                                     "umin",
                                                     "umax",
                                                     "llmin",
                                                     "llmax",
                                                     "ullmin",
                                                     "ullmax",
                                                     "saturate",
                                                     "swap",
                                                     "clock",
                                                     "clock64",
                                                     "labs",
                                                     "llabs",
                                                     "dim3",
                                                     "atomic_ref",  // cuda::atomic_ref's constructor, its members:
                                                     "load",
                                                     "store",
                                                     "exchange",
                                                     "compare_exchange_weak",
                                                     "compare_exchange_strong",
                                                     "fetch_add",
                                                     "fetch_sub",
                                                     "fetch_and",
                                                     "fetch_or",
                                                     "fetch_xor",
                                                     "fetch_min",
                                                     "fetch_max",
                                                     "atomicAdd",
                                                     "atomicSub",
                                                     "atomicMin",
                                                     "atomicMax",
                                                     "atomicInc",
                                                     "atomicDec",
                                                     "atomicAnd",
                                                     "atomicOr",
                                                     "atomicXor",
                                                     "atomicCAS",
                                                     "atomicExch",
                                                     "curand",
                                                     "curand_init",
                                                     "curand_uniform",
                                                     "curand_normal",
                                                     "curand_uniform4",
                                                     "curand_normal2",
                                                     "curand_normal4",
                                                     "curand_uniform_double",
                                                     "curand_normal_double",
                                                     "curand_log_normal",
                                                     "tex1Dfetch",
                                                     "tex1D",
                                                     "tex2D",
                                                     "tex3D",
                                                     "tex1DLayered",
                                                     "tex2DLayered",
                                                     "texCubemap",
                                                     "tex2DLod",
                                                     "tex2Dgather",
                                                     "surf1Dread",
                                                     "surf1Dwrite",
                                                     "surf2Dread",
                                                     "surf2Dwrite",
                                                     "surf3Dread",
                                                     "surf3Dwrite",
                                                     "numeric_limits",
                                                     "lowest",
                                                     "epsilon",
                                                     "infinity",
                                                     "quiet_NaN",
                                                     "move",
                                                     "forward"};
    if (one_of(functions, name)) return true;
    if (name.starts_with("make_")) return true;  // make_float4, make_int2, ...
    if (name.starts_with("atomic") && (name.ends_with("_block") || name.ends_with("_system"))) return true;
    // CUDA's intrinsics (__fmul_rn, __float2half, __ldg, __popc, __threadfence, ...):
    // those that wait are named above.
    return name.starts_with("__") && !awaitable_for(name) && !unconvertible(name);
  }

  // What a function's (or macro's, or kernel's) body does, as far as
  // converting goes.
  struct body_facts {
    std::vector<std::size_t> waits;        // name tokens of blocking calls
    std::vector<std::size_t> returns;      // `return` tokens outside lambdas
    std::vector<std::string> calls;        // other names called, to resolve
    std::vector<std::size_t> call_tokens;  // where each is called (its name token)
    std::vector<std::size_t> group_waits;  // name tokens of awaited calls: `cg::sync(`, `g.shfl(`, `bar.wait(`
    bool awaits_group = false;             // some of them are cooperative groups' (weft/stackless_groups.hpp)
    bool awaits_barrier = false;           // some are a cuda::barrier's (weft/stackless_barrier.hpp)
    bool awaits_pipeline = false;          // some are a block pipeline's (weft/stackless_pipeline.hpp)
    std::string refusal;                   // why it can never be stackless, if it cannot
    bool waits_in_lambda = false;
    bool named_barrier = false;            // waits at a named barrier (inline PTX)
    std::vector<std::size_t> named_waits;  // the `asm` tokens of those it awaits (weft/stackless_named_barriers.hpp)
    bool returns_value = false;
    std::string spin;  // where and how it spins ("line 12: ..."), waiting for another thread; "" if it does not
    bool has_lambda = false;
  };

  // `params` (the parameter list's `(`, if a function's) names the groups
  // passed in.
  body_facts facts_of(std::size_t from, std::size_t to, std::optional<std::size_t> params = std::nullopt) const {
    body_facts f;
    std::set<std::string, std::less<>> groups = group_variables(params ? *params : from, to);
    std::set<std::string, std::less<>> barriers = block_barrier_variables(params ? *params : from, to);
    std::set<std::string, std::less<>> thread_pipelines = thread_pipeline_variables(params ? *params : from, to);
    std::set<std::string, std::less<>> blocks = block_variables(params ? *params : from, to);
    // The groups a pipeline may be made of: the block's names and the tiles'.
    std::set<std::string, std::less<>> pipeline_groups = blocks;
    pipeline_groups.insert(groups.begin(), groups.end());
    std::set<std::string, std::less<>> block_pipelines =
        block_pipeline_variables(params ? *params : from, to, pipeline_groups);
    std::set<std::size_t> flag_declared;
    std::map<std::string, std::string_view, std::less<>> flags = namespace_scope_flags_;
    for (auto [k, what] : flag_declarations(params ? *params : from, to)) {
      flag_declared.insert(k);
      flags[std::string(text(k))] = what;
    }
    std::vector<std::pair<std::size_t, std::size_t>> lambdas;
    auto in_lambda = [&](std::size_t i) {
      return std::any_of(lambdas.begin(), lambdas.end(), [&](auto r) { return i > r.first && i < r.second; });
    };
    for (std::size_t i = from; i < to; ++i) {
      if (t_[i].k == kind::directive) continue;
      if (is(i, "<") && run_of(i, "<") >= 3) f.refusal = "launches a kernel (dynamic parallelism)";
      // A lambda: `[` where no subscript can be, not `[[`.
      if (is(i, "[") && !is(i + 1, "[") && !(i > 0 && is(i - 1, "[")) && i > 0 &&
          !(is_identifier(i - 1) && !is_keyword(i - 1)) && !is(i - 1, "]") && !is(i - 1, ")")) {
        if (auto close = match_forward(i)) {
          std::size_t b = *close + 1;
          while (b < to && !is(b, "{") && !is(b, ";")) ++b;
          if (is(b, "{"))
            if (auto end = match_forward(b)) lambdas.emplace_back(b, *end);
        }
      }
      // On a GPU another thread of the block sets what a spin waits for; a
      // coroutine runs each thread to its next barrier, so that thread would
      // never run.
      if ((is(i, "while") || is(i, "for")) && is(i + 1, "(") && f.spin.empty())
        if (auto close = match_forward(i + 1))
          if (std::string how = loop_spin(i, *close, flags); !how.empty())
            f.spin = "line " + std::to_string(t_[i].line) + ": " + how;
      if (t_[i].k != kind::identifier) continue;
      std::string_view name = text(i);
      if (auto op = asm_opcode(i); op && named_barrier_function(*op)) {
        f.named_barrier = true;
        if (!ported_named_barriers_.contains(i)) {
          if (f.refusal.empty())
            f.refusal = "uses a named barrier (inline PTX `" + *op + "`) that weft-port does not port";
        } else if (in_lambda(i)) {
          f.waits_in_lambda = true;
        } else {
          f.named_waits.push_back(i);
        }
        continue;
      }
      // libcu++'s copies and thread-scope pipelines never wait: weft copies
      // at once (cuda/device/async/memcpy_async.hpp), so a thread's own
      // pipeline has nothing to wait for.
      bool of_cuda = i >= 2 && is(i - 1, "::") && is(i - 2, "cuda");
      if (of_cuda && is(i + 1, "(") &&
          (name == "memcpy_async" || (name == "make_pipeline" && is(i + 2, ")")) || name == "pipeline_producer_commit"))
        continue;
      if (of_cuda && name == "pipeline_consumer_wait_prior" && is(i + 1, "<")) continue;
      // A block's unified pipeline, made from the block itself
      // (`cuda::make_pipeline(block, &state)`), is awaited
      // (weft/stackless_pipeline.hpp): making it, producer_acquire and
      // consumer_wait; committing and releasing never wait.
      auto await_pipeline = [&] {
        if (in_lambda(i)) {
          f.waits_in_lambda = true;
        } else {
          f.group_waits.push_back(i);
          f.awaits_pipeline = true;
        }
      };
      if (of_cuda && name == "make_pipeline" && is(i + 1, "(") && made_of_block(i + 1, pipeline_groups)) {
        await_pipeline();
        continue;
      }
      bool of_block_pipeline =
          i >= 2 && is(i - 1, ".") && is_identifier(i - 2) && block_pipelines.contains(text(i - 2)) && is(i + 1, "(");
      if (of_block_pipeline && (name == "producer_acquire" || name == "consumer_wait")) {
        await_pipeline();
        continue;
      }
      if (of_block_pipeline && (name == "producer_commit" || name == "consumer_release" || name == "quit")) continue;
      // Any other pipeline shared by threads waits where weft-port cannot say.
      bool block_pipeline = of_cuda && ((name == "make_pipeline" && is(i + 1, "(") && !is(i + 2, ")")) ||
                                        (name == "pipeline" && is(i + 1, "<") && !is(i + 2, "cuda") &&
                                         !is(i + 2, "thread_scope_thread") && !is(i + 2, "thread_scope_block")) ||
                                        (name == "pipeline" && is(i + 1, "<") && is(i + 2, "cuda") &&
                                         !is(i + 4, "thread_scope_thread") && !is(i + 4, "thread_scope_block")));
      if (block_pipeline) {
        if (f.refusal.empty())
          f.refusal =
              "uses a cuda::pipeline shared by threads that weft-port cannot tell is made of a named block or tile "
              "(cuda::make_pipeline(group, &state[, producers or role]), the one weft-port awaits)";
        continue;
      }
      bool of_thread_pipeline =
          i >= 2 && is(i - 1, ".") && is_identifier(i - 2) && thread_pipelines.contains(text(i - 2)) && is(i + 1, "(");
      if (of_thread_pipeline && (name == "producer_acquire" || name == "producer_commit" || name == "consumer_wait" ||
                                 name == "consumer_release" || name == "quit"))
        continue;
      if (auto why = unconvertible(name)) {
        if (f.refusal.empty()) f.refusal = std::string(*why);
        continue;
      }
      bool member = i > 0 && (is(i - 1, ".") || is(i - 1, "->"));
      // Cooperative groups: what maps one to one onto an awaitable of
      // weft/stackless_groups.hpp is awaited, making groups and asking their
      // ranks never waits, anything else keeps the kernel on fibers.
      if (is_groups_namespace(i) && is(i + 1, "::")) continue;
      bool qualified = i >= 2 && is(i - 1, "::") && is_groups_namespace(i - 2);
      bool of_group = member && i >= 2 && is(i - 1, ".") && is_identifier(i - 2) && groups.contains(text(i - 2));
      // A group call that waits is awaited (unless inside a lambda); one that
      // may wait but has no awaitable keeps the kernel on fibers.
      auto note_group_call = [&](bool waits, bool never_waits, std::string_view refusal) {
        if (waits) {
          if (in_lambda(i)) {
            f.waits_in_lambda = true;
          } else {
            f.group_waits.push_back(i);
            f.awaits_group = true;
          }
        } else if (!never_waits && f.refusal.empty()) {
          f.refusal = std::string(refusal) + std::string(name) + " (not awaited)";
        }
      };
      bool unqualified_group_name = !member && !(i > 0 && is(i - 1, "::")) && groups_namespace_used_ &&
                                    (group_function_waits(name) || group_name_never_waits(name));
      if (unqualified_group_name && file_function_names_.contains(name)) {
        // Overload resolution picks between the two, which weft-port cannot.
        if (f.refusal.empty())
          f.refusal = "calls `" + std::string(name) +
                      "`, which names both a function of this file and cooperative groups' (after `using namespace "
                      "cooperative_groups;`)";
        continue;
      }
      if (qualified || unqualified_group_name ||
          (!member && (name == "this_thread_block" || name == "tiled_partition" || name == "coalesced_threads" ||
                       name == "thread_block_tile"))) {
        // A tile of any size, a template parameter's included: the
        // awaitables take tiles of one warp and of 64 to 1024 threads,
        // which are all the sizes CUDA has.
        note_group_call(is(call_parenthesis(i), "(") && group_function_waits(name), group_name_never_waits(name),
                        "uses cooperative_groups::");
        continue;
      }
      // cg::memcpy_async unqualified, cooperative groups' namespace not used: not known to be cooperative groups'.
      if (name == "memcpy_async" && !member && !(i > 0 && is(i - 1, "::"))) {
        if (f.refusal.empty()) f.refusal = "calls memcpy_async, which weft-port cannot tell is cooperative groups'";
        continue;
      }
      // Any other cuda::barrier (of another scope, in an array, behind an
      // alias) may wait where weft-port cannot see it.
      if (name == "barrier" && i >= 2 && is(i - 1, "::") && is(i - 2, "cuda")) {
        std::size_t j = i + 1;
        if (is(j, "<"))
          if (auto close = angle_forward(j)) j = *close + 1;
        while (is(j, "&") || is(j, "const")) ++j;
        if (!(is_identifier(j) && barriers.contains(text(j))) && f.refusal.empty())
          f.refusal =
              "uses a cuda::barrier that weft-port cannot tell is a block-scope variable of the kernel (one of "
              "device or system scope may wait for other blocks)";
        continue;
      }
      // A block-scope cuda::barrier: its waits are awaited, arriving and
      // init(&bar, n) never wait.
      bool of_barrier = member && i >= 2 && is(i - 1, ".") && is_identifier(i - 2) && barriers.contains(text(i - 2));
      if (of_barrier && is(i + 1, "(")) {
        if (name == "arrive_and_wait" || name == "wait") {
          if (in_lambda(i)) {
            f.waits_in_lambda = true;
          } else {
            f.group_waits.push_back(i);
            f.awaits_barrier = true;
          }
        } else if (name != "arrive" && name != "arrive_and_drop" && f.refusal.empty()) {
          f.refusal = "calls a cuda::barrier's " + std::string(name) + " (not awaited)";
        }
        continue;
      }
      if (!member && name == "init" && is(i + 1, "(") && is(i + 2, "&") && is_identifier(i + 3) &&
          barriers.contains(text(i + 3)) && (is(i + 4, ",") || is(i + 4, ")")))
        continue;
      // A member of a group made in place: `cg::this_grid().thread_rank()`,
      // `cg::tiled_partition<64>(block).sync()`.
      bool of_made_group = false;
      if (member && is(i - 1, ".") && i >= 2 && is(i - 2, ")"))
        if (auto open = match_backward(i - 2); open && *open > 0) {
          std::size_t maker = *open - 1;
          if (is(maker, ">"))
            if (auto angle = match_angle_backward(maker); angle && *angle > 0) maker = *angle - 1;
          of_made_group = is_identifier(maker) && group_name_never_waits(text(maker)) &&
                          !(is(maker - 1, "::") && !is_groups_namespace(maker - 2));
        }
      if (of_made_group && is(i + 1, "(")) {
        if (!group_member_never_waits(name) && f.refusal.empty())
          f.refusal = "calls a group's " + std::string(name) +
                      " on a group it does not name (weft-port awaits a named group's: `auto grid = cg::this_grid(); "
                      "grid.sync();`)";
        continue;
      }
      if (of_group && is(i + 1, "(")) {
        note_group_call(group_member_waits(name), group_member_never_waits(name), "calls a group's ");
        continue;
      }
      if (awaitable_for(name) && !member) {
        if (!is(i + 1, "(")) {
          if (f.refusal.empty()) f.refusal = "names " + std::string(name) + " without calling it";
        } else if (in_lambda(i)) {
          f.waits_in_lambda = true;
        } else {
          f.waits.push_back(i);
        }
        continue;
      }
      if (name == "return" && !in_lambda(i)) {
        f.returns.push_back(i);
        if (!is(i + 1, ";")) f.returns_value = true;
        continue;
      }
      // An atomic's wait (groups', barriers' and pipelines' are above)
      // blocks until another thread changes the value.
      if (member && name == "wait" && is(i + 1, "(")) {
        if (f.spin.empty())
          f.spin = "line " + std::to_string(t_[i].line) +
                   ": calls .wait(), an atomic's or a barrier's wait for another thread";
        continue;
      }
      // An atomic flag's members other than wait, as an atomic's, never wait.
      static constexpr std::string_view flag_members[] = {"test", "test_and_set", "clear", "notify_one", "notify_all"};
      if (member && is(i + 1, "(") && one_of(flag_members, name)) continue;
      // `cuda::atomic_ref<int> ref(word);` declares ref: no call.
      if (flag_declared.contains(i)) continue;
      // A call: `f(`, `f<T>(`; `obj.f(` and `ns::f(` by their last name.
      std::size_t after = i + 1;
      if (is(after, "<"))
        if (auto close = angle_forward(after)) after = *close + 1;
      if (!is(after, "(")) continue;
      if (is_not_a_call(name) || is_keyword(i)) continue;
      // `float2 v(a, b);`, `Tile t(p, n);`: a type's name before it makes
      // `v` a variable initialised directly, not a function called.
      // Operators spelt as words (`k xor f(x)`) call, as `k ^ f(x)` does.
      static constexpr std::string_view type_words[] = {"int", "char", "float", "double", "auto", "const", "volatile"};
      static constexpr std::string_view operator_words[] = {"xor",    "bitand", "bitor", "compl",
                                                            "not_eq", "and_eq", "or_eq", "xor_eq"};
      if (i > 0 && is_identifier(i - 1) && !one_of(operator_words, text(i - 1)) &&
          (!is_keyword(i - 1) || one_of(type_words, text(i - 1))))
        continue;
      f.calls.emplace_back(name);
      f.call_tokens.push_back(i);
    }
    f.has_lambda = !lambdas.empty();
    return f;
  }

  // ---- spins ----

  // The name tokens of the variables declared in tokens [from, to) that a
  // loop may spin on, each with "volatile" or "atomic": `volatile` ones, and
  // those of an atomic type (cuda::std::atomic<T>, cuda::atomic_ref<T, S>,
  // cuda::std::atomic_flag, cuda::std::atomic_int, ...), which another
  // thread's write changes.
  std::vector<std::pair<std::size_t, std::string_view>> flag_declarations(std::size_t from, std::size_t to) const {
    std::vector<std::pair<std::size_t, std::string_view>> out;
    auto ends_declarator = [&](std::size_t j) {
      return is(j, ";") || is(j, ",") || is(j, ")") || is(j, "=") || is(j, "[") || is(j, "{") || is(j, "(");
    };
    for (std::size_t i = from; i < to && i < t_.size(); ++i) {
      if (!is_identifier(i)) continue;
      std::string_view name = text(i);
      if (name == "atomic" || name == "atomic_ref" || name == "atomic_flag" ||
          (name.starts_with("atomic_") && !is(call_parenthesis(i), "("))) {  // atomic_int, not atomic_load(
        std::size_t j = i + 1;
        if (is(j, "<")) {
          auto close = angle_forward(j);
          if (!close) continue;
          j = *close + 1;
        }
        while (is(j, "*") || is(j, "&") || is(j, "const") || is(j, "volatile") || is(j, "__restrict__")) ++j;
        if (is_identifier(j) && !is_keyword(j) && ends_declarator(j + 1)) out.emplace_back(j, "atomic");
      } else if (name == "volatile") {
        // The rest of the type and the declarator: `volatile unsigned int* const flag`; a cast,
        // `(volatile int*)p`, declares nothing.
        std::size_t last = i, j = i + 1;
        for (; j < to; ++j) {
          if (is(j, "<")) {
            auto close = angle_forward(j);
            if (!close) break;
            last = j = *close;
          } else if (is_identifier(j) || is(j, "::") || is(j, "*") || is(j, "&")) {
            last = j;
          } else {
            break;
          }
        }
        if (last > i && is_identifier(last) && !is_keyword(last) && !is_not_a_call(text(last)) && ends_declarator(j))
          out.emplace_back(last, "volatile");
      }
    }
    return out;
  }

  // The `do` of `do body while (...);` whose `while` is at `loop`: before
  // it a braced body, or one statement (`do ++n; while (...);`).
  std::optional<std::size_t> do_of(std::size_t loop) const {
    if (!is(loop, "while") || loop == 0) return std::nullopt;
    std::size_t k = loop - 1;
    if (is(k, "}")) {
      auto open = match_backward(k);
      if (open && *open > 0 && is(*open - 1, "do")) return *open - 1;
      return std::nullopt;
    }
    if (!is(k, ";")) return std::nullopt;
    while (k > 0) {
      --k;
      if (is(k, "do")) return k;
      if (is(k, ";") || is(k, "{") || is(k, "}")) return std::nullopt;
      if (is(k, ")") || is(k, "]")) {
        auto open = match_backward(k);
        if (!open) return std::nullopt;
        k = *open;
      }
    }
    return std::nullopt;
  }

  // How the loop at `loop` (`while` or `for`, its header's `)` at `close`)
  // waits for another thread: its body does nothing, or what it tests each
  // round calls an atomic's reading member or an atomic function, or reads
  // a volatile or atomic variable of `flags` (name: "volatile" or "atomic");
  // an endless loop's body, the same but for the atomic functions that take
  // work (`atomicAdd`). "" if it does not seem to wait: `for (int i = 0; i <
  // n; ++i)`, or `while ((i = next.fetch_add(1)) < n)`, which takes work.
  std::string loop_spin(std::size_t loop, std::size_t close,
                        const std::map<std::string, std::string_view, std::less<>>& flags) const {
    std::size_t body = close + 1;
    if (auto d = do_of(loop)) body = *d + 1;
    if (is(body, ";") || (is(body, "{") && is(body + 1, "}"))) return "a loop with an empty body";
    // What each round evaluates again: a while's condition, a for's
    // condition and increment (not its initialisation; a range-for none).
    std::size_t first = loop + 2, condition_end = close;
    if (is(loop, "for")) {
      first = close;
      int depth = 0;
      for (std::size_t k = loop + 2; k < close; ++k) {
        if (is_opener(k)) ++depth;
        if (is_closer(k)) --depth;
        if (depth == 0 && is(k, ";")) {
          if (first != close) {
            condition_end = k;
            break;
          }
          first = k + 1;
        }
      }
      if (first == close) return "";  // a range-for
    }
    // An endless loop (`for (;;)`, `while (true)`, `while (1)`, `do { ... }
    // while (true);`) waits on what its body tests before it breaks.
    bool endless = first == condition_end || (first + 1 == condition_end && (is(first, "true") || text(first) == "1"));
    std::size_t last = close;
    if (endless && is(body, "{"))
      if (auto end = match_forward(body)) first = body + 1, last = *end;
    static constexpr std::string_view polls[] = {
        "load", "test_and_set", "test", "compare_exchange_weak", "compare_exchange_strong", "exchange", "wait"};
    std::string where = endless ? "an endless loop whose body " : "a loop whose condition ";
    for (std::size_t k = first; k < last; ++k) {
      if (!is_identifier(k)) continue;
      std::string_view name = text(k);
      bool member = is(k - 1, ".") || is(k - 1, "->");
      if (member && is(k + 1, "(") && one_of(polls, name)) return where + "calls ." + std::string(name) + "()";
      if (!member && name.starts_with("atomic") && !endless) return where + "names " + std::string(name);
      if (!member && (name == "atomicCAS" || name == "atomicExch")) return where + "calls " + std::string(name);
      if (name == "volatile") return where + "reads through a volatile cast";
    }
    // A variable read as a whole (`while (!ready)`, `while (*flag == 0)`);
    // an atomic's other members (fetch_add, store) read nothing to wait on.
    for (std::size_t k = first; k < last; ++k) {
      if (!is_identifier(k) || is(k - 1, ".") || is(k - 1, "->") || is(k - 1, "::") || is(k + 1, "::")) continue;
      auto flag = flags.find(text(k));
      if (flag == flags.end() || (flag->second == "atomic" && (is(k + 1, ".") || is(k + 1, "->")))) continue;
      return where + "reads the " + std::string(flag->second) + " " + std::string(text(k));
    }
    return "";
  }

  // ---- cooperative groups in stackless kernels ----

  // The token after the name at `name` and its template arguments, if any:
  // the call's `(` in `cg::wait_prior<1>(block)`.
  std::size_t call_parenthesis(std::size_t name) const {
    if (is(name + 1, "<"))
      if (auto close = angle_forward(name + 1)) return *close + 1;
    return name + 1;
  }

  // `cooperative_groups` or a name the file gives it (`namespace cg = cooperative_groups;`).
  bool is_groups_namespace(std::size_t i) const {
    return is_identifier(i) && (text(i) == "cooperative_groups" || group_aliases_.contains(text(i)));
  }

  std::set<std::string, std::less<>> find_group_aliases() const {
    std::set<std::string, std::less<>> out;
    for (std::size_t i = 0; i + 3 < t_.size(); ++i)
      if (is(i, "namespace") && is_identifier(i + 1) && is(i + 2, "=")) {
        std::size_t k = i + 3;
        if (is(k, "::")) ++k;
        if (is(k, "cooperative_groups") && is(k + 1, ";")) out.insert(std::string(text(i + 1)));
      }
    return out;
  }

  // `using namespace cooperative_groups;`, or of a name the file gives it.
  bool uses_groups_namespace() const {
    for (std::size_t i = 0; i + 3 < t_.size(); ++i)
      if (is(i, "using") && is(i + 1, "namespace")) {
        std::size_t k = i + 2;
        if (is(k, "::")) ++k;
        if (is_groups_namespace(k) && is(k + 1, ";")) return true;
      }
    return false;
  }

  // cooperative_groups' free functions that wait, each awaited as weft's of the same name.
  static bool group_function_waits(std::string_view name) {
    static constexpr std::string_view names[] = {"sync",
                                                 "reduce",
                                                 "inclusive_scan",
                                                 "exclusive_scan",
                                                 "coalesced_threads",
                                                 "binary_partition",
                                                 "labeled_partition",
                                                 "wait",  // memcpy_async's: a sync of the group
                                                 "wait_prior",
                                                 "reduce_store_async",
                                                 "reduce_update_async",
                                                 "inclusive_scan_update",
                                                 "exclusive_scan_update"};
    return one_of(names, name);
  }

  // Names of cooperative_groups that never wait: making groups, their types, the operators.
  static bool group_name_never_waits(std::string_view name) {
    static constexpr std::string_view names[] = {
        "this_thread_block", "tiled_partition", "thread_block", "thread_block_tile", "thread_group", "coalesced_group",
        "this_grid",         "grid_group",      "this_cluster", "cluster_group",     "plus",         "less",
        "greater",           "bit_and",         "bit_or",       "bit_xor",
        "block_tile_memory",  // scratch for multi-warp tiles, which weft needs none of
        "memcpy_async"};      // weft copies at once: its waits wait
    return one_of(names, name);
  }

  // A group's members that wait, awaited as weft::NAME(group, ...).
  static bool group_member_waits(std::string_view name) {
    static constexpr std::string_view names[] = {
        "sync", "shfl",   "shfl_up",   "shfl_down", "shfl_xor",       "any",
        "all",  "ballot", "match_any", "match_all", "barrier_arrive", "barrier_wait"};  // split barriers
    return one_of(names, name);
  }

  static bool group_member_never_waits(std::string_view name) {
    static constexpr std::string_view names[] = {"thread_rank",     "size",        "num_threads",    "thread_index",
                                                 "group_index",     "dim_threads", "group_dim",      "meta_group_rank",
                                                 "meta_group_size", "is_valid",    "block_rank",     "num_blocks",
                                                 "dim_blocks",      "block_index", "map_shared_rank"};
    return one_of(names, name);
  }

  // The names of groups in tokens [from, to): declared with a group's type
  // (`cg::thread_block_tile<32> tile`, a parameter `const cg::thread_group& g`)
  // or as `auto` made by a group function (`auto tile = cg::tiled_partition<32>(block)`).
  std::set<std::string, std::less<>> group_variables(std::size_t from, std::size_t to) const {
    std::set<std::string, std::less<>> out;
    auto declared_after = [&](std::size_t j) -> std::optional<std::size_t> {
      while (is(j, "&") || is(j, "const")) ++j;
      if (is_identifier(j) &&
          (is(j + 1, "=") || is(j + 1, ";") || is(j + 1, ",") || is(j + 1, ")") || is(j + 1, "(") || is(j + 1, "{")))
        return j;
      return std::nullopt;
    };
    for (std::size_t i = from; i < to && i < t_.size(); ++i) {
      std::string_view name = text(i);
      if (is_identifier(i) && (name == "thread_block" || name == "thread_block_tile" || name == "coalesced_group" ||
                               name == "thread_group" || name == "grid_group" || name == "cluster_group")) {
        std::size_t j = i + 1;
        if (is(j, "<")) {
          auto close = angle_forward(j);
          if (!close) continue;
          j = *close + 1;
        }
        if (auto v = declared_after(j)) out.insert(std::string(text(*v)));
      } else if (is(i, "auto")) {
        auto v = declared_after(i + 1);
        if (!v || !is(*v + 1, "=")) continue;
        std::size_t k = *v + 2;
        if (is_groups_namespace(k) && is(k + 1, "::")) k += 2;
        if (is(k, "this_thread_block") || is(k, "tiled_partition") || is(k, "coalesced_threads") ||
            is(k, "binary_partition") || is(k, "labeled_partition") || is(k, "this_grid") || is(k, "this_cluster"))
          out.insert(std::string(text(*v)));
      }
    }
    return out;
  }

  // The names of block-scope cuda::barriers in tokens [from, to), declared
  // `cuda::barrier<cuda::thread_scope_block> bar` (`__shared__` or not, a
  // completion function allowed), or as a parameter `cuda::barrier<...>& bar`.
  std::set<std::string, std::less<>> block_barrier_variables(std::size_t from, std::size_t to) const {
    std::set<std::string, std::less<>> out;
    for (std::size_t i = from; i + 4 < to && i + 4 < t_.size(); ++i) {
      if (!(is(i, "cuda") && is(i + 1, "::") && is(i + 2, "barrier") && is(i + 3, "<"))) continue;
      auto close = angle_forward(i + 3);
      if (!close) continue;
      std::size_t k = i + 4;
      if (is(k, "::")) ++k;
      if (is(k, "cuda") && is(k + 1, "::")) k += 2;
      if (!is(k, "thread_scope_block")) continue;
      std::size_t j = *close + 1;
      while (is(j, "&") || is(j, "const")) ++j;
      if (is_identifier(j) && (is(j + 1, ";") || is(j + 1, ",") || is(j + 1, ")"))) out.insert(std::string(text(j)));
    }
    return out;
  }

  // The names of the block's groups in tokens [from, to): `cg::thread_block
  // block` or `auto block = cg::this_thread_block()`.
  std::set<std::string, std::less<>> block_variables(std::size_t from, std::size_t to) const {
    std::set<std::string, std::less<>> out;
    for (std::size_t i = from; i + 2 < to && i + 2 < t_.size(); ++i) {
      if (is(i, "thread_block") && is_identifier(i + 1) && (is(i + 2, "=") || is(i + 2, ";") || is(i + 2, ",")))
        out.insert(std::string(text(i + 1)));
      if (is(i, "auto") && is_identifier(i + 1) && is(i + 2, "=")) {
        std::size_t k = i + 3;
        if (is_groups_namespace(k) && is(k + 1, "::")) k += 2;
        if (is(k, "this_thread_block") && is(k + 1, "(") && is(k + 2, ")")) out.insert(std::string(text(i + 1)));
      }
    }
    return out;
  }

  // Whether the call whose `(` is at `open` is (group, &state), or
  // partitioned, (group, &state, producer_count) or (group, &state, role):
  // the group a variable of `blocks` (the block's or a tile's name) or
  // this_thread_block(), the forms weft::make_pipeline awaits.
  bool made_of_block(std::size_t open, const std::set<std::string, std::less<>>& blocks) const {
    auto close = match_forward(open);
    if (!close) return false;
    auto args = top_level_arguments(open, *close);
    // (block, &state), and partitioned: (block, &state, producer_count) or (block, &state, role).
    if (args.size() != 2 && args.size() != 3) return false;
    auto [first, end] = args[0];
    if (end == first + 1 && is_identifier(first) && blocks.contains(text(first))) return true;
    if (is_groups_namespace(first) && is(first + 1, "::")) first += 2;
    return end == first + 3 && is(first, "this_thread_block") && is(first + 1, "(") && is(first + 2, ")");
  }

  // The names of the block pipelines weft-port awaits in tokens [from, to):
  // `cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(block, &state);`
  // or `auto pipe = ...` of the same.
  std::set<std::string, std::less<>> block_pipeline_variables(std::size_t from, std::size_t to,
                                                              const std::set<std::string, std::less<>>& blocks) const {
    std::set<std::string, std::less<>> out;
    for (std::size_t i = from; i + 5 < to && i + 5 < t_.size(); ++i) {
      if (!(is_identifier(i) && is(i + 1, "=") && is(i + 2, "cuda") && is(i + 3, "::") && is(i + 4, "make_pipeline") &&
            is(i + 5, "(") && made_of_block(i + 5, blocks)))
        continue;
      std::size_t k = i;  // back over the type: `auto` or `cuda::pipeline<cuda::thread_scope_block>`
      if (k > from && is(k - 1, "auto")) {
        out.insert(std::string(text(i)));
      } else if (k > from && is(k - 1, ">")) {
        std::size_t j = k - 1;
        while (j > from && !is(j, "<")) --j;
        if (j >= 3 && is(j - 1, "pipeline") && is(j - 2, "::") && is(j - 3, "cuda") &&
            (is(j + 1, "thread_scope_block") || (is(j + 3, "thread_scope_block") && is(j + 1, "cuda"))))
          out.insert(std::string(text(i)));
      }
    }
    return out;
  }

  // The names of thread-scope cuda::pipelines in tokens [from, to): declared
  // `cuda::pipeline<cuda::thread_scope_thread> pipe`, or `auto pipe =
  // cuda::make_pipeline();`.
  std::set<std::string, std::less<>> thread_pipeline_variables(std::size_t from, std::size_t to) const {
    std::set<std::string, std::less<>> out;
    for (std::size_t i = from; i + 6 < to && i + 6 < t_.size(); ++i) {
      if (is(i, "cuda") && is(i + 1, "::") && is(i + 2, "pipeline") && is(i + 3, "<")) {
        std::size_t k = i + 4;
        if (is(k, "::")) ++k;
        if (is(k, "cuda") && is(k + 1, "::")) k += 2;
        if (!is(k, "thread_scope_thread") || !is(k + 1, ">")) continue;
        std::size_t j = k + 2;
        while (is(j, "&")) ++j;
        if (is_identifier(j) && (is(j + 1, "=") || is(j + 1, ";") || is(j + 1, ",") || is(j + 1, ")")))
          out.insert(std::string(text(j)));
      } else if (is(i, "auto") && is_identifier(i + 1) && is(i + 2, "=") && is(i + 3, "cuda") && is(i + 4, "::") &&
                 is(i + 5, "make_pipeline") && is(i + 6, "(") && is(i + 7, ")")) {
        out.insert(std::string(text(i + 1)));
      }
    }
    return out;
  }

  // The `>` closing the template argument list opened at `<`, if it looks like one.
  std::optional<std::size_t> angle_forward(std::size_t open) const {
    int depth = 0;
    for (std::size_t j = open; j < t_.size() && j < open + 64; ++j) {
      if (is(j, "(") || is(j, "[")) {
        auto close = match_forward(j);
        if (!close) return std::nullopt;
        j = *close;
      } else if (is(j, ";") || is(j, "{") || is(j, "}") || is(j, ")") || is(j, "&&") || is(j, "||")) {
        return std::nullopt;
      } else if (is(j, "<")) {
        ++depth;
      } else if (is(j, ">") && --depth == 0) {
        return j;
      }
    }
    return std::nullopt;
  }

  // A function defined in this file.
  struct function_definition {
    std::string name;
    std::size_t name_token, open, close;  // the body's braces
    bool kernel, member;
  };

  // Every function defined at namespace or class scope (not lambdas, not
  // local classes' members).
  std::vector<function_definition> function_definitions() const {
    std::vector<function_definition> out;
    enum class brace { space, type, function, other };
    std::vector<brace> open;
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (t_[i].define != 0) continue;
      if (is(i, "}")) {
        if (!open.empty()) open.pop_back();
        continue;
      }
      if (!is(i, "{")) continue;
      bool outer = std::all_of(open.begin(), open.end(), [](brace b) { return b == brace::space || b == brace::type; });
      if (opens_namespace(i)) {
        open.push_back(brace::space);
        continue;
      }
      brace_head h = head_of(i);
      if (h.type) {
        open.push_back(outer ? brace::type : brace::other);
        continue;
      }
      open.push_back(brace::other);
      if (!outer || !h.function) continue;
      // The parameter list: back over specifiers to `)`.
      std::size_t k = i;
      static constexpr std::string_view trailing[] = {"const",   "volatile", "noexcept", "override",    "final",
                                                      "mutable", "&",        "&&",       "__restrict__"};
      while (k > 0) {
        --k;
        if (!one_of(trailing, text(k)) && !qualifier(k)) break;
      }
      if (!is(k, ")")) continue;
      auto lparen = match_backward(k);
      if (!lparen || *lparen == 0) continue;
      std::size_t n = *lparen - 1;
      std::string name;
      if (is_identifier(n) && !is_keyword(n)) {
        name = text(n);
      } else if (n > 0 && (is(n - 1, "operator") || (n > 1 && is(n - 2, "operator")))) {
        name = "operator";
      } else {
        continue;  // a statement's block, a lambda
      }
      if (name == "if" || name == "while" || name == "for" || name == "switch" || name == "catch") continue;
      open.back() = brace::function;
      auto close = match_forward(i);
      if (!close) continue;
      bool member =
          !open.empty() && std::any_of(open.begin(), open.end() - 1, [](brace b) { return b == brace::type; });
      out.push_back({name, n, i, *close, (h.qualifiers & qualifier_global) != 0, member});
    }
    return out;
  }

  // `#define NAME ...`: its name and its body's tokens.
  struct macro_definition {
    std::string name;
    std::size_t from, to;
  };

  std::vector<macro_definition> macro_definitions() const {
    std::vector<macro_definition> out;
    for (std::size_t i = 0; i + 2 < t_.size(); ++i) {
      if (t_[i].define >= 0 || !is(i, "#") || (i > 0 && t_[i - 1].define == t_[i].define)) continue;
      int id = -t_[i].define;
      if (!is_identifier(i + 2)) continue;
      std::size_t from = i + 2;
      while (from < t_.size() && t_[from].define == -id) ++from;
      std::size_t to = from;
      while (to < t_.size() && t_[to].define == id) ++to;
      out.push_back({std::string(text(i + 2)), from, to});
    }
    return out;
  }

  // The names of types this file declares (their `T(x)` constructs one):
  // classes, enums, aliases and template parameters.
  std::set<std::string, std::less<>> type_names() const {
    std::set<std::string, std::less<>> out;
    for (std::size_t i = 0; i + 1 < t_.size(); ++i) {
      if ((is(i, "struct") || is(i, "class") || is(i, "union") || is(i, "enum") || is(i, "typename")) &&
          is_identifier(i + 1))
        out.insert(std::string(text(i + 1)));
      if (is(i, "using") && is_identifier(i + 1) && is(i + 2, "=")) out.insert(std::string(text(i + 1)));
      if (is(i, "typedef"))
        for (std::size_t k = i + 1; k < t_.size() && k < i + 64; ++k)
          if (is(k, ";")) {
            if (is_identifier(k - 1)) out.insert(std::string(text(k - 1)));
            break;
          }
    }
    return out;
  }

  // Which of this file's functions and macros never wait, given those of the
  // files it includes; kept in known_ for the files that include this one.
  void find_functions_that_never_wait(const std::vector<function_definition>& functions,
                                      const std::vector<macro_definition>& macros) {
    struct entity {
      std::string name;
      body_facts facts;
      bool member;
      bool never_waits = true;
    };
    std::vector<entity> entities;
    for (const function_definition& d : functions)
      if (!d.kernel) entities.push_back({d.name, facts_of(d.open + 1, d.close), d.member || d.name == "operator"});
    for (const macro_definition& m : macros) entities.push_back({m.name, facts_of(m.from, m.to), false});
    for (const token& t : t_)
      if (t.k == kind::directive) {
        std::string_view d = src_.substr(t.begin, t.end - t.begin);
        if (d.find("include") != std::string_view::npos &&
            (d.find("cuda_fp16") != std::string_view::npos || d.find("cuda_bf16") != std::string_view::npos))
          known_.includes_half = true;
      }
    types_ = type_names();
    types_.insert(known_.type_names.begin(), known_.type_names.end());
    for (bool changed = true; changed;) {
      changed = false;
      for (entity& e : entities) {
        if (!e.never_waits) continue;
        bool ok = e.facts.waits.empty() && e.facts.group_waits.empty() && e.facts.named_waits.empty() &&
                  !e.facts.waits_in_lambda && e.facts.refusal.empty() && e.facts.spin.empty();
        for (const std::string& call : e.facts.calls)
          ok = ok && (call == e.name || resolves_to_never_waiting(call, entities));
        if (!ok) e.never_waits = false, changed = true;
      }
    }
    for (const entity& e : entities) {
      (e.never_waits ? known_.never_wait : known_.may_wait).insert(e.name);
      if (!e.facts.waits.empty() || !e.facts.group_waits.empty() || !e.facts.named_waits.empty() ||
          e.facts.waits_in_lambda)
        known_.wait_themselves.insert(e.name);
      if (!e.facts.spin.empty()) known_.spins.emplace(e.name, e.facts.spin);
      // An operator, constructor or member function that waits may be called
      // where no call is spelled (`a + b`, `T x;`): then no kernel converts.
      if (e.member && !e.facts.waits.empty()) known_.a_member_waits = true;
    }
    for (const std::string& t : types_) known_.type_names.insert(t);
  }

  template <class Entities>
  bool resolves_to_never_waiting(std::string_view name, const Entities& entities) const {
    // A function or macro of the program's own comes first: a `min` or
    // `max` it defines may wait where CUDA's does not.
    bool found = false;
    for (const auto& e : entities)
      if (e.name == name) {
        if (!e.never_waits) return false;
        found = true;
      }
    if (known_.may_wait.contains(name)) return false;
    return found || known_.never_wait.contains(name) || never_waits(name) || types_.contains(name);
  }

  // The `void` a kernel declaration at `name_token` returns, if spelled so:
  // `__global__ void k(`, `__global__ void __launch_bounds__(256) k(`.
  std::optional<std::size_t> void_before(std::size_t name_token) const {
    std::size_t k = name_token;
    while (k > 0) {
      --k;
      if (is(k, ")")) {
        auto open = match_backward(k);
        if (!open || *open == 0) return std::nullopt;
        std::size_t a = *open - 1;
        if (is(a, "__launch_bounds__") || is(a, "__maxnreg__") || is(a, "__cluster_dims__") || is(a, "__attribute__")) {
          k = a;
          continue;
        }
        return std::nullopt;
      }
      if (is(k, "]") && k > 0 && is(k - 1, "]")) {  // [[attribute]]
        auto open = match_backward(k);
        if (!open) return std::nullopt;
        k = *open;
        continue;
      }
      if (is(k, "__noinline__") || is(k, "__forceinline__") || is(k, "__global__")) continue;
      return is(k, "void") ? std::optional<std::size_t>(k) : std::nullopt;
    }
    return std::nullopt;
  }

  // The tokens [first, last] of a cast to a void pointer around the name at
  // token i: `(void*)k`, `(const void*)k`, `reinterpret_cast<void*>(k)` or
  // `static_cast<const void*>(k)`; {i, i} if there is none.
  std::pair<std::size_t, std::size_t> as_void_pointer(std::size_t i) const {
    if (i >= 4 && is(i - 1, ")") && is(i - 2, "*") && is(i - 3, "void")) {
      std::size_t open = i - 4;
      if (is(open, "const") && open > 0) --open;
      if (is(open, "(")) return {open, i};
    }
    if (i >= 6 && is(i - 1, "(") && is(i + 1, ")") && is(i - 2, ">") && is(i - 3, "*") && is(i - 4, "void")) {
      std::size_t less = i - 5;
      if (is(less, "const") && less > 0) --less;
      if (is(less, "<") && less >= 1 && (is(less - 1, "reinterpret_cast") || is(less - 1, "static_cast")))
        return {less - 1, i + 1};
    }
    return {i, i};
  }

  // Whether the name at token i is passed to a runtime call that takes a
  // stackless kernel as it takes any: cudaFuncGetAttributes(&a, k), ...; or,
  // cast to a void pointer, to a launch by address, which finds the kernel
  // registered (registrations): cudaLaunchCooperativeKernel((void*)k, ...).
  bool passed_to_runtime_call(std::size_t i) const {
    auto [first, last] = as_void_pointer(i);
    bool cast = first != i;
    if (first == 0 || !(is(first - 1, "(") || is(first - 1, ",")) || !(is(last + 1, ",") || is(last + 1, ")")))
      return false;
    std::size_t j = first;
    int depth = 0;
    while (j-- > 0) {
      if (is_closer(j)) ++depth;
      if (is_opener(j) && depth-- == 0) break;
    }
    if (j == 0 || j > first || !is(j, "(")) return false;
    static constexpr std::string_view calls[] = {
        "cudaFuncGetAttributes", "cudaFuncSetAttribute", "cudaFuncSetCacheConfig",
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaOccupancyMaxPotentialBlockSize"};
    static constexpr std::string_view launches[] = {"cudaLaunchKernel", "cudaLaunchCooperativeKernel",
                                                    "cudaLaunchKernelExC"};
    return one_of(calls, text(j - 1)) || (cast && one_of(launches, text(j - 1)));
  }

  // Why the kernel defined by `d` cannot run stackless; "" if it can. Fills
  // `voids` with the tokens its definition's and declarations' `void` is at,
  // and sets `keeps_void_kernel` if its name must keep naming a void kernel
  // that forwards to the stackless body (see void_kernel_body).
  std::string why_not_stackless(const function_definition& d, const body_facts& f,
                                const std::vector<function_definition>& functions, std::vector<std::size_t>& voids,
                                bool& keeps_void_kernel) const {
    keeps_void_kernel = false;
    auto v = void_before(d.name_token);
    if (!v) return "its return type is not spelled `void` right before its name";
    voids.push_back(*v);
    if (!f.refusal.empty()) return f.refusal;

    // The first call that may wait: a helper that waits itself comes first,
    // as no other reason matters until weft has awaitable device functions.
    std::string waiting_call, unseen_call;
    bool awaits_a_function = false;
    for (std::size_t c = 0; c < f.calls.size(); ++c) {
      const std::string& call = f.calls[c];
      if (awaitable_call(f, c)) {
        awaits_a_function = true;
        continue;
      }
      if (!known_.may_wait.contains(call) &&
          (never_waits(call) || types_.contains(call) || known_.never_wait.contains(call)))
        continue;
      if (auto why = awaitable_why_not_.find(call);
          why != awaitable_why_not_.end() && !why->second.empty() && waits_somewhere_.contains(call)) {
        waiting_call = "calls `" + call + "`, which waits and is not made awaitable: " + why->second;
        break;
      }
      if (known_.wait_themselves.contains(call)) {
        waiting_call = "calls `" + call +
                       "`, which waits and is not a __device__ function of this file (only those are made awaitable)";
        break;
      }
      if (unseen_call.empty()) {
        if (auto spin = known_.spins.find(call); spin != known_.spins.end())
          unseen_call = "calls `" + call + "`, which spins (" + spin->second +
                        "): another thread of the block must run meanwhile";
        else
          unseen_call = known_.may_wait.contains(call)
                            ? "calls `" + call + "`, which may wait (it calls what weft-port cannot see)"
                            : "calls `" + call + "`, which weft-port cannot see (declared elsewhere)";
      }
    }
    if (!waiting_call.empty()) return waiting_call;
    if (f.waits.empty() && f.group_waits.empty() && f.named_waits.empty() && !awaits_a_function && !f.waits_in_lambda)
      return "no barrier or warp collective: fibers cost nothing there";
    // GCC names a coroutine's parts after the function's symbol, which C
    // linkage does not mangle: the stackless body gets C++ linkage and a
    // name of its own, and the C-named kernel forwards each parameter to it.
    bool c_linkage = has_c_linkage(d.name_token);
    if (c_linkage && in_header)
      return "has C linkage (extern \"C\") in a header: its stackless body and registration would follow the "
             "header's last line";
    if (c_linkage && !forwarded_parameters(d.name_token))
      return "has C linkage (extern \"C\") and a parameter without a name, which its C-named kernel cannot forward "
             "to the stackless body";
    if (f.waits_in_lambda) return "waits inside a lambda (only the kernel's own body can co_await)";
    // GCC 12 warns about a coroutine frame that holds a lambda (-Wsubobject-linkage).
    if (f.has_lambda) return "holds a lambda";
    if (f.returns_value) return "returns an expression";
    if (!f.spin.empty())
      return "spins (" + f.spin +
             "): another thread of the block must run meanwhile, which a stackless thread "
             "never lets happen";
    // CUDA shuffles and matches __half and __nv_bfloat16 too; the awaitables do not yet.
    bool shuffles = std::any_of(f.waits.begin(), f.waits.end(), [&](std::size_t w) {
      return text(w).starts_with("__shfl") || text(w).starts_with("__match");
    });
    bool half = known_.includes_half;
    for (std::size_t i = d.open; i < d.close && !half; ++i)
      half = is(i, "__half") || is(i, "__half2") || is(i, "half") || is(i, "half2") || is(i, "__nv_bfloat16") ||
             is(i, "__nv_bfloat162");
    if (shuffles && half) return "shuffles in a file that uses __half or __nv_bfloat16 (no awaitable for them yet)";
    if (!unseen_call.empty()) return unseen_call;
    if (known_.a_member_waits) return "an operator, constructor or member function of this file waits";
    // The C-named kernel stays a void kernel, whose launches by address run
    // the stackless body (weft::register_kernel<&k, &body>): every use of
    // its name, and every other source's, still finds a void kernel.
    if (c_linkage) {
      for (const auto* list : {&known_.kernels, &kernels_})
        for (const kernel_decl& k : *list)
          if (k.name == d.name && k.default_arguments)
            return "has C linkage (extern \"C\") and default arguments, which a launch through its pointer cannot "
                   "supply";
      keeps_void_kernel = true;
      return "";
    }
    if (included_kernel_names_.contains(d.name)) return "declared in an included file, whose declaration says `void`";
    if (outside_names.contains(d.name)) return "named in another source of the program";
    // Where the ported .cu or another of its headers names a header's kernel,
    // it launches it by name, or uses it as a value through the void kernel.
    bool used_elsewhere_as_value = false;
    if (names_in_other_files.contains(d.name))
      for (const auto& [file, text] : other_files) {
        porter other(text, "\"" + file + "\"");
        auto uses = other.uses_of_included_kernel(d.name, kernels());
        if (!uses.refusal.empty()) return file + " names it " + uses.refusal;
        used_elsewhere_as_value |= uses.as_value;
      }
    for (const function_definition& g : functions)
      if (g.kernel && g.name == d.name && g.open != d.open) return "overloaded";
    // Every other use of its name: a declaration, a launch weft-port writes
    // as weft::launch<k>, an attribute call, or a use as a value.
    bool used_as_value = false;
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (!is(i, d.name) || (i >= d.name_token && i <= d.close)) continue;
      if (t_[i].define != 0) return "named in a macro";
      bool launched = std::any_of(constructs_.begin(), constructs_.end(), [&](const construct& c) {
        return c.kind == construct_kind::launch && c.begin <= t_[i].begin && t_[i].end <= c.kernel_end;
      });
      if (launched) {
        for (const construct& c : constructs_)
          if (c.kind == construct_kind::launch && c.begin <= t_[i].begin && t_[i].end <= c.kernel_end &&
              c.kernel_as != launch_kernel::compiled)
            return "a launch passes it as a value or a lambda (template arguments deduced, or default arguments)";
        continue;
      }
      if (passed_to_runtime_call(i)) continue;
      if (is(i + 1, "(") && scope_[i].where == space::file) {
        // A declaration: `__global__ void k(...);`
        std::size_t k = i;
        bool global = false;
        while (k > 0 && !is(k - 1, ";") && !is(k - 1, "}") && !is(k - 1, "{") && t_[k - 1].k != kind::directive)
          global |= is(--k, "__global__");
        auto close = match_forward(i + 1);
        if (global && close && is(*close + 1, ";")) {
          auto pv = void_before(i);
          if (!pv) return "declared with another spelling of its return type";
          voids.push_back(*pv);
          continue;
        }
      }
      used_as_value = true;
    }
    if (!used_as_value && !used_elsewhere_as_value) return "";
    // A pointer, a (void*) cast or a call needs a void kernel: k stays one,
    // forwarding to the stackless body as a kernel of C linkage does, and
    // its prototypes keep their `void`.
    constexpr std::string_view as_value = "its name is used as a value (a pointer, a (void*) cast, a call)";
    if (known_.templates.contains(d.name))
      return std::string(as_value) +
             " and it is a template: its void kernel would need registering for each "
             "instantiation";
    if (in_header && !includer_registers)
      return std::string(as_value) + " in a header, and the input is a header: no .cu's port registers its void kernel";
    for (const kernel_decl& k : kernels_)
      if ((k.name == d.name || k.name.ends_with("::" + d.name)) && k.default_arguments)
        return std::string(as_value) +
               " and it has default arguments, which a launch through its pointer cannot "
               "supply";
    if (!forwarded_parameters(d.name_token))
      return std::string(as_value) +
             " and it has a parameter without a name, which its void kernel cannot forward "
             "to the stackless body";
    voids.resize(1);
    keeps_void_kernel = true;
    return "";
  }

  // A launch by name of a header's kernel that stays a void kernel forwarding
  // to its stackless body passes it as a value: launched by address, it is
  // found registered with its body; weft::launch<k> would call k on fibers.
  void pass_included_void_kernels_as_values() {
    for (const kernel_decl& d : known_.void_converted) {
      std::string name = bare_name(d.name);
      for (construct& c : constructs_)
        if (c.kind == construct_kind::launch && c.kernel_as != launch_kernel::value)
          for (std::size_t i = 0; i < t_.size() && t_[i].begin < c.kernel_end; ++i)
            if (t_[i].begin >= c.begin && t_[i].end <= c.kernel_end && is(i, name)) c.kernel_as = launch_kernel::value;
    }
  }

  void find_stackless_kernels() {
    group_aliases_ = find_group_aliases();
    groups_namespace_used_ = uses_groups_namespace();
    auto functions = function_definitions();
    for (const function_definition& d : functions) file_function_names_.insert(d.name);
    for (auto [k, what] : flag_declarations(0, t_.size()))
      if (std::none_of(functions.begin(), functions.end(),
                       [&](const function_definition& d) { return k > d.name_token && k < d.close; }))
        namespace_scope_flags_[std::string(text(k))] = what;
    find_functions_that_never_wait(functions, macro_definitions());
    if (convert_stackless) find_awaitable_functions(functions);
    std::vector<std::string> awaited;  // the awaitable functions converted kernels call
    for (const function_definition& d : functions) {
      if (!d.kernel || d.member) continue;
      if (!convert_stackless) {
        if (!not_converted_here.empty())
          stackless_verdicts.push_back({d.name, t_[d.name_token].line, not_converted_here});
        continue;
      }
      body_facts f = facts_of(d.open + 1, d.close, d.name_token + 1);
      std::vector<std::size_t> voids;
      bool keeps_void_kernel = false;
      std::string why = why_not_stackless(d, f, functions, voids, keeps_void_kernel);
      stackless_verdicts.push_back({d.name, t_[d.name_token].line, why});
      if (!why.empty()) continue;
      converted_.insert(d.name);
      // Planned and written before the stackless edits join constructs_:
      // the region version is rendered from the kernel as written.
      // (A void kernel that forwards to its body, kept for launches by
      // address, registers the region version under its own address, which
      // those launches look up: weft::register_kernel<&k, &body>.)
      region_plan regions = plan_regions(d, f);
      stackless_verdicts.back().no_regions = regions.why_not;
      if (regions.why_not.empty()) region_versions_ += render_region_version(d, regions);
      std::map<std::size_t, token_edit> edits;
      if (regions.why_not.empty() && regions.templated) {
        // A kernel template's instances register their region versions
        // through the registration's instance, which its body names.
        std::size_t head = d.name_token;
        while (!is(head, "template")) --head;
        std::string type = "weft_port_regions_registration_" + d.name;
        edits[head].before = "namespace { " + regions.template_head + " struct " + type + "; } ";
        edits[d.open].after = " (void)&" + type + regions.template_arguments + "::registered;";
      }
      if (f.awaits_group) uses_groups_ = true;
      if (f.awaits_barrier) uses_barriers_ = true;
      if (f.awaits_pipeline) uses_pipelines_ = true;
      if (!f.named_waits.empty()) uses_named_barriers_ = true;
      for (construct& c : constructs_) await_named_barrier(f, c);
      for (auto& [i, e] : await_edits(f)) {
        edits[i].before += e.before;
        if (e.text) edits[i].text = e.text;
        edits[i].after += e.after;
      }
      for (std::size_t v : voids) edits[v].text = "weft::stackless_kernel";
      if (keeps_void_kernel) void_kernel_body(d, edits);
      for (const auto& [i, e] : edits)
        constructs_.push_back(replacement(i, e.before + (e.text ? *e.text : std::string(text(i))) + e.after));
      for (std::size_t c = 0; c < f.calls.size(); ++c)
        if (awaitable_call(f, c)) awaited.push_back(f.calls[c]);
    }
    // The awaitable versions those kernels reach, directly or through each other.
    std::set<std::string, std::less<>> reached;
    while (!awaited.empty()) {
      std::string name = awaited.back();
      awaited.pop_back();
      if (!reached.insert(name).second) continue;
      for (awaitable_function& a : awaitables_)
        if (a.name == name) {
          a.emitted = true;
          for (std::size_t c = 0; c < a.facts.calls.size(); ++c)
            if (awaitable_call(a.facts, c)) awaited.push_back(a.facts.calls[c]);
        }
    }
    for (const awaitable_function& a : awaitables_) {
      if (!a.emitted) continue;
      if (a.facts.awaits_group) uses_groups_ = true;
      if (a.facts.awaits_barrier) uses_barriers_ = true;
      if (a.facts.awaits_pipeline) uses_pipelines_ = true;
      if (!a.facts.named_waits.empty()) uses_named_barriers_ = true;
      // Declared beside each of its declarations, on the same line, so that
      // the kernels after any of them see it.
      for (const auto& [end_token, head] : a.declarations)
        constructs_.push_back(
            replacement(end_token, std::string(text(end_token)) + " " + twin_declaration(a, head, true)));
    }
  }

  // A named barrier's port `weft::ptx::bar_sync(1, 64)`, if `c` is one that
  // `f` awaits, becomes `co_await weft::bar_sync(1, 64)`.
  void await_named_barrier(const body_facts& f, construct& c) const {
    constexpr std::string_view fiber_call = "weft::ptx::";
    for (std::size_t i : f.named_waits)
      if (c.begin == t_[i].begin && c.kind == construct_kind::text && c.text.starts_with(fiber_call))
        c.text.replace(0, fiber_call.size(), "co_await weft::");
  }

  struct token_edit {
    std::string before;
    std::optional<std::string> text;  // the token's replacement, if it has one
    std::string after;
  };

  // ---- Kernels of C linkage ----
  //
  // `extern "C" __global__ void k(int* x) { ... }` becomes, on its own lines,
  //   extern "C++" __global__ weft::stackless_kernel weft_port_stackless_k(int* x) { ... }
  //   extern "C" __global__ void k(int* x) { weft::run_on_fiber(weft_port_stackless_k(x)); }
  // (the second after the body's closing brace), and the registration
  // weft::register_kernel<&k, &weft_port_stackless_k>() makes k's launches
  // by address and through its pointer run the stackless body; launches by
  // name pass k as a value for that. k keeps its C symbol, its prototypes
  // and every use of its name.

  // The parameter list of the function named at `name`, on one line, and its
  // parameters' names joined by commas; nullopt if one has no name.
  std::optional<std::pair<std::string, std::string>> forwarded_parameters(std::size_t name) const {
    auto close = match_forward(name + 1);
    if (!close) return std::nullopt;
    std::string names;
    auto name_of = [&](std::size_t from, std::size_t to) -> std::optional<std::string> {
      while (to > from && is(to - 1, "]"))
        if (auto open = match_backward(to - 1))
          to = *open;
        else
          return std::nullopt;
      static constexpr std::string_view not_names[] = {"__restrict__", "__restrict", "restrict", "const", "volatile",
                                                       "unsigned",     "signed",     "long",     "short", "bool"};
      if (to <= from + 1 || !is_identifier(to - 1) || is_keyword(to - 1) || one_of(not_names, text(to - 1)))
        return std::nullopt;
      static constexpr std::string_view before_no_name[] = {"const", "volatile", "struct",  "class",
                                                            "union", "enum",     "typename"};
      if (is_identifier(to - 2) && one_of(before_no_name, text(to - 2))) return std::nullopt;
      return std::string(text(to - 1));
    };
    std::size_t from = name + 2;
    int angles = 0;
    for (std::size_t i = from; i <= *close; ++i) {
      if (i < *close && is_opener(i)) {
        i = *match_forward(i);
        continue;
      }
      if (is(i, "<")) ++angles;
      if (is(i, ">") && angles > 0) --angles;
      if (i < *close && (!is(i, ",") || angles > 0)) continue;
      if (i == *close && i == name + 2) break;                          // k()
      if (i == *close && i == name + 3 && is(name + 2, "void")) break;  // k(void)
      for (std::size_t j = from; j < i; ++j)
        if (is(j, "=") || is(j, "...")) return std::nullopt;
      auto n = name_of(from, i);
      if (!n) return std::nullopt;
      names += (names.empty() ? "" : ", ") + *n;
      from = i + 1;
    }
    return std::pair{join(name + 2, *close, nullptr), names};
  }

  // A kernel of C++ linkage whose name is used as a value gets the same
  // pair, its void kernel declared as its definition was:
  //   static __global__ weft::stackless_kernel weft_port_stackless_k(int* x) { ... }
  //   static __global__ void k(int* x) { weft::run_on_fiber(weft_port_stackless_k(x)); }
  // so that (void*)k, &k, tables of pointers and attribute queries still
  // find a void kernel, and launches through them run the stackless body.

  // The edits that give the kernel `d` its stackless body (of C++ linkage)
  // and its forwarding void kernel (above).
  void void_kernel_body(const function_definition& d, std::map<std::size_t, token_edit>& edits) {
    std::string name(text(d.name_token));
    std::string body = "weft_port_stackless_" + name;
    edits[d.name_token].text = body;
    std::size_t start = d.name_token;
    std::optional<std::size_t> c_literal;
    while (start > 0 && !is(start - 1, ";") && !is(start - 1, "}") && !is(start - 1, "{") &&
           t_[start - 1].k != kind::directive) {
      --start;
      if (is(start, "extern") && start + 1 < t_.size() && t_[start + 1].k == kind::literal &&
          text(start + 1) == "\"C\"")
        c_literal = start + 1;
    }
    bool c_linkage = has_c_linkage(d.name_token);
    if (c_literal)
      edits[*c_literal].text = "\"C++\"";
    else if (c_linkage)
      edits[start].before = "extern \"C++\" " + edits[start].before;
    // The void kernel's head: C linkage's, or the definition's own
    // (`static`, `__launch_bounds__(...)` and all).
    std::string head = c_linkage ? "extern \"C\" __global__ void" : join(start, d.name_token, nullptr);
    auto [parameters, names] = *forwarded_parameters(d.name_token);
    edits[d.close].after +=
        " " + head + " " + name + "(" + parameters + ") { weft::run_on_fiber(" + body + "(" + names + ")); }";
    void_kernels_converted_.insert(name);
    // Launches by name pass k as a value: weft::launch<k>, or a lambda that
    // calls k (a prototype spelled differently reads as an overload), would
    // call k's own body, on fibers.
    for (construct& c : constructs_)
      if (c.kind == construct_kind::launch && c.kernel_as != launch_kernel::value)
        for (std::size_t i = 0; i < t_.size() && t_[i].begin < c.kernel_end; ++i)
          if (t_[i].begin >= c.begin && t_[i].end <= c.kernel_end && is(i, name)) c.kernel_as = launch_kernel::value;
  }

  // ---- region versions ----
  //
  // A stackless kernel whose only waits are block barrier statements
  // (`__syncthreads();`, `cg::sync(block);`, `block.sync();`) that every
  // thread of a block reaches together also gets a region version,
  // `weft_port_regions_NAME`, written after the last line (a header's
  // inside its include guard): the body split at those barriers into
  // regions, each a loop over the block's threads (weft/region_kernel.hpp),
  // so that a barrier costs the end of a loop. Together means provably: each
  // barrier sits at the top of the body, of a block so placed, or of the
  // body of a `for` whose init, condition and step are the same for every
  // thread of the block (literals, blockDim, gridDim, blockIdx, template
  // parameters, parameters the kernel never changes, names it does not
  // declare, the enclosing barrier loops' variables, locals declared once
  // from such values, which then run outside the regions, and the loop's
  // own variables, changed only by the step). The locals that live across a
  // barrier, and the parameters the kernel changes, move to a per-thread
  // struct, if their types are ones weft-port can spell; a kernel that does
  // not fit keeps its stackless version only, and --explain says why.

  // The C++ operator that starts at token i, made of adjacent punctuators
  // (the scanner splits `+=` into `+` `=`): "" if token i is not one.
  std::string operator_at(std::size_t i) const {
    static constexpr std::string_view three[] = {"<<=", ">>="};
    static constexpr std::string_view two[] = {
        "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>"};
    if (i >= t_.size() || t_[i].k != kind::punct) return "";
    std::string op(text(i));
    if (op.size() != 1) return op;
    if (adjacent(i) && t_[i + 1].k == kind::punct) {
      std::string pair = op + std::string(text(i + 1));
      if (adjacent(i + 1) && t_[i + 2].k == kind::punct && one_of(three, pair + std::string(text(i + 2))))
        return pair + std::string(text(i + 2));
      if (one_of(two, pair)) return pair;
    }
    return op;
  }

  // Whether the name at token k may be changed there: assigned, incremented,
  // or its address taken (then anything may change it).
  bool changed_at(std::size_t k) const {
    static constexpr std::string_view assignments[] = {
        "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++", "--", "<<=", ">>="};
    std::string after = operator_at(k + 1);
    if (after == "++" || after == "--") return true;
    // `*p = v` writes where p points, not p (a unary `*`: no operand before it).
    bool dereferenced =
        k >= 1 && is(k - 1, "*") &&
        (k < 2 || !(is_identifier(k - 2) || t_[k - 2].k == kind::number || is(k - 2, ")") || is(k - 2, "]")));
    if (one_of(assignments, after) && !dereferenced) return true;
    if (k >= 2 && (operator_at(k - 2) == "++" || operator_at(k - 2) == "--")) return true;
    // `&x` but not `&p[i]`, `&p->m` (an element's address: p itself stays).
    return k >= 1 && is(k - 1, "&") && !(k >= 2 && is(k - 2, "&") && adjacent(k - 2)) && !is(k + 1, "[") &&
           !is(k + 1, "->");
  }

  // Whether a member or element of the value named at token k may be
  // changed there: `c.value += 1`, `c.items[i] = v`, `&c.value` (a struct
  // parameter's, which the block's threads would otherwise share).
  bool member_changed_at(std::size_t k) const {
    std::size_t j = k + 1;
    bool member = false;
    while (true) {
      if (is(j, ".") && is_identifier(j + 1)) {
        j += 2;
        member = true;
      } else if (member && is(j, "[")) {
        auto close = match_forward(j);
        if (!close) return true;
        j = *close + 1;
      } else {
        break;
      }
    }
    if (!member) return false;
    bool prefix = k >= 2 && (operator_at(k - 2) == "++" || operator_at(k - 2) == "--");
    bool address = k >= 1 && is(k - 1, "&") && !(k >= 2 && is(k - 2, "&") && adjacent(k - 2));
    return prefix || address || changed_at(j - 1);
  }

  // Whether token k, a whole argument of a call, is passed by value: to one
  // of CUDA's functions that never waits (never_waits: math, atomics,
  // textures, intrinsics, none of which changes an argument passed by name),
  // to a function of the file whose every definition takes that parameter
  // by value or const reference, or to a macro of the file that assigns
  // nothing, takes no address and calls only CUDA's functions.
  bool passed_by_value(std::size_t k) const {
    std::size_t open = k;
    for (int depth = 0; open-- > 0;) {
      if (is_closer(open)) {
        ++depth;
      } else if (is_opener(open)) {
        if (depth == 0) break;
        --depth;
      }
      if (is(open, ";") || is(open, "{") || is(open, "}")) return false;
    }
    if (open == 0 || open >= k || !is(open, "(")) return false;
    std::size_t name = open - 1;
    if (is(name, ">"))
      if (auto angle = match_angle_backward(name); angle && *angle > 0) name = *angle - 1;
    if (!is_identifier(name) || is(name, "forward") || is(name, "atomic_ref")) return false;
    if (name > 0 && (is(name - 1, ".") || is(name - 1, "->"))) return false;
    if (never_waits(text(name))) return true;
    std::size_t argument = 0;
    auto close = match_forward(open);
    if (!close) return false;
    for (auto [first, end] : top_level_arguments(open, *close)) {
      if (k >= first && k < end) break;
      ++argument;
    }
    bool found = false;
    for (const function_definition& g : function_definitions()) {
      if (g.name != text(name) || g.kernel || !is(g.name_token + 1, "(")) continue;
      auto parameters_end = match_forward(g.name_token + 1);
      if (!parameters_end) return false;
      auto parameters = top_level_arguments(g.name_token + 1, *parameters_end);
      if (argument >= parameters.size()) return false;
      bool by_reference = false, constant = false;
      for (std::size_t j = parameters[argument].first; j < parameters[argument].second; ++j) {
        if (is(j, "&")) by_reference = true;
        if (is(j, "const") && !by_reference) constant = true;
      }
      if (by_reference && !constant) return false;
      found = true;
    }
    if (found) return true;
    for (const macro_definition& m : macro_definitions()) {
      if (m.name != text(name)) continue;
      static constexpr std::string_view changes[] = {
          "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++", "--", "<<=", ">>=", "&"};
      for (std::size_t j = m.from; j < m.to; ++j) {
        if (one_of(changes, operator_at(j))) return false;
        if (is_identifier(j) && is(j + 1, "(") && !never_waits(text(j))) return false;
      }
      found = true;
    }
    return found;
  }

  // Token k names a variable (not a member: `.x`, `->x`).
  bool names_variable(std::size_t k) const {
    return is_identifier(k) && !(k > 0 && (is(k - 1, ".") || is(k - 1, "->") || is(k - 1, "::")));
  }

  // The statement that starts at token i, up to `end`: its last token.
  std::optional<std::size_t> statement_end(std::size_t i, std::size_t end) const {
    if (i >= end) return std::nullopt;
    if (is(i, "{")) return match_forward(i);
    if (is(i, "if") || is(i, "for") || is(i, "while") || is(i, "switch")) {
      if (!is(i + 1, "(")) return std::nullopt;
      auto close = match_forward(i + 1);
      if (!close) return std::nullopt;
      auto body_end = statement_end(*close + 1, end);
      if (!body_end) return std::nullopt;
      if (is(i, "if") && is(*body_end + 1, "else")) return statement_end(*body_end + 2, end);
      return body_end;
    }
    if (is(i, "do")) {
      auto body_end = statement_end(i + 1, end);
      if (!body_end || !is(*body_end + 1, "while") || !is(*body_end + 2, "(")) return std::nullopt;
      auto close = match_forward(*body_end + 2);
      if (!close || !is(*close + 1, ";")) return std::nullopt;
      return *close + 1;
    }
    for (std::size_t k = i; k < end; ++k) {
      if (t_[k].k == kind::directive) return std::nullopt;
      if (is(k, ";")) return k;
      if (is_opener(k)) {
        auto close = match_forward(k);
        if (!close) return std::nullopt;
        k = *close;
      } else if (is_closer(k)) {
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  // A declaration statement [from, to] (its `;`): the type's tokens and each
  // declarator's name token and whether it has an initializer `= ...`; empty
  // `names` if the statement does not look like a declaration.
  struct declaration {
    std::vector<std::size_t> type;
    std::vector<std::size_t> names;
    bool simple = true;  // every declarator `name` or `name = init`, the type before the first
  };
  declaration declaration_at(std::size_t from, std::size_t to) const {
    static constexpr std::string_view not_declarations[] = {
        "return",   "delete", "throw",  "goto",   "case",    "co_return",    "co_await", "break",
        "continue", "sizeof", "new",    "typeid", "else",    "default",      "do",       "if",
        "for",      "while",  "switch", "using",  "typedef", "static_assert"};
    declaration d;
    if (!is_identifier(from) || one_of(not_declarations, text(from))) return d;
    // The first name: the last identifier before `=`, `;`, `,`, `[`, `(`, `{` at depth 0.
    std::size_t k = from;
    while (k < to && !is(k, "=") && !is(k, ",") && !is(k, "[") && !is(k, "(") && !is(k, "{") && !is(k, ";")) {
      if (is(k, "<")) {  // a template argument list: skipped whole
        auto close = angle_forward(k);
        if (!close) return d;
        k = *close;
      }
      ++k;
    }
    if (k == from || !is_identifier(k - 1) || k - 1 == from) return d;
    std::size_t name = k - 1;
    std::size_t before = name - 1;
    if (!is_identifier(before) && !is(before, "*") && !is(before, "&") && !is(before, ">")) return d;
    for (std::size_t j = from; j < name; ++j) d.type.push_back(j);
    // The declarators: split at top-level commas.
    std::size_t first = name;
    for (std::size_t j = name; j <= to; ++j) {
      if (is_opener(j)) {
        auto close = match_forward(j);
        if (!close) return {};
        j = *close;
        continue;
      }
      if (is(j, ",") || j == to) {
        std::size_t n = first;
        while (n < j && (is(n, "*") || is(n, "&") || is(n, "const"))) ++n;
        if (n >= j || !is_identifier(n)) return {};
        if (n != first) d.simple = false;
        d.names.push_back(n);
        if (!(n + 1 == j || is(n + 1, "="))) d.simple = false;
        first = j + 1;
      }
    }
    return d;
  }

  // Whether a local of this type may move to the per-thread struct (it
  // default-constructs trivially and weft-port can spell it): builtin
  // arithmetic types, size_t and intN_t, CUDA's vector types, pointers to
  // anything spelled with names. Its struct member's spelling, top-level
  // const dropped, or "" if it may not.
  std::string movable_type(const std::vector<std::size_t>& type) const {
    static constexpr std::string_view arithmetic[] = {
        "unsigned", "signed", "int", "long", "short", "char", "float", "double", "bool", "size_t", "ptrdiff_t",
        "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "uintptr_t",
        "intptr_t", "std::size_t",
        // glibc's <sys/types.h> names (`uint` is unsigned int), which CUDA programs use as builtins
        "uint", "ushort", "ulong"};
    static constexpr std::string_view vectors[] = {
        "char1",     "char2",     "char3",      "char4",      "uchar1",  "uchar2",  "uchar3",  "uchar4",
        "short1",    "short2",    "short3",     "short4",     "ushort1", "ushort2", "ushort3", "ushort4",
        "int1",      "int2",      "int3",       "int4",       "uint1",   "uint2",   "uint3",   "uint4",
        "float1",    "float2",    "float3",     "float4",     "long1",   "long2",   "ulong1",  "ulong2",
        "longlong1", "longlong2", "ulonglong1", "ulonglong2", "double1", "double2"};
    if (type.empty()) return "";
    bool pointer = is(type.back(), "*");
    std::string out;
    bool named = false;
    for (std::size_t j = 0; j < type.size(); ++j) {
      std::size_t k = type[j];
      if (is(k, "const")) {
        if (j + 1 < type.size() && !pointer) continue;                           // top level: dropped
        if (j + 1 == type.size() || (j > 0 && is(type[j - 1], "*"))) return "";  // `T* const`
        if (!pointer) continue;
      } else if (is(k, "*")) {
        if (!named) return "";
      } else if (is(k, "::")) {
        if (!pointer) return "";
      } else if (is_identifier(k)) {
        std::string_view word = text(k);
        // What a pointer points at may be volatile (`volatile uint* s_Data`); the pointer itself not.
        if (word == "volatile" && pointer && j + 1 < type.size() && !is(type[j - (j > 0 ? 1 : 0)], "*")) {
          out += (out.empty() ? "" : " ") + std::string(word);
          continue;
        }
        if (word == "auto" || word == "volatile" || word == "static" || word == "extern" || word == "constexpr" ||
            word == "thread_local" || word == "register" || word == "__shared__" || word == "__restrict__")
          return "";
        if (!pointer && !one_of(arithmetic, word) && !one_of(vectors, word) && word != "std") return "";
        named = true;
      } else {
        return "";
      }
      if (!out.empty() && !(is(k, "*") || is(k, "::") || (j > 0 && is(type[j - 1], "::")))) out += ' ';
      out += text(k);
    }
    return named ? out : "";
  }

  // Whether tokens [from, to) are an expression every thread of the block
  // computes alike: see the section's head. `loop_variable` (or "") may be
  // read; the kernel's parameters `params` are never changed (checked
  // before), and `locals` are the names the body declares.
  std::string uniform_expression(std::size_t from, std::size_t to, const std::set<std::string, std::less<>>& uniform,
                                 const std::set<std::string, std::less<>>& params,
                                 const std::map<std::string, std::string, std::less<>>& param_types,
                                 const std::set<std::string, std::less<>>& locals,
                                 const std::set<std::string, std::less<>>& changed) const {
    static constexpr std::string_view builtins[] = {"blockDim", "gridDim", "blockIdx"};
    for (std::size_t k = from; k < to; ++k) {
      if (t_[k].k == kind::number) continue;
      if (t_[k].k == kind::literal || t_[k].k == kind::directive) return "a literal that is not a number";
      if (is_identifier(k)) {
        std::string_view word = text(k);
        if (word == "true" || word == "false") continue;
        // A cast's type: `(int)gridDim.x`.
        static constexpr std::string_view cast_words[] = {"unsigned", "signed", "int",   "long",
                                                          "short",    "char",   "float", "double"};
        if (one_of(cast_words, word) && is(k + 1, ")")) continue;
        if (one_of(cast_words, word) && one_of(cast_words, text(k + 1))) continue;
        if (is(k + 1, "(")) return "calls `" + std::string(word) + "`";
        if (is(k + 1, "[") || is(k + 1, "->")) return "reads memory through `" + std::string(word) + "`";
        if (one_of(builtins, word)) {
          if (!is(k + 1, ".") || !(is(k + 2, "x") || is(k + 2, "y") || is(k + 2, "z")))
            return "uses `" + std::string(word) + "` other than as .x, .y or .z";
          k += 2;
          continue;
        }
        if (word == "threadIdx") return "uses `threadIdx`";
        if (is(k + 1, ".")) return "reads a member of `" + std::string(word) + "`";
        if (uniform.contains(word)) continue;
        if (params.contains(word)) {
          if (param_types.at(std::string(word)).find_first_of("*&[") != std::string::npos)
            return "uses the pointer or reference parameter `" + std::string(word) + "`";
          continue;
        }
        if (locals.contains(word)) return "uses the local `" + std::string(word) + "`, which may differ by thread";
        if (is_keyword(k) || word == "threadIdx") return "uses `" + std::string(word) + "`";
        if (changed.contains(word)) return "uses `" + std::string(word) + "`, which the kernel changes";
        continue;  // a constant, a macro, an enumerator: the same for every thread
      }
      std::string op = operator_at(k);
      static constexpr std::string_view refused[] = {
          "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++", "--", "<<=", ">>=", "[", "{", ".", "->", "::"};
      if (one_of(refused, op)) return "`" + op + "`";
      // A unary `*` or `&` reads memory or takes an address: binary only.
      if ((op == "*" || op == "&") &&
          (k == from || !(is_identifier(k - 1) || t_[k - 1].k == kind::number || is(k - 1, ")"))))
        return "a unary `" + op + "`";
      k += op.size() - 1;
    }
    return "";
  }

  // The block barrier statement whose awaited group call is named at token
  // w: `cg::sync(block);` or `block.sync();`, `block` one of `blocks` (the
  // block's group, cooperative_groups::thread_block, which only ever names
  // the caller's block): its first token and its `;`.
  std::optional<std::pair<std::size_t, std::size_t>> block_sync_statement(
      std::size_t w, const std::set<std::string, std::less<>>& blocks) const {
    if (!is(w, "sync") || w < 2) return std::nullopt;
    auto statement_start = [&](std::size_t k) { return is(k - 1, ";") || is(k - 1, "{") || is(k - 1, "}"); };
    if (is(w - 1, ".") && is_identifier(w - 2) && blocks.contains(text(w - 2)) && is(w + 1, "(") && is(w + 2, ")") &&
        is(w + 3, ";") && statement_start(w - 2))
      return std::pair{w - 2, w + 3};
    std::size_t start = is(w - 1, "::") && is_groups_namespace(w - 2) ? w - 2 : w;
    if (is(w + 1, "(") && is_identifier(w + 2) && blocks.contains(text(w + 2)) && is(w + 3, ")") && is(w + 4, ";") &&
        statement_start(start) && !is(w - 1, ".") && !is(w - 1, "->"))
      return std::pair{start, w + 4};
    return std::nullopt;
  }

  // The declaration of the block's group at token k, `cg::thread_block
  // block = cg::this_thread_block();` (or `auto block = ...`, `const`
  // allowed): its name token and its `;`.
  std::optional<std::pair<std::size_t, std::size_t>> block_declaration_at(std::size_t k) const {
    auto groups_name = [&](std::size_t& j, std::string_view name) {
      if (is_groups_namespace(j) && is(j + 1, "::") && is(j + 2, name)) {
        j += 3;
        return true;
      }
      if (groups_namespace_used_ && is(j, name) && !is(j - 1, "::")) {
        j += 1;
        return true;
      }
      return false;
    };
    std::size_t j = k;
    if (is(j, "const")) ++j;
    if (is(j, "auto"))
      ++j;
    else if (!groups_name(j, "thread_block"))
      return std::nullopt;
    if (is(j, "const")) ++j;
    std::size_t name = j;
    if (!is_identifier(name) || !is(name + 1, "=")) return std::nullopt;
    j = name + 2;
    if (!groups_name(j, "this_thread_block") || !is(j, "(") || !is(j + 1, ")") || !is(j + 2, ";")) return std::nullopt;
    return std::pair{name, j + 2};
  }

  // Whether token k is a `#pragma unroll` line, which a region version keeps
  // before its loop.
  bool unroll_pragma(std::size_t k) const {
    if (k >= t_.size() || t_[k].k != kind::directive || t_[k].define != 0) return false;
    std::string_view d = src_.substr(t_[k].begin, t_[k].end - t_[k].begin);
    auto tokens = directive_tokens(d);
    return directive_name(d, tokens) == "pragma" && tokens.size() >= 3 &&
           d.substr(tokens[2].begin, tokens[2].end - tokens[2].begin) == "unroll";
  }

  struct region_plan {
    std::string why_not;  // "" if the kernel gets a region version
    std::string text;     // an inlined call's: the callee's body as the caller's region version runs it
    std::map<std::size_t, token_edit> edits;
    std::vector<std::pair<std::string, std::string>> locals;  // those across a barrier: name, member type
    std::string parameters;                                   // the kernel's, without default arguments
    bool templated = false;                                   // a kernel template's:
    std::string template_head;                                // `template <class T, int N>`
    std::string template_arguments;                           // `<T, N>`
    std::vector<std::string> type_locals;  // the template's type parameters that locals have as their type
  };

  // A region version runs a call of a __device__ function of the file that
  // waits inlined: where the call is a statement of its own, `x = f(...);`,
  // `T x = f(...);` or `return f(...) ...;` at a place a barrier may be, the
  // callee's body is planned as the kernel's is and spliced in, in a block
  // of its own (its names stay as written, bound to per-thread members of
  // their own names), at its own lines.
  struct awaitable_function;
  struct region_instance {
    std::string prefix;  // its members' names start so: weft_inlinedN_
    std::string result;  // the callee's result type as written there, "" for void
    std::vector<std::size_t> result_tokens;
    std::map<std::string, std::vector<std::size_t>, std::less<>> type_arguments;  // type parameter: the caller's tokens
    std::string front;  // what its block declares first: template parameters, shared parameters
    std::vector<std::pair<std::string, std::vector<std::size_t>>> thread_parameters;  // each thread's own: name, type
    std::set<std::string, std::less<>> shared_parameters;  // of value type, the same for every thread
    std::map<std::string, std::string, std::less<>> shared_types;
    std::set<std::string, std::less<>> blocks;               // parameters that name the block's group
    std::set<std::string, std::less<>> template_names;       // its template parameters, declared in its block
    std::set<std::string, std::less<>> same_template_names;  // those the caller's of the same name set
    int caller_line = 0;                                     // where the caller goes on
    bool returns_before_end = false;                         // out: a later region must skip a thread that returned
  };
  // What a kernel's plan shares with the calls it inlines.
  struct region_inlining {
    std::vector<std::pair<std::string, std::string>> members;  // the inlined calls' per-thread members: name, type
    std::size_t count = 0;
    std::vector<std::string> open_calls;                 // the callees being inlined, outermost first
    std::set<std::string, std::less<>> outer_names;      // what the bodies around an inlined call declare
    std::set<std::string, std::less<>> with_shared;      // callees inlined that declare __shared__ memory
    std::set<std::string, std::less<>> type_parameters;  // the kernel template's
    std::set<std::string, std::less<>> template_names;   // the kernel template's parameters, which none may redeclare
    std::vector<std::string> namespaces;                 // around the kernel
    bool shuffles = false;                               // the kernel's or a callee's shuffles are split
  };

  region_plan plan_regions(const function_definition& d, const body_facts& f, region_instance* instance = nullptr,
                           region_inlining* shared_inlining = nullptr) const {
    region_plan plan;
    region_inlining own_inlining;
    region_inlining& inlining = shared_inlining ? *shared_inlining : own_inlining;
    if (!instance) inlining.namespaces = namespaces_around(d.name_token);
    auto refuse = [&](std::string why) {
      plan.why_not = std::move(why);
      plan.edits.clear();
      return plan;
    };
    auto line_of = [&](std::size_t k) { return "line " + std::to_string(t_[k].line) + ": "; };
    // A header's go inside its include guard, as its awaitable functions do.
    if (!instance && is_header_file && !awaitables_fit_in_header())
      return refuse("it is defined in a header that ends with an #endif other than its include guard's");
    if (!f.named_waits.empty() || f.awaits_barrier || f.awaits_pipeline)
      return refuse("it waits other than at a block barrier (a named barrier, a cuda::barrier, a pipeline)");
    if (f.has_lambda || f.waits_in_lambda) return refuse("it holds a lambda");
    // The calls it inlines: each waiting call's name token.
    std::set<std::size_t> waiting_calls;
    for (std::size_t c = 0; c < f.calls.size(); ++c)
      if (awaitable_call(f, c)) waiting_calls.insert(f.call_tokens[c]);
    // A template's region version is a template of the same parameters
    // (their defaults dropped), registered for each instance that the
    // program instantiates: see render_region_version.
    std::size_t start = d.name_token;
    while (start > 0 && !is(start - 1, ";") && !is(start - 1, "}") && !is(start - 1, "{") &&
           t_[start - 1].k != kind::directive)
      --start;
    std::set<std::string, std::less<>> type_parameters;
    for (std::size_t k = start; k < d.name_token && !instance; ++k) {
      if (!is(k, "template")) continue;
      if (plan.templated) return refuse("it is a member of a class template");
      auto close = is(k + 1, "<") ? angle_forward(k + 1) : std::nullopt;
      if (!close) return refuse("a template head weft-port cannot read");
      std::string head, arguments;
      for (auto [first, end] : top_level_arguments(k + 1, *close)) {
        std::size_t stop = first;
        while (stop < end && !is(stop, "=")) ++stop;
        if (stop == first || !is_identifier(stop - 1) || stop - 1 == first)
          return refuse("a template parameter without a name");
        for (std::size_t j = first; j < stop; ++j)
          if (is(j, ".") || is(j, "<") || is(j, "template"))
            return refuse("a template parameter weft-port does not spell (a pack, a template template parameter)");
        std::string name(text(stop - 1));
        if (is(first, "class") || is(first, "typename")) type_parameters.insert(name);
        inlining.template_names.insert(name);
        head += (head.empty() ? "" : ", ") + join(first, stop, nullptr);
        arguments += (arguments.empty() ? "" : ", ") + name;
      }
      plan.templated = true;
      plan.template_head = "template <" + head + ">";
      plan.template_arguments = "<" + arguments + ">";
    }
    // A local's type as the per-thread struct spells it, or "": also a type
    // parameter of the template (`T`, `const T`), whose instances are
    // registered only where it is trivial (render_region_version).
    if (instance)
      type_parameters = inlining.type_parameters;
    else
      inlining.type_parameters = type_parameters;
    // An inlined callee's types name its template parameters: the caller's
    // arguments stand for them.
    auto substituted = [&](const std::vector<std::size_t>& written) {
      std::vector<std::size_t> out;
      for (std::size_t k : written) {
        if (instance)
          if (auto it = instance->type_arguments.find(text(k)); it != instance->type_arguments.end()) {
            out.insert(out.end(), it->second.begin(), it->second.end());
            continue;
          }
        out.push_back(k);
      }
      return out;
    };
    auto movable_or_type_parameter = [&](const std::vector<std::size_t>& written) {
      std::vector<std::size_t> type = substituted(written);
      std::string spelled = movable_type(type);
      if (!spelled.empty()) return spelled;
      std::size_t j = !type.empty() && is(type.front(), "const") ? 1 : 0;
      if (type.size() == j + 1 && type_parameters.contains(text(type[j]))) {
        std::string name(text(type[j]));
        if (std::find(plan.type_locals.begin(), plan.type_locals.end(), name) == plan.type_locals.end())
          plan.type_locals.push_back(name);
        return name;
      }
      return std::string();
    };
    // The block's barriers: each statement's first token and its `;`.
    std::map<std::size_t, std::size_t> barriers;
    std::set<std::string, std::less<>> blocks = block_variables(d.name_token + 1, d.close);
    if (instance) blocks.insert(instance->blocks.begin(), instance->blocks.end());
    // The warp shuffles it splits (weft/region_kernel.hpp, region_exchange):
    // their call tokens, each checked where the walk meets its statement.
    // Every lane must reach each: the kernel's own, none after a `return`.
    std::set<std::size_t> shuffle_calls;
    for (std::size_t w : f.waits) {
      auto awaitable = awaitable_for(text(w));
      if (!awaitable || !awaitable->starts_with("shfl") || (w > 0 && is(w - 1, "::"))) continue;
      shuffle_calls.insert(w);
      inlining.shuffles = true;
    }
    for (std::size_t w : f.waits) {
      if (shuffle_calls.contains(w)) continue;
      if (!is(w, "__syncthreads") || !is(w + 1, "(") || !is(w + 2, ")") || !is(w + 3, ";") ||
          (w > 0 && is(w - 1, "::")))
        return refuse(line_of(w) + "it waits other than at a block barrier statement (`__syncthreads();`, " +
                      "`cg::sync(block);`, `block.sync();`)");
      barriers[w] = w + 3;
    }
    for (std::size_t w : f.group_waits) {
      auto barrier = block_sync_statement(w, blocks);
      if (!barrier)
        return refuse(line_of(w) + "it waits other than at a block barrier statement (`__syncthreads();`, " +
                      "`cg::sync(block);`, `block.sync();`)");
      barriers.insert(*barrier);
    }
    if (barriers.empty() && waiting_calls.empty() && shuffle_calls.empty()) return refuse("it has no barrier");
    // The declarations of the block's group, `cg::thread_block block =
    // cg::this_thread_block();`, stay outside the regions, as __shared__
    // ones do: every thread's is the same block.
    std::map<std::size_t, std::size_t> block_declarations;
    for (std::size_t k = d.open + 1; k < d.close; ++k)
      if (is(k - 1, ";") || is(k - 1, "{") || is(k - 1, "}"))
        if (auto declared = block_declaration_at(k); declared && blocks.contains(text(declared->first)))
          block_declarations[k] = declared->second;
    // Cooperative groups' names are allowed only in those and the barriers.
    auto in_block_statement = [&](std::size_t k) {
      for (const auto* list : {&barriers, &block_declarations}) {
        auto it = list->upper_bound(k);
        if (it != list->begin() && k <= std::prev(it)->second) return true;
      }
      return false;
    };
    for (std::size_t k = d.open + 1; k < d.close; ++k) {
      if (t_[k].k == kind::directive && !unroll_pragma(k))
        return refuse(line_of(k) + "a preprocessor directive other than `#pragma unroll` in its body");
      if ((is(k, "cooperative_groups") || group_aliases_.contains(text(k))) && !in_block_statement(k))
        return refuse(line_of(k) + "it uses `" + std::string(text(k)) +
                      "` other than to name its block and wait at the block's barrier");
      if (is(k, "goto") || is(k, "asm") || is(k, "__asm__") || is(k, "try") || is(k, "co_await") || is(k, "static") ||
          is(k, "thread_local") ||
          // A type the body declares could be named by a later region, which does not see it.
          is(k, "typedef") || is(k, "using") || is(k, "struct") || is(k, "class") || is(k, "union") || is(k, "enum"))
        return refuse(line_of(k) + "it uses `" + std::string(text(k)) + "`");
    }

    // The parameters: names and types. Those the body changes become each
    // thread's own, as in CUDA: per-thread locals set from the parameter
    // (renamed weft_param_NAME) as the first region starts; the others the
    // block's threads share.
    std::set<std::string, std::less<>> params;
    std::map<std::string, std::string, std::less<>> param_types;
    struct parameter {
      std::size_t first, end, name;  // its tokens, default argument excluded, and its name's
    };
    std::vector<parameter> parameters;
    auto rparen = match_forward(d.name_token + 1);
    if (!is(d.name_token + 1, "(") || !rparen) return refuse("its parameter list is not where weft-port looks");
    // An inlined callee's parameters the caller has bound: those the same
    // for every thread in its block, the others each thread's own member.
    if (instance) {
      params = instance->shared_parameters;
      param_types = instance->shared_types;
    }
    for (auto [first, end] : instance ? std::vector<std::pair<std::size_t, std::size_t>>()
                                      : top_level_arguments(d.name_token + 1, *rparen)) {
      std::size_t k = first;
      while (k < end && !is(k, "=")) {
        if (is_opener(k))
          if (auto close = match_forward(k)) k = *close;
        ++k;
      }
      if (k == first || !is_identifier(k - 1)) {
        if (k - first == 1 && is(first, "void")) continue;
        return refuse("a parameter without a name");
      }
      std::string name(text(k - 1));
      params.insert(name);
      param_types[name] = join(first, k - 1, nullptr);
      parameters.push_back({first, k, k - 1});
    }
    std::set<std::string, std::less<>> changed;  // names the body may change
    for (std::size_t k = d.open + 1; k < d.close; ++k)
      if (names_variable(k) && (changed_at(k) || member_changed_at(k))) changed.insert(std::string(text(k)));
    std::vector<std::pair<std::string, std::string>> own_params;  // changed: name, member type
    std::string param_list;
    for (const parameter& p : parameters) {
      std::string name(text(p.name));
      std::string spelled = join(p.first, p.end, nullptr);
      if (changed.contains(name)) {
        std::vector<std::size_t> type;
        for (std::size_t j = p.first; j < p.name; ++j) type.push_back(j);
        std::string member = movable_or_type_parameter(type);
        if (member.empty())
          return refuse("it changes its parameter `" + name + "`, whose type `" + param_types[name] +
                        "` is not one weft-port moves (arithmetic, vector, pointer)");
        own_params.emplace_back(name, member);
        spelled = join(p.first, p.name, nullptr) + " weft_param_" + name;
      }
      param_list += (param_list.empty() ? "" : ", ") + spelled;
    }
    for (std::size_t k = d.open + 1; k < d.close; ++k) {
      if (!names_variable(k) || !params.contains(text(k)) || changed.contains(text(k))) continue;
      // Passed whole to a call, which might take it by reference (and
      // change what the block's threads share), unless it takes a value.
      bool whole = (is(k - 1, "(") || is(k - 1, ",")) && (is(k + 1, ")") || is(k + 1, ","));
      if (whole && !passed_by_value(k))
        return refuse(line_of(k) + "it passes its parameter `" + std::string(text(k)) + "` to a call");
    }

    // The statements, level by level: a level is the body or the body of a
    // `for` that holds a barrier; its statements are regions' statements,
    // barriers, such loops, and __shared__ declarations (which stay outside
    // the regions, so that every region sees them).
    struct region {
      std::size_t first, last;                               // tokens
      std::size_t scope_end;                                 // the `}` that ends the level
      std::optional<std::size_t> args_of = std::nullopt;     // the inlined call whose arguments it binds
      std::optional<std::size_t> shuffle_of = std::nullopt;  // the split shuffle whose operand it leaves
    };
    std::vector<region> regions;
    std::set<std::string, std::less<>> loop_variables;
    std::set<std::string, std::less<>> locals;             // every name the body declares, at any depth
    std::map<std::string, int, std::less<>> declarations;  // how many times
    std::set<std::size_t> declarators;                     // their names' tokens
    std::string why;
    auto holds_barrier = [&](std::size_t from, std::size_t to) {
      auto it = barriers.lower_bound(from);
      auto call = waiting_calls.lower_bound(from);
      auto shuffle = shuffle_calls.lower_bound(from);
      return (it != barriers.end() && it->first <= to) || (call != waiting_calls.end() && *call <= to) ||
             (shuffle != shuffle_calls.end() && *shuffle <= to);
    };
    // Every declaration anywhere: their names are locals (not uniform).
    std::function<void(std::size_t, std::size_t)> collect = [&](std::size_t from, std::size_t to) {
      for (std::size_t k = from; k < to;) {
        if (unroll_pragma(k)) {
          ++k;
          continue;
        }
        auto end = statement_end(k, to);
        if (!end) return;
        if (is(k, "{")) {
          collect(k + 1, *end);
        } else if (is(k, "if") || is(k, "for") || is(k, "while") || is(k, "switch")) {
          auto close = *match_forward(k + 1);
          if (is(k, "for")) {
            if (auto semicolon = statement_end(k + 2, close + 1); semicolon && is(*semicolon, ";")) {
              declaration dl = declaration_at(k + 2, *semicolon);
              for (std::size_t n : dl.names)
                locals.insert(std::string(text(n))), ++declarations[std::string(text(n))], declarators.insert(n);
            }
          } else {
            declaration dl = declaration_at(k + 2, close);  // `if (int x = ...)`
            for (std::size_t n : dl.names)
              locals.insert(std::string(text(n))), ++declarations[std::string(text(n))], declarators.insert(n);
          }
          auto body_end = *statement_end(close + 1, to);
          collect(close + 1, body_end + 1);
          if (is(k, "if") && is(body_end + 1, "else")) collect(body_end + 2, *end + 1);
        } else if (is(k, "do")) {
          collect(k + 1, *end + 1);
        } else {
          declaration dl = declaration_at(k, *end);
          for (std::size_t n : dl.names)
            locals.insert(std::string(text(n))), ++declarations[std::string(text(n))], declarators.insert(n);
        }
        k = *end + 1;
      }
    };
    collect(d.open + 1, d.close);
    // An inlined callee's own parameters are locals that may differ by
    // thread. Its block is inside the caller's: a name it does not declare
    // must not be one the caller declares, which would hide what it names.
    if (instance) {
      std::set<std::string, std::less<>> own = locals;
      own.insert(params.begin(), params.end());
      own.insert(blocks.begin(), blocks.end());
      own.insert(instance->template_names.begin(), instance->template_names.end());
      std::set<std::string, std::less<>> declared_here = own;
      own.insert(instance->same_template_names.begin(), instance->same_template_names.end());
      for (const auto& [name, type] : instance->thread_parameters) {
        locals.insert(name), ++declarations[name];
        own.insert(name);
      }
      for (std::size_t k = d.open + 1; k < d.close; ++k)
        if (names_variable(k) && !is_keyword(k) && !own.contains(text(k)) && inlining.outer_names.contains(text(k)))
          return refuse(line_of(k) + "it names `" + std::string(text(k)) +
                        "`, which the code around the call declares too");
      for (const std::string& name : declared_here)
        if (inlining.template_names.contains(name))
          return refuse("it declares `" + name + "`, a template parameter's name of the kernel");
    }
    // What every thread of the block has alike where the walk is: the
    // enclosing barrier loops' variables, and the locals declared from such
    // values and kept outside the regions (below).
    std::set<std::string, std::less<>> uniform;
    // The names barrier loops' heads read, and those their declarations
    // read in turn: a declaration of such names, from values every thread
    // shares, at the top of the body or of a barrier loop's, runs once for
    // the block, outside the regions, where the heads see it.
    std::set<std::string, std::less<>> heads_read;
    for (std::size_t k = d.open + 1; k < d.close; ++k)
      if (is(k, "for") && is(k + 1, "(")) {
        auto close = match_forward(k + 1);
        auto stop = statement_end(k, d.close);
        if (close && stop && holds_barrier(k, *stop))
          for (std::size_t j = k + 2; j < *close; ++j)
            if (names_variable(j)) heads_read.insert(std::string(text(j)));
      }
    for (bool grew = true; grew;) {
      grew = false;
      for (std::size_t k = d.open + 1; k < d.close; ++k) {
        if (!(is(k - 1, ";") || is(k - 1, "{") || is(k - 1, "}"))) continue;
        auto stop = statement_end(k, d.close);
        if (!stop) continue;
        declaration dl = declaration_at(k, *stop);
        if (std::none_of(dl.names.begin(), dl.names.end(), [&](std::size_t n) { return heads_read.contains(text(n)); }))
          continue;
        for (std::size_t j = k; j < *stop; ++j)
          if (names_variable(j) && heads_read.insert(std::string(text(j))).second) grew = true;
      }
    }
    auto shared_declaration = [&](std::size_t k, std::size_t stop) {
      declaration dl = declaration_at(k, stop);
      if (dl.names.empty() || !dl.simple || movable_type(substituted(dl.type)).empty()) return false;
      for (std::size_t n = 0; n < dl.names.size(); ++n) {
        std::string name(text(dl.names[n]));
        std::size_t init_to = n + 1 < dl.names.size() ? dl.names[n + 1] - 1 : stop;
        bool assigned = false;  // after its declaration, or passed to what may change it
        for (std::size_t j = d.open + 1; j < d.close && !assigned; ++j)
          assigned =
              is(j, name) && names_variable(j) && !declarators.contains(j) &&
              (changed_at(j) || member_changed_at(j) ||
               ((is(j - 1, "(") || is(j - 1, ",")) && (is(j + 1, ")") || is(j + 1, ",")) && !passed_by_value(j)));
        if (!heads_read.contains(name) || !is(dl.names[n] + 1, "=") || declarations[name] != 1 || assigned ||
            params.contains(name) ||
            !uniform_expression(dl.names[n] + 2, init_to, uniform, params, param_types, locals, changed).empty())
          return false;
      }
      for (std::size_t n : dl.names) uniform.insert(std::string(text(n)));
      return true;
    };
    // The calls inlined, as the walk meets them; each has a region of its
    // own before the callee's, which binds its arguments (`args_region`).
    struct inlined_call {
      std::size_t statement, end, call, rparen, args_region;
      bool whole;  // the statement is the call alone: nothing of it runs after the callee
      region_instance instance;
      region_plan plan;
      std::vector<std::pair<std::string, std::pair<std::size_t, std::size_t>>> thread_arguments;  // name, tokens
    };
    std::vector<inlined_call> inlined;
    // The shuffles split: the region before leaves each thread's operand in
    // the exchange (`operand_region`), the statement reads its source lane's.
    struct split_shuffle {
      std::size_t statement, call, rparen, operand_region;
      std::string_view op;
      std::pair<std::size_t, std::size_t> operand, lane;
      std::string width;
    };
    std::vector<split_shuffle> shuffles;
    // The shuffle of statement [k, end] if the region version can split it:
    // `v = __shfl*_sync(0xffffffff, e, b[, width]);`, `v op= ...;` or
    // `T v = ...;`, the full mask and a power-of-two width as literals.
    auto split_shuffle_at = [&](std::size_t k, std::size_t end) -> bool {
      auto it = shuffle_calls.lower_bound(k);
      std::size_t c = *it;
      auto forms = [&] {
        why = line_of(c) + "a warp shuffle other than as `v = __shfl*_sync(...);`, `v op= __shfl*_sync(...);` or " +
              "`T v = __shfl*_sync(...);`";
        return false;
      };
      if (std::next(it) != shuffle_calls.end() && *std::next(it) <= end) return forms();
      std::size_t at = k;
      std::string op = operator_at(k + 1);
      if (is_identifier(k) && !op.empty() && op.back() == '=' && op != "==" && op != "!=" && op != "<=" && op != ">=") {
        at = k + 1 + op.size();
      } else if (declaration dl = declaration_at(k, end);
                 dl.names.size() == 1 && dl.simple && is(dl.names[0] + 1, "=")) {
        at = dl.names[0] + 2;
      }
      auto rparen = is(c + 1, "(") ? match_forward(c + 1) : std::nullopt;
      if (c != at || !rparen || *rparen + 1 != end || !is(end, ";")) return forms();
      auto args = top_level_arguments(c + 1, *rparen);
      std::string mask = args.empty() ? "" : join(args[0].first, args[0].second, nullptr);
      std::transform(mask.begin(), mask.end(), mask.begin(), [](unsigned char ch) { return std::tolower(ch); });
      if (args.size() < 3 || args.size() > 4 || (mask != "0xffffffff" && mask != "0xffffffffu")) {
        why = line_of(c) + "a warp shuffle whose mask is not the literal full mask `0xffffffff`";
        return false;
      }
      std::string width = "32";
      if (args.size() == 4) {
        width = join(args[3].first, args[3].second, nullptr);
        bool power = args[3].second == args[3].first + 1 && t_[args[3].first].k == kind::number &&
                     (width == "1" || width == "2" || width == "4" || width == "8" || width == "16" || width == "32");
        if (!power) {
          why = line_of(c) + "a warp shuffle whose width is not a literal power of two up to 32";
          return false;
        }
      }
      auto waiting = waiting_calls.lower_bound(c);
      if (waiting != waiting_calls.end() && *waiting < *rparen) return forms();
      shuffles.push_back({k, c, *rparen, regions.size(), *awaitable_for(text(c)), args[1], args[2], width});
      return true;
    };
    std::vector<std::pair<std::size_t, std::size_t>> barrier_loops;    // `for` to the body's `}`
    std::vector<std::pair<std::size_t, std::size_t>> braceless_loops;  // a barrier loop's `)` and its body's `;`
    // The waiting call of statement [k, end] if the region version can
    // inline it there: `f(...);`, `x = f(...) ...;`, `T x = f(...) ...;` or
    // `return f(...) ...;`, the call evaluated first.
    auto inlinable_call = [&](std::size_t k, std::size_t end) -> std::optional<std::size_t> {
      auto it = waiting_calls.lower_bound(k);
      if (it == waiting_calls.end() || *it > end || (std::next(it) != waiting_calls.end() && *std::next(it) <= end))
        return std::nullopt;
      std::size_t at = k;
      if (is(k, "return")) {
        at = k + 1;
      } else if (is_identifier(k) && operator_at(k + 1) == "=") {
        at = k + 2;
      } else if (declaration dl = declaration_at(k, end);
                 dl.names.size() == 1 && dl.simple && is(dl.names[0] + 1, "=")) {
        at = dl.names[0] + 2;
      }
      if (*it != at) return std::nullopt;
      return at;
    };
    // Plans the callee of the waiting call `c` of statement [k, end] as an
    // instance of its own; `uniform` is what every thread has alike there.
    auto inline_call = [&](std::size_t k, std::size_t end, std::size_t c, std::size_t level_end) -> bool {
      std::string name(text(c));
      auto fail = [&](const std::string& reason) {
        why = line_of(c) + "inlining `" + name + "`: " + reason;
        return false;
      };
      auto callee = std::find_if(awaitables_.begin(), awaitables_.end(),
                                 [&](const awaitable_function& a) { return a.name == name; });
      if (callee == awaitables_.end() || callee->definition.member) return fail("weft-port cannot see its body");
      if (std::find(inlining.open_calls.begin(), inlining.open_calls.end(), name) != inlining.open_calls.end())
        return fail("it is recursive");
      if (namespaces_around(callee->definition.name_token) != inlining.namespaces)
        return fail("it is in another namespace than the kernel");
      if (c > 0 && (is(c - 1, "::") || is(c - 1, ".") || is(c - 1, "->"))) return fail("a qualified call");
      const function_definition& cd = callee->definition;
      const function_head& head = callee->head;
      inlined_call ic{k, end, c, 0, 0, false, {}, {}, {}};
      region_instance& in = ic.instance;
      in.prefix = "weft_inlined" + std::to_string(++inlining.count) + "_";
      in.result = head.result == "void" ? "" : head.result;
      in.result_tokens = head.result_tokens;
      in.caller_line = t_[k].line;
      std::size_t lparen = c + 1;
      std::vector<std::pair<std::size_t, std::size_t>> template_arguments;
      if (is(lparen, "<")) {
        auto close = angle_forward(lparen);
        if (!close) return fail("template arguments weft-port cannot read");
        template_arguments = top_level_arguments(lparen, *close);
        lparen = *close + 1;
      }
      auto rparen = match_forward(lparen);
      if (!rparen) return fail("arguments weft-port cannot read");
      ic.rparen = *rparen;
      ic.whole = k == c && *rparen + 1 == end;
      if (in.result.empty() && !ic.whole) return fail("its result, void, is used");
      // Its template parameters, set from the explicit arguments.
      std::vector<std::size_t> head_tokens;
      std::size_t start = cd.name_token;
      while (start > 0 && !is(start - 1, ";") && !is(start - 1, "}") && !is(start - 1, "{") &&
             t_[start - 1].k != kind::directive && t_[start - 1].define == 0)
        --start;
      std::vector<std::pair<std::size_t, std::size_t>> template_parameters;
      if (is(start, "template")) {
        auto close = is(start + 1, "<") ? angle_forward(start + 1) : std::nullopt;
        if (!close) return fail("a template head weft-port cannot read");
        template_parameters = top_level_arguments(start + 1, *close);
      }
      if (template_parameters.size() != template_arguments.size())
        return fail("its template arguments are deduced or defaulted");
      std::set<std::string, std::less<>> template_parameter_names;
      for (auto [first, end_] : template_parameters) {
        std::size_t stop = first;
        while (stop < end_ && !is(stop, "=")) ++stop;
        if (stop == first || !is_identifier(stop - 1) || stop - 1 == first)
          return fail("a template parameter without a name");
        template_parameter_names.insert(std::string(text(stop - 1)));
      }
      for (std::size_t i = 0; i < template_parameters.size(); ++i) {
        auto [first, end_] = template_parameters[i];
        auto [a0, a1] = template_arguments[i];
        std::size_t stop = first;
        while (stop < end_ && !is(stop, "=")) ++stop;
        std::string parameter(text(stop - 1));
        bool same = a1 == a0 + 1 && is(a0, parameter);
        for (std::size_t j = a0; j < a1; ++j)
          if (!same && is_identifier(j) && template_parameter_names.contains(text(j)))
            return fail("a template argument names a template parameter of its own");
        // The same name as the caller's: it names the same, declared nowhere again.
        (same ? in.same_template_names : in.template_names).insert(parameter);
        if (is(first, "class") || is(first, "typename")) {
          std::vector<std::size_t> tokens;
          for (std::size_t j = a0; j < a1; ++j) tokens.push_back(j);
          in.type_arguments[parameter] = substituted(tokens);
          if (!same) in.front += " using " + parameter + " = " + join(a0, a1, nullptr) + ";";
        } else if (!same) {
          in.front += " constexpr " + join(first, stop, nullptr) + " = (" + join(a0, a1, nullptr) + ");";
        }
      }
      // Its parameters: the block's group, the same for every thread (read
      // by its barrier loops' heads), or each thread's own.
      auto parameters = top_level_arguments(head.lparen, head.rparen);
      if (parameters.size() == 1 && parameters[0].second == parameters[0].first + 1 && is(parameters[0].first, "void"))
        parameters.clear();
      auto arguments = top_level_arguments(lparen, *rparen);
      if (arguments.size() != parameters.size()) return fail("it leaves default arguments to the callee");
      std::string temporaries, bindings;
      for (std::size_t i = 0; i < parameters.size(); ++i) {
        auto [first, stop] = parameters[i];
        auto [a0, a1] = arguments[i];
        for (std::size_t j = first; j < stop; ++j)
          if (is(j, "=")) stop = j;
        if (stop - first < 2 || !is_identifier(stop - 1) || is_keyword(stop - 1)) {
          ic.thread_arguments.push_back({"", {a0, a1}});  // unnamed: evaluated, and dropped
          continue;
        }
        std::string parameter(text(stop - 1));
        std::string argument = join(a0, a1, nullptr);
        bool block = false, reference = false, pointer = false;
        for (std::size_t j = first; j < stop - 1; ++j) {
          block |= is(j, "thread_block");
          reference |= is(j, "&") || is(j, "[") || is(j, "volatile");
          pointer |= is(j, "*");
        }
        if (block) {
          bool named = a1 == a0 + 1 && blocks.contains(text(a0));
          std::size_t j = a0;
          if (is_groups_namespace(j) && is(j + 1, "::")) j += 2;
          if (!named && !(is(j, "this_thread_block") && is(j + 1, "(") && is(j + 2, ")") && j + 3 == a1))
            return fail("its group parameter `" + parameter + "` is passed other than the block");
          in.blocks.insert(parameter);
          temporaries += " auto&& " + in.prefix + parameter + " = " + argument + ";";
          bindings += " [[maybe_unused]] auto& " + parameter + " = " + in.prefix + parameter + ";";
          continue;
        }
        if (reference && !pointer) return fail("it takes `" + parameter + "` by reference");
        bool written = false;
        for (std::size_t j = cd.open + 1; j < cd.close && !written; ++j)
          written = is(j, parameter) && names_variable(j) &&
                    (changed_at(j) || member_changed_at(j) ||
                     ((is(j - 1, "(") || is(j - 1, ",")) && (is(j + 1, ")") || is(j + 1, ",")) && !passed_by_value(j)));
        if (!pointer && !reference && !written &&
            uniform_expression(a0, a1, uniform, params, param_types, locals, changed).empty()) {
          in.shared_parameters.insert(parameter);
          in.shared_types[parameter] = join(first, stop - 1, nullptr);
          temporaries += " " + join(first, stop - 1, nullptr) + " " + in.prefix + parameter + " = (" + argument + ");";
          bindings += " [[maybe_unused]] const auto& " + parameter + " = " + in.prefix + parameter + ";";
          continue;
        }
        std::vector<std::size_t> type;
        for (std::size_t j = first; j < stop - 1; ++j) type.push_back(j);
        // `T* const v`: each thread's copy is set once, as the callee's block starts.
        if (type.size() > 1 && is(type.back(), "const") && is(type[type.size() - 2], "*")) type.pop_back();
        in.thread_parameters.emplace_back(parameter, type);
        ic.thread_arguments.push_back({parameter, {a0, a1}});
      }
      in.front += temporaries + bindings;
      // What the bodies around it declare: the callee must name none of it.
      std::set<std::string, std::less<>> saved_outer = inlining.outer_names;
      inlining.outer_names.insert(locals.begin(), locals.end());
      inlining.outer_names.insert(params.begin(), params.end());
      inlining.outer_names.insert(blocks.begin(), blocks.end());
      inlining.outer_names.insert(inlining.template_names.begin(), inlining.template_names.end());
      bool declares_shared = false;
      for (std::size_t j = cd.open + 1; j < cd.close; ++j) declares_shared |= is(j, "__shared__");
      if (declares_shared && !inlining.with_shared.insert(name).second)
        return fail("it declares `__shared__` memory and is called twice, which would make it two");
      inlining.open_calls.push_back(name);
      ic.plan = plan_regions(cd, callee->facts, &in, &inlining);
      inlining.open_calls.pop_back();
      inlining.outer_names = std::move(saved_outer);
      if (!ic.plan.why_not.empty()) {
        why = line_of(c) + "inlining `" + name + "`: " + ic.plan.why_not;
        return false;
      }
      for (const std::string& t : ic.plan.type_locals)
        if (std::find(plan.type_locals.begin(), plan.type_locals.end(), t) == plan.type_locals.end())
          plan.type_locals.push_back(t);
      ic.args_region = regions.size();
      regions.push_back({lparen, *rparen, level_end, inlined.size()});
      inlined.push_back(std::move(ic));
      return true;
    };
    std::function<bool(std::size_t, std::size_t, bool)> walk = [&](std::size_t from, std::size_t to, bool in_loop) {
      std::optional<std::size_t> open_region;
      std::size_t last = from;
      auto close_region = [&] {
        if (open_region) regions.push_back({*open_region, last, to});
        open_region.reset();
      };
      for (std::size_t k = from; k < to;) {
        // `#pragma unroll` stays with the loop after it: in its region, or
        // before a barrier loop, outside the regions.
        std::optional<std::size_t> pragma;
        if (unroll_pragma(k)) pragma = k++;
        auto end = statement_end(k, to);
        if (!end) {
          why = line_of(k) + "a statement weft-port cannot follow";
          return false;
        }
        if (pragma) {
          bool barrier_loop = is(k, "for") && holds_barrier(k, *end);
          if (!(is(k, "for") || is(k, "while") || is(k, "do")) || (!barrier_loop && holds_barrier(k, *end))) {
            why = line_of(*pragma) + "a `#pragma unroll` before something other than a loop";
            return false;
          }
          if (!barrier_loop && !open_region) open_region = *pragma;
        }
        if (barriers.contains(k)) {
          close_region();
        } else if (is(k, "__shared__") || (is(k, "extern") && is(k + 1, "__shared__")) ||
                   block_declarations.contains(k) || (!pragma && shared_declaration(k, *end))) {
          close_region();
        } else if (auto shuffle = shuffle_calls.lower_bound(k);
                   !pragma && shuffle != shuffle_calls.end() && *shuffle <= *end && !is(k, "for") && !is(k, "if") &&
                   !is(k, "while") && !is(k, "do") && !is(k, "switch") && !is(k, "{")) {
          // Its operand is left in the exchange as the region before it
          // ends; the statement opens the next region.
          close_region();
          if (!split_shuffle_at(k, *end)) return false;
          regions.push_back({shuffles.back().operand.first, shuffles.back().operand.second - 1, to, std::nullopt,
                             shuffles.size() - 1});
          open_region = k;
          last = *end;
        } else if (auto call = inlinable_call(k, *end); call && !pragma) {
          // The callee's body runs where the call is, after a region that
          // binds its arguments; what the statement does with the result
          // opens the next region.
          close_region();
          if (!inline_call(k, *end, *call, to)) return false;
          if (!inlined.back().whole) {
            open_region = k;
            last = *end;
          }
        } else if (is(k, "{") && holds_barrier(k, *end)) {
          // A block of its own: its statements are a level, as a barrier
          // loop's body is.
          close_region();
          std::set<std::string, std::less<>> saved = uniform;
          if (!walk(k + 1, *end, in_loop)) return false;
          uniform = std::move(saved);
        } else if (holds_barrier(k, *end)) {
          auto call = waiting_calls.lower_bound(k);
          if (!is(k, "for") && !is(k, "if") && !is(k, "while") && !is(k, "do") && !is(k, "switch") &&
              call != waiting_calls.end() && *call <= *end) {
            why = line_of(*call) + "a call of `" + std::string(text(*call)) +
                  "`, which waits, inside an expression (inlined only as `f(...);`, `x = f(...)...;`, " +
                  "`T x = f(...)...;` or `return f(...)...;`)";
            return false;
          }
          if (!is(k, "for")) {
            why = line_of(k) + "a barrier inside `" + std::string(text(k)) +
                  "` (only at the top of the body or of a `for` whose bounds every thread shares)";
            return false;
          }
          close_region();
          std::size_t close = *match_forward(k + 1);
          auto init_end = statement_end(k + 2, close);
          if (!init_end || !is(*init_end, ";")) {
            why = line_of(k) + "a barrier loop whose init is not a declaration";
            return false;
          }
          declaration v = declaration_at(k + 2, *init_end);
          bool declares =
              !v.names.empty() && v.simple && movable_type(substituted(v.type)) != "" && !is(v.type.back(), "*");
          for (std::size_t n : v.names) declares = declares && is(n + 1, "=");
          if (!declares) {
            why = line_of(k) + "a barrier loop whose init is not a declaration of arithmetic variables";
            return false;
          }
          std::size_t condition_end = k + 2;
          for (std::size_t j = *init_end + 1; j < close; ++j)
            if (is(j, ";")) condition_end = j;
          if (condition_end <= *init_end) {
            why = line_of(k) + "a barrier loop weft-port cannot follow";
            return false;
          }
          // Each init from what every thread shares (and the loop variables
          // of the barrier loops around this one).
          std::set<std::string, std::less<>> own;
          std::string not_uniform;
          for (std::size_t n = 0; n < v.names.size() && not_uniform.empty(); ++n) {
            std::size_t init_to = n + 1 < v.names.size() ? v.names[n + 1] - 1 : *init_end;
            not_uniform = uniform_expression(v.names[n] + 2, init_to, uniform, params, param_types, locals, changed);
            own.insert(std::string(text(v.names[n])));
          }
          std::set<std::string, std::less<>> inside = uniform;
          inside.insert(own.begin(), own.end());
          if (not_uniform.empty())
            not_uniform =
                uniform_expression(*init_end + 1, condition_end, inside, params, param_types, locals, changed);
          // The step changes the variables only, each its own way: `++v`,
          // `v++`, `v op= e`, several joined by commas.
          std::vector<std::pair<std::size_t, std::size_t>> steps;
          for (std::size_t from_step = condition_end + 1, j = from_step; j <= close; ++j) {
            if (is_opener(j)) {
              if (auto c = match_forward(j); c && *c < close) j = *c;
            } else if (is(j, ",") || j == close) {
              steps.emplace_back(from_step, j);
              from_step = j + 1;
            }
          }
          for (auto [s0, s1] : steps) {
            if (!not_uniform.empty()) break;
            std::string op = operator_at(s0);
            if ((op == "++" || op == "--") && s0 + 3 == s1 && own.contains(text(s0 + 2))) {
            } else if (own.contains(text(s0)) && (operator_at(s0 + 1) == "++" || operator_at(s0 + 1) == "--") &&
                       s0 + 3 == s1) {
            } else if (own.contains(text(s0)) && !operator_at(s0 + 1).empty() && operator_at(s0 + 1).back() == '=' &&
                       operator_at(s0 + 1) != "==") {
              not_uniform = uniform_expression(s0 + 1 + operator_at(s0 + 1).size(), s1, inside, params, param_types,
                                               locals, changed);
            } else {
              not_uniform = "a step other than the variables' own";
            }
          }
          if (!not_uniform.empty()) {
            why = line_of(k) + "a barrier loop that may differ by thread: " + not_uniform;
            return false;
          }
          // A body without braces gets them: its regions are statements.
          bool braced = is(close + 1, "{");
          if (!braced && !declaration_at(close + 1, *end).names.empty()) {
            why = line_of(k) + "a barrier loop whose body, without braces, is a declaration";
            return false;
          }
          std::size_t body_close = braced ? *end : *end + 1;
          for (std::size_t j = close + 1; j < body_close; ++j) {
            if (names_variable(j) && own.contains(text(j)) && changed_at(j)) {
              why = line_of(j) + "the barrier loop's body changes `" + std::string(text(j)) + "`";
              return false;
            }
            if (is(j, "break") || is(j, "continue")) {
              why = line_of(j) + "`" + std::string(text(j)) + "` in a barrier loop";
              return false;
            }
          }
          for (const std::string& variable : own)
            if (!loop_variables.insert(variable).second) {
              why = line_of(k) + "two barrier loops of `" + variable + "`";
              return false;
            }
          barrier_loops.emplace_back(k, body_close);
          std::set<std::string, std::less<>> saved = uniform;
          uniform = inside;
          if (!braced) braceless_loops.emplace_back(close, *end);
          if (!walk(braced ? close + 2 : close + 1, body_close, true)) return false;
          uniform = std::move(saved);
        } else {
          if (!open_region) open_region = k;
          last = *end;
          // A `break` or `continue` that would leave a region.
          if (in_loop)
            for (std::size_t j = k; j <= *end; ++j)
              if (is(j, "break") || is(j, "continue")) {
                why = line_of(j) + "`" + std::string(text(j)) + "` in a barrier loop";
                return false;
              }
        }
        k = *end + 1;
      }
      close_region();
      return true;
    };
    if (!walk(d.open + 1, d.close, false)) return refuse(why);
    // A lane that exited before a shuffle is an error the stackless executor
    // reports: every lane must reach the shuffles, its own and its callees'.
    if (!instance && inlining.shuffles && !f.returns.empty())
      return refuse(line_of(*std::min_element(f.returns.begin(), f.returns.end())) +
                    "a `return` in a kernel with warp shuffles, which every lane must reach");

    // The locals each region declares at its top, and the names it uses.
    struct local {
      std::string name, type;
      std::size_t region, statement, last, token;
      declaration decl;
    };
    std::vector<local> declared;
    std::vector<std::set<std::string, std::less<>>> used(regions.size());
    auto in_inlined_call = [&](std::size_t k) {
      return std::any_of(inlined.begin(), inlined.end(),
                         [&](const inlined_call& ic) { return k >= ic.call && k <= ic.rparen; });
    };
    for (std::size_t r = 0; r < regions.size(); ++r) {
      // An inlined call's arguments are read by its own region only.
      for (std::size_t k = regions[r].first; k <= regions[r].last; ++k)
        if (names_variable(k) && (regions[r].args_of || !in_inlined_call(k))) used[r].insert(std::string(text(k)));
      if (regions[r].args_of || regions[r].shuffle_of) continue;
      for (std::size_t k = regions[r].first; k <= regions[r].last;) {
        if (unroll_pragma(k)) {
          ++k;
          continue;
        }
        std::size_t end = *statement_end(k, regions[r].last + 1);
        declaration dl = declaration_at(k, end);
        for (std::size_t n : dl.names) declared.push_back({std::string(text(n)), "", r, k, end, n, dl});
        // A declaration weft-port cannot read (`int (*f)(int)`, `auto [a, b]`)
        // might name what a later region uses: no region version.
        static constexpr std::string_view declaration_words[] = {
            "auto",  "decltype", "const", "volatile", "unsigned", "signed", "int",     "long",
            "short", "char",     "float", "double",   "bool",     "void",   "alignas", "register"};
        if (dl.names.empty() && one_of(declaration_words, text(k)))
          return refuse(line_of(k) + "a declaration weft-port cannot read");
        for (std::size_t j = k; j <= end; ++j)
          if (is(j, "__shared__"))
            return refuse(line_of(j) + "a `__shared__` declaration inside a statement (only at the top of the body)");
        k = end + 1;
      }
    }
    std::set<std::string, std::less<>> crossing;
    for (local& l : declared) {
      bool crosses = false;
      for (std::size_t r = 0; r < regions.size(); ++r)
        if (r != l.region && used[r].contains(l.name)) crosses = true;
      if (!crosses) continue;
      if (!l.decl.simple || (l.decl.names.size() > 1 && is(l.decl.type.back(), "*")))
        return refuse(line_of(l.token) + "`" + l.name + "` lives across a barrier, declared as weft-port cannot move");
      l.type = movable_or_type_parameter(l.decl.type);
      if (l.type.empty())
        return refuse(line_of(l.token) + "`" + l.name + "` lives across a barrier, and its type `" +
                      join(l.decl.type.front(), l.decl.type.back() + 1, nullptr) +
                      "` is not one weft-port moves (arithmetic, vector, pointer)");
      bool thread_parameter =
          instance && std::any_of(instance->thread_parameters.begin(), instance->thread_parameters.end(),
                                  [&](const auto& p) { return p.first == l.name; });
      if (!crossing.insert(l.name).second || loop_variables.contains(l.name) || params.contains(l.name) ||
          thread_parameter)
        return refuse(line_of(l.token) + "`" + l.name + "` is declared twice");
      // Every use where the declaration is seen: after it, within its level.
      for (std::size_t k = d.open + 1; k < d.close; ++k)
        if (is(k, l.name) && names_variable(k) && k != l.token && (k < l.token || k > regions[l.region].scope_end))
          return refuse(line_of(k) + "`" + l.name + "` names something else outside its declaration's reach");
    }
    for (const local& l : declared)
      if (crossing.contains(l.name) &&
          std::count_if(declared.begin(), declared.end(), [&](const local& o) { return o.name == l.name; }) > 1)
        return refuse(line_of(l.token) + "`" + l.name + "` is declared twice");

    // The parameters the body changes: each thread's copy is set as the
    // first region starts, which must come before any barrier loop; they
    // are used in regions only.
    if (!own_params.empty()) {
      if (regions.empty() || regions.front().scope_end != d.close)
        return refuse("it changes its parameter `" + own_params.front().first +
                      "`, and its first region is inside a barrier loop");
      for (std::size_t k = d.open + 1; k < d.close; ++k)
        if (names_variable(k) && changed.contains(text(k)) && params.contains(text(k)) &&
            std::none_of(regions.begin(), regions.end(), [&](const region& r) { return k >= r.first && k <= r.last; }))
          return refuse(line_of(k) + "it changes its parameter `" + std::string(text(k)) + "`, used outside a region");
      for (const auto& [name, type] : own_params) used.front().insert(name);
    }

    // A bare declaration (`int sum;`) that moves leaves nothing of it to
    // run: its region does not bind the name for it.
    for (const local& l : declared) {
      if (!crossing.contains(l.name) ||
          std::any_of(l.decl.names.begin(), l.decl.names.end(), [&](std::size_t n) { return is(n + 1, "="); }))
        continue;
      bool elsewhere = false;
      for (std::size_t k = regions[l.region].first; k <= regions[l.region].last && !elsewhere; ++k)
        elsewhere = k != l.token && is(k, l.name) && names_variable(k) && !in_inlined_call(k);
      if (!elsewhere) used[l.region].erase(l.name);
    }

    // A callee's returns come after its last barrier, outside its barrier
    // loops: a thread that returned earlier would miss a barrier the others
    // wait at. A later region skips the thread that returned.
    std::optional<std::size_t> first_return;
    if (instance) {
      for (std::size_t r : f.returns) {
        bool before_barrier =
            std::any_of(barriers.begin(), barriers.end(), [&](auto b) { return b.first > r; }) ||
            std::any_of(shuffles.begin(), shuffles.end(), [&](const split_shuffle& h) { return h.call > r; }) ||
            std::any_of(inlined.begin(), inlined.end(), [&](const inlined_call& ic) { return ic.statement > r; }) ||
            std::any_of(barrier_loops.begin(), barrier_loops.end(),
                        [&](auto loop) { return r > loop.first && r < loop.second; });
        if (before_barrier) return refuse(line_of(r) + "a `return` before a barrier, which its thread would miss");
        if (!first_return || r < *first_return) first_return = r;
      }
      instance->returns_before_end = first_return && std::any_of(regions.begin(), regions.end(), [&](const region& g) {
                                       return !g.args_of && g.first > *first_return;
                                     });
    }

    // The per-thread members: the kernel's by their names, an inlined
    // callee's by its prefix (its block binds them to their names).
    std::string prefix = instance ? instance->prefix : "";
    std::vector<std::pair<std::string, std::string>> bound = own_params;  // name, member type
    if (instance)
      for (const auto& [name, type] : instance->thread_parameters) {
        std::string member = movable_or_type_parameter(type);
        if (member.empty())
          return refuse("its parameter `" + name + "`, whose type `" + join(type.front(), type.back() + 1, nullptr) +
                        "` is not one weft-port moves (arithmetic, vector, pointer)");
        bound.emplace_back(name, member);
      }
    for (const local& l : declared)
      if (crossing.contains(l.name)) bound.emplace_back(l.name, l.type);
    if (instance && !instance->result.empty()) {
      std::string member = movable_or_type_parameter(instance->result_tokens);
      if (member.empty())
        return refuse("its result type `" + instance->result +
                      "` is not one weft-port moves (arithmetic, vector, pointer)");
      inlining.members.emplace_back(prefix + "result", member);
    }
    if (instance && instance->returns_before_end) inlining.members.emplace_back(prefix + "returned", "bool");
    for (const auto& [name, type] : bound)
      if (instance) inlining.members.emplace_back(prefix + name, type);

    // A block's group that the regions no longer name (its `sync()` became
    // the region barrier) would be an unused variable to -Wall.
    for (const auto& [k, end] : block_declarations) plan.edits[k].before.insert(0, "[[maybe_unused]] ");
    // The edits: regions opened and closed, barriers dropped, the moved
    // declarations made assignments, `return` ending the thread (the
    // kernel's) or the callee's block for its thread (an inlined callee's).
    if (!instance) {
      std::string head = " struct weft_locals {";
      for (const auto& [name, type] : bound) {
        head += " " + type + " " + name + ";";
        plan.locals.push_back({name, type});
      }
      for (const auto& [name, type] : inlining.members) head += " " + type + " " + name + ";";
      head += " }; auto weft_threads = weft_block.threads<weft_locals>();";
      if (inlining.shuffles) head += " weft::region_exchange weft_exchange(weft_block);";
      plan.edits[d.open].after += head;
    } else {
      plan.edits[d.open].after += instance->front;
    }
    auto open_text = [&](std::size_t r) {
      std::string open = " weft_threads.each([&]([[maybe_unused]] weft_locals& weft_l) -> weft::region_step {";
      for (const auto& [name, type] : bound)
        if (used[r].contains(name)) open += " auto& " + name + " = weft_l." + prefix + name + ";";
      if (r == 0)
        for (const auto& [name, type] : own_params) open += " " + name + " = weft_param_" + name + ";";
      if (instance && instance->returns_before_end && regions[r].first > *first_return)
        open += " if (weft_l." + prefix + "returned) return weft::region_go;";
      return open;
    };
    for (std::size_t r = 0; r < regions.size(); ++r) {
      if (regions[r].args_of || regions[r].shuffle_of) continue;
      std::string open = open_text(r);
      if (unroll_pragma(regions[r].first))  // a directive starts its line: opened at the end of the one before
        plan.edits[regions[r].first - 1].after += open;
      else
        plan.edits[regions[r].first].before = open + " " + plan.edits[regions[r].first].before;
      plan.edits[regions[r].last].after += " return weft::region_go; });";
    }
    // An inlined call: a region that binds the callee's parameters, the
    // callee's block, then the statement with the result in the call's place.
    for (const inlined_call& ic : inlined) {
      std::string text = open_text(ic.args_region);
      for (const auto& [name, tokens] : ic.thread_arguments)
        text += name.empty() ? " (void)(" + join(tokens.first, tokens.second, nullptr) + ");"
                             : " weft_l." + ic.instance.prefix + name + " = (" +
                                   join(tokens.first, tokens.second, nullptr) + ");";
      if (ic.instance.returns_before_end) text += " weft_l." + ic.instance.prefix + "returned = false;";
      text += " return weft::region_go; });" + ic.plan.text;
      plan.edits[ic.statement].before = text + plan.edits[ic.statement].before;
      if (ic.whole) {
        for (std::size_t k = ic.statement; k <= ic.end; ++k) plan.edits[k].text = "";
      } else {
        plan.edits[ic.call].text = "weft_l." + ic.instance.prefix + "result";
        for (std::size_t k = ic.call + 1; k <= ic.rparen; ++k) plan.edits[k].text = "";
      }
    }
    // A split shuffle: a region that leaves the operand, then the statement
    // with the source lane's value in the call's place.
    for (const split_shuffle& s : shuffles) {
      std::string operand = join(s.operand.first, s.operand.second, nullptr);
      plan.edits[s.statement].before = open_text(s.operand_region) +
                                       " weft_exchange.put(weft_threads.thread_of(weft_l), +(" + operand +
                                       ")); return weft::region_go; });" + plan.edits[s.statement].before;
      plan.edits[s.call].text = "weft_exchange.get<decltype(+(" + operand + "))>(weft::region_" +
                                std::string(s.op.substr(0, s.op.size() - 5)) +
                                ", weft_threads.thread_of(weft_l), static_cast<unsigned>(" +
                                join(s.lane.first, s.lane.second, nullptr) + "), " + s.width + ")";
      for (std::size_t k = s.call + 1; k <= s.rparen; ++k) plan.edits[k].text = "";
    }
    for (auto [close, semicolon] : braceless_loops) {
      plan.edits[close].after += " {";
      plan.edits[semicolon].after += " }";
    }
    // The threads' order for the next regions (region_threads::barrier).
    for (auto [b, semicolon] : barriers) {
      plan.edits[b].text = "weft_threads.barrier()";
      for (std::size_t k = b + 1; k < semicolon; ++k) plan.edits[k].text = "";
    }
    for (const local& l : declared) {
      if (!crossing.contains(l.name) || l.token != l.decl.names.front()) continue;
      bool initialized =
          std::any_of(l.decl.names.begin(), l.decl.names.end(), [&](std::size_t n) { return is(n + 1, "="); });
      if (!initialized) {  // only bare declarators: nothing left to run but `;`
        for (std::size_t k = l.statement; k < l.last; ++k) plan.edits[k].text = "";
        continue;
      }
      for (std::size_t k : l.decl.type) plan.edits[k].text = "";
      for (std::size_t n : l.decl.names)
        if (!is(n + 1, "=")) plan.edits[n].before += "(void)";
    }
    if (!instance) {
      for (std::size_t r : f.returns) plan.edits[r].text = "return weft::region_exit";
    } else {
      // `return e;` sets the result as the callee's type converts it.
      std::string returned = instance->returns_before_end ? " weft_l." + prefix + "returned = true," : "";
      for (std::size_t r : f.returns) {
        auto semicolon = statement_end(r, d.close);
        if (!semicolon) return refuse(line_of(r) + "a `return` weft-port cannot follow");
        if (*semicolon == r + 1) {
          plan.edits[r].text =
              returned.empty() ? "return weft::region_go" : "return (" + returned + " weft::region_go)";
        } else if (instance->result.empty()) {
          plan.edits[r].text = "return ((void)(";
          plan.edits[*semicolon].text = ")," + returned + " weft::region_go);";
        } else {
          plan.edits[r].text = "return (weft_l." + prefix + "result = static_cast<" + instance->result + ">(";
          plan.edits[*semicolon].text = ")," + returned + " weft::region_go);";
        }
      }
    }
    // Nothing else rewrites these tokens (a launch in a kernel, say): else
    // the edits could not both apply.
    for (const construct& c : constructs_)
      if (c.begin >= t_[d.open].begin && c.end <= t_[d.close].end)
        for (const auto& [k, e] : plan.edits)
          if (t_[k].begin >= c.begin && t_[k].end <= c.end)
            return refuse(line_of(k) + "weft-port rewrites this statement otherwise");
    plan.why_not.clear();
    plan.parameters = param_list;
    if (instance) {
      // The callee's block at its own lines, then the caller's again.
      std::vector<construct> list = region_constructs(d, plan);
      const std::vector<construct>* saved = rendering_;
      rendering_ = &list;
      plan.text = "\n#line " + std::to_string(t_[d.open].line) + " " + file_ + "\n" +
                  render(t_[d.open].begin, t_[d.close].end, std::nullopt) + "\n#line " +
                  std::to_string(instance->caller_line) + " " + file_ + "\n";
      rendering_ = saved;
    }
    return plan;
  }

  // What renders a body as its region plan has it: the file's constructs
  // inside the body and the plan's edits, in the order render takes them.
  std::vector<construct> region_constructs(const function_definition& d, const region_plan& plan) const {
    std::vector<construct> list;
    for (const construct& c : constructs_)
      if (c.begin >= t_[d.open].begin && c.end <= t_[d.close].end) list.push_back(c);
    for (const auto& [i, e] : plan.edits)
      list.push_back(replacement(i, e.before + (e.text ? *e.text : std::string(text(i))) + e.after));
    std::sort(list.begin(), list.end(), [](const construct& x, const construct& y) {
      return x.begin < y.begin || (x.begin == y.begin && x.end > y.end);
    });
    return list;
  }

  // The region version's text, written after the last line: the body as
  // planned, at the kernel's lines, and its registration.
  std::string render_region_version(const function_definition& d, const region_plan& plan) const {
    std::vector<construct> list = region_constructs(d, plan);
    std::string out;
    std::vector<std::string> namespaces = namespaces_around(d.name_token);
    for (const std::string& n : namespaces) out += n + "\n";
    out += "#line " + std::to_string(t_[d.open].line) + " " + file_ + "\n";
    if (plan.templated) out += plan.template_head + " ";
    // Of internal linkage, as its registration: a header's, or a static
    // kernel's of the same name in another .cu, would otherwise clash.
    out += "static void weft_port_regions_" + d.name + "(weft::region_block& weft_block" +
           (plan.parameters.empty() ? "" : ", " + plan.parameters) + ") ";
    const std::vector<construct>* saved = rendering_;
    rendering_ = &list;
    out += render(t_[d.open].begin, t_[d.close].end, std::nullopt);
    rendering_ = saved;
    if (!plan.templated) {
      out += "\n[[maybe_unused]] static const bool weft_port_regions_registered_" + d.name +
             " = weft::register_region_version<&" + d.name + ", &weft_port_regions_" + d.name + ">();\n";
    } else {
      // A class template declared before the kernel, whose stackless body
      // takes the address of its static member: each instance of the kernel
      // the program makes instantiates the member, whose initialization
      // registers the instance's region version as the program starts (GCC
      // does not instantiate a variable template declared `extern` before
      // such a use and defined after it). Where a local's type is a type
      // parameter, only for trivial types.
      std::string instance = d.name + plan.template_arguments;
      std::string registration =
          "weft::register_region_version<&" + instance + ", &weft_port_regions_" + instance + ">()";
      std::string trivial;
      for (const std::string& type : plan.type_locals)
        trivial += (trivial.empty() ? "" : " && ") + ("std::is_trivially_default_constructible_v<" + type +
                                                      "> && std::is_trivially_destructible_v<" + type + ">");
      if (!trivial.empty())
        registration = "[] { if constexpr (" + trivial + ") return " + registration + "; else return false; }()";
      std::string type = "weft_port_regions_registration_" + d.name;
      out += "\nnamespace { " + plan.template_head + " struct " + type + " { static const bool registered; }; " +
             plan.template_head + " const bool " + type + plan.template_arguments + "::registered = " + registration +
             "; }\n";
    }
    for (std::size_t n = 0; n < namespaces.size(); ++n) out += "}\n";
    return out;
  }

  // ---- __device__ functions that wait, made awaitable ----
  //
  // A __device__ function of this file that waits (itself or through others
  // such) gets a second version, `weft_port_awaitable_NAME`, returning
  // weft::stackless_function<T>, with its waits awaited as in a kernel; a
  // converted kernel's call `f(x)` becomes `(co_await weft_port_awaitable_f(x))`.
  // The plain version stays as it is for every other caller (fiber kernels,
  // host code). The awaitable one is declared on the line of each
  // declaration of the plain one, after it, and defined after the file's
  // last line, behind a #line directive that puts its body at the plain
  // body's lines (docs/porting.md, "Stackless kernels").

  struct function_head {
    std::string template_header;  // `template <class T>`, or ""
    bool is_static = false;
    std::string result;  // the return type as written, "void" included
    std::vector<std::size_t> result_tokens;
    std::size_t lparen = 0, rparen = 0;
  };

  struct awaitable_function {
    std::string name;
    function_definition definition;
    body_facts facts;
    function_head head;                                               // the definition's
    std::vector<std::pair<std::size_t, function_head>> declarations;  // the token each ends at, its head
    bool emitted = false;
  };
  std::vector<awaitable_function> awaitables_;                         // this file's __device__ functions that may wait
  std::map<std::string, std::string, std::less<>> awaitable_why_not_;  // "" for those made awaitable
  std::set<std::string, std::less<>> waits_somewhere_;  // those of awaitables_ that wait, directly or not

  // The head of a __device__ function declared at `name_token`, if
  // weft-port can write the awaitable version's from it.
  std::optional<function_head> head_of_function(std::size_t name_token) const {
    if (name_token == 0 || is(name_token - 1, "::") || !is(name_token + 1, "(")) return std::nullopt;
    std::size_t start = name_token;
    while (start > 0 && !is(start - 1, ";") && !is(start - 1, "}") && !is(start - 1, "{") &&
           t_[start - 1].k != kind::directive && t_[start - 1].define == 0)
      --start;
    function_head h;
    std::size_t k = start;
    if (is(k, "template")) {
      auto close = is(k + 1, "<") ? angle_forward(k + 1) : std::nullopt;
      if (!close || *close == k + 2) return std::nullopt;  // an explicit specialisation
      h.template_header = join(k, *close + 1, nullptr);
      k = *close + 1;
    }
    bool device = false;
    std::vector<std::size_t> result;
    static constexpr std::string_view dropped[] = {"inline",       "__inline__", "__forceinline__",
                                                   "__noinline__", "constexpr",  "extern"};
    for (; k < name_token; ++k) {
      if (t_[k].k == kind::literal || t_[k].k == kind::directive) return std::nullopt;
      if (unsigned q = qualifier(k)) {
        if (q & qualifier_global) return std::nullopt;
        device |= (q & qualifier_device) != 0;
        continue;
      }
      if (is(k, "static")) {
        h.is_static = true;
        continue;
      }
      if (one_of(dropped, text(k))) continue;
      if ((is(k, "[") && is(k + 1, "[")) || ((is(k, "__attribute__") || is(k, "__align__")) && is(k + 1, "("))) {
        auto close = match_forward(is(k, "[") ? k : k + 1);
        if (!close) return std::nullopt;
        k = *close;
        continue;
      }
      if (is(k, "auto") || is(k, "decltype") || is(k, "&") || is(k, "&&") || is(k, "=") || is(k, "(") ||
          is(k, "operator") || is(k, "virtual"))
        return std::nullopt;
      result.push_back(k);
    }
    if (!device || result.empty()) return std::nullopt;
    h.result = join(result.front(), name_token, &result);
    h.result_tokens = result;
    auto rparen = match_forward(name_token + 1);
    if (!rparen) return std::nullopt;
    for (std::size_t j = name_token + 1; j < *rparen; ++j)
      if (t_[j].k == kind::directive) return std::nullopt;
    h.lparen = name_token + 1;
    h.rparen = *rparen;
    return h;
  }

  // `template <...> static weft::stackless_function<T> weft_port_awaitable_NAME(params)`, and
  // `;` for a declaration (default arguments as the plain one's), the
  // parameters without defaults for the definition.
  std::string twin_declaration(const awaitable_function& a, const function_head& h, bool declaration) const {
    std::string out;
    if (!h.template_header.empty()) out += h.template_header + " ";
    if (h.is_static) out += "static ";
    out += h.result == "void" ? "weft::stackless_function<>" : "weft::stackless_function<" + h.result + ">";
    out += " weft_port_awaitable_" + a.name + "(";
    if (declaration) {
      out += join(h.lparen + 1, h.rparen, nullptr) + ");";
    } else {
      std::string params;
      for (auto [first, end] : top_level_arguments(h.lparen, h.rparen)) {
        std::size_t k = first;
        while (k < end && !is(k, "=")) {
          if (is_opener(k))
            if (auto close = match_forward(k)) k = *close;
          ++k;
        }
        params += (params.empty() ? "" : ", ") + join(first, std::min(k, end), nullptr);
      }
      out += params + ")";
    }
    return out;
  }

  // Whether call c of `f` is to a function of this file made awaitable.
  bool awaitable_call(const body_facts& f, std::size_t c) const {
    auto it = awaitable_why_not_.find(f.calls[c]);
    std::size_t i = f.call_tokens[c];
    return it != awaitable_why_not_.end() && it->second.empty() && !(i > 0 && (is(i - 1, ".") || is(i - 1, "->")));
  }

  // Which of this file's __device__ functions that may wait weft-port makes
  // awaitable (awaitable_why_not_: "" for those, why not for the others).
  void find_awaitable_functions(const std::vector<function_definition>& functions) {
    for (const function_definition& d : functions) {
      if (d.kernel || !known_.may_wait.contains(d.name) || known_.never_wait.contains(d.name)) continue;
      awaitable_function a{d.name, d, facts_of(d.open + 1, d.close, d.name_token + 1), {}, {}, false};
      std::string why;
      auto head = d.member ? std::nullopt : head_of_function(d.name_token);
      if (in_header && !awaitables_fit_in_header())
        why =
            "it is defined in a header without #pragma once whose last line is an #endif that closes no include "
            "guard weft-port knows (#ifndef NAME, #define NAME): its awaitable version, after the header's last "
            "line or before that #endif, could be outside the guard";
      else if (std::count_if(functions.begin(), functions.end(),
                             [&](const function_definition& g) { return g.name == d.name; }) > 1 ||
               awaitable_why_not_.contains(d.name))
        why = "it is overloaded";
      else if (d.member)
        why = "it is a member function";
      else if (!head)
        why =
            "weft-port cannot read its declaration (a __device__ function returning a value, not `auto` or a "
            "reference)";
      else if (inside_conditional(d.name_token))
        why = "it is inside an #if (its awaitable version, after the last line, would not be)";
      else if (has_c_linkage(d.name_token))
        why = "it has C linkage (extern \"C\"): a coroutine's parts would share one symbol";
      else if (!a.facts.refusal.empty())
        why = "it " + a.facts.refusal;
      else if (a.facts.waits_in_lambda)
        why = "it waits inside a lambda";
      else if (a.facts.has_lambda)
        why = "it holds a lambda";
      else if (!a.facts.spin.empty())
        why = "it spins (" + a.facts.spin + ")";
      for (const construct& c : constructs_)
        if ((c.kind == construct_kind::arch || c.kind == construct_kind::dual_body) && c.begin < t_[d.close].end &&
            c.end > t_[d.open].begin && why.empty())
          why = "it tests __CUDA_ARCH__ in a __host__ __device__ function";
      bool shuffles = std::any_of(a.facts.waits.begin(), a.facts.waits.end(), [&](std::size_t w) {
        return text(w).starts_with("__shfl") || text(w).starts_with("__match");
      });
      bool half = known_.includes_half;
      for (std::size_t i = d.open; i < d.close && !half; ++i)
        half = is(i, "__half") || is(i, "__half2") || is(i, "half") || is(i, "half2") || is(i, "__nv_bfloat16") ||
               is(i, "__nv_bfloat162");
      if (why.empty() && shuffles && half) why = "it shuffles in a file that uses __half or __nv_bfloat16";
      if (why.empty()) {
        // Each declaration at namespace scope gets the awaitable one's beside it.
        for (std::size_t i = 0; i < t_.size() && why.empty(); ++i) {
          if (!is(i, d.name) || !is(i + 1, "(") || t_[i].define != 0 || scope_[i].where != space::file) continue;
          if (i == d.name_token) {
            a.declarations.emplace_back(d.close, *head);
            continue;
          }
          auto h = head_of_function(i);
          if (h && is(h->rparen + 1, ";")) a.declarations.emplace_back(h->rparen + 1, *h);
        }
        std::sort(a.declarations.begin(), a.declarations.end(),
                  [](const auto& x, const auto& y) { return x.first < y.first; });
        a.head = *head;
      }
      awaitable_why_not_[d.name] = why;
      awaitables_.push_back(std::move(a));
    }
    // Those that wait, themselves or through another of them (the others
    // may wait only in what weft-port cannot see).
    for (bool changed = true; changed;) {
      changed = false;
      for (const awaitable_function& a : awaitables_) {
        if (waits_somewhere_.contains(a.name)) continue;
        bool waits =
            !a.facts.waits.empty() || !a.facts.group_waits.empty() || a.facts.waits_in_lambda || a.facts.named_barrier;
        for (std::size_t c = 0; c < a.facts.calls.size() && !waits; ++c)
          waits = waits_somewhere_.contains(a.facts.calls[c]);
        if (waits) changed = waits_somewhere_.insert(a.name).second;
      }
    }
    // Every call must never wait or be to another awaitable function; one
    // that reaches itself again stays as it is (a coroutine's recursion has
    // no stack to bound it).
    for (bool changed = true; changed;) {
      changed = false;
      for (awaitable_function& a : awaitables_) {
        std::string& why = awaitable_why_not_[a.name];
        if (!why.empty()) continue;
        bool waits = !a.facts.waits.empty() || !a.facts.group_waits.empty() || !a.facts.named_waits.empty();
        for (std::size_t c = 0; c < a.facts.calls.size() && why.empty(); ++c) {
          const std::string& call = a.facts.calls[c];
          if (call == a.name) {
            why = "it is recursive";
          } else if (awaitable_call(a.facts, c)) {
            waits = true;
            if (reaches(call, a.name)) why = "it is recursive, through `" + call + "`";
          } else if (awaitable_why_not_.contains(call)) {
            why = "it calls `" + call + "`, which is not made awaitable either";
          } else if (known_.may_wait.contains(call) ||
                     !(never_waits(call) || types_.contains(call) || known_.never_wait.contains(call))) {
            why = "it calls `" + call + "`, which weft-port cannot see or make awaitable";
          }
        }
        if (why.empty() && !waits) why = "it does not wait";
        changed |= !why.empty();
      }
    }
  }

  // Whether token `at` is inside a preprocessor conditional, other than the
  // include guard around the whole file (`#ifndef X` and `#define X` first).
  bool inside_conditional(std::size_t at) const {
    std::vector<bool> open;  // each open conditional: whether it is the guard
    bool first = true;
    for (std::size_t i = 0; i < at; ++i) {
      if (t_[i].k != kind::directive || t_[i].define != 0) {
        if (t_[i].define == 0) first = false;
        continue;
      }
      std::string_view d = src_.substr(t_[i].begin, t_[i].end - t_[i].begin);
      auto tokens = directive_tokens(d);
      std::string_view name = directive_name(d, tokens);
      if (name == "if" || name == "ifdef" || name == "ifndef") {
        open.push_back(first && name == "ifndef");
      } else if (name == "endif" && !open.empty()) {
        open.pop_back();
      }
      first = first && (name == "ifndef" || name == "define") && open.size() <= 1;
    }
    return std::any_of(open.begin(), open.end(), [](bool guard) { return !guard; });
  }

  // Whether awaitable function `from` calls `to`, directly or through others.
  bool reaches(const std::string& from, const std::string& to) const {
    std::set<std::string, std::less<>> seen;
    std::vector<std::string> next{from};
    while (!next.empty()) {
      std::string name = next.back();
      next.pop_back();
      if (!seen.insert(name).second) continue;
      for (const awaitable_function& a : awaitables_)
        if (a.name == name)
          for (std::size_t c = 0; c < a.facts.calls.size(); ++c) {
            if (a.facts.calls[c] == to) return true;
            if (awaitable_call(a.facts, c)) next.push_back(a.facts.calls[c]);
          }
    }
    return false;
  }

  // Whether the function named at token `name` is declared `extern "C"`,
  // itself or inside an `extern "C" { ... }` block.
  bool has_c_linkage(std::size_t name) const {
    std::size_t k = name;
    while (k > 0 && !is(k - 1, ";") && !is(k - 1, "}") && !is(k - 1, "{") && t_[k - 1].k != kind::directive) {
      --k;
      if (is(k, "extern") && k + 1 < t_.size() && t_[k + 1].k == kind::literal && text(k + 1) == "\"C\"") return true;
    }
    for (const std::string& opener : namespaces_around(name))
      if (opener.starts_with("extern")) return true;
    return false;
  }

  // The namespaces (and extern "C" blocks) around token `at`, each as its opening `namespace a {`.
  std::vector<std::string> namespaces_around(std::size_t at) const {
    std::vector<std::string> open;
    for (std::size_t i = 0; i < at; ++i) {
      if (t_[i].define != 0) continue;
      if (is(i, "{")) {
        std::string opener;
        if (opens_namespace(i)) {
          std::size_t j = i;
          while (j > 0 && !is(j - 1, "namespace") && t_[j - 1].k != kind::literal) --j;
          if (j > 0 && is(j - 1, "namespace")) {
            --j;
            if (j > 0 && is(j - 1, "inline")) --j;
          } else if (j > 1) {
            j -= 2;  // extern "C"
          }
          opener = join(j, i + 1, nullptr);
        }
        open.push_back(opener);
      } else if (is(i, "}") && !open.empty()) {
        open.pop_back();
      }
    }
    return open;
  }

  // The #endif that closes the include guard of a file that begins `#ifndef
  // NAME` `#define NAME` and ends with it: a header's awaitable versions go
  // before it, inside the guard. Its byte offset and line.
  std::optional<std::pair<std::size_t, int>> include_guard_end() const {
    auto directive = [&](std::size_t i, std::string_view want) -> std::optional<std::string_view> {
      if (i >= t_.size() || t_[i].k != kind::directive) return std::nullopt;
      std::string_view d = src_.substr(t_[i].begin, t_[i].end - t_[i].begin);
      auto tokens = directive_tokens(d);
      if (directive_name(d, tokens) != want) return std::nullopt;
      return tokens.size() > 2 && tokens[2].identifier ? d.substr(tokens[2].begin, tokens[2].end - tokens[2].begin)
                                                       : std::string_view();
    };
    if (t_.size() < 3 || !directive(t_.size() - 1, "endif")) return std::nullopt;
    auto guard = directive(0, "ifndef");
    // `#define NAME` is tokens of its own (see the constructor).
    if (!guard || guard->empty() || t_.size() < 5 || t_[1].define == 0 || !is(1, "#") || !is(2, "define") ||
        text(3) != *guard)
      return std::nullopt;
    // The #ifndef must be the one the last #endif closes.
    int depth = 0;
    for (std::size_t i = 0; i + 1 < t_.size(); ++i) {
      if (t_[i].k != kind::directive || t_[i].define != 0) continue;
      std::string_view d = src_.substr(t_[i].begin, t_[i].end - t_[i].begin);
      std::string_view name = directive_name(d, directive_tokens(d));
      if (name == "if" || name == "ifdef" || name == "ifndef") ++depth;
      if (name == "endif" && --depth == 0) return std::nullopt;
    }
    return std::pair{t_.back().begin, t_.back().line};
  }

  // Whether a header's awaitable versions can be written inside its include
  // guard: before the guard's #endif, or after the last line of a file with
  // `#pragma once` or that does not end with an #endif (no guard, where a
  // second inclusion would define the plain functions twice too).
  bool awaitables_fit_in_header() const {
    if (include_guard_end() || t_.empty()) return true;
    for (const token& t : t_) {
      if (t.k != kind::directive) continue;
      std::string_view d = src_.substr(t.begin, t.end - t.begin);
      auto tokens = directive_tokens(d);
      if (directive_name(d, tokens) == "pragma" && tokens.size() > 2 &&
          d.substr(tokens[2].begin, tokens[2].end - tokens[2].begin) == "once")
        return true;
    }
    std::string_view last = src_.substr(t_.back().begin, t_.back().end - t_.back().begin);
    return t_.back().k != kind::directive || directive_name(last, directive_tokens(last)) != "endif";
  }

  // The awaitable versions' definitions, written after the file's last line.
  std::string render_awaitable_functions() const {
    std::string out;
    for (const awaitable_function& a : awaitables_) {
      if (!a.emitted) continue;
      const function_definition& d = a.definition;
      std::vector<construct> list;
      for (const construct& c : constructs_)
        if (c.begin >= t_[d.open].begin && c.end <= t_[d.close].begin) {
          list.push_back(c);
          await_named_barrier(a.facts, list.back());
        }
      for (const auto& [i, e] : await_edits(a.facts))
        list.push_back(replacement(i, e.before + (e.text ? *e.text : std::string(text(i))) + e.after));
      std::sort(list.begin(), list.end(), [](const construct& x, const construct& y) {
        return x.begin < y.begin || (x.begin == y.begin && x.end > y.end);
      });
      std::vector<std::string> namespaces = namespaces_around(d.name_token);
      for (const std::string& n : namespaces) out += n + "\n";
      out += "#line " + std::to_string(t_[d.open].line) + " " + file_ + "\n";
      out += twin_declaration(a, a.head, false) + " ";
      rendering_ = &list;
      out += render(t_[d.open].begin, t_[d.close].end, std::nullopt);
      rendering_ = &constructs_;
      out += "\n";
      for (std::size_t n = 0; n < namespaces.size(); ++n) out += "}\n";
    }
    return out;
  }

  // Each wait of a body awaited, each `return` a `co_return`; one edit per
  // token, as a wait's `)` may end another's argument.
  std::map<std::size_t, token_edit> await_edits(const body_facts& f) const {
    std::map<std::size_t, token_edit> edits;
    // A statement of its own needs no parentheses: `co_await weft::syncthreads();`.
    auto statement = [&](std::size_t from, std::size_t close) {
      return is(close + 1, ";") && from > 0 &&
             (is(from - 1, ";") || is(from - 1, "{") || is(from - 1, "}") || is(from - 1, ")") ||
              is(from - 1, "else") || is(from - 1, ":"));
    };
    for (std::size_t r : f.returns) edits[r].text = "co_return";
    for (std::size_t w : f.waits) {
      std::size_t from = w > 0 && is(w - 1, "::") && !(w > 1 && is_identifier(w - 2)) ? w - 1 : w;
      auto close = match_forward(w + 1);
      if (!close) continue;
      bool alone = statement(from, *close);
      std::string awaitable = "co_await weft::" + std::string(*awaitable_for(text(w)));
      if (from != w) edits[from].text = "";
      edits[w].text = alone ? awaitable : "(" + awaitable;
      if (!alone) edits[*close].after += ")";
      // CUDA's shuffles and matches are overloads, so a `short` or `char`
      // value is promoted to `int`; the awaitables are templates of the
      // eight types, which deduce no promotion: `+(v)` makes it.
      std::string_view name = text(w);
      if (name.starts_with("__shfl") || name.starts_with("__match")) {
        auto args = top_level_arguments(w + 1, *close);
        if (args.size() >= 2) {
          edits[args[1].first].before += "+(";
          edits[args[1].second - 1].after.insert(0, ")");
        }
      }
    }
    // `cg::reduce(g, v, op)` -> `(co_await weft::reduce(g, v, op))`;
    // `g.shfl_up(v, 1)` -> `(co_await weft::shfl_up(g, v, 1))`.
    for (std::size_t w : f.group_waits) {
      auto close = match_forward(call_parenthesis(w));
      if (!close) continue;
      bool member = is(w - 1, ".");
      bool of_cuda = w >= 2 && is(w - 1, "::") && is(w - 2, "cuda");  // cuda::make_pipeline
      std::size_t from = w >= 2 && (member || is_groups_namespace(w - 2) || of_cuda) ? w - 2 : w;
      bool alone = statement(from, *close);
      std::string awaitable = "co_await weft::" + std::string(text(w));
      if (member) {
        edits[from].before += (alone ? "" : "(") + awaitable + "(";
        edits[w - 1].text = "";
        edits[w].text = "";
        edits[w + 1].text = *close == w + 2 ? "" : ", ";
      } else {
        if (from != w) edits[from].text = "", edits[w - 1].text = "";
        edits[w].text = alone ? awaitable : "(" + awaitable;
      }
      if (!alone) edits[*close].after += ")";
    }
    for (std::size_t c = 0; c < f.calls.size(); ++c) {
      if (!awaitable_call(f, c)) continue;
      std::size_t i = f.call_tokens[c], from = i;
      while (from >= 2 && is(from - 1, "::") && is_identifier(from - 2)) from -= 2;
      if (from >= 1 && is(from - 1, "::")) --from;
      std::size_t lparen = i + 1;
      if (is(lparen, "<"))
        if (auto close = angle_forward(lparen)) lparen = *close + 1;
      auto close = match_forward(lparen);
      if (!close) continue;
      bool alone = statement(from, *close);
      edits[from].before += alone ? "co_await " : "(co_await ";
      edits[i].text = "weft_port_awaitable_" + std::string(text(i));
      if (!alone) edits[*close].after += ")";
    }
    return edits;
  }

  // The top-level arguments of the call whose parentheses are at `open` and
  // `close`, each as its tokens [first, end).
  std::vector<std::pair<std::size_t, std::size_t>> top_level_arguments(std::size_t open, std::size_t close) const {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::size_t start = open + 1;
    for (std::size_t k = open + 1; k < close; ++k) {
      if (is_opener(k)) {
        if (auto c = match_forward(k)) k = *c;
      } else if (is(k, ",")) {
        out.emplace_back(start, k);
        start = k + 1;
      }
    }
    if (start < close) out.emplace_back(start, close);
    return out;
  }

  // ---- finding the constructs ----

  void find_constructs() {
    // Which braces are open, and whether each is a namespace's (or an
    // extern "C" block's): a declaration is at namespace scope when only
    // those are open. Braces in macro bodies do not count.
    std::vector<bool> braces;
    std::vector<std::string> names;  // each open brace's namespace name ("" for others)
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (t_[i].define == 0 && is(i, "{")) {
        braces.push_back(opens_namespace(i));
        names.push_back(braces.back() ? namespace_name(i) : "");
      }
      if (t_[i].define == 0 && is(i, "}") && !braces.empty()) {
        braces.pop_back();
        names.pop_back();
      }
      bool namespace_scope = t_[i].define == 0 && std::find(braces.begin(), braces.end(), false) == braces.end();
      if (namespace_scope && is(i, "__global__")) kernel_at(i, names);
      try {
        // `<<<`, or `<< <` as clang-format writes it (never C++ otherwise).
        if (is(i, "<") && spaced_run_of(i, "<") == 3 && !(i > 0 && is(i - 1, "<") && spaced(i - 1)) &&
            !(i > 0 && is(i - 1, "operator")))  // operator<<<T> is a template specialisation
          constructs_.push_back(launch_at(i));
        if (is(i, "extern") || is(i, "__shared__")) {
          if (auto decl = extern_shared_at(i, namespace_scope)) {
            constructs_.push_back(*decl);
            while (i + 1 < t_.size() && t_[i + 1].begin < decl->end) ++i;
          } else if (auto moved = alignas_after_shared_at(i)) {
            constructs_.push_back(*moved);
            while (i + 1 < t_.size() && t_[i + 1].begin < moved->end) ++i;
          }
        }
      } catch (const port_failure& f) {
        // In a macro body the construct may be a fragment the macro's users
        // complete (`#define CONFIG(g, b) <<<g, b>>>`): warn and leave it.
        bool in_define = t_[i].define != 0;
        diagnostics.push_back({f.line, f.what + (in_define ? " (in a macro, left unchanged)" : ""), !in_define});
      }
    }
  }

  bool opens_namespace(std::size_t brace) const {
    std::size_t j = brace;
    // namespace a::b { / inline namespace a { / namespace {
    while (j > 0 && ((is_identifier(j - 1) && !is(j - 1, "namespace")) || is(j - 1, "::"))) --j;
    if (j > 0 && is(j - 1, "namespace")) return true;
    // extern "C" {
    return brace >= 2 && t_[brace - 1].k == kind::literal && is(brace - 2, "extern");
  }

  // `a::b` of `namespace a::b {`; "" for an anonymous namespace or extern "C".
  std::string namespace_name(std::size_t brace) const {
    std::size_t j = brace;
    while (j > 0 && (is_identifier(j - 1) || is(j - 1, "::")) && !is(j - 1, "namespace")) --j;
    return j > 0 && is(j - 1, "namespace") ? join(j, brace, nullptr) : "";
  }

  // Records the __global__ function declared from token `at`, unless it is
  // a template (no address without its arguments) or defined out of line.
  void kernel_at(std::size_t at, const std::vector<std::string>& namespaces) {
    std::size_t j = at;
    while (j > 0 && (is(j - 1, "static") || is(j - 1, "inline") || is(j - 1, "extern") || is(j - 1, "__host__") ||
                     is(j - 1, "__device__") || is(j - 1, "__forceinline__") || is(j - 1, "__noinline__")))
      --j;
    bool is_template = j > 0 && is(j - 1, ">");  // template <...> __global__ ...
    std::string cluster;
    std::size_t k = at + 1;
    for (; k < t_.size() && t_[k].define == 0 && !is(k, ";") && !is(k, "{"); ++k) {
      bool attribute = is(k, "__cluster_dims__") || is(k, "__launch_bounds__") || is(k, "__maxnreg__") ||
                       is(k, "__attribute__") || is(k, "__align__") || is(k, "alignas");
      if (attribute && is(k + 1, "(")) {
        auto close = match_forward(k + 1);
        if (!close) return;
        if (is(k, "__cluster_dims__")) cluster = join(k + 2, *close, nullptr);
        k = *close;
        continue;
      }
      if (is(k, "(")) break;
    }
    if (k >= t_.size() || !is(k, "(") || !is_identifier(k - 1) || is(k - 2, "::")) return;
    auto close = match_forward(k);
    if (!close) return;
    bool defaults = has_default_arguments(k, *close);
    if (is_template) {
      std::string name(text(k - 1));
      known_.templates.insert(name);
      if (defaults) known_.with_default_arguments.insert(name);
      if (auto less = match_angle_backward(j - 1)) {
        std::size_t& count = known_.template_parameters[name];
        count = std::max(count, top_level_items(*less, j - 1));
      }
      return;
    }
    std::string qualified;
    for (const std::string& n : namespaces)
      if (!n.empty()) qualified += n + "::";
    // __cluster_dims__(x) and (x, y) leave the rest 1.
    if (!cluster.empty())
      for (auto commas = std::count(cluster.begin(), cluster.end(), ','); commas < 2; ++commas) cluster += ", 1";
    bool returns_void = false;
    for (std::size_t r = at + 1; r + 1 < k; ++r) returns_void = returns_void || is(r, "void");
    kernels_.push_back({qualified + std::string(text(k - 1)), signature(k, *close), cluster, defaults, returns_void});
    std::size_t after = *close + 1;
    while (after < t_.size() && !is(after, "{") && !is(after, ";")) ++after;
    kernels_.back().defined = after < t_.size() && is(after, "{");
    kernels_.back().conditional = inside_conditional(at);
    kernels_.back().line = t_[at].line;
  }

  // Whether a parameter list gives a parameter a default argument.
  bool has_default_arguments(std::size_t open, std::size_t close) const {
    int depth = 0;
    for (std::size_t k = open + 1; k < close; ++k) {
      if (is_opener(k) || is(k, "<")) ++depth;
      if (is_closer(k) || is(k, ">")) --depth;
      if (depth == 0 && is(k, "=")) return true;
    }
    return false;
  }

  // How a launch passes the kernel its tokens [first, end) name. Only a
  // plain name, `k`, `ns::k`, `::k`, `k<T>` or `ns::template k<T>`, of a
  // __global__ function this file or a file it includes declares is known at
  // compile time: weft::launch<k> then calls it directly. A template named
  // without its arguments, an overloaded name, or a kernel with default
  // arguments becomes a generic lambda whose call picks them from the
  // arguments (as the launch's own call would). Anything else is passed as
  // a value.
  launch_kernel kernel_form(std::size_t first, std::size_t end) const {
    std::size_t j = first;
    if (is(j, "::")) ++j;
    for (;;) {
      if (is(j, "template")) ++j;
      if (!is_identifier(j) || is_keyword(j)) return launch_kernel::value;
      if (!is(j + 1, "::")) break;
      j += 2;
    }
    std::string_view name = text(j);
    if (j + 1 != end) {  // template arguments follow
      auto open = is(end - 1, ">") ? match_angle_backward(end - 1) : std::nullopt;
      bool known = open && *open == j + 1 && known_.templates.contains(name);
      if (!known) return launch_kernel::value;
      // `k<float><<<...>>>` of a `template <class T, class S> k(T*, S*)`:
      // the arguments deduce S, which only a call can do.
      auto declared = known_.template_parameters.find(name);
      bool partial = declared != known_.template_parameters.end() && top_level_items(j + 1, end - 1) < declared->second;
      return known_.with_default_arguments.contains(name) || partial ? launch_kernel::deduced : launch_kernel::compiled;
    }
    if (known_.templates.contains(name)) return launch_kernel::deduced;
    auto same_name = [&](const kernel_decl& d) {
      std::string_view n = d.name;
      return n == name || (n.ends_with(name) && n.substr(0, n.size() - name.size()).ends_with("::"));
    };
    std::vector<const kernel_decl*> decls;
    for (const auto* list : {&known_.kernels, &kernels_})
      for (const kernel_decl& d : *list)
        if (same_name(d)) decls.push_back(&d);
    if (decls.empty()) return launch_kernel::value;
    bool overloaded = std::any_of(decls.begin(), decls.end(),
                                  [&](const kernel_decl* d) { return d->signature != decls.front()->signature; });
    bool defaults = std::any_of(decls.begin(), decls.end(), [](const kernel_decl* d) { return d->default_arguments; });
    return overloaded || defaults ? launch_kernel::deduced : launch_kernel::compiled;
  }

  // How many comma-separated items lie between the brackets at `open` and
  // `close` (template parameters or arguments), counting only commas outside
  // nested brackets.
  std::size_t top_level_items(std::size_t open, std::size_t close) const {
    if (close <= open + 1) return 0;
    std::size_t items = 1;
    int angles = 0;
    for (std::size_t i = open + 1; i < close; ++i) {
      if (is_opener(i)) {
        if (auto c = match_forward(i)) i = *c;
      } else if (is(i, "<")) {
        ++angles;
      } else if (is(i, ">") && angles > 0) {
        --angles;
      } else if (is(i, ",") && angles == 0) {
        ++items;
      }
    }
    return items;
  }

  // A parameter list's types, to tell overloads from redeclarations: each
  // parameter without its default argument and its name (a last identifier
  // that follows other tokens), `int* p, int n = 4` -> `int*, int`. A name it
  // fails to drop only makes two declarations look like overloads, whose
  // launches then take the generic lambda, which works for both.
  std::string signature(std::size_t open, std::size_t close) const {
    static constexpr std::string_view type_words[] = {
        "int",  "char",  "float",    "double", "long",    "short",        "unsigned", "signed",   "bool",
        "void", "const", "volatile", "auto",   "wchar_t", "__restrict__", "char8_t",  "char16_t", "char32_t"};
    auto is_type_word = [&](std::size_t i) { return one_of(type_words, text(i)); };
    std::string out;
    std::vector<std::size_t> param;
    auto flush = [&] {
      std::size_t n = param.size();
      for (std::size_t k = 0; k < n; ++k)
        if (is(param[k], "=")) n = k;
      // `T name` or `T name[N]`: the name is before the first `[`, or last.
      std::size_t name = n;
      for (std::size_t k = 0; k < n; ++k)
        if (is(param[k], "[")) {
          name = k;
          break;
        }
      bool drop =
          name >= 2 && is_identifier(param[name - 1]) && !is_type_word(param[name - 1]) && !is(param[name - 2], "::");
      std::vector<std::size_t> kept;
      for (std::size_t k = 0; k < n; ++k)
        if (!(drop && k == name - 1)) kept.push_back(param[k]);
      if (!out.empty()) out += ", ";
      if (!kept.empty()) out += join(kept.front(), kept.back() + 1, &kept);
      param.clear();
    };
    int depth = 0;
    for (std::size_t k = open + 1; k < close; ++k) {
      if (is_opener(k) || is(k, "<")) ++depth;
      if (is_closer(k) || is(k, ">")) --depth;
      if (depth == 0 && is(k, ","))
        flush();
      else
        param.push_back(k);
    }
    if (!param.empty()) flush();
    return out;
  }

  [[noreturn]] void fail(std::size_t i, const std::string& what) const { throw port_failure{t_[i].line, what}; }

  // kernel<<<config>>>(args), with `<<<` at token `open`.
  construct launch_at(std::size_t open) {
    std::size_t kernel = kernel_start(open);

    // The closing `>>>`: the first run of three or more adjacent `>` outside
    // brackets (`n >> 1` is a run of two). In a longer run the last three
    // close, so `Foo<Bar<int>>>>>` ends a template argument first. A run
    // with spaces, `>> >` as clang-format writes it, closes where the
    // argument list follows it (`A<B<int> > >::v` may come first).
    std::size_t close = 0;
    int depth = 0;
    for (std::size_t j = open + 3;; ++j) {
      if (j >= t_.size() || t_[j].define != t_[open].define || (depth == 0 && (is(j, ";") || is_closer(j))))
        fail(open, "a kernel launch's `<<<` has no matching `>>>`");
      if (is_opener(j)) ++depth;
      if (is_closer(j)) --depth;
      if (depth == 0 && is(j, ">")) {
        std::size_t n = run_of(j, ">");
        if (n >= 3) {
          close = j + n - 3;
          break;
        }
        std::size_t spaced_n = spaced_run_of(j, ">");
        if (spaced_n >= 3 && is(j + spaced_n, "(")) {
          close = j + spaced_n - 3;
          break;
        }
        j += n - 1;
      }
    }

    std::size_t lparen = close + 3;
    if (!is(lparen, "(") || t_[lparen].define != t_[open].define)
      fail(close, "a kernel launch's `>>>` is not followed by its argument list `(...)`");
    auto rparen = match_forward(lparen);
    if (!rparen) fail(lparen, "a kernel launch's argument list has no closing `)`");

    construct c{};
    c.kind = construct_kind::launch;
    c.begin = t_[kernel].begin;
    c.kernel_end = t_[open - 1].end;
    c.open = t_[open].begin;
    c.config_begin = t_[open + 2].end;
    c.config_end = t_[close].begin;
    c.close_end = t_[close + 2].end;
    c.lparen = t_[lparen].begin;
    c.args_begin = t_[lparen].end;
    c.args_end = t_[*rparen].begin;
    c.end = t_[*rparen].end;
    c.has_args = *rparen > lparen + 1;
    c.variadic_args = *rparen == lparen + 2 && is(lparen + 1, "__VA_ARGS__");
    c.kernel_as = kernel_form(kernel, open);
    return c;
  }

  // The first token of the kernel expression that ends just before `<<<`:
  // k, ns::k, ::k, k<T, 4>, ns::template k<T>, (k), table[i], get_kernel(), obj.k.
  std::size_t kernel_start(std::size_t open) const {
    auto none = [&]() -> std::size_t { fail(open, "no kernel name before a launch's `<<<`"); };
    if (open == 0) none();
    std::size_t j = open - 1;
    for (;;) {
      if (t_[j].define != t_[open].define) none();
      if (is(j, ">")) {  // template arguments: continue with the template's name
        auto less = match_angle_backward(j);
        if (!less || *less == 0 || !is_identifier(*less - 1) || is_keyword(*less - 1)) none();
        j = *less - 1;
      }
      if (is(j, ")")) {
        auto paren = match_backward(j);
        if (!paren) none();
        std::size_t before = *paren - 1;
        // A call that returns the kernel, `get_kernel()` or `pick<T>()`; else a
        // parenthesised kernel `(k)`, or `(cond ? k1 : k2)`.
        if (*paren > 0 && ((is_identifier(before) && !is_keyword(before)) || is(before, ">") || is(before, "]")) &&
            t_[before].define == t_[open].define) {
          j = before;
          continue;
        }
        return *paren;
      }
      if (is(j, "]")) {
        auto bracket = match_backward(j);
        if (!bracket || *bracket == 0) none();
        j = *bracket - 1;
        continue;
      }
      if (!is_identifier(j) || is_keyword(j)) none();
      // A name: look left for a qualifier or member access that continues it.
      std::size_t q = j;
      if (q > 0 && is(q - 1, "template")) --q;  // ns::template k<T>
      if (q > 0 && (is(q - 1, "::") || is(q - 1, ".") || is(q - 1, "->")) && t_[q - 1].define == t_[open].define) {
        std::size_t left = q - 1;
        if (left > 0 && t_[left - 1].define == t_[open].define &&
            ((is_identifier(left - 1) && !is_keyword(left - 1)) || is(left - 1, ">") || is(left - 1, ")") ||
             is(left - 1, "]"))) {
          j = left - 1;
          continue;
        }
        if (is(left, "::")) return left;  // ::k, the global namespace
        none();
      }
      return j;
    }
  }

  // `[static] __shared__ alignas(n) T x;` becomes `alignas(n) [static] __shared__ T x;`.
  // __shared__ is thread_local, and C++ allows a standard attribute such as
  // alignas only before the declaration's specifiers or after its name, not
  // after thread_local; nvcc accepts it there. nullopt when no alignas
  // follows the __shared__ at `at`.
  std::optional<construct> alignas_after_shared_at(std::size_t at) {
    if (!is(at, "__shared__") || !is(at + 1, "alignas")) return std::nullopt;
    int define = t_[at].define;
    std::size_t first = at > 0 && is(at - 1, "static") && t_[at - 1].define == define ? at - 1 : at;
    std::size_t j = at + 1;
    std::string attributes;
    while (j + 1 < t_.size() && t_[j].define == define && is(j, "alignas") && is(j + 1, "(")) {
      auto close = match_forward(j + 1);
      if (!close) return std::nullopt;
      attributes += join(j, *close + 1, nullptr) + " ";
      j = *close + 1;
    }
    construct c{};
    c.kind = construct_kind::text;
    c.begin = t_[first].begin;
    c.end = t_[j - 1].end;
    c.text = attributes + (first < at ? "static __shared__" : "__shared__") + line_breaks(c.begin, c.end);
    return c;
  }

  // `extern __shared__ T name[];` (in either order, with __align__(n),
  // alignas(n), __attribute__((...)) or [[...]] anywhere among the
  // specifiers), starting at token `first`. nullopt when the declaration at i is
  // something else (extern "C", extern int x;, a static __shared__ array).
  std::optional<construct> extern_shared_at(std::size_t first, bool namespace_scope) {
    if (first > 0 && (is(first - 1, "extern") || is(first - 1, "__shared__"))) return std::nullopt;
    if (is(first, "extern") && first + 1 < t_.size() && t_[first + 1].k == kind::literal) return std::nullopt;
    int define = t_[first].define;
    bool has_extern = false, has_shared = false;
    std::vector<std::size_t> type;  // the specifier tokens that name the element type, then the name
    std::size_t j = first;
    auto same = [&](std::size_t k) { return k < t_.size() && t_[k].define == define; };
    // Skips an attribute at j: __align__(16), alignas(16), __attribute__((aligned(16))), [[...]].
    auto skip_attribute = [&]() {
      if ((is(j, "__align__") || is(j, "alignas") || is(j, "__attribute__") || is(j, "__declspec")) && is(j + 1, "(")) {
        auto close = match_forward(j + 1);
        if (!close) return false;
        j = *close + 1;
        return true;
      }
      if (is(j, "[") && is(j + 1, "[")) {
        auto close = match_forward(j);
        if (!close) return false;
        j = *close + 1;
        return true;
      }
      return false;
    };
    for (;;) {
      if (!same(j)) return std::nullopt;
      if (is(j, "extern")) {
        has_extern = true;
        ++j;
      } else if (is(j, "__shared__")) {
        has_shared = true;
        ++j;
      } else if (skip_attribute()) {
      } else if (is(j, "[") || is(j, ";") || is(j, "{") || is(j, "}") || is(j, "(") || is(j, "=") || is(j, ",")) {
        break;
      } else {
        type.push_back(j++);
      }
    }
    if (!has_extern || !has_shared) return std::nullopt;
    auto unsupported = [&](std::size_t at, const std::string& why) {
      fail(at, "cannot port this `extern __shared__` declaration: " + why +
                   "; write it as `extern __shared__ T name[];`, one name per declaration");
    };
    if (!is(j, "[")) unsupported(j, "it does not declare an array of unknown size");
    if (type.size() < 2 || !is_identifier(type.back())) unsupported(j, "no element type or name before `[`");
    std::size_t name = type.back();
    type.pop_back();
    if (!is(j + 1, "]")) unsupported(j, "the array has a size (`[]` is the dynamic shared memory)");
    j += 2;
    // Further dimensions, `extern __shared__ float tile[][32];`
    std::size_t dims_begin = j;
    while (same(j) && is(j, "[")) {
      auto close = match_forward(j);
      if (!close) unsupported(j, "unbalanced `[`");
      j = *close + 1;
    }
    std::size_t dims_end = j;
    while (same(j) && skip_attribute()) {
    }
    // In a macro body the `;` may come from the macro's user: `#define SMEM(T, s) extern __shared__ T s[]`.
    bool semicolon = same(j) && is(j, ";");
    if (!semicolon && !(define > 0 && !same(j))) {
      std::size_t at = std::min(j, t_.size() - 1);
      unsupported(at, is(at, ",") ? "it declares more than one name" : "expected `;` after the array");
    }

    std::string element = join(type.front(), type.back() + 1, &type);
    std::string dims = join(dims_begin, dims_end, nullptr);
    std::string n(text(name));
    construct c{};
    c.kind = construct_kind::text;
    c.begin = t_[first].begin;
    c.end = t_[semicolon ? j : j - 1].end;
    if (namespace_scope) {
      uses_extern_shared_helper = true;
      c.text = "[[maybe_unused]] static weft_port::extern_shared<" + element + dims + "> " + n;
    } else if (dims.empty()) {
      c.text = element + "* " + n + " = weft::dynamic_shared<" + element + ">()";
    } else {
      c.text = element + " (*" + n + ")" + dims + " = weft::dynamic_shared<" + element + dims + ">()";
    }
    if (semicolon) c.text += ";";
    // Keep the declaration's line breaks (spliced ones in a macro body).
    c.text += line_breaks(c.begin, c.end);
    return c;
  }

  // The text of tokens [from, to) (only those listed in `only`, if given),
  // with one space where the source had space or a comment, or a dropped token.
  std::string join(std::size_t from, std::size_t to, const std::vector<std::size_t>* only) const {
    std::string out;
    std::optional<std::size_t> last;
    for (std::size_t k = from; k < to; ++k) {
      if (only && std::find(only->begin(), only->end(), k) == only->end()) continue;
      if (last && (*last + 1 != k || t_[*last].end != t_[k].begin)) out += ' ';
      out += text(k);
      last = k;
    }
    return out;
  }

  // The line breaks in source bytes [begin, end), spliced ones as splices.
  std::string line_breaks(std::size_t begin, std::size_t end) const {
    std::string out;
    for (std::size_t k = begin; k < end; ++k)
      if (src_[k] == '\n') {
        bool spliced = (k > 0 && src_[k - 1] == '\\') || (k > 1 && src_[k - 1] == '\r' && src_[k - 2] == '\\');
        out += spliced ? " \\\n" : "\n";
      }
    return out;
  }

  // ---- rendering ----

  // Source bytes [from, to) with the constructs inside rewritten; in a
  // __host__ __device__ function's body, as `view` sees __CUDA_ARCH__.
  std::string render(std::size_t from, std::size_t to, std::optional<arch_view> view) const {
    std::string out;
    std::size_t pos = from;
    auto it = std::lower_bound(rendering_->begin(), rendering_->end(), from,
                               [](const construct& c, std::size_t at) { return c.begin < at; });
    for (; it != rendering_->end() && it->begin < to; ++it) {
      // Encloses the range: the launch or the __host__ __device__ body being rendered.
      if (it->end > to || (it->kind == construct_kind::dual_body && it->begin == from && it->end == to)) continue;
      if (it->begin < pos) {  // inside the construct just rendered, which rendered it
        if (it->end > pos) throw port_failure{0, "internal error: overlapping rewrites"};
        continue;
      }
      out.append(src_.substr(pos, it->begin - pos));
      switch (it->kind) {
        case construct_kind::launch:
          out += render_launch(*it, view);
          break;
        case construct_kind::text:
          out += it->text;
          break;
        case construct_kind::arch:
          out += view == arch_view::device ? it->text : std::string(src_.substr(it->begin, it->end - it->begin));
          break;
        case construct_kind::dual_body:
          out += render_dual_body(*it);
          break;
      }
      pos = it->end;
    }
    out.append(src_.substr(pos, to - pos));
    return out;
  }

  // The line and column (both from 1) of source byte `at`.
  std::pair<int, std::size_t> position(std::size_t at) const {
    int line = 1 + static_cast<int>(std::count(src_.begin(), src_.begin() + at, '\n'));
    std::size_t line_start = src_.rfind('\n', at == 0 ? 0 : at - 1);
    std::size_t column = at - (line_start == std::string_view::npos || at == 0 ? 0 : line_start + 1);
    return {line, column + 1};
  }

  // A __host__ __device__ function's body whose tests of __CUDA_ARCH__ read
  // differently in nvcc's two passes: both versions, the device view's run
  // inside a kernel (and in the functions it calls), the host view's
  // elsewhere (and in constant evaluation). #line directives put each copy
  // at the body's own lines and columns, so errors in either point there.
  //   { BODY }  ->  { if (weft::detail::in_kernel()) {
  //                 #line L
  //                 BODY (device view)
  //                 } else {
  //                 #line L
  //                 BODY (host view)
  //                 }
  //                 #line L2
  //                 }
  std::string render_dual_body(const construct& c) const {
    auto [first_line, first_column] = position(c.begin);
    auto [last_line, last_column] = position(c.end);
    auto at = [&](int line, std::size_t column) {
      return "\n#line " + std::to_string(line) + " " + file_ + "\n" + std::string(column - 1, ' ');
    };
    std::string out = " if (weft::detail::in_kernel()) {" + at(first_line, first_column);
    out += render(c.begin, c.end, arch_view::device);
    out += "\n} else {" + at(first_line, first_column);
    out += render(c.begin, c.end, arch_view::host);
    out += "\n}" + at(last_line, last_column);
    std::size_t source_lines = std::count(src_.begin() + c.begin, src_.begin() + c.end, '\n');
    added_lines_ += std::count(out.begin(), out.end(), '\n') - source_lines;
    return out;
  }

  // The spaces or comments between a launch's parts: comments and line breaks
  // are kept, plain spaces (`k <<< 1, 1 >>> (x)`) are not.
  std::string gap(std::size_t begin, std::size_t end) const {
    std::string_view text = src_.substr(begin, end - begin);
    bool blank = std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t'; });
    return blank ? std::string() : std::string(text);
  }

  // K gap1 <<<CONFIG>>> gap2 (ARGS)  ->  weft::launch(weft::launch_config{CONFIG}, K gap1 gap2, ARGS)
  // Every byte but `<<<`, `>>>` and the parentheses is kept, so are the lines.
  std::string render_launch(const construct& c, std::optional<arch_view> view) const {
    std::string config = "weft::launch_config{" + render(c.config_begin, c.config_end, view) + "}";
    std::string out;
    if (c.kernel_as == launch_kernel::compiled) {
      out = "weft::launch<" + render(c.begin, c.kernel_end, view) + ">(" + config;
    } else {
      out = "weft::launch(" + config + ", ";
      // A template's name, or an overloaded one, is no value to pass: a
      // generic lambda calls it, and the arguments (copied at the launch)
      // deduce the template arguments or pick the overload.
      if (c.kernel_as == launch_kernel::deduced)
        out +=
            "[](auto... weft_port_arguments) { " + render(c.begin, c.kernel_end, view) + "(weft_port_arguments...); }";
      else
        out += render(c.begin, c.kernel_end, view);
    }
    out += gap(c.kernel_end, c.open);
    out += gap(c.close_end, c.lparen);
    std::string args = render(c.args_begin, c.args_end, view);
    if (c.variadic_args)
      out += " __VA_OPT__(,) ";  // no comma before an empty __VA_ARGS__
    else if (c.has_args)
      out += (args.empty() || std::isspace(static_cast<unsigned char>(args[0]))) ? "," : ", ";
    return out + args + ")";
  }
};

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

int usage(std::ostream& os, int code) {
  os << "usage: weft-port INPUT.cu [-o OUTPUT.cpp] [--source-root DIR] [--port-root DIR] [--depfile FILE]\n"
        "       [--no-stackless] [--explain] [--program-source FILE ...]\n"
        "Rewrites a CUDA source file's kernel launches (k<<<grid, block, shmem, stream>>>(args)) and\n"
        "`extern __shared__` arrays for weft, gives its tests of __CUDA_ARCH__ the view of the nvcc pass\n"
        "that would compile them, and writes the result (to standard output by default). Compiler errors\n"
        "in the output point at INPUT's lines.\n"
        "With -o, the files INPUT includes with #include \"...\" (found beside the file that includes them)\n"
        "that need the same rewrites are ported too, under --port-root (default: OUTPUT's folder) at their\n"
        "place below --source-root (default: INPUT's folder), where the ports' #include lines find them.\n"
        "--depfile writes a Makefile rule naming every file read, for the build to port again when one\n"
        "changes.\n"
        "Kernels whose barriers, warp collectives and cooperative-group waits sit in their own bodies, or in\n"
        "__device__ functions of the file (given an awaitable version), become stackless kernels, in INPUT\n"
        "and in the headers only it includes\n"
        "(weft::stackless_kernel, co_await weft::syncthreads(), ...; docs/porting.md, \"Stackless kernels\"),\n"
        "unless --no-stackless. --explain says for each kernel whether it converted, and if not why.\n"
        "--program-source FILE (repeatable) names another source of the same program: a kernel that\n"
        "one of them names, or one in a header that one of them includes, stays as it is, as it may be\n"
        "declared there with `void`.\n";
  return code;
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

namespace fs = std::filesystem;

struct options {
  std::string input, output, source_root, port_root, depfile;
  bool stackless = true;                     // --no-stackless turns the conversion off
  bool explain = false;                      // --explain: says per kernel whether it converts, and why not
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
  explicit program_porter(options o) : o_(std::move(o)) {
    writes_headers_ = !o_.output.empty();
    if (writes_headers_) {
      fs::path input = fs::absolute(o_.input).lexically_normal();
      source_root_ = o_.source_root.empty() ? input.parent_path() : fs::absolute(o_.source_root).lexically_normal();
      port_root_ = o_.port_root.empty() ? fs::absolute(o_.output).lexically_normal().parent_path()
                                        : fs::absolute(o_.port_root).lexically_normal();
    }
  }

  // The input's port, or nullopt after the errors are reported.
  std::optional<std::string> run() {
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
  fs::path port_path(const fs::path& source) const {
    fs::path relative = source.lexically_relative(source_root_);
    if (relative.empty()) relative = fs::path("__root") / source.relative_path();
    fs::path out = port_root_;
    for (const fs::path& part : relative) out /= part == ".." ? fs::path("__") : part;
    return out;
  }

  program_file& port(const fs::path& source, const std::string& name, bool is_main) {
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

  // The identifiers of the given files, such as the program's other sources (--program-source).
  static std::set<std::string, std::less<>> names_in(const std::vector<std::string>& paths) {
    std::set<std::string, std::less<>> out;
    for (const std::string& path : paths) {
      std::ifstream in(path, std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      for (const token& t : scanner(text).run())
        if (t.k == kind::identifier) out.insert(text.substr(t.begin, t.end - t.begin));
    }
    return out;
  }

  // Adds `source` and what it includes with #include "..." (found beside the
  // file that includes it, as port() finds it), transitively, to `files`.
  static void include_closure(const fs::path& source, std::set<fs::path>& files) {
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

  // Writes through a temporary file, so that a build that ports two files
  // including the same header at once never reads half a port; leaves an
  // unchanged port alone, so that what includes it is not rebuilt.
  static bool write_if_changed(const fs::path& path, const std::string& text) {
    {
      std::ifstream old(path, std::ios::binary);
      if (old && std::string(std::istreambuf_iterator<char>(old), std::istreambuf_iterator<char>()) == text)
        return true;
    }
    return write_file(path, text);
  }

 public:
  static bool write_file(const fs::path& path, const std::string& text) {
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

 private:
  bool write_depfile() const {
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
};

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int a = 1; a < argc; ++a) {
    std::string_view arg = argv[a];
    if (arg == "-h" || arg == "--help") return usage(std::cout, 0);
    if (arg == "--no-stackless" || arg == "--explain") {
      (arg == "--explain" ? o.explain : o.stackless) = arg == "--explain";
      continue;
    }
    if (arg == "--program-source" && a + 1 < argc) {
      o.program_sources.emplace_back(argv[++a]);
      continue;
    }
    std::string* value = arg == "-o"              ? &o.output
                         : arg == "--source-root" ? &o.source_root
                         : arg == "--port-root"   ? &o.port_root
                         : arg == "--depfile"     ? &o.depfile
                                                  : nullptr;
    if (value) {
      if (a + 1 == argc) {
        std::cerr << "weft-port: " << arg << " needs a value\n";
        return usage(std::cerr, 2);
      }
      *value = argv[++a];
    } else if (arg.size() > 1 && arg[0] == '-') {
      std::cerr << "weft-port: unknown option '" << arg << "'\n";
      return usage(std::cerr, 2);
    } else if (o.input.empty()) {
      o.input = arg;
    } else {
      return usage(std::cerr, 2);
    }
  }
  if (o.input.empty()) return usage(std::cerr, 2);

  std::string output = o.output;
  std::optional<std::string> out = program_porter(std::move(o)).run();
  if (!out) return 1;
  if (output.empty()) {
    std::cout << *out;
    std::cout.flush();
    return std::cout ? 0 : 1;
  }
  return program_porter::write_file(output, *out) ? 0 : 1;
}
