// channels_last as IR text in, IR text out.
#include "kiln/passes/channels_last.h"

#include "kiln/passes/testing/pass_testing.h"

namespace kiln::passes {
namespace {

using testing::expect_passes;
using testing::expect_unchanged;

TEST(ChannelsLast, ConvReluPoolRegionGetsTransposesAtItsEdges) {
  // The graph output keeps its value and its layout; run again, the pass
  // sees a converted graph and changes nothing.
  const std::string in = R"(
input %x: float32[1x2x6x6]
const %w: float32[3x2x1x1] = [1,-1,0.5,2,-2,0.25]
const %b: float32[3] = [0.1,0,-0.1]
%c = Conv(%x, %w, %b) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1]} @conv
%r = Relu(%c) @relu
%y = MaxPool(%r) {kernel_shape=[2,2] strides=[2,2] pads=[0,0,0,0] dilations=[1,1]} @pool
output %y
)";
  const std::string out = R"(
input %x: float32[1x2x6x6]
const %w: float32[3x2x1x1] = [1,-1,0.5,2,-2,0.25]
const %b: float32[3] = [0.1,0,-0.1]
%x_cl: float32[1x6x6x2] = Transpose(%x) {perm=[0,2,3,1]} @Transpose
%c_cl: float32[1x6x6x3] = Conv(%x_cl, %w, %b) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1] channels_last=true} @conv
%r_cl: float32[1x6x6x3] = Relu(%c_cl) @relu
%y_cl: float32[1x3x3x3] = MaxPool(%r_cl) {kernel_shape=[2,2] strides=[2,2] pads=[0,0,0,0] dilations=[1,1] channels_last=true} @pool
%y: float32[1x3x3x3] = Transpose(%y_cl) {perm=[0,3,1,2]} @Transpose_2
output %y
)";
  expect_passes("channels_last", in, out);
  expect_passes("channels_last,channels_last", in, out);
}

TEST(ChannelsLast, OneDimensionalConvUsesPerm021) {
  expect_passes("channels_last", R"(
input %x: float32[2x3x7]
const %w: float32[2x3x1] = [1,2,3,-1,-2,-3]
const %gamma: float32[2] = [1,2]
const %beta: float32[2] = [0,1]
const %mean: float32[2] = [0.5,0]
const %variance: float32[2] = [1,2]
%c = Conv(%x, %w) {kernel_shape=[1] strides=[1] pads=[0,0] dilations=[1]} @conv
%y = BatchNormalization(%c, %gamma, %beta, %mean, %variance) @bn
output %y
)",
                R"(
input %x: float32[2x3x7]
const %w: float32[2x3x1] = [1,2,3,-1,-2,-3]
const %gamma: float32[2] = [1,2]
const %beta: float32[2] = [0,1]
const %mean: float32[2] = [0.5,0]
const %variance: float32[2] = [1,2]
%x_cl: float32[2x7x3] = Transpose(%x) {perm=[0,2,1]} @Transpose
%c_cl: float32[2x7x2] = Conv(%x_cl, %w) {kernel_shape=[1] strides=[1] pads=[0,0] dilations=[1] channels_last=true} @conv
%y_cl: float32[2x7x2] = BatchNormalization(%c_cl, %gamma, %beta, %mean, %variance) {channels_last=true} @bn
%y: float32[2x2x7] = Transpose(%y_cl) {perm=[0,2,1]} @Transpose_2
output %y
)");
}

TEST(ChannelsLast, FlattenIntoDensePermutesWeightRowsByHand) {
  // NCHW rows are (c0,s0) (c0,s1) (c1,s0) (c1,s1); NHWC order is (s0,c0)
  // (s0,c1) (s1,c0) (s1,c1), i.e. old rows 0, 2, 1, 3: [10,30,20,40]. No
  // transpose back: the Flatten relabels the channels-last tensor.
  expect_passes("channels_last", R"(
input %x: float32[1x2x1x2]
const %eye: float32[2x2x1x1] = [1,0,0,1]
const %w: float32[4x1] = [10,20,30,40]
const %b: float32[1] = [0]
%c = Conv(%x, %eye) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1]} @conv
%f = Flatten(%c) @flat
%y = Dense(%f, %w, %b) @fc
output %y
)",
                R"(
