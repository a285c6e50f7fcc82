// The RTL commands: `kiln rtl` (a model to a design directory), `kiln rtlsim`
// (simulate it bit for bit against the emulator) and `kiln synth` (Yosys
// cell counts next to the estimate). Each is one library call the CLI and the
// tests make; the logic of simulation and synthesis lives in rtl/.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/commands/hls_flow.h"
#include "kiln/loop/loop_sites.h"
#include "kiln/rtl/analysis/loop_schedule.h"
#include "kiln/rtl/dir/rtlsim.h"
#include "kiln/rtl/dir/synth.h"
#include "kiln/rtl/lower/design.h"

namespace kiln::commands {

// ---- kiln rtl -------------------------------------------------------------------

// The model and config are handled as `kiln compile` handles them (same
// options; `top` names the model).
struct RtlCommandResult {
  hls::Model model;
  rtl::RtlOptions options;
  rtl::Design design;
  nlohmann::json report;  // report.json
  std::filesystem::path dir;
  double seconds = 0;
  int capacity = 0;  // the testbench's samples
};

// Everything is built before anything is written; DIR appears whole or not
// at all.
RtlCommandResult rtl_model(const std::filesystem::path& onnx, const CompileOptions& options);
// The design of a configured model (rtl_model's build, for kiln explore's
// validation too), and its files written into `dir` (a directory being
// staged); `source` is kiln_model.json's record of how it was made.
RtlCommandResult build_rtl(flow::ConfiguredModel built, bool over_capacity);
void write_rtl_files(const std::filesystem::path& dir, const RtlCommandResult& result,
                     const nlohmann::json& source);
std::string format_rtl_summary(const RtlCommandResult& result);
nlohmann::json rtl_to_json(const RtlCommandResult& result);

// ---- kiln rtl --list-loops ------------------------------------------------------

// The loops `kiln rtl` would build for the model and config, by their stable
// names, with trip counts and directives; nothing is written.
struct LoopListing {
  std::string model;
  loop::Program program;  // lowered, with the config's directives
  std::vector<loop::LoopSite> sites;
  // Each layer's top-level loops as pipelined loops (rtl/analysis/loop_schedule.h).
  std::vector<rtl::PipelineEstimate> pipelines;
};
LoopListing list_loops(const std::filesystem::path& onnx, const CompileOptions& options);
std::string format_loop_listing(const LoopListing& listing);
nlohmann::json loop_listing_to_json(const LoopListing& listing);

// ---- kiln rtlsim ----------------------------------------------------------------

struct RtlsimCommandOptions {
  int samples = 8;
  uint64_t seed = 1;
  std::string simulator = "verilator";  // or "icarus"
  double timeout_seconds = 600;         // for the build and for the run, each
  // NAME=FILE (.pb or .npy, the ONNX layout): simulate this one sample instead.
  std::vector<std::pair<std::string, std::filesystem::path>> inputs;
  // Samples given as tensors (the Python module's arrays), each a list of
  // (input name, tensor in the ONNX layout); simulated instead of random ones.
  std::vector<std::vector<std::pair<std::string, Tensor>>> given;
};

// "verilator" | "icarus" (Usage error otherwise).
tools::Simulator parse_simulator(const std::string& name);

rtl::RtlsimResult rtlsim_dir(const std::filesystem::path& dir, const RtlsimCommandOptions& options);
std::string format_rtlsim_summary(const rtl::RtlsimResult& result);
nlohmann::json rtlsim_to_json(const rtl::RtlsimResult& result);

// ---- kiln synth -----------------------------------------------------------------

struct SynthCommandOptions {
  // Given: each module synthesized on its own, this many Yosys runs at once
  // (rtl::SynthMode::PerModule); else one run of the whole design.
  std::optional<int> jobs;
  bool whole = false;  // --whole: the whole design, said explicitly; not with jobs
  // Each Yosys run's (past it: Unsupported, too large for this machine).
  double timeout_seconds = 3600;
  // Each run's memory in GB (2^30 bytes); nullopt: rtl::default_memory_limit.
  std::optional<double> memory_limit_gb;
};

// Usage for --whole with --jobs, --jobs < 1, a memory limit <= 0.
rtl::SynthOptions synth_options(const SynthCommandOptions& options);
rtl::SynthRun synth_dir(const std::filesystem::path& dir, const SynthCommandOptions& options = {});
std::string format_synth_table(const rtl::SynthRun& result);
nlohmann::json synth_to_json(const rtl::SynthRun& result);

}  // namespace kiln::commands
