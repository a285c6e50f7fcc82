// form_dense: turns fully connected layers into OpKind::Dense (X [..., K],
// constant W [K, N], constant bias [N]; y = x W + bias on the last axis):
// - Gemm with constant B (any transA/transB, alpha, beta) and a constant or
//   absent C that broadcasts over the rows ([], [1], [N], [1, N]); alpha is
//   folded into W and beta into the bias; transA adds a Transpose of A;
// - MatMul with a constant 2-D B [K, N], together with a following Add of a
//   constant bias of shape [N] (or [1, ..., 1, N]) when the MatMul output has
//   that Add as its only use. Without a bias the Dense gets a zero bias.
// Float32 only; anything else is left alone.
#pragma once

#include "kiln/graph/graph.h"
#include "kiln/support/pass.h"

namespace kiln::passes {

class FormDensePass : public Pass<Graph> {
 public:
  std::string_view name() const override { return "form_dense"; }
  bool run(Graph& graph) override;
};

}  // namespace kiln::passes
