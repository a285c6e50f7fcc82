#include "kiln/rtl/dir/design_dir.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "kiln/fpga/devices.h"
#include "kiln/hls/model_json.h"
#include "kiln/hls/project_writer.h"
#include "kiln/netlist/text.h"
#include "kiln/netlist/verify.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json port_json(const Port& p, const std::string& onnx_name) {
  return {{"name", p.name},
          {"onnx_name", onnx_name},
          {"numel", p.numel},
          {"lanes", p.lanes_per_beat()},
          {"beats", p.beats()},
          {"width", p.type.width},
          {"frac", p.type.frac},
          {"signed", p.type.is_signed},
          {"type", loop::to_string(p.type)}};
}

// The raw cost terms the estimate's LUTs and FFs are fitted on
// (bench/calibrate.sh reads them).
json terms_json(const CostTerms& t) {
  json j = json::object();
  for (const auto& [term, name] : EnumNames<LutTerm>::kNames)
    j["lut_" + std::string(name)] = t.lut[static_cast<std::size_t>(term)];
  for (const auto& [term, name] : EnumNames<FfTerm>::kNames)
    j["ff_" + std::string(name)] = t.ff[static_cast<std::size_t>(term)];
  return j;
}

json stage_json(const StageReport& s) {
  return {{"name", s.name},
          {"onnx_name", s.onnx_name},
          {"plan", s.plan},
          {"loop_ops", s.loop_ops},
          {"nodes", s.nodes},
          {"multipliers", s.multipliers},
          {"multiplier_units", s.multiplier_units},
          {"const_multipliers", s.const_multipliers},
          {"adders", s.adders},
          {"product_adders", s.product_adders},
          {"sum_adders", s.sum_adders},
          {"adder_depth", s.adder_depth},
          {"lookups", s.lookups},
          {"dsp_pairs", s.dsp_pairs},
          {"shared_sums", s.shared_sums},
          {"start_cycle", s.start_cycle},
          {"latency_cycles", s.latency_cycles},
          {"interval_cycles", s.interval_cycles},
          {"register_bits", s.register_bits},
          {"critical_path_ns", s.critical_path_ns},
          {"loop_ii", s.loop_ii},
          {"estimate", fpga::to_json(s)},
          {"calibration", terms_json(s.terms)}};
}

[[noreturn]] void bad_report(const fs::path& file, const std::string& what) {
  throw_error(ErrorKind::InvalidModel, file.string(), what,
              "rewrite the design with this kiln's `kiln rtl MODEL -o DIR --force`");
}

Port port_from(const json& j, const fs::path& file) {
  Port p;
  try {
    p.name = j.at("name").get<std::string>();
    p.numel = j.at("numel").get<int64_t>();
    p.type.width = j.at("width").get<int>();
    p.type.frac = j.at("frac").get<int>();
    p.type.is_signed = j.at("signed").get<bool>();
    p.lanes = j.value("lanes", p.numel);
  } catch (const json::exception& e) {
    bad_report(file, std::string("a port entry is malformed: ") + e.what());
  }
  if (p.numel < 1 || p.type.width < 1 || p.type.width > 64 || p.lanes < 1 || p.numel % p.lanes != 0)
    bad_report(file, "port '" + p.name + "' has an impossible size, width or beat");
  return p;
}

}  // namespace

int testbench_capacity(const Design& d) {
  int64_t words = 0;
  for (const Port& p : d.inputs) words += p.numel;
  return static_cast<int>(
      std::clamp<int64_t>(kTestbenchMaxWords / std::max<int64_t>(words, 1), 1, kTestbenchCapacity));
}

json design_report(const Design& d, const hls::Model& m, const RtlOptions& o, int tb_capacity) {
  json inputs = json::array(), outputs = json::array();
  for (std::size_t i = 0; i < d.inputs.size(); ++i)
    inputs.push_back(
        port_json(d.inputs[i], i < m.input_ports.size() ? m.input_ports[i].onnx_name : ""));
  for (std::size_t i = 0; i < d.outputs.size(); ++i)
    outputs.push_back(
        port_json(d.outputs[i], i < m.output_ports.size() ? m.output_ports[i].onnx_name : ""));
  json stages = json::array();
  StageReport ops;  // totals over stages
  for (const StageReport& s : d.stages) {
    stages.push_back(stage_json(s));
    ops.loop_ops += s.loop_ops;
    ops.nodes += s.nodes;
    ops.multipliers += s.multipliers;
    ops.multiplier_units += s.multiplier_units;
    ops.const_multipliers += s.const_multipliers;
    ops.adders += s.adders;
    ops.product_adders += s.product_adders;
    ops.sum_adders += s.sum_adders;
    ops.adder_depth = std::max(ops.adder_depth, s.adder_depth);
    ops.lookups += s.lookups;
    ops.dsp_pairs += s.dsp_pairs;
    ops.shared_sums += s.shared_sums;
    ops.register_bits += s.register_bits;
  }
  json files = json::array();
  for (const auto& [name, text] : d.files) files.push_back(name);
  json handoffs = json::array();
  for (const Handoff& h : d.handoffs) {
    json j = {{"tensor", h.tensor},
              {"from", h.producer},
              {"to", h.consumer},
              {"through", h.channel ? "channel" : "registers"}};
    if (!h.channel) {
      j["why"] = h.why;
      j["register_bits"] = h.register_bits;
    }
    handoffs.push_back(std::move(j));
  }
  json limits = json::object();
  for (const auto& [layer, n] : o.multiplier_limits) limits[layer] = n;
  return {
      {"format", kReportFormat},
      {"version", kReportVersion},
      {"model", m.name},
      {"top", d.top},
      {"part", m.part},
      {"clock_period_ns", m.clock_period_ns},
      {"scheduler", std::string(enum_name(o.scheduler))},
      {"multiplier_limits", limits},
      {"latency_cycles", d.latency_cycles},
      {"interval_cycles", d.interval_cycles},
      {"clock_ns", d.clock_ns},
      {"critical_path_ns", d.critical_path_ns},
      {"timing_note",
       "clock_ns and critical_path_ns are estimates of kiln's operator delay model "
       "(sched/operator_library.h), not a timing report"},
      {"files", files},
      {"netlist", kNetlistFile},
      {"testbench",
       {{"file", kTestbenchFile}, {"top", kTestbenchTop}, {"max_samples", tb_capacity}}},
      {"inputs", inputs},
      {"outputs", outputs},
      {"stages", stages},
      {"ops",
       {{"loop_ops", ops.loop_ops},
        {"nodes", ops.nodes},
        {"multipliers", ops.multipliers},
        {"multiplier_units", ops.multiplier_units},
        {"const_multipliers", ops.const_multipliers},
        {"adders", ops.adders},
        {"product_adders", ops.product_adders},
        {"sum_adders", ops.sum_adders},
        {"adder_depth", ops.adder_depth},
        {"lookups", ops.lookups},
        {"dsp_pairs", ops.dsp_pairs},
        {"shared_sums", ops.shared_sums},
        {"register_bits", ops.register_bits}}},
      {"device", fpga::device_json(m.part, fpga::device_of_part(m.part))},
      {"estimate", fpga::to_json(estimate_of(d))},
      {"top_estimate",
       {{"delay_register_bits", d.top_report.register_bits},
        {"estimate", fpga::to_json(d.top_report)},
        {"calibration", terms_json(d.top_report.terms)}}},
      {"handoffs", handoffs},
      {"notes", o.notes},
  };
}

