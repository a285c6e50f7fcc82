#include "kiln/passes/channels_last.h"

#include <algorithm>
#include <optional>

#include "kiln/passes/rewrite.h"
#include "kiln/support/error.h"

namespace kiln::passes {

namespace {

// [N, C, s...] -> [N, s..., C] and its inverse, as Transpose perms.
std::vector<int64_t> to_last_perm(std::size_t rank) {
  std::vector<int64_t> p = {0};
  for (std::size_t i = 2; i < rank; ++i) p.push_back(static_cast<int64_t>(i));
  p.push_back(1);
  return p;
}
std::vector<int64_t> to_first_perm(std::size_t rank) {
  std::vector<int64_t> p = {0, static_cast<int64_t>(rank - 1)};
  for (std::size_t i = 1; i + 1 < rank; ++i) p.push_back(static_cast<int64_t>(i));
  return p;
}
Shape permuted(const Shape& s, const std::vector<int64_t>& perm) {
  Shape r;
  for (int64_t p : perm) r.push_back(s[static_cast<std::size_t>(p)]);
  return r;
}

bool has_channels_last_flag(const Node& n) {
  if (const auto* a = std::get_if<ConvAttrs>(&n.attrs)) return a->channels_last;
  if (const auto* a = std::get_if<ConvTransposeAttrs>(&n.attrs)) return a->channels_last;
  if (const auto* a = std::get_if<PoolAttrs>(&n.attrs)) return a->channels_last;
  if (const auto* a = std::get_if<GlobalPoolAttrs>(&n.attrs)) return a->channels_last;
  if (const auto* a = std::get_if<BatchNormAttrs>(&n.attrs)) return a->channels_last;
  if (const auto* a = std::get_if<PadAttrs>(&n.attrs)) return a->channels_last;
  return false;
}

bool joins_as_unary(OpKind k) {
  return k == OpKind::Relu || k == OpKind::LeakyRelu || k == OpKind::Sigmoid || k == OpKind::Tanh ||
         k == OpKind::Exp || k == OpKind::Elu || k == OpKind::Selu || k == OpKind::Clip ||
         k == OpKind::HardSigmoid || k == OpKind::HardSwish;
}

class Converter {
 public:
  explicit Converter(Graph& g) : g_(g) {}

  bool run() {
    bool changed = false;
    // Only the original nodes are visited; the Transposes added go at the
    // end of the order, and one sort afterwards places them.
    const std::vector<NodeId> original = g_.node_ids();
    for (std::size_t p = 0; p < original.size(); ++p) {
      const auto id = static_cast<std::size_t>(original[p].index);
      if (position_.size() <= id) position_.resize(id + 1, -1);
      position_[id] = static_cast<int>(p);
    }
    for (NodeId i : original) {
      if (is_anchor(i)) {
        convert_anchor(i);
        changed = true;
      } else if (joins(i)) {
        convert_joiner(i);
      } else if (!relabel_flatten(i)) {
        const ValueList inputs = g_.node(i).inputs;
        for (ValueId in : inputs) need_original(in);
      }
    }
    for (ValueId out : g_.outputs) need_original(out);
    if (changed) g_.topological_sort();
    return changed;
  }

 private:
  std::size_t rank_of(ValueId v) const { return g_.value(v).type.shape.size(); }
  bool spatial(ValueId v) const {
    return v.valid() && (rank_of(v) == 3 || rank_of(v) == 4) && is_float(g_.value(v).type.dtype);
  }

  // Per-value state, grown as values are added.
  struct State {
    ValueId cl;              // the channels-last version of the value
    bool converted = false;  // its producer now makes `cl`; the value itself needs a back transpose
    bool back_made = false;
  };
  State& state(ValueId v) {
    if (static_cast<std::size_t>(v.index) >= state_.size())
      state_.resize(static_cast<std::size_t>(v.index) + 1);
    return state_[static_cast<std::size_t>(v.index)];
  }
  bool is_cl(ValueId v) { return v.valid() && state(v).converted; }

