// Numbers derived from layers, by hand: reuse factors, multipliers, the
// stream FIFOs and window buffers (the TargetCycles rule is tested with its
// pass, layer_passes/reuse_from_target_cycles_test.cpp).
#include "kiln/hls/derived.h"

#include <gtest/gtest.h>

namespace kiln::hls {
namespace {

Layer dense(int64_t n_in, int64_t n_out, int64_t rf) {
  Layer l;
  l.params = DenseParams{n_in, n_out, {}};
  l.reuse_factor = rf;
  return l;
}

TEST(Derived, ValidReuseFactorsAreTheDivisors) {
  EXPECT_EQ(valid_reuse_factors(dense(3, 4, 1)), (std::vector<int64_t>{1, 2, 3, 4, 6, 12}));
  EXPECT_EQ(valid_reuse_factors(dense(7, 1, 1)), (std::vector<int64_t>{1, 7}));
  Layer relu;
  relu.params = ActivationParams{8, 8, {ActKind::Relu, 0, 0}};
  EXPECT_EQ(valid_reuse_factors(relu), (std::vector<int64_t>{1}));
  // Depthwise: 3*3 products per channel, 2 channels = 18.
  Layer dw;
  ConvParams cp;
  cp.kernel_h = cp.kernel_w = 3;
  cp.c_in = cp.c_out = cp.groups = 2;
  dw.params = cp;
  EXPECT_EQ(valid_reuse_factors(dw), (std::vector<int64_t>{1, 2, 3, 6, 9, 18}));
  // MatMul: k * n products per output row.
  Layer mm;
  mm.params = MatMulParams{1, 5, 2, 5};
  EXPECT_EQ(valid_reuse_factors(mm), (std::vector<int64_t>{1, 2, 5, 10}));
}

TEST(Derived, BlockFactorIsTheMultiplierCount) {
  EXPECT_EQ(block_factor(dense(16, 8, 4)), 32);
  EXPECT_EQ(block_factor(dense(16, 8, 1)), 128);
  EXPECT_EQ(block_factor(dense(75, 8, 37)), 17);     // 600 / 37 = 16.2 -> 17
  EXPECT_EQ(block_factor(dense(16, 8, 100000)), 1);  // RF capped at n_in * n_out
  EXPECT_EQ(block_factor(dense(0, 8, 4)), 0);
  Layer conv;
  ConvParams p;
  p.kernel_h = p.kernel_w = 3;
  p.c_in = p.c_out = p.groups = 4;  // depthwise: 9 products per output channel
  conv.params = p;
  conv.reuse_factor = 3;
  EXPECT_EQ(block_factor(conv), 9 * 4 / 3);
}

TEST(Derived, StreamFifosHoldOneImage) {
  const TensorInfo map{"m", {5, 6, 3}, {}};
  EXPECT_EQ(stream_width(map), 3);
  EXPECT_EQ(stream_elements(map), 30);
  EXPECT_EQ(stream_fifo_depth(map), 30);
  const TensorInfo scalar{"s", {}, {}};
  EXPECT_EQ(stream_width(scalar), 1);
  EXPECT_EQ(stream_fifo_depth(scalar), 1);
}

Model conv_model(int64_t k, int64_t pad, ConvImpl impl) {
  Model m;
  m.io_type = IOType::Stream;
  const int64_t out = 16 + 2 * pad - k + 1;
  m.tensors = {{"x", {16, 16, 3}, {}}, {"y", {out, out, 4}, {}}};
  Layer l;
  ConvParams p;
  p.in_h = p.in_w = 16, p.c_in = 3, p.out_h = p.out_w = out, p.c_out = 4;
  p.kernel_h = p.kernel_w = k;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = pad;
  l.params = p;
  l.conv_impl = impl;
  l.inputs = {0};
  l.outputs = {1};
  m.layers = {l};
  return m;
}

TEST(Derived, WindowBuffers) {
  // Line buffer: kernel_h - 1 rows per channel, one padded row deep.
  Model lb = conv_model(5, 2, ConvImpl::LineBuffer);
  WindowBuffer b = window_buffer(lb, lb.layers[0]);
  EXPECT_EQ(b.kind, WindowKind::LineBuffer);
  EXPECT_EQ(b.count, 4 * 3);
  EXPECT_EQ(b.depth, 20);
  EXPECT_EQ(b.width, 16);
  // Encoded: a FIFO per window position and channel, as deep as the
  // encoded table's largest occupancy.
  Model enc = conv_model(5, 2, ConvImpl::Encoded);
  b = window_buffer(enc, enc.layers[0]);
  EXPECT_EQ(b.kind, WindowKind::Encoded);
  EXPECT_EQ(b.count, 25 * 3);
  EXPECT_EQ(b.depth, encoded_table(enc.layers[0].as<ConvParams>()).stream_depth);
  // io_parallel keeps whole arrays: no window buffer.
  enc.io_type = IOType::Parallel;
  EXPECT_EQ(window_buffer(enc, enc.layers[0]).kind, WindowKind::None);
}

}  // namespace
}  // namespace kiln::hls
