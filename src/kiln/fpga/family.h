// The FPGA families kiln targets: what the operator library's numbers
// (sched/operator_library.h) and Yosys's synth_xilinx (tools/hdl.h) are per
// family. A part's family comes from its row in the device table
// (devices.h).
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "kiln/support/enum_table.h"

namespace kiln::fpga {

enum class Family : uint8_t { UltraScalePlus, UltraScale, Series7 };
const char* to_string(Family f);          // "UltraScale+", "UltraScale", "7-series"
const char* synth_family_name(Family f);  // synth_xilinx -family: "xcup", "xcu", "xc7"

}  // namespace kiln::fpga

namespace kiln {
template <>
struct EnumNames<fpga::Family> {
  static constexpr std::pair<fpga::Family, std::string_view> kNames[] = {
      {fpga::Family::UltraScalePlus, "ultrascale_plus"},
      {fpga::Family::UltraScale, "ultrascale"},
      {fpga::Family::Series7, "7series"},
  };
};
}  // namespace kiln
