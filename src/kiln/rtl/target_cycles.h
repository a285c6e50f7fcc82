// TargetCycles in kiln rtl (issue 10): a layer with an interval target
// (TargetCycles, or the II its ReuseFactor gives in kiln compile) and no Loop
// directive of its own is built the way that meets the target with the
// fewest resources kiln can find. The plans tried: fully unrolled, and each
// top-level loop kept and pipelined, unrolled by each factor of its trip
// count from the smallest up (the first that meets the target is the
// cheapest of that loop: more copies only cost more), with the weights it
// reads in two-port ROM banks or in registers. Each plan is built (scheduled,
// bound, priced by the operator library) and its interval compared with the
// target; the cost is the share of the device it takes (LUT + FF + DSP +
// BRAM18 fractions), so one DSP weighs what 1/6,840 of a VU9P's DSPs do.
#pragma once

#include <cstdint>
#include <string>

#include "kiln/estimate/devices.h"
#include "kiln/rtl/layer_plan.h"

namespace kiln::rtl {

struct PlanChoice {
  LayerPlan plan;
  int interval = 0;  // cycles between samples the layer takes
  double cost = 0;   // share of the device
  int tried = 0;     // plans built
  std::string why;   // for the report
};

// Throws kiln::Error(InvalidModel) naming the layer when no plan meets
// `target`, with the closest plan and its interval.
PlanChoice choose_plan(const loop::Program& program, int kernel, const IntervalTarget& target,
                       const RtlOptions& options, const StageOptions& stage,
                       const dfg::UnrollOptions& unroll, const estimate::Device& device);

// Weights (Const buffers) kernel `kernel` loads put in registers, except those
// the config's Buffer block names.
void keep_weights_in_registers(loop::Program& program, int kernel, const RtlOptions& options);

}  // namespace kiln::rtl
