// A frontier point from a design rtl::place_design placed: what every
// strategy (kiln's, seed 003's, exhaustive enumeration) records of it.
#pragma once

#include <string>

#include "kiln/dse/explore.h"
#include "kiln/loop/loop_ir.h"
#include "kiln/rtl/plan/options.h"
#include "kiln/rtl/plan/price.h"
#include "kiln/rtl/plan/search.h"

namespace kiln::dse {

// Its plans (and each in words), the placed objectives and resources, and
// the config that rebuilds it (rtl::design_plans_yaml, headed by `title`).
// The point's estimate and variant are the caller's.
ExplorePoint placed_point(rtl::Pricer& pricer, const hls::Model& model,
                          const loop::Program& program, const rtl::RtlOptions& options,
                          const rtl::PlacedDesign& design, const std::string& title);

}  // namespace kiln::dse
