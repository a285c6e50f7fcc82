#include "kiln/dse/placed_point.h"


namespace kiln::dse {

ExplorePoint placed_point(rtl::Pricer& pricer, const hls::Model& model,
                          const loop::Program& program, const rtl::RtlOptions& options,
                          const rtl::PlacedDesign& design, const std::string& title) {
  ExplorePoint p;
  for (std::size_t k = 0; k < design.plans.size(); ++k) {
    p.plans.push_back(design.plans[k].plan);
    p.texts.push_back(rtl::describe(program.kernels[k], design.plans[k].plan));
  }
  p.placed = Objectives::of(design.latency, design.interval, design.resources);
  p.resources = design.resources;
  const bool streamed = !rtl::streamed_inputs(program, options).empty();
  p.plans_yaml = rtl::design_plans_yaml(pricer, model, design.plans, streamed, title);
  return p;
}

}  // namespace kiln::dse
