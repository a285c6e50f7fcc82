// RTL simulation of a design directory (`kiln rtlsim DIR`): random or given
// samples, quantized as the Input layers do, run through the design's
// testbench in Verilator or Icarus and compared raw value by raw value with
// kiln's emulator; latency and interval measured in cycles next to the
// schedule's. The testbench protocol is rtl::testbench_verilog's (testbench.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/hls/csim.h"
#include "kiln/loop/loop_ir.h"
#include "kiln/rtl/lower/design.h"
#include "kiln/tools/hdl.h"

namespace kiln::rtl {

// ---- the testbench's stdout, parsed -------------------------------------------

struct SimSampleTiming {
  std::optional<int64_t> in_cycle, out_cycle;
};

struct SimTrace {
  std::vector<SimSampleTiming> samples;  // by sample number
  // y[sample][output][element]: the hex text printed, empty if none.
  std::vector<std::vector<std::vector<std::string>>> y;
  bool done = false, timeout = false;
};

// Parses IN/OUT/Y/DONE/TIMEOUT lines for `samples` samples of `outputs`
// (Y names an output by its position or its port name); other lines (the
// simulator's own) are skipped. Throws Error(Internal) naming the line for a
// protocol line that is malformed or out of range (the testbench is kiln's).
SimTrace parse_sim_output(const std::string& text, const std::vector<Port>& outputs, int samples);

// A raw value from the testbench's hex: masked to the port's width and
// sign-extended when signed. nullopt for x/z digits or non-hex text.
std::optional<int64_t> raw_of_hex(std::string_view hex, const loop::ScalarType& type);

// ---- the verdict ----------------------------------------------------------------

struct RtlMismatch {
  int sample = 0;
  std::string output;  // the port name
  int64_t element = 0;
  std::string rtl_hex;             // as printed; empty: no value printed
  std::optional<int64_t> rtl_raw;  // nullopt: none, or x/z
  int64_t emulator_raw = 0;
  // "sample 3, output y, element 17: rtl raw -5 (0x1fb), emulator raw -4"
  std::string text() const;
};

inline constexpr int kMaxReportedMismatches = 10;

struct SimVerdict {
  bool bit_exact = false;  // every value of every sample equal, and the run finished
  int samples = 0;
  int64_t values = 0, mismatched_values = 0;
  std::vector<RtlMismatch> mismatches;  // the first kMaxReportedMismatches
  std::string failure;                  // why the run itself failed (timeout, no DONE), or empty
  // OUT cycle - IN cycle: max and min over samples with both lines.
  std::optional<int64_t> latency_cycles, latency_min;
  // Cycles between consecutive IN lines: max and min (none for one sample).
  std::optional<int64_t> interval_cycles, interval_min;
  bool latency_uniform() const { return latency_cycles == latency_min; }
};

// expected[sample][output][element]: the emulator's raw values.
SimVerdict judge(const SimTrace& trace, const std::vector<Port>& outputs,
                 const std::vector<std::vector<std::vector<int64_t>>>& expected);

// ---- the run --------------------------------------------------------------------

struct RtlsimOptions {
  int samples = 8;  // random samples when `inputs` is empty
  uint64_t seed = 1;
  tools::Simulator simulator = tools::Simulator::Verilator;
  std::vector<hls::Sample> inputs;  // given samples (Model::inputs order, channels-last)
  double timeout_seconds = 600;
};

struct RtlsimResult {
  std::string model;
  tools::Simulator simulator = tools::Simulator::Verilator;
  SimVerdict verdict;
  int schedule_latency = 0, schedule_interval = 1;  // report.json's
  bool latency_agrees = false, interval_agrees = false;
  double build_seconds = 0, run_seconds = 0;
  std::filesystem::path work_dir;  // DIR/sim/<simulator>
  // One sample asked for, run twice back to back so that the design's
  // interval is measured too (both runs judged; `outputs` holds one).
  bool repeated = false;
  // What the design computed: per sample, per output port (Model::outputs
  // order, channels-last), the values its raw bits stand for (NaN where it
  // printed none, or x/z).
  std::vector<std::vector<std::vector<double>>> outputs;
};

// The values of a trace's outputs, as RtlsimResult::outputs holds them.
std::vector<std::vector<std::vector<double>>> output_values(const SimTrace& trace,
                                                            const std::vector<Port>& outputs);

// Throws kiln::Error: Io/InvalidModel for a directory that is not a design,
// Usage for more samples than the testbench holds, InvalidModel for inputs
// of the wrong size, Unsupported when the simulator is not installed,
// Internal when the design does not build or the testbench breaks protocol.
RtlsimResult run_rtlsim(const std::filesystem::path& dir, const RtlsimOptions& options);

}  // namespace kiln::rtl
