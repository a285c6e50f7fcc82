#include "kiln/commands/info.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "kiln/graph/ir_text.h"
#include "kiln/graph/layer_stats.h"
#include "kiln/onnx/load.h"

namespace kiln::commands {

namespace {
std::string shapes_text(const std::vector<Shape>& shapes) {
  std::string s;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (i) s += ", ";
    s += shape_to_string(shapes[i]);
  }
  return s.empty() ? "-" : s;
}

// 1234567 -> "1,234,567": parameter and MAC counts are easier to read grouped.
std::string grouped(int64_t v) {
  std::string digits = std::to_string(v);
  std::string out;
  int count = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (count && count % 3 == 0 && *it != '-') out.push_back(',');
    out.push_back(*it);
    ++count;
  }
  return {out.rbegin(), out.rend()};
}
}  // namespace

ModelInfo describe_model(const Graph& graph) {
  ModelInfo info;
  info.model = graph.name;
  info.opset = graph.opset;
  for (ValueId id : graph.inputs)
    info.inputs.push_back({graph.value(id).onnx_name, graph.value(id).type});
  for (ValueId id : graph.outputs)
    info.outputs.push_back({graph.value(id).onnx_name, graph.value(id).type});
  // A constant shared by several layers (tied weights) is counted once in the total.
  std::set<int32_t> counted;
  for (const Node& node : graph.nodes()) {
    LayerInfo layer;
    layer.name = node.name;
    layer.onnx_name = node.onnx_name;
    layer.op = std::string(op_name(node.kind));
    for (ValueId in : node.inputs) {
      if (!in.valid()) continue;
      const Value& v = graph.value(in);
      if (v.is_constant()) {
        if (counted.insert(in.index).second) info.total_params += v.type.numel();
      } else {
        layer.input_shapes.push_back(v.type.shape);
      }
    }
    for (ValueId out : node.outputs)
      if (out.valid()) layer.output_shapes.push_back(graph.value(out).type.shape);
    const LayerStats stats = layer_stats(graph, node);
    layer.params = stats.params;
    layer.macs = stats.macs;
    info.total_macs += stats.macs;
    info.layers.push_back(std::move(layer));
  }
  return info;
}

ModelInfo describe_model(const std::filesystem::path& model,
                         const onnx_import::ImportOptions& import, bool with_ir) {
  const Graph graph = onnx_import::load_model(model, import);
  ModelInfo info = describe_model(graph);
  if (with_ir) info.ir = print_graph(graph);
  return info;
}

std::string format_info_table(const ModelInfo& info) {
  std::size_t wname = 5, wop = 2, win = 5, wout = 6;
  for (const LayerInfo& l : info.layers) {
    wname = std::max(wname, l.name.size());
    wop = std::max(wop, l.op.size());
    win = std::max(win, shapes_text(l.input_shapes).size());
    wout = std::max(wout, shapes_text(l.output_shapes).size());
  }
  std::string out;
  out += fmt::format("model {} (opset {})\n", info.model.empty() ? "-" : info.model, info.opset);
  for (const PortInfo& p : info.inputs)
    out += fmt::format("input  {}: {}\n", p.name, p.type.to_string());
  for (const PortInfo& p : info.outputs)
    out += fmt::format("output {}: {}\n", p.name, p.type.to_string());
  out += "\n";
  out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:>12}  {:>14}\n", "layer", wname, "op", wop,
                     "input", win, "output", wout, "params", "MACs");
  for (const LayerInfo& l : info.layers)
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:>12}  {:>14}\n", l.name, wname, l.op, wop,
                       shapes_text(l.input_shapes), win, shapes_text(l.output_shapes), wout,
                       grouped(l.params), grouped(l.macs));
  out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:>12}  {:>14}\n",
                     fmt::format("total ({} layers)", info.layers.size()), wname, "", wop, "", win,
                     "", wout, grouped(info.total_params), grouped(info.total_macs));
  if (!info.ir.empty()) out += "\n" + info.ir;
  return out;
}

nlohmann::json info_to_json(const ModelInfo& info) {
  using nlohmann::json;
  auto port = [](const PortInfo& p) {
    return json{{"name", p.name}, {"dtype", dtype_name(p.type.dtype)}, {"shape", p.type.shape}};
  };
  json j;
  j["model"] = info.model;
  j["opset"] = info.opset;
  j["inputs"] = json::array();
  for (const PortInfo& p : info.inputs) j["inputs"].push_back(port(p));
  j["outputs"] = json::array();
  for (const PortInfo& p : info.outputs) j["outputs"].push_back(port(p));
  j["layers"] = json::array();
  for (const LayerInfo& l : info.layers)
    j["layers"].push_back({{"name", l.name},
                           {"onnx_name", l.onnx_name},
                           {"op", l.op},
                           {"input_shapes", l.input_shapes},
                           {"output_shapes", l.output_shapes},
                           {"params", l.params},
                           {"macs", l.macs}});
  j["total_params"] = info.total_params;
  j["total_macs"] = info.total_macs;
  return j;
}

}  // namespace kiln::commands
