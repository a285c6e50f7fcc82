#include "kiln/commands/pictures.h"

#include <fstream>

#include "kiln/commands/explore.h"
#include "kiln/hls/model_json.h"
#include "kiln/hls/project_writer.h"
#include "kiln/support/error.h"
#include "kiln/tools/process.h"

#ifndef KILN_PLOT_SCRIPT_PATH
#define KILN_PLOT_SCRIPT_PATH ""
#endif

namespace kiln::commands {

namespace fs = std::filesystem;

namespace {

// kiln_plot.py: $KILN_PLOT_SCRIPT, else the source tree's.
fs::path plot_script() {
  if (const char* env = std::getenv("KILN_PLOT_SCRIPT")) return env;
  return KILN_PLOT_SCRIPT_PATH;
}

// Debian's python3 (its matplotlib), else the first on PATH.
std::string python() {
  if (fs::exists("/usr/bin/python3")) return "/usr/bin/python3";
  if (const auto p = tools::find_program("python3")) return p->string();
  throw_error(ErrorKind::Unsupported, "python3", "not found; kiln draws its pictures with it",
              "install python3 and python3-matplotlib (scripts/install-deps.sh)");
}

void refuse_existing(const fs::path& file, bool overwrite) {
  if (fs::exists(file) && !overwrite)
    throw_error(ErrorKind::Usage, file.string(), "file exists", "pass --force to replace it");
  const fs::path dir = fs::absolute(file).parent_path();
  if (!fs::is_directory(dir))
    throw_error(ErrorKind::Io, file.string(), "its directory " + dir.string() + " does not exist",
                "create it first or write elsewhere");
}

// Runs kiln_plot.py `what` on `data`, drawing to `file` (written whole).
void draw(const std::string& what, const nlohmann::json& data, const fs::path& file) {
  const fs::path script = plot_script();
  if (script.empty() || !fs::exists(script))
    throw_error(ErrorKind::Unsupported, "kiln_plot.py",
                "not found" + (script.empty() ? std::string() : " at " + script.string()),
                "set KILN_PLOT_SCRIPT to src/kiln/python/kiln_plot.py of kiln's sources");
  fs::path dir = fs::absolute(file).parent_path();
  const fs::path json_file = dir / (file.filename().string() + ".kiln-data.json");
  const fs::path partial =
      dir / (file.filename().string() + ".kiln-partial" + file.extension().string());
  {
    std::ofstream out(json_file);
    out << data.dump() << "\n";
    if (!out) throw_error(ErrorKind::Io, json_file.string(), "cannot be written", "");
  }
  const tools::ProcessResult r =
      tools::run_process(python(), {script.string(), what, json_file.string(), partial.string()});
  std::error_code ec;
  fs::remove(json_file, ec);
  if (!r.ok()) {
    fs::remove(partial, ec);
    if (r.err.find("No module named 'matplotlib'") != std::string::npos)
      throw_error(ErrorKind::Unsupported, "python3", "has no matplotlib",
                  "install python3-matplotlib (scripts/install-deps.sh)");
    throw_error(ErrorKind::Internal, script.string(),
                "drawing failed (" + r.status_text() + "): " + r.err.substr(0, 400), "");
  }
  fs::rename(partial, file, ec);
  if (ec) throw_error(ErrorKind::Io, file.string(), "cannot be written: " + ec.message(), "");
}

nlohmann::json type_text(const numeric::FixedType& t) {
  return t.to_string();
}

}  // namespace

void check_plot_file(const fs::path& file, bool overwrite) {
  const std::string ext = file.extension().string();
  if (ext != ".png" && ext != ".svg" && ext != ".pdf")
    throw_error(
        ErrorKind::Usage, file.string(),
        "a picture format kiln does not write" + (ext.empty() ? std::string() : " (" + ext + ")"),
        "name the file .png, .svg or .pdf");
  refuse_existing(file, overwrite);
}

void check_html_file(const fs::path& file, bool overwrite) {
  refuse_existing(file, overwrite);
}

void plot_profile_file(const ProfileResult& profile, const fs::path& file, bool overwrite) {
  check_plot_file(file, overwrite);
  draw("profile", profile_to_json(profile), file);
}

nlohmann::json report_data(const fs::path& project) {
  const ReportResult r = report_project(project);
  nlohmann::json j;
  j["model"] = r.model.name;
  j["part"] = r.model.part;
  j["clock_ns"] = r.model.clock_period_ns;
  j["estimate"] = report_to_json(r);
  // The types each layer computes in, by layer name (the profile's names).
  nlohmann::json types = nlohmann::json::object();
  for (const hls::Layer& l : r.model.layers)
    types[l.name] = {{"weight", type_text(l.precision.weight)},
                     {"bias", type_text(l.precision.bias)},
                     {"result", type_text(l.precision.result)},
                     {"accum", type_text(l.precision.accum)}};
  j["types"] = types;
  const hls::ModelFile file = hls::load_model_json(project / hls::kModelJsonFile);
  const std::string copy = file.source.is_object() ? file.source.value("onnx_copy", "") : "";
  if (!copy.empty() && fs::exists(project / copy)) {
    ProfileOptions o;
    if (file.source.contains("import")) o.import = import_from_json(file.source["import"]);
    // The data the project was profiled with, while it is still there.
    const std::string data = file.source.value("profile_data", "");
    if (!data.empty() && fs::is_directory(data)) o.data = data;
    j["profile"] = profile_to_json(profile_model(project / copy, o));
    j["profile_source"] =
        o.data ? "the data sets in " + data : std::to_string(o.samples) + " random inputs";
  }
  if (fs::exists(project / kCsimReportFile)) {
    std::ifstream in(project / kCsimReportFile);
    j["csim"] = nlohmann::json::parse(in, nullptr, false);
    if (j["csim"].is_discarded()) j.erase("csim");
  }
  return j;
}

void write_report_html(const fs::path& project, const fs::path& file, bool overwrite) {
  check_html_file(file, overwrite);
  if (is_explore_dir(project)) {
    draw("explore", explore_dir_json(project), file);
    return;
  }
  draw("report", report_data(project), file);
}

}  // namespace kiln::commands
