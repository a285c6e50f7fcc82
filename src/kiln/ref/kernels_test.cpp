// Hand-computed cases for the element-wise, activation, softmax, reduction,
// normalization and data-movement kernels (conv/pool/GEMM: conv_pool_test.cpp).
#include <cmath>
#include <limits>

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

// ---- broadcasting binary ops

TEST(Binary, OddShapesBroadcast) {
  // [2,1,3] + [4,1] -> [2,4,3]; a[i,0,k] = 10i + k, b[j,0] = 100j.
  std::vector<float> av, bv;
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 3; ++k) av.push_back(10.0f * i + k);
  for (int j = 0; j < 4; ++j) bv.push_back(100.0f * j);
  const Tensor a = F({2, 1, 3}, av), b = F({4, 1}, bv);
  std::vector<double> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k) want.push_back(10 * i + k + 100 * j);
  expect_values(eval1(OpKind::Add, {&a, &b}, FT({2, 4, 3})), {2, 4, 3}, want);
  // And the other operand order for a non-commutative op.
  std::vector<double> want_sub;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k) want_sub.push_back(100 * j - (10 * i + k));
  expect_values(eval1(OpKind::Sub, {&b, &a}, FT({2, 4, 3})), {2, 4, 3}, want_sub);
}

TEST(Binary, PerChannelAndScalar) {
  const Tensor x = F({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const Tensor c = F({2, 1, 1}, {2, 3});
  expect_values(eval1(OpKind::Mul, {&x, &c}, FT({1, 2, 2, 2})), {1, 2, 2, 2},
                {2, 4, 6, 8, 15, 18, 21, 24});
  const Tensor s = Tensor::scalar(10.0f);
  expect_values(eval1(OpKind::Div, {&s, &x}, FT({1, 2, 2, 2})), {1, 2, 2, 2},
                {10, 5, 10.0 / 3, 2.5, 2, 10.0 / 6, 10.0 / 7, 1.25});
  const Tensor row = F({2}, {100, 200});
  const Tensor m = F({3, 2}, {1, 2, 3, 4, 5, 6});
  expect_values(eval1(OpKind::Add, {&m, &row}, FT({3, 2})), {3, 2}, {101, 202, 103, 204, 105, 206});
}

TEST(Binary, IntegerDivTruncatesTowardZero) {
  const Tensor a =
      Tensor::from_vector<int32_t>({5}, {7, -7, 7, -7, std::numeric_limits<int32_t>::min()});
  const Tensor b = Tensor::from_vector<int32_t>({5}, {2, 2, -2, -2, -1});
  const Tensor y = eval1(OpKind::Div, {&a, &b}, TT<int32_t>({5}));
  const auto d = y.data<int32_t>();
  EXPECT_EQ(d[0], 3);
  EXPECT_EQ(d[1], -3);
  EXPECT_EQ(d[2], -3);
  EXPECT_EQ(d[3], 3);
  EXPECT_EQ(d[4], std::numeric_limits<int32_t>::min());  // wraps, no trap
  const Tensor u = Tensor::from_vector<uint8_t>({2}, {200, 7});
  const Tensor v = Tensor::from_vector<uint8_t>({1}, {3});
  const Tensor q = eval1(OpKind::Div, {&u, &v}, TT<uint8_t>({2}));
  EXPECT_EQ(q.data<uint8_t>()[0], 66);
  EXPECT_EQ(q.data<uint8_t>()[1], 2);
}

TEST(Binary, IntegerDivisionByZeroIsAnError) {
  const Tensor a = Tensor::from_vector<int64_t>({2}, {1, 2});
  const Tensor b = Tensor::from_vector<int64_t>({2}, {1, 0});
  try {
    eval1(OpKind::Div, {&a, &b}, TT<int64_t>({2}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
    EXPECT_NE(e.message().find("Div 'n1'"), std::string::npos) << e.message();
  }
}

TEST(Binary, IntegerOverflowWraps) {
  const Tensor a = Tensor::from_vector<int32_t>({2}, {std::numeric_limits<int32_t>::max(), -3});
  const Tensor b = Tensor::from_vector<int32_t>({2}, {1, 4});
  const Tensor s = eval1(OpKind::Add, {&a, &b}, TT<int32_t>({2}));
  EXPECT_EQ(s.data<int32_t>()[0], std::numeric_limits<int32_t>::min());
  EXPECT_EQ(s.data<int32_t>()[1], 1);
  const Tensor p = Tensor::from_vector<uint16_t>({1}, {65535});
  const Tensor m = eval1(OpKind::Mul, {&p, &p}, TT<uint16_t>({1}));
  EXPECT_EQ(m.data<uint16_t>()[0], 1);  // 65535^2 mod 2^16
}

TEST(Binary, MaxMinPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor a = F({3}, {1, nan, 5});
  const Tensor b = F({3}, {2, 0, nan});
  expect_values(eval1(OpKind::Max, {&a, &b}, FT({3})), {3}, {2, NAN, NAN});
  expect_values(eval1(OpKind::Min, {&a, &b}, FT({3})), {3}, {1, NAN, NAN});
}

TEST(Binary, MismatchedTypesAndBoolAreRejected) {
  const Tensor a = F({1}, {1});
  const Tensor i = Tensor::from_vector<int32_t>({1}, {1});
  EXPECT_THROW(eval1(OpKind::Add, {&a, &i}, FT({1})), Error);
  const Tensor t = Tensor::from_vector<bool>({1}, {true});
  try {
    eval1(OpKind::Add, {&t, &t}, TT<bool>({1}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  }
}

TEST(Variadic, SumMeanMaxMin) {
  const Tensor a = F({2}, {1, 2});
  const Tensor b = F({1}, {10});
  const Tensor c = F({2, 1}, {100, 200});
  expect_values(eval1(OpKind::Sum, {&a, &b, &c}, FT({2, 2})), {2, 2}, {111, 112, 211, 212});
  const Tensor d = F({2}, {2, 4}), e = F({2}, {4, 8});
  expect_values(eval1(OpKind::Mean, {&d, &e}, FT({2})), {2}, {3, 6});
  expect_values(eval1(OpKind::Max, {&a, &d, &b}, FT({2})), {2}, {10, 10});
  expect_values(eval1(OpKind::Min, {&a, &d}, FT({2})), {2}, {1, 2});
  expect_values(eval1(OpKind::Sum, {&a}, FT({2})), {2}, {1, 2});
}

// ---- unary math and activations

TEST(Unary, FloatMath) {
  const Tensor x = F({3}, {1, 4, 0.5f});
  expect_values(eval1(OpKind::Exp, {&x}, FT({3})), {3}, {M_E, std::exp(4.0), std::exp(0.5)});
  expect_values(eval1(OpKind::Log, {&x}, FT({3})), {3}, {0, std::log(4.0), std::log(0.5)});
  expect_values(eval1(OpKind::Sqrt, {&x}, FT({3})), {3}, {1, 2, std::sqrt(0.5)});
  expect_values(eval1(OpKind::Reciprocal, {&x}, FT({3})), {3}, {1, 0.25, 2});
  expect_values(eval1(OpKind::Neg, {&x}, FT({3})), {3}, {-1, -4, -0.5});
  const Tensor n = F({2}, {-2, 3});
  expect_values(eval1(OpKind::Abs, {&n}, FT({2})), {2}, {2, 3});
  const Tensor i = Tensor::from_vector<int32_t>({1}, {4});
  EXPECT_THROW(eval1(OpKind::Exp, {&i}, TT<int32_t>({1})), Error);
}

TEST(Unary, IntegerNegAbsWrapLikeTwosComplement) {
  const Tensor u = Tensor::from_vector<uint8_t>({3}, {1, 0, 255});
  const Tensor nu = eval1(OpKind::Neg, {&u}, TT<uint8_t>({3}));
  EXPECT_EQ(nu.data<uint8_t>()[0], 255);
  EXPECT_EQ(nu.data<uint8_t>()[1], 0);
  EXPECT_EQ(nu.data<uint8_t>()[2], 1);
  EXPECT_EQ(eval1(OpKind::Abs, {&u}, TT<uint8_t>({3})).data<uint8_t>()[2], 255);
  const Tensor s = Tensor::from_vector<int8_t>({3}, {-128, -5, 5});
  const Tensor as = eval1(OpKind::Abs, {&s}, TT<int8_t>({3}));
  EXPECT_EQ(as.data<int8_t>()[0], -128);
  EXPECT_EQ(as.data<int8_t>()[1], 5);
  EXPECT_EQ(as.data<int8_t>()[2], 5);
  EXPECT_EQ(eval1(OpKind::Neg, {&s}, TT<int8_t>({3})).data<int8_t>()[0], -128);
}

TEST(Activation, ReluAndLeakyRelu) {
  const Tensor x = F({3}, {-2, 0, 3});
  expect_values(eval1(OpKind::Relu, {&x}, FT({3})), {3}, {0, 0, 3});
  expect_values(eval1(OpKind::LeakyRelu, {&x}, FT({3}), LeakyReluAttrs{0.1f}), {3}, {-0.2, 0, 3});
  const Tensor i = Tensor::from_vector<int16_t>({2}, {-3, 4});
  const Tensor r = eval1(OpKind::Relu, {&i}, TT<int16_t>({2}));
  EXPECT_EQ(r.data<int16_t>()[0], 0);
  EXPECT_EQ(r.data<int16_t>()[1], 4);
}

TEST(Activation, PReluBroadcastsSlope) {
  const Tensor x = F({1, 2, 2}, {-1, 1, -2, 2});
  const Tensor slope = F({2, 1}, {0.5f, 0.25f});
  expect_values(eval1(OpKind::PRelu, {&x, &slope}, FT({1, 2, 2})), {1, 2, 2}, {-0.5, 1, -0.5, 2});
  const Tensor bad = F({3}, {1, 2, 3});
  EXPECT_THROW(eval1(OpKind::PRelu, {&x, &bad}, FT({1, 2, 2})), Error);
}

TEST(Activation, EluSeluTanh) {
  const Tensor x = F({2}, {-1, 2});
  expect_values(eval1(OpKind::Elu, {&x}, FT({2}), EluAttrs{2.0f}), {2},
                {2 * (std::exp(-1.0) - 1), 2});
  const double alpha = 1.67326319217681884765625, gamma = 1.05070102214813232421875;
  expect_values(eval1(OpKind::Selu, {&x}, FT({2}), SeluAttrs{}), {2},
                {gamma * alpha * (std::exp(-1.0) - 1), 2 * gamma});
  expect_values(eval1(OpKind::Tanh, {&x}, FT({2})), {2}, {-0.7615941559557649, 0.9640275800758169});
}

TEST(Activation, SigmoidIsStableForLargeInputs) {
  const Tensor x = F({5}, {-1000, -1, 0, 1, 1000});
  const Tensor y = eval1(OpKind::Sigmoid, {&x}, FT({5}));
  expect_values(y, {5}, {0, 0.2689414213699951, 0.5, 0.7310585786300049, 1});
  for (float v : y.data<float>()) EXPECT_FALSE(std::isnan(v));
}

TEST(Activation, HardSigmoid) {
  const Tensor x = F({4}, {-10, 0, 1, 10});
  expect_values(eval1(OpKind::HardSigmoid, {&x}, FT({4}), HardSigmoidAttrs{0.2f, 0.5f}), {4},
                {0, 0.5, 0.7, 1});
}

TEST(Activation, ClipWithOptionalBounds) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = F({4}, {-2, 0.5f, 3, -inf});
  const Tensor lo = Tensor::scalar(0.0f), hi = Tensor::scalar(1.0f);
  expect_values(eval1(OpKind::Clip, {&x, &lo, &hi}, FT({4})), {4}, {0, 0.5, 1, 0});
  expect_values(eval1(OpKind::Clip, {&x, nullptr, &hi}, FT({4})), {4}, {-2, 0.5, 1, -inf});
  expect_values(eval1(OpKind::Clip, {&x}, FT({4})), {4}, {-2, 0.5, 3, -inf});
  const Tensor i = Tensor::from_vector<int32_t>({3}, {-5, 5, 50});
  const Tensor ilo = Tensor::scalar<int32_t>(0), ihi = Tensor::scalar<int32_t>(10);
  const Tensor ci = eval1(OpKind::Clip, {&i, &ilo, &ihi}, TT<int32_t>({3}));
  EXPECT_EQ(ci.data<int32_t>()[0], 0);
  EXPECT_EQ(ci.data<int32_t>()[1], 5);
  EXPECT_EQ(ci.data<int32_t>()[2], 10);
}

// ---- softmax

TEST(Softmax, AlongOneAxisVersusCoerced2d) {
  std::vector<float> v(8);
  for (int i = 0; i < 8; ++i) v[i] = static_cast<float>(i);
  const Tensor x = F({2, 2, 2}, v);
  // opset >= 13: over axis 1 only, pairs (a, a + 2).
  const double lo = 1 / (1 + std::exp(2.0)), hi = 1 - lo;
  expect_values(eval1(OpKind::Softmax, {&x}, FT({2, 2, 2}), SoftmaxAttrs{1, false}), {2, 2, 2},
                {lo, lo, hi, hi, lo, lo, hi, hi});
  // opset < 13: rows of 4 = softmax([0,1,2,3]) twice.
  double z = 0;
  for (int i = 0; i < 4; ++i) z += std::exp(i);
  std::vector<double> want;
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < 4; ++i) want.push_back(std::exp(i) / z);
  expect_values(eval1(OpKind::Softmax, {&x}, FT({2, 2, 2}), SoftmaxAttrs{1, true}), {2, 2, 2},
                want);
  std::vector<double> want_log;
  for (double w : want) want_log.push_back(std::log(w));
  expect_values(eval1(OpKind::LogSoftmax, {&x}, FT({2, 2, 2}), SoftmaxAttrs{1, true}), {2, 2, 2},
                want_log);
}

TEST(Softmax, StableForHugeLogits) {
  const Tensor x = F({1, 3}, {1000, 1000, -1000});
  expect_values(eval1(OpKind::Softmax, {&x}, FT({1, 3}), SoftmaxAttrs{1, false}), {1, 3},
                {0.5, 0.5, 0});
  expect_values(eval1(OpKind::LogSoftmax, {&x}, FT({1, 3}), SoftmaxAttrs{1, false}), {1, 3},
                {-std::log(2.0), -std::log(2.0), -2000 - std::log(2.0)});
}

TEST(Softmax, LastAxisAndAxisZero) {
  const Tensor x = F({2, 2}, {0, 1, 0, 3});
  const double a = 1 / (1 + std::exp(1.0)), b = 1 / (1 + std::exp(3.0));
  expect_values(eval1(OpKind::Softmax, {&x}, FT({2, 2}), SoftmaxAttrs{1, false}), {2, 2},
                {a, 1 - a, b, 1 - b});
  const double c = 1 / (1 + std::exp(2.0));  // column 1: (1, 3)
  expect_values(eval1(OpKind::Softmax, {&x}, FT({2, 2}), SoftmaxAttrs{0, false}), {2, 2},
                {0.5, c, 0.5, 1 - c});
}

// ---- reductions

TEST(Reduce, KeepdimsOneAndZero) {
  const Tensor x = F({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_values(eval1(OpKind::ReduceSum, {&x}, FT({2, 1}), ReduceAttrs{{1}, true}), {2, 1},
                {6, 15});
  expect_values(eval1(OpKind::ReduceSum, {&x}, FT({2}), ReduceAttrs{{1}, false}), {2}, {6, 15});
  expect_values(eval1(OpKind::ReduceMean, {&x}, FT({1, 3}), ReduceAttrs{{0}, true}), {1, 3},
                {2.5, 3.5, 4.5});
  expect_values(eval1(OpKind::ReduceMax, {&x}, FT({}), ReduceAttrs{{0, 1}, false}), {}, {6});
  expect_values(eval1(OpKind::ReduceMax, {&x}, FT({2}), ReduceAttrs{{1}, false}), {2}, {3, 6});
}

TEST(Reduce, NonAdjacentAxes) {
  // x[i,j,k] = 6i + 2j + k; sum over i and k = 8j + 14.
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[i] = static_cast<float>(i);
  const Tensor x = F({2, 3, 2}, v);
  expect_values(eval1(OpKind::ReduceSum, {&x}, FT({3}), ReduceAttrs{{0, 2}, false}), {3},
                {14, 22, 30});
  expect_values(eval1(OpKind::ReduceMean, {&x}, FT({1, 3, 1}), ReduceAttrs{{0, 2}, true}),
                {1, 3, 1}, {3.5, 5.5, 7.5});
  expect_values(eval1(OpKind::ReduceMax, {&x}, FT({2, 1, 2}), ReduceAttrs{{1}, true}), {2, 1, 2},
                {4, 5, 10, 11});
}

TEST(Reduce, IntegerSumAndMax) {
  const Tensor x = Tensor::from_vector<int32_t>({2, 2}, {-1, 7, 3, -9});
  const Tensor s = eval1(OpKind::ReduceSum, {&x}, TT<int32_t>({2}), ReduceAttrs{{0}, false});
  EXPECT_EQ(s.data<int32_t>()[0], 2);
  EXPECT_EQ(s.data<int32_t>()[1], -2);
  const Tensor m = eval1(OpKind::ReduceMax, {&x}, TT<int32_t>({2}), ReduceAttrs{{1}, false});
  EXPECT_EQ(m.data<int32_t>()[0], 7);
  EXPECT_EQ(m.data<int32_t>()[1], 3);
  EXPECT_THROW(eval1(OpKind::ReduceMean, {&x}, TT<int32_t>({2}), ReduceAttrs{{0}, false}), Error);
}

// ---- normalization

TEST(BatchNorm, PerChannelAffine) {
  const Tensor x = F({1, 2, 1, 2}, {1, 2, 3, 4});
  const Tensor scale = F({2}, {1, 2}), b = F({2}, {0, 1}), mean = F({2}, {1, 3}),
               var = F({2}, {4, 0.25f});
  // ch0: (x - 1) / 2; ch1: 2 (x - 3) / 0.5 + 1.
  expect_values(eval1(OpKind::BatchNormalization, {&x, &scale, &b, &mean, &var}, FT({1, 2, 1, 2}),
                      BatchNormAttrs{0.0f}),
                {1, 2, 1, 2}, {0, 0.5, 1, 5});
  // epsilon is added to the variance.
  expect_values(eval1(OpKind::BatchNormalization, {&x, &scale, &b, &mean, &var}, FT({1, 2, 1, 2}),
                      BatchNormAttrs{0.75f}),
                {1, 2, 1, 2}, {0, 1 / std::sqrt(4.75), 1, 2 / 1.0 + 1});
}

// ---- data movement

TEST(DataMovement, ConcatAlongAxes) {
  const Tensor a = F({1, 2}, {1, 2}), b = F({2, 2}, {3, 4, 5, 6});
  expect_values(eval1(OpKind::Concat, {&a, &b}, FT({3, 2}), ConcatAttrs{0}), {3, 2},
                {1, 2, 3, 4, 5, 6});
  const Tensor c = F({2, 1}, {7, 8});
  expect_values(eval1(OpKind::Concat, {&c, &b}, FT({2, 3}), ConcatAttrs{1}), {2, 3},
                {7, 3, 4, 8, 5, 6});
  const Tensor t = Tensor::from_vector<bool>({1}, {true}),
               f = Tensor::from_vector<bool>({2}, {false, true});
  const Tensor tb = eval1(OpKind::Concat, {&t, &f}, TT<bool>({3}), ConcatAttrs{0});
  EXPECT_EQ(tb.data<bool>()[0], true);
  EXPECT_EQ(tb.data<bool>()[1], false);
  EXPECT_EQ(tb.data<bool>()[2], true);
}

TEST(DataMovement, SliceNegativeStep) {
  const Tensor x = F({5}, {0, 1, 2, 3, 4});
  // starts 4, ends -1 (clamped form of "to the beginning"), step -2.
  expect_values(eval1(OpKind::Slice, {&x}, FT({3}), SliceAttrs{{4}, {-1}, {-2}}), {3}, {4, 2, 0});
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[i] = static_cast<float>(i);
  const Tensor m = F({3, 4}, v);
  // Rows 1..2, columns 3, 2, 1.
  expect_values(eval1(OpKind::Slice, {&m}, FT({2, 3}), SliceAttrs{{1, 3}, {3, 0}, {1, -1}}), {2, 3},
                {7, 6, 5, 11, 10, 9});
  // Step 2 on the inner dim of an int64 tensor.
  const Tensor i = Tensor::from_vector<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor s =
      eval1(OpKind::Slice, {&i}, TT<int64_t>({2, 2}), SliceAttrs{{0, 0}, {2, 3}, {1, 2}});
  EXPECT_EQ(s.data<int64_t>()[1], 3);
  EXPECT_EQ(s.data<int64_t>()[3], 6);
}

TEST(DataMovement, Transpose) {
  const Tensor x = F({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_values(eval1(OpKind::Transpose, {&x}, FT({3, 2}), TransposeAttrs{{1, 0}}), {3, 2},
                {1, 4, 2, 5, 3, 6});
  // [2,3,2] with perm (2,0,1): y[k,i,j] = x[i,j,k] = 6i + 2j + k.
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[i] = static_cast<float>(i);
  const Tensor t = F({2, 3, 2}, v);
  std::vector<double> want;
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) want.push_back(6 * i + 2 * j + k);
  expect_values(eval1(OpKind::Transpose, {&t}, FT({2, 2, 3}), TransposeAttrs{{2, 0, 1}}), {2, 2, 3},
                want);
}

TEST(DataMovement, PadModes) {
  const Tensor x = F({3}, {1, 2, 3});
  expect_values(eval1(OpKind::Pad, {&x}, FT({6}), PadAttrs{{2, 1}, PadMode::Constant, 9.0}), {6},
                {9, 9, 1, 2, 3, 9});
  expect_values(eval1(OpKind::Pad, {&x}, FT({7}), PadAttrs{{2, 2}, PadMode::Reflect, 0.0}), {7},
                {3, 2, 1, 2, 3, 2, 1});
  expect_values(eval1(OpKind::Pad, {&x}, FT({7}), PadAttrs{{2, 2}, PadMode::Edge, 0.0}), {7},
                {1, 1, 1, 2, 3, 3, 3});
  // Negative pads crop.
  expect_values(eval1(OpKind::Pad, {&x}, FT({3}), PadAttrs{{-1, 1}, PadMode::Constant, 0.0}), {3},
                {2, 3, 0});
  expect_values(eval1(OpKind::Pad, {&x}, FT({1}), PadAttrs{{-1, -1}, PadMode::Reflect, 0.0}), {1},
                {2});
  // 2-D reflect: one row before, one column after.
  const Tensor m = F({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_values(eval1(OpKind::Pad, {&m}, FT({3, 4}), PadAttrs{{1, 0, 0, 1}, PadMode::Reflect, 0.0}),
                {3, 4}, {4, 5, 6, 5, 1, 2, 3, 2, 4, 5, 6, 5});
  // Constant rows and columns in 2-D.
  expect_values(
      eval1(OpKind::Pad, {&m}, FT({3, 4}), PadAttrs{{0, 1, 1, 0}, PadMode::Constant, -1.0}), {3, 4},
      {-1, 1, 2, 3, -1, 4, 5, 6, -1, -1, -1, -1});
}

TEST(DataMovement, GatherNegativeIndexAndAxis1) {
  const Tensor d = F({3, 2}, {1, 2, 3, 4, 5, 6});
  const Tensor idx = Tensor::from_vector<int64_t>({2}, {-1, 0});
  expect_values(eval1(OpKind::Gather, {&d, &idx}, FT({2, 2}), GatherAttrs{0}), {2, 2},
                {5, 6, 1, 2});
  const Tensor idx2 = Tensor::from_vector<int32_t>({2, 1}, {1, 0});
  expect_values(eval1(OpKind::Gather, {&d, &idx2}, FT({3, 2, 1}), GatherAttrs{1}), {3, 2, 1},
                {2, 1, 4, 3, 6, 5});
  const Tensor scalar_idx = Tensor::scalar<int64_t>(1);
  expect_values(eval1(OpKind::Gather, {&d, &scalar_idx}, FT({2}), GatherAttrs{0}), {2}, {3, 4});
}

TEST(DataMovement, GatherOutOfRangeIsAnError) {
  const Tensor d = F({3, 2}, {1, 2, 3, 4, 5, 6});
  for (int64_t bad : {3, -4}) {
    const Tensor idx = Tensor::from_vector<int64_t>({1}, {bad});
    try {
      eval1(OpKind::Gather, {&d, &idx}, FT({1, 2}), GatherAttrs{0});
      FAIL() << "index " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
      EXPECT_NE(e.message().find("Gather 'n1'"), std::string::npos) << e.message();
      EXPECT_NE(e.message().find(std::to_string(bad)), std::string::npos) << e.message();
    }
  }
}

TEST(DataMovement, Cast) {
  const Tensor x = F({4}, {1.7f, -1.7f, 300.0f, 0.0f});
  const Tensor i = eval1(OpKind::Cast, {&x}, TT<int32_t>({4}), CastAttrs{DType::Int32});
  EXPECT_EQ(i.data<int32_t>()[0], 1);
  EXPECT_EQ(i.data<int32_t>()[1], -1);
  EXPECT_EQ(i.data<int32_t>()[2], 300);
  const Tensor b = eval1(OpKind::Cast, {&x}, TT<bool>({4}), CastAttrs{DType::Bool});
  EXPECT_TRUE(b.data<bool>()[0]);
  EXPECT_FALSE(b.data<bool>()[3]);
  const Tensor l = Tensor::from_vector<int64_t>({2}, {3, -2});
  expect_values(eval1(OpKind::Cast, {&l}, FT({2}), CastAttrs{DType::Float32}), {2}, {3, -2});
}

TEST(DataMovement, ShapeOp) {
  const Tensor x(DType::Float32, {2, 3, 4});
  const Tensor s = eval1(OpKind::Shape, {&x}, TT<int64_t>({2}), ShapeAttrs{1, 3});
  ASSERT_EQ(s.shape(), Shape{2});
  EXPECT_EQ(s.data<int64_t>()[0], 3);
  EXPECT_EQ(s.data<int64_t>()[1], 4);
}

TEST(DataMovement, ReshapeFamilyKeepsData) {
  const Tensor x = F({1, 2, 3}, {1, 2, 3, 4, 5, 6});
  const std::vector<double> v{1, 2, 3, 4, 5, 6};
  expect_values(eval1(OpKind::Flatten, {&x}, FT({1, 6}), FlattenAttrs{1}), {1, 6}, v);
  expect_values(eval1(OpKind::Reshape, {&x}, FT({3, 2}), ReshapeAttrs{{3, 2}}), {3, 2}, v);
  expect_values(eval1(OpKind::Squeeze, {&x}, FT({2, 3}), AxesAttrs{{0}}), {2, 3}, v);
  expect_values(eval1(OpKind::Unsqueeze, {&x}, FT({1, 2, 1, 3}), AxesAttrs{{2}}), {1, 2, 1, 3}, v);
  expect_values(eval1(OpKind::Identity, {&x}, FT({1, 2, 3})), {1, 2, 3}, v);
  EXPECT_THROW(eval1(OpKind::Reshape, {&x}, FT({4}), ReshapeAttrs{{4}}), Error);
}

TEST(DataMovement, DropoutPassesThroughWithMask) {
  const Tensor x = F({2}, {1, -1});
  const auto r =
      eval(make_node(OpKind::Dropout, 1, {}, {true, true}), {&x}, {FT({2}), TT<bool>({2})});
  ASSERT_EQ(r.size(), 2u);
  expect_values(r[0], {2}, {1, -1});
  EXPECT_TRUE(r[1].data<bool>()[0]);
  EXPECT_TRUE(r[1].data<bool>()[1]);
}

TEST(Evaluate, OutputTypeDisagreementIsInternal) {
  const Tensor x = F({2}, {1, 2});
  try {
    eval1(OpKind::Relu, {&x}, FT({3}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Internal);
  }
}

TEST(Evaluate, MissingRequiredInputIsInvalidModel) {
  const Tensor x = F({2}, {1, 2});
  try {
    eval1(OpKind::Add, {&x, nullptr}, FT({2}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  }
}

TEST(Evaluate, Float64Works) {
  const Tensor x = Tensor::from_vector<double>({2}, {-1.0, 1e-300});
  const Tensor y = eval1(OpKind::Sigmoid, {&x}, TT<double>({2}));
  EXPECT_NEAR(y.data<double>()[0], 0.2689414213699951, 1e-15);
  EXPECT_NEAR(y.data<double>()[1], 0.5, 1e-15);
}

// ---- QuantizeLinear / DequantizeLinear (the operator definitions, by hand)

TEST(Quantize, RoundsHalfToEvenAndSaturates) {
  // uint8, scale 0.5, zero point 128: x / 0.5 = -2, 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, 600.
  const Tensor x = F({5}, {-1.0f, 0.25f, 0.75f, 1.25f, 300.0f});
  const Tensor s = Tensor::scalar(0.5f);
  const Tensor zp = Tensor::scalar<uint8_t>(128);
  const QuantAttrs u8{false, 0, DType::UInt8};
  expect_values(eval1(OpKind::QuantizeLinear, {&x, &s, &zp}, TensorType{DType::UInt8, {5}}, u8),
                {5}, {126, 128, 130, 130, 255});
  // int8, zero point -3: -2 - 3 = -5; 600 - 3 saturates at 127, -600 - 3 at -128.
  const Tensor x2 = F({3}, {-1.0f, 300.0f, -300.0f});
  const Tensor zp8 = Tensor::scalar<int8_t>(-3);
  const QuantAttrs i8{false, 0, DType::Int8};
  expect_values(eval1(OpKind::QuantizeLinear, {&x2, &s, &zp8}, TensorType{DType::Int8, {3}}, i8),
                {3}, {-5, 127, -128});
}

TEST(Quantize, PerAxisScalesAndDequantizeInverts) {
  // [2, 3] per axis 1: scales 1, 0.5, 0.25, zero points 0, 10, 20.
  const Tensor x = F({2, 3}, {1, 1, 1, -2, -2, -2});
  const Tensor s = F({3}, {1.0f, 0.5f, 0.25f});
  const Tensor zp = Tensor::from_vector<uint8_t>({3}, {0, 10, 20});
  const QuantAttrs a{true, 1, DType::UInt8};
  const Tensor q =
      eval1(OpKind::QuantizeLinear, {&x, &s, &zp}, TensorType{DType::UInt8, {2, 3}}, a);
  expect_values(q, {2, 3}, {1, 12, 24, 0, 6, 12});
  // (q - zp) * scale: the inverse where nothing saturated (x[1][0] = -2 was
  // clipped at uint8's 0).
  const QuantAttrs d{true, 1, DType::Float32};
  expect_values(eval1(OpKind::DequantizeLinear, {&q, &s, &zp}, FT({2, 3}), d), {2, 3},
                {1, 1, 1, 0, -2, -2});
}

}  // namespace
}  // namespace kiln::ref
