// fold_batchnorm as IR text in, IR text out; the folded constants are
// checked against values computed by hand.
#include "kiln/passes/fold_batchnorm.h"

#include "kiln/passes/testing/pass_testing.h"

namespace kiln::passes {
namespace {

using testing::expect_passes;
using testing::expect_unchanged;

// BN with gamma 3, beta 0.5, mean 1, var 3, eps 1: s = 3 / sqrt(4) = 1.5.
constexpr const char* kOneChannelBn = R"(
const %gamma: float32[1] = [3]
const %beta: float32[1] = [0.5]
const %mean: float32[1] = [1]
const %variance: float32[1] = [3]
)";

constexpr const char* kConv1x1 =
    "{kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1]}";

std::string conv_then_bn(const std::string& conv_inputs, const std::string& more = "") {
  return std::string(R"(
input %x: float32[1x1x3x3]
const %w: float32[1x1x1x1] = [2]
const %b: float32[1] = [1]
)") + kOneChannelBn +
         "%c = Conv(" + conv_inputs + ") " + kConv1x1 + " @conv\n" + more +
         "%y = BatchNormalization(%c, %gamma, %beta, %mean, %variance) {epsilon=1} @bn\n"
         "output %y\n";
}

TEST(FoldBatchNorm, OneChannelConvByHand) {
  // w' = 2 * 1.5 = 3; b' = (1 - 1) * 1.5 + 0.5 = 0.5.
  expect_passes("fold_batchnorm", conv_then_bn("%x, %w, %b"),
                std::string(R"(
input %x: float32[1x1x3x3]
const %conv_w_bn: float32[1x1x1x1] = [3]
const %conv_b_bn: float32[1] = [0.5]
%y: float32[1x1x3x3] = Conv(%x, %conv_w_bn, %conv_b_bn) )") +
                    kConv1x1 + R"( @conv
output %y
)");
}

TEST(FoldBatchNorm, ConvWithoutBias) {
  // b' = (0 - 1) * 1.5 + 0.5 = -1.
  expect_passes("fold_batchnorm", conv_then_bn("%x, %w"),
                std::string(R"(
input %x: float32[1x1x3x3]
const %conv_w_bn: float32[1x1x1x1] = [3]
const %conv_b_bn: float32[1] = [-1]
%y: float32[1x1x3x3] = Conv(%x, %conv_w_bn, %conv_b_bn) )") +
                    kConv1x1 + R"( @conv
output %y
)");
}

TEST(FoldBatchNorm, ConvOutputWithTwoUsesDoesNotFold) {
  expect_unchanged("fold_batchnorm", conv_then_bn("%x, %w", "%r = Relu(%c) @relu\noutput %r\n"));
}

TEST(FoldBatchNorm, BatchNormAfterReluStays) {
  expect_unchanged("fold_batchnorm", std::string(R"(
input %x: float32[1x1x3x3]
const %w: float32[1x1x1x1] = [2]
)") + kOneChannelBn + "%c = Conv(%x, %w) " +
                                         kConv1x1 + R"( @conv
%r = Relu(%c) @relu
%y = BatchNormalization(%r, %gamma, %beta, %mean, %variance) {epsilon=1} @bn
output %y
)");
}

TEST(FoldBatchNorm, DenseColumnsByHand) {
  // W [K=2, N=2] = [[1, 2], [3, 4]], bias [10, 20]; eps 1; channel 0: gamma 2,
  // var 3; channel 1: gamma 8, var 15. s = [2 / 2, 8 / 4] = [1, 2]: column 1
  // doubles; b' = [(10 - 4) * 1 + 1, (20 - 5) * 2 - 1] = [7, 29].
  expect_passes("fold_batchnorm", R"(
input %x: float32[3x2]
const %w: float32[2x2] = [1,2,3,4]
const %b: float32[2] = [10,20]
const %gamma: float32[2] = [2,8]
const %beta: float32[2] = [1,-1]
const %mean: float32[2] = [4,5]
const %variance: float32[2] = [3,15]
%d = Dense(%x, %w, %b) @fc
%y = BatchNormalization(%d, %gamma, %beta, %mean, %variance) {epsilon=1} @bn
output %y
)",
                R"(
input %x: float32[3x2]
const %fc_w_bn: float32[2x2] = [1,4,3,8]
const %fc_b_bn: float32[2] = [7,29]
%y: float32[3x2] = Dense(%x, %fc_w_bn, %fc_b_bn) @fc
output %y
)");
}

