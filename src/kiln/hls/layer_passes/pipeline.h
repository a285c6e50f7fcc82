// The HLS layer passes by name, and the pipeline that turns a structurally
// lowered model (hls/lower_graph.h) into the configured model the emitter,
// the emulator and the estimator read.
//
// Each pass is one file here: absorb_port_transposes.cpp, resolve_config.cpp,
// ... Every pass after lowering leaves a model that verify_model() accepts
// (support/pass.h runs it after each), so a faulty rewrite fails at the pass
// that made it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kiln/hls/config.h"
#include "kiln/hls/model.h"
#include "kiln/hls/profile.h"
#include "kiln/hls/verify.h"
#include "kiln/support/pass.h"

namespace kiln::hls {

using LayerPass = Pass<Model>;
using LayerPipeline = PassPipeline<Model>;

// What the passes read besides the model. Both must outlive the passes.
struct LayerPassContext {
  const Config* config = nullptr;    // never null when a pass runs
  const Profile* profile = nullptr;  // for "Precision: auto"; may be null
};

// Every layer pass, by name; factories bind `context`.
PassRegistry<Model> layer_passes(const LayerPassContext& context);

// The passes build_model() runs, in order: absorb_port_transposes,
// resolve_config, auto_precision, model_quantizers, reuse_from_target_cycles, quantize,
// split_wide_concats, check_supported, insert_clones.
std::vector<std::string> layer_pipeline();

// The factories behind the registry (one per file in this directory).
std::unique_ptr<LayerPass> make_absorb_port_transposes(const LayerPassContext& context);
std::unique_ptr<LayerPass> make_resolve_config(const LayerPassContext& context);
std::unique_ptr<LayerPass> make_auto_precision(const LayerPassContext& context);
std::unique_ptr<LayerPass> make_reuse_from_target_cycles(const LayerPassContext& context);
std::unique_ptr<LayerPass> make_quantize(const LayerPassContext& context);
std::unique_ptr<LayerPass> make_model_quantizers(const LayerPassContext& context);
std::unique_ptr<LayerPass> make_split_wide_concats(const LayerPassContext& context);
std::unique_ptr<LayerPass> make_check_supported(const LayerPassContext& context);
std::unique_ptr<LayerPass> make_insert_clones(const LayerPassContext& context);

}  // namespace kiln::hls
