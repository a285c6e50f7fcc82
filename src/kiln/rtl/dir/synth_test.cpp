#include "kiln/rtl/dir/synth.h"

#include <gtest/gtest.h>

#include "kiln/support/error.h"
#include "kiln/support/testing/test_helpers.h"

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

// A module with instances of `children` (unconnected: only the hierarchy is read).
netlist::Module module_with(const std::string& name, const std::vector<std::string>& children) {
  netlist::Module m(name);
  for (std::size_t i = 0; i < children.size(); ++i)
    m.instance("u" + std::to_string(i), children[i]);
  return m;
}

// Per-module synthesis runs each module the top reaches once, with its
// direct children (each once) as black boxes; a module the top does not
// reach is not synthesized.
TEST(SynthHierarchy, ModulesTheTopReachesWithTheirChildren) {
  netlist::Design d;
  d.top = "top";
  d.modules = {module_with("leaf", {}),         module_with("body", {"leaf", "leaf", "leaf"}),
               module_with("after", {}),        module_with("stage", {"body", "after", "after"}),
               module_with("unused", {"leaf"}), module_with("top", {"stage", "leaf"})};
  const auto order = module_hierarchy(d, "top");
  ASSERT_EQ(order.size(), 5u);
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
      {"leaf", {}},
      {"body", {"leaf"}},
      {"after", {}},
      {"stage", {"body", "after"}},
      {"top", {"stage", "leaf"}}};
  EXPECT_EQ(order, expected);
  // A stage alone, as its own top.
  EXPECT_EQ(module_hierarchy(d, "stage").size(), 4u);
}

TEST(SynthHierarchy, AnUndefinedModuleIsNamed) {
  netlist::Design d;
  d.top = "top";
  d.modules = {module_with("top", {"ghost"})};
  const Error e = testing::catch_error([&] { module_hierarchy(d, "top"); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "module ghost");
}

TEST(SynthLimits, DefaultMemoryIsSharedByTheJobs) {
  const std::optional<uint64_t> one = default_memory_limit(1), four = default_memory_limit(4);
  ASSERT_TRUE(one && four);
  EXPECT_NEAR(static_cast<double>(*four), static_cast<double>(*one) / 4, 1.0);
  EXPECT_FALSE(default_memory_limit(0));
}

}  // namespace
}  // namespace kiln::rtl
