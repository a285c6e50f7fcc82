// The FPGA families kiln targets and how a part name maps to one. One fact
// shared by the operator library (sched/), Yosys synthesis (tools/hdl.h) and
// the RTL commands.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "kiln/support/enum_table.h"

namespace kiln::tools {

enum class FpgaFamily : uint8_t { UltraScalePlus, Series7 };
const char* to_string(FpgaFamily f);          // "UltraScale+", "7-series"
const char* synth_family_name(FpgaFamily f);  // synth_xilinx -family: "xcup", "xc7"
// The family of a Xilinx part name ("xcu280-fsvh2892-2L-e" -> UltraScalePlus,
// "xc7z020clg400-1" -> Series7). Throws kiln::Error(InvalidModel) for any
// other (plain UltraScale such as xcvu095 included), listing the known ones.
FpgaFamily family_of_part(const std::string& part);

}  // namespace kiln::tools

namespace kiln {
template <>
struct EnumNames<tools::FpgaFamily> {
  static constexpr std::pair<tools::FpgaFamily, std::string_view> kNames[] = {
      {tools::FpgaFamily::UltraScalePlus, "ultrascale_plus"},
      {tools::FpgaFamily::Series7, "7series"},
  };
};
}  // namespace kiln
