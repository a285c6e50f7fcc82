// remove_identity: drops Identity and inference-mode Dropout nodes (output 0
// is input 0). A Dropout whose mask output is used is kept, and so is a node
// whose removal would need a graph input to become a graph output.
#pragma once

#include "kiln/graph/graph.h"
#include "kiln/support/pass.h"

namespace kiln::passes {

class RemoveIdentityPass : public Pass<Graph> {
 public:
  std::string_view name() const override { return "remove_identity"; }
  bool run(Graph& graph) override;
};

}  // namespace kiln::passes
