// The pieces of `kiln rtlsim` that need no simulator: the testbench's stdout
// protocol parsed, raw values from hex, the verdict and its mismatch lines.
#include "kiln/rtl/dir/rtlsim.h"

#include <gtest/gtest.h>

#include <cmath>

#include "kiln/support/testing/test_helpers.h"

namespace kiln::rtl {
namespace {

using kiln::testing::catch_error;

Port port(const std::string& name, int64_t numel, int width, bool is_signed = true) {
  Port p;
  p.name = name;
  p.numel = numel;
  p.type.width = width;
  p.type.frac = 4;
  p.type.is_signed = is_signed;
  return p;
}

const std::vector<Port> kOutputs = {port("y", 2, 8), port("z", 1, 4, false)};

// Two samples, pipelined: a sample every cycle, 5 cycles through.
constexpr const char* kGood = R"(IN 0 10
IN 1 11
OUT 0 15
Y 0 0 0 07
Y 0 0 1 fb
Y 0 z 0 f
OUT 1 16
Y 1 y 0 80
Y 1 0 1 00
Y 1 1 0 3
- tb.sv:88: Verilog $finish
DONE
)";

// The emulator's raw values for kGood: y = {7, -5}, z = {15}; y = {-128, 0}, z = {3}.
const std::vector<std::vector<std::vector<int64_t>>> kExpected = {{{7, -5}, {15}},
                                                                  {{-128, 0}, {3}}};

TEST(RawOfHex, MasksAndSignExtends) {
  loop::ScalarType s8{8, 0, true}, u8{8, 0, false}, s64{64, 0, true};
  EXPECT_EQ(raw_of_hex("7f", s8), 127);
  EXPECT_EQ(raw_of_hex("80", s8), -128);
  EXPECT_EQ(raw_of_hex("FF", s8), -1);
  EXPECT_EQ(raw_of_hex("ff", u8), 255);
  EXPECT_EQ(raw_of_hex("1ff", s8), -1);  // digits above the width do not count
  EXPECT_EQ(raw_of_hex("00ff", u8), 255);
  EXPECT_EQ(raw_of_hex("ffffffffffffffff", s64), -1);
  EXPECT_EQ(raw_of_hex("8000000000000000", s64), INT64_MIN);
  EXPECT_EQ(raw_of_hex("xx", s8), std::nullopt);
  EXPECT_EQ(raw_of_hex("1z", s8), std::nullopt);
  EXPECT_EQ(raw_of_hex("", s8), std::nullopt);
  EXPECT_EQ(raw_of_hex("-1", s8), std::nullopt);
}

TEST(SimProtocol, ParsesEveryLineKind) {
  const SimTrace t = parse_sim_output(kGood, kOutputs, 2);
  EXPECT_TRUE(t.done);
  EXPECT_FALSE(t.timeout);
  EXPECT_EQ(t.samples[0].in_cycle, 10);
  EXPECT_EQ(t.samples[1].out_cycle, 16);
  EXPECT_EQ(t.y[0][0][1], "fb");
  EXPECT_EQ(t.y[0][1][0], "f");   // output by port name
  EXPECT_EQ(t.y[1][0][0], "80");  // by name too
  EXPECT_EQ(t.y[1][1][0], "3");
}

TEST(SimProtocol, BitExactVerdictWithTiming) {
  const SimVerdict v = judge(parse_sim_output(kGood, kOutputs, 2), kOutputs, kExpected);
  EXPECT_TRUE(v.bit_exact);
  EXPECT_EQ(v.samples, 2);
  EXPECT_EQ(v.values, 6);
  EXPECT_EQ(v.mismatched_values, 0);
  EXPECT_EQ(v.latency_cycles, 5);
  EXPECT_TRUE(v.latency_uniform());
  EXPECT_EQ(v.interval_cycles, 1);
  EXPECT_TRUE(v.failure.empty());
}

// frac 4: raw 7 is 0.4375, raw -5 is -0.3125; undefined or missing: NaN.
TEST(SimProtocol, OutputValuesFromTheRawBits) {
  std::string text = kGood;
  text.erase(text.find("Y 1 1 0 3\n"), 10);
  text.replace(text.find("Y 1 0 1 00"), 10, "Y 1 0 1 z0");
  const auto v = output_values(parse_sim_output(text, kOutputs, 2), kOutputs);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0][0], (std::vector<double>{0.4375, -0.3125}));
  EXPECT_EQ(v[0][1], (std::vector<double>{15.0 / 16}));  // unsigned
  EXPECT_EQ(v[1][0][0], -8.0);
  EXPECT_TRUE(std::isnan(v[1][0][1]));
  EXPECT_TRUE(std::isnan(v[1][1][0]));
}

