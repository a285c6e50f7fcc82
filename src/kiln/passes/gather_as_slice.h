// gather_as_slice: a Gather with one constant index (a scalar or a
// one-element vector) picks one position along its axis, which is a Slice of
// length 1 there (then a Reshape that drops the axis when the index is a
// scalar). PyTorch exports `y[:, -1]` (the last step of a sequence) this way;
// the HLS flow has Slice layers and no general Gather.
#pragma once

#include "kiln/graph/graph.h"
#include "kiln/support/pass.h"

namespace kiln::passes {

class GatherAsSlicePass : public Pass<Graph> {
 public:
  std::string_view name() const override { return "gather_as_slice"; }
  bool run(Graph& graph) override;
};

}  // namespace kiln::passes
