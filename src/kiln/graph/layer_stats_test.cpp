// Parameter and MAC counts, computed by hand from the layer shapes.
#include "kiln/graph/layer_stats.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

constexpr DType F32 = DType::Float32;

class LayerStatsTest : public ::testing::Test {
 protected:
  ValueId in(Shape s) { return g.add_value("x", TensorType{F32, std::move(s)}); }
  ValueId weight(Shape s) { return g.add_constant("w", Tensor(F32, std::move(s))); }
  LayerStats stats(OpKind kind, std::vector<ValueId> inputs, Attrs attrs = {}, int outputs = 1) {
    std::vector<ValueId> outs;
    for (int i = 0; i < outputs; ++i) outs.push_back(g.add_value("y", TensorType{}));
    const Node& n = g.add_node(kind, "n", std::move(inputs), std::move(outs), std::move(attrs));
    return layer_stats(g, n);
  }
  Graph g;
};

TEST_F(LayerStatsTest, Conv) {
  // W 16x3x3x3 = 432 + bias 16. Output 1x16x8x8 (pad 1); each of its 1024
  // elements sums 3 channels x 9 taps: 1024 * 27 = 27648.
  LayerStats s = stats(OpKind::Conv, {in({1, 3, 8, 8}), weight({16, 3, 3, 3}), weight({16})},
                       ConvAttrs{{3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1});
  EXPECT_EQ(s.params, 448);
  EXPECT_EQ(s.macs, 27648);
}

TEST_F(LayerStatsTest, DepthwiseConvWithStride) {
  // Output (10-3)/2+1 = 4: 2x8x4x4 = 256 elements, each 1 channel x 9 taps.
  LayerStats s = stats(OpKind::Conv, {in({2, 8, 10, 10}), weight({8, 1, 3, 3})},
                       ConvAttrs{{3, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 8});
  EXPECT_EQ(s.params, 72);
  EXPECT_EQ(s.macs, 2304);
}

TEST_F(LayerStatsTest, GroupedConv1D) {
  // X 1x4x10, W 6x2x3, group 2: output 1x6x8; each element 2 channels x 3 taps.
  LayerStats s =
      stats(OpKind::Conv, {in({1, 4, 10}), weight({6, 2, 3})}, ConvAttrs{{3}, {1}, {0, 0}, {1}, 2});
  EXPECT_EQ(s.params, 36);
  EXPECT_EQ(s.macs, 48 * 6);
}

TEST_F(LayerStatsTest, ConvTranspose) {
  // X 1x4x5x5, W 4x3x3x3 (C=4, M/group=3), group 1, stride 2: each of the
  // 100 input elements scatters into 3 channels x 9 taps = 27 MACs -> 2700.
  ConvTransposeAttrs a{{3, 3}, {2, 2}, {0, 0, 0, 0}, {0, 0}, {1, 1}, 1};
  LayerStats s =
      stats(OpKind::ConvTranspose, {in({1, 4, 5, 5}), weight({4, 3, 3, 3}), weight({3})}, a);
  EXPECT_EQ(s.params, 111);
  EXPECT_EQ(s.macs, 2700);
}

TEST_F(LayerStatsTest, Gemm) {
  GemmAttrs tb;
  tb.trans_b = true;
  // M=1, K=512, N=10; bias adds are not MACs.
  LayerStats s = stats(OpKind::Gemm, {in({1, 512}), weight({10, 512}), weight({10})}, tb);
  EXPECT_EQ(s.params, 5130);
  EXPECT_EQ(s.macs, 5120);
  GemmAttrs ta;
  ta.trans_a = true;
  // A 64x4 transposed: M=4, K=64; B 64x8 runtime: N=8.
  s = stats(OpKind::Gemm, {in({64, 4}), in({64, 8})}, ta);
  EXPECT_EQ(s.params, 0);
  EXPECT_EQ(s.macs, 4 * 8 * 64);
}

TEST_F(LayerStatsTest, MatMul) {
  // batch 2x5, M=4, N=6, K=3
  LayerStats s = stats(OpKind::MatMul, {in({2, 5, 4, 3}), weight({3, 6})});
  EXPECT_EQ(s.params, 18);
  EXPECT_EQ(s.macs, 2 * 5 * 4 * 6 * 3);
  // Broadcast batch [2,1] x [5] -> 10 batches.
  s = stats(OpKind::MatMul, {in({2, 1, 4, 3}), in({5, 3, 6})});
  EXPECT_EQ(s.macs, 10 * 4 * 6 * 3);
  s = stats(OpKind::MatMul, {in({3}), in({3, 4})});  // vector-matrix: N=4, K=3
  EXPECT_EQ(s.macs, 12);
  s = stats(OpKind::MatMul, {in({7}), in({7})});  // dot product
  EXPECT_EQ(s.macs, 7);
}

TEST_F(LayerStatsTest, OpsWithoutMacs) {
  ValueId x = in({1, 4, 6, 6});
  LayerStats bn = stats(OpKind::BatchNormalization,
                        {x, weight({4}), weight({4}), weight({4}), weight({4})}, BatchNormAttrs{});
  EXPECT_EQ(bn.params, 16);
  EXPECT_EQ(bn.macs, 0);
  LayerStats relu = stats(OpKind::Relu, {x});
  EXPECT_EQ(relu.params, 0);
  EXPECT_EQ(relu.macs, 0);
  LayerStats prelu = stats(OpKind::PRelu, {x, weight({4, 1, 1})});
  EXPECT_EQ(prelu.params, 4);
  EXPECT_EQ(prelu.macs, 0);
  PoolAttrs p;
  p.kernel_shape = {2, 2};
  p.strides = {2, 2};
  p.pads = {0, 0, 0, 0};
  p.dilations = {1, 1};
  EXPECT_EQ(stats(OpKind::MaxPool, {x}, p).macs, 0);
}

TEST_F(LayerStatsTest, ConstantUsedTwiceCountsOnce) {
  ValueId c = weight({10});
  LayerStats s = stats(OpKind::Add, {c, c});
  EXPECT_EQ(s.params, 10);
  EXPECT_EQ(s.macs, 0);
  s = stats(OpKind::Add, {in({10}), weight({1, 10})});
  EXPECT_EQ(s.params, 10);
}

TEST_F(LayerStatsTest, InconsistentNodeThrows) {
  EXPECT_THROW(stats(OpKind::MatMul, {in({2, 3}), in({4, 5})}), Error);
}

}  // namespace
}  // namespace kiln