TEST(SimProtocol, MismatchNamesSampleOutputElementAndBothValues) {
  std::string text = kGood;
  text.replace(text.find("Y 0 0 1 fb"), 10, "Y 0 0 1 fc");
  const SimVerdict v = judge(parse_sim_output(text, kOutputs, 2), kOutputs, kExpected);
  EXPECT_FALSE(v.bit_exact);
  EXPECT_EQ(v.mismatched_values, 1);
  ASSERT_EQ(v.mismatches.size(), 1u);
  EXPECT_EQ(v.mismatches[0].text(),
            "sample 0, output y, element 1: rtl raw -4 (hex fc), emulator raw -5");
}

TEST(SimProtocol, MissingAndUndefinedValuesAreMismatches) {
  std::string text = kGood;
  text.erase(text.find("Y 1 1 0 3\n"), 10);
  text.replace(text.find("Y 0 0 0 07"), 10, "Y 0 0 0 0x");
  const SimVerdict v = judge(parse_sim_output(text, kOutputs, 2), kOutputs, kExpected);
  EXPECT_FALSE(v.bit_exact);
  ASSERT_EQ(v.mismatches.size(), 2u);
  EXPECT_EQ(v.mismatches[0].text(),
            "sample 0, output y, element 0: rtl value '0x' is undefined (x/z), emulator raw 7");
  EXPECT_EQ(v.mismatches[1].text(),
            "sample 1, output z, element 0: rtl printed no value, emulator raw 3");
}

TEST(SimProtocol, KeepsTheFirstTenMismatchesAndCountsAll) {
  const std::vector<Port> wide = {port("y", 30, 8)};
  std::string text = "IN 0 0\nOUT 0 1\n";
  std::vector<std::vector<std::vector<int64_t>>> expected = {{std::vector<int64_t>(30, 1)}};
  for (int e = 0; e < 30; ++e) text += "Y 0 0 " + std::to_string(e) + " 2\n";
  text += "DONE\n";
  const SimVerdict v = judge(parse_sim_output(text, wide, 1), wide, expected);
  EXPECT_EQ(v.mismatched_values, 30);
  EXPECT_EQ(v.mismatches.size(), static_cast<std::size_t>(kMaxReportedMismatches));
  EXPECT_EQ(v.interval_cycles, std::nullopt);  // one sample: nothing to measure
}

TEST(SimProtocol, TimeoutAndMissingDoneFail) {
  std::string text = kGood;
  text.replace(text.find("DONE"), 4, "TIMEOUT");
  const SimVerdict t = judge(parse_sim_output(text, kOutputs, 2), kOutputs, kExpected);
  EXPECT_FALSE(t.bit_exact);
  EXPECT_EQ(t.failure, "the testbench timed out (TIMEOUT) with 2 of 2 samples' outputs");
  text.erase(text.find("TIMEOUT"));
  const SimVerdict n = judge(parse_sim_output(text, kOutputs, 2), kOutputs, kExpected);
  EXPECT_FALSE(n.bit_exact);
  EXPECT_EQ(n.failure, "the simulation ended without the testbench's DONE");
}

TEST(SimProtocol, LatencyDifferencesAreFlagged) {
  std::string text = kGood;
  text.replace(text.find("OUT 1 16"), 8, "OUT 1 19");
  const SimVerdict v = judge(parse_sim_output(text, kOutputs, 2), kOutputs, kExpected);
  EXPECT_TRUE(v.bit_exact);  // values still right
  EXPECT_EQ(v.latency_cycles, 8);
  EXPECT_EQ(v.latency_min, 5);
  EXPECT_FALSE(v.latency_uniform());
}

TEST(SimProtocol, MalformedProtocolLinesAreInternalErrors) {
  for (const char* bad : {"IN 2 10\n", "IN 0\n", "IN 0 x\n", "Y 0 2 0 ff\n", "Y 0 w 0 ff\n",
                          "Y 0 0 2 ff\n", "IN 0 1\nIN 0 2\n", "DONE now\n", "TOO_MANY 9\n"}) {
    const Error e = catch_error([&] { parse_sim_output(bad, kOutputs, 2); });
    EXPECT_EQ(e.kind(), ErrorKind::Internal) << bad;
    EXPECT_CONTAINS(e.where(), "testbench output line");
  }
}

}  // namespace
}  // namespace kiln::rtl
