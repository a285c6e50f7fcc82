// The RTL options a configuration asks for: Model.Scheduler, each layer's
// MultiplierLimit, and its interval target from TargetCycles or ReuseFactor,
// resolved LayerName > LayerType > Model (docs/config.md).
#pragma once

#include "kiln/hls/config.h"
#include "kiln/hls/model.h"
#include "kiln/rtl/design.h"

namespace kiln::rtl {

Scheduler scheduler_of(hls::RtlScheduler s);

// One multiplier_limits entry per layer of `model` that has a limit (a
// LayerType or LayerName MultiplierLimit, or its share of the Model's, which
// is the design's budget shared by the layers' products), one
// interval_targets entry per layer with a TargetCycles or an explicit
// ReuseFactor, and `fold` for the Dense layers with a limit of 1 or more and
// no interval target.
RtlOptions rtl_options(const hls::Config& config, const hls::Model& model);

}  // namespace kiln::rtl