TEST(FoldBatchNorm, MultiChannelStridedConvKeepsOutputs) {
  // Three channels, stride 2, padding: the interpreter's outputs before and
  // after are compared by run_passes.
  const testing::PassOutcome r = testing::run_passes("fold_batchnorm", R"(
input %x: float32[2x2x5x5]
const %w: float32[3x2x3x3] = [-0.3,-0.2,-0.1,0,0.1,0.2,0.3,-0.3,-0.2,-0.1,0,0.1,0.2,0.3,-0.3,-0.2,-0.1,0,0.1,0.2,0.3,-0.3,-0.2,-0.1,0,0.1,0.2,0.3,-0.3,-0.2,-0.1,0,0.1,0.2,0.3,-0.3,-0.2,-0.1,0,0.1,0.2,0.3,-0.3,-0.2,-0.1,0,0.1,0.2,0.3,-0.3,-0.2,-0.1,0,0.1]
const %b: float32[3] = [1,2,3]
const %gamma: float32[3] = [0.5,2,-1]
const %beta: float32[3] = [0.1,0.2,0.3]
const %mean: float32[3] = [1,-1,0.5]
const %variance: float32[3] = [0.2,2,1]
%c = Conv(%x, %w, %b) {kernel_shape=[3,3] strides=[2,2] pads=[1,1,1,1] dilations=[1,1]} @conv
%y = BatchNormalization(%c, %gamma, %beta, %mean, %variance) @bn
output %y
)");
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.text.find("BatchNormalization"), std::string::npos) << r.text;
}

}  // namespace
}  // namespace kiln::passes

namespace kiln::passes {
namespace {

// Conv (w 2, b 1) -> * 1.5 -> + 0.5 -> 4 - x: every step folds.
//   * 1.5: w 3, b 1.5; + 0.5: b 2; 4 - x: w -3, b 2.
TEST(FoldConstantAffine, MulAddAndReversedSubFold) {
  testing::expect_passes("fold_batchnorm", std::string(R"(
input %x: float32[1x1x3x3]
const %w: float32[1x1x1x1] = [2]
const %b: float32[1] = [1]
const %k: float32[1x1x1x1] = [1.5]
const %h: float32[] = [0.5]
const %four: float32[1] = [4]
%c = Conv(%x, %w, %b) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1]} @conv
%m = Mul(%c, %k) @mul
%a = Add(%h, %m) @add
%y = Sub(%four, %a) @sub
output %y
)"),
                         R"(
input %x: float32[1x1x3x3]
const %conv_w_affine_3: float32[1x1x1x1] = [-3]
const %conv_b_affine_3: float32[1] = [2]
%y: float32[1x1x3x3] = Conv(%x, %conv_w_affine_3, %conv_b_affine_3) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1]} @conv
output %y
)");
}

// A constant that varies along another axis than the channels stays.
TEST(FoldConstantAffine, OtherAxesStay) {
  testing::expect_unchanged("fold_batchnorm", R"(
input %x: float32[1x1x3x3]
const %w: float32[1x1x1x1] = [2]
const %k: float32[3x1] = [1, 2, 3]
%c: float32[1x1x3x3] = Conv(%x, %w) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1]} @conv
%y: float32[1x1x3x3] = Mul(%c, %k) @mul
output %y
)");
}

}  // namespace
}  // namespace kiln::passes