  bool is_anchor(NodeId i) const {
    const Node& n = g_.node(i);
    if (n.inputs.empty() || !spatial(n.inputs[0])) return false;
    const OpKind k = n.kind;
    if (k == OpKind::Resize) return n.inputs.size() == 1;  // resizes the spatial axes
    if (k == OpKind::Conv || k == OpKind::ConvTranspose || k == OpKind::AveragePool ||
        k == OpKind::GlobalAveragePool || k == OpKind::GlobalMaxPool ||
        k == OpKind::BatchNormalization)
      return true;
    if (k == OpKind::MaxPool)  // its Indices index the channels-first tensor
      return n.outputs.size() < 2 || !n.outputs[1].valid();
    if (k == OpKind::Pad) {
      const auto& a = n.attr<PadAttrs>();
      const std::size_t r = rank_of(n.inputs[0]);
      return a.mode == PadMode::Constant && a.value == 0.0 && a.pads[0] == 0 && a.pads[1] == 0 &&
             a.pads[r] == 0 && a.pads[r + 1] == 0;
    }
    return false;
  }

  bool joins(NodeId i) {
    const Node& n = g_.node(i);
    if (n.inputs.empty()) return false;
    // Slices and Splits of a region value index its channels-last form by
    // permuted attributes.
    if (n.kind == OpKind::Slice || n.kind == OpKind::Split) return is_cl(n.inputs[0]);
    // Per-tensor quantizers are elementwise.
    if (n.kind == OpKind::QuantizeLinear || n.kind == OpKind::DequantizeLinear ||
        n.kind == OpKind::Quant) {
      const Tensor* scale = n.inputs.size() > 1 ? g_.constant(n.inputs[1]) : nullptr;
      return is_cl(n.inputs[0]) && scale != nullptr && scale->numel() == 1;
    }
    if (n.outputs.size() != 1) return false;
    if (joins_as_unary(n.kind)) return is_cl(n.inputs[0]);
    if (n.kind == OpKind::Add || n.kind == OpKind::Sub || n.kind == OpKind::Mul) {
      if (n.inputs.size() != 2) return false;
      const ValueId a = n.inputs[0], b = n.inputs[1];
      // Two region values of one rank: broadcasting commutes with the
      // permutation (a [N, C, 1, 1] gate becomes [N, 1, 1, C]); lowering
      // decides which broadcasts have a layer.
      if (is_cl(a) && is_cl(b)) return rank_of(a) == rank_of(b);
      // A region value and a constant of one value or one per channel.
      const ValueId x = is_cl(a) ? a : is_cl(b) ? b : ValueId{};
      const ValueId c = x == a ? b : a;
      if (!x.valid() || g_.value(n.outputs[0]).type.shape != g_.value(x).type.shape) return false;
      // Or a computed gate outside the region that broadcasts onto it (a
      // Linear's output reshaped to [N, C, 1, 1]): it joins transposed.
      return channel_constant(c, x).has_value() || is_gate(c, x);
    }
    if (n.kind == OpKind::Concat) {
      for (ValueId in : n.inputs)
        if (!is_cl(in)) return false;
      return true;
    }
    return false;
  }

  // Constant `c` as it broadcasts against channels-last `x` when, against the
  // channels-first `x`, it is one value or varies along the channel axis
  // (axis 1) only: [C] values (or its one value), else nullopt.
  std::optional<Tensor> channel_constant(ValueId c, ValueId x) const {
    const Tensor* t = g_.constant(c);
    if (!t || !is_float(t->dtype())) return std::nullopt;
    if (!broadcasts_along_axis(t->shape(), g_.value(x).type.shape, 1)) return std::nullopt;
    const int64_t channels = g_.value(x).type.shape[1];
    if (t->numel() == 1) return t->reshaped({1});
    return t->reshaped({channels});
  }

  // A computed float value of x's rank that broadcasts onto x without being
  // its shape.
  bool is_gate(ValueId c, ValueId x) const {
    if (g_.constant(c) || !is_float(g_.value(c).type.dtype) || rank_of(c) != rank_of(x))
      return false;
    const Shape& cs = g_.value(c).type.shape;
    const Shape& xs = g_.value(x).type.shape;
    if (cs == xs) return false;
    for (std::size_t d = 0; d < cs.size(); ++d)
      if (cs[d] != xs[d] && cs[d] != 1) return false;
    return true;
  }

  // The channels-last version of `v`, made by a Transpose if `v` has none yet.
  ValueId cl_version(ValueId v) {
    if (state(v).cl.valid()) return state(v).cl;
    const TensorType& t = g_.value(v).type;
    const auto perm = to_last_perm(t.shape.size());
    const ValueId nv =
        add_kiln_value(g_, g_.value(v).name + "_cl", TensorType{t.dtype, permuted(t.shape, perm)});
    g_.add_node(OpKind::Transpose, "", {v}, {nv}, TransposeAttrs{perm});
    state(v).cl = nv;
    return nv;
  }

