#include "kiln/rtl/plan/options.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "kiln/hls/derived.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

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
std::vector<std::pair<std::string, int>> multiplier_limits(const hls::Model& model) {
  std::vector<std::pair<std::string, int>> out;
  std::vector<std::pair<std::string, int64_t>> sharing;  // layer, products
  int64_t budget = 0, capped = 0, total = 0;
  for (const hls::Layer& layer : model.layers) {
    const hls::LayerRtlSettings& rs = layer.rtl;
    if (!rs.multiplier_limit) continue;
    if (!rs.multiplier_limit_shared) {
      out.emplace_back(layer.name, clamp_int(*rs.multiplier_limit));
      capped += *rs.multiplier_limit;
      continue;
    }
    if (layer.kind() == hls::LayerKind::Input) continue;
    budget = *rs.multiplier_limit;
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

RtlOptions rtl_options(const hls::Model& model) {
  const hls::ModelRtlSettings& settings = model.rtl;
  RtlOptions o;
  o.scheduler = settings.scheduler.value_or(hls::kDefaultRtlScheduler);
  o.multiplier_limits = multiplier_limits(model);
  // An interval target per layer (hls/rtl_settings.h): TargetCycles, or the
  // II an explicit ReuseFactor gives in kiln compile's estimate.
  for (const hls::Layer& layer : model.layers) {
    if (layer.kind() == hls::LayerKind::Input) continue;  // nothing to build
    const hls::LayerRtlSettings& rs = layer.rtl;
    if (rs.target_cycles) {
      o.interval_targets.push_back(
          {layer.name, *rs.target_cycles, fmt::format("TargetCycles {}", *rs.target_cycles)});
    } else if (rs.reuse_factor) {
      const int64_t ii = hls::product_layer_ii(model, layer, *rs.reuse_factor);
      if (ii > 0)
        o.interval_targets.push_back(
            {layer.name, ii,
             fmt::format("ReuseFactor {} (II {} in kiln compile's estimate)", *rs.reuse_factor,
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
  o.latency_cycles = settings.latency_cycles;
  // LatencyCycles alone searches every layer too: no layer's interval can
  // exceed the latency it is given, so that is each one's target, and the
  // latency search (search.h) raises the plans until their latencies fit.
  if (o.latency_cycles)
    for (const hls::Layer& layer : model.layers) {
      if (layer.kind() == hls::LayerKind::Input || o.fold.count(layer.name)) continue;
      bool targeted = false;
      for (const IntervalTarget& t : o.interval_targets)
        targeted = targeted || t.layer == layer.name;
      if (!targeted)
        o.interval_targets.push_back(
            {layer.name, *o.latency_cycles, fmt::format("LatencyCycles {}", *o.latency_cycles)});
    }
  for (const hls::Layer& layer : model.layers) {
    if (layer.rtl.line_buffer) o.line_buffer[layer.name] = *layer.rtl.line_buffer;
    if (layer.rtl.constant_products)
      o.constants_on_dsps[layer.name] = *layer.rtl.constant_products == hls::ConstantProducts::Dsp;
    if (layer.rtl.adder_depth)
      o.least_depth[layer.name] = *layer.rtl.adder_depth == hls::AdderDepth::Least;
  }
  // Keys kiln compile reads that leave kiln rtl's design as it is.
  if (settings.io_type_set) o.stream_inputs = model.io_type == hls::IOType::Stream;
  if (settings.strategy_set)
    o.notes.push_back(
        "Strategy shapes kiln compile's project only: kiln rtl folds a layer as far as its "
        "TargetCycles or ReuseFactor allows, whatever the strategy");
  o.directives = settings.directives;
  for (const auto& [name, d] : o.directives.loops)
    o.configured_layers.insert(name.substr(0, name.find('/')));
  for (const auto& [name, d] : o.directives.buffers) o.configured_buffers.insert(name);
  return o;
}

void set_plan(RtlOptions& options, const hls::Model& model, const std::string& layer,
              const LayerPlan& plan) {
  // The layer's earlier plan, if any, goes first.
  for (auto it = options.directives.loops.begin(); it != options.directives.loops.end();)
    it = it->first.rfind(layer + "/", 0) == 0 ? options.directives.loops.erase(it) : std::next(it);
  options.line_buffer.erase(layer);
  const loop::Program lowered = design_program(model, options);
  int kernel = -1;
  for (std::size_t k = 0; k < lowered.kernels.size(); ++k)
    if (lowered.kernels[k].name == layer) kernel = static_cast<int>(k);
  if (kernel < 0)
    throw_error(ErrorKind::InvalidModel, "layer '" + layer + "'", "is not a layer of the model",
                "name a layer kiln rtl builds (kiln rtl --list-loops lists them)");
  const bool both_forms = loop::can_line_buffer(lowered, model, kernel);
  if (both_forms) options.line_buffer[layer] = plan.line_buffered;
  // The kernel in the plan's form, so that the directives name its loops.
  const loop::Program program = plan.line_buffered ? design_program(model, options) : lowered;
  for (int b : weights_of(program, kernel)) {
    options.directives.buffers.erase(program.buffers[static_cast<std::size_t>(b)].name);
    options.configured_buffers.erase(program.buffers[static_cast<std::size_t>(b)].name);
  }
  const PlanConfig c = plan_config(program, kernel, plan, both_forms);
  for (const auto& [name, d] : c.directives.loops) options.directives.loops[name] = d;
  for (const auto& [name, d] : c.directives.buffers) {
    options.directives.buffers[name] = d;
    options.configured_buffers.insert(name);
  }
  options.configured_layers.insert(layer);
  options.constants_on_dsps[layer] = c.constant_products == hls::ConstantProducts::Dsp;
  options.least_depth[layer] = c.adder_depth == hls::AdderDepth::Least;
  std::erase_if(options.multiplier_limits, [&](const auto& l) { return l.first == layer; });
  if (c.multiplier_limit) options.multiplier_limits.emplace_back(layer, *c.multiplier_limit);
}

int64_t input_lanes(const RtlOptions& options, const loop::Buffer& buffer) {
  const int64_t numel = buffer.numel();
  const int64_t pixel = buffer.shape.size() >= 2 ? buffer.shape.back() : numel;
  if (pixel <= 0 || pixel >= numel || numel % pixel != 0) return numel;
  const int64_t beats = numel / pixel;
  if (options.stream_inputs) return *options.stream_inputs ? pixel : numel;
  if (options.interval_targets.empty()) return numel;
  for (const IntervalTarget& t : options.interval_targets)
    if (t.cycles < beats) return numel;
  if (options.latency_cycles && beats * kBeatsPerLatency > *options.latency_cycles) return numel;
  return pixel;
}

std::map<int, int64_t> streamed_inputs(const loop::Program& program, const RtlOptions& options) {
  std::map<int, int64_t> out;
  for (int b : program.inputs) {
    const int storage = program.storage_of(b);
    const loop::Buffer& buffer = program.buffers[static_cast<std::size_t>(storage)];
    if (const int64_t lanes = input_lanes(options, buffer); lanes < buffer.numel())
      out[storage] = lanes;
  }
  return out;
}

}  // namespace kiln::rtl
