// The scanner: the tokens of a source file.
//
// How: a scanner splits the file into tokens, knowing comments, string, char
// and raw string literals, line splices and preprocessor lines, so that
// nothing inside a comment or a literal is ever rewritten. `#define` bodies
// are scanned as code (launches in macros are rewritten); other directives are
// kept whole.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace weft_port_tool {

enum class kind { space, comment, identifier, number, literal, punct, directive };

struct token {
  kind k;
  std::size_t begin, end;  // byte range in the source
  int line;                // line of the first byte
  int define;              // the #define whose body holds the token, 0 for ordinary code
};

bool is_ident_char(char c);
bool is_digit(char c);
bool is_blank(char c);

// Splits a source file into tokens that cover it completely.
class scanner {
 public:
  explicit scanner(std::string_view src);

  std::vector<token> run();

 private:
  std::string_view s_;
  std::size_t i_ = 0;
  int line_ = 1;
  bool line_start_ = true;  // nothing but spaces and comments so far on this line
  int define_ = 0;          // the #define being scanned, 0 outside one
  int defines_ = 0;

  char at(std::size_t j) const;

  // Length of the line splice (backslash-newline) at j, 0 if there is none.
  std::size_t splice(std::size_t j) const;

  void advance(std::size_t n);

  kind next();

  kind spaces();

  // A // comment runs to the end of the line, line splices included.
  kind line_comment();

  kind block_comment();

  // `#define` starts a macro body that is scanned as code, so that launches
  // in macros are found. Any other directive (#include <a>, #if x << 2,
  // #error don't) is one opaque token up to the end of its line.
  kind directive();

  // A preprocessing number, which includes digit separators (1'000) and
  // exponents with signs (1e+5), so that neither looks like something else.
  kind number();

  // An identifier, or the encoding prefix of a literal (u8"...", L'x', R"(...)").
  kind identifier();

  // A string or char literal; an unterminated one stops at the end of the line.
  kind quoted();

  // R"delim( ... )delim": nothing inside is special, not even a backslash.
  kind raw_string();
};

}  // namespace weft_port_tool
