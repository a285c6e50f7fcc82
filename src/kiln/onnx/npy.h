// NumPy .npy files (format versions 1.0-3.0, little-endian, C order).
#pragma once

#include <filesystem>

#include "kiln/graph/tensor.h"

namespace kiln::onnx_import {

Tensor read_npy(const std::filesystem::path& path);
void write_npy(const std::filesystem::path& path, const Tensor& tensor);

// Reads a .pb (TensorProto) or .npy file, chosen by extension.
Tensor read_tensor_file(const std::filesystem::path& path);
// Writes `tensor` in the format given by the extension of `path` (.pb or .npy).
void write_tensor_file(const std::filesystem::path& path, const Tensor& tensor,
                       const std::string& name);

}  // namespace kiln::onnx_import
