// Tokens of kiln's line-oriented IR texts (graph/ir_text.h, hls/model_text.h),
// and the field syntax their attribute lists share.
//
// Tokens: identifiers ([A-Za-z_][A-Za-z0-9_]*), %names and @names (sigil
// plus identifier), numbers (an optional sign, digits, '.', exponent; also
// inf and nan; digits joined by 'x' are dimensions, 1x3x32x32), "strings" (with \" \\ \n \t and
// \xHH escapes), the punctuation ( ) [ ] { } < > , : = + * (a '+' before a digit signs the number)
// and end of line. '#' starts a comment that runs to the end of the line. Errors are InvalidModel
// at "FILE:LINE:COL".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

enum class TokenKind : uint8_t { Ident, Percent, At, Number, String, Punct, Newline, End };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;  // identifier without sigil, number spelling, decoded string, punct char
  int line = 1;
  int column = 1;
};

class Lexer {
 public:
  Lexer(std::string_view text, std::string source);

  const Token& peek() const { return tokens_[pos_]; }
  const Token& peek2() const { return tokens_[pos_ + 1 < tokens_.size() ? pos_ + 1 : pos_]; }
  Token next();
  bool at_end() const { return peek().kind == TokenKind::End; }

  // True (and consumed) if the next token is the punctuation `c`.
  bool accept(char c);
  bool accept_ident(std::string_view word);
  void expect(char c);
  void expect_ident(std::string_view word);
  std::string expect_ident();
  std::string expect_string();
  int64_t expect_int();
  double expect_double();
  float expect_float();  // read as float directly (no double rounding)
  // Dimensions written as 1x3x32x32 (a single number is one dimension).
  std::vector<int64_t> expect_dims();
  void skip_newlines();
  // The end of a statement: a newline or the end of the text.
  void expect_end_of_line();

  // "FILE:LINE:COL" of the next token.
  std::string where() const;
  std::string where(const Token& t) const;
  [[noreturn]] void fail(const std::string& what) const;
  [[noreturn]] void fail_at(const Token& t, const std::string& what) const;
  static std::string describe(const Token& t);

  const std::string& source() const { return source_; }

 private:
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  std::string source_;
};

// A string literal with the escapes Lexer reads.
std::string quote(std::string_view s);
// Shortest text that reads back to exactly `v` (inf, -inf, nan included).
std::string format_float(float v);
std::string format_double(double v);

}  // namespace kiln
