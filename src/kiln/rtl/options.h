// The RTL options a configuration asks for: Model.Scheduler and each layer's
// MultiplierLimit, resolved LayerName > LayerType > Model (docs/config.md).
#pragma once

#include "kiln/hls/config.h"
#include "kiln/hls/model.h"
#include "kiln/rtl/design.h"

namespace kiln::rtl {

Scheduler scheduler_of(hls::RtlScheduler s);

// One multiplier_limits entry per layer of `model` that has a limit.
RtlOptions rtl_options(const hls::Config& config, const hls::Model& model);

}  // namespace kiln::rtl
