// The RTL options a configuration asks for, from the layer model it was
// resolved into once (hls/rtl_settings.h; the config is not read again):
// Model.Scheduler, each layer's MultiplierLimit, its interval target from
// TargetCycles or ReuseFactor, the convolutions' forms and the Loop/Buffer
// directives (docs/config.md).
#pragma once

#include "kiln/hls/model.h"
#include "kiln/rtl/design.h"

namespace kiln::rtl {

// One multiplier_limits entry per layer of `model` that has a limit (a
// LayerType or LayerName MultiplierLimit, or its share of the Model's, which
// is the design's budget shared by the layers' products), one
// interval_targets entry per layer with a TargetCycles or an explicit
// ReuseFactor, and `fold` for the Dense layers with a limit of 1 or more and
// no interval target.
RtlOptions rtl_options(const hls::Model& model);

}  // namespace kiln::rtl
