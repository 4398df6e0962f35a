// --race-check's untraced reads (see untraced_shared_reads.hpp).
#include "untraced_shared_reads.hpp"

#include "one_of.hpp"
#include "scanner.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft_port_tool {

// A named namespace, not an anonymous one: weft-port compiles as one unity
// translation unit, where every file's anonymous namespace is the same.
namespace untraced_reads {

constexpr std::string_view wrapper_open = "weft::detail::untraced_read(";

// Element types whose reads untraced_read makes: scalars, one load of the
// element's width. A struct or vector type is left out (its copy is several
// loads, or a member's read is written `s[i].x`, which the rules below do
// not follow), as is anything cv-qualified: `volatile` says the program
// relies on something these rules do not look at.
constexpr std::string_view scalar_type_words[] = {
    "bool",   "char",    "signed",  "unsigned", "short",   "int",      "long",     "float",    "double", "size_t",
    "int8_t", "int16_t", "int32_t", "int64_t",  "uint8_t", "uint16_t", "uint32_t", "uint64_t", "std",    "::"};

// Words that end no operand: after one, `&x` takes an address and `x`
// starts a new expression rather than being declared.
constexpr std::string_view expression_keywords[] = {"return", "else", "do", "case", "co_return", "throw"};

constexpr std::string_view assignments[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};

struct tokens {
  std::string_view text;
  std::vector<token> t;                // without spaces and comments
  std::vector<std::size_t> match;      // the bracket matching each ( [ { ) ] }, or npos
  std::vector<std::size_t> enclosing;  // the innermost ( [ { around each token, or npos
  static constexpr std::size_t none = static_cast<std::size_t>(-1);

  std::string_view at(std::size_t i) const {
    return i < t.size() ? text.substr(t[i].begin, t[i].end - t[i].begin) : std::string_view();
  }
  bool is(std::size_t i, std::string_view s) const { return i < t.size() && at(i) == s; }
  bool identifier(std::size_t i) const { return i < t.size() && t[i].k == kind::identifier; }
  bool adjacent(std::size_t i) const { return i + 1 < t.size() && t[i].end == t[i + 1].begin; }

  // The operator of adjacent punctuators starting at i (`+` `=` is "+=").
  std::string op(std::size_t i) const {
    if (i >= t.size() || t[i].k != kind::punct) return "";
    std::string o(at(i));
    if (o.size() == 1 && adjacent(i) && t[i + 1].k == kind::punct) {
      std::string two = o + std::string(at(i + 1));
      if ((two == "<<" || two == ">>") && adjacent(i + 1) && is(i + 2, "=")) return two + "=";
      static constexpr std::string_view pairs[] = {
          "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>"};
      if (one_of(pairs, two)) return two;
    }
    return o;
  }
  // The operator that ends at i (`+` `+` ending at the second `+` is "++").
  std::string op_ending(std::size_t i) const {
    if (i == 0 || i >= t.size()) return i < t.size() ? op(i) : "";
    if (t[i].k == kind::punct && t[i - 1].k == kind::punct && adjacent(i - 1)) {
      std::string two = op(i - 1);
      if (two.size() == 2) return two;
    }
    return op(i);
  }
  // Whether token i ends an operand, so that a `&` after it is binary.
  bool ends_operand(std::size_t i) const {
    if (i >= t.size()) return false;
    if (t[i].k == kind::identifier) return !one_of(expression_keywords, at(i)) && !is(i, "sizeof");
    return t[i].k == kind::number || t[i].k == kind::literal || is(i, ")") || is(i, "]");
  }
};

tokens tokenize(std::string_view text) {
  tokens s{text, {}, {}, {}};
  for (const token& k : scanner(text).run())
    if (k.k != kind::space && k.k != kind::comment) s.t.push_back(k);
  s.match.assign(s.t.size(), tokens::none);
  s.enclosing.assign(s.t.size(), tokens::none);
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < s.t.size(); ++i) {
    s.enclosing[i] = open.empty() ? tokens::none : open.back();
    if (s.is(i, "(") || s.is(i, "[") || s.is(i, "{")) {
      open.push_back(i);
    } else if ((s.is(i, ")") || s.is(i, "]") || s.is(i, "}")) && !open.empty()) {
      s.match[i] = open.back();
      s.match[open.back()] = i;
      open.pop_back();
      s.enclosing[i] = open.empty() ? tokens::none : open.back();
    }
  }
  return s;
}

