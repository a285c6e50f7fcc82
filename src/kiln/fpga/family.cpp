#include "kiln/fpga/family.h"

namespace kiln::fpga {

namespace {

struct FamilyNames {
  const char* text;
  const char* synth;  // Yosys synth_xilinx -family
};
constexpr auto kNames = make_enum_table<Family, 3, FamilyNames>({
    {{Family::UltraScalePlus}, {"UltraScale+", "xcup"}},
    {{Family::UltraScale}, {"UltraScale", "xcu"}},
    {{Family::Series7}, {"7-series", "xc7"}},
});

}  // namespace

const char* to_string(Family f) {
  return kNames[f].text;
}
const char* synth_family_name(Family f) {
  return kNames[f].synth;
}

}  // namespace kiln::fpga
