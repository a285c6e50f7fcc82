#include "kiln/rtl/synth.h"

#include <gtest/gtest.h>

namespace kiln::rtl {
namespace {

tools::CellCounts counts(long lut, long ff, std::map<std::string, long> cells = {}) {
  tools::CellCounts c;
  c.lut = lut;
  c.ff = ff;
  c.cells = std::move(cells);
  return c;
}

// A loop stage's estimate counts its before, body and after modules; Yosys
// counts each module's own cells, so the comparison adds the instances'.
TEST(SynthRows, AModuleCountsWithTheModulesItInstantiates) {
  const std::map<std::string, tools::CellCounts> modules = {
      {"top", counts(1, 2, {{"top_fc", 1}, {"FDRE", 2}})},
      {"top_fc", counts(10, 20, {{"top_fc_body", 1}, {"top_fc_after", 2}})},
      {"top_fc_body", counts(100, 200, {{"top_fc_leaf", 3}})},
      {"top_fc_after", counts(1000, 0)},
      {"top_fc_leaf", counts(5, 5)}};
  const tools::CellCounts fc = with_submodules("top_fc", modules);
  EXPECT_EQ(fc.lut, 10 + 100 + 3 * 5 + 2 * 1000);
  EXPECT_EQ(fc.ff, 20 + 200 + 3 * 5);
  EXPECT_EQ(with_submodules("top", modules).lut, 1 + fc.lut);
  EXPECT_EQ(with_submodules("top_fc_after", modules).lut, 1000);
  EXPECT_EQ(with_submodules("nope", modules).lut, 0);
}

}  // namespace
}  // namespace kiln::rtl
