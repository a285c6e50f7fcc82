// Lowering of a passed graph (passes::run_hls_pipeline) to the HLS layer
// model (model.h), with the configuration resolved per layer and constants
// quantized. docs/config.md describes the resolution rules; docs/hls-layers.md
// lists the supported layers.
#pragma once

#include "kiln/graph/graph.h"
#include "kiln/hls/config.h"
#include "kiln/hls/model.h"
#include "kiln/hls/profile.h"

namespace kiln::hls {

// Cycles TargetCycles reserves for moving data in and out of a layer
// (T_overhead of seed 002 eq. 5): RF = (TargetCycles - kTargetCyclesOverhead) / N_calls.
inline constexpr int64_t kTargetCyclesOverhead = 10;

// Lowers `g` to layers. Throws Unsupported naming the node for graphs the
// HLS layers cannot express, InvalidModel for configs that do not fit the
// model (unknown layer names, invalid reuse factors, "auto" without data).
// `profile` (may be null) fills "Precision: auto" results and accumulators.
Model build_model(const Graph& g, const Config& cfg, const Profile* profile);

// The reuse factor TargetCycles picks for a Dense/Conv layer: the largest
// valid one <= (target_cycles - kTargetCyclesOverhead) / N_calls (at least 1),
// N_calls = output pixels for Conv, 1 for Dense.
int64_t reuse_factor_for_target(const Layer& layer, int64_t target_cycles);

}  // namespace kiln::hls
