#include "kiln/commands/opt.h"

#include <fmt/format.h>

#include "kiln/graph/ir_text.h"
#include "kiln/hls/layer_passes/pipeline.h"
#include "kiln/onnx/load.h"
#include "kiln/passes/pipeline.h"
#include "kiln/support/error.h"
#include "kiln/support/strings.h"

namespace kiln::commands {

namespace fs = std::filesystem;

OptResult optimize(const fs::path& model, const OptOptions& options) {
  const std::vector<std::string> names =
      options.passes.empty() ? passes::hls_pipeline() : options.passes;
  const passes::GraphPipeline pipeline = passes::graph_passes().pipeline(names);
  if (options.output && fs::exists(*options.output) && !options.overwrite)
    throw_error(ErrorKind::Usage, options.output->string(), "file exists",
                "pass --force to replace it");
  Graph graph = onnx_import::load_model(model, options.import);

  OptResult r;
  Graph before;
  PassHooks<Graph> hooks;
  hooks.before = [&](std::string_view, const Graph& g) {
    if (options.verify_each) before = g;
  };
  hooks.after = [&](std::string_view name, const Graph& g, bool changed) {
    OptPassResult p;
    p.record.name = std::string(name);
    p.record.changed = changed;
    if (options.verify_each) {
      p.check = passes::compare_with_reference(before, g, options.verify_samples, options.seed);
      if (!p.check->agrees() && r.failed_pass.empty()) r.failed_pass = p.record.name;
    }
    if (options.print_after_all) p.ir = print_graph(g);
    r.passes.push_back(std::move(p));
  };
  const std::vector<PassRecord> records = pipeline.run(graph, hooks);
  for (std::size_t i = 0; i < records.size(); ++i) r.passes[i].record = records[i];

  if (options.output) {
    write_ir_file(graph, *options.output);
    r.written = *options.output;
  } else if (!options.print_after_all) {
    r.final_ir = print_graph(graph);
  }
  return r;
}

std::string format_opt(const OptResult& r) {
  std::string s;
  for (const OptPassResult& p : r.passes) {
    if (!p.ir.empty()) {
      s += fmt::format("# ---- after {} ({}) ----\n", p.record.name,
                       p.record.changed ? "changed" : "unchanged");
      s += p.ir;
    }
  }
  s += r.final_ir;
  std::string summary;
  for (const OptPassResult& p : r.passes) {
    summary += fmt::format("# {:<22} {:<9} {:>8.3f} s", p.record.name,
                           p.record.changed ? "changed" : "unchanged", p.record.seconds);
    if (p.check)
      summary += fmt::format("  reference: max abs error {:.3g} on {} samples ({})",
                             p.check->max_abs_error, p.check->samples,
                             p.check->agrees() ? "agrees" : "DIFFERS at " + p.check->worst_output);
    summary += "\n";
  }
  if (!r.written.empty()) summary += "# wrote " + r.written.string() + "\n";
  return s + summary;
}

nlohmann::json opt_to_json(const OptResult& r) {
  nlohmann::json passes = nlohmann::json::array();
  for (const OptPassResult& p : r.passes) {
    nlohmann::json j = {
        {"pass", p.record.name}, {"changed", p.record.changed}, {"seconds", p.record.seconds}};
    if (p.check)
      j["reference"] = {{"samples", p.check->samples},
                        {"max_abs_error", p.check->max_abs_error},
                        {"agrees", p.check->agrees()}};
    passes.push_back(std::move(j));
  }
  nlohmann::json j = {{"passes", passes}, {"failed_pass", r.failed_pass}};
  if (!r.written.empty()) j["written"] = r.written.string();
  return j;
}

namespace {
// The layer passes' names and descriptions (their factories are not called).
PassRegistry<hls::Model> layer_registry() {
  static const hls::Config kNoConfig;
  return hls::layer_passes(hls::LayerPassContext{&kNoConfig, nullptr});
}
}  // namespace

std::string format_passes() {
  std::string s = "graph passes (kiln opt --passes):\n";
  for (const auto& e : passes::graph_passes().entries())
    s += fmt::format("  {:<24} {}\n", e.name, e.description);
  s += "  default pipeline (kiln compile): " + join(passes::hls_pipeline(), ",") + "\n";
  s += "\nHLS layer passes (kiln layers --print-after-all):\n";
  const PassRegistry<hls::Model> registry = layer_registry();
  for (const auto& e : registry.entries()) s += fmt::format("  {:<24} {}\n", e.name, e.description);
  s += "  pipeline (kiln compile): lower_graph," + join(hls::layer_pipeline(), ",") + "\n";
  return s;
}

nlohmann::json passes_to_json() {
  nlohmann::json all = nlohmann::json::array(), layers = nlohmann::json::array();
  for (const auto& e : passes::graph_passes().entries())
    all.push_back({{"name", e.name}, {"description", e.description}});
  const PassRegistry<hls::Model> registry = layer_registry();
  for (const auto& e : registry.entries())
    layers.push_back({{"name", e.name}, {"description", e.description}});
  return {{"passes", all},
          {"default_pipeline", passes::hls_pipeline()},
          {"layer_passes", layers},
          {"layer_pipeline", hls::layer_pipeline()}};
}

}  // namespace kiln::commands
