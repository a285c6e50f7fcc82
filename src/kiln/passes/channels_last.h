// channels_last: converts regions of Conv (1-D, 2-D), MaxPool, AveragePool,
// GlobalAveragePool/GlobalMaxPool, BatchNormalization and zero Pad over
// spatial axes to [N, spatial..., C]: their channels_last flags are set,
// Transpose(0,2,3,1) (or (0,2,1)) is inserted where a region is entered and
// the inverse where a channels-last value reaches another consumer or a graph
// output (graph outputs keep their values and layout). The element-wise
// Relu, LeakyRelu, Sigmoid, Tanh, Exp, Elu, Selu, Clip, HardSigmoid,
// HardSwish, Add/Sub/Mul of two
// same-shaped channels-last tensors or of one and a constant of one value or
// one per channel (rewritten to shape [C]), and Concat of channels-last
// tensors (axis remapped) join a region. A Flatten(axis 1) or Reshape to [N, -1] of a
// channels-last tensor whose only readers are Dense nodes stays a pure
// relabeling: no transpose, the Dense weight rows are permuted instead.
// Graphs that already have a channels-last node are left alone.
#pragma once

#include "kiln/graph/graph.h"
#include "kiln/support/pass.h"

namespace kiln::passes {

class ChannelsLastPass : public Pass<Graph> {
 public:
  std::string_view name() const override { return "channels_last"; }
  bool run(Graph& graph) override;
};

}  // namespace kiln::passes
