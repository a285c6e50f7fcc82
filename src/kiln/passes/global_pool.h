// global_pool: an AveragePool or MaxPool whose window covers its whole map
// (no padding, no dilation, one output pixel: PyTorch's F.avg_pool2d(x, 8) on
// an 8 x 8 map) is the GlobalAveragePool or GlobalMaxPool of it: the same
// values, and a layer the backends stream (a global pool accumulates each
// pixel as it comes).
#pragma once

#include "kiln/graph/graph.h"
#include "kiln/support/pass.h"

namespace kiln::passes {

class GlobalPoolPass : public Pass<Graph> {
 public:
  std::string_view name() const override { return "global_pool"; }
  bool run(Graph& graph) override;
};

}  // namespace kiln::passes
