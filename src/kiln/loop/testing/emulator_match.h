// Test helpers (include only from *_test.cpp): a lowered program run by the
// interpreter against hls::emulate on random inputs, outputs and per-layer
// quantization events compared.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kiln/hls/emulate/emulator.h"
#include "kiln/loop/interpret.h"
#include "kiln/loop/loop_ir.h"

namespace kiln::loop::testing {

// Random inputs over about twice each input type's range, so saturation and
// wrap-around show up.
inline std::vector<std::vector<double>> random_inputs(const hls::Model& m, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<double>> in;
  for (int t : m.inputs) {
    const hls::TensorInfo& info = m.tensors.at(static_cast<std::size_t>(t));
    const double span = std::max(std::abs(info.type.max_value()), std::abs(info.type.min_value()));
    std::uniform_real_distribution<double> d(-span, span);
    std::vector<double> v(static_cast<std::size_t>(info.numel()));
    for (double& x : v) x = d(rng) * (rng() % 4 == 0 ? 2.0 : 0.5);
    in.push_back(std::move(v));
  }
  return in;
}

// The quantized inputs, as the Input layers make them.
inline std::vector<std::vector<int64_t>> raw_inputs(const hls::Model& m,
                                                    const std::vector<std::vector<double>>& in) {
  std::vector<std::vector<int64_t>> raw;
  for (std::size_t k = 0; k < in.size(); ++k) {
    const FixedType& t = m.tensors.at(static_cast<std::size_t>(m.inputs[k])).type;
    std::vector<int64_t> r;
    for (double v : in[k]) r.push_back(numeric::quantize(v, t));
    raw.push_back(std::move(r));
  }
  return raw;
}

// interpret(p) equals hls::emulate(m) on random samples `first_seed` ..
// `first_seed + samples - 1`: every raw output, and each layer's wrapped and
// saturated counts (kernels are named after their layers) unless `events` is
// false (a line-buffered convolution also computes the windows it never
// writes, whose quantizations count too).
inline void expect_interpreter_matches(const hls::Model& m, const Program& p,
                                       const std::string& label, int samples = 2,
                                       uint32_t first_seed = 1, bool events = true) {
  for (uint32_t seed = first_seed; seed < first_seed + static_cast<uint32_t>(samples); ++seed) {
    const auto in = random_inputs(m, seed);
    const hls::EmulationResult e = hls::emulate(m, in);
    const InterpretResult r = interpret(p, raw_inputs(m, in));
    ASSERT_EQ(r.outputs.size(), e.outputs.size()) << label;
    for (std::size_t o = 0; o < e.outputs.size(); ++o) {
      ASSERT_EQ(r.outputs[o].raw.size(), e.outputs[o].raw.size()) << label;
      for (std::size_t i = 0; i < e.outputs[o].raw.size(); ++i)
        ASSERT_EQ(r.outputs[o].raw[i], e.outputs[o].raw[i])
            << label << " seed " << seed << " output " << o << " element " << i;
    }
    for (std::size_t k = 0; k < p.kernels.size() && events; ++k)
      for (std::size_t li = 0; li < m.layers.size(); ++li)
        if (m.layers[li].name == p.kernels[k].name) {
          EXPECT_EQ(r.per_kernel[k].wrapped, e.per_layer[li].wrapped)
              << label << " " << m.layers[li].name << " seed " << seed;
          EXPECT_EQ(r.per_kernel[k].saturated, e.per_layer[li].saturated)
              << label << " " << m.layers[li].name << " seed " << seed;
        }
  }
}

}  // namespace kiln::loop::testing
