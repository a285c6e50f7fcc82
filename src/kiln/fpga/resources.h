// The FPGA resources a design uses or a device has, one type for all of
// kiln: the HLS estimator, the RTL stages' estimates, the design report and
// `kiln synth`'s Yosys counts.
//
// `lut` counts every LUT of the fabric, as Vivado's "CLB LUTs" does: logic,
// and those used as distributed RAM (`lutram`) or shift registers (`srl`),
// which are "of which" counts. `carry` counts carry blocks (CARRY8 on
// UltraScale+, CARRY4 on 7-series), `bram18` 18 Kb block RAMs (a 36 Kb one is
// two), `uram` UltraRAM blocks. Estimates may be fractional (two bits of a
// 2:1 multiplexer share a LUT6).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kiln::fpga {

struct Resources {
  double lut = 0, ff = 0, dsp = 0, bram18 = 0, uram = 0, carry = 0, srl = 0, lutram = 0;

  Resources& operator+=(const Resources& o);
  Resources& operator*=(double k);
  friend Resources operator+(Resources a, const Resources& b) { return a += b; }
  friend Resources operator*(Resources a, double k) { return a *= k; }
  bool operator==(const Resources&) const = default;
};

// Each field, in one order: its JSON key and a member pointer. Everything that
// walks the fields (sums, JSON, shares, tables) goes through this list.
struct ResourceField {
  const char* key;    // "lut", "ff", ...
  const char* label;  // "LUT", "FF", ... for tables
  double Resources::*member;
};
inline constexpr ResourceField kResourceFields[] = {
    {"lut", "LUT", &Resources::lut},    {"ff", "FF", &Resources::ff},
    {"dsp", "DSP", &Resources::dsp},    {"bram18", "BRAM18", &Resources::bram18},
    {"uram", "URAM", &Resources::uram}, {"carry", "CARRY", &Resources::carry},
    {"srl", "SRL", &Resources::srl},    {"lutram", "LUTRAM", &Resources::lutram},
};

// Every field by its key; integral values as JSON integers (Yosys's counts
// read as whole numbers), others as numbers.
nlohmann::json to_json(const Resources& r);
// The fields `j` has (others 0); InvalidModel naming `where` for a field that
// is not a number.
Resources resources_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace kiln::fpga