struct region {
  std::size_t open, close;  // the parentheses of `weft_threads.each(...)`
};

// `weft_threads.barrier();` ends at token `semicolon`, or starts at `first`.
bool barrier_ending_at(const tokens& s, std::size_t semicolon) {
  return semicolon >= 5 && s.is(semicolon, ";") && s.is(semicolon - 1, ")") && s.is(semicolon - 2, "(") &&
         s.is(semicolon - 3, "barrier") && s.is(semicolon - 4, ".") && s.is(semicolon - 5, "weft_threads");
}
bool barrier_starting_at(const tokens& s, std::size_t first) {
  return barrier_ending_at(s, first + 5) && first + 5 < s.t.size();
}

struct shared_array {
  std::size_t name_token;
  std::size_t dimensions;
};

// The `__shared__` arrays that `statement` [from, to) declares, if it is
// `[static] [alignas(n)] __shared__ T a[N]..., b[M]...;` with T a scalar:
// name and dimensions; nothing if it is anything else.
std::vector<shared_array> declared_arrays(const tokens& s, std::size_t from, std::size_t to) {
  std::size_t i = from;
  bool shared = false, typed = false;
  while (i < to) {
    if (s.is(i, "__shared__")) {
      shared = true;
      ++i;
    } else if (s.is(i, "static")) {
      ++i;
    } else if (s.is(i, "alignas") && s.is(i + 1, "(") && s.match[i + 1] != tokens::none) {
      i = s.match[i + 1] + 1;
    } else if (one_of(scalar_type_words, s.at(i))) {
      typed = true;
      ++i;
    } else {
      break;
    }
  }
  std::vector<shared_array> arrays;
  if (!shared || !typed) return {};
  while (i < to) {
    if (!s.identifier(i)) return {};
    shared_array a{i, 0};
    ++i;
    while (s.is(i, "[") && s.match[i] != tokens::none && s.match[i] < to) {
      i = s.match[i] + 1;
      ++a.dimensions;
    }
    if (a.dimensions == 0) return {};
    arrays.push_back(a);
    if (s.is(i, ",")) {
      ++i;
    } else if (i == to) {
      break;
    } else {
      return {};
    }
  }
  return arrays;
}

// Where the statement around token i starts: after the `;`, `{` or `}` before it.
std::size_t statement_start(const tokens& s, std::size_t i) {
  while (i > 0 && !s.is(i - 1, ";") && !s.is(i - 1, "{") && !s.is(i - 1, "}")) --i;
  return i;
}

// An occurrence `S[i]...[j]` of a candidate array, its first and last token.
struct occurrence {
  std::size_t name, last;
};

