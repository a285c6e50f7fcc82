// The RTL options a configuration asks for, from the layer model it was
// resolved into once (hls/rtl_settings.h; the config is not read again):
// Model.Scheduler, each layer's MultiplierLimit, its interval target from
// TargetCycles or ReuseFactor, the convolutions' forms and the Loop/Buffer
// directives (docs/config.md).
#pragma once

#include <map>

#include "kiln/hls/model.h"
#include "kiln/rtl/lower/design.h"
#include "kiln/rtl/plan/plan.h"

namespace kiln::rtl {

// One multiplier_limits entry per layer of `model` that has a limit (a
// LayerType or LayerName MultiplierLimit, or its share of the Model's, which
// is the design's budget shared by the layers' products), one
// interval_targets entry per layer with a TargetCycles or an explicit
// ReuseFactor, and `fold` for the Dense layers with a limit of 1 or more and
// no interval target.
RtlOptions rtl_options(const hls::Model& model);

// Fixes layer `layer`'s plan in `options` as a config of plan_config's
// blocks for it would (plans.yaml): its Loop and Buffer directives, its
// ConvImplementation where it has both forms, ConstantProducts, AdderDepth
// and, where the plan sets one, its MultiplierLimit. build_design then builds
// that plan and searches nothing for the layer. Throws kiln::Error
// (InvalidModel) for a layer the model lacks.
void set_plan(RtlOptions& options, const hls::Model& model, const std::string& layer,
              const LayerPlan& plan);

// The elements per beat of model input `buffer` (design.h Port): its last
// dimension when it is streamed, else all of it. With stream_inputs unset,
// an input streams when the design has interval targets and every target
// leaves room for its beats (a sample's beats come one a cycle, so the
// design's interval is at least their number), and a latency bound, if any,
// is at least kBeatsPerLatency times their number: the layers' latencies,
// priced alone, then have that share of it to overlap the beats with, and
// the first layer does not hold the whole input in registers (MobileNetV1's
// 96 x 96 x 3 image on a Zynq-7020: 221 K flip-flops and 57 K LUTs of
// multiplexers; 9,216 beats in a bound of 1,355,714 cycles).
inline constexpr int64_t kBeatsPerLatency = 16;
int64_t input_lanes(const RtlOptions& options, const loop::Buffer& buffer);

// The program's streamed inputs: storage buffer -> lanes, for each input
// input_lanes streams (fewer lanes than elements).
std::map<int, int64_t> streamed_inputs(const loop::Program& program, const RtlOptions& options);

}  // namespace kiln::rtl
