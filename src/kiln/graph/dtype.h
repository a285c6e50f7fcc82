// Element types of tensors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "kiln/support/enum_table.h"
#include "kiln/support/error.h"

namespace kiln {

enum class DType : uint8_t {
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Bool,
};

template <>
struct EnumNames<DType> {
  static constexpr std::pair<DType, std::string_view> kNames[] = {
      {DType::Float32, "float32"}, {DType::Float64, "float64"}, {DType::Int8, "int8"},
      {DType::Int16, "int16"},     {DType::Int32, "int32"},     {DType::Int64, "int64"},
      {DType::UInt8, "uint8"},     {DType::UInt16, "uint16"},   {DType::UInt32, "uint32"},
      {DType::UInt64, "uint64"},   {DType::Bool, "bool"}};
};

std::size_t dtype_size(DType t);
const char* dtype_name(DType t);  // "float32", "int64", ... (EnumNames<DType>)
bool is_float(DType t);
bool is_signed_int(DType t);
bool is_unsigned_int(DType t);
inline bool is_integer(DType t) {
  return is_signed_int(t) || is_unsigned_int(t);
}

// The C++ type that stores one element of a DType (bool is stored as uint8_t-sized bool).
template <DType T>
struct DTypeTraits;
template <>
struct DTypeTraits<DType::Float32> {
  using type = float;
};
template <>
struct DTypeTraits<DType::Float64> {
  using type = double;
};
template <>
struct DTypeTraits<DType::Int8> {
  using type = int8_t;
};
template <>
struct DTypeTraits<DType::Int16> {
  using type = int16_t;
};
template <>
struct DTypeTraits<DType::Int32> {
  using type = int32_t;
};
template <>
struct DTypeTraits<DType::Int64> {
  using type = int64_t;
};
template <>
struct DTypeTraits<DType::UInt8> {
  using type = uint8_t;
};
template <>
struct DTypeTraits<DType::UInt16> {
  using type = uint16_t;
};
template <>
struct DTypeTraits<DType::UInt32> {
  using type = uint32_t;
};
template <>
struct DTypeTraits<DType::UInt64> {
  using type = uint64_t;
};
template <>
struct DTypeTraits<DType::Bool> {
  using type = bool;
};

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() {
  return DType::Float32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::Float64;
}
template <>
constexpr DType dtype_of<int8_t>() {
  return DType::Int8;
}
template <>
constexpr DType dtype_of<int16_t>() {
  return DType::Int16;
}
template <>
constexpr DType dtype_of<int32_t>() {
  return DType::Int32;
}
template <>
constexpr DType dtype_of<int64_t>() {
  return DType::Int64;
}
template <>
constexpr DType dtype_of<uint8_t>() {
  return DType::UInt8;
}
template <>
constexpr DType dtype_of<uint16_t>() {
  return DType::UInt16;
}
template <>
constexpr DType dtype_of<uint32_t>() {
  return DType::UInt32;
}
template <>
constexpr DType dtype_of<uint64_t>() {
  return DType::UInt64;
}
template <>
constexpr DType dtype_of<bool>() {
  return DType::Bool;
}

// Calls f(T{}) with T the element type of `t`: the one place that turns a
// runtime DType into a compile-time type, so kernels are written once.
template <class F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    case DType::Int8: return f(int8_t{});
    case DType::Int16: return f(int16_t{});
    case DType::Int32: return f(int32_t{});
    case DType::Int64: return f(int64_t{});
    case DType::UInt8: return f(uint8_t{});
    case DType::UInt16: return f(uint16_t{});
    case DType::UInt32: return f(uint32_t{});
    case DType::UInt64: return f(uint64_t{});
    case DType::Bool: return f(bool{});
  }
  KILN_ASSERT(false, "unknown DType");
  return f(float{});
}

// Like visit_dtype, restricted to numeric (non-bool) types; `what` names the op
// for the error raised on bool.
template <class F>
decltype(auto) visit_numeric_dtype(DType t, const std::string& where, F&& f) {
  if (t == DType::Bool)
    throw_error(ErrorKind::Unsupported, where, "element type bool is not supported here",
                "cast the tensor to a numeric type in the model");
  return visit_dtype(t, [&](auto v) -> decltype(auto) {
    if constexpr (std::is_same_v<decltype(v), bool>) {
      return f(int8_t{});  // unreachable: handled above
    } else {
      return f(v);
    }
  });
}

// Float types only (float32, float64).
template <class F>
decltype(auto) visit_float_dtype(DType t, const std::string& where, F&& f) {
  if (t == DType::Float64) return f(double{});
  if (t != DType::Float32)
    throw_error(ErrorKind::Unsupported, where,
                std::string("element type ") + dtype_name(t) + " is not supported by this op",
                "only float32 and float64 are; cast the input in the model");
  return f(float{});
}

}  // namespace kiln
