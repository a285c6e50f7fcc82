// resolve_config: every layer gets its settings from the config
// (LayerName > LayerType > Model > defaults, docs/config.md), and the model
// its part, clock, IO type and backend. "Precision: auto" fields get their
// base type here and their integer bits in auto_precision; layers configured
// by TargetCycles keep reuse factor 1 until reuse_from_target_cycles.
//
// Config mistakes that need the model are reported here, naming the key:
// layer names no layer has, reuse factors a layer cannot use, an encoded
// implementation for a kind that has none.
#include <algorithm>

#include "kiln/hls/derived.h"
#include "kiln/hls/layer_passes/pipeline.h"
#include "kiln/support/error.h"
#include "kiln/support/strings.h"

namespace kiln::hls {

namespace {

std::string describe(const Layer& l) {
  return std::string(layer_kind_name(l.kind())) + " layer '" + l.name + "'";
}

class ResolveConfig final : public LayerPass {
 public:
  explicit ResolveConfig(const Config& cfg) : cfg_(cfg) {}
  std::string_view name() const override { return "resolve_config"; }

  bool run(Model& m) override {
    m.part = cfg_.part;
    m.clock_period_ns = cfg_.clock_period_ns;
    m.io_type = cfg_.io_type;
    m.backend = cfg_.backend;
    m.style = cfg_.style;
    m.rtl = model_rtl_settings();
    check_layer_names(m);
    for (Layer& l : m.layers) {
      l.rtl = layer_rtl_settings(l);
      if (l.kind() == LayerKind::Clone) {
        l.precision.result = m.tensors[static_cast<std::size_t>(l.inputs.at(0))].type;
      } else {
        resolve(l);
      }
      // The model's quantizer fixes its format whatever the config says.
      if (l.kind() == LayerKind::Quantize) l.precision.result = l.as<QuantizeParams>().format;
      for (int t : l.outputs) m.tensors[static_cast<std::size_t>(t)].type = l.precision.result;
    }
    return true;
  }

 private:
  void check_layer_names(const Model& m) const {
    std::vector<std::string> names;
    for (const Layer& l : m.layers) {
      names.push_back(l.name);
      if (!l.onnx_name.empty()) names.push_back(l.onnx_name);
    }
    for (const auto& [key, lc] : cfg_.by_name) {
      if (std::find(names.begin(), names.end(), key) != names.end()) continue;
      const auto w = cfg_.by_name_where.find(key);
      const std::string where =
          w != cfg_.by_name_where.end() ? w->second : cfg_.source + ": LayerName." + key;
      std::string hint;
      if (auto best = closest_spelling(key, names))
        hint = "did you mean '" + *best + "'?";
      else
        hint = "`kiln config MODEL.onnx --granularity name` lists the layer names";
      throw_error(ErrorKind::InvalidModel, where, "no layer named '" + key + "' in the model",
                  hint);
    }
  }

  ModelRtlSettings model_rtl_settings() const {
    ModelRtlSettings r;
    r.scheduler = cfg_.scheduler;
    r.latency_cycles = cfg_.latency_cycles;
    r.directives = cfg_.directives;
    r.io_type_set = cfg_.io_type_set;
    r.strategy_set = cfg_.model.strategy.has_value();
    for (const auto& [kind, lc] : cfg_.by_type) r.strategy_set |= lc.strategy.has_value();
    for (const auto& [name, lc] : cfg_.by_name) r.strategy_set |= lc.strategy.has_value();
    return r;
  }

  // kiln rtl's reading of the same keys: an interval target from
  // TargetCycles or an explicit ReuseFactor for every kind of layer (kiln
  // compile's only for the kinds it folds), the multiplier limit and a
  // convolution's form where set.
  LayerRtlSettings layer_rtl_settings(const Layer& l) const {
    const ResolvedLayerConfig r = resolve_layer_config(cfg_, l);
    LayerRtlSettings s;
    if (r.target_cycles && r.target_level >= r.reuse_level)
      s.target_cycles = r.target_cycles;
    else if (r.reuse_level != ConfigLevel::Default)
      s.reuse_factor = r.reuse_factor;
    s.multiplier_limit = r.multiplier_limit;
    s.multiplier_limit_shared = r.multiplier_limit_level == ConfigLevel::Model;
    if (l.kind() == LayerKind::Conv && r.conv_impl_level != ConfigLevel::Default)
      s.line_buffer = r.conv_impl == ConvImpl::LineBuffer;
    s.constant_products = r.constant_products;
    s.adder_depth = r.adder_depth;
    return s;
  }

  void resolve(Layer& l) const {
    const ResolvedLayerConfig r = resolve_layer_config(cfg_, l);
    // Automatic fields carry their base type; auto_precision sets the integer bits.
    l.precision.weight = r.weight.type;
    l.precision.bias = r.bias.type;
    l.precision.result = r.result.type;
    l.precision.accum = r.accum.type;
    l.precision.table = r.table.type;
    l.precision.inv_table = r.inv_table.type;
    l.precision.log_table = r.log_table.type;
    l.strategy = r.strategy;
    l.tables.table_size = r.table_size;
    l.tables.table_range = r.table_range;
    l.tables.inv_table_size = r.table_size;

    // An encoded implementation set for this layer or its kind must exist;
    // a model-wide one applies to the kinds that have it.
    if (has_implementation(l.kind(), r.conv_impl)) {
      l.conv_impl = r.conv_impl;
    } else if (r.conv_impl_level == ConfigLevel::Name || r.conv_impl_level == ConfigLevel::Type) {
      throw_error(
          ErrorKind::InvalidModel,
          cfg_.source + ": " + config_key_path(cfg_, l, r.conv_impl_level, "ConvImplementation"),
          std::string(enum_name(r.conv_impl)) + " is not an implementation of " + describe(l),
          "only Conv layers have the encoded implementation; remove the key");
    } else {
      l.conv_impl = ConvImpl::LineBuffer;
    }

    // Reuse factor: TargetCycles (where it applies) when it is set at least
    // as specifically as ReuseFactor; otherwise ReuseFactor, validated, never
    // snapped to a valid one.
    const LayerKindInfo& info = layer_kind_info(l.kind());
    l.target_cycles = 0;
    l.reuse_factor = 1;
    if (info.target_cycles && r.target_cycles && r.target_level >= r.reuse_level) {
      l.target_cycles = *r.target_cycles;  // reuse_from_target_cycles picks the factor
    } else if (info.multipliers || r.reuse_level == ConfigLevel::Name ||
               r.reuse_level == ConfigLevel::Type) {
      const std::vector<int64_t> valid = valid_reuse_factors(l);
      if (std::find(valid.begin(), valid.end(), r.reuse_factor) == valid.end())
        throw_error(
            ErrorKind::InvalidModel,
            cfg_.source + ": " + config_key_path(cfg_, l, r.reuse_level, "ReuseFactor"),
            "reuse factor " + std::to_string(r.reuse_factor) + " is not valid for " + describe(l),
            "valid reuse factors for this layer: " + join(valid, ", "));
      l.reuse_factor = r.reuse_factor;
    }
    // Otherwise a model-wide reuse factor, which applies to layers with
    // multipliers only.
  }

  const Config& cfg_;
};

}  // namespace

std::unique_ptr<LayerPass> make_resolve_config(const LayerPassContext& context) {
  KILN_ASSERT(context.config != nullptr, "resolve_config needs a config");
  return std::make_unique<ResolveConfig>(*context.config);
}

}  // namespace kiln::hls