  // A reader needs `v` channels-first: if its producer was converted, add the
  // Transpose back (once) that produces `v` again.
  void need_original(ValueId v) {
    if (!is_cl(v) || state(v).back_made) return;
    state(v).back_made = true;
    const auto perm = to_first_perm(rank_of(v));
    g_.add_node(OpKind::Transpose, "", {state(v).cl}, {v}, TransposeAttrs{perm});
  }

  // Replaces output `k` of node `i` by a new channels-last value.
  void convert_output(NodeId i, std::size_t k) {
    const ValueId old = g_.node(i).outputs[k];
    if (!old.valid()) return;
    const TensorType t = g_.value(old).type;
    const auto perm = to_last_perm(t.shape.size());
    const ValueId nv = add_kiln_value(g_, g_.value(old).name + "_cl",
                                      TensorType{t.dtype, permuted(t.shape, perm)});
    g_.set_output(i, k, nv);
    state(old).cl = nv;
    state(old).converted = true;
  }

  // Rewrites the axis attributes of a node that joins (or anchors) the
  // channels-last region: the axes of its rank-`r` input move as to_last_perm.
  static void permute_attrs(Node& n, std::size_t r) {
    auto to_last_axis = [r](int64_t axis) {
      return axis == 0 ? 0 : axis == 1 ? static_cast<int64_t>(r) - 1 : axis - 1;
    };
    const auto perm = to_last_perm(r);
    auto permute = [&perm](auto& v) {
      if (v.size() != perm.size()) return;
      auto p = v;
      for (std::size_t d = 0; d < perm.size(); ++d) p[d] = v[static_cast<std::size_t>(perm[d])];
      v = std::move(p);
    };
    if (auto* a = std::get_if<ConcatAttrs>(&n.attrs)) a->axis = to_last_axis(a->axis);
    if (auto* a = std::get_if<SplitAttrs>(&n.attrs)) a->axis = to_last_axis(a->axis);
    if (auto* a = std::get_if<SliceAttrs>(&n.attrs)) {
      permute(a->starts);
      permute(a->ends);
      permute(a->steps);
    }
    if (auto* a = std::get_if<ResizeAttrs>(&n.attrs)) {
      permute(a->sizes);
      permute(a->scales);
      if (a->roi.size() == 2 * r) {  // starts, then ends
        std::vector<double> lo(a->roi.begin(), a->roi.begin() + static_cast<long>(r));
        std::vector<double> hi(a->roi.begin() + static_cast<long>(r), a->roi.end());
        permute(lo);
        permute(hi);
        a->roi = lo;
        a->roi.insert(a->roi.end(), hi.begin(), hi.end());
      }
    }
  }

  void convert_anchor(NodeId i) {
    const ValueId x = g_.node(i).inputs[0];
    const std::size_t r = rank_of(x);
    const ValueId xcl = cl_version(x);  // may add a node: no references held across it
    g_.set_input(i, 0, xcl);
    Node& n = g_.node(i);
    if (auto* a = std::get_if<ConvAttrs>(&n.attrs)) a->channels_last = true;
    if (auto* a = std::get_if<ConvTransposeAttrs>(&n.attrs)) a->channels_last = true;
    if (auto* a = std::get_if<PoolAttrs>(&n.attrs)) a->channels_last = true;
    if (auto* a = std::get_if<BatchNormAttrs>(&n.attrs)) a->channels_last = true;
    if (n.kind == OpKind::GlobalAveragePool || n.kind == OpKind::GlobalMaxPool)
      n.attrs = GlobalPoolAttrs{true};
    if (n.kind == OpKind::Resize) permute_attrs(n, r);
    if (auto* a = std::get_if<PadAttrs>(&n.attrs)) {
      const auto perm = to_last_perm(r);
      std::vector<int64_t> pads(2 * r);
      for (std::size_t d = 0; d < r; ++d) {
        pads[d] = a->pads[static_cast<std::size_t>(perm[d])];
        pads[r + d] = a->pads[r + static_cast<std::size_t>(perm[d])];
      }
      a->pads = std::move(pads);
      a->channels_last = true;
    }
    for (std::size_t k = 0; k < g_.node(i).outputs.size(); ++k) convert_output(i, k);
  }

