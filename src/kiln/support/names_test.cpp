#include "kiln/support/names.h"

#include <gtest/gtest.h>

#include <regex>

namespace kiln {
namespace {

bool valid_identifier(const std::string& s) {
  static const std::regex re("[A-Za-z][A-Za-z0-9_]*");
  return std::regex_match(s, re) && !is_reserved_word(s) && s.find("__") == std::string::npos;
}

TEST(SanitizeIdentifier, ReplacesSeparatorsAndCollapsesRuns) {
  EXPECT_EQ(sanitize_identifier("/features/features.0/Conv_output_0"),
            "features_features_0_Conv_output_0");
  EXPECT_EQ(sanitize_identifier("a::b..c"), "a_b_c");
}

TEST(SanitizeIdentifier, PrefixesLeadingDigitAndEmpty) {
  EXPECT_EQ(sanitize_identifier("0"), "t_0");
  EXPECT_EQ(sanitize_identifier("123abc"), "t_123abc");
  EXPECT_EQ(sanitize_identifier(""), "t");
  EXPECT_EQ(sanitize_identifier("///"), "t");
  EXPECT_EQ(sanitize_identifier("7", "node"), "node_7");
}

TEST(SanitizeIdentifier, AvoidsKeywordsOfCAndVerilog) {
  EXPECT_EQ(sanitize_identifier("input"), "input_v");
  EXPECT_EQ(sanitize_identifier("module"), "module_v");
  EXPECT_EQ(sanitize_identifier("float"), "float_v");
  EXPECT_EQ(sanitize_identifier("wire"), "wire_v");
  // SystemVerilog's keywords too: Verilator reads .v files as SystemVerilog,
  // and the netlist verifier refuses them as names.
  for (const char* k : {"interface", "final", "type", "string", "with", "ref", "bind"}) {
    EXPECT_TRUE(is_verilog_keyword(k)) << k;
    EXPECT_EQ(sanitize_identifier(k), std::string(k) + "_v");
  }
  EXPECT_TRUE(is_reserved_word("constexpr"));  // C++ only
  EXPECT_FALSE(is_verilog_keyword("constexpr"));
}

TEST(SanitizeIdentifier, AlwaysValid) {
  for (const char* raw : {"x", "_x", "__init__", "a-b", "ü", "1.2.3", "onnx::Conv_12", "reg", " "})
    EXPECT_TRUE(valid_identifier(sanitize_identifier(raw)))
        << raw << " -> " << sanitize_identifier(raw);
}

TEST(NameTable, MakesCollisionsUnique) {
  NameTable names;
  EXPECT_EQ(names.unique("conv.1"), "conv_1");
  EXPECT_EQ(names.unique("conv/1"), "conv_1_2");
  EXPECT_EQ(names.unique("conv:1"), "conv_1_3");
  EXPECT_EQ(names.unique("conv_1_2"), "conv_1_2_2");
  EXPECT_TRUE(names.contains("conv_1"));
}

}  // namespace
}  // namespace kiln
