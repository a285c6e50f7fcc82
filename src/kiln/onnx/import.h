// ONNX model import: protobuf -> graph IR with static shapes and folded constants.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "kiln/graph/graph.h"

namespace onnx {
class ModelProto;
}

namespace kiln::onnx_import {

struct ImportOptions {
  // Value for dimension 0 of every graph input (--batch). When unset, a
  // symbolic dimension 0 becomes 1 and fixed ones are kept.
  std::optional<int64_t> batch;
  // Full shapes for named inputs (--input-shape NAME=1x3x32x32); wins over batch.
  std::map<std::string, Shape> input_shapes;
  // Graph inputs to treat as constants with these values: specializes a model
  // whose shape parameters (slice bounds, target shapes, axes) arrive as
  // runtime inputs. Each tensor must match the input's declared type.
  std::map<std::string, Tensor> constant_inputs;
};

// Reads `path` (and any external-data files next to it). Throws kiln::Error:
// Io if unreadable, InvalidModel if malformed or inconsistent, Unsupported for
// valid models using ops, types or features kiln lacks.
Graph import_model(const std::filesystem::path& path, const ImportOptions& options = {});

// Same from a parsed proto; `base_dir` resolves external data locations.
Graph import_model_proto(const onnx::ModelProto& model, const std::filesystem::path& base_dir,
                         const ImportOptions& options = {}, const std::string& where = "model");

// Parses "1x3x224x224" (also "1,3,224,224"); throws Usage on bad text.
Shape parse_shape(const std::string& text, const std::string& where);

}  // namespace kiln::onnx_import
