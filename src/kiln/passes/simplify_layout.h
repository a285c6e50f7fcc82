// simplify_layout: removes Transpose pairs that compose to the identity (and
// merges other single-use pairs into one Transpose), identity Transposes,
// Transposes that move only size-1 axes (they become Reshapes),
// Reshape/Flatten/Squeeze/Unsqueeze nodes and chains that leave the shape
// unchanged, and merges consecutive single-use reshapes into one Reshape.
#pragma once

#include "kiln/graph/graph.h"
#include "kiln/support/pass.h"

namespace kiln::passes {

class SimplifyLayoutPass : public Pass<Graph> {
 public:
  std::string_view name() const override { return "simplify_layout"; }
  bool run(Graph& graph) override;
};

}  // namespace kiln::passes
