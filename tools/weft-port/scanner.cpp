// The scanner (see scanner.hpp).
#include "scanner.hpp"

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace weft_port_tool {

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

scanner::scanner(std::string_view src) : s_(src) {}

std::vector<token> scanner::run() {
  std::vector<token> out;
  while (i_ < s_.size()) {
    std::size_t begin = i_;
    int line = line_;
    kind k = next();
    out.push_back({k, begin, i_, line, define_});
  }
  return out;
}

char scanner::at(std::size_t j) const { return j < s_.size() ? s_[j] : '\0'; }

std::size_t scanner::splice(std::size_t j) const {
  if (at(j) != '\\') return 0;
  if (at(j + 1) == '\n') return 2;
  if (at(j + 1) == '\r' && at(j + 2) == '\n') return 3;
  return 0;
}

void scanner::advance(std::size_t n) {
  for (; n > 0 && i_ < s_.size(); --n)
    if (s_[i_++] == '\n') ++line_;
}

kind scanner::next() {
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

kind scanner::spaces() {
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

kind scanner::line_comment() {
  while (i_ < s_.size() && s_[i_] != '\n') advance(splice(i_) ? splice(i_) : 1);
  return kind::comment;
}

kind scanner::block_comment() {
  std::size_t end = s_.find("*/", i_ + 2);
  advance(end == std::string_view::npos ? s_.size() - i_ : end + 2 - i_);
  return kind::comment;
}

kind scanner::directive() {
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

kind scanner::number() {
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

kind scanner::identifier() {
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

kind scanner::quoted() {
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

kind scanner::raw_string() {
  std::size_t open = s_.find('(', i_);
  if (open == std::string_view::npos) return quoted();
  std::string closing = ")" + std::string(s_.substr(i_ + 1, open - i_ - 1)) + "\"";
  std::size_t end = s_.find(closing, open);
  advance(end == std::string_view::npos ? s_.size() - i_ : end + closing.size() - i_);
  return kind::literal;
}

}  // namespace weft_port_tool
