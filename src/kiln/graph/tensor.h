// Shapes and dense tensors (row-major, any element type of DType).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "kiln/graph/dtype.h"

namespace kiln {

using Shape = std::vector<int64_t>;

// memcpy that accepts empty ranges: an empty tensor's data() may be null, and
// memcpy with a null pointer is undefined even for zero bytes.
inline void copy_bytes(void* dst, const void* src, std::size_t n) {
  if (n != 0) std::memcpy(dst, src, n);
}

// Number of elements; 1 for a scalar (rank 0).
int64_t shape_numel(const Shape& s);
std::string shape_to_string(const Shape& s);  // "1x3x224x224", "scalar" for rank 0
// Row-major strides in elements.
std::vector<int64_t> shape_strides(const Shape& s);
// Whether a tensor of shape `c` broadcasts (numpy rules, right-aligned) to
// shape `x` and varies along x's `axis` at most: every dimension of c is 1
// except the one lined up with `axis`, which may equal x[axis]. (A constant
// of one value, or one per channel.)
bool broadcasts_along_axis(const Shape& c, const Shape& x, std::size_t axis);

// The largest tensor kiln will allocate, in elements; bigger declared shapes are
// rejected as absurd rather than attempted (2^33 floats = 32 GiB, over any board).
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 33;

// Checks that every dimension is >= 0 and the element count is sane; throws
// InvalidModel naming `where` otherwise.
void check_shape_sane(const Shape& s, const std::string& where);

struct TensorType {
  DType dtype = DType::Float32;
  Shape shape;
  int64_t numel() const { return shape_numel(shape); }
  std::string to_string() const;  // "float32[1x3x224x224]"
  bool operator==(const TensorType&) const = default;
};

class Tensor {
 public:
  Tensor() = default;
  // Zero-initialized tensor.
  Tensor(DType dtype, Shape shape);
  explicit Tensor(const TensorType& type) : Tensor(type.dtype, type.shape) {}

  template <class T>
  static Tensor from_vector(Shape shape, const std::vector<T>& values) {
    Tensor t(dtype_of<T>(), std::move(shape));
    KILN_ASSERT(static_cast<int64_t>(values.size()) == t.numel(), "value count != shape");
    auto d = t.data<T>();
    for (std::size_t i = 0; i < values.size(); ++i) d[i] = values[i];
    return t;
  }
  template <class T>
  static Tensor scalar(T value) {
    return from_vector<T>({}, {value});
  }

  DType dtype() const { return type_.dtype; }
  const Shape& shape() const { return type_.shape; }
  const TensorType& type() const { return type_; }
  int64_t rank() const { return static_cast<int64_t>(type_.shape.size()); }
  int64_t numel() const { return numel_; }
  std::size_t byte_size() const { return bytes_.size(); }

  template <class T>
  std::span<T> data() {
    KILN_ASSERT(dtype_of<T>() == dtype(), std::string("tensor is ") + dtype_name(dtype()));
    return {reinterpret_cast<T*>(bytes_.data()), static_cast<std::size_t>(numel_)};
  }
  template <class T>
  std::span<const T> data() const {
    KILN_ASSERT(dtype_of<T>() == dtype(), std::string("tensor is ") + dtype_name(dtype()));
    return {reinterpret_cast<const T*>(bytes_.data()), static_cast<std::size_t>(numel_)};
  }
  std::span<std::byte> raw() { return bytes_; }
  std::span<const std::byte> raw() const { return bytes_; }

  // Element i converted to double / int64 (for comparisons, folding of shape values).
  double as_double(int64_t i) const;
  int64_t as_int64(int64_t i) const;
  // All elements as int64 (shape tensors, axes); throws if not an integer tensor.
  std::vector<int64_t> to_int64_vector(const std::string& where) const;

  // Same data, new shape of equal element count.
  Tensor reshaped(Shape shape) const;
  // Element-wise conversion to `to` with C++ conversion semantics (ONNX Cast).
  Tensor cast(DType to) const;

 private:
  TensorType type_;
  int64_t numel_ = 0;
  std::vector<std::byte> bytes_;
};

}  // namespace kiln
