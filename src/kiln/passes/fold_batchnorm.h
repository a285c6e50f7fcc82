// fold_batchnorm: a per-channel affine map of a Conv's or Dense's output (no
// fused activation, single use, constant weights and bias) is folded into
// that node's weights and bias, computed in double, per output channel c:
//   w' = w * scale[c], b' = b * scale[c] + shift[c]
// (an absent conv bias counts as 0). The maps: a BatchNormalization with
// constant statistics, scale = gamma / sqrt(var + eps), shift = beta - mean *
// scale; and Mul, Add or Sub by a constant of one value or one per channel
// (x * c; x + c; x - c; c - x: scale -1, shift c). Others stay.
#pragma once

#include "kiln/graph/graph.h"
#include "kiln/support/pass.h"

namespace kiln::passes {

class FoldBatchNormPass : public Pass<Graph> {
 public:
  std::string_view name() const override { return "fold_batchnorm"; }
  bool run(Graph& graph) override;
};

}  // namespace kiln::passes