input %x: float32[1x2x1x2]
const %eye: float32[2x2x1x1] = [1,0,0,1]
const %b: float32[1] = [0]
const %w_cl: float32[4x1] = [10,30,20,40]
%x_cl: float32[1x1x2x2] = Transpose(%x) {perm=[0,2,3,1]} @Transpose
%c_cl: float32[1x1x2x2] = Conv(%x_cl, %eye) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1] channels_last=true} @conv
%f: float32[1x4] = Flatten(%c_cl) @flat
%y: float32[1x1] = Dense(%f, %w_cl, %b) @fc
output %y
)");
}

TEST(ChannelsLast, FlattenWithAnotherReaderTransposesBack) {
  const testing::PassOutcome r = testing::run_passes("channels_last", R"(
input %x: float32[1x2x3x3]
const %eye: float32[2x2x1x1] = [1,0,0,1]
const %w: float32[18x1] = [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18]
const %b: float32[1] = [0]
%c = Conv(%x, %eye) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1]} @conv
%f = Flatten(%c) @flat
%y = Dense(%f, %w, %b) @fc
output %y
output %f
)");
  EXPECT_TRUE(r.changed);
  // In, and back out before the Flatten; the Dense weights keep their order.
  EXPECT_NE(r.text.find("%c: float32[1x2x3x3] = Transpose(%c_cl) {perm=[0,3,1,2]}"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("= Dense(%f, %w, %b)"), std::string::npos) << r.text;
}

TEST(ChannelsLast, DepthwiseAddConcatPadGlobalPoolJoin) {
  expect_passes("channels_last", R"(
input %x: float32[2x3x5x5]
const %dw: float32[3x1x1x1] = [1,2,3]
const %w: float32[3x3x1x1] = [1,0,0,0,1,0,0,0,1]
%c1 = Conv(%x, %dw) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1] group=3} @depthwise
%c2 = Conv(%x, %w) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1]} @pointwise
%s = Add(%c1, %c2) @add
%cat = Concat(%s, %c1) {axis=1} @concat
%sig = Sigmoid(%cat) @sigmoid
%p = Pad(%sig) {pads=[0,0,1,2,0,0,2,1]} @pad
%g = GlobalAveragePool(%p) @gap
%y = Flatten(%g) @flat
output %y
)",
                R"(
input %x: float32[2x3x5x5]
const %dw: float32[3x1x1x1] = [1,2,3]
const %w: float32[3x3x1x1] = [1,0,0,0,1,0,0,0,1]
%x_cl: float32[2x5x5x3] = Transpose(%x) {perm=[0,2,3,1]} @Transpose
%c1_cl: float32[2x5x5x3] = Conv(%x_cl, %dw) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1] group=3 channels_last=true} @depthwise
%c2_cl: float32[2x5x5x3] = Conv(%x_cl, %w) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1] channels_last=true} @pointwise
%s_cl: float32[2x5x5x3] = Add(%c1_cl, %c2_cl) @add
%cat_cl: float32[2x5x5x6] = Concat(%s_cl, %c1_cl) {axis=3} @concat
%sig_cl: float32[2x5x5x6] = Sigmoid(%cat_cl) @sigmoid
%p_cl: float32[2x8x8x6] = Pad(%sig_cl) {pads=[0,1,2,0,0,2,1,0] channels_last=true} @pad
%g_cl: float32[2x1x1x6] = GlobalAveragePool(%p_cl) {channels_last=true} @gap
%g: float32[2x6x1x1] = Transpose(%g_cl) {perm=[0,3,1,2]} @Transpose_2
%y: float32[2x6] = Flatten(%g) @flat
output %y
)");
}

TEST(ChannelsLast, SplitAndSliceJoinResizeAnchorsByPermutedAttributes) {
  expect_passes("channels_last", R"(
input %x: float32[1x2x4x4]
const %w: float32[4x2x1x1] = [1,-1,0.5,2,-2,0.25,1,1]
%c = Conv(%x, %w) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1]} @conv
%a, %b = Split(%c) {axis=1 split=[1,3]} @split
%s = Slice(%b) {starts=[0,1,0,1] ends=[1,3,4,4] steps=[1,1,2,1]} @slice
%u = Resize(%s) {mode=nearest coord=asymmetric nearest=floor sizes=[1,2,4,6] scales=[1,1,2,2]} @up
output %a
output %u
)",
                R"(
