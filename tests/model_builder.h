// Small ONNX models built in C++ for tests that need a specific (often broken) model.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kiln::testing {

// x:float[1,1,4,4] -> Conv(w 2x1x3x3, b 2, pad 1) -> Relu -> y:float[1,2,4,4], opset 13.
::onnx::ModelProto small_conv_model();

void add_value_info(::onnx::ValueInfoProto* vi, const std::string& name,
                    const std::vector<int64_t>& dims, int elem_type = 1);
void add_float_initializer(::onnx::GraphProto* g, const std::string& name,
                           const std::vector<int64_t>& dims, float fill = 0.5f);
void save_model(const ::onnx::ModelProto& m, const std::filesystem::path& path);
// A fresh empty directory under the system temp dir.
std::filesystem::path fresh_temp_dir(const std::string& tag);

}  // namespace kiln::testing
