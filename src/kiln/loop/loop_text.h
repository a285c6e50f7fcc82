// Loop IR as text: a printer and a parser that round-trip (tests are text
// in, text out; `kiln rtl --list-loops` names a model's loops).
//
//   program "conv"
//   buffer @x input ap_fixed<16,6> [8x8x1]
//   buffer @w const ap_fixed<16,6> [3x3x1x1] = [771, 714, ...]
//   buffer @acc local ap_fixed<32,12> [1]
//   buffer @x_flat tensor ap_fixed<16,6> [64] alias @x
//   buffer @y output ap_fixed<16,6> [6x6x1] partition=cyclic factor=2 dim=1 storage=bram
//   inputs @x
//   outputs @y
//   kernel conv "/Conv" reads @x @w writes @y locals @acc {
//     for %oh < 6 unroll=0 pipeline=1 {
//       if 0 <= %oh*2 + %kh + -1 < 8 {
//         %v0 = load @x[%oh, %kh + -1, 0] : ap_fixed<16,6>
//         %v1 = const 3 : ap_ufixed<2,2>
//         %v2 = mul %v0, %v1 : ap_fixed<18,8>
//         %v3 = quantize %v2 to ap_fixed<32,12,AP_RND,AP_SAT> : ap_fixed<32,12>
//         %v4 = lookup @t[%v3] shift 7 offset 512 : ap_fixed<18,8>
//         %v5 = shl %v4 3 : ap_fixed<18,11>
//         store @acc[0] = %v3
//       }
//     }
//   }
//
// Values print as %v<N> in definition order, so printing a parsed text gives
// the same text back. A value's type is written after ':' and must be the one
// its op gives (verify()). Errors are InvalidModel at FILE:LINE:COL.
#pragma once

#include <string>
#include <string_view>

#include "kiln/loop/loop_ir.h"

namespace kiln::loop {

std::string print_program(const Program& program);
// Parses and verify()s the text; `source` names it in messages.
Program parse_program(std::string_view text, const std::string& source);

}  // namespace kiln::loop
