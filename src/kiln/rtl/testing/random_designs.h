// The RTL fuzz tier's generator (docs/rtl-design.md "The fuzz tier"): random
// models of every layer kind kiln rtl lowers, with random ap_fixed types
// (signed and unsigned, integer bits below zero and above the width, every
// rounding and overflow mode), chained up to four layers deep with skips,
// and random ways to build them: each layer's plan drawn from those the
// searches may try (candidate_plans: kept loops, flatten depths, unroll
// factors, line buffers, weight storage) with its products (DSP or LUT, on
// few multipliers, constants on DSPs) and adder depth (lean or least), or a
// search run on a random target (TargetCycles, LatencyCycles, a Dense layer
// folded onto a MultiplierLimit); inputs streamed or whole, each scheduler,
// clock period and device family.
//
// One seed, one design, on every machine (its own mt19937, no
// distributions whose results the standard leaves open).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kiln/hls/model.h"
#include "kiln/rtl/lower/design.h"

namespace kiln::rtl::testing {

// How the design's plans are chosen.
enum class BuildMode : uint8_t { Plans, Target, Latency, Fold, Default };

struct RandomDesign {
  int seed = 0;
  hls::Model model;
  RtlOptions options;
  BuildMode mode = BuildMode::Plans;
  // The model as layer text and the options in words: what a failure prints
  // to reproduce it (bit_exact_test.cpp takes the text and the plans).
  std::string text;
  std::string how;
};

// Seed's design. Throws kiln::Error(Internal) when the generator makes a
// model that is not valid (a bug of the generator, never a finding).
RandomDesign random_design(int seed);

// The forms a built design has, each a "group:form" name: its layer kinds
// ("layer:Conv", "layer:Conv/depthwise"), its plans ("plan:flatten=2",
// "plan:line_buffer", "plan:weights=banked"), its products ("product:dsp",
// "product:pair", "product:constants_on_dsp"), sums ("sum:shared_unrolled",
// "sum:shared_in_loop", "sum:least_depth"), the design's structure
// ("design:channel", "design:streamed_input", "design:paced", "design:skip"),
// how it was built ("build:latency") and its types ("type:AP_TRN_ZERO").
std::vector<std::string> design_forms(const RandomDesign& r, const Design& d);

using Stimulus = std::vector<std::vector<std::vector<int64_t>>>;  // [sample][input][element]

// `samples` random samples: each input element uniform in +-scale times its
// type's largest magnitude, assigned to the type (wrapping or saturating as
// it says when scale > 1).
Stimulus random_stimulus(const hls::Model& m, int samples, double scale, uint32_t seed);

// The inputs a fuzz design is run on: two samples
// uniform over 1.5 times each input's range (wrapping or saturating into it)
// and two of extremes: each element its type's least or greatest value,
// zero, one step either side of zero, or random.
Stimulus fuzz_stimulus(const hls::Model& m, int seed);

// Forms counted over the designs of a run.
class FormCounts {
 public:
  void add(const std::vector<std::string>& forms);
  int64_t count(const std::string& form) const;
  // "layer: Conv 812, Dense 640, ...; plan: ..." grouped, in a fixed order.
  std::string summary() const;
  // The forms every run of a few thousand designs must draw (the generator
  // drawing each is what the tier's claims rest on).
  static const std::vector<std::string>& expected();

 private:
  std::map<std::string, int64_t> counts_;
};

}  // namespace kiln::rtl::testing
