// porter: rendering the output (see porter.hpp).
#include "porter.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace weft_port_tool {

std::string porter::render(std::size_t from, std::size_t to, std::optional<arch_view> view) const {
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

std::pair<int, std::size_t> porter::position(std::size_t at) const {
  int line = 1 + static_cast<int>(std::count(src_.begin(), src_.begin() + at, '\n'));
  std::size_t line_start = src_.rfind('\n', at == 0 ? 0 : at - 1);
  std::size_t column = at - (line_start == std::string_view::npos || at == 0 ? 0 : line_start + 1);
  return {line, column + 1};
}

std::string porter::render_dual_body(const construct& c) const {
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

std::string porter::gap(std::size_t begin, std::size_t end) const {
  std::string_view text = src_.substr(begin, end - begin);
  bool blank = std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t'; });
  return blank ? std::string() : std::string(text);
}

std::string porter::render_launch(const construct& c, std::optional<arch_view> view) const {
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
      out += "[](auto... weft_port_arguments) { " + render(c.begin, c.kernel_end, view) + "(weft_port_arguments...); }";
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

}  // namespace weft_port_tool
