// What each layer of a design is built as, decided before any is built: its
// plan (the config's Loop directives; the TargetCycles or ReuseFactor search;
// folding onto its multipliers; LatencyCycles raising the searched ones),
// with the program's kernels and buffers changed to match (line-buffered
// forms, weights in registers), and the channels between the layers those
// plans make possible (channels.h). build_design (design.h) then builds and
// connects the stages in order.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kiln/fpga/devices.h"
#include "kiln/rtl/channels.h"
#include "kiln/rtl/layer_plan.h"

namespace kiln::rtl {

struct LayerChoice {
  LayerPlan plan;
  std::string why;  // the search's or the fold's reason; empty for a configured plan
};

// The layer's MultiplierLimit (RtlOptions::multiplier_limits), if any.
std::optional<int> multiplier_limit_of(const RtlOptions& options, const loop::Kernel& kernel);

// One plan per kernel of `program`, in order; changes `program` as the plans
// need. `stage` gives the clock, family and scheduler the candidates are
// built with (each alone: no dataflow timing).
std::vector<LayerChoice> plan_layers(loop::Program& program, const hls::Model& model,
                                     const RtlOptions& options, const StageOptions& stage,
                                     const dfg::UnrollOptions& unroll, const fpga::Device& device);

// The channels between the planned layers: for every tensor one kept loop
// writes and one other kept loop reads, the channel plan_channel finds, each
// checked by verify_channel.
std::vector<Channel> plan_channels(const loop::Program& program,
                                   const std::vector<LayerChoice>& plans);

}  // namespace kiln::rtl
