#include "kiln/rtl/dir/testbench.h"

#include <fmt/format.h>

#include <algorithm>

namespace kiln::rtl {

namespace {

// "[w-1:0] ", or "" for one bit.
std::string range(int width) {
  return width == 1 ? "" : fmt::format("[{}:0] ", width - 1);
}

}  // namespace

std::string testbench_verilog(const Design& d, int max_samples) {
  // A streamed input's sample is `beats` consecutive beats: the first when
  // the design takes the sample, the rest in the cycles after it (`beat`
  // counts them; in_valid stays high).
  int64_t beats = 1;
  for (const Port& p : d.inputs) beats = std::max(beats, p.beats());
  std::string s = fmt::format(
      "// Testbench of {0} (kiln rtl): drives up to {1} samples from in_<port>.hex whenever the\n"
      "// design is ready and prints every result (protocol in kiln's rtl/lower/design.h).\n"
      "`timescale 1ns/1ps\n"
      "module tb;\n"
      "  localparam MAX = {1};\n"
      "  reg clk = 1'b0;\n  reg rst = 1'b1;\n"
      "  reg in_valid;\n  wire in_ready;\n  wire out_valid;\n"
      "  integer nsamples, sent, got, cycle, i, j;\n"
      "  reg [31:0] count_mem [0:0];\n"
      "  localparam BEATS = {2};\n  integer beat, sample;\n",
      d.top, max_samples, beats);
  std::string conn =
      ".clk(clk), .rst(rst), .in_valid(in_valid), .in_ready(in_ready), .out_valid(out_valid)";
  for (const Port& p : d.inputs) {
    s += fmt::format("  reg {0}{1};\n  reg {0}{1}_next;\n",
                     range(static_cast<int>(p.lanes_per_beat()) * p.type.width), p.name);
    s += fmt::format("  reg {}mem_{} [0:MAX*{}-1];\n", range(p.type.width), p.name, p.numel);
    conn += fmt::format(", .{0}({0})", p.name);
  }
  for (const Port& p : d.outputs) {
    s += fmt::format("  wire {}{};\n", range(static_cast<int>(p.numel) * p.type.width), p.name);
    conn += fmt::format(", .{0}({0})", p.name);
  }
  s += fmt::format("  {} dut({});\n", d.top, conn);
  s += "  always #5 clk = ~clk;\n";
  s +=
      "  initial begin\n    $readmemh(\"samples.hex\", count_mem);\n    nsamples = count_mem[0];\n";
  s += "    if (nsamples > MAX) begin $display(\"TOO_MANY %0d\", nsamples); $finish; end\n";
  for (const Port& p : d.inputs)
    s += fmt::format("    $readmemh(\"in_{0}.hex\", mem_{0});\n", p.name);
  s += "    sent = 0;\n    got = 0;\n    cycle = 0;\n    beat = 0;\n"
       "    repeat (2) @(posedge clk);\n    @(negedge clk) rst = 1'b0;\n  end\n";
  // Not @*: its sensitivity list would hold every word of the sample memories.
  // Each port is assembled in <port>_next and assigned once: every write to
  // the port itself would send the whole vector to each of its readers.
  s += "  always @(rst or sent or nsamples or beat) begin\n"
       "    in_valid = !rst && (sent < nsamples || beat != 0);\n"
       "    sample = beat != 0 ? sent - 1 : (sent < nsamples ? sent : 0);\n";
  for (const Port& p : d.inputs)
    s += fmt::format(
        "    for (j = 0; j < {0}; j = j + 1) {1}_next[j*{2} +: {2}] = mem_{1}[sample*{3} + "
        "{4}j];\n    {1} = {1}_next;\n",
        p.lanes_per_beat(), p.name, p.type.width, p.numel,
        p.beats() > 1 ? fmt::format("(beat < {} ? beat : 0)*{} + ", p.beats(), p.lanes_per_beat())
                      : std::string());
  s += "  end\n";
  const int limit_per_sample = d.interval_cycles + 1;
  s += "  always @(posedge clk) begin\n    cycle <= cycle + 1;\n";
  s += "    if (beat != 0) beat <= beat + 1 == BEATS ? 0 : beat + 1;\n"
       "    else if (in_valid && in_ready) begin\n      $display(\"IN %0d %0d\", sent, cycle);\n"
       "      sent <= sent + 1;\n      if (BEATS > 1) beat <= 1;\n    end\n";
  s += "    if (out_valid) begin\n      $display(\"OUT %0d %0d\", got, cycle);\n";
  for (std::size_t k = 0; k < d.outputs.size(); ++k) {
    const Port& p = d.outputs[k];
    s += fmt::format(
        "      for (i = 0; i < {0}; i = i + 1) $display(\"Y %0d {1} %0d %h\", got, i, {2}[i*{3} +: "
        "{3}]);\n",
        p.numel, k, p.name, p.type.width);
  }
  s += "      got <= got + 1;\n      if (got + 1 == nsamples) begin $display(\"DONE\"); $finish; "
       "end\n    end\n";
  s +=
      fmt::format("    if (cycle > nsamples * {} + {}) begin $display(\"TIMEOUT\"); $finish; end\n",
                  limit_per_sample, d.latency_cycles + 100);
  s += "  end\nendmodule\n";
  return s;
}

}  // namespace kiln::rtl