// Whether the occurrence may bind a reference to the element, or hand it
// to something that could: then what is written through that name is not
// written as `S[...] = ...`, and an untraced read (a value, not the
// element) would change what the program does.
bool may_bind_reference(const tokens& s, const occurrence& o) {
  std::size_t before = o.name - 1, after = o.last + 1;
  // `int& r = S[i];`, `auto&& r{S[i]}`, `[&r = S[i]]`: a reference declared
  // in the statement before the element (binary `a & b = ...` is no
  // assignment, and `==` is none).
  for (std::size_t k = statement_start(s, o.name); k + 2 < o.name; ++k)
    if (s.is(k, "&") && s.identifier(k + 1) && (s.op(k + 2) == "=" || s.is(k + 2, "{") || s.is(k + 2, "(")))
      return true;
  // A whole argument of a call, `f(S[i])`, `f(a, S[i])`, which may take a
  // reference (a forwarding one would bind to the untraced value and write
  // it instead); of `sizeof`, `decltype`, `noexcept` too (their types would
  // change); of a braced initializer, `T{S[i]}`. A parenthesized
  // expression after a keyword of a statement (`if (S[i])`) is no call.
  bool whole = (s.is(before, "(") || s.is(before, ",") || s.is(before, "{")) &&
               (s.is(after, ")") || s.is(after, ",") || s.is(after, "}"));
  if (whole) {
    std::size_t open = s.enclosing[o.name];
    if (open == tokens::none) return false;
    if (s.is(open, "{")) return true;
    if (s.is(open, "(")) {
      static constexpr std::string_view statements[] = {"if", "while", "switch", "for", "return"};
      if (open == 0) return false;
      std::size_t callee = open - 1;
      if (s.identifier(callee)) return !one_of(statements, s.at(callee));
      return s.is(callee, ">") || s.is(callee, ")") || s.is(callee, "]");
    }
  }
  // A conditional's operand: `c ? S[i] : S[j]` is the element itself when
  // both are, and may be bound or assigned.
  return s.is(before, "?") || s.is(before, ":") || s.is(after, "?") || s.is(after, ":");
}

// Whether the occurrence is written: the left of `=` or of a compound
// assignment, an operand of `++` or `--` (through parentheses: `(S[i]) = v`).
bool written(const tokens& s, const occurrence& o) {
  std::size_t after = o.last + 1;
  while (s.is(after, ")")) ++after;
  std::string next = s.op(after);
  if (one_of(assignments, next) || next == "++" || next == "--") return true;
  std::size_t before = o.name;
  while (before > 0 && s.is(before - 1, "(")) --before;
  if (before == 0) return false;
  std::string previous = s.op_ending(before - 1);
  return previous == "++" || previous == "--";
}

}  // namespace untraced_reads