input %x: float32[1x2x4x4]
const %w: float32[4x2x1x1] = [1,-1,0.5,2,-2,0.25,1,1]
%x_cl: float32[1x4x4x2] = Transpose(%x) {perm=[0,2,3,1]} @Transpose
%c_cl: float32[1x4x4x4] = Conv(%x_cl, %w) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1] channels_last=true} @conv
%a_cl: float32[1x4x4x1], %b_cl: float32[1x4x4x3] = Split(%c_cl) {axis=3 split=[1,3]} @split
%s_cl: float32[1x2x3x2] = Slice(%b_cl) {starts=[0,0,1,1] ends=[1,4,4,3] steps=[1,2,1,1]} @slice
%u_cl: float32[1x4x6x2] = Resize(%s_cl) {coord=asymmetric nearest=floor sizes=[1,4,6,2] scales=[1,2,2,1]} @up
%a: float32[1x1x4x4] = Transpose(%a_cl) {perm=[0,3,1,2]} @Transpose_2
%u: float32[1x2x4x6] = Transpose(%u_cl) {perm=[0,3,1,2]} @Transpose_3
output %a
output %u
)");
}

TEST(ChannelsLast, MixedAddTransposesBack) {
  const testing::PassOutcome r = testing::run_passes("channels_last", R"(
input %x: float32[1x2x4x4]
const %w: float32[2x2x1x1] = [1,2,3,4]
%c = Conv(%x, %w) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1]} @conv
%y = Add(%c, %x) @add
output %y
)");
  EXPECT_TRUE(r.changed);
  EXPECT_NE(r.text.find("%c: float32[1x2x4x4] = Transpose(%c_cl) {perm=[0,3,1,2]}"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("= Add(%c, %x)"), std::string::npos) << r.text;
}

TEST(ChannelsLast, SqueezeExcitationGateJoins) {
  // x * hardsigmoid(conv(global_avg_pool(x))): the [N, C, 1, 1] gate is a
  // region value too, [N, 1, 1, C] channels-last.
  expect_passes("channels_last", R"(
input %x: float32[1x2x3x3]
const %w: float32[2x2x1x1] = [1,-1,0.5,2]
%c = Conv(%x, %w) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1]} @conv
%g = GlobalAveragePool(%c) @gap
%e = Conv(%g, %w) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1]} @fc
%s = HardSigmoid(%e) @gate
%y = Mul(%c, %s) @scale
output %y
)",
                R"(
input %x: float32[1x2x3x3]
const %w: float32[2x2x1x1] = [1,-1,0.5,2]
%x_cl: float32[1x3x3x2] = Transpose(%x) {perm=[0,2,3,1]} @Transpose
%c_cl: float32[1x3x3x2] = Conv(%x_cl, %w) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1] channels_last=true} @conv
%g_cl: float32[1x1x1x2] = GlobalAveragePool(%c_cl) {channels_last=true} @gap
%e_cl: float32[1x1x1x2] = Conv(%g_cl, %w) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1] channels_last=true} @fc
%s_cl: float32[1x1x1x2] = HardSigmoid(%e_cl) @gate
%y_cl: float32[1x3x3x2] = Mul(%c_cl, %s_cl) @scale
%y: float32[1x2x3x3] = Transpose(%y_cl) {perm=[0,3,1,2]} @Transpose_2
output %y
)");
}

TEST(ChannelsLast, GateFromOutsideTheRegionJoinsTransposed) {
  // A per-pixel gate that is an input of the graph: transposed into the
  // region rather than the map transposed out of it.
  expect_passes("channels_last", R"(
input %x: float32[1x2x3x3]
input %p: float32[1x1x3x3]
const %w: float32[2x2x1x1] = [1,-1,0.5,2]
%c = Conv(%x, %w) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1]} @conv
%y = Sub(%p, %c) @sub
output %y
)",
                R"(
input %x: float32[1x2x3x3]
input %p: float32[1x1x3x3]
const %w: float32[2x2x1x1] = [1,-1,0.5,2]
%x_cl: float32[1x3x3x2] = Transpose(%x) {perm=[0,2,3,1]} @Transpose
%c_cl: float32[1x3x3x2] = Conv(%x_cl, %w) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1] channels_last=true} @conv
%p_cl: float32[1x3x3x1] = Transpose(%p) {perm=[0,2,3,1]} @Transpose_2
%y_cl: float32[1x3x3x2] = Sub(%p_cl, %c_cl) @sub
%y: float32[1x2x3x3] = Transpose(%y_cl) {perm=[0,3,1,2]} @Transpose_3
output %y
)");
}

TEST(ChannelsLast, GraphWithoutSpatialOpsIsUnchanged) {
  expect_unchanged("channels_last", R"(
input %x: float32[1x2x4x4]
%y = Relu(%x) @relu
output %y
)");
}

}  // namespace
}  // namespace kiln::passes
