// Fixed-point types in the IR texts' field syntax (support/field_text.h):
// the to_string() spelling, ap_fixed<16,6,AP_RND,AP_SAT>.
#pragma once

#include <string>

#include "kiln/numeric/fixed.h"
#include "kiln/support/field_text.h"

namespace kiln {

template <>
struct FieldCodec<numeric::FixedType> {
  static std::string format(const numeric::FixedType& t) { return t.to_string(); }
  // The tokens from the type's name through its closing '>', read as one
  // spelling by parse_fixed_type().
  static void parse(Lexer& lx, numeric::FixedType& t) {
    const Token start = lx.peek();
    std::string text = lx.expect_ident();
    lx.expect('<');
    text += '<';
    while (!lx.accept('>')) {
      const Token tok = lx.next();
      if (tok.kind == TokenKind::Newline || tok.kind == TokenKind::End)
        lx.fail_at(tok, "unterminated fixed-point type '" + text + "'");
      text += tok.text;
    }
    text += '>';
    std::string error;
    const auto parsed = numeric::parse_fixed_type(text, &error);
    if (!parsed) lx.fail_at(start, "bad fixed-point type '" + text + "': " + error);
    t = *parsed;
  }
};

}  // namespace kiln
