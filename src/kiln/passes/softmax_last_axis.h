// softmax_last_axis: a Softmax (or LogSoftmax) over an inner axis becomes
// Transpose (axis to the end) -> Softmax over the last axis -> Transpose back,
// the only form the HLS softmax layer computes (one row per stream element).
// channels_last and simplify_layout then absorb or cancel the transposes where
// they meet others (a Softmax over NCHW channels needs none once channels-last).
// Opset < 13 Softmax (coerce_2d) is left alone unless its axis is already the
// last one; its row is every trailing dimension, not one axis.
#pragma once

#include "kiln/graph/graph.h"
#include "kiln/support/pass.h"

namespace kiln::passes {

class SoftmaxLastAxisPass : public Pass<Graph> {
 public:
  std::string_view name() const override { return "softmax_last_axis"; }
  bool run(Graph& graph) override;
};

}  // namespace kiln::passes
