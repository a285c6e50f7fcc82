#include "kiln/hls/layer_passes/pipeline.h"

namespace kiln::hls {

namespace {

struct Row {
  const char* name;
  const char* description;
  std::unique_ptr<LayerPass> (*make)(const LayerPassContext&);
};

// The registry and the default pipeline, in pipeline order.
constexpr Row kPasses[] = {
    {"absorb_port_transposes",
     "fold a layout Transpose right after a model input or right before a model output into the "
     "port's permutation",
     &make_absorb_port_transposes},
    {"resolve_config",
     "apply LayerName > LayerType > Model > defaults to every layer; check layer names and reuse "
     "factors",
     &make_resolve_config},
    {"auto_precision", "fill 'Precision: auto' fields from the constants and the profile",
     &make_auto_precision},
    {"model_quantizers",
     "a quantized model's quantizers set its formats: absorbed into the layer before them, kept "
     "by layers that move values, exact weights and accumulators between them",
     &make_model_quantizers},
    {"reuse_from_target_cycles", "choose the reuse factor of layers configured by TargetCycles",
     &make_reuse_from_target_cycles},
    {"quantize", "quantize weights and biases to their layer's formats", &make_quantize},
    {"split_wide_concats",
     "turn a Concat of more than 4 inputs into a chain of Concats of at most 4",
     &make_split_wide_concats},
    {"check_supported",
     "refuse layers the HLS layer library cannot build (geometry, fused activations, limits)",
     &make_check_supported},
    {"insert_clones",
     "copy tensors with several readers: stream clones in io_stream, an internal copy of an "
     "output port that layers read in io_parallel",
     &make_insert_clones},
};

}  // namespace

PassRegistry<Model> layer_passes(const LayerPassContext& context) {
  PassRegistry<Model> r;
  for (const Row& row : kPasses) {
    auto make = row.make;
    r.add(row.name, row.description, [make, context] { return make(context); });
  }
  return r;
}

std::vector<std::string> layer_pipeline() {
  std::vector<std::string> names;
  for (const Row& row : kPasses) names.emplace_back(row.name);
  return names;
}

}  // namespace kiln::hls
