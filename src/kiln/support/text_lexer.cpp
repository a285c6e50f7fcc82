#include "kiln/support/text_lexer.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "kiln/support/error.h"

namespace kiln {

namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool is_punct(char c) {
  return c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == '<' ||
         c == '>' || c == ',' || c == ':' || c == '=' || c == '+' || c == '*';
}
int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

template <class T>
std::string format_real(T v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace

Lexer::Lexer(std::string_view text, std::string source) : source_(std::move(source)) {
  int line = 1, col = 1;
  std::size_t i = 0;
  auto error = [&](const std::string& what) {
    throw_error(ErrorKind::InvalidModel,
                source_ + ":" + std::to_string(line) + ":" + std::to_string(col), what,
                "see docs/ir.md for the IR text syntax");
  };
  auto advance = [&](std::size_t n) {
    i += n;
    col += static_cast<int>(n);
  };
  while (i < text.size()) {
    const char c = text[i];
    Token t;
    t.line = line;
    t.column = col;
    if (c == '\n') {
      t.kind = TokenKind::Newline;
      tokens_.push_back(t);
      ++i;
      ++line;
      col = 1;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      advance(1);
      continue;
    }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') advance(1);
      continue;
    }
    if (c == '%' || c == '@') {
      t.kind = c == '%' ? TokenKind::Percent : TokenKind::At;
      advance(1);
      if (i >= text.size() || !ident_char(text[i]))
        error(std::string("expected a name after '") + c + "'");
      const std::size_t b = i;
      while (i < text.size() && ident_char(text[i])) advance(1);
      t.text = std::string(text.substr(b, i - b));
      tokens_.push_back(t);
      continue;
    }
    if (c == '"') {
      t.kind = TokenKind::String;
      advance(1);
      while (true) {
        if (i >= text.size() || text[i] == '\n') error("unterminated string");
        const char d = text[i];
        if (d == '"') {
          advance(1);
          break;
        }
        if (d == '\\') {
          if (i + 1 >= text.size()) error("unterminated string");
          const char e = text[i + 1];
          if (e == '"' || e == '\\') {
            t.text += e;
            advance(2);
          } else if (e == 'n') {
            t.text += '\n';
            advance(2);
          } else if (e == 't') {
            t.text += '\t';
            advance(2);
          } else if (e == 'x' && i + 3 < text.size() && hex_digit(text[i + 2]) >= 0 &&
                     hex_digit(text[i + 3]) >= 0) {
            t.text += static_cast<char>(hex_digit(text[i + 2]) * 16 + hex_digit(text[i + 3]));
            advance(4);
          } else {
            error(std::string("unknown escape '\\") + e + "' in a string");
          }
          continue;
        }
        t.text += d;
        advance(1);
      }
      tokens_.push_back(t);
      continue;
    }
    const bool sign = (c == '-' || c == '+') && i + 1 < text.size() &&
                      (std::isdigit(static_cast<unsigned char>(text[i + 1])) ||
                       text.substr(i + 1, 3) == "inf" || text.substr(i + 1, 3) == "nan");
    if (std::isdigit(static_cast<unsigned char>(c)) || sign) {
      t.kind = TokenKind::Number;
      const std::size_t b = i;
      if (sign) advance(1);
      if (text.substr(i, 3) == "inf" || text.substr(i, 3) == "nan") {
        advance(3);
      } else {
        while (i < text.size()) {
          const char d = text[i];
          const bool exp_sign =
              (d == '-' || d == '+') && (text[i - 1] == 'e' || text[i - 1] == 'E');
          // 'x' between digits: a shape, "1x3x224x224".
          const bool dims = d == 'x' && i + 1 < text.size() &&
                            std::isdigit(static_cast<unsigned char>(text[i + 1]));
          if (std::isdigit(static_cast<unsigned char>(d)) || d == '.' || d == 'e' || d == 'E' ||
              exp_sign || dims)
            advance(1);
          else
            break;
        }
      }
      t.text = std::string(text.substr(b, i - b));
      tokens_.push_back(t);
      continue;
    }
    if (ident_start(c)) {
      const std::size_t b = i;
      while (i < text.size() && ident_char(text[i])) advance(1);
      t.text = std::string(text.substr(b, i - b));
      t.kind = (t.text == "inf" || t.text == "nan") ? TokenKind::Number : TokenKind::Ident;
      tokens_.push_back(t);
      continue;
    }
    if (is_punct(c)) {
      t.kind = TokenKind::Punct;
      t.text = std::string(1, c);
      tokens_.push_back(t);
      advance(1);
      continue;
    }
    error(std::string("unexpected character '") + c + "'");
  }
  Token end;
  end.kind = TokenKind::End;
  end.line = line;
  end.column = col;
  tokens_.push_back(end);
}

Token Lexer::next() {
  Token t = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return t;
}

bool Lexer::accept(char c) {
  const Token& t = peek();
  if (t.kind == TokenKind::Punct && t.text[0] == c) {
    next();
    return true;
  }
  return false;
}

bool Lexer::accept_ident(std::string_view word) {
  const Token& t = peek();
  if (t.kind == TokenKind::Ident && t.text == word) {
    next();
    return true;
  }
  return false;
}

void Lexer::expect(char c) {
  if (!accept(c)) fail(std::string("expected '") + c + "', got " + describe(peek()));
}

void Lexer::expect_ident(std::string_view word) {
  if (!accept_ident(word)) fail("expected '" + std::string(word) + "', got " + describe(peek()));
}

std::string Lexer::expect_ident() {
  if (peek().kind != TokenKind::Ident) fail("expected a name, got " + describe(peek()));
  return next().text;
}

std::string Lexer::expect_string() {
  if (peek().kind != TokenKind::String) fail("expected a \"string\", got " + describe(peek()));
  return next().text;
}

int64_t Lexer::expect_int() {
  const Token& t = peek();
  int64_t v = 0;
  if (t.kind == TokenKind::Number) {
    const char* b = t.text.data() + (t.text[0] == '+' ? 1 : 0);
    const char* e = t.text.data() + t.text.size();
    const auto r = std::from_chars(b, e, v);
    if (r.ec == std::errc() && r.ptr == e) {
      next();
      return v;
    }
    if (r.ec == std::errc::result_out_of_range) fail("integer " + t.text + " is out of range");
  }
  fail("expected an integer, got " + describe(t));
}

namespace {
// Parses inf, nan and decimal text as T directly (float from text, not via
// double: two roundings could differ from one).
template <class T>
bool parse_real(const std::string& text, T& v) {
  std::string s = text;
  const bool neg = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s = s.substr(1);
  if (s == "inf") {
    v = std::numeric_limits<T>::infinity();
  } else if (s == "nan") {
    v = std::numeric_limits<T>::quiet_NaN();
  } else {
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return false;
  }
  if (neg) v = -v;
  return true;
}
}  // namespace

double Lexer::expect_double() {
  const Token& t = peek();
  double v = 0;
  if (t.kind != TokenKind::Number || !parse_real(t.text, v))
    fail("expected a number, got " + describe(t));
  next();
  return v;
}

float Lexer::expect_float() {
  const Token& t = peek();
  float v = 0;
  if (t.kind != TokenKind::Number || !parse_real(t.text, v))
    fail("expected a number, got " + describe(t));
  next();
  return v;
}

std::vector<int64_t> Lexer::expect_dims() {
  const Token& t = peek();
  if (t.kind != TokenKind::Number)
    fail("expected dimensions such as 1x3x32x32, got " + describe(t));
  std::vector<int64_t> dims;
  std::size_t b = 0;
  while (b <= t.text.size()) {
    std::size_t e = t.text.find('x', b);
    if (e == std::string::npos) e = t.text.size();
    int64_t d = -1;
    const auto r = std::from_chars(t.text.data() + b, t.text.data() + e, d);
    if (r.ec != std::errc() || r.ptr != t.text.data() + e || d < 0)
      fail("'" + t.text + "' is not a list of dimensions such as 1x3x32x32");
    dims.push_back(d);
    b = e + 1;
  }
  next();
  return dims;
}

void Lexer::skip_newlines() {
  while (peek().kind == TokenKind::Newline) next();
}

void Lexer::expect_end_of_line() {
  if (peek().kind == TokenKind::Newline) {
    next();
    return;
  }
  if (peek().kind != TokenKind::End) fail("expected the end of the line, got " + describe(peek()));
}

std::string Lexer::where() const {
  return where(peek());
}

std::string Lexer::where(const Token& t) const {
  return source_ + ":" + std::to_string(t.line) + ":" + std::to_string(t.column);
}

void Lexer::fail(const std::string& what) const {
  fail_at(peek(), what);
}

void Lexer::fail_at(const Token& t, const std::string& what) const {
  throw_error(ErrorKind::InvalidModel, where(t), what, "see docs/ir.md for the IR text syntax");
}

std::string Lexer::describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::Ident: return "'" + t.text + "'";
    case TokenKind::Percent: return "'%" + t.text + "'";
    case TokenKind::At: return "'@" + t.text + "'";
    case TokenKind::Number: return "the number " + t.text;
    case TokenKind::String: return "a string";
    case TokenKind::Punct: return "'" + t.text + "'";
    case TokenKind::Newline: return "the end of the line";
    case TokenKind::End: return "the end of the text";
  }
  return "?";
}

std::string quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string format_float(float v) {
  return format_real(v);
}

std::string format_double(double v) {
  return format_real(v);
}

}  // namespace kiln
