// porter: finding the constructs (launches, kernel declarations, extern __shared__) (see porter.hpp).
#include "extern_shared_helper.hpp"
#include "one_of.hpp"
#include "porter.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft_port_tool {

void porter::find_constructs() {
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

bool porter::opens_namespace(std::size_t brace) const {
  std::size_t j = brace;
  // namespace a::b { / inline namespace a { / namespace {
  while (j > 0 && ((is_identifier(j - 1) && !is(j - 1, "namespace")) || is(j - 1, "::"))) --j;
  if (j > 0 && is(j - 1, "namespace")) return true;
  // extern "C" {
  return brace >= 2 && t_[brace - 1].k == kind::literal && is(brace - 2, "extern");
}

std::string porter::namespace_name(std::size_t brace) const {
  std::size_t j = brace;
  while (j > 0 && (is_identifier(j - 1) || is(j - 1, "::")) && !is(j - 1, "namespace")) --j;
  return j > 0 && is(j - 1, "namespace") ? join(j, brace, nullptr) : "";
}

void porter::kernel_at(std::size_t at, const std::vector<std::string>& namespaces) {
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

bool porter::has_default_arguments(std::size_t open, std::size_t close) const {
  int depth = 0;
  for (std::size_t k = open + 1; k < close; ++k) {
    if (is_opener(k) || is(k, "<")) ++depth;
    if (is_closer(k) || is(k, ">")) --depth;
    if (depth == 0 && is(k, "=")) return true;
  }
  return false;
}

launch_kernel porter::kernel_form(std::size_t first, std::size_t end) const {
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

std::size_t porter::top_level_items(std::size_t open, std::size_t close) const {
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

std::string porter::signature(std::size_t open, std::size_t close) const {
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

void porter::fail(std::size_t i, const std::string& what) const { throw port_failure{t_[i].line, what}; }

porter::construct porter::launch_at(std::size_t open) {
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

std::size_t porter::kernel_start(std::size_t open) const {
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

std::optional<porter::construct> porter::alignas_after_shared_at(std::size_t at) {
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

std::optional<porter::construct> porter::extern_shared_at(std::size_t first, bool namespace_scope) {
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

std::string porter::join(std::size_t from, std::size_t to, const std::vector<std::size_t>* only) const {
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

std::string porter::line_breaks(std::size_t begin, std::size_t end) const {
  std::string out;
  for (std::size_t k = begin; k < end; ++k)
    if (src_[k] == '\n') {
      bool spliced = (k > 0 && src_[k - 1] == '\\') || (k > 1 && src_[k - 1] == '\r' && src_[k - 2] == '\\');
      out += spliced ? " \\\n" : "\n";
    }
  return out;
}

}  // namespace weft_port_tool
