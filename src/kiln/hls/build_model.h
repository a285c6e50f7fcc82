// Graph -> configured HLS layer model: structural lowering (lower_graph.h),
// then the layer pass pipeline (layer_passes/pipeline.h), with the model
// verified after every step. docs/config.md describes how the configuration
// resolves; docs/hls-layers.md lists the supported layers.
#pragma once

#include "kiln/graph/graph.h"
#include "kiln/hls/config.h"
#include "kiln/hls/model.h"
#include "kiln/hls/profile.h"
#include "kiln/support/pass.h"

namespace kiln::hls {

// Lowers `g` (a graph passed through passes::run_hls_pipeline) to layers.
// Throws Unsupported naming the node or layer for graphs the HLS layers
// cannot express, InvalidModel for configs that do not fit the model
// (unknown layer names, invalid reuse factors, "auto" without data).
// `profile` (may be null) fills "Precision: auto" results and accumulators.
// `hooks` see the model before and after each layer pass.
Model build_model(const Graph& g, const Config& cfg, const Profile* profile,
                  const PassHooks<Model>& hooks = {});

}  // namespace kiln::hls
