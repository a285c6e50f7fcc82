#include "kiln/graph/layer_stats.h"

#include <limits>
#include <vector>

#include "kiln/graph/shape_inference.h"

namespace kiln {

namespace {

int64_t sat_mul(int64_t a, int64_t b) {  // a, b >= 0
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::numeric_limits<int64_t>::max();
  return r;
}

int64_t sat_add(int64_t a, int64_t b) {  // a, b >= 0
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::numeric_limits<int64_t>::max();
  return r;
}

int64_t product(const Shape& s, std::size_t begin) {
  int64_t p = 1;
  for (std::size_t i = begin; i < s.size(); ++i) p = sat_mul(p, s[i]);
  return p;
}

int64_t count_macs(const Graph& graph, const Node& node) {
  const OpKind k = node.kind;
  if (k != OpKind::Conv && k != OpKind::Gemm && k != OpKind::MatMul && k != OpKind::ConvTranspose &&
      k != OpKind::Dense)
    return 0;
  // Inference validates the node, so the shapes below are consistent.
  const Shape out = infer_node_types(graph, node)[0].shape;
  const Shape& a = graph.value(node.inputs[0]).type.shape;
  const Shape& b = graph.value(node.inputs[1]).type.shape;
  // Conv: each output element (N*M*spatial, in either layout) sums over
  // C/group channels times the kernel, which is exactly W's per-output-channel
  // size.
  if (k == OpKind::Conv) return sat_mul(product(out, 0), product(b, 1));
  // Gemm: M*N*K.
  if (k == OpKind::Gemm)
    return sat_mul(product(out, 0), node.attr<GemmAttrs>().trans_a ? a[0] : a[1]);
  // ConvTranspose: every input element (N*C*spatial) is multiplied by the
  // M/group * kernel weights it scatters to: W's per-input-channel size.
  if (k == OpKind::ConvTranspose) return sat_mul(product(a, 0), product(b, 1));
  // MatMul: the output holds batch*M*N elements (1-D operands contribute 1),
  // each a K-long dot.
  if (k == OpKind::MatMul) return sat_mul(product(out, 0), a.back());
  // Dense: every output element is a K-long dot product (W is [K, N]).
  return sat_mul(product(out, 0), b[0]);
}

}  // namespace

LayerStats layer_stats(const Graph& graph, const Node& node) {
  LayerStats stats;
  std::vector<ValueId> seen;
  for (ValueId in : node.inputs) {
    const Tensor* t = graph.constant(in);
    if (t == nullptr) continue;
    bool dup = false;
    for (ValueId s : seen) dup = dup || s == in;
    if (dup) continue;
    seen.push_back(in);
    stats.params = sat_add(stats.params, t->numel());
  }
  stats.macs = count_macs(graph, node);
  return stats;
}

}  // namespace kiln
