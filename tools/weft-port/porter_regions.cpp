// porter: region versions of stackless kernels (see porter.hpp).
#include "one_of.hpp"
#include "porter.hpp"
#include "untraced_shared_reads.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft_port_tool {

namespace {

// plan_regions writes each region as marks that merge_regions makes into
// `weft_threads.each(...)` loops: region_open, 'U' (its threads counted in
// unsigned) or 'I', the condition of the threads it skips (or nothing),
// region_skip_end, what runs before its body (the members it copies),
// region_pre_end, what runs after it (those it writes back),
// region_post_end, its body, region_close. What a flat callee declares for
// the block stands between hoisted_open and hoisted_close; apart, between
// two regions that every thread must finish one after the other with no
// barrier between: around a split shuffle's first region, where the lanes
// leave their operands in the block's exchange, which the lanes of an
// earlier shuffle must have read and those of this one then read.
const std::string region_open = "\x01", region_pre_end = "\x02", region_post_end = "\x03", region_close = "\x04",
                  hoisted_open = "\x05", hoisted_close = "\x06", apart = "\x07", region_skip_end = "\x08";

bool has_word(std::string_view text, std::string_view word) {
  auto part_of_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1))
    if ((at == 0 || !part_of_name(text[at - 1])) &&
        (at + word.size() == text.size() || !part_of_name(text[at + word.size()])))
      return true;
  return false;
}

// What stands between two regions, if a loop over the threads may run both
// in one pass: only white space, comments and `#line` directives (and what
// a flat callee declares for the block, moved ahead of the loop). A
// barrier, a brace, a declaration of the block's, a loop, anything else
// keeps them apart.
bool nothing_between(std::string_view between) {
  for (std::size_t k = 0; k < between.size();) {
    char c = between[k];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++k;
    } else if (between.substr(k, 2) == "//") {
      k = between.find('\n', k);
      if (k == std::string_view::npos) return false;  // the next region would be commented out
    } else if (between.substr(k, 2) == "/*") {
      k = between.find("*/", k);
      if (k == std::string_view::npos) return false;
      k += 2;
    } else if (between.substr(k, 5) == "#line" && (k == 0 || between[k - 1] == '\n')) {
      k = between.find('\n', k);
      if (k == std::string_view::npos) return false;
    } else if (between.substr(k, hoisted_open.size()) == hoisted_open) {
      k = between.find(hoisted_close, k);
      if (k == std::string_view::npos) return false;
      k += hoisted_close.size();
    } else {
      return false;
    }
  }
  return true;
}

// What stands between two regions that run in one loop: without what it
// hoists (hoisted_part false), or only that (true).
std::string hoisted_part(std::string_view between, bool hoisted) {
  std::string out;
  for (std::size_t k = 0; k < between.size();) {
    std::size_t open = between.find(hoisted_open, k);
    if (!hoisted) out += between.substr(k, open == std::string_view::npos ? std::string_view::npos : open - k);
    if (open == std::string_view::npos) break;
    std::size_t close = between.find(hoisted_close, open);
    if (hoisted) out += between.substr(open + 1, close - open - 1);
    k = close + 1;
  }
  return out;
}

// The same between regions that do not: all of it where it stands.
std::string unmarked(std::string_view between) {
  std::string out;
  for (char c : between)
    if (c != hoisted_open[0] && c != hoisted_close[0] && c != apart[0]) out += c;
  return out;
}

struct marked_region {
  bool counted_unsigned;
  std::string_view skip, pre, post, body;
};

// A region's body with its copies: where it may return before its end, in
// a lambda of its own, so that what follows (the members written back, the
// next region of a merged loop) runs for a thread whatever it returned.
std::string region_text(const marked_region& r, bool last_of_loop, bool alone) {
  std::string out(r.pre);
  if (has_word(r.body, "return") && (!r.post.empty() || !last_of_loop)) {
    out += " const weft::region_step weft_step = [&]() -> weft::region_step {" + std::string(r.body) +
           " return weft::region_go; }();" + std::string(r.post);
    out += last_of_loop ? " return weft_step;" : " if (weft_step == weft::region_exit) return weft::region_exit;";
  } else {
    out += std::string(r.body) + std::string(r.post);
    if (last_of_loop) out += " return weft::region_go;";
  }
  // The threads it skips, tested before it copies anything: they leave
  // the members as they are.
  if (!r.skip.empty())
    return alone ? " if (" + std::string(r.skip) + ") return weft::region_go;" + out
                 : " if (!(" + std::string(r.skip) + ")) {" + out + " }";
  return alone ? out : " {" + out + " }";
}

// A loop's place in the region version's text: where its lambda's body
// starts, and its end.
struct loop_place {
  std::size_t body, end;
};

// `text` with the members of inlined calls that one loop alone uses (an
// argument bound and read in the same pass, a result set and read) made
// locals of that loop's lambda: where the loop writes one before anything
// reads it, each thread's value lives only while the loop runs that thread,
// so it needs no place in weft_locals (fewer loads and stores, a smaller
// block of per-thread state). The kernel's own locals cross barriers, or
// they would not be members.
std::string loop_locals(const std::string& text, const std::vector<loop_place>& loops) {
  std::size_t open = text.find("struct weft_locals {");
  if (open == std::string::npos) return text;
  std::size_t close = text.find("};", open);
  struct edit {
    std::size_t at, erased;
    std::string inserted;
  };
  std::vector<edit> edits;
  std::map<std::size_t, std::string> declarations;  // by loop
  auto part_of_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t k = open + std::string_view("struct weft_locals {").size(); k < close;) {
    std::size_t semicolon = text.find(';', k);
    if (semicolon == std::string::npos || semicolon > close) break;
    std::string member = text.substr(k, semicolon - k);
    std::size_t space = member.find_last_of(' ');
    std::string name = member.substr(space + 1), type = member.substr(0, space);
    std::string use = "weft_l." + name;
    std::vector<std::size_t> uses;
    for (std::size_t at = text.find(use, close); at != std::string::npos; at = text.find(use, at + 1))
      if (at + use.size() < text.size() && !part_of_name(text[at + use.size()])) uses.push_back(at);
    auto loop = std::find_if(loops.begin(), loops.end(), [&](const loop_place& l) {
      return !uses.empty() && uses.front() >= l.body && uses.front() < l.end;
    });
    bool one_loop =
        name.starts_with("weft_inlined") && loop != loops.end() &&
        std::all_of(uses.begin(), uses.end(), [&](std::size_t at) { return at >= loop->body && at < loop->end; });
    bool written_first = !uses.empty() && text.compare(uses.front() + use.size(), 3, " = ") == 0 &&
                         text[uses.front() + use.size() + 3] != '=';
    if (one_loop && written_first) {
      edits.push_back({k, semicolon + 1 - k, ""});
      for (std::size_t at : uses) edits.push_back({at, std::string_view("weft_l.").size(), ""});
      declarations[loop->body] += " " + type + " " + name + "{};";
    }
    k = semicolon + 1;
  }
  for (auto& [at, text_of] : declarations) edits.push_back({at, 0, text_of});
  std::sort(edits.begin(), edits.end(), [](const edit& a, const edit& b) { return a.at < b.at; });
  std::string out;
  std::size_t from = 0;
  for (const edit& e : edits) {
    out += text.substr(from, e.at - from) + e.inserted;
    from = e.at + e.erased;
  }
  return out + text.substr(from);
}

