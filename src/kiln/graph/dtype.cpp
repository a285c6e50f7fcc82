#include "kiln/graph/dtype.h"

namespace kiln {

std::size_t dtype_size(DType t) {
  return visit_dtype(t, [](auto v) { return sizeof(v); });
}

const char* dtype_name(DType t) {
  return enum_name(t).data();  // the names are string literals: NUL-terminated
}

bool is_float(DType t) {
  return t == DType::Float32 || t == DType::Float64;
}

bool is_signed_int(DType t) {
  return t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64;
}

bool is_unsigned_int(DType t) {
  return t == DType::UInt8 || t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
}

}  // namespace kiln
