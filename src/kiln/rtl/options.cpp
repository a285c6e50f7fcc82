#include "kiln/rtl/options.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "kiln/hls/derived.h"

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
  // An interval target per layer, as kiln compile reads the same keys: a
  // TargetCycles set at the same or a more specific level than ReuseFactor
  // decides; else an explicit ReuseFactor asks for the II it gives there.
  for (const hls::Layer& layer : model.layers) {
    if (layer.kind() == hls::LayerKind::Input) continue;  // nothing to build
    const hls::ResolvedLayerConfig rc = hls::resolve_layer_config(config, layer);
    if (rc.target_cycles && rc.target_level >= rc.reuse_level) {
      o.interval_targets.push_back(
          {layer.name, *rc.target_cycles, fmt::format("TargetCycles {}", *rc.target_cycles)});
    } else if (rc.reuse_level != hls::ConfigLevel::Default) {
      const int64_t ii = hls::product_layer_ii(model, layer, rc.reuse_factor);
      if (ii > 0)
        o.interval_targets.push_back(
            {layer.name, ii,
             fmt::format("ReuseFactor {} (II {} in kiln compile's estimate)", rc.reuse_factor,
                         ii)});
    }
  }
  o.latency_cycles = config.latency_cycles;
  // ConvImplementation, where the config sets it: the form of a convolution's
  // kept loop (LineBuffer: streaming with line buffers, Encoded: direct).
  for (const hls::Layer& layer : model.layers) {
    if (layer.kind() != hls::LayerKind::Conv) continue;
    const hls::ResolvedLayerConfig rc = hls::resolve_layer_config(config, layer);
    if (rc.conv_impl_level != hls::ConfigLevel::Default)
      o.line_buffer[layer.name] = rc.conv_impl == hls::ConvImpl::LineBuffer;
  }
  // Keys kiln compile reads that leave kiln rtl's design as it is.
  bool strategy = config.model.strategy.has_value();
  for (const auto& [kind, lc] : config.by_type) strategy = strategy || lc.strategy.has_value();
  for (const auto& [name, lc] : config.by_name) strategy = strategy || lc.strategy.has_value();
  if (config.io_type == hls::IOType::Stream)
    o.notes.push_back(
        "IOType io_stream shapes kiln compile's project only: kiln rtl's layers hand results on "
        "in registers, as early as each consumer reads them (dataflow)");
  if (strategy)
    o.notes.push_back(
        "Strategy shapes kiln compile's project only: kiln rtl folds a layer as far as its "
        "TargetCycles or ReuseFactor allows, whatever the strategy");
  o.loops = config.loops;
  o.buffers = config.buffers;
  return o;
}

}  // namespace kiln::rtl
