#include "kiln/graph/tensor.h"

#include <cmath>
#include <limits>
#include <string>

namespace kiln {

int64_t shape_numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

bool broadcasts_along_axis(const Shape& c, const Shape& x, std::size_t axis) {
  if (c.size() > x.size()) return false;
  for (std::size_t k = 0; k < c.size(); ++k) {
    const std::size_t d = x.size() - c.size() + k;  // the dimension of x it lines up with
    if (c[k] != 1 && !(d == axis && c[k] == x[d])) return false;
  }
  return true;
}

std::string shape_to_string(const Shape& s) {
  if (s.empty()) return "scalar";
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += "x";
    out += std::to_string(s[i]);
  }
  return out;
}

std::vector<int64_t> shape_strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int64_t i = static_cast<int64_t>(s.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

void check_shape_sane(const Shape& s, const std::string& where) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d < 0)
      throw_error(ErrorKind::InvalidModel, where,
                  "negative dimension " + std::to_string(d) + " in shape",
                  "fix the model's declared shape or pass --input-shape");
    if (d != 0 && n > kMaxTensorElements / d)
      throw_error(ErrorKind::InvalidModel, where,
                  "absurd shape [" + shape_to_string(s) + "] (more than 2^33 elements)",
                  "fix the model's declared shape or pass --input-shape");
    n *= d;
  }
}

std::string TensorType::to_string() const {
  return std::string(dtype_name(dtype)) + "[" + shape_to_string(shape) + "]";
}

Tensor::Tensor(DType dtype, Shape shape) {
  check_shape_sane(shape, "tensor");
  type_ = TensorType{dtype, std::move(shape)};
  numel_ = shape_numel(type_.shape);
  bytes_.assign(static_cast<std::size_t>(numel_) * dtype_size(dtype), std::byte{0});
}

double Tensor::as_double(int64_t i) const {
  KILN_ASSERT(i >= 0 && i < numel_, "element index out of range");
  return visit_dtype(dtype(), [&](auto v) {
    using T = decltype(v);
    return static_cast<double>(data<T>()[static_cast<std::size_t>(i)]);
  });
}

int64_t Tensor::as_int64(int64_t i) const {
  KILN_ASSERT(i >= 0 && i < numel_, "element index out of range");
  return visit_dtype(dtype(), [&](auto v) {
    using T = decltype(v);
    return static_cast<int64_t>(data<T>()[static_cast<std::size_t>(i)]);
  });
}

std::vector<int64_t> Tensor::to_int64_vector(const std::string& where) const {
  if (!is_integer(dtype()))
    throw_error(ErrorKind::InvalidModel, where,
                std::string("expected an integer tensor, got ") + dtype_name(dtype()));
  std::vector<int64_t> out(static_cast<std::size_t>(numel_));
  for (int64_t i = 0; i < numel_; ++i) out[static_cast<std::size_t>(i)] = as_int64(i);
  return out;
}

Tensor Tensor::reshaped(Shape shape) const {
  KILN_ASSERT(shape_numel(shape) == numel_, "reshape changes element count");
  Tensor t = *this;
  t.type_.shape = std::move(shape);
  return t;
}

namespace {
// Float -> integer conversion that is defined for every input (C++ leaves
// out-of-range conversions undefined): NaN -> 0, saturate at the type's range.
template <class To, class From>
To convert(From v) {
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To> &&
                !std::is_same_v<To, bool>) {
    if (std::isnan(v)) return To{0};
    const long double x = std::trunc(static_cast<long double>(v));
    if (x <= static_cast<long double>(std::numeric_limits<To>::min()))
      return std::numeric_limits<To>::min();
    if (x >= static_cast<long double>(std::numeric_limits<To>::max()))
      return std::numeric_limits<To>::max();
    return static_cast<To>(x);
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From{0};
  } else {
    return static_cast<To>(v);
  }
}
}  // namespace

Tensor Tensor::cast(DType to) const {
  Tensor out(to, shape());
  visit_dtype(dtype(), [&](auto from_v) {
    using From = decltype(from_v);
    visit_dtype(to, [&](auto to_v) {
      using To = decltype(to_v);
      auto src = data<From>();
      auto dst = out.data<To>();
      for (std::size_t i = 0; i < src.size(); ++i) dst[i] = convert<To>(src[i]);
    });
  });
  return out;
}

}  // namespace kiln
