// Hand-computed cases for Split, Expand, Tile, ConstantOfShape, Range, Size,
// CastLike, EyeLike, Trilu, DepthToSpace, SpaceToDepth, GatherElements, CumSum
// and OneHot.
#include "kiln/ref/testing/ref_testing.h"

namespace kiln::ref {
namespace {

using testing::eval;
using testing::eval1;
using testing::expect_values;
using testing::F;
using testing::FT;
using testing::make_node;

template <class T>
TensorType TT(Shape s) {
  return TensorType{dtype_of<T>(), std::move(s)};
}

Tensor iota_f(Shape s) {
  std::vector<float> v;
  for (int64_t i = 0; i < shape_numel(s); ++i) v.push_back(static_cast<float>(i));
  return F(s, v);
}

TEST(Split, UnequalPartsAlongInnerAxis) {
  // x = [[0..4], [5..9]] split along axis 1 into 2 and 3 columns.
  const Tensor x = iota_f({2, 5});
  const auto ys = eval(make_node(OpKind::Split, 1, SplitAttrs{1, {2, 3}}, {true, true}), {&x},
                       {FT({2, 2}), FT({2, 3})});
  expect_values(ys[0], {2, 2}, {0, 1, 5, 6});
  expect_values(ys[1], {2, 3}, {2, 3, 4, 7, 8, 9});
}

TEST(Expand, BroadcastsToTheTarget) {
  const Tensor x = F({3, 1}, {1, 2, 3});
  expect_values(eval1(OpKind::Expand, {&x}, FT({2, 3, 2}), ExpandAttrs{{2, 3, 2}}), {2, 3, 2},
                {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
}

TEST(Tile, RepeatsEachDimension) {
  const Tensor x = F({2, 2}, {1, 2, 3, 4});
  expect_values(eval1(OpKind::Tile, {&x}, FT({2, 4}), TileAttrs{{1, 2}}), {2, 4},
                {1, 2, 1, 2, 3, 4, 3, 4});
  expect_values(eval1(OpKind::Tile, {&x}, FT({4, 2}), TileAttrs{{2, 1}}), {4, 2},
                {1, 2, 3, 4, 1, 2, 3, 4});
}

TEST(ConstantOfShapeAndRange, NoInputs) {
  ConstantOfShapeAttrs c;
  c.shape = {2, 2};
  c.dtype = DType::Int32;
  c.value = 7;
  expect_values(eval1(OpKind::ConstantOfShape, {}, TT<int32_t>({2, 2}), c), {2, 2}, {7, 7, 7, 7});
  // Range(10, 4, -3) = [10, 7] (ceil((4 - 10) / -3) = 2 elements).
  expect_values(eval1(OpKind::Range, {}, TT<int32_t>({2}), RangeAttrs{10, 4, -3, DType::Int32}),
                {2}, {10, 7});
  expect_values(eval1(OpKind::Range, {}, FT({3}), RangeAttrs{1, 2, 0.4, DType::Float32}), {3},
                {1, 1.4, 1.8});
}

// CastLike is imported as a Cast (onnx/import_test.cpp); Size counts elements.
TEST(Size, Basics) {
  const Tensor x = iota_f({2, 3});
  expect_values(eval1(OpKind::Size, {&x}, TT<int64_t>({})), {}, {6});
}

TEST(EyeLikeAndTrilu, Diagonals) {
  const Tensor x = iota_f({3, 4});
  expect_values(eval1(OpKind::EyeLike, {&x}, FT({3, 4}), EyeLikeAttrs{1, DType::Float32}), {3, 4},
                {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
  // x = [[0 1 2 3] [4 5 6 7] [8 9 10 11]].
  expect_values(eval1(OpKind::Trilu, {&x}, FT({3, 4}), TriluAttrs{true, 1}), {3, 4},
                {0, 1, 2, 3, 0, 0, 6, 7, 0, 0, 0, 11});
  expect_values(eval1(OpKind::Trilu, {&x}, FT({3, 4}), TriluAttrs{false, -1}), {3, 4},
                {0, 0, 0, 0, 4, 0, 0, 0, 8, 9, 0, 0});
}

TEST(DepthToSpace, DcrAndCrdOrders) {
  // x [1, 4, 1, 1] = channels 0..3, blocksize 2 -> [1, 1, 2, 2].
  // DCR: channel = (bh * 2 + bw) * C' + c, so out[bh][bw] = bh * 2 + bw.
  // CRD: channel = c * 4 + bh * 2 + bw: the same for C' = 1.
  const Tensor x = iota_f({1, 4, 1, 1});
  expect_values(eval1(OpKind::DepthToSpace, {&x}, FT({1, 1, 2, 2}), BlockAttrs{2, false}),
                {1, 1, 2, 2}, {0, 1, 2, 3});
  // With C' = 2 (8 channels) the orders differ: DCR out[c][bh][bw] = x[(bh*2+bw)*2 + c],
  // CRD out[c][bh][bw] = x[c*4 + bh*2 + bw].
  const Tensor y = iota_f({1, 8, 1, 1});
  expect_values(eval1(OpKind::DepthToSpace, {&y}, FT({1, 2, 2, 2}), BlockAttrs{2, false}),
                {1, 2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7});
  expect_values(eval1(OpKind::DepthToSpace, {&y}, FT({1, 2, 2, 2}), BlockAttrs{2, true}),
                {1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
}

TEST(SpaceToDepth, InverseOfDcr) {
  // x [1, 1, 2, 4]: rows [0 1 2 3], [4 5 6 7]; blocksize 2 -> [1, 4, 1, 2],
  // out channel bh*2 + bw holds x[bh][2w + bw].
  const Tensor x = iota_f({1, 1, 2, 4});
  expect_values(eval1(OpKind::SpaceToDepth, {&x}, FT({1, 4, 1, 2}), BlockAttrs{2, false}),
                {1, 4, 1, 2}, {0, 2, 1, 3, 4, 6, 5, 7});
}

TEST(GatherElements, AlongEachAxis) {
  const Tensor x = F({2, 2}, {1, 2, 3, 4});
  const Tensor idx = Tensor::from_vector<int64_t>({2, 2}, {0, 0, 1, 0});
  // axis 1: out[i][j] = x[i][idx[i][j]].
  expect_values(eval1(OpKind::GatherElements, {&x, &idx}, FT({2, 2}), GatherAttrs{1}), {2, 2},
                {1, 1, 4, 3});
  // axis 0: out[i][j] = x[idx[i][j]][j]; negative indices count from the end.
  const Tensor neg = Tensor::from_vector<int32_t>({1, 2}, {-1, 0});
  expect_values(eval1(OpKind::GatherElements, {&x, &neg}, FT({1, 2}), GatherAttrs{0}), {1, 2},
                {3, 2});
  const Tensor bad = Tensor::from_vector<int64_t>({1, 2}, {2, 0});
  EXPECT_THROW(eval1(OpKind::GatherElements, {&x, &bad}, FT({1, 2}), GatherAttrs{0}), Error);
}

TEST(CumSum, ExclusiveAndReverse) {
  const Tensor x = F({4}, {1, 2, 3, 4});
  expect_values(eval1(OpKind::CumSum, {&x}, FT({4}), CumSumAttrs{0, false, false}), {4},
                {1, 3, 6, 10});
  expect_values(eval1(OpKind::CumSum, {&x}, FT({4}), CumSumAttrs{0, true, false}), {4},
                {0, 1, 3, 6});
  expect_values(eval1(OpKind::CumSum, {&x}, FT({4}), CumSumAttrs{0, false, true}), {4},
                {10, 9, 7, 4});
  expect_values(eval1(OpKind::CumSum, {&x}, FT({4}), CumSumAttrs{0, true, true}), {4},
                {9, 7, 4, 0});
  const Tensor m = Tensor::from_vector<int32_t>({2, 2}, {1, 2, 3, 4});
  expect_values(eval1(OpKind::CumSum, {&m}, TT<int32_t>({2, 2}), CumSumAttrs{0, false, false}),
                {2, 2}, {1, 2, 4, 6});
}

TEST(OneHot, AxisAndNegativeIndices) {
  const Tensor idx = Tensor::from_vector<int64_t>({3}, {0, -1, 5});
  const Tensor values = F({2}, {0, 9});
  // depth 3, axis -1 (here 1): rows one-hot; -1 -> 2; 5 is out of range -> all off.
  expect_values(eval1(OpKind::OneHot, {&idx, &values}, FT({3, 3}), OneHotAttrs{1, 3}), {3, 3},
                {9, 0, 0, 0, 0, 9, 0, 0, 0});
  // axis 0: the transpose.
  expect_values(eval1(OpKind::OneHot, {&idx, &values}, FT({3, 3}), OneHotAttrs{0, 3}), {3, 3},
                {9, 0, 0, 0, 0, 0, 0, 9, 0});
}

TEST(MaxUnpool, ScattersIntoTheUnpooledShape) {
  // 2x2 windows, stride 2 over a 4x4 original: indices 5, 7, 13, 15 are
  // (1,1), (1,3), (3,1), (3,3) of the 4x4.
  const Tensor x = F({1, 1, 2, 2}, {5, 6, 7, 8});
  const Tensor idx = Tensor::from_vector<int64_t>({1, 1, 2, 2}, {5, 7, 13, 15});
  MaxUnpoolAttrs a{{2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1, 4, 4}};
  expect_values(eval1(OpKind::MaxUnpool, {&x, &idx}, FT({1, 1, 4, 4}), a), {1, 1, 4, 4},
                {0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 7, 0, 8});
  // A larger output_shape keeps the 4x4 at its beginning and zero-fills the rest.
  a.output_shape = {1, 1, 5, 5};
  expect_values(eval1(OpKind::MaxUnpool, {&x, &idx}, FT({1, 1, 5, 5}), a), {1, 1, 5, 5},
                {0, 0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 0, 0, 7, 0, 8, 0, 0, 0, 0, 0, 0});
  const Tensor bad = Tensor::from_vector<int64_t>({1, 1, 2, 2}, {5, 7, 13, 16});
  a.output_shape = {1, 1, 4, 4};
  EXPECT_THROW(eval1(OpKind::MaxUnpool, {&x, &bad}, FT({1, 1, 4, 4}), a), Error);
}

}  // namespace
}  // namespace kiln::ref
