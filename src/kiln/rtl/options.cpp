#include "kiln/rtl/options.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

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

namespace {

int clamp_int(int64_t v) {
  return static_cast<int>(std::min<int64_t>(v, std::numeric_limits<int>::max()));
}

// The products a layer computes per sample as hls4ml counts them: each output
// element of a Dense, Conv, MatMul or Recurrent layer sums n_in products; 0
// for the other kinds.
int64_t products_of(const hls::Model& model, const hls::Layer& layer) {
  const std::optional<hls::ProductShape> shape = hls::product_shape(layer);
  if (!shape || layer.outputs.empty()) return 0;
  return shape->n_in * model.tensors.at(static_cast<std::size_t>(layer.outputs[0])).numel();
}

// MultiplierLimit: a LayerType or LayerName value caps its layer; the Model
// value is the design's budget, shared by the other layers in proportion to
// the products each computes (largest remainders), after the caps; a share
// of 0 puts the layer's products of two variables in LUTs. When none of them
// has products to share by, each may use the whole budget.
std::vector<std::pair<std::string, int>> multiplier_limits(const hls::Config& config,
                                                           const hls::Model& model) {
  std::vector<std::pair<std::string, int>> out;
  std::vector<std::pair<std::string, int64_t>> sharing;  // layer, products
  int64_t budget = 0, capped = 0, total = 0;
  for (const hls::Layer& layer : model.layers) {
    const hls::ResolvedLayerConfig rc = hls::resolve_layer_config(config, layer);
    if (!rc.multiplier_limit) continue;
    if (rc.multiplier_limit_level != hls::ConfigLevel::Model) {
      out.emplace_back(layer.name, clamp_int(*rc.multiplier_limit));
      capped += *rc.multiplier_limit;
      continue;
    }
    if (layer.kind() == hls::LayerKind::Input) continue;
    budget = *rc.multiplier_limit;
    sharing.emplace_back(layer.name, products_of(model, layer));
    total += sharing.back().second;
  }
  const int64_t left = std::max<int64_t>(0, budget - capped);
  std::vector<int64_t> share(sharing.size(), total > 0 ? 0 : left);
  std::vector<std::pair<double, std::size_t>> remainders;
  int64_t given = 0;
  for (std::size_t i = 0; i < sharing.size() && total > 0; ++i) {
    const double exact = static_cast<double>(left) * static_cast<double>(sharing[i].second) /
                         static_cast<double>(total);
    share[i] = static_cast<int64_t>(exact);
    given += share[i];
    remainders.emplace_back(exact - static_cast<double>(share[i]), i);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t r = 0; r < remainders.size() && given < left; ++r, ++given)
    ++share[remainders[r].second];
  for (std::size_t i = 0; i < sharing.size(); ++i)
    out.emplace_back(sharing[i].first, clamp_int(share[i]));
  // In the model's layer order.
  std::vector<std::pair<std::string, int>> ordered;
  for (const hls::Layer& layer : model.layers)
    for (const auto& limit : out)
      if (limit.first == layer.name) ordered.push_back(limit);
  return ordered;
}

}  // namespace

RtlOptions rtl_options(const hls::Config& config, const hls::Model& model) {
  RtlOptions o;
  o.scheduler = scheduler_of(config.scheduler.value_or(hls::kDefaultRtlScheduler));
  o.multiplier_limits = multiplier_limits(config, model);
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
  // A Dense layer with multipliers of its own and no interval target folds
  // onto them (its products on DSPs, as hls4ml's reuse factor folds them).
  for (const auto& [layer, limit] : o.multiplier_limits) {
    if (limit < 1) continue;
    bool dense = false, targeted = false;
    for (const hls::Layer& l : model.layers)
      if (l.name == layer) dense = l.kind() == hls::LayerKind::Dense;
    for (const IntervalTarget& t : o.interval_targets) targeted = targeted || t.layer == layer;
    if (dense && !targeted) o.fold.insert(layer);
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
  for (const auto& [name, lc] : config.loops)
    o.configured_layers.insert(name.substr(0, name.find('/')));
  for (const auto& [name, bc] : config.buffers) o.configured_buffers.insert(name);
  return o;
}

}  // namespace kiln::rtl
