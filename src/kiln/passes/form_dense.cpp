#include "kiln/passes/form_dense.h"

#include <optional>

#include "kiln/passes/rewrite.h"

namespace kiln::passes {

namespace {

// The bias [N] that a constant `c` gives when it broadcasts over the rows of
// an [..., N] result ([], [1], [N], [1, ..., 1, N], [1, ..., 1, 1]); nullopt
// for per-row constants, which a Dense cannot hold.
std::optional<std::vector<double>> row_bias(const Tensor& c, int64_t n, std::size_t out_rank) {
  const Shape& s = c.shape();
  if (s.size() > out_rank) return std::nullopt;
  for (std::size_t i = 0; i + 1 < s.size(); ++i)
    if (s[i] != 1) return std::nullopt;
  const int64_t last = s.empty() ? 1 : s.back();
  if (last != 1 && last != n) return std::nullopt;
  std::vector<double> b(static_cast<std::size_t>(n));
  for (int64_t j = 0; j < n; ++j) b[static_cast<std::size_t>(j)] = c.as_double(last == 1 ? 0 : j);
  return b;
}

Tensor float_tensor(Shape shape, const std::vector<double>& v) {
  Tensor t(DType::Float32, std::move(shape));
  auto d = t.data<float>();
  for (std::size_t i = 0; i < v.size(); ++i) d[i] = static_cast<float>(v[i]);
  return t;
}

bool is_f32(const Graph& g, ValueId v) {
  return v.valid() && g.value(v).type.dtype == DType::Float32;
}

// Adds a Transpose at the end of the order when transA is set: the caller
// sorts the graph once afterwards.
bool gemm_to_dense(Graph& graph, NodeId id, bool& added_transpose) {
  const Node& node = graph.node(id);
  const GemmAttrs a = node.attr<GemmAttrs>();
  const Tensor* b = graph.constant(node.inputs[1]);
  if (b == nullptr || !is_f32(graph, node.inputs[0]) || b->rank() != 2) return false;
  const int64_t k = a.trans_b ? b->shape()[1] : b->shape()[0];
  const int64_t n = a.trans_b ? b->shape()[0] : b->shape()[1];
  std::vector<double> bias(static_cast<std::size_t>(n), 0.0);
  const ValueId c_id = node.inputs.size() > 2 ? node.inputs[2] : kNoValue;
  if (c_id.valid()) {
    const Tensor* c = graph.constant(c_id);
    if (c == nullptr) return false;
    auto cb = row_bias(*c, n, 2);
    if (!cb) return false;
    for (double& x : *cb) x *= static_cast<double>(a.beta);
    bias = std::move(*cb);
  }
  std::vector<double> w(static_cast<std::size_t>(k * n));
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j)
      w[static_cast<std::size_t>(i * n + j)] =
          static_cast<double>(a.alpha) * b->as_double(a.trans_b ? j * k + i : i * n + j);

  ValueId x = node.inputs[0];
  const std::string base = node.name;
  if (a.trans_a) {  // Dense works on the last axis: give it A^T.
    const Shape sa = graph.value(x).type.shape;
    const ValueId xt =
        add_kiln_value(graph, base + "_at", TensorType{DType::Float32, {sa[1], sa[0]}});
    graph.add_node(OpKind::Transpose, "", {x}, {xt}, TransposeAttrs{{1, 0}});
    x = xt;
    added_transpose = true;
  }
  const ValueId wid = add_kiln_constant(graph, base + "_w", float_tensor({k, n}, w));
  const ValueId bid = add_kiln_constant(graph, base + "_b", float_tensor({n}, bias));
  graph.set_inputs(id, {x, wid, bid});
  Node& dense = graph.node(id);  // add_node may have moved the nodes
  dense.kind = OpKind::Dense;
  dense.attrs = DenseAttrs{};
  return true;
}

bool matmul_to_dense(Graph& graph, NodeId id) {
  const Node& node = graph.node(id);
  const Tensor* b = graph.constant(node.inputs[1]);
  if (b == nullptr || b->rank() != 2 || !is_f32(graph, node.inputs[0]) ||
      graph.constant(node.inputs[0]) != nullptr)
    return false;
  const int64_t k = b->shape()[0], n = b->shape()[1];
  std::vector<double> w(static_cast<std::size_t>(k * n));
  for (int64_t i = 0; i < k * n; ++i) w[static_cast<std::size_t>(i)] = b->as_double(i);
  std::vector<double> bias(static_cast<std::size_t>(n), 0.0);
  ValueId out = node.outputs[0];
  NodeId add_id;
  // A following Add of a constant row bias becomes the Dense bias.
  if (single_use(graph, out)) {
    const NodeId u = graph.uses(out)[0].node;
    const Node& add = graph.node(u);
    if (add.kind == OpKind::Add && add.inputs.size() == 2) {
      const ValueId other = add.inputs[0] == out ? add.inputs[1] : add.inputs[0];
      const Tensor* c = graph.constant(other);
      const std::size_t out_rank = graph.value(out).type.shape.size();
      if (c != nullptr && c->dtype() == DType::Float32 &&
          graph.value(add.outputs[0]).type == graph.value(out).type) {
        if (auto cb = row_bias(*c, n, out_rank)) {
          bias = std::move(*cb);
          out = add.outputs[0];
          add_id = u;
        }
      }
    }
  }
  const std::string base = node.name;
  const ValueId x = node.inputs[0];
  const ValueId wid = add_kiln_constant(graph, base + "_w", float_tensor({k, n}, w));
  const ValueId bid = add_kiln_constant(graph, base + "_b", float_tensor({n}, bias));
  if (add_id.valid()) graph.erase_node(add_id);  // frees `out`
  graph.set_inputs(id, {x, wid, bid});
  graph.set_output(id, 0, out);
  Node& dense = graph.node(id);
  dense.kind = OpKind::Dense;
  dense.attrs = DenseAttrs{};
  return true;
}

}  // namespace

bool FormDensePass::run(Graph& graph) {
  bool added_transpose = false;
  const bool changed = rewrite_nodes(graph, [&](NodeId id, Worklist&) {
    const OpKind kind = graph.node(id).kind;
    if (kind == OpKind::Gemm) return gemm_to_dense(graph, id, added_transpose);
    if (kind == OpKind::MatMul) return matmul_to_dense(graph, id);
    return false;
  });
  if (added_transpose) graph.topological_sort();
  return changed;
}

}  // namespace kiln::passes
