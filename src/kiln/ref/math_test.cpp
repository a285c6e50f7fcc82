// Hand-computed cases for the unary math, predicate, comparison, logical, Pow,
// Mod, BitShift and Where kernels, and the added reductions.
#include <cmath>
#include <limits>

#include "kiln/ref/testing/ref_testing.h"

namespace kiln::ref {
namespace {

using testing::eval1;
using testing::expect_values;
using testing::F;
using testing::FT;

template <class T>
TensorType TT(Shape s) {
  return TensorType{dtype_of<T>(), std::move(s)};
}
TensorType BT(Shape s) {
  return TensorType{DType::Bool, std::move(s)};
}

Tensor B(Shape shape, std::vector<bool> v) {
  Tensor t(DType::Bool, std::move(shape));
  for (std::size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i];
  return t;
}

std::vector<bool> bools(const Tensor& t) {
  std::vector<bool> v;
  for (bool b : t.data<bool>()) v.push_back(b);
  return v;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(UnaryMore, RoundingFamily) {
  const Tensor x = F({6}, {-1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.7f});
  expect_values(eval1(OpKind::Floor, {&x}, FT({6})), {6}, {-2, -1, 0, 1, 2, 2});
  expect_values(eval1(OpKind::Ceil, {&x}, FT({6})), {6}, {-1, -0.0, 1, 2, 3, 3});
  // Half to even: -1.5 -> -2, -0.5 -> -0, 0.5 -> 0, 1.5 -> 2, 2.5 -> 2.
  expect_values(eval1(OpKind::Round, {&x}, FT({6})), {6}, {-2, 0, 0, 2, 2, 3});
}

TEST(UnaryMore, SignOfFloatsAndIntegers) {
  const Tensor x = F({4}, {-3.0f, 0.0f, 2.5f, std::nanf("")});
  expect_values(eval1(OpKind::Sign, {&x}, FT({4})), {4}, {-1, 0, 1, kNaN});
  const Tensor i = Tensor::from_vector<int8_t>({3}, {-128, 0, 7});
  expect_values(eval1(OpKind::Sign, {&i}, TT<int8_t>({3})), {3}, {-1, 0, 1});
  const Tensor u = Tensor::from_vector<uint16_t>({2}, {0, 9});
  expect_values(eval1(OpKind::Sign, {&u}, TT<uint16_t>({2})), {2}, {0, 1});
}

TEST(UnaryMore, TrigonometricAndHyperbolic) {
  const double pi = 3.14159265358979323846;
  const Tensor x = F({3}, {0.0f, 0.5f, 1.0f});
  expect_values(eval1(OpKind::Sin, {&x}, FT({3})), {3}, {0, 0.4794255386, 0.8414709848});
  expect_values(eval1(OpKind::Cos, {&x}, FT({3})), {3}, {1, 0.8775825619, 0.5403023059});
  expect_values(eval1(OpKind::Tan, {&x}, FT({3})), {3}, {0, 0.5463024898, 1.5574077247});
  expect_values(eval1(OpKind::Asin, {&x}, FT({3})), {3}, {0, pi / 6, pi / 2});
  expect_values(eval1(OpKind::Acos, {&x}, FT({3})), {3}, {pi / 2, pi / 3, 0});
  expect_values(eval1(OpKind::Atan, {&x}, FT({3})), {3}, {0, 0.4636476090, pi / 4});
  // sinh(1) = (e - 1/e) / 2, cosh(1) = (e + 1/e) / 2.
  const double e = std::exp(1.0);
  expect_values(eval1(OpKind::Sinh, {&x}, FT({3})), {3}, {0, 0.5210953055, (e - 1 / e) / 2});
  expect_values(eval1(OpKind::Cosh, {&x}, FT({3})), {3}, {1, 1.1276259652, (e + 1 / e) / 2});
  // asinh(x) = ln(x + sqrt(x^2 + 1)), atanh(x) = ln((1 + x) / (1 - x)) / 2.
  expect_values(eval1(OpKind::Asinh, {&x}, FT({3})), {3},
                {0, std::log(0.5 + std::sqrt(1.25)), std::log(1 + std::sqrt(2.0))});
  const Tensor h = F({2}, {0.0f, 0.5f});
  expect_values(eval1(OpKind::Atanh, {&h}, FT({2})), {2}, {0, std::log(3.0) / 2});
  const Tensor a = F({2}, {1.0f, 2.0f});
  expect_values(eval1(OpKind::Acosh, {&a}, FT({2})), {2}, {0, std::log(2 + std::sqrt(3.0))});
}

TEST(UnaryMore, ErfSoftplusSoftsign) {
  const Tensor x = F({3}, {-1.0f, 0.0f, 2.0f});
  // erf(1) = 0.8427007929, erf(2) = 0.9953222650 (tables).
  expect_values(eval1(OpKind::Erf, {&x}, FT({3})), {3}, {-0.8427007929, 0, 0.9953222650});
  expect_values(eval1(OpKind::Softplus, {&x}, FT({3})), {3},
                {std::log(1 + std::exp(-1.0)), std::log(2.0), std::log(1 + std::exp(2.0))});
  expect_values(eval1(OpKind::Softsign, {&x}, FT({3})), {3}, {-0.5, 0, 2.0 / 3});
  // Large inputs must not overflow: softplus(100) = 100.
  const Tensor big = F({1}, {100.0f});
  expect_values(eval1(OpKind::Softplus, {&big}, FT({1})), {1}, {100});
}

TEST(UnaryMore, ActivationsWithAttributes) {
  const Tensor x = F({5}, {-4.0f, -1.0f, 0.5f, 1.0f, 3.0f});
  expect_values(eval1(OpKind::ThresholdedRelu, {&x}, FT({5}), ThresholdedReluAttrs{0.8f}), {5},
                {0, 0, 0, 1, 3});
  // Celu alpha 2: x < 0 -> 2 * (exp(x / 2) - 1).
  expect_values(eval1(OpKind::Celu, {&x}, FT({5}), CeluAttrs{2.0f}), {5},
                {2 * (std::exp(-2.0) - 1), 2 * (std::exp(-0.5) - 1), 0.5, 1, 3});
  // HardSwish: x * clamp(x / 6 + 0.5, 0, 1).
  expect_values(eval1(OpKind::HardSwish, {&x}, FT({5})), {5},
                {0, -1 * (1.0 / 3), 0.5 * (0.5 / 6 + 0.5), 1 * (1.0 / 6 + 0.5), 3});
  // Shrink bias 1.5, lambd 1: |x| <= 1 -> 0.
  expect_values(eval1(OpKind::Shrink, {&x}, FT({5}), ShrinkAttrs{1.5f, 1.0f}), {5},
                {-2.5, 0, 0, 0, 1.5});
  const Tensor i = Tensor::from_vector<int32_t>({3}, {-5, 0, 5});
  expect_values(eval1(OpKind::Shrink, {&i}, TT<int32_t>({3}), ShrinkAttrs{2.0f, 1.0f}), {3},
                {-3, 0, 3});
}

TEST(UnaryMore, PredicatesAndNot) {
  const Tensor x = F({4}, {1.0f, std::nanf(""), kInf, -kInf});
  EXPECT_EQ(bools(eval1(OpKind::IsNaN, {&x}, BT({4}))),
            (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(bools(eval1(OpKind::IsInf, {&x}, BT({4}), IsInfAttrs{})),
            (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(bools(eval1(OpKind::IsInf, {&x}, BT({4}), IsInfAttrs{false, true})),
            (std::vector<bool>{false, false, false, true}));
  const Tensor b = B({2}, {true, false});
  EXPECT_EQ(bools(eval1(OpKind::Not, {&b}, BT({2}))), (std::vector<bool>{false, true}));
}

TEST(BinaryMore, PowBroadcastsAndMixesTypes) {
  const Tensor x = F({2, 2}, {1, 2, 3, 4});
  const Tensor e = F({2}, {2, 0.5f});
  expect_values(eval1(OpKind::Pow, {&x, &e}, FT({2, 2})), {2, 2}, {1, std::sqrt(2.0), 9, 2});
  // int32 base, int64 exponent: exact; 3^5 = 243.
  const Tensor ib = Tensor::from_vector<int32_t>({3}, {3, -2, 7});
  const Tensor ie = Tensor::from_vector<int64_t>({3}, {5, 3, 0});
  expect_values(eval1(OpKind::Pow, {&ib, &ie}, TT<int32_t>({3})), {3}, {243, -8, 1});
  // int base, float exponent: through double, truncated to int. 4^0.5 = 2.
  const Tensor fe = F({1}, {0.5f});
  const Tensor four = Tensor::from_vector<int64_t>({1}, {4});
  expect_values(eval1(OpKind::Pow, {&four, &fe}, TT<int64_t>({1})), {1}, {2});
}

TEST(BinaryMore, ModSignConventions) {
  const Tensor a = Tensor::from_vector<int32_t>({4}, {7, -7, 7, -7});
  const Tensor b = Tensor::from_vector<int32_t>({4}, {3, 3, -3, -3});
  // Integer mod takes the divisor's sign (Python %), fmod the dividend's.
  expect_values(eval1(OpKind::Mod, {&a, &b}, TT<int32_t>({4}), ModAttrs{false}), {4},
                {1, 2, -2, -1});
  expect_values(eval1(OpKind::Mod, {&a, &b}, TT<int32_t>({4}), ModAttrs{true}), {4},
                {1, -1, 1, -1});
  const Tensor fa = F({2}, {5.5f, -5.5f});
  const Tensor fb = F({1}, {2.0f});
  expect_values(eval1(OpKind::Mod, {&fa, &fb}, FT({2}), ModAttrs{true}), {2}, {1.5, -1.5});
  const Tensor zero = Tensor::from_vector<int32_t>({1}, {0});
  EXPECT_THROW(eval1(OpKind::Mod, {&a, &zero}, TT<int32_t>({4}), ModAttrs{false}), Error);
}

TEST(BinaryMore, BitShift) {
  const Tensor x = Tensor::from_vector<uint8_t>({3}, {16, 4, 1});
  const Tensor s = Tensor::from_vector<uint8_t>({3}, {1, 2, 9});
  expect_values(eval1(OpKind::BitShift, {&x, &s}, TT<uint8_t>({3}), BitShiftAttrs{true}), {3},
                {32, 16, 0});
  expect_values(eval1(OpKind::BitShift, {&x, &s}, TT<uint8_t>({3}), BitShiftAttrs{false}), {3},
                {8, 1, 0});
}

TEST(BinaryMore, ComparisonsBroadcastToBool) {
  const Tensor a = F({2, 1}, {1, 3});
  const Tensor b = F({3}, {1, 2, 3});
  // a = [[1],[3]] against [1,2,3].
  EXPECT_EQ(bools(eval1(OpKind::Less, {&a, &b}, BT({2, 3}))),
            (std::vector<bool>{false, true, true, false, false, false}));
  EXPECT_EQ(bools(eval1(OpKind::LessOrEqual, {&a, &b}, BT({2, 3}))),
            (std::vector<bool>{true, true, true, false, false, true}));
  EXPECT_EQ(bools(eval1(OpKind::Greater, {&a, &b}, BT({2, 3}))),
            (std::vector<bool>{false, false, false, true, true, false}));
  EXPECT_EQ(bools(eval1(OpKind::GreaterOrEqual, {&a, &b}, BT({2, 3}))),
            (std::vector<bool>{true, false, false, true, true, true}));
  EXPECT_EQ(bools(eval1(OpKind::Equal, {&a, &b}, BT({2, 3}))),
            (std::vector<bool>{true, false, false, false, false, true}));
  const Tensor p = B({2}, {true, false}), q = B({2}, {true, true});
  EXPECT_EQ(bools(eval1(OpKind::Equal, {&p, &q}, BT({2}))), (std::vector<bool>{true, false}));
}

TEST(BinaryMore, Logical) {
  const Tensor p = B({4}, {false, false, true, true}), q = B({4}, {false, true, false, true});
  EXPECT_EQ(bools(eval1(OpKind::And, {&p, &q}, BT({4}))),
            (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(bools(eval1(OpKind::Or, {&p, &q}, BT({4}))),
            (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(bools(eval1(OpKind::Xor, {&p, &q}, BT({4}))),
            (std::vector<bool>{false, true, true, false}));
}

TEST(Where, ThreeWayBroadcast) {
  // cond [2,1], x [1,3], y scalar -> [2,3].
  const Tensor c = B({2, 1}, {true, false});
  const Tensor x = Tensor::from_vector<int64_t>({1, 3}, {1, 2, 3});
  const Tensor y = Tensor::scalar<int64_t>(-1);
  expect_values(eval1(OpKind::Where, {&c, &x, &y}, TT<int64_t>({2, 3})), {2, 3},
                {1, 2, 3, -1, -1, -1});
}

TEST(ReduceMore, AllKindsOverOneAxis) {
  // x = [[1, -2, 3], [-4, 5, -6]], reduce axis 1.
  const Tensor x = F({2, 3}, {1, -2, 3, -4, 5, -6});
  auto r = [&](OpKind k) { return eval1(k, {&x}, FT({2}), ReduceAttrs{{1}, false}); };
  expect_values(r(OpKind::ReduceMin), {2}, {-2, -6});
  expect_values(r(OpKind::ReduceProd), {2}, {-6, 120});
  expect_values(r(OpKind::ReduceL1), {2}, {6, 15});
  expect_values(r(OpKind::ReduceSumSquare), {2}, {14, 77});
  expect_values(r(OpKind::ReduceL2), {2}, {std::sqrt(14.0), std::sqrt(77.0)});
  // LogSum over axis 0 of positive values: log(1+4), log(2+5), log(3+6).
  const Tensor p = F({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_values(eval1(OpKind::ReduceLogSum, {&p}, FT({1, 3}), ReduceAttrs{{0}, true}), {1, 3},
                {std::log(5.0), std::log(7.0), std::log(9.0)});
  expect_values(r(OpKind::ReduceLogSumExp), {2},
                {std::log(std::exp(1.0) + std::exp(-2.0) + std::exp(3.0)),
                 std::log(std::exp(-4.0) + std::exp(5.0) + std::exp(-6.0))});
}

TEST(ReduceMore, LogSumExpOfLargeValuesDoesNotOverflow) {
  const Tensor x = F({2}, {1000.0f, 1000.0f});
  expect_values(eval1(OpKind::ReduceLogSumExp, {&x}, FT({}), ReduceAttrs{{0}, false}), {},
                {1000 + std::log(2.0)});
}

TEST(ReduceMore, ScalarInputWithNoAxes) {
  const Tensor x = Tensor::scalar(-3.0f);
  expect_values(eval1(OpKind::ReduceSumSquare, {&x}, FT({}), ReduceAttrs{{}, true}), {}, {9});
  expect_values(eval1(OpKind::ReduceL1, {&x}, FT({}), ReduceAttrs{{}, true}), {}, {3});
}

TEST(ReduceMore, IntegerMinAndProd) {
  const Tensor x = Tensor::from_vector<int32_t>({2, 2}, {3, -1, 4, 2});
  expect_values(eval1(OpKind::ReduceMin, {&x}, TT<int32_t>({1, 1}), ReduceAttrs{{0, 1}, true}),
                {1, 1}, {-1});
  expect_values(eval1(OpKind::ReduceProd, {&x}, TT<int32_t>({2}), ReduceAttrs{{0}, false}), {2},
                {12, -2});
}

TEST(ArgReduce, FirstOrLastIndex) {
  // x = [[2, 5, 5], [7, 1, 1]].
  const Tensor x = F({2, 3}, {2, 5, 5, 7, 1, 1});
  const TensorType t2 = TT<int64_t>({2});
  expect_values(eval1(OpKind::ArgMax, {&x}, t2, ArgAttrs{1, false, false}), {2}, {1, 0});
  expect_values(eval1(OpKind::ArgMax, {&x}, t2, ArgAttrs{1, false, true}), {2}, {2, 0});
  expect_values(eval1(OpKind::ArgMin, {&x}, t2, ArgAttrs{1, false, false}), {2}, {0, 1});
  expect_values(eval1(OpKind::ArgMin, {&x}, t2, ArgAttrs{1, false, true}), {2}, {0, 2});
  expect_values(eval1(OpKind::ArgMax, {&x}, TT<int64_t>({1, 3}), ArgAttrs{0, true, false}), {1, 3},
                {1, 0, 0});
}

}  // namespace
}  // namespace kiln::ref
