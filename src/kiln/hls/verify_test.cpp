// verify_model: a well-formed model passes, and each rule, broken on its
// own, is reported with the rule and the pass that broke it.
#include "kiln/hls/verify.h"

#include <gtest/gtest.h>

#include <functional>

#include "kiln/hls/testing/layer_pass_testing.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::hls {
namespace {

using kiln::testing::catch_error;

constexpr const char* kModel = R"(
model "t" {io_type=io_stream}
%x: ap_fixed<16,6>[4x4x2] = Input() @x "x"
%c: ap_fixed<16,6>[2x2x1] = Conv(%x) {in_h=4 in_w=4 c_in=2 out_h=2 out_w=2 c_out=1 kernel_h=3 kernel_w=3} @conv config {reuse_factor=2} constants {weights=[1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9] bias=[0]}
%f: ap_fixed<16,6>[4] = Reshape(%c) @flat
%a: ap_fixed<16,6>[4], %b: ap_fixed<16,6>[4] = Clone(%f) @f_clone
input %x "x": [1x2x4x4] perm=[1,2,0]
output %a "a": [1x4] perm=[0]
output %b "b": [1x4] perm=[0]
)";

struct Broken {
  const char* rule;
  std::function<void(Model&)> mutate;
};

// Each case breaks `good` in one way; verify_model names the rule and the pass.
template <std::size_t N>
void expect_each_rule_fails(const Model& good, const Broken (&cases)[N]) {
  for (const Broken& c : cases) {
    Model m = good;
    c.mutate(m);
    const Error e = catch_error([&] { verify_model(m, "some_pass"); });
    EXPECT_EQ(e.kind(), ErrorKind::Internal) << c.rule;
    EXPECT_CONTAINS(e.message(), c.rule);
    EXPECT_CONTAINS(e.message(), "(after some_pass)");
  }
}

TEST(VerifyModel, EachRuleFailsOnItsOwn) {
  const Model good = testing::parse(kModel);
  verify_model(good, "test");
  const Broken cases[] = {
      {"reads tensor 'c' before any layer writes it",
       [](Model& m) { std::swap(m.layers[1], m.layers[2]); }},
      {"writes tensor 'a' out of order", [](Model& m) { m.layers[3].outputs[1] = 3; }},
      {"writes tensor 'c' out of order",
       [](Model& m) {
         // The same graph with the conv's and the reshape's tensors numbered the other way.
         std::swap(m.tensors[1], m.tensors[2]);
         m.layers[1].outputs = {2};
         m.layers[2].inputs = {2};
         m.layers[2].outputs = {1};
         m.layers[3].inputs = {1};
       }},
      {"writes 2 tensors (only Clone writes several)",
       [](Model& m) { m.layers[2].outputs.push_back(3); }},
      {"not its result precision", [](Model& m) { m.tensors[1].type.width = 20; }},
      {"reuse factor 5, which is not valid", [](Model& m) { m.layers[1].reuse_factor = 5; }},
      {"an implementation its kind lacks",
       [](Model& m) { m.layers[2].conv_impl = ConvImpl::Encoded; }},
      {"its output shape is not its params'",
       [](Model& m) { m.layers[1].as<ConvParams>().out_w = 3; }},
      {"has 17 weights, not 18", [](Model& m) { m.layers[1].weights.pop_back(); }},
      {"changes the number of elements", [](Model& m) { m.tensors[2].shape = {5}; }},
      {"writes a copy of another shape or type",
       [](Model& m) {
         m.tensors[4].shape = {2, 2};
       }},
      {"name is used twice", [](Model& m) { m.layers[2].name = "conv"; }},
      {"is not an identifier", [](Model& m) { m.tensors[2].name = "a-b"; }},
      {"does not map its ONNX shape",
       [](Model& m) {
         m.input_ports[0].perm = {0, 1, 2};
       }},
      {"1 outputs but 2 output ports", [](Model& m) { m.outputs.pop_back(); }},
      {"Input layer 'x' does not write a model input",
       [](Model& m) {
         m.inputs.clear();
         m.input_ports.clear();
       }},
  };
  expect_each_rule_fails(good, cases);
}

constexpr const char* kResampling = R"(
model "r" {io_type=io_stream}
%x: ap_fixed<16,6>[2x2x3] = Input() @x "x"
%s: ap_fixed<16,6>[1x2x2] = Slice(%x) {begin=[1,0,1] step=[1,1,1]} @s
%u: ap_fixed<16,6>[2x4x2] = Resize(%s) {mode=Linear dims=2 in_h=1 in_w=2 channels=2 out_h=2 out_w=4 row_index=[0,0,0,0] col_index=[0,0,0,1,0,1,1,1]} @u constants {weights=[1,0,1,0,1,0,1,0,1,0,1,0]}
%q: ap_fixed<9,5,AP_RND_CONV,AP_SAT>[2x4x2] = Quantize(%u) {format=ap_fixed<9,5,AP_RND_CONV,AP_SAT> min_raw=-3 max_raw=252 scale=0.0625} @q
input %x "x": [1x3x2x2] perm=[1,2,0]
output %q "q": [1x2x4x2] perm=[0,1,2]
)";

