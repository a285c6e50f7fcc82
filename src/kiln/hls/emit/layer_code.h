// What each layer contributes to a generated project. The project writer
// (hls/project_writer.h) declares tensors and types and assembles the files;
// the per-family emitters (emit/dense_conv.cpp, emit/elementwise.cpp) turn one
// layer into its config struct, its call and its constant arrays.
//
// Names the writer guarantees (emitters may refer to them):
//  - `<tensor>_t`: typedef of each tensor's element format (TensorInfo::type).
//  - `<layer>_weight_t`, `<layer>_bias_t`, `<layer>_accum_t`, `<layer>_table_t`,
//    `<layer>_inv_table_t`: typedefs of the layer's Precision fields.
//  - io_parallel: tensor variables are arrays `<tensor>_t name[numel]`
//    (row-major, channels-last).
//    io_stream: `kiln::stream<kiln::array<<tensor>_t, C> > name` with C the
//    last dimension; one element per pixel (per row of the last axis).
//  - Every WeightArray becomes a namespace-scope array `<type> name[size]`
//    visible to the top function, in a header or loaded from a binary file.
#pragma once

#include <string>
#include <vector>

#include "kiln/hls/layer_kinds.h"
#include "kiln/hls/model.h"

namespace kiln::hls {

struct WeightArray {
  std::string name;       // C identifier, unique in the project (e.g. "<layer>_w")
  std::string type_name;  // e.g. "<layer>_weight_t"
  FixedType type;
  std::vector<int64_t> raw;  // values, raw in `type`
};

struct LayerCode {
  std::vector<std::string> includes;  // library headers, e.g. "kiln/dense.h"
  std::string config;                 // namespace-scope C++ (config structs)
  std::string call;                   // statements inside the top function
  std::vector<WeightArray> arrays;    // constants the call refers to
};

struct EmitContext {
  IOType io_type = IOType::Parallel;
  std::vector<std::string> inputs;   // the layer's input variables, in Layer::inputs order
  std::vector<std::string> outputs;  // its output variables, in Layer::outputs order
  const std::string& output() const { return outputs.at(0); }
};

// The code of one layer, from the emitter of its kind (a table in
// layer_code.cpp). Input layers produce empty code.
LayerCode emit_layer(const Model& model, const Layer& layer, const EmitContext& ctx);

// The emitters, per kind (emit/dense_conv.cpp, emit/elementwise.cpp,
// emit/resample.cpp).
LayerCode emit_dense(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_conv(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_recurrent(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_pool(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_zero_pad(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_activation(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_softmax(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_batchnorm(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_binary(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_concat(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_transpose(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_matmul(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_reshape(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_clone(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_slice(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_resize(const Model& model, const Layer& layer, const EmitContext& ctx);
LayerCode emit_quantize(const Model& model, const Layer& layer, const EmitContext& ctx);

// Decimal literal of an exact fixed value, e.g. "-0.3125" (W <= 53).
std::string fixed_literal(int64_t raw, const FixedType& type);

}  // namespace kiln::hls
