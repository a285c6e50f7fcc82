// The emulator driver: input quantization with event counts, dispatch, outputs.
#include "kiln/hls/emulate/emulator.h"

#include <gtest/gtest.h>

#include "kiln/support/testing/test_helpers.h"

namespace kiln::hls {
namespace {

// x[3] in ap_fixed<4,2,AP_RND,AP_SAT> (lsb 0.25, range [-2, 1.75]) -> reshape -> y[3].
Model input_model() {
  Model m;
  m.name = "m";
  FixedType t;
  t.width = 4;
  t.integer = 2;
  t.quant = numeric::QuantMode::Rnd;
  t.overflow = numeric::OverflowMode::Sat;
  m.tensors = {{"x", {3}, t}, {"y", {3}, t}};
  Layer in;
  in.name = "x_in";
  in.outputs = {0};
  in.precision.result = t;
  Layer r;
  r.name = "flat";
  r.params = ReshapeParams{};
  r.inputs = {0};
  r.outputs = {1};
  r.precision.result = t;
  m.layers = {in, r};
  m.inputs = {0};
  m.outputs = {1};
  return m;
}

TEST(Emulator, InputIsQuantizedWithEventsCounted) {
  // 0.3 rounds to 0.25 (raw 1); 0.375 ties up to 0.5 (raw 2); 1.9 saturates to
  // 1.75 (raw 7); -2.6 saturates to -2 (raw -8).
  const Model m = input_model();
  Model four = m;
  four.tensors[0].shape = four.tensors[1].shape = {4};
  const EmulationResult r = emulate(four, {{0.3, 0.375, 1.9, -2.6}});
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].raw, (std::vector<int64_t>{1, 2, 7, -8}));
  EXPECT_EQ(r.outputs[0].shape, (std::vector<int64_t>{4}));
  EXPECT_EQ(r.outputs[0].at(2), 1.75);
  EXPECT_EQ(r.outputs[0].at(3), -2.0);
  ASSERT_EQ(r.per_layer.size(), 2u);
  EXPECT_EQ(r.per_layer[0].saturated, 2);
  EXPECT_EQ(r.per_layer[0].wrapped, 0);
  EXPECT_EQ(r.per_layer[1].saturated, 0);
}

TEST(Emulator, WrapIsCounted) {
  Model m = input_model();
  m.tensors[0].type.overflow = numeric::OverflowMode::Wrap;
  m.layers[0].precision.result = m.tensors[0].type;
  // 2.0 wraps to -2.0 in 4 bits with 2 integer bits.
  const EmulationResult r = emulate(m, {{2.0, 0, 0}});
  EXPECT_EQ(r.per_layer[0].wrapped, 1);
}

TEST(Emulator, BadInputsAreErrors) {
  const Model m = input_model();
  EXPECT_CONTAINS(kiln::testing::catch_error([&] { emulate(m, {}); }).message(),
                  "expected 1 input tensor(s), got 0");
  EXPECT_CONTAINS(kiln::testing::catch_error([&] {
                    emulate(m, {{1, 2}});
                  }).message(),
                  "expected 3 values, got 2");
  EXPECT_CONTAINS(kiln::testing::catch_error([&] {
                    emulate(m, {{1, 2, 0.0 / 0.0}});
                  }).message(),
                  "NaN");
}

}  // namespace
}  // namespace kiln::hls
