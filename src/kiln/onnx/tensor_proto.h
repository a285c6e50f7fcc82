// ONNX TensorProto <-> kiln::Tensor, and .pb tensor files.
#pragma once

#include <filesystem>
#include <string>

#include "kiln/graph/tensor.h"

namespace onnx {
class TensorProto;
}

namespace kiln::onnx_import {

// Converts a TensorProto (raw_data, typed *_data fields or external data
// resolved against `base_dir`). Throws InvalidModel naming `where` when the
// data does not match the declared shape, Unsupported for element types kiln
// lacks (float16, string, ...).
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::filesystem::path& base_dir,
                         const std::string& where);
void tensor_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto);

// A serialized TensorProto file (the ONNX backend-test input_N.pb / output_N.pb).
Tensor read_tensor_pb(const std::filesystem::path& path, std::string* name = nullptr);
void write_tensor_pb(const std::filesystem::path& path, const Tensor& tensor,
                     const std::string& name);

}  // namespace kiln::onnx_import
