// weft-port: makes an unmodified CUDA source file compile with g++ against weft.
//
//   weft-port in.cu > out.cpp
//   weft-port in.cu -o out.cpp
//
// It rewrites exactly two constructs and copies every other byte unchanged:
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
//
// and, after the last line of a source file (not a header), registers every
// non-template __global__ function declared at namespace scope, with its
// __cluster_dims__ if it has them:
//
//   static const bool weft_port_kernel_N = weft::detail::register_kernel<&ns::kernel>();
//   static const bool weft_port_cluster_N = weft::detail::register_cluster_dims(&ns::kernel, 2, 1, 1);
//
// so that a kernel known only by address (cudaLaunchKernel((void*)k, ...),
// cudaLaunchCooperativeKernel) can be launched, and a compile-time cluster
// shape takes effect, as they do with nvcc. A registered kernel launched by
// address (from another file, say) also runs the grid compiled for it.
//
// The output begins with `#include <weft.hpp>` (and, when needed, the small
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
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace {

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

// How a rewritten launch passes its kernel (see porter::kernel_form).
enum class launch_kernel { value, compiled, deduced };

class porter {
 public:
  explicit porter(std::string_view src) : src_(src) {
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
    }
  }

  std::vector<diagnostic> diagnostics;
  bool uses_extern_shared_helper = false;

  // The registrations written after the last line (see the top of the file).
  std::string registrations() const {
    std::string out;
    for (std::size_t k = 0; k < kernels_.size(); ++k) {
      const kernel_decl& d = kernels_[k];
      // An overloaded name needs the parameter types to pick one.
      bool overloaded = std::any_of(kernels_.begin(), kernels_.end(), [&](const kernel_decl& e) {
        return e.name == d.name && e.signature != d.signature;
      });
      std::string address = overloaded ? "static_cast<void (*)(" + d.signature + ")>(&" + d.name + ")" : "&" + d.name;
      std::string n = std::to_string(k);
      out += "[[maybe_unused]] static const bool weft_port_kernel_" + n + " = weft::detail::register_kernel<" +
             address + ">();\n";
      if (!d.cluster_dims.empty())
        out += "[[maybe_unused]] static const bool weft_port_cluster_" + n + " = weft::detail::register_cluster_dims(" +
               address + ", " + d.cluster_dims + ");\n";
    }
    return out;
  }

  // The rewritten source (without the prelude).
  std::string run() {
    find_constructs();
    std::sort(constructs_.begin(), constructs_.end(),
              [](const construct& a, const construct& b) { return a.begin < b.begin; });
    return render(0, src_.size());
  }

 private:
  // One rewrite: a launch, whose parts are rendered recursively (an argument
  // may hold another launch), or a declaration replaced by fixed text.
  struct construct {
    std::size_t begin, end;  // the source bytes replaced
    bool is_launch;
    std::string text;  // a declaration's replacement
    // A launch's parts: kernel [begin, kernel_end), configuration
    // [config_begin, config_end), arguments [args_begin, args_end), and the
    // spaces or comments after the kernel and after `>>>`, kept as they are.
    std::size_t kernel_end, open, config_begin, config_end, close_end, lparen, args_begin, args_end;
    bool has_args;
    bool variadic_args;  // the arguments are a macro's __VA_ARGS__, which may be empty
    launch_kernel kernel_as;
  };

  // A __global__ function declared at namespace scope.
  struct kernel_decl {
    std::string name;          // qualified by its namespaces
    std::string signature;     // its parameter types (see signature())
    std::string cluster_dims;  // __cluster_dims__'s arguments, padded to three; empty if none
  };

  std::string_view src_;
  std::vector<token> t_;  // tokens other than spaces and comments
  std::vector<construct> constructs_;
  std::vector<kernel_decl> kernels_;
  // Names of the file's template __global__ functions: a launch that names
  // one without template arguments lets the arguments pick them.
  std::set<std::string, std::less<>> template_kernels_;

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
    return is_identifier(i) && std::find(std::begin(words), std::end(words), text(i)) != std::end(words);
  }

  // Number of adjacent copies of the one-character token c starting at i.
  std::size_t run_of(std::size_t i, std::string_view c) const {
    std::size_t n = 0;
    while (is(i + n, c) && (n == 0 || adjacent(i + n - 1))) ++n;
    return n;
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
        if (is(i, "<") && run_of(i, "<") == 3 && !(i > 0 && is(i - 1, "<") && adjacent(i - 1)) &&
            !(i > 0 && is(i - 1, "operator")))  // operator<<<T> is a template specialisation
          constructs_.push_back(launch_at(i));
        if (is(i, "extern") || is(i, "__shared__")) {
          if (auto decl = extern_shared_at(i, namespace_scope)) {
            constructs_.push_back(*decl);
            while (i + 1 < t_.size() && t_[i + 1].begin < decl->end) ++i;
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
    if (is_template) {
      template_kernels_.insert(std::string(text(k - 1)));
      return;
    }
    auto close = match_forward(k);
    if (!close) return;
    std::string qualified;
    for (const std::string& n : namespaces)
      if (!n.empty()) qualified += n + "::";
    // __cluster_dims__(x) and (x, y) leave the rest 1.
    if (!cluster.empty())
      for (auto commas = std::count(cluster.begin(), cluster.end(), ','); commas < 2; ++commas) cluster += ", 1";
    kernels_.push_back({qualified + std::string(text(k - 1)), signature(k, *close), cluster});
  }

  // How a launch passes the kernel its tokens [first, end) name. Only a
  // plain name, `k`, `ns::k`, `::k`, `k<T>` or `ns::template k<T>`, of a
  // __global__ function this file declares is known at compile time:
  // weft::launch<k> then calls it directly. A template named without its
  // arguments, or an overloaded name, becomes a generic lambda whose call
  // picks them from the arguments. Anything else is passed as a value.
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
      bool known = open && *open == j + 1 && template_kernels_.contains(name);
      return known ? launch_kernel::compiled : launch_kernel::value;
    }
    if (template_kernels_.contains(name)) return launch_kernel::deduced;
    auto same_name = [&](const kernel_decl& d) {
      std::string_view n = d.name;
      return n == name || (n.ends_with(name) && n.substr(0, n.size() - name.size()).ends_with("::"));
    };
    auto first_decl = std::find_if(kernels_.begin(), kernels_.end(), same_name);
    if (first_decl == kernels_.end()) return launch_kernel::value;
    bool overloaded = std::any_of(kernels_.begin(), kernels_.end(), [&](const kernel_decl& d) {
      return same_name(d) && d.signature != first_decl->signature;
    });
    return overloaded ? launch_kernel::deduced : launch_kernel::compiled;
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
    auto is_type_word = [&](std::size_t i) {
      return std::find(std::begin(type_words), std::end(type_words), text(i)) != std::end(type_words);
    };
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
    // close, so `Foo<Bar<int>>>>>` ends a template argument first.
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
        j += n - 1;
      }
    }

    std::size_t lparen = close + 3;
    if (!is(lparen, "(") || t_[lparen].define != t_[open].define)
      fail(close, "a kernel launch's `>>>` is not followed by its argument list `(...)`");
    auto rparen = match_forward(lparen);
    if (!rparen) fail(lparen, "a kernel launch's argument list has no closing `)`");

    construct c{};
    c.is_launch = true;
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
    c.is_launch = false;
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

  // Source bytes [from, to) with the constructs inside rewritten.
  std::string render(std::size_t from, std::size_t to) const {
    std::string out;
    std::size_t pos = from;
    auto it = std::lower_bound(constructs_.begin(), constructs_.end(), from,
                               [](const construct& c, std::size_t at) { return c.begin < at; });
    for (; it != constructs_.end() && it->begin < to; ++it) {
      if (it->end > to) continue;  // encloses the range: the launch being rendered
      if (it->begin < pos) {       // inside the construct just rendered, which rendered it
        if (it->end > pos) throw port_failure{0, "internal error: overlapping rewrites"};
        continue;
      }
      out.append(src_.substr(pos, it->begin - pos));
      out += it->is_launch ? render_launch(*it) : it->text;
      pos = it->end;
    }
    out.append(src_.substr(pos, to - pos));
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
  std::string render_launch(const construct& c) const {
    std::string config = "weft::launch_config{" + render(c.config_begin, c.config_end) + "}";
    std::string out;
    if (c.kernel_as == launch_kernel::compiled) {
      out = "weft::launch<" + render(c.begin, c.kernel_end) + ">(" + config;
    } else {
      out = "weft::launch(" + config + ", ";
      // A template's name, or an overloaded one, is no value to pass: a
      // generic lambda calls it, and the arguments (copied at the launch)
      // deduce the template arguments or pick the overload.
      if (c.kernel_as == launch_kernel::deduced)
        out += "[](auto... weft_port_arguments) { " + render(c.begin, c.kernel_end) + "(weft_port_arguments...); }";
      else
        out += render(c.begin, c.kernel_end);
    }
    out += gap(c.kernel_end, c.open);
    out += gap(c.close_end, c.lparen);
    std::string args = render(c.args_begin, c.args_end);
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
  os << "usage: weft-port INPUT.cu [-o OUTPUT.cpp]\n"
        "Rewrites a CUDA source file's kernel launches (k<<<grid, block, shmem, stream>>>(args)) and\n"
        "`extern __shared__` arrays for weft, and writes the result (to standard output by default).\n"
        "Compiler errors in the output point at INPUT's lines.\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::string input, output;
  for (int a = 1; a < argc; ++a) {
    std::string_view arg = argv[a];
    if (arg == "-h" || arg == "--help") return usage(std::cout, 0);
    if (arg == "-o") {
      if (a + 1 == argc) {
        std::cerr << "weft-port: -o needs a file name\n";
        return usage(std::cerr, 2);
      }
      output = argv[++a];
    } else if (arg.size() > 1 && arg[0] == '-') {
      std::cerr << "weft-port: unknown option '" << arg << "'\n";
      return usage(std::cerr, 2);
    } else if (input.empty()) {
      input = arg;
    } else {
      return usage(std::cerr, 2);
    }
  }
  if (input.empty()) return usage(std::cerr, 2);

  std::ifstream in(input, std::ios::binary);
  if (!in) {
    std::cerr << "weft-port: cannot read " << input << "\n";
    return 1;
  }
  std::string src((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string_view body = src;
  if (body.starts_with("\xEF\xBB\xBF")) body.remove_prefix(3);  // a UTF-8 byte order mark

  porter port(body);
  std::string rewritten;
  try {
    rewritten = port.run();
  } catch (const port_failure& f) {
    port.diagnostics.push_back({f.line, f.what, true});
  }
  bool failed = false;
  for (const diagnostic& d : port.diagnostics) {
    std::cerr << input << ":" << d.line << ": " << (d.error ? "error: " : "warning: ") << d.what << "\n";
    failed |= d.error;
  }
  // Every rewrite keeps its lines; this guards the line mapping for good.
  if (!failed && std::count(rewritten.begin(), rewritten.end(), '\n') != std::count(body.begin(), body.end(), '\n')) {
    std::cerr << "weft-port: internal error: the output's lines do not match " << input << "'s\n";
    failed = true;
  }
  if (failed) return 1;

  std::string out = "#include <weft.hpp>\n";
  if (port.uses_extern_shared_helper) out += extern_shared_helper;
  // The next line is the input's line 1.
  out += "#line 1 " + quote_path(input) + "\n";
  out += rewritten;
  // A header's kernels are registered by the .cu that defines them: a
  // header's registrations would be outside its include guard.
  if (std::string registrations = is_header(input) ? "" : port.registrations(); !registrations.empty()) {
    if (!out.ends_with('\n')) out += '\n';
    out += "// weft-port: kernels launchable by address, and their __cluster_dims__.\n" + registrations;
  }

  if (output.empty()) {
    std::cout << out;
    std::cout.flush();
    return std::cout ? 0 : 1;
  }
  std::ofstream file(output, std::ios::binary);
  file << out;
  file.close();
  if (!file) {
    std::cerr << "weft-port: cannot write " << output << "\n";
    return 1;
  }
  return 0;
}