netlist::Design read_netlist(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw_error(ErrorKind::Io, file.string(), "cannot read the netlist",
                "check the path, or rewrite the design with `kiln rtl MODEL -o DIR --force`");
  std::ostringstream text;
  text << in.rdbuf();
  netlist::Design d = netlist::parse(text.str(), file.string());
  try {
    netlist::verify(d);
  } catch (const Error& e) {
    // verify() names a rule kiln's builders broke; in a file, the file did.
    throw_error(ErrorKind::InvalidModel, file.string(),
                "not a valid netlist: " + e.where() + ": " + e.what_happened(),
                "a netlist kiln rtl wrote verifies; rewrite the design, or fix the file");
  }
  return d;
}

netlist::Design load_netlist(const fs::path& dir) {
  return read_netlist(dir / kNetlistFile);
}

DesignDir load_design_dir(const fs::path& dir) {
  if (!fs::is_directory(dir))
    throw_error(ErrorKind::Io, dir.string(), "not a directory",
                "pass a design directory written by `kiln rtl MODEL -o DIR`");
  const fs::path file = dir / kReportFile;
  json j;
  {
    std::ifstream f(file, std::ios::binary);
    if (!f)
      throw_error(ErrorKind::InvalidModel, dir.string(), "no report.json: not a kiln rtl design",
                  "pass a design directory written by `kiln rtl MODEL -o DIR`");
    try {
      j = json::parse(f);
    } catch (const json::exception& e) {
      bad_report(file, std::string("not valid JSON: ") + e.what());
    }
  }
  if (!j.is_object() || j.value("format", "") != kReportFormat)
    throw_error(ErrorKind::InvalidModel, file.string(), "not the report of a kiln rtl design",
                "pass a design directory written by `kiln rtl MODEL -o DIR` (an HLS project "
                "from `kiln compile` is checked with `kiln csim`)");
  if (j.value("version", 0) != kReportVersion)
    bad_report(file, "report version " + j.value("version", json()).dump() + " is not " +
                         std::to_string(kReportVersion));
  DesignDir d;
  d.dir = dir;
  try {
    d.top = j.at("top").get<std::string>();
    d.files = j.at("files").get<std::vector<std::string>>();
    d.latency_cycles = j.at("latency_cycles").get<int>();
    d.interval_cycles = j.at("interval_cycles").get<int>();
    d.clock_ns = j.at("clock_ns").get<double>();
    d.testbench_capacity = j.at("testbench").at("max_samples").get<int>();
    for (const json& p : j.at("inputs")) {
      d.inputs.push_back(port_from(p, file));
      d.input_onnx_names.push_back(p.value("onnx_name", ""));
    }
    for (const json& p : j.at("outputs")) d.outputs.push_back(port_from(p, file));
    d.estimate = fpga::resources_from_json(j.at("estimate"), file.string());
    for (const json& s : j.at("stages"))
      d.stage_estimates.emplace_back(
          s.at("name").get<std::string>(),
          fpga::resources_from_json(s.value("estimate", json::object()), file.string()));
    // The top module's own cells: its delay lines.
    if (j.contains("top_estimate"))
      d.stage_estimates.emplace_back(
          d.top, fpga::resources_from_json(j["top_estimate"].value("estimate", json::object()),
                                           file.string()));
  } catch (const json::exception& e) {
    bad_report(file, std::string("missing or malformed field: ") + e.what());
  }
  for (const std::string& f : d.files)
    if (!fs::is_regular_file(dir / f))
      throw_error(ErrorKind::InvalidModel, (dir / f).string(), "missing Verilog file of the design",
                  "rewrite the design with `kiln rtl MODEL -o DIR --force`");
  d.model = hls::load_model_json(dir / hls::kModelJsonFile).model;
  d.report = std::move(j);
  if (d.inputs.size() != d.model.inputs.size() || d.outputs.size() != d.model.outputs.size())
    bad_report(file, "the ports do not match kiln_model.json's inputs and outputs");
  return d;
}

}  // namespace kiln::rtl
