// Golden tests of the HLS layer passes as layer model text
// (kiln_hls_testing): a model in, the passes run, the printed model compared
// with the expected text; and, for passes that must not change what the
// design computes, the emulator's outputs compared before and after.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "kiln/hls/config.h"
#include "kiln/hls/emulate/emulator.h"
#include "kiln/hls/layer_passes/pipeline.h"
#include "kiln/hls/model_text.h"
#include "kiln/hls/ports.h"
#include "kiln/support/strings.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::hls::testing {

inline constexpr std::string_view kLayersHeader = "layers 1\n";

// A test's text without the header line, raw strings' leading newline dropped.
inline std::string trimmed(std::string_view body) {
  return kiln::testing::text_block(body);
}

inline Model parse(std::string_view body) {
  return parse_layers(std::string(kLayersHeader) + trimmed(body), "test.layers");
}

// The printed model without the header line.
inline std::string body_text(const Model& m) {
  const std::string text = print_layers(m);
  return text.substr(text.find('\n') + 1);
}

struct LayerPassOutcome {
  Model model;
  std::string text;  // body_text of the result
  bool changed = false;
};

// Runs the named passes on `input` as a pipeline (verified after each) with
// the config `config_yaml` and an optional profile.
inline LayerPassOutcome run_layer_passes(std::string_view passes, std::string_view input,
                                         const std::string& config_yaml = "",
                                         const Profile* profile = nullptr) {
  LayerPassOutcome r;
  r.model = parse(input);
  const Config cfg = parse_config(config_yaml, "config.yaml");
  const LayerPassContext ctx{&cfg, profile};
  for (const PassRecord& rec : layer_passes(ctx).pipeline(split_list(passes)).run(r.model))
    r.changed = r.changed || rec.changed;
  r.text = body_text(r.model);
  return r;
}

// The passes rewrite `input` into exactly `expected` and say so.
inline void expect_layer_passes(std::string_view passes, std::string_view input,
                                std::string_view expected, const std::string& config_yaml = "") {
  const LayerPassOutcome r = run_layer_passes(passes, input, config_yaml);
  EXPECT_TRUE(r.changed) << passes << " reported no change";
  EXPECT_EQ(r.text, trimmed(expected)) << "after " << passes;
}

// The passes leave `input` as it is, and say so.
inline void expect_layers_unchanged(std::string_view passes, std::string_view input,
                                    const std::string& config_yaml = "") {
  const LayerPassOutcome r = run_layer_passes(passes, input, config_yaml);
  EXPECT_FALSE(r.changed) << passes << " reported a change";
  EXPECT_EQ(r.text, body_text(parse(input))) << "after " << passes;
}

// The emulator's outputs in the ONNX layout (through the ports) for samples
// given in the ONNX layout: the same for `a` and `b` on every sample.
inline void expect_same_emulation(const Model& a, const Model& b, int samples = 4) {
  ASSERT_EQ(a.inputs.size(), b.inputs.size());
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  const std::vector<Sample> onnx = random_samples(a, samples, 5, -4, 4);
  for (const Sample& s : onnx) {
    // The random values are taken as ONNX-order data for both models.
    auto to_model = [&](const Model& m) {
      Sample out(s.size());
      for (std::size_t i = 0; i < s.size(); ++i) {
        const auto map = port_element_map(m.tensors[static_cast<std::size_t>(m.inputs[i])].shape,
                                          m.input_ports[i].perm);
        out[i].resize(map.size());
        for (std::size_t e = 0; e < map.size(); ++e)
          out[i][e] = s[i][static_cast<std::size_t>(map[e])];
      }
      return out;
    };
    auto from_model = [&](const Model& m, const EmulationResult& r) {
      std::vector<std::vector<int64_t>> out;
      for (std::size_t o = 0; o < r.outputs.size(); ++o) {
        const auto map = port_element_map(m.tensors[static_cast<std::size_t>(m.outputs[o])].shape,
                                          m.output_ports[o].perm);
        std::vector<int64_t> v(map.size());
        for (std::size_t e = 0; e < map.size(); ++e)
          v[static_cast<std::size_t>(map[e])] = r.outputs[o].raw[e];
        out.push_back(std::move(v));
      }
      return out;
    };
    EXPECT_EQ(from_model(a, emulate(a, to_model(a))), from_model(b, emulate(b, to_model(b))));
  }
}

}  // namespace kiln::hls::testing