TEST(VerifyModel, EachSliceResizeAndQuantizeRuleFailsOnItsOwn) {
  const Model good = testing::parse(kResampling);
  verify_model(good, "test");
  const Broken cases[] = {
      {"its begin, step and output shape do not lie inside its input",
       [](Model& m) { m.layers[1].as<SliceParams>().begin[2] = 2; }},
      {"its begin, step and output shape do not lie inside its input",
       [](Model& m) { m.layers[1].as<SliceParams>().step[0] = 0; }},
      {"its shapes are not those of its input and output",
       [](Model& m) { m.layers[2].as<ResizeParams>().out_w = 5; }},
      {"one source index per output row and column and tap",
       [](Model& m) { m.layers[2].as<ResizeParams>().col_index.pop_back(); }},
      {"reads a row or column outside its input",
       [](Model& m) { m.layers[2].as<ResizeParams>().col_index[7] = 2; }},
      {"has 11 weights, not 12", [](Model& m) { m.layers[2].weights.pop_back(); }},
      {"its result format is not its quantizer's",
       [](Model& m) { m.layers[3].as<QuantizeParams>().format.width = 10; }},
      {"its clamp is not a range of its format",
       [](Model& m) { m.layers[3].as<QuantizeParams>().min_raw = -300; }},
      {"is bipolar but does not output -1 and +1",
       [](Model& m) { m.layers[3].as<QuantizeParams>().bipolar = true; }},
      {"changes the shape",
       [](Model& m) {
         m.tensors[3].shape = {4, 4};
       }},
  };
  expect_each_rule_fails(good, cases);
}

// A GRU over 3 steps of 2 inputs, hidden size 1: 3 gates, (2 + 1) * 3
// weights, 2 * 3 biases.
constexpr const char* kRecurrent = R"(
model "g" {io_type=io_stream}
%x: ap_fixed<16,6>[3x2] = Input() @x "x"
%h: ap_fixed<16,6>[1x1] = Recurrent(%x) {cell=GRU steps=3 n_in=2 hidden=1 sequences=false} @gru constants {weights=[1,2,3,4,5,6,7,8,9] bias=[1,2,3,4,5,6]}
input %x "x": [1x3x2] perm=[0,1]
output %h "h": [1x1] perm=[0,1]
)";

TEST(VerifyModel, EachRecurrentRuleFailsOnItsOwn) {
  const Model good = testing::parse(kRecurrent);
  verify_model(good, "test");
  const Broken cases[] = {
      {"has an empty dimension", [](Model& m) { m.layers[1].as<RecurrentParams>().hidden = 0; }},
      {"its input and output sizes do not match steps, n_in and hidden",
       [](Model& m) { m.layers[1].as<RecurrentParams>().sequences = true; }},
      {"its input or output is not one vector per step",
       [](Model& m) {
         m.tensors[0].shape = {2, 3};
       }},
      {"has 8 weights, not 9", [](Model& m) { m.layers[1].weights.pop_back(); }},
      {"has 5 biases, not 6", [](Model& m) { m.layers[1].bias.pop_back(); }},
      {"reuse factor 2, which is not valid", [](Model& m) { m.layers[1].reuse_factor = 2; }},
  };
  expect_each_rule_fails(good, cases);
}

constexpr const char* kGates = R"(
model "g" {io_type=io_stream}
%x: ap_fixed<16,6>[3x4x2] = Input() @x "x"
%c: ap_fixed<16,6>[1x1x2] = Input() @c "c"
%p: ap_fixed<16,6>[3x4x1] = Input() @p "p"
%y: ap_fixed<16,6>[3x4x2] = Binary(%x, %c) {op=Mul n=24 channels=2 broadcast=PerChannel} @se
%z: ap_fixed<16,6>[3x4x2] = Binary(%y, %p) {op=ReverseSub n=24 channels=2 broadcast=PerPixel} @sa
input %x "x": [1x2x3x4] perm=[1,2,0]
input %c "c": [1x2x1x1] perm=[1,2,0]
input %p "p": [1x1x3x4] perm=[1,2,0]
output %z "z": [1x2x3x4] perm=[1,2,0]
)";

TEST(VerifyModel, EachBinaryRuleFailsOnItsOwn) {
  const Model good = testing::parse(kGates);
  verify_model(good, "test");
  const Broken cases[] = {
      {"n is not the size of its first operand and output",
       [](Model& m) { m.layers[3].as<BinaryParams>().n = 12; }},
      {"n is not the size of its first operand and output",
       [](Model& m) { std::swap(m.layers[3].inputs[0], m.layers[3].inputs[1]); }},
      {"channels is not its output's last axis",
       [](Model& m) { m.layers[3].as<BinaryParams>().channels = 1; }},
      {"its second operand is not shaped as broadcast=PerPixel says",
       [](Model& m) { m.layers[3].as<BinaryParams>().broadcast = BinaryBroadcast::PerPixel; }},
      {"its second operand is not shaped as broadcast=None says",
       [](Model& m) { m.layers[4].as<BinaryParams>().broadcast = BinaryBroadcast::None; }},
      {"its second operand is not shaped as broadcast=PerChannel says",
       [](Model& m) { m.layers[4].as<BinaryParams>().broadcast = BinaryBroadcast::PerChannel; }},
  };
  expect_each_rule_fails(good, cases);
}

}  // namespace
}  // namespace kiln::hls
