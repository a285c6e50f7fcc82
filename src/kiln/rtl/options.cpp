#include "kiln/rtl/options.h"

#include <algorithm>
#include <limits>

namespace kiln::rtl {

Scheduler scheduler_of(hls::RtlScheduler s) {
  switch (s) {
    case hls::RtlScheduler::Asap: return Scheduler::Asap;
    case hls::RtlScheduler::List: return Scheduler::List;
    case hls::RtlScheduler::Sdc: return Scheduler::Sdc;
  }
  return Scheduler::List;
}

RtlOptions rtl_options(const hls::Config& config, const hls::Model& model) {
  RtlOptions o;
  o.scheduler = scheduler_of(config.scheduler.value_or(hls::kDefaultRtlScheduler));
  for (const hls::Layer& layer : model.layers)
    if (const auto limit = hls::resolve_layer_config(config, layer).multiplier_limit)
      o.multiplier_limits.emplace_back(
          layer.name, static_cast<int>(std::min<int64_t>(*limit, std::numeric_limits<int>::max())));
  for (const hls::Layer& layer : model.layers)
    if (const auto target = hls::resolve_layer_config(config, layer).target_cycles)
      o.target_cycles.emplace_back(layer.name, *target);
  o.loops = config.loops;
  o.buffers = config.buffers;
  return o;
}

}  // namespace kiln::rtl
