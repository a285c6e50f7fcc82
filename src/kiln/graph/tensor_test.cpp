// Shape helpers and Tensor: construction, element access, reshape and Cast.
#include "kiln/graph/tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kiln {
namespace {

template <class T>
std::vector<T> values(const Tensor& t) {
  auto d = t.data<T>();
  return std::vector<T>(d.begin(), d.end());
}

template <class F>
Error caught(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no kiln::Error thrown";
  return Error(ErrorKind::Internal, "", "");
}

TEST(Shape, NumelStringStrides) {
  EXPECT_EQ(shape_numel({}), 1);
  EXPECT_EQ(shape_numel({2, 3, 4}), 24);
  EXPECT_EQ(shape_numel({2, 0, 3}), 0);
  EXPECT_EQ(shape_to_string({}), "scalar");
  EXPECT_EQ(shape_to_string({7}), "7");
  EXPECT_EQ(shape_to_string({1, 3, 224, 224}), "1x3x224x224");
  EXPECT_EQ(shape_strides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(shape_strides({5}), (std::vector<int64_t>{1}));
  EXPECT_TRUE(shape_strides({}).empty());
}

TEST(Shape, SanityCheck) {
  EXPECT_NO_THROW(check_shape_sane({}, "w"));
  EXPECT_NO_THROW(check_shape_sane({0, 5}, "w"));
  EXPECT_NO_THROW(check_shape_sane({int64_t{1} << 33}, "w"));  // exactly the limit
  Error neg = caught([] { check_shape_sane({2, -1}, "input 'x'"); });
  EXPECT_EQ(neg.kind(), ErrorKind::InvalidModel);
  EXPECT_EQ(neg.where(), "input 'x'");
  EXPECT_NE(neg.message().find("-1"), std::string::npos) << neg.message();
  Error big = caught([] { check_shape_sane({int64_t{1} << 20, int64_t{1} << 20}, "w"); });
  EXPECT_EQ(big.kind(), ErrorKind::InvalidModel);
  EXPECT_NE(big.message().find("1048576x1048576"), std::string::npos) << big.message();
  EXPECT_THROW(check_shape_sane({(int64_t{1} << 33) + 1}, "w"), Error);
  // Would overflow int64 if multiplied naively.
  EXPECT_THROW(check_shape_sane({int64_t{1} << 40, int64_t{1} << 40}, "w"), Error);
}

TEST(TensorType, ToStringAndEquality) {
  EXPECT_EQ((TensorType{DType::Float32, {1, 3}}).to_string(), "float32[1x3]");
  EXPECT_EQ((TensorType{DType::Int64, {}}).to_string(), "int64[scalar]");
  EXPECT_EQ((TensorType{DType::Int8, {2}}), (TensorType{DType::Int8, {2}}));
  EXPECT_NE((TensorType{DType::Int8, {2}}), (TensorType{DType::UInt8, {2}}));
  EXPECT_EQ((TensorType{DType::Float32, {2, 3}}).numel(), 6);
}

TEST(Tensor, ConstructionIsZeroed) {
  Tensor t(DType::Int16, {2, 3});
  EXPECT_EQ(t.rank(), 2);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.byte_size(), 12u);
  EXPECT_EQ(values<int16_t>(t), std::vector<int16_t>(6, 0));
  Tensor s = Tensor::scalar<double>(2.5);
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(s.as_double(0), 2.5);
  Tensor empty(DType::Float32, {0, 4});
  EXPECT_EQ(empty.numel(), 0);
  EXPECT_EQ(empty.byte_size(), 0u);
  EXPECT_THROW(Tensor(DType::Float32, {-1}), Error);
}

TEST(Tensor, ElementAccess) {
  Tensor t = Tensor::from_vector<int32_t>({3}, {7, -8, 9});
  EXPECT_EQ(t.dtype(), DType::Int32);
  EXPECT_EQ(t.as_int64(1), -8);
  EXPECT_EQ(t.as_double(2), 9.0);
  // Wrong element type and out-of-range index are internal errors, not UB.
  EXPECT_EQ(caught([&] { t.data<float>(); }).kind(), ErrorKind::Internal);
  EXPECT_EQ(caught([&] { t.as_int64(3); }).kind(), ErrorKind::Internal);
}

TEST(Tensor, ToInt64Vector) {
  EXPECT_EQ(Tensor::from_vector<int32_t>({2}, {1, -2}).to_int64_vector("w"),
            (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(Tensor::from_vector<uint8_t>({2}, {0, 255}).to_int64_vector("w"),
            (std::vector<int64_t>{0, 255}));
  Error e = caught([] { Tensor::from_vector<float>({1}, {1.0f}).to_int64_vector("Reshape 'r'"); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_EQ(e.message().rfind("Reshape 'r': ", 0), 0u) << e.message();
  EXPECT_NE(e.message().find("float32"), std::string::npos) << e.message();
  EXPECT_THROW(Tensor::scalar<bool>(true).to_int64_vector("w"), Error);
}

TEST(Tensor, Reshaped) {
  Tensor t = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor r = t.reshaped({3, 1, 2});
  EXPECT_EQ(r.shape(), (Shape{3, 1, 2}));
  EXPECT_EQ(values<float>(r), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(t.shape(), (Shape{2, 3}));  // original untouched
  EXPECT_EQ(Tensor::from_vector<int8_t>({1, 1}, {5}).reshaped({}).shape(), Shape{});
  EXPECT_EQ(caught([&] { t.reshaped({4}); }).kind(), ErrorKind::Internal);
}

TEST(TensorCast, FloatToIntTruncatesSaturatesAndMapsNaNToZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Tensor f = Tensor::from_vector<float>({7}, {1.9f, -1.9f, nan, 1e10f, -1e10f, inf, -inf});
  EXPECT_EQ(values<int32_t>(f.cast(DType::Int32)),
            (std::vector<int32_t>{1, -1, 0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN}));
  Tensor g = Tensor::from_vector<float>({5}, {300.7f, -5.0f, 255.5f, 0.99f, nan});
  EXPECT_EQ(values<uint8_t>(g.cast(DType::UInt8)), (std::vector<uint8_t>{255, 0, 255, 0, 0}));
  Tensor d = Tensor::from_vector<double>({2}, {1e300, -1e300});
  EXPECT_EQ(values<int64_t>(d.cast(DType::Int64)), (std::vector<int64_t>{INT64_MAX, INT64_MIN}));
}

TEST(TensorCast, Bool) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor f = Tensor::from_vector<float>({4}, {0.0f, -0.0f, 0.5f, nan});
  EXPECT_EQ(values<bool>(f.cast(DType::Bool)), (std::vector<bool>{false, false, true, true}));
  Tensor i = Tensor::from_vector<int32_t>({3}, {0, 7, -1});
  EXPECT_EQ(values<bool>(i.cast(DType::Bool)), (std::vector<bool>{false, true, true}));
  Tensor b = Tensor::from_vector<bool>({2}, {true, false});
  EXPECT_EQ(values<float>(b.cast(DType::Float32)), (std::vector<float>{1.0f, 0.0f}));
  EXPECT_EQ(values<int64_t>(b.cast(DType::Int64)), (std::vector<int64_t>{1, 0}));
}

TEST(TensorCast, BetweenNumericTypes) {
  // int -> narrower int wraps modulo 2^8 (C++20 semantics): 300 -> 44, -129 -> 127.
  Tensor i = Tensor::from_vector<int64_t>({2}, {300, -129});
  EXPECT_EQ(values<int8_t>(i.cast(DType::Int8)), (std::vector<int8_t>{44, 127}));
  // 2^24 + 1 is not representable in float32; rounds to even (2^24).
  Tensor big = Tensor::from_vector<int32_t>({1}, {16777217});
  EXPECT_EQ(values<float>(big.cast(DType::Float32))[0], 16777216.0f);
  Tensor dn = Tensor::from_vector<double>({2}, {0.1, std::nan("")});
  Tensor fn = dn.cast(DType::Float32);
  EXPECT_EQ(values<float>(fn)[0], 0.1f);
  EXPECT_TRUE(std::isnan(values<float>(fn)[1]));
  Tensor same = Tensor::from_vector<float>({2, 1}, {1.5f, -2.5f}).cast(DType::Float32);
  EXPECT_EQ(same.shape(), (Shape{2, 1}));
  EXPECT_EQ(values<float>(same), (std::vector<float>{1.5f, -2.5f}));
}

}  // namespace
}  // namespace kiln
