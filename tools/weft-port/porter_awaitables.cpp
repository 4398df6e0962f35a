// porter: __device__ functions that wait, made awaitable (see porter.hpp).
#include "one_of.hpp"
#include "porter.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft_port_tool {

std::optional<porter::function_head> porter::head_of_function(std::size_t name_token) const {
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

std::string porter::twin_declaration(const awaitable_function& a, const function_head& h, bool declaration) const {
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

bool porter::awaitable_call(const body_facts& f, std::size_t c) const {
  auto it = awaitable_why_not_.find(f.calls[c]);
  std::size_t i = f.call_tokens[c];
  return it != awaitable_why_not_.end() && it->second.empty() && !(i > 0 && (is(i - 1, ".") || is(i - 1, "->")));
}

void porter::find_awaitable_functions(const std::vector<function_definition>& functions) {
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

bool porter::inside_conditional(std::size_t at) const {
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

bool porter::reaches(const std::string& from, const std::string& to) const {
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

bool porter::has_c_linkage(std::size_t name) const {
  std::size_t k = name;
  while (k > 0 && !is(k - 1, ";") && !is(k - 1, "}") && !is(k - 1, "{") && t_[k - 1].k != kind::directive) {
    --k;
    if (is(k, "extern") && k + 1 < t_.size() && t_[k + 1].k == kind::literal && text(k + 1) == "\"C\"") return true;
  }
  for (const std::string& opener : namespaces_around(name))
    if (opener.starts_with("extern")) return true;
  return false;
}

std::vector<std::string> porter::namespaces_around(std::size_t at) const {
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

std::optional<std::pair<std::size_t, int>> porter::include_guard_end() const {
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

bool porter::awaitables_fit_in_header() const {
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

std::string porter::render_awaitable_functions() const {
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

std::map<std::size_t, porter::token_edit> porter::await_edits(const body_facts& f) const {
  std::map<std::size_t, token_edit> edits;
  // A statement of its own needs no parentheses: `co_await weft::syncthreads();`.
  auto statement = [&](std::size_t from, std::size_t close) {
    return is(close + 1, ";") && from > 0 &&
           (is(from - 1, ";") || is(from - 1, "{") || is(from - 1, "}") || is(from - 1, ")") || is(from - 1, "else") ||
            is(from - 1, ":"));
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

std::vector<std::pair<std::size_t, std::size_t>> porter::top_level_arguments(std::size_t open,
                                                                             std::size_t close) const {
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

}  // namespace weft_port_tool
