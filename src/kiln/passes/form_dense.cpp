#include "kiln/passes/form_dense.h"

#include <optional>

#include "kiln/passes/use_def.h"

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

bool gemm_to_dense(Graph& graph, std::size_t index) {
  Node& node = graph.nodes()[index];
  const auto& a = node.attr<GemmAttrs>();
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
    const Shape& sa = graph.value(x).type.shape;
    const ValueId xt =
        add_kiln_value(graph, base + "_at", TensorType{DType::Float32, {sa[1], sa[0]}});
    graph.add_node(OpKind::Transpose, "", {x}, {xt}, TransposeAttrs{{1, 0}});
    x = xt;
  }
  const ValueId wid = add_kiln_constant(graph, base + "_w", float_tensor({k, n}, w));
  const ValueId bid = add_kiln_constant(graph, base + "_b", float_tensor({n}, bias));
  Node& dense = graph.nodes()[index];  // add_node may have moved the nodes
  dense.kind = OpKind::Dense;
  dense.inputs = {x, wid, bid};
  dense.attrs = DenseAttrs{};
  if (a.trans_a) graph.topological_sort();
  return true;
}

bool matmul_to_dense(Graph& graph, const UseDef& uses, std::size_t index) {
  const Node& node = graph.nodes()[index];
  const Tensor* b = graph.constant(node.inputs[1]);
  if (b == nullptr || b->rank() != 2 || !is_f32(graph, node.inputs[0]) ||
      graph.constant(node.inputs[0]) != nullptr)
    return false;
  const int64_t k = b->shape()[0], n = b->shape()[1];
  std::vector<double> w(static_cast<std::size_t>(k * n));
  for (int64_t i = 0; i < k * n; ++i) w[static_cast<std::size_t>(i)] = b->as_double(i);
  std::vector<double> bias(static_cast<std::size_t>(n), 0.0);
  ValueId out = node.outputs[0];
  int add_index = -1;
  // A following Add of a constant row bias becomes the Dense bias.
  if (uses.single_use(out)) {
    const int u = uses.consumers(out)[0];
    const Node& add = graph.nodes()[static_cast<std::size_t>(u)];
    if (add.kind == OpKind::Add && add.inputs.size() == 2) {
      const ValueId other = add.inputs[0] == out ? add.inputs[1] : add.inputs[0];
      const Tensor* c = graph.constant(other);
      const std::size_t out_rank = graph.value(out).type.shape.size();
      if (c != nullptr && c->dtype() == DType::Float32 &&
          graph.value(add.outputs[0]).type == graph.value(out).type) {
        if (auto cb = row_bias(*c, n, out_rank)) {
          bias = std::move(*cb);
          out = add.outputs[0];
          add_index = u;
        }
      }
    }
  }
  const std::string base = node.name;
  const ValueId wid = add_kiln_constant(graph, base + "_w", float_tensor({k, n}, w));
  const ValueId bid = add_kiln_constant(graph, base + "_b", float_tensor({n}, bias));
  Node& dense = graph.nodes()[index];
  dense.kind = OpKind::Dense;
  dense.inputs = {dense.inputs[0], wid, bid};
  dense.outputs = {out};
  dense.attrs = DenseAttrs{};
  if (add_index >= 0) erase_node(graph, static_cast<std::size_t>(add_index));
  return true;
}

}  // namespace

bool FormDensePass::run(Graph& graph) {
  return rewrite_to_fixpoint(graph, [&](const UseDef& uses) {
    for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
      const OpKind kind = graph.nodes()[i].kind;
      if (kind == OpKind::Gemm && gemm_to_dense(graph, i)) return true;
      if (kind == OpKind::MatMul && matmul_to_dense(graph, uses, i)) return true;
    }
    return false;
  });
}

}  // namespace kiln::passes
