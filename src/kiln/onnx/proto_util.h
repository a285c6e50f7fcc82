// Helpers shared by the ONNX importer's files (private to src/kiln/onnx).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "kiln/graph/dtype.h"

namespace kiln::onnx_import {

// ONNX TensorProto.DataType -> DType. Throws Unsupported for types kiln lacks
// (float16, bfloat16, string, complex) and InvalidModel for UNDEFINED or
// values that are no data type at all; `where` names the tensor or value.
DType dtype_from_onnx(int32_t elem_type, const std::string& where);
int32_t onnx_from_dtype(DType dtype);
// "float16", "string", ... for messages; "data type 99" for unknown codes.
std::string onnx_type_name(int32_t elem_type);

// Whole file as bytes; Io error naming the path if it cannot be read.
std::string read_file_bytes(const std::filesystem::path& path);

// Parses `bytes` into `message` with the total-size limit raised to INT_MAX so
// large models parse. Returns false on malformed input.
bool parse_proto(const std::string& bytes, google::protobuf::MessageLite* message);

}  // namespace kiln::onnx_import
