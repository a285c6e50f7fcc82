// `kiln info`: a per-layer summary of a model (shapes, parameters, MACs).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/graph/graph.h"
#include "kiln/onnx/import.h"

namespace kiln::commands {

struct LayerInfo {
  std::string name;  // sanitized identifier
  std::string onnx_name;
  std::string op;
  std::vector<Shape> input_shapes;  // runtime (non-constant) inputs only
  std::vector<Shape> output_shapes;
  int64_t params = 0;
  int64_t macs = 0;
};

struct PortInfo {
  std::string name;
  TensorType type;
};

struct ModelInfo {
  std::string model;  // graph name
  int64_t opset = 0;
  std::vector<PortInfo> inputs, outputs;
  std::vector<LayerInfo> layers;
  int64_t total_params = 0;  // every constant parameter used by a layer
  int64_t total_macs = 0;
  std::string ir;  // the graph IR listing, when asked for
};

ModelInfo describe_model(const Graph& graph);
// Loads the model (ONNX or IR text) and describes it; with `with_ir` the
// info also holds the graph IR listing.
ModelInfo describe_model(const std::filesystem::path& model,
                         const onnx_import::ImportOptions& import, bool with_ir);
// Fixed-width text table with a totals row, then the IR listing if any.
std::string format_info_table(const ModelInfo& info);
nlohmann::json info_to_json(const ModelInfo& info);

}  // namespace kiln::commands
