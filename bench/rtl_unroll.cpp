// Times kiln's symbolic unrolling (Loop IR lowering, then unrolling with
// store-to-load forwarding, folding and hash-consing) and the whole RTL
// build (with scheduling and Verilog) on a 3x3 single-channel convolution
// over an n x n image, the nest bench/rtl_unroll.sh gives mlir-opt.
// Prints one JSON object per size.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "kiln/dfg/unroll.h"
#include "kiln/hls/model_text.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/rtl/lower/design.h"
#include "kiln/support/strings.h"

namespace {

std::string conv_model(int n) {
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> w(-1000, 1000);
  std::string weights;
  for (int i = 0; i < 9; ++i) weights += (i ? "," : "") + std::to_string(w(rng));
  const int o = n - 2;
  return fmt::format(
      "layers 1\nmodel \"conv{0}\" {{}}\n%x: ap_fixed<16,6>[{0}x{0}x1] = Input() @x \"x\"\n"
      "%y: ap_fixed<16,6>[{1}x{1}x1] = Conv(%x) {{in_h={0} in_w={0} c_in=1 out_h={1} out_w={1} "
      "c_out=1 kernel_h=3 kernel_w=3}} @conv constants {{weights=[{2}] bias=[0]}}\n"
      "input %x \"x\": [1x1x{0}x{0}] perm=[1,2,0]\noutput %y \"y\": [1x1x{1}x{1}] perm=[1,2,0]\n",
      n, o, weights);
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string sizes = "6,10,18,128";
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--sizes") sizes = argv[i + 1];
  for (const std::string& s : kiln::split_list(sizes)) {
    const int n = std::stoi(s);
    const kiln::hls::Model m = kiln::hls::parse_layers(conv_model(n), "conv");
    auto t0 = std::chrono::steady_clock::now();
    const kiln::loop::Program p = kiln::loop::lower_model(m);
    const auto stages = kiln::dfg::unroll(p);
    const double unroll_s = since(t0);
    t0 = std::chrono::steady_clock::now();
    const kiln::rtl::Design d = kiln::rtl::build_design(m, {});
    const double rtl_s = since(t0);
    std::size_t bytes = 0;
    for (const auto& f : d.files) bytes += f.second.size();
    std::cout << fmt::format(
        "{{\"n\": {}, \"macs\": {}, \"unroll_seconds\": {:.4f}, \"nodes\": {}, "
        "\"rtl_seconds\": {:.4f}, \"verilog_bytes\": {}, \"latency_cycles\": {}}}\n",
        n, (n - 2) * (n - 2) * 9, unroll_s, stages.at(0).graph.size(), rtl_s, bytes,
        d.latency_cycles);
  }
  return 0;
}