// The region version's text with its marks made into loops over the
// threads: regions that nothing separates (nothing_between) run in one
// loop, each in a block of its own, so that a block runs a stretch of
// straight code between two barriers in one pass over its threads,
// across inlined calls, rather than one pass per callee and per call.
std::string merge_regions(std::string_view marked) {
  std::string out;
  std::vector<marked_region> loop;
  std::vector<std::string> between_in_loop;  // before each region of the loop but its first
  std::string hoisted;
  std::vector<loop_place> places;
  auto flush = [&] {
    if (loop.empty()) return;
    bool counted_unsigned =
        std::any_of(loop.begin(), loop.end(), [](const marked_region& r) { return r.counted_unsigned; });
    out += hoisted + " weft_threads.each(" + (counted_unsigned ? "weft::region_counted_unsigned, " : "") +
           "[&]([[maybe_unused]] weft_locals& weft_l) -> weft::region_step {";
    places.push_back({out.size(), 0});
    if (loop.size() == 1) {
      out += region_text(loop[0], true, true) + " });";
    } else {
      for (std::size_t i = 0; i < loop.size(); ++i)
        out += (i > 0 ? between_in_loop[i - 1] : "") + region_text(loop[i], false, false);
      out += " return weft::region_go; });";
    }
    places.back().end = out.size();
    loop.clear();
    between_in_loop.clear();
    hoisted.clear();
  };
  for (std::size_t k = 0; k < marked.size();) {
    std::size_t open = marked.find(region_open, k);
    std::string_view between = marked.substr(k, open == std::string_view::npos ? std::string_view::npos : open - k);
    if (open == std::string_view::npos) {
      flush();
      out += unmarked(between);
      break;
    }
    std::size_t pre_end = marked.find(region_pre_end, open), post_end = marked.find(region_post_end, pre_end),
                close = marked.find(region_close, post_end);
    std::size_t skip_end = marked.find(region_skip_end, open);
    marked_region r{marked[open + 1] == 'U', marked.substr(open + 2, skip_end - open - 2),
                    marked.substr(skip_end + 1, pre_end - skip_end - 1),
                    marked.substr(pre_end + 1, post_end - pre_end - 1),
                    marked.substr(post_end + 1, close - post_end - 1)};
    if (!loop.empty() && nothing_between(between)) {
      hoisted += hoisted_part(between, true);
      between_in_loop.push_back(hoisted_part(between, false));
    } else {
      flush();
      out += unmarked(between);
    }
    loop.push_back(r);
    k = close + 1;
  }
  return loop_locals(out, places);
}

}  // namespace

