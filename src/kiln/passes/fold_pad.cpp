#include "kiln/passes/fold_pad.h"

#include <algorithm>

#include "kiln/passes/rewrite.h"

namespace kiln::passes {

namespace {

// The spatial pads ([begins..., ends...]) of a Pad of rank `rank` over
// [N, C, spatial...] that pads nothing else, non-negative; empty otherwise.
std::vector<int64_t> spatial_pads(const PadAttrs& p, std::size_t rank) {
  if (p.channels_last || p.pads.size() != 2 * rank || rank < 3) return {};
  std::vector<int64_t> out;
  for (std::size_t half = 0; half < 2; ++half)
    for (std::size_t d = 0; d < rank; ++d) {
      const int64_t v = p.pads[half * rank + d];
      if (v < 0) return {};
      if (d < 2) {
        if (v != 0) return {};  // batch or channel padding
      } else {
        out.push_back(v);
      }
    }
  return out;
}

// `pads` ([begins..., ends...] over `n` spatial axes) plus `more`.
std::vector<int64_t> add_pads(std::vector<int64_t> pads, const std::vector<int64_t>& more) {
  if (pads.empty()) pads.assign(more.size(), 0);
  for (std::size_t i = 0; i < pads.size(); ++i) pads[i] += more[i];
  return pads;
}

bool all_zero(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 0; });
}

}  // namespace

bool FoldPadPass::run(Graph& graph) {
  return rewrite_nodes(graph, [&](NodeId id, Worklist& work) {
    const Node& n = graph.node(id);
    if (n.kind != OpKind::Pad || n.inputs.empty() || n.outputs.empty()) return false;
    const PadAttrs& pa = n.attr<PadAttrs>();
    const ValueId in = n.inputs[0], out = n.outputs[0];
    if (all_zero(pa.pads)) return bypass_node(graph, id, in, out);
    if (pa.mode != PadMode::Constant || pa.value != 0.0 || !single_use(graph, out)) return false;
    const std::size_t rank = graph.value(in).type.shape.size();
    const std::vector<int64_t> pads = spatial_pads(pa, rank);
    if (pads.empty()) return false;
    const NodeId reader = graph.uses(out)[0].node;
    Node& r = graph.node(reader);
    if (graph.uses(out)[0].slot != 0) return false;
    if (r.kind == OpKind::Conv) {
      ConvAttrs& c = std::get<ConvAttrs>(r.attrs);
      if (c.channels_last) return false;
      c.pads = add_pads(c.pads, pads);
    } else if (r.kind == OpKind::AveragePool) {
      PoolAttrs& p = std::get<PoolAttrs>(r.attrs);
      if (p.channels_last || (!p.count_include_pad && !all_zero(p.pads))) return false;
      p.pads = add_pads(p.pads, pads);
      p.count_include_pad = true;
    } else {
      return false;
    }
    graph.set_input(reader, 0, in);
    graph.erase_node(id);
    work.push(reader);
    return true;
  });
}

}  // namespace kiln::passes
