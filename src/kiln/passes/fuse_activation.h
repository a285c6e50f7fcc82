// fuse_activation: Relu, LeakyRelu and Clip (constant or absent bounds) whose
// input comes from a Conv or Dense with no activation yet and a single use are
// fused into that node's `activation` attribute.
#pragma once

#include "kiln/graph/graph.h"
#include "kiln/support/pass.h"

namespace kiln::passes {

class FuseActivationPass : public Pass<Graph> {
 public:
  std::string_view name() const override { return "fuse_activation"; }
  bool run(Graph& graph) override;
};

}  // namespace kiln::passes