std::string untraced_shared_reads(std::string_view body, const std::set<std::string, std::less<>>& macro_words,
                                  bool pasting_macros) {
  using namespace untraced_reads;
  std::string unchanged(body);
  // A macro that pastes tokens could spell any array's name.
  if (pasting_macros) return unchanged;
  tokens s = tokenize(body);
  // A #define inside the body: its tokens are not code where they stand.
  for (const token& k : s.t)
    if (k.define != 0) return unchanged;
  if (s.t.empty() || !s.is(0, "{") || s.match[0] != s.t.size() - 1) return unchanged;

  // The regions: `weft_threads.each(...);`, each one barrier-free loop over
  // the block's threads.
  std::vector<region> regions;
  std::vector<std::size_t> region_of(s.t.size(), tokens::none);
  for (std::size_t i = 0; i + 3 < s.t.size(); ++i) {
    if (!(s.is(i, "weft_threads") && s.is(i + 1, ".") && s.is(i + 2, "each") && s.is(i + 3, "("))) continue;
    std::size_t close = s.match[i + 3];
    if (close == tokens::none) return unchanged;
    regions.push_back({i + 3, close});
    for (std::size_t k = i + 4; k < close; ++k) region_of[k] = regions.size() - 1;
  }

  // The candidates: arrays declared `__shared__` in the body, outside every
  // region (the kernel's own `__shared__` arrays; an `extern __shared__`
  // one is a pointer by now, to dynamic shared memory that every extern
  // array aliases; one at namespace scope is not in the body, and a
  // __device__ function could write it). Scalar elements only (see
  // scalar_type_words). A name declared twice is no candidate.
  std::map<std::string, shared_array, std::less<>> candidates;
  std::set<std::string, std::less<>> declared_twice;
  for (std::size_t i = 0; i < s.t.size(); ++i) {
    if (!s.is(i, "__shared__") || region_of[i] != tokens::none) continue;
    std::size_t from = statement_start(s, i), to = i;
    while (to < s.t.size() && !s.is(to, ";"))
      to = s.match[to] != tokens::none && s.match[to] > to ? s.match[to] + 1 : to + 1;
    for (const shared_array& a : declared_arrays(s, from, to)) {
      std::string name(s.at(a.name_token));
      if (!candidates.emplace(name, a).second) declared_twice.insert(name);
    }
  }
  for (const std::string& name : declared_twice) candidates.erase(name);
  // A macro of the file that names the array could write it, or take its
  // address, where a region invokes it. (A header's macro is not seen: one
  // that names a kernel's own array would have been written for that
  // kernel, as the array's name is the kernel's.)
  std::erase_if(candidates, [&](const auto& c) { return macro_words.contains(c.first); });

  // Every occurrence of a candidate, other than its declaration, must be
  // `S[...]...[...]` with as many subscripts as S has dimensions, inside a
  // region, naming S (not a member `x.S`, not a redeclaration `int S[4]`),
  // not its operand of `&`, and not bound to a reference: then no pointer or
  // reference to S or into it exists (memcpy_async, a pipeline's copy,
  // cluster.map_shared_rank, an atomic, a __device__ function all need
  // one), so only code that names S can write it, and that code is in the
  // regions' text.
  std::map<std::string, std::vector<occurrence>, std::less<>> occurrences;
  std::set<std::string, std::less<>> refused;
  for (std::size_t i = 0; i < s.t.size(); ++i) {
    if (!s.identifier(i)) continue;
    auto c = candidates.find(s.at(i));
    if (c == candidates.end() || i == c->second.name_token) continue;
    const std::string& name = c->first;
    std::size_t last = i, subscripts = 0;
    while (s.is(last + 1, "[") && s.match[last + 1] != tokens::none) {
      last = s.match[last + 1];
      ++subscripts;
    }
    occurrence o{i, last};
    bool member_or_qualified = s.is(i - 1, ".") || s.is(i - 1, "->") || s.is(i - 1, "::");
    bool declared = s.identifier(i - 1) && !one_of(expression_keywords, s.at(i - 1));
    bool address = s.is(i - 1, "&") && !s.ends_operand(i - 2) && !(s.is(i - 2, "&") && s.adjacent(i - 2));
    bool used_further = s.is(last + 1, ".") || s.is(last + 1, "->") || s.is(last + 1, "(");
    if (region_of[i] == tokens::none || subscripts != c->second.dimensions || member_or_qualified || declared ||
        address || used_further || may_bind_reference(s, o))
      refused.insert(name);
    else
      occurrences[name].push_back(o);
  }

  // A region reads a candidate untraced only if it is its block's whole
  // barrier interval: a barrier right before its statement, at the same
  // level, and one right after or the body's end. Two regions with no
  // barrier between them, or a region last in a loop's body (the loop's
  // next pass runs before a barrier), share their interval with other
  // code. And only if it writes no element of the array: then nothing in
  // the interval writes it, nothing can race with its loads, and the
  // barriers order them after the writes before and before the writes after.
  std::vector<bool> whole_interval(regions.size());
  for (std::size_t r = 0; r < regions.size(); ++r) {
    std::size_t first = regions[r].open - 3, semicolon = regions[r].close + 1;
    whole_interval[r] = s.is(semicolon, ";") && barrier_ending_at(s, first - 1) &&
                        (barrier_starting_at(s, semicolon + 1) || semicolon + 1 == s.t.size() - 1);
  }
  std::map<std::size_t, std::string> insertions;  // byte offset: text
  for (const auto& [name, list] : occurrences) {
    if (refused.contains(name)) continue;
    std::set<std::size_t> writing;
    for (const occurrence& o : list)
      if (written(s, o)) writing.insert(region_of[o.name]);
    for (const occurrence& o : list) {
      std::size_t r = region_of[o.name];
      if (!whole_interval[r] || writing.contains(r)) continue;
      insertions[s.t[o.name].begin] += wrapper_open;
      insertions[s.t[o.last].end].insert(0, ")");
    }
  }
  std::string out;
  std::size_t from = 0;
  for (const auto& [at, text] : insertions) {
    out += body.substr(from, at - from);
    out += text;
    from = at;
  }
  out += body.substr(from);
  return out;
}

}  // namespace weft_port_tool
