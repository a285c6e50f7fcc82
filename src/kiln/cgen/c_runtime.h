// The C99 fixed-point runtime that kiln's C from the loop IR includes
// (`kiln_fixed_c.h`, written into every C project): Vitis HLS's ap_fixed
// assignment semantics (numeric/fixed.h: rounding by QuantMode, then
// OverflowMode) on raw values held in int64_t, with nothing but <stdint.h>
// and <math.h>. A value is a raw integer and a number of fraction bits that
// the generated code knows at compile time; every raw value and exact
// intermediate fits in 63 bits (print_c.h refuses a program where one would
// not).
#pragma once

#include <string_view>

namespace kiln::cgen {

// The header's file name and text.
inline constexpr std::string_view kCFixedHeaderName = "kiln_fixed_c.h";
std::string_view c_fixed_header();

}  // namespace kiln::cgen
