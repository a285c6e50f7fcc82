#include "kiln/onnx/proto_util.h"

#include <google/protobuf/io/coded_stream.h>

#include <cctype>
#include <climits>
#include <fstream>
#include <sstream>
#include <system_error>

namespace kiln::onnx_import {

DType dtype_from_onnx(int32_t elem_type, const std::string& where) {
  using TP = ::onnx::TensorProto;
  switch (elem_type) {
    case TP::FLOAT: return DType::Float32;
    case TP::DOUBLE: return DType::Float64;
    case TP::INT8: return DType::Int8;
    case TP::INT16: return DType::Int16;
    case TP::INT32: return DType::Int32;
    case TP::INT64: return DType::Int64;
    case TP::UINT8: return DType::UInt8;
    case TP::UINT16: return DType::UInt16;
    case TP::UINT32: return DType::UInt32;
    case TP::UINT64: return DType::UInt64;
    case TP::BOOL: return DType::Bool;
    case TP::FLOAT16:
    case TP::BFLOAT16:
    case TP::STRING:
    case TP::COMPLEX64:
    case TP::COMPLEX128:
      throw_error(ErrorKind::Unsupported, where,
                  "element type " + onnx_type_name(elem_type) + " is not supported by kiln",
                  "kiln handles float32/float64, signed and unsigned integers and bool; "
                  "convert the model (e.g. float16 -> float32)");
    case TP::UNDEFINED:
      throw_error(ErrorKind::InvalidModel, where, "element type is undefined (0)",
                  "the model must declare a data type for this tensor");
    default:
      throw_error(ErrorKind::InvalidModel, where,
                  "unknown element type code " + std::to_string(elem_type),
                  "the file may be corrupt or come from a newer ONNX version");
  }
}

int32_t onnx_from_dtype(DType dtype) {
  using TP = ::onnx::TensorProto;
  switch (dtype) {
    case DType::Float32: return TP::FLOAT;
    case DType::Float64: return TP::DOUBLE;
    case DType::Int8: return TP::INT8;
    case DType::Int16: return TP::INT16;
    case DType::Int32: return TP::INT32;
    case DType::Int64: return TP::INT64;
    case DType::UInt8: return TP::UINT8;
    case DType::UInt16: return TP::UINT16;
    case DType::UInt32: return TP::UINT32;
    case DType::UInt64: return TP::UINT64;
    case DType::Bool: return TP::BOOL;
  }
  KILN_ASSERT(false, "unknown DType");
  return TP::UNDEFINED;
}

std::string onnx_type_name(int32_t elem_type) {
  if (::onnx::TensorProto_DataType_IsValid(elem_type)) {
    std::string name =
        ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(elem_type));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return name;
  }
  return "data type " + std::to_string(elem_type);
}

std::string read_file_bytes(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw_error(ErrorKind::Io, path.string(), "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw_error(ErrorKind::Io, path.string(), "cannot open file",
                "check that the path exists and is readable");
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw_error(ErrorKind::Io, path.string(), "error while reading file");
  return std::move(buf).str();
}

bool parse_proto(const std::string& bytes, google::protobuf::MessageLite* message) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) return false;
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(INT_MAX);
  return message->ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
}

}  // namespace kiln::onnx_import
