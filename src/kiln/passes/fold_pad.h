// fold_pad: a Pad that pads nothing is removed, and a Pad of zeros on the
// spatial axes only, read only by a Conv or an AveragePool, becomes that
// layer's own padding. Exporters write both (PyTorch's F.pad before a conv,
// a Pad of zeros before F.avg_pool2d), and as a layer of its own a Pad holds
// its whole tensor where the conv's padding costs nothing.
//
// A Conv's zero padding is the same zeros. An AveragePool reading the padded
// map averages over its whole window, zeros included: with the pads folded it
// counts them (count_include_pad = 1), which it may do only when it has no
// padding of its own that it was not counting. A MaxPool pads with -infinity,
// not zeros: a Pad before it stays.
#pragma once

#include "kiln/graph/graph.h"
#include "kiln/support/pass.h"

namespace kiln::passes {

class FoldPadPass : public Pass<Graph> {
 public:
  std::string_view name() const override { return "fold_pad"; }
  bool run(Graph& graph) override;
};

}  // namespace kiln::passes
