// The RTL resource estimate's calibration against Yosys: every LUT and
// flip-flop a stage or the top counts is booked under one cost term, priced
// by the operator library as it is (the term's raw count), and the estimate
// is the sum over terms of raw count x the term's fitted coefficient. The
// coefficients are data (calibration_coefficients.inc), fitted by
// `bash bench/calibrate.sh` on the Yosys counts of bench/calibration/data.csv;
// docs/rtl-design.md, "How the estimate is calibrated".
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "kiln/support/enum_table.h"

namespace kiln::rtl {

enum class LutTerm : uint8_t {
  Adder,         // sums and differences that add values (carry chains)
  ProductAdder,  // the shift-and-add adders of products by constants
  FabricMul,     // products of two variables in LUTs (MultiplierLimit 0)
  Compare,       // comparisons
  MaxMin,        // max and min: a comparison and a 2:1 multiplexer
  Quantize,      // rounding and saturation, and a table index's clamp
  Mux,           // selects, and multiplexers over registers, banks or lanes
  Rom,           // tables in LUTs
  Ram,           // memories in LUTs (LUTRAM)
  Srl,           // shift registers (SRLC32E)
};
inline constexpr std::size_t kLutTerms = 10;

enum class FfTerm : uint8_t {
  Value,  // a fully unrolled stage's values held across cycles
  Loop,   // a kept loop's registers: control, buffers, memory reads, pointers
};
inline constexpr std::size_t kFfTerms = 2;

// Raw LUT and FF counts per term (the operator library's, uncalibrated).
struct CostTerms {
  std::array<double, kLutTerms> lut{};
  std::array<double, kFfTerms> ff{};

  void add(LutTerm t, double luts) { lut[static_cast<std::size_t>(t)] += luts; }
  void add(FfTerm t, double ffs) { ff[static_cast<std::size_t>(t)] += ffs; }
  CostTerms& operator+=(const CostTerms& o);
  double raw_lut() const;
  double raw_ff() const;
  // The calibrated estimate: each term's count times its coefficient.
  double lut_estimate() const;
  double ff_estimate() const;
};

// The fitted coefficients (LUTs or FFs per raw one).
double lut_coefficient(LutTerm t);
double ff_coefficient(FfTerm t);

}  // namespace kiln::rtl

namespace kiln {
template <>
struct EnumNames<rtl::LutTerm> {
  static constexpr std::pair<rtl::LutTerm, std::string_view> kNames[] = {
      {rtl::LutTerm::Adder, "adder"},
      {rtl::LutTerm::ProductAdder, "product_adder"},
      {rtl::LutTerm::FabricMul, "fabric_mul"},
      {rtl::LutTerm::Compare, "compare"},
      {rtl::LutTerm::MaxMin, "max_min"},
      {rtl::LutTerm::Quantize, "quantize"},
      {rtl::LutTerm::Mux, "mux"},
      {rtl::LutTerm::Rom, "rom"},
      {rtl::LutTerm::Ram, "ram"},
      {rtl::LutTerm::Srl, "srl"},
  };
};
template <>
struct EnumNames<rtl::FfTerm> {
  static constexpr std::pair<rtl::FfTerm, std::string_view> kNames[] = {
      {rtl::FfTerm::Value, "value"},
      {rtl::FfTerm::Loop, "loop"},
  };
};
}  // namespace kiln