  void convert_joiner(NodeId i) {
    const std::size_t r = rank_of(g_.node(i).inputs[0]);
    const ValueList inputs = g_.node(i).inputs;
    for (std::size_t s = 0; s < inputs.size(); ++s) {
      const ValueId in = inputs[s];
      if (is_cl(in)) {
        g_.set_input(i, s, state(in).cl);
      } else if (inputs.size() == 2 && !g_.constant(in)) {  // Add/Sub/Mul's gate
        g_.set_input(i, s, cl_version(in));
      } else if (inputs.size() == 2) {  // Add/Sub/Mul's constant
        auto c = channel_constant(in, inputs[1 - s]);
        KILN_ASSERT(c.has_value(), "channels_last: a joining constant that does not broadcast");
        g_.set_input(i, s, add_kiln_constant(g_, g_.value(in).name + "_cl", std::move(*c)));
      }
    }
    permute_attrs(g_.node(i), r);
    for (std::size_t k = 0; k < g_.node(i).outputs.size(); ++k) convert_output(i, k);
  }

  // Flatten(axis 1) or Reshape to [N, -1] of a channels-last value whose only
  // readers are Dense nodes (as X): flatten the channels-last tensor and
  // permute the Dense weight rows from (c, s) order to (s, c) order.
  bool relabel_flatten(NodeId i) {
    const Node& n = g_.node(i);
    if (n.inputs.size() != 1 || n.outputs.size() != 1 || !is_cl(n.inputs[0])) return false;
    const ValueId x = n.inputs[0], y = n.outputs[0];
    const Shape& xs = g_.value(x).type.shape;
    const Shape& ys = g_.value(y).type.shape;
    const bool flat = ys.size() == 2 && ys[0] == xs[0];
    if (!(n.kind == OpKind::Flatten && n.attr<FlattenAttrs>().axis == 1) &&
        !(n.kind == OpKind::Reshape && flat))
      return false;
    if (!flat || g_.uses(y).empty() || g_.is_output(y)) return false;
    const int64_t channels = xs[1];
    const int64_t plane = channels == 0 ? 0 : ys[1] / channels;
    std::vector<NodeId> readers;
    for (const Use& u : g_.uses(y)) {
      const Node& d = g_.node(u.node);
      if (d.kind != OpKind::Dense || d.inputs[0] != y || d.inputs[1] == y) return false;
      const Tensor* w = g_.constant(d.inputs[1]);
      if (w == nullptr || w->rank() != 2 || w->shape()[0] != ys[1]) return false;
      readers.push_back(u.node);
    }
    // In graph order, so the new weights are named and numbered as the graph reads.
    std::sort(readers.begin(), readers.end(), [&](NodeId a, NodeId b) {
      return position_[static_cast<std::size_t>(a.index)] <
             position_[static_cast<std::size_t>(b.index)];
    });
    g_.set_input(i, 0, state(x).cl);
    for (NodeId c : readers) {
      const ValueId wid = g_.node(c).inputs[1];
      const Tensor& w = *g_.constant(wid);
      const int64_t cols = w.shape()[1];
      Tensor pw(w.dtype(), w.shape());
      const std::size_t esize = dtype_size(w.dtype());
      for (int64_t ch = 0; ch < channels; ++ch)
        for (int64_t s = 0; s < plane; ++s) {
          const int64_t from = ch * plane + s, to = s * channels + ch;
          copy_bytes(pw.raw().data() + static_cast<std::size_t>(to * cols) * esize,
                     w.raw().data() + static_cast<std::size_t>(from * cols) * esize,
                     static_cast<std::size_t>(cols) * esize);
        }
      const ValueId nw = add_kiln_constant(g_, g_.value(wid).name + "_cl", std::move(pw));
      g_.set_input(c, 1, nw);
    }
    return true;
  }

  Graph& g_;
  std::vector<State> state_;
  std::vector<int> position_;  // by NodeId: place of the original nodes in the order
};

}  // namespace

bool ChannelsLastPass::run(Graph& graph) {
  for (const Node& n : graph.nodes())
    if (has_channels_last_flag(n)) return false;  // converted already
  return Converter(graph).run();
}

}  // namespace kiln::passes
