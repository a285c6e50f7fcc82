// fold_batchnorm: a BatchNormalization whose input comes from a Conv or Dense
// (no fused activation, single use, constant weights and bias) with constant
// statistics is folded into that node's weights and bias, computed in double:
//   s = gamma / sqrt(var + eps), w' = w * s, b' = (b - mean) * s + beta
// (per output channel; an absent conv bias counts as 0). Other BNs stay.
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
