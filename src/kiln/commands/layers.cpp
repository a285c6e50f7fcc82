#include "kiln/commands/layers.h"

#include <fmt/format.h>

#include "kiln/commands/hls_flow.h"
#include "kiln/flow/configure.h"
#include "kiln/hls/model_text.h"
#include "kiln/support/error.h"

namespace kiln::commands {

namespace fs = std::filesystem;

LayersResult show_layers(const fs::path& model, const LayersOptions& options) {
  if (options.output && fs::exists(*options.output) && !options.overwrite)
    throw_error(ErrorKind::Usage, options.output->string(), "file exists",
                "pass --force to replace it");

  hls::LayerTextOptions text;
  if (!options.full) text.inline_limit = 16;
  LayersResult r;
  PassHooks<hls::Model> hooks;
  hooks.before = [&](std::string_view, const hls::Model& m) {
    if (!r.stages.empty()) return;
    LayersStage s;
    s.record.name = "lower_graph";
    s.record.changed = true;
    if (options.print_after_all) s.text = hls::print_layers(m, text);
    r.stages.push_back(std::move(s));
  };
  hooks.after = [&](std::string_view name, const hls::Model& m, bool changed) {
    LayersStage s;
    s.record.name = std::string(name);
    s.record.changed = changed;
    if (options.print_after_all) s.text = hls::print_layers(m, text);
    r.stages.push_back(std::move(s));
  };
  const hls::Model m = flow::configure_model(model, options, hooks).model;
  if (options.output) {
    write_text_file(*options.output, hls::print_layers(m), options.overwrite);
    r.written = *options.output;
  } else if (!options.print_after_all) {
    r.final_text = hls::print_layers(m, text);
  }
  return r;
}

std::string format_layers(const LayersResult& r) {
  std::string s;
  for (const LayersStage& st : r.stages)
    if (!st.text.empty())
      s += fmt::format("# ---- after {} ({}) ----\n{}", st.record.name,
                       st.record.changed ? "changed" : "unchanged", st.text);
  s += r.final_text;
  for (const LayersStage& st : r.stages)
    if (st.record.name != "lower_graph")
      s +=
          fmt::format("# {:<26} {}\n", st.record.name, st.record.changed ? "changed" : "unchanged");
  if (!r.written.empty()) s += "# wrote " + r.written.string() + "\n";
  return s;
}

nlohmann::json layers_to_json(const LayersResult& r) {
  nlohmann::json passes = nlohmann::json::array();
  for (const LayersStage& st : r.stages)
    passes.push_back({{"pass", st.record.name}, {"changed", st.record.changed}});
  nlohmann::json j = {{"passes", passes}};
  if (!r.written.empty()) j["written"] = r.written.string();
  if (!r.final_text.empty()) j["text"] = r.final_text;
  return j;
}

}  // namespace kiln::commands
