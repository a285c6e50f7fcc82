// Hand cases of the Slice and Resize emulator kernels.
#include <gtest/gtest.h>

#include "kiln/hls/emulate/emulator.h"

namespace kiln::hls {
namespace {

const FixedType kQ4{8, 4};  // raw / 16

FixedTensor run(const Layer& layer, const FixedTensor& x, std::vector<int64_t> out_shape,
                const FixedType& out_type = kQ4) {
  FixedTensor out{out_type, std::move(out_shape), {}};
  emulate_layer(layer, {&x}, {&out});
  return out;
}

Layer layer(LayerParams p) {
  Layer l;
  l.name = l.onnx_name = "r";
  l.params = std::move(p);
  return l;
}

TEST(EmulateSlice, ChannelsAndStridedRows) {
  // [3 rows][2 cols][4 channels], value = 10 * row + 4 * col + channel... as raw.
  std::vector<int64_t> raw;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 2; ++c)
      for (int ch = 0; ch < 4; ++ch) raw.push_back(20 * r + 4 * c + ch);
  const FixedTensor x{kQ4, {3, 2, 4}, raw};
  // Rows 0 and 2, both columns, channels 1 and 3.
  const FixedTensor y = run(layer(SliceParams{{0, 0, 1}, {2, 1, 2}}), x, {2, 2, 2});
  EXPECT_EQ(y.raw, (std::vector<int64_t>{1, 3, 5, 7, 41, 43, 45, 47}));
}

TEST(EmulateSlice, AssignsToTheOutputType) {
  const FixedTensor x{kQ4, {3}, {-24, 8, 72}};  // -1.5, 0.5, 4.5
  // ufixed<4,2> saturating: -1.5 -> 0, 4.5 -> 3.75 max (raw 15).
  const FixedType u{4, 2, false, numeric::QuantMode::Trn, numeric::OverflowMode::Sat};
  EXPECT_EQ(run(layer(SliceParams{{0}, {2}}), x, {2}, u).raw, (std::vector<int64_t>{0, 15}));
}

ResizeParams resize_1d(ResizeKind mode, int64_t in_w, int64_t out_w, std::vector<int64_t> cols) {
  ResizeParams p;
  p.mode = mode;
  p.dims = 1;
  p.in_w = in_w;
  p.out_w = out_w;
  p.channels = 1;
  p.row_index.assign(static_cast<std::size_t>(p.taps()), 0);
  p.col_index = std::move(cols);
  return p;
}

TEST(EmulateResize, NearestRepeats) {
  const FixedTensor x{kQ4, {2, 1}, {16, -8}};
  const Layer l = layer(resize_1d(ResizeKind::Nearest, 2, 4, {0, 0, 1, 1}));
  EXPECT_EQ(run(l, x, {4, 1}).raw, (std::vector<int64_t>{16, 16, -8, -8}));
}

TEST(EmulateResize, LinearWeighsRowsThenColumns) {
  // 1-D half-pixel 2x upsampling of [1, -0.5]: taps (0,0 | 1,0), (0,1 | .75,.25),
  // (0,1 | .25,.75), (1,1 | 1,0) -> 1, 0.625, -0.125, -0.5.
  const FixedTensor x{kQ4, {2, 1}, {16, -8}};
  Layer l = layer(resize_1d(ResizeKind::Linear, 2, 4, {0, 0, 0, 1, 0, 1, 1, 1}));
  const FixedType w{8, 2};  // raw / 64
  l.precision.weight = w;
  l.precision.accum = FixedType{16, 6};
  // Rows: one row, weights 1 and 0; columns as above.
  l.weights = {64, 0, 64, 0, 48, 16, 16, 48, 64, 0};
  EXPECT_EQ(run(l, x, {4, 1}).raw, (std::vector<int64_t>{16, 10, -2, -8}));
  // An accumulator of one fraction bit truncates each column's value first:
  // 1 stays 1, -0.5 stays -0.5; with a result of 1 fraction bit, 0.625 -> 0.5.
  l.precision.accum = FixedType{8, 7};
  EXPECT_EQ(run(l, x, {4, 1}, FixedType{8, 7}).raw, (std::vector<int64_t>{2, 1, -1, -1}));
}

TEST(EmulateZeroPad, StridesSpreadTheInput) {
  // 1-D [2 px][1 ch] = 1, -0.5 with stride 3, one zero before, two after:
  // 0, 1, 0, 0, -0.5, 0, 0.
  ZeroPadParams p;
  p.dims = 1;
  p.in_w = 2;
  p.channels = 1;
  p.stride_w = 3;
  p.pad_left = 1;
  p.pad_right = 2;
  const FixedTensor x{kQ4, {2, 1}, {16, -8}};
  EXPECT_EQ(run(layer(p), x, {7, 1}).raw, (std::vector<int64_t>{0, 16, 0, 0, -8, 0, 0}));
}

}  // namespace
}  // namespace kiln::hls
