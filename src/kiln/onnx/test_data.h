// Data sets in the ONNX backend-test layout: DIR/test_data_set_N/input_K.pb
// (and output_K.pb), as ONNX's conformance data and the zoo's models carry
// them. `kiln test-onnx` compares with their outputs; `--profile-data` and
// `kiln profile --data` read their inputs.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "kiln/graph/tensor.h"

namespace kiln::onnx_import {

// The test_data_set_* directories of `dir`, sorted (empty if none).
std::vector<std::filesystem::path> test_data_sets(const std::filesystem::path& dir);

// A data set's PREFIX0.pb, PREFIX1.pb, ... in numeric order (input_10 after
// input_9); InvalidModel if a number is missing.
std::vector<std::filesystem::path> numbered_tensor_files(const std::filesystem::path& set,
                                                         const std::string& prefix);

// The inputs of every data set under `dir` (one sample per data set, in
// graph input order). Usage error if there are none.
std::vector<std::vector<Tensor>> read_test_data_inputs(const std::filesystem::path& dir);

}  // namespace kiln::onnx_import
