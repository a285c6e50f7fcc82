// Precision in kiln explore (docs/explore.md "Precision"): per-layer
// fixed-point widths chosen with the accuracy each choice gives measured by
// kiln's bit-exact emulator against the float model on the user's samples,
// so every frontier point's accuracy is measured, not guessed.
//
// The search sets each layer's weight and result types' integer bits from
// the profile (Precision auto: the range the samples reach) at the widths the
// config gives, widens every type a fraction bit at a time until the accuracy
// goal holds (if it does not), then narrows them one fraction bit at a time:
// first all together while the goal holds, then, from the narrowest uniform
// choice, each type alone, greedily, in rounds until no single bit more can
// go. The configured model and the choices on the way that hold (the widest,
// the halfway and the narrowest uniform ones and the per-layer one) are the
// variants kiln explore prices, each a whole design space of its own.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kiln/hls/csim.h"
#include "kiln/hls/model.h"

namespace kiln::dse {

enum class AccuracyMetric : uint8_t { Top1, MaxError };

struct AccuracyGoal {
  AccuracyMetric metric = AccuracyMetric::Top1;
  double min_top1 = 0.99;  // the share of samples whose first output's argmax is the float model's
  double max_error = 0;    // the largest |fixed - float| over every output value
};

// The samples (channels-last, Model::inputs order) and the float model's
// outputs for each (Model::outputs order).
struct AccuracyData {
  std::vector<hls::Sample> samples;
  std::vector<std::vector<std::vector<double>>> reference;
  std::string source;  // "500 random samples (seed 1)", "the 2 data sets in DIR"
};

struct Accuracy {
  int samples = 0;
  double top1 = 0;       // share of samples agreeing
  double max_error = 0;  // over every output value of every sample
};

// The model run by the emulator on every sample (`threads` at once).
Accuracy measure_accuracy(const hls::Model& model, const AccuracyData& data, int threads = 1);
bool meets(const Accuracy& accuracy, const AccuracyGoal& goal);
// What the frontier minimizes beside cycles and resources: 1 - top-1
// agreement, or the largest error.
double accuracy_loss(const Accuracy& accuracy, const AccuracyGoal& goal);

// One precision choice: config overrides over the user's config.
struct PrecisionVariant {
  std::string name;               // "as configured", "every layer -2 bits", "per layer"
  std::vector<std::string> sets;  // "LayerName.conv1.Precision.weight=ap_fixed<6,2>", ...
  Accuracy accuracy;
  int64_t bits = 0;  // the narrowed types' widths summed: smaller is narrower
};

// The model configured with the user's config and `sets` over it; throws
// kiln::Error when a choice cannot be configured (that choice is skipped).
using ModelBuilder = std::function<hls::Model(const std::vector<std::string>& sets)>;

struct PrecisionSearchOptions {
  int threads = 1;
  int narrowest = 2;      // no type narrower than this many bits
  int greedy_rounds = 4;  // passes over the layers' types one at a time
};

// The configured model's variant first (always, met or not: it is what the
// user asked for), then the ones that meet `goal`; `evaluations` counts the
// choices measured. `build` of Precision `auto` overrides must profile the
// same kind of samples as `data` (kiln explore: the same data set directory,
// or random inputs).
std::vector<PrecisionVariant> search_precisions(
    const hls::Model& base, const ModelBuilder& build, const AccuracyData& data,
    const AccuracyGoal& goal, const PrecisionSearchOptions& options,
    const std::function<void(const std::string&)>& progress, int* evaluations = nullptr);

}  // namespace kiln::dse
