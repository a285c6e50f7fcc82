#include "kiln/passes/recurrent_batch_first.h"

#include <utility>

#include "kiln/passes/rewrite.h"

namespace kiln::passes {

namespace {

bool is_recurrent(OpKind k) {
  return k == OpKind::RNN || k == OpKind::GRU || k == OpKind::LSTM;
}

// Dimensions 0 and 1 swapped (seq-first <-> batch-first shapes of X, Y; the
// states' [dirs, batch, hidden] <-> [batch, dirs, hidden] likewise).
Shape swap01(Shape s) {
  std::swap(s[0], s[1]);
  return s;
}
// Y: [seq, dirs, batch, hidden] <-> [batch, seq, dirs, hidden].
Shape y_batch_first(const Shape& s) {
  return {s[2], s[0], s[1], s[3]};
}

}  // namespace

bool RecurrentBatchFirstPass::run(Graph& graph) {
  bool changed = false;
  for (NodeId id : graph.node_ids()) {
    const Node& n = graph.node(id);
    if (!is_recurrent(n.kind) || n.attr<RecurrentAttrs>().batch_first) continue;
    const TensorType x = graph.value(n.inputs.at(0)).type;
    if (x.shape.size() != 3 || x.shape[1] != 1) continue;  // one sequence only

    const std::string base = n.name, onnx_name = n.onnx_name;
    // A reshape of input slot `slot` (X, initial_h, initial_c) to `shape`.
    auto reshape_input = [&](std::size_t slot, const Shape& shape) {
      const Node& node = graph.node(id);
      if (slot >= node.inputs.size() || !node.inputs[slot].valid()) return;
      const ValueId v = node.inputs[slot];
      if (const Tensor* c = graph.constant(v)) {  // initial states are often constants
        const ValueId r =
            add_kiln_constant(graph, base + "_in" + std::to_string(slot), c->reshaped(shape));
        graph.set_input(id, slot, r);
        return;
      }
      TensorType t = graph.value(v).type;
      t.shape = shape;
      const ValueId r = add_kiln_value(graph, base + "_in" + std::to_string(slot), t);
      graph.insert_node(id, OpKind::Reshape, onnx_name + "/batch_first_in", {v}, {r},
                        ReshapeAttrs{shape});
      graph.set_input(id, slot, r);
    };
    // Output slot `slot` produced as `shape`, reshaped back to its old shape.
    auto reshape_output = [&](std::size_t slot, const Shape& shape) {
      const Node& node = graph.node(id);
      if (slot >= node.outputs.size() || !node.outputs[slot].valid()) return;
      const ValueId v = node.outputs[slot];
      TensorType t = graph.value(v).type;
      const Shape old = t.shape;
      t.shape = shape;
      const ValueId r = add_kiln_value(graph, base + "_out" + std::to_string(slot), t);
      graph.set_output(id, slot, r);
      graph.add_node(OpKind::Reshape, onnx_name + "/batch_first_out", {r}, {v}, ReshapeAttrs{old});
    };
    // Nodes are added below, so `n` is not used past this point.
    reshape_input(0, swap01(x.shape));
    auto shape_of = [&](ValueId v) { return graph.value(v).type.shape; };
    for (std::size_t slot : {5, 6}) {  // initial_h, initial_c
      const Node& node = graph.node(id);
      if (slot < node.inputs.size() && node.inputs[slot].valid())
        reshape_input(slot, swap01(shape_of(node.inputs[slot])));
    }
    for (std::size_t slot : {0, 1, 2}) {  // Y, Y_h, Y_c
      const Node& node = graph.node(id);
      if (slot >= node.outputs.size() || !node.outputs[slot].valid()) continue;
      const Shape s = shape_of(node.outputs[slot]);
      reshape_output(slot, slot == 0 ? y_batch_first(s) : swap01(s));
    }
    auto attrs = graph.node(id).attr<RecurrentAttrs>();
    attrs.batch_first = true;
    graph.node(id).attrs = attrs;
    changed = true;
  }
  if (changed) graph.topological_sort();
  return changed;
}

}  // namespace kiln::passes
