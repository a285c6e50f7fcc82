// reuse_from_target_cycles: a layer configured by TargetCycles (seed 002
// eq. 5; resolve_config records the target) gets the largest valid reuse
// factor whose II, as the estimator computes it, meets the target
// (derived.h reuse_factor_for_target).
#include "kiln/hls/derived.h"
#include "kiln/hls/layer_passes/pipeline.h"

namespace kiln::hls {

namespace {

class ReuseFromTargetCycles final : public LayerPass {
 public:
  std::string_view name() const override { return "reuse_from_target_cycles"; }

  bool run(Model& m) override {
    bool changed = false;
    for (Layer& l : m.layers) {
      if (l.target_cycles <= 0 || !layer_kind_info(l.kind()).target_cycles) continue;
      const int64_t rf = reuse_factor_for_target(m, l, l.target_cycles);
      changed |= rf != l.reuse_factor;
      l.reuse_factor = rf;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<LayerPass> make_reuse_from_target_cycles(const LayerPassContext&) {
  return std::make_unique<ReuseFromTargetCycles>();
}

}  // namespace kiln::hls
