// porter: inline PTX that reads a special register or waits at a named barrier (see porter.hpp).
#include "porter.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft_port_tool {

const porter::special_register* porter::find_special_register(std::string_view name) {
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

std::optional<std::string> porter::string_contents(std::size_t i) const {
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

std::vector<std::string> porter::ptx_instructions(std::string_view body) {
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

std::optional<std::size_t> porter::asm_open(std::size_t i) const {
  if (!(is(i, "asm") || is(i, "__asm__") || is(i, "__asm"))) return std::nullopt;
  std::size_t open = i + 1;
  while (is(open, "volatile") || is(open, "__volatile__") || is(open, "__volatile") || is(open, "inline") ||
         is(open, "goto"))
    ++open;
  if (!is(open, "(")) return std::nullopt;
  return open;
}

std::optional<std::string> porter::asm_opcode(std::size_t i) const {
  auto open = asm_open(i);
  if (!open) return std::nullopt;
  auto body = string_contents(*open + 1);
  if (!body) return std::nullopt;
  std::size_t first = body->find_first_not_of(" \t\n\r");
  if (first == std::string::npos) return std::nullopt;
  return body->substr(first, body->find_first_of(" \t\n\r;", first) - first);
}

std::optional<std::string_view> porter::named_barrier_function(std::string_view op) {
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

template <class Report>
std::optional<std::string> porter::named_barrier_call(std::string_view function, const std::string& instruction,
                                                      const std::string& op, int line, std::size_t from,
                                                      std::size_t close, const Report& report) const {
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
  if (arguments.empty() || arguments.size() > 2) return refuse("a barrier takes an id and, optionally, a thread count");
  if (function == "bar_arrive" && arguments.size() != 2) return refuse("bar.arrive needs a thread count");
  std::string call = "weft::ptx::" + std::string(function) + "(" + arguments[0];
  if (arguments.size() == 2) call += ", " + arguments[1];
  return call + ")";
}

void porter::find_inline_ptx() {
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
                  std::string(reg->ptx) + " with a " + std::to_string(bits) + "-bit `" + op + "`, which ptxas rejects",
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

}  // namespace weft_port_tool
