// Spelling fixed-point values in Verilog: ranges, sized literals, and the
// alignment of a raw value to another width and binary point (private to rtl/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/loop/loop_ir.h"

namespace kiln::rtl {

// "[w-1:0] ", or "" for one bit.
std::string range(int width);
// W'hX: the low `width` bits of v's two's complement.
std::string literal(numeric::int128 v, int width);
// The same as a signed literal (W'shX), for signed comparisons.
std::string literal_signed(numeric::int128 v, int width);
// A constant of `type` (raw) as `width` bits at `frac` fraction bits; the
// value must be exact there.
std::string literal_aligned(int64_t raw, const loop::ScalarType& type, int width, int frac);

// The value of signal `id` (of `from`) as `width` bits at `frac` fraction
// bits: shifted left by frac - from.frac (>= 0), sign- or zero-extended, or
// cut to its low `width` bits (modular contexts). `truncated` is set when
// some of id's bits are not read.
std::string align(const std::string& id, const loop::ScalarType& from, int width, int frac,
                  bool* truncated = nullptr);

// Wires named unused_ok<k> that read `ids` (bits dropped on purpose; Verilator
// exempts *unused* names from its UNUSED warning), 64 signals per wire: one
// reduction over all of them costs Icarus the whole list on every change.
std::string unused_sinks(const std::vector<std::string>& ids);

}  // namespace kiln::rtl
