// auto_precision: "Precision: auto" fields (docs/config.md) get the integer
// bits auto_fixed_type() derives from the largest magnitude: of the layer's
// own constants for weights and biases, of the profile (`kiln profile`, or
// samples given to `kiln compile --profile`) for results and accumulators.
// Fields the layer does not use keep their base type.
#include <cmath>

#include "kiln/hls/layer_passes/pipeline.h"
#include "kiln/support/error.h"

namespace kiln::hls {

namespace {

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

class AutoPrecision final : public LayerPass {
 public:
  explicit AutoPrecision(const LayerPassContext& ctx) : cfg_(*ctx.config), profile_(ctx.profile) {}
  std::string_view name() const override { return "auto_precision"; }

  bool run(Model& m) override {
    bool changed = false;
    for (Layer& l : m.layers) {
      if (l.kind() == LayerKind::Clone) continue;
      const ResolvedLayerConfig r = resolve_layer_config(cfg_, l);
      const LayerProfile* lp = profile_ ? profile_->find(l.name) : nullptr;
      auto fill = [&](const PrecisionSpec& spec, PrecisionField field, const char* key,
                      FixedType& type, auto range_of) {
        if (!spec.automatic || !uses_field(l, field)) return;
        const std::optional<double> range = range_of();
        if (!range)
          throw_error(ErrorKind::InvalidModel,
                      cfg_.source + ": Precision." + key + " of " + layer_kind_name(l.kind()) +
                          " layer '" + l.name + "'",
                      "'auto' needs profile data for this layer",
                      "profile the model (kiln profile) or give a type");
        type = auto_fixed_type(*range, type);
        changed = true;
      };
      auto constants = [](const std::vector<double>& v) {
        return [&v]() -> std::optional<double> {
          if (v.empty()) return std::nullopt;
          return max_abs(v);
        };
      };
      auto profiled = [lp](ValueRange LayerProfile::*f) {
        return [lp, f]() -> std::optional<double> {
          if (!lp || (lp->*f).empty()) return std::nullopt;
          return (lp->*f).max_abs();
        };
      };
      fill(r.weight, PrecisionField::Weight, "weight", l.precision.weight,
           constants(l.float_weights));
      fill(r.bias, PrecisionField::Bias, "bias", l.precision.bias, constants(l.float_bias));
      fill(r.result, PrecisionField::Result, "result", l.precision.result,
           profiled(&LayerProfile::result));
      fill(r.accum, PrecisionField::Accum, "accum", l.precision.accum,
           profiled(&LayerProfile::accum));
      for (int t : l.outputs) m.tensors[static_cast<std::size_t>(t)].type = l.precision.result;
    }
    return changed;
  }

 private:
  const Config& cfg_;
  const Profile* profile_;
};

}  // namespace

std::unique_ptr<LayerPass> make_auto_precision(const LayerPassContext& context) {
  KILN_ASSERT(context.config != nullptr, "auto_precision needs a config");
  return std::make_unique<AutoPrecision>(context);
}

}  // namespace kiln::hls
