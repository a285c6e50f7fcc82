// recurrent_batch_first: an RNN, GRU or LSTM over one sequence (batch 1) in
// ONNX's default layout (X [seq, batch, input]) switches to layout=1
// (batch_first: X [batch, seq, input]) with Reshapes around it. For one batch
// entry both layouts hold the same data in the same order, so the Reshapes
// are free, and the Transposes PyTorch exports around a batch_first=True
// recurrent layer cancel against them in simplify_layout. The HLS flow then
// sees the sequence with the batch axis first, as every other layer.
#pragma once

#include "kiln/graph/graph.h"
#include "kiln/support/pass.h"

namespace kiln::passes {

class RecurrentBatchFirstPass : public Pass<Graph> {
 public:
  std::string_view name() const override { return "recurrent_batch_first"; }
  bool run(Graph& graph) override;
};

}  // namespace kiln::passes
