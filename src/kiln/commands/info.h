// `kiln info`: a per-layer summary of a model (shapes, parameters, MACs).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/graph/graph.h"

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
};

ModelInfo describe_model(const Graph& graph);
// Fixed-width text table with a totals row.
std::string format_info_table(const ModelInfo& info);
nlohmann::json info_to_json(const ModelInfo& info);

}  // namespace kiln::commands