std::string porter::operator_at(std::size_t i) const {
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

bool porter::changed_at(std::size_t k) const {
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

bool porter::member_changed_at(std::size_t k) const {
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

bool porter::passed_by_value(std::size_t k) const {
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

bool porter::names_variable(std::size_t k) const {
  return is_identifier(k) && !(k > 0 && (is(k - 1, ".") || is(k - 1, "->") || is(k - 1, "::")));
}

std::optional<std::size_t> porter::statement_end(std::size_t i, std::size_t end) const {
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

porter::declaration porter::declaration_at(std::size_t from, std::size_t to) const {
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

std::string porter::movable_type(const std::vector<std::size_t>& type) const {
  static constexpr std::string_view arithmetic[] = {
      "unsigned", "signed", "int", "long", "short", "char", "float", "double", "bool", "size_t", "ptrdiff_t", "int8_t",
      "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "uintptr_t", "intptr_t",
      "std::size_t",
      // glibc's <sys/types.h> names (`uint` is unsigned int), which CUDA programs use as builtins
      "uint", "ushort", "ulong"};
  static constexpr std::string_view vectors[] = {
      "char1",  "char2",  "char3",     "char4",     "uchar1",     "uchar2",     "uchar3",  "uchar4", "short1", "short2",
      "short3", "short4", "ushort1",   "ushort2",   "ushort3",    "ushort4",    "int1",    "int2",   "int3",   "int4",
      "uint1",  "uint2",  "uint3",     "uint4",     "float1",     "float2",     "float3",  "float4", "long1",  "long2",
      "ulong1", "ulong2", "longlong1", "longlong2", "ulonglong1", "ulonglong2", "double1", "double2"};
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

std::string porter::uniform_expression(std::size_t from, std::size_t to,
                                       const std::set<std::string, std::less<>>& uniform,
                                       const std::set<std::string, std::less<>>& params,
                                       const std::map<std::string, std::string, std::less<>>& param_types,
                                       const std::set<std::string, std::less<>>& locals,
                                       const std::set<std::string, std::less<>>& changed,
                                       const std::set<std::size_t>* warp_uniform_tokens) const {
  static constexpr std::string_view builtins[] = {"blockDim", "gridDim", "blockIdx"};
  for (std::size_t k = from; k < to; ++k) {
    if (t_[k].k == kind::number || (warp_uniform_tokens && warp_uniform_tokens->contains(k))) continue;
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

std::optional<std::pair<std::size_t, std::size_t>> porter::block_sync_statement(
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

std::optional<std::pair<std::size_t, std::size_t>> porter::block_declaration_at(std::size_t k) const {
  std::size_t j = k;
  if (is(j, "const")) ++j;
  if (is(j, "auto"))
    ++j;
  else if (!groups_name_at(j, "thread_block"))
    return std::nullopt;
  if (is(j, "const")) ++j;
  std::size_t name = j;
  if (!is_identifier(name) || !is(name + 1, "=")) return std::nullopt;
  j = name + 2;
  if (!groups_name_at(j, "this_thread_block") || !is(j, "(") || !is(j + 1, ")") || !is(j + 2, ";")) return std::nullopt;
  return std::pair{name, j + 2};
}

bool porter::unroll_pragma(std::size_t k) const {
  if (k >= t_.size() || t_[k].k != kind::directive || t_[k].define != 0) return false;
  std::string_view d = src_.substr(t_[k].begin, t_[k].end - t_[k].begin);
  auto tokens = directive_tokens(d);
  return directive_name(d, tokens) == "pragma" && tokens.size() >= 3 &&
         d.substr(tokens[2].begin, tokens[2].end - tokens[2].begin) == "unroll";
}

bool porter::names_full_mask(std::size_t k, const function_definition& d) const {
  static constexpr std::string_view types[] = {"unsigned",  "signed",   "int",     "long",   "uint",      "uint32_t",
                                               "int32_t",   "uint64_t", "int64_t", "size_t", "auto",      "const",
                                               "constexpr", "static",   "inline",  "std",    "__device__"};
  if (!names_variable(k) || is_keyword(k)) return false;
  std::string_view name = text(k);
  std::optional<std::size_t> declarator;
  for (std::size_t j = 0; j < t_.size(); ++j) {
    if (!is(j, name)) continue;
    if (t_[j].define != 0) return false;
    if (j == 0 || !names_variable(j)) continue;
    bool declares = (is_identifier(j - 1) && !is(j - 1, "return") && !is(j - 1, "case")) || is(j - 1, "*") ||
                    is(j - 1, "&") || is(j - 1, ">");
    if (!declares) continue;
    if (declarator) return false;
    declarator = j;
  }
  if (!declarator) return false;
  std::size_t n = *declarator;
  std::string value = n + 2 < t_.size() ? std::string(text(n + 2)) : "";
  std::transform(value.begin(), value.end(), value.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (!is(n + 1, "=") || t_[n + 2].k != kind::number || (value != "0xffffffff" && value != "0xffffffffu") ||
      !is(n + 3, ";"))
    return false;
  std::size_t start = n;
  bool constant = false;
  while (start > 0 && !is(start - 1, ";") && !is(start - 1, "{") && !is(start - 1, "}") &&
         t_[start - 1].k != kind::directive) {
    --start;
    if (!(is(start, "::") || (is_identifier(start) && one_of(types, text(start))))) return false;
    constant |= is(start, "const") || is(start, "constexpr");
  }
  if (start == n) return false;
  std::vector<std::string> around = namespaces_around(n), kernel_around = namespaces_around(d.name_token);
  if (n > d.open && n < d.close) {  // at the top of d's body (one brace deeper than d), before the shuffle
    // Not `const`: then never changed after, nor passed where it might be
    // (a shuffle takes its mask by value).
    for (std::size_t j = n + 1; j < d.close && !constant; ++j) {
      bool a_mask = is(j - 1, "(") && j >= 2 && text(j - 2).starts_with("__shfl") && text(j - 2).ends_with("_sync");
      if (is(j, name) && names_variable(j) && !a_mask &&
          (changed_at(j) ||
           ((is(j - 1, "(") || is(j - 1, ",")) && (is(j + 1, ")") || is(j + 1, ",")) && !passed_by_value(j))))
        return false;
    }
    return n < k && around.size() == kernel_around.size() + 1;
  }
  if (!constant) return false;
  if (n > d.name_token || around.size() > kernel_around.size()) return false;
  for (std::size_t i = 0; i < around.size(); ++i)
    if (around[i].empty() || around[i] != kernel_around[i]) return false;
  return true;
}

porter::region_plan porter::plan_regions(const function_definition& d, const body_facts& f, region_instance* instance,
                                         region_inlining* shared_inlining) const {
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
  // The block's tiles of one warp or less, `cg::thread_block_tile<32> tile =
  // cg::tiled_partition<32>(block);` (or `auto tile = ...`): each thread's
  // tile is a function of its linear id, so the regions spell its rank,
  // its tile's rank and its size from that (tile_uses), its declaration
  // stays outside the regions as the block's does, and its cg::reduce is
  // split as a shuffle is (reduce_calls, region_reduce). Any other use of
  // the tile keeps the kernel stackless.
  std::map<std::string, unsigned, std::less<>> tiles;  // name: size
  std::map<std::size_t, std::size_t> tile_declarations;
  std::set<std::size_t> tile_declarators;
  auto tile_size_at = [&](std::size_t j) -> unsigned {  // `<N>` of a power of two up to 32, else 0
    static constexpr std::string_view sizes[] = {"1", "2", "4", "8", "16", "32"};
    if (!is(j, "<") || t_[j + 1].k != kind::number || !one_of(sizes, text(j + 1)) || !is(j + 2, ">")) return 0;
    return static_cast<unsigned>(std::stoul(std::string(text(j + 1))));
  };
  for (std::size_t k = d.open + 1; k < d.close; ++k) {
    if (!(is(k - 1, ";") || is(k - 1, "{") || is(k - 1, "}"))) continue;
    std::size_t j = k;
    unsigned declared_size = 0;
    if (is(j, "auto")) {
      ++j;
    } else if (groups_name_at(j, "thread_block_tile") && (declared_size = tile_size_at(j)) != 0) {
      j += 3;
    } else {
      continue;
    }
    std::size_t name = j;
    if (!is_identifier(name) || !is(name + 1, "=")) continue;
    j = name + 2;
    unsigned size = 0;
    if (!groups_name_at(j, "tiled_partition") || (size = tile_size_at(j)) == 0 ||
        (declared_size != 0 && declared_size != size))
      continue;
    j += 3;
    if (!is(j, "(") || !is_identifier(j + 1) || !blocks.contains(text(j + 1)) || !is(j + 2, ")") || !is(j + 3, ";"))
      continue;
    if (tiles.contains(text(name)))
      return refuse(line_of(k) + "it declares the tile `" + std::string(text(name)) + "` twice");
    tiles[std::string(text(name))] = size;
    tile_declarators.insert(name);
    tile_declarations[k] = j + 3;
  }
  // cg::reduce(tile, e, op) with one of cg's operators, where the tile is one
  // of those: the call's first token, by its name's.
  std::map<std::size_t, std::size_t> reduce_calls;
  for (std::size_t w : f.group_waits) {
    std::size_t start = w;
    if (!is(w, "reduce") || !is(w + 1, "(") || !groups_name_at(start = is(w - 1, "::") ? w - 2 : w, "reduce") ||
        !is_identifier(w + 2) || !tiles.contains(text(w + 2)) || !is(w + 3, ","))
      continue;
    reduce_calls[w] = is(w - 1, "::") ? w - 2 : w;
    shuffle_calls.insert(w);
    inlining.shuffles = true;
  }
  for (std::size_t w : f.waits) {
    auto awaitable = awaitable_for(text(w));
    if (!awaitable || !awaitable->starts_with("shfl") || (w > 0 && is(w - 1, "::"))) continue;
    shuffle_calls.insert(w);
    inlining.shuffles = true;
  }
  for (std::size_t w : f.waits) {
    if (shuffle_calls.contains(w)) continue;
    if (!is(w, "__syncthreads") || !is(w + 1, "(") || !is(w + 2, ")") || !is(w + 3, ";") || (w > 0 && is(w - 1, "::")))
      return refuse(line_of(w) + "it waits other than at a block barrier statement (`__syncthreads();`, " +
                    "`cg::sync(block);`, `block.sync();`)");
    barriers[w] = w + 3;
  }
  for (std::size_t w : f.group_waits) {
    if (reduce_calls.contains(w)) continue;
    auto barrier = block_sync_statement(w, blocks);
    if (!barrier)
      return refuse(line_of(w) + "it waits other than at a block barrier statement (`__syncthreads();`, " +
                    "`cg::sync(block);`, `block.sync();`)");
    barriers.insert(*barrier);
  }
  if (barriers.empty() && waiting_calls.empty() && shuffle_calls.empty()) return refuse("it has no barrier");
  // Under a warp's `if` only the lanes of some warps run the callee: a
  // block barrier there would wait for the others.
  if (instance && !instance->guards.empty() && !barriers.empty())
    return refuse(line_of(barriers.begin()->first) + "a barrier, in a call under a warp's `if`");
  // The declarations of the block's group, `cg::thread_block block =
  // cg::this_thread_block();`, stay outside the regions, as __shared__
  // ones do: every thread's is the same block.
  std::map<std::size_t, std::size_t> block_declarations;
  for (std::size_t k = d.open + 1; k < d.close; ++k)
    if (is(k - 1, ";") || is(k - 1, "{") || is(k - 1, "}"))
      if (auto declared = block_declaration_at(k); declared && blocks.contains(text(declared->first)))
        block_declarations[k] = declared->second;
  block_declarations.insert(tile_declarations.begin(), tile_declarations.end());
  // A tile's uses: its rank, its tile's rank and its size, spelled from the
  // thread's linear id in the regions (the tile's rank, within a warp
  // where the tile is one, is what the warps' `if`s may test), and the
  // first argument of its reductions.
  std::map<std::size_t, std::string> tile_uses;  // the tile's token: what replaces it and the call
  std::set<std::size_t> warp_uniform_tile_uses;
  for (std::size_t k = d.open + 1; k < d.close; ++k) {
    if (!is_identifier(k) || !tiles.contains(text(k)) || is(k - 1, ".") || is(k - 1, "->") || is(k - 1, "::")) continue;
    unsigned size = tiles.find(text(k))->second;
    if (tile_declarators.contains(k)) continue;
    if (is(k - 1, "(") && is(k + 1, ",") && k >= 2 && reduce_calls.contains(k - 2)) continue;
    std::string linear = "weft_threads.thread_of(weft_l)", n = std::to_string(size) + "u";
    if (is(k + 1, ".") && is(k + 3, "(") && is(k + 4, ")")) {
      if (is(k + 2, "thread_rank")) {
        tile_uses[k] = "(" + linear + " % " + n + ")";
        continue;
      }
      if (is(k + 2, "meta_group_rank")) {
        tile_uses[k] = "(" + linear + " / " + n + ")";
        if (size == 32) warp_uniform_tile_uses.insert(k);
        continue;
      }
      if (is(k + 2, "meta_group_size")) {  // the block's tiles, a partial last one counted
        tile_uses[k] = "((blockDim.x * blockDim.y * blockDim.z + " + n + " - 1) / " + n + ")";
        warp_uniform_tile_uses.insert(k);
        continue;
      }
      if (is(k + 2, "num_threads") || is(k + 2, "size")) {
        tile_uses[k] = n;
        warp_uniform_tile_uses.insert(k);
        continue;
      }
    }
    return refuse(line_of(k) + "it uses the tile `" + std::string(text(k)) +
                  "` other than for thread_rank(), meta_group_rank(), meta_group_size(), num_threads(), size() " +
                  "and cg::reduce");
  }
  // Cooperative groups' names are allowed only in those, the barriers and
  // the split reductions.
  std::map<std::size_t, std::size_t> reduce_spans;  // a split reduction's first token: its `)`
  for (auto [w, start] : reduce_calls)
    if (auto rparen = match_forward(w + 1)) reduce_spans[start] = *rparen;
  auto in_block_statement = [&](std::size_t k) {
    for (const auto* list : {&barriers, &block_declarations, &reduce_spans}) {
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
  for (auto [first, end] :
       instance ? std::vector<std::pair<std::size_t, std::size_t>>() : top_level_arguments(d.name_token + 1, *rparen)) {
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
    std::string guard = "";                                // a warp's `if`: the flag its condition sets
    std::vector<std::string> guards = {};                  // the warps' `if`s around it: their flags
    // The inlined call right after it, whose arguments it binds as it ends
    // (where nothing stands between them, rather than a region of their own).
    std::optional<std::size_t> binds_call = std::nullopt;
  };
  std::vector<region> regions;
  std::set<std::string, std::less<>> loop_variables;     // every barrier loop's
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
  // A flat callee's block declares nothing of its own: its shared
  // parameters and its block's group are the constants that the caller
  // declares under its prefix (renamed so in its body), and no __shared__
  // array, group, tile, template parameter or once-for-the-block local
  // stands at its top. It is spliced in without braces, so that nothing
  // stands between its regions and the caller's (merge_regions).
  std::map<std::string, std::string, std::less<>> renamed;  // a flat callee's shared names: their constants
  bool flat = false;
  if (instance && instance->template_names.empty() && instance->same_template_names.empty() &&
      block_declarations.empty()) {
    flat = true;
    for (std::size_t k = d.open + 1; k < d.close && flat; ++k) flat = !is(k, "__shared__");
    for (std::size_t k = d.open + 1; k < d.close && flat;) {
      auto stop = statement_end(k, d.close);
      if (!stop) {
        flat = false;
        break;
      }
      if (!is(k, "for") && !is(k, "if") && !is(k, "while") && !is(k, "do") && !is(k, "switch") && !is(k, "{")) {
        declaration dl = declaration_at(k, *stop);
        flat =
            std::none_of(dl.names.begin(), dl.names.end(), [&](std::size_t n) { return heads_read.contains(text(n)); });
      }
      k = *stop + 1;
    }
    for (const std::string& name : instance->shared_parameters) renamed[name] = instance->prefix + name;
    for (const std::string& name : instance->blocks) renamed[name] = instance->prefix + name;
    for (const auto& [name, to] : renamed) flat = flat && !declarations.contains(name);
    if (!flat) renamed.clear();
  }
  // Tokens [from, to) as the region version spells them: a flat callee's
  // shared names as their constants.
  auto spell = [&](std::size_t from, std::size_t to) {
    std::string out;
    for (std::size_t k = from; k < to;) {
      std::size_t run = k;
      while (run < to && !(names_variable(run) && renamed.contains(text(run)))) ++run;
      if (run > k) out += (out.empty() ? "" : " ") + join(k, run, nullptr);
      if (run < to) out += (out.empty() ? "" : " ") + renamed.find(text(run))->second;
      k = run + 1;
    }
    return out;
  };
  auto shared_declaration = [&](std::size_t k, std::size_t stop) {
    declaration dl = declaration_at(k, stop);
    if (dl.names.empty() || !dl.simple || movable_type(substituted(dl.type)).empty()) return false;
    for (std::size_t n = 0; n < dl.names.size(); ++n) {
      std::string name(text(dl.names[n]));
      std::size_t init_to = n + 1 < dl.names.size() ? dl.names[n + 1] - 1 : stop;
      bool assigned = false;  // after its declaration, or passed to what may change it
      for (std::size_t j = d.open + 1; j < d.close && !assigned; ++j)
        assigned = is(j, name) && names_variable(j) && !declarators.contains(j) &&
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
  std::vector<std::pair<std::size_t, std::string>> extra_uses;  // a region's names in the call it binds
  // The warps' `if`s around the walk (their flags, set per thread by a
  // region of their own from the condition): a region inside runs only
  // the threads whose flags are all true.
  std::vector<std::string> guard_stack = instance ? instance->guards : std::vector<std::string>();
  // What every lane of a warp computes alike: what the block does, and
  // `threadIdx.x / 32` (`/ warpSize`, `>> 5`), which is the warp's number
  // where a warp's lanes share a row of the block (region_warps_in_rows),
  // and the locals declared once from such values and never changed.
  std::set<std::string, std::less<>> warp_locals, warp_locals_reading_x;
  auto warp_uniform = [&](std::size_t from, std::size_t to, bool& reads_x) {
    std::set<std::size_t> pieces;
    for (std::size_t j = from; j < to; ++j) {
      if (warp_uniform_tile_uses.contains(j)) {
        for (std::size_t i = j; i <= j + 4; ++i) pieces.insert(i);
        j += 4;
        continue;
      }
      if (names_variable(j) && warp_locals.contains(text(j))) {
        pieces.insert(j);
        reads_x |= warp_locals_reading_x.contains(text(j));
        continue;
      }
      if (!(is(j, "threadIdx") && is(j + 1, ".") && is(j + 2, "x"))) continue;
      // Nothing around may bind tighter than the division or the shift:
      // not `k * threadIdx.x / 32`, `-threadIdx.x / 32`, `(int)threadIdx.x
      // / 32`, `a + threadIdx.x >> 5`, `threadIdx.x >> 5 + 1`. The operator
      // before (its adjacent punctuators) must be one of these, or none
      // after an opening bracket or at the start.
      static constexpr std::string_view looser_than_shift[] = {
          "=", "==", "!=", "<",  ">",  "<=", ">=", "&",  "|",  "^",  "&&",  "||", "?",
          ":", ",",  "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
      static constexpr std::string_view looser_after[] = {")", "]", ",", ";", "=", "!", "<",
                                                          ">", "&", "|", "^", "?", ":"};
      std::string before;
      std::size_t p = j;
      while (p > from && t_[p - 1].k == kind::punct && !is_opener(p - 1) && !is_closer(p - 1) &&
             (p == j || adjacent(p - 1)))
        before.insert(0, text(--p));
      bool binary = p > from && (is_identifier(p - 1) || t_[p - 1].k == kind::number || is_closer(p - 1));
      if (before.empty() && j > from && !is_opener(j - 1)) continue;
      std::string op = operator_at(j + 3);
      std::size_t operand = j + 3;  // the divisor's or the shift's token, after the operator's
      for (std::size_t spelled = 0; operand < to && spelled < op.size(); ++operand) spelled += text(operand).size();
      std::string_view divisor = operand < to ? text(operand) : "";
      bool loose_before = before.empty() || one_of(looser_than_shift, before);
      bool divided = op == "/" && (divisor == "32" || divisor == "32u" || divisor == "32U" || divisor == "warpSize") &&
                     (loose_before || before == "<<" || before == ">>" || before == "+" || (before == "-" && binary));
      bool shifted = op == ">>" && divisor == "5" && loose_before &&
                     (operand + 1 == to || one_of(looser_after, text(operand + 1).substr(0, 1)));
      if (!divided && !shifted) continue;
      std::size_t last = operand;
      for (std::size_t i = j; i <= last; ++i) pieces.insert(i);
      reads_x = true;
    }
    return uniform_expression(from, to, uniform, params, param_types, locals, changed, &pieces);
  };
  for (bool grew = true; grew;) {
    grew = false;
    for (std::size_t n : declarators) {
      std::string name(text(n));
      if (warp_locals.contains(name) || declarations[name] != 1 || params.contains(name) || !is(n + 1, "=")) continue;
      bool assigned = false;  // after its declaration, or passed to what may change it
      for (std::size_t j = d.open + 1; j < d.close && !assigned; ++j)
        assigned = is(j, name) && names_variable(j) && !declarators.contains(j) &&
                   (changed_at(j) || member_changed_at(j) ||
                    ((is(j - 1, "(") || is(j - 1, ",")) && (is(j + 1, ")") || is(j + 1, ",")) && !passed_by_value(j)));
      if (assigned) continue;
      std::size_t stop = n + 2;
      while (stop < d.close && !is(stop, ",") && !is(stop, ";") && !is(stop, ")")) {
        if (is_opener(stop))
          if (auto c = match_forward(stop)) stop = *c;
        ++stop;
      }
      bool reads_x = false;
      if (!warp_uniform(n + 2, stop, reads_x).empty()) continue;
      warp_locals.insert(name);
      if (reads_x) warp_locals_reading_x.insert(name);
      grew = true;
    }
  }
  // The shuffles split: the region before leaves each thread's operand in
  // the exchange (`operand_region`), the statement reads its source lane's.
  struct split_shuffle {
    std::size_t statement, call, rparen, operand_region;
    std::string_view op;
    std::pair<std::size_t, std::size_t> operand, lane;
    std::string width;
    std::string named_mask;    // the constant that names the full mask, or ""
    std::size_t first = call;  // a reduction's first token (`cg`): its call is replaced from there
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
    } else if (declaration dl = declaration_at(k, end); dl.names.size() == 1 && dl.simple && is(dl.names[0] + 1, "=")) {
      at = dl.names[0] + 2;
    }
    auto rparen = is(c + 1, "(") ? match_forward(c + 1) : std::nullopt;
    if (auto reduction = reduce_calls.find(c); reduction != reduce_calls.end()) {
      if (reduction->second != at || !rparen || *rparen + 1 != end || !is(end, ";")) {
        why = line_of(c) + "a cg::reduce other than as `v = cg::reduce(...);` or `T v = cg::reduce(...);`";
        return false;
      }
      auto args = top_level_arguments(c + 1, *rparen);
      // One of cg's operators, whose result the region version gives bit
      // for bit; a functor of the kernel's might count its calls.
      static constexpr std::string_view operators[] = {"plus", "less", "greater", "bit_and", "bit_or", "bit_xor"};
      std::size_t o = args.size() == 3 ? args[2].first : 0;
      bool cg_operator = args.size() == 3 && is_groups_namespace(o) && is(o + 1, "::") &&
                         one_of(operators, text(o + 2)) && is(o + 3, "<");
      if (cg_operator) {
        auto angle = angle_forward(o + 3);
        cg_operator = angle && is(*angle + 1, "(") && is(*angle + 2, ")") && *angle + 3 == args[2].second;
      }
      if (!cg_operator) {
        why = line_of(c) + "a cg::reduce whose operator is not one of cg's (`cg::plus<T>()`, less, greater, " +
              "bit_and, bit_or, bit_xor)";
        return false;
      }
      auto waiting = waiting_calls.lower_bound(c);
      if (waiting != waiting_calls.end() && *waiting < *rparen) return forms();
      shuffles.push_back({k, c, *rparen, regions.size(), "reduce", args[1], args[2],
                          std::to_string(tiles.find(text(args[0].first))->second), "", reduction->second});
      return true;
    }
    if (c != at || !rparen || *rparen + 1 != end || !is(end, ";")) return forms();
    auto args = top_level_arguments(c + 1, *rparen);
    std::string mask = args.empty() ? "" : join(args[0].first, args[0].second, nullptr);
    std::transform(mask.begin(), mask.end(), mask.begin(), [](unsigned char ch) { return std::tolower(ch); });
    bool named_full_mask = args.size() >= 3 && args[0].second == args[0].first + 1 && names_full_mask(args[0].first, d);
    if (args.size() < 3 || args.size() > 4 || (mask != "0xffffffff" && mask != "0xffffffffu" && !named_full_mask)) {
      why = line_of(c) + "a warp shuffle whose mask is neither the literal full mask `0xffffffff` nor a constant of it";
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
    shuffles.push_back({k, c, *rparen, regions.size(), *awaitable_for(text(c)), args[1], args[2], width,
                        named_full_mask ? std::string(text(args[0].first)) : ""});
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
    } else if (declaration dl = declaration_at(k, end); dl.names.size() == 1 && dl.simple && is(dl.names[0] + 1, "=")) {
      at = dl.names[0] + 2;
    }
    if (*it != at) return std::nullopt;
    return at;
  };
  // Plans the callee of the waiting call `c` of statement [k, end] as an
  // instance of its own; `uniform` is what every thread has alike there.
  auto inline_call = [&](std::size_t k, std::size_t end, std::size_t c, std::size_t level_end,
                         bool after_region) -> bool {
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
    in.guards = guard_stack;
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
        if (!same) in.front += " using " + parameter + " = " + spell(a0, a1) + ";";
      } else if (!same) {
        in.front += " constexpr " + join(first, stop, nullptr) + " = (" + spell(a0, a1) + ");";
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
      std::string argument = spell(a0, a1);
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
        in.flat_front += " [[maybe_unused]] auto&& " + in.prefix + parameter + " = " + argument + ";";
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
        in.flat_front += " [[maybe_unused]] " + join(first, stop - 1, nullptr) + " " + in.prefix + parameter + " = (" +
                         argument + ");";
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
    if (after_region) {  // the region just closed binds them
      ic.args_region = regions.size() - 1;
      regions.back().binds_call = inlined.size();
      for (std::size_t j = lparen; j <= *rparen; ++j)
        if (names_variable(j)) extra_uses.emplace_back(ic.args_region, std::string(text(j)));
    } else {
      ic.args_region = regions.size();
      regions.push_back({lparen, *rparen, level_end, inlined.size()});
      regions.back().guards = guard_stack;
    }
    inlined.push_back(std::move(ic));
    return true;
  };
  std::function<bool(std::size_t, std::size_t, bool)> walk = [&](std::size_t from, std::size_t to, bool in_loop) {
    std::optional<std::size_t> open_region;
    std::size_t last = from;
    auto close_region = [&] {
      if (open_region) {
        regions.push_back({*open_region, last, to});
        regions.back().guards = guard_stack;
      }
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
                 block_declarations.contains(k) || (!pragma && guard_stack.empty() && shared_declaration(k, *end))) {
        close_region();
      } else if (auto shuffle = shuffle_calls.lower_bound(k);
                 !pragma && shuffle != shuffle_calls.end() && *shuffle <= *end && !is(k, "for") && !is(k, "if") &&
                 !is(k, "while") && !is(k, "do") && !is(k, "switch") && !is(k, "{")) {
        // Its operand is left in the exchange as the region before it
        // ends; the statement opens the next region.
        close_region();
        if (!split_shuffle_at(k, *end)) return false;
        regions.push_back(
            {shuffles.back().operand.first, shuffles.back().operand.second - 1, to, std::nullopt, shuffles.size() - 1});
        regions.back().guards = guard_stack;
        open_region = k;
        last = *end;
      } else if (auto call = inlinable_call(k, *end); call && !pragma) {
        // The callee's body runs where the call is, after a region that
        // binds its arguments; what the statement does with the result
        // opens the next region.
        bool after_region = open_region.has_value();
        close_region();
        if (!inline_call(k, *end, *call, to, after_region)) return false;
        if (!inlined.back().whole) {
          open_region = k;
          last = *end;
        }
      } else if (auto close = is(k, "if") && holds_barrier(k, *end) ? match_forward(k + 1) : std::nullopt;
                 close && is(*close + 1, "{") && statement_end(*close + 1, to) == end &&
                 (barriers.lower_bound(k) == barriers.end() || barriers.lower_bound(k)->first > *end)) {
        // A warp's `if` around shuffles: a region sets each thread's flag
        // from the condition where the `if` stood; the body's regions run
        // the threads whose flag is true. Every lane of a warp must agree,
        // so that a shuffle's lanes are all there: a condition of values
        // the block shares and of the warp's number.
        bool reads_x = false;
        if (std::string not_uniform = warp_uniform(k + 2, *close, reads_x); !not_uniform.empty()) {
          why = line_of(k) + "an `if` around a warp shuffle whose condition may differ within a warp: " + not_uniform;
          return false;
        }
        close_region();
        inlining.warps_in_rows |= reads_x;
        std::string guard = "weft_if" + std::to_string(++inlining.count);
        inlining.members.emplace_back(guard, "bool");
        regions.push_back({k + 2, *close - 1, to});
        regions.back().guard = guard;
        regions.back().guards = guard_stack;
        guard_stack.push_back(guard);
        std::set<std::string, std::less<>> saved = uniform;
        if (!walk(*close + 2, *end, in_loop)) return false;
        uniform = std::move(saved);
        guard_stack.pop_back();
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
          not_uniform = uniform_expression(*init_end + 1, condition_end, inside, params, param_types, locals, changed);
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
        // Loops one after the other may reuse a name: each C++ loop keeps
        // its own variable, which its regions capture. (One inside another
        // of the same name changes it in the outer's body: refused above.)
        loop_variables.insert(own.begin(), own.end());
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
  }
  for (const auto& [r, name] : extra_uses) used[r].insert(name);
  for (std::size_t r = 0; r < regions.size(); ++r) {
    if (regions[r].args_of || regions[r].shuffle_of || !regions[r].guard.empty()) continue;
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
  // A region that declares a name before any use of it has its own (two
  // barrier loops' `uint pos = ...;`, each in its loop's region): its
  // uses are not the other declaration's.
  auto declares_its_own = [&](std::size_t r, const std::string& name) {
    auto own =
        std::find_if(declared.begin(), declared.end(), [&](const local& o) { return o.region == r && o.name == name; });
    if (own == declared.end()) return false;
    for (std::size_t k = regions[r].first; k < own->token; ++k)
      if (is(k, name) && names_variable(k)) return false;
    return true;
  };
  // A region whose first statement that names a local assigns it afresh
  // (`x = blockIdx.y * TILE + threadIdx.x;`, the whole statement, at the
  // region's top) reads no value an earlier region left: where every other
  // region that uses the local is such, or declares its own, the local
  // lives in no region's successor, and each declares it again at that
  // assignment rather than sharing a per-thread copy, so that its accesses
  // can advance with the loop over the threads. The kernel's own locals
  // only, declared once, with an initializer.
  auto assigns_afresh = [&](std::size_t r, const local& l) -> std::optional<std::size_t> {
    const region& g = regions[r];
    if (instance || g.args_of || g.shuffle_of || !g.guard.empty() || declarations[l.name] != 1) return std::nullopt;
    for (std::size_t k = g.first; k <= g.last;) {
      if (unroll_pragma(k)) {
        ++k;
        continue;
      }
      std::size_t end = *statement_end(k, g.last + 1);
      std::size_t mention = k;
      while (mention < end && !(is(mention, l.name) && names_variable(mention))) ++mention;
      if (mention == end) {
        k = end + 1;
        continue;
      }
      if (mention != k || !is(k + 1, "=") || k <= l.token || k >= regions[l.region].scope_end || in_inlined_call(k))
        return std::nullopt;
      for (std::size_t j = k + 2; j < end; ++j)
        if (is(j, l.name) && names_variable(j)) return std::nullopt;
      for (std::size_t j = k + 2; j < end; ++j) {
        if (is(j, ",")) return std::nullopt;  // `x = a, y = b;`: not the whole statement
        if (is_opener(j)) j = *match_forward(j);
      }
      return k;
    }
    return std::nullopt;
  };
  std::map<std::size_t, const local*> fresh_assignments;  // token of `x` in `x = ...;`: the local it declares again
  std::set<std::string, std::less<>> crossing;
  for (local& l : declared) {
    bool crosses = false;
    std::vector<std::size_t> fresh;
    bool declarable = !instance && l.token == l.decl.names.front() && l.decl.names.size() == 1 &&
                      is(l.token + 1, "=") && !movable_type(l.decl.type).empty() &&
                      std::none_of(l.decl.type.begin(), l.decl.type.end(),
                                   [&](std::size_t k) { return is(k, "auto") || is(k, "decltype") || is(k, "const"); });
    for (std::size_t r = 0; r < regions.size(); ++r) {
      if (r == l.region || !used[r].contains(l.name) || declares_its_own(r, l.name)) continue;
      std::optional<std::size_t> at = declarable ? assigns_afresh(r, l) : std::nullopt;
      if (at)
        fresh.push_back(*at);
      else
        crosses = true;
    }
    if (!crosses)
      for (std::size_t k : fresh) fresh_assignments.emplace(k, &l);
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

  // A crossing local declared once from what no thread changes while the
  // block runs (threadIdx, blockIdx, blockDim, gridDim, the parameters the
  // body leaves alone, numbers, constexpr names, other such locals) and
  // never changed after: each region that uses it declares it again rather
  // than reading a per-thread copy, so that a region's accesses indexed by
  // it advance with the loop over the threads and the compiler can
  // vectorise them (with the copy, each is a gather or a scatter). The
  // kernel's own only, a whole declaration statement at a time.
  // Those that read no threadIdx, directly or through another, are the
  // same for every thread: declared once, before the regions, where the
  // compiler sees they cannot change (read from blockIdx in each region,
  // they might: a store through a pointer may alias it).
  std::set<std::string, std::less<>> recomputed, block_wide;
  std::vector<const local*> recomputed_statements;  // in the body's order, threadIdx read
  std::vector<const local*> block_wide_statements;
  if (!instance) {
    auto constexpr_name = [&](std::string_view word) {
      for (std::size_t j = 0; j + 1 < t_.size(); ++j) {
        if (!is(j, word) || !(is(j + 1, "=") || is(j + 1, "{"))) continue;
        for (std::size_t b = j; b-- > 0 && !is(b, ";") && !is(b, "{") && !is(b, "}");)
          if (is(b, "constexpr")) return true;
      }
      return false;
    };
    auto assigned_after = [&](const std::string& name) {
      for (std::size_t j = d.open + 1; j < d.close; ++j)
        if (is(j, name) && names_variable(j) && !declarators.contains(j) &&
            (changed_at(j) || member_changed_at(j) ||
             ((is(j - 1, "(") || is(j - 1, ",")) && (is(j + 1, ")") || is(j + 1, ",")) && !passed_by_value(j))))
          return true;
      return false;
    };
    static constexpr std::string_view builtins[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
    for (const local& l : declared) {
      if (l.token != l.decl.names.front() || !l.decl.simple) continue;
      bool all = true;
      bool reads_thread = false;
      std::set<std::string, std::less<>> names;
      for (std::size_t n = 0; n < l.decl.names.size() && all; ++n) {
        std::string name(text(l.decl.names[n]));
        std::size_t init_to = n + 1 < l.decl.names.size() ? l.decl.names[n + 1] - 1 : l.last;
        all = crossing.contains(name) && is(l.decl.names[n] + 1, "=") && !assigned_after(name);
        std::set<std::size_t> fixed;  // threadIdx.x and the like, which uniform_expression would refuse
        for (std::size_t j = l.decl.names[n] + 2; j < init_to && all; ++j) {
          if (!is_identifier(j) || !names_variable(j)) continue;
          std::string_view word = text(j);
          if (one_of(builtins, word) && is(j + 1, ".") && (is(j + 2, "x") || is(j + 2, "y") || is(j + 2, "z"))) {
            fixed.insert({j, j + 1, j + 2});
            reads_thread |= word == "threadIdx";
            j += 2;
          } else if (recomputed.contains(word) || block_wide.contains(word) || names.contains(word)) {
            // (names: an earlier declarator of this statement, `int t =
            // threadIdx.x, i = blockIdx.x * blockDim.x + t;`, which goes
            // where the statement goes)
            fixed.insert(j);
            reads_thread |= recomputed.contains(word);
          } else if (!params.contains(word) && !locals.contains(word)) {
            all = constexpr_name(word);
          }
        }
        all =
            all &&
            uniform_expression(l.decl.names[n] + 2, init_to, {}, params, param_types, locals, changed, &fixed).empty();
        // Declared before the regions, a division would run for threads
        // whose `return` came before it (`if (n == 0) return;`): not there.
        for (std::size_t j = l.decl.names[n] + 2; j < init_to; ++j) reads_thread |= is(j, "/") || is(j, "%");
        names.insert(name);
      }
      if (!all) continue;
      (reads_thread ? recomputed : block_wide).insert(names.begin(), names.end());
      (reads_thread ? recomputed_statements : block_wide_statements).push_back(&l);
    }
  }

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
    if (crossing.contains(l.name) && !recomputed.contains(l.name) && !block_wide.contains(l.name))
      bound.emplace_back(l.name, l.type);
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
    for (const local* l : block_wide_statements) head += " " + join(l->statement, l->last + 1, nullptr);
    if (inlining.shuffles) head += " weft::region_exchange weft_exchange(weft_block);";
    plan.edits[d.open].after += head;
  } else if (flat) {
    // Its constants, before the regions that merge_regions joins across
    // the call (it moves them ahead of the joined region).
    plan.edits[d.open].text = "";
    plan.edits[d.open].after += hoisted_open + instance->flat_front + hoisted_close;
    plan.edits[d.close].text = "";
    for (std::size_t k = d.open + 1; k < d.close; ++k)
      if (names_variable(k) && renamed.contains(text(k))) plan.edits[k].text = renamed.find(text(k))->second;
  } else {
    plan.edits[d.open].after += instance->front;
  }
  // Whether each() counts region r's threads in unsigned (region_block.hpp,
  // thread_counter: GCC vectorises a region's accesses, and splits its
  // loop at `if (t < stride)`, only where the thread index the region
  // reads is the counter itself or a conversion that cannot wrap): where
  // the locals it declares as threadIdx.x (`unsigned t = threadIdx.x;`, its
  // own or declared again, `again`) are all unsigned, or where it declares
  // none and reads threadIdx.x itself. Else int, for `int t = threadIdx.x;`.
  auto counts_unsigned = [&](std::size_t r, const std::vector<const local*>& again) {
    static constexpr std::string_view unsigned_words[] = {"unsigned", "uint", "uint32_t", "auto"};
    int unsigned_indices = 0, other_indices = 0;
    auto vote = [&](const local& l) {
      for (std::size_t n : l.decl.names)
        if (is(n + 1, "=") && is(n + 2, "threadIdx") && is(n + 3, ".") && is(n + 4, "x") &&
            (is(n + 5, ",") || is(n + 5, ";")))
          ++(std::any_of(l.decl.type.begin(), l.decl.type.end(),
                         [&](std::size_t k) { return one_of(unsigned_words, text(k)); })
                 ? unsigned_indices
                 : other_indices);
    };
    for (const local* l : again) vote(*l);
    for (const local& l : declared)
      if (l.region == r && l.token == l.decl.names.front()) vote(l);
    if (unsigned_indices + other_indices > 0) return other_indices == 0;
    for (std::size_t k = regions[r].first; k + 2 <= regions[r].last; ++k)
      if (is(k, "threadIdx") && is(k + 1, ".") && is(k + 2, "x")) return true;
    return false;
  };
  // A member the region copies into a local of its own, and writes back
  // where it changes it, rather than binding a reference: GCC then keeps
  // it in a register (through a reference, each access is a load or a
  // store that a store through a pointer may alias, and a vector's lanes
  // stored one by one then loaded whole stall the store forwarding). Not
  // where its address is taken or may escape (a pointer or a reference to
  // it, passed to what may keep one), nor a type parameter's (perhaps not
  // trivially copyable), nor a bool (a bare declaration's indeterminate
  // copy would be an invalid bool to -fsanitize=bool).
  auto escapes = [&](const std::string& name) {
    for (std::size_t k = d.open + 1; k < d.close; ++k) {
      if (!is(k, name) || !names_variable(k) || declarators.contains(k)) continue;
      if (is(k - 1, "&") && !(k >= 2 && is(k - 2, "&") && adjacent(k - 2))) return true;
      bool shuffled = std::any_of(shuffles.begin(), shuffles.end(),
                                  [&](const split_shuffle& h) { return k > h.call && k < h.rparen; });
      if ((is(k - 1, "(") || is(k - 1, ",")) && (is(k + 1, ")") || is(k + 1, ",")) && !shuffled && !passed_by_value(k))
        return true;
      if (is(k - 1, "=") && k >= 3 && is_identifier(k - 2) && is(k - 3, "&")) return true;  // `T& r = name`
    }
    return false;
  };
  auto changes_in = [&](std::size_t r, const std::string& name) {
    auto changes = [&](std::size_t from, std::size_t to) {
      for (std::size_t k = from; k <= to; ++k)
        if (is(k, name) && names_variable(k) && (changed_at(k) || member_changed_at(k))) return true;
      return false;
    };
    if (changes(regions[r].first, regions[r].last)) return true;
    if (regions[r].binds_call) {
      const inlined_call& ic = inlined[*regions[r].binds_call];
      return changes(ic.call, ic.rparen);
    }
    return false;
  };
  auto open_text = [&](std::size_t r) {
    std::string pre, post;
    for (const auto& [name, type] : bound) {
      if (!used[r].contains(name)) continue;
      std::string member = "weft_l." + prefix + name;
      if (type == "bool" || type_parameters.contains(type) || escapes(name)) {
        pre += " auto& " + name + " = " + member + ";";
        continue;
      }
      // A race-check build copies the slot in and out untraced
      // (weft::detail::untraced_local: a thread's own slot cannot race).
      pre += " auto " + name + " = " + (race_check ? "weft::detail::untraced_local(" + member + ")" : member) + ";";
      bool own_param =
          std::any_of(own_params.begin(), own_params.end(), [&](const auto& p) { return p.first == name; });
      if (changes_in(r, name) || (r == 0 && own_param))
        post += race_check ? " weft::detail::set_untraced_local(" + member + ", " + name + ");"
                           : " " + member + " = " + name + ";";
    }
    std::string open;
    // The recomputed declarations a region uses, and those they read.
    std::set<std::string, std::less<>> wanted;
    for (const std::string& name : recomputed)
      if (used[r].contains(name)) wanted.insert(name);
    for (auto l = recomputed_statements.rbegin(); l != recomputed_statements.rend(); ++l) {
      const local& declaration = **l;
      bool needed = declaration.region != r && std::any_of(declaration.decl.names.begin(), declaration.decl.names.end(),
                                                           [&](std::size_t n) { return wanted.contains(text(n)); });
      if (!needed) continue;
      for (std::size_t j = declaration.statement; j < declaration.last; ++j)
        if (names_variable(j) && recomputed.contains(text(j))) wanted.insert(std::string(text(j)));
    }
    std::vector<const local*> again;
    for (const local* l : recomputed_statements) {
      bool needed = l->region != r && std::any_of(l->decl.names.begin(), l->decl.names.end(),
                                                  [&](std::size_t n) { return wanted.contains(text(n)); });
      if (!needed) continue;
      open += " [[maybe_unused]] " + join(l->statement, l->last + 1, nullptr);
      again.push_back(l);
    }
    std::string skip;  // the threads it skips: those outside a warp's `if`, those the callee returned
    for (const std::string& guard : regions[r].guards) skip += (skip.empty() ? "!weft_l." : " || !weft_l.") + guard;
    if (instance && instance->returns_before_end && regions[r].first > *first_return)
      skip += (skip.empty() ? "weft_l." : " || weft_l.") + prefix + "returned";
    open = region_open + std::string(1, counts_unsigned(r, again) ? 'U' : 'I') + skip + region_skip_end + pre +
           region_pre_end + post + region_post_end + open;
    if (r == 0)
      for (const auto& [name, type] : own_params) open += " " + name + " = weft_param_" + name + ";";
    return open;
  };
  // Tokens [from, to) as the regions spell them, where a region's text is
  // made of the kernel's rather than edited in place: a tile's rank and
  // size from the thread's linear id.
  auto spelled_in_regions = [&](std::size_t from, std::size_t to) {
    std::string out;
    for (std::size_t k = from; k < to;) {
      std::size_t run = k;
      while (run < to && !tile_uses.contains(run)) ++run;
      if (run > k) out += (out.empty() ? "" : " ") + spell(k, run);
      if (run < to) out += (out.empty() ? "" : " ") + tile_uses.at(run);
      k = run < to ? run + 5 : to;
    }
    return out;
  };
  for (const auto& [k, spelled] : tile_uses) {
    plan.edits[k].text = spelled;
    for (std::size_t j = k + 1; j <= k + 4; ++j) plan.edits[j].text = "";
  }
  for (std::size_t r = 0; r < regions.size(); ++r) {
    if (!regions[r].guard.empty()) {  // `if (c) {` -> `... weft_l.weft_ifN = static_cast<bool>(c); ... {`
      std::size_t k = regions[r].first - 2;
      plan.edits[k].before = open_text(r) + " weft_l." + regions[r].guard + " = static_cast<bool>(" +
                             spelled_in_regions(regions[r].first, regions[r].last + 1) + ");" + region_close +
                             plan.edits[k].before;
      for (std::size_t j = k; j <= regions[r].last + 1; ++j) plan.edits[j].text = "";
      continue;
    }
    if (regions[r].args_of || regions[r].shuffle_of) continue;
    std::string open = open_text(r);
    if (unroll_pragma(regions[r].first))  // a directive starts its line: opened at the end of the one before
      plan.edits[regions[r].first - 1].after += open;
    else
      plan.edits[regions[r].first].before = open + " " + plan.edits[regions[r].first].before;
    if (!regions[r].binds_call) plan.edits[regions[r].last].after += region_close;
  }
  // An inlined call: a region that binds the callee's parameters, the
  // callee's block, then the statement with the result in the call's place.
  for (const inlined_call& ic : inlined) {
    std::string text = regions[ic.args_region].binds_call ? "" : open_text(ic.args_region);
    for (const auto& [name, tokens] : ic.thread_arguments)
      text += name.empty()
                  ? " (void)(" + spell(tokens.first, tokens.second) + ");"
                  : " weft_l." + ic.instance.prefix + name + " = (" + spell(tokens.first, tokens.second) + ");";
    if (ic.instance.returns_before_end) text += " weft_l." + ic.instance.prefix + "returned = false;";
    text += region_close + ic.plan.text;
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
    if (s.op == "reduce") {
      std::string operand = spelled_in_regions(s.operand.first, s.operand.second);
      plan.edits[s.statement].before = apart + open_text(s.operand_region) +
                                       " weft_exchange.put(weft_threads.thread_of(weft_l), (" + operand + "));" +
                                       region_close + apart + plan.edits[s.statement].before;
      plan.edits[s.first].text = "weft::region_reduce<std::remove_cvref_t<decltype(" + operand + ")>, " + s.width +
                                 ">(weft_exchange, weft_threads.thread_of(weft_l), " +
                                 spell(s.lane.first, s.lane.second) + ")";
      for (std::size_t k = s.first + 1; k <= s.rparen; ++k) plan.edits[k].text = "";
      continue;
    }
    std::string operand = spelled_in_regions(s.operand.first, s.operand.second);
    plan.edits[s.statement].before = apart + open_text(s.operand_region) +
                                     " weft_exchange.put(weft_threads.thread_of(weft_l), +(" + operand + "));" +
                                     region_close + apart + plan.edits[s.statement].before;
    // A kernel's constant that names the mask is still named: else -Wall
    // would call it unused.
    std::string get = "weft_exchange.get<decltype(+(" + operand + "))>(weft::region_" +
                      std::string(s.op.substr(0, s.op.size() - 5)) +
                      ", weft_threads.thread_of(weft_l), static_cast<unsigned>(" +
                      spelled_in_regions(s.lane.first, s.lane.second) + "), " + s.width + ")";
    plan.edits[s.call].text = s.named_mask.empty() ? get : "((void)" + s.named_mask + ", " + get + ")";
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
  // A local each region declares again (assigns_afresh): perhaps only
  // assigned in some.
  std::set<const local*> declared_again;
  for (const auto& [k, l] : fresh_assignments) {
    plan.edits[k].before += "[[maybe_unused]] " + movable_type(l->decl.type) + " ";
    if (declared_again.insert(l).second) plan.edits[l->statement].before += "[[maybe_unused]] ";
  }
  for (const local& l : declared) {
    if (l.token != l.decl.names.front()) continue;  // a statement at a time, at its first name
    auto crosses = [&](std::size_t n) { return crossing.contains(text(n)); };
    if (std::none_of(l.decl.names.begin(), l.decl.names.end(), crosses)) continue;
    if (!std::all_of(l.decl.names.begin(), l.decl.names.end(), crosses)) {
      // Some of its names live across a barrier and the others in this
      // region only (`int col = threadIdx.x, tile_col = ... + col;`, only
      // tile_col read after it): a statement for each declarator, the type
      // written again before those that stay here.
      std::string type = join(l.decl.type.front(), l.decl.type.back() + 1, nullptr);
      for (std::size_t k : l.decl.type) plan.edits[k].text = "";
      for (std::size_t i = 0; i < l.decl.names.size(); ++i) {
        std::size_t n = l.decl.names[i];
        if (i > 0) plan.edits[n - 1].text = ";";
        if (!crosses(n))
          plan.edits[n].before += type + " ";
        else if (!is(n + 1, "="))
          plan.edits[n].before += "(void)";
      }
      continue;
    }
    if (recomputed.contains(l.name)) {  // its region may no longer read it: the reads moved with it
      plan.edits[l.statement].before += "[[maybe_unused]] ";  // after the region's opening, if it opens here
      continue;
    }
    if (block_wide.contains(l.name)) {  // declared before the regions
      for (std::size_t k = l.statement; k <= l.last; ++k) plan.edits[k].text = "";
      continue;
    }
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
        plan.edits[r].text = returned.empty() ? "return weft::region_go" : "return (" + returned + " weft::region_go)";
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
  plan.warps_in_rows = inlining.warps_in_rows;
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

std::vector<porter::construct> porter::region_constructs(const function_definition& d, const region_plan& plan) const {
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

std::string porter::render_region_version(const function_definition& d, const region_plan& plan) const {
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
  std::string body = merge_regions(render(t_[d.open].begin, t_[d.close].end, std::nullopt));
  rendering_ = saved;
  if (race_check) {
    std::set<std::string, std::less<>> macro_words;
    bool pasting = false;
    for (const macro_definition& m : macro_definitions())
      for (std::size_t k = m.from; k < m.to; ++k) {
        if (is_identifier(k)) macro_words.emplace(text(k));
        pasting = pasting || (is(k, "#") && k + 1 < m.to && is(k + 1, "#") && adjacent(k));
      }
    body = untraced_shared_reads(body, macro_words, pasting);
  }
  out += body;
  // A launch whose warps' lanes do not share threadIdx.x / 32 runs the stackless kernel.
  std::string shape = plan.warps_in_rows ? ", weft::region_warps_in_rows" : "";
  if (!plan.templated) {
    out += "\n[[maybe_unused]] static const bool weft_port_regions_registered_" + d.name +
           " = weft::register_region_version<&" + d.name + ", &weft_port_regions_" + d.name + shape + ">();\n";
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
        "weft::register_region_version<&" + instance + ", &weft_port_regions_" + instance + shape + ">()";
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

}  // namespace weft_port_tool
