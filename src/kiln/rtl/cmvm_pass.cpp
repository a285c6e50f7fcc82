#include "kiln/rtl/cmvm_pass.h"

#include <algorithm>
#include <map>

#include "kiln/rtl/node_cost.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

namespace {

using dfg::NodeOp;

// raw(node) = sum of coef * raw(leaf) + constant, modulo 2^mod when mod > 0.
struct Form {
  bool linear = false;
  std::map<uint32_t, int64_t> terms;
  int64_t constant = 0;
  int mod = 0;
};

bool mul_ok(int64_t a, int64_t b, int64_t& out) {
  return !__builtin_mul_overflow(a, b, &out);
}
bool add_ok(int64_t a, int64_t b, int64_t& out) {
  return !__builtin_add_overflow(a, b, &out);
}

// `f` times `k`, added into `into`; false on overflow.
bool accumulate(Form& into, const Form& f, int64_t k) {
  int64_t v = 0;
  for (const auto& [leaf, c] : f.terms) {
    if (!mul_ok(c, k, v) || !add_ok(into.terms[leaf], v, into.terms[leaf])) return false;
    if (into.terms[leaf] == 0) into.terms.erase(leaf);
  }
  return mul_ok(f.constant, k, v) && add_ok(into.constant, v, into.constant);
}

bool is_sum(NodeOp op) {
  return op == NodeOp::Add || op == NodeOp::Sub || op == NodeOp::AddMod || op == NodeOp::SubMod;
}
bool is_mod(NodeOp op) {
  return op == NodeOp::AddMod || op == NodeOp::SubMod;
}

class Pass {
 public:
  Pass(dfg::Graph& g, std::optional<int> max_depth) : g_(g), max_depth_(max_depth) {}

  SharedSums run() {
    forms();
    roots();
    SharedSums out;
    if (roots_.empty()) return out;
    CmvmProblem p = problem();
    p.max_depth = max_depth_;
    if (max_depth_ && *max_depth_ < minimal_depth(p)) return out;
    const CmvmGraph answer = solve_cmvm(p);
    KILN_ASSERT(verify_cmvm(p, answer).empty(), "a constant matrix product the check refuses");
    out.counts = cmvm_counts(p, answer);
    out.replaced = replaced_adders();
    if (out.counts.adders > out.replaced) return out;  // no better than it was
    emit(answer);
    out.roots = static_cast<int>(roots_.size());
    return out;
  }

 private:
  // The operand `a` of a user: its form, or a leaf when it is not linear for
  // that user (a modular sum under an exact operation).
  Form operand(uint32_t a, bool user_mod) const {
    const Form& f = form_[a];
    if (f.linear && (f.mod == 0 || user_mod)) return f;
    Form leaf;
    leaf.linear = true;
    leaf.terms[a] = 1;
    return leaf;
  }
  bool takes_as_leaf(uint32_t user, uint32_t a) const {
    const Form& f = form_[a];
    if (!f.linear) return false;
    if (!form_[user].linear) return true;
    return f.mod != 0 && !is_mod(g_.node(user).op);
  }

  void forms() {
    form_.resize(g_.size());
    for (uint32_t n = 0; n < g_.size(); ++n) {
      const dfg::Node& node = g_.node(n);
      const auto args = g_.args(n);
      Form f;
      f.linear = true;
      bool ok = true;
      switch (node.op) {
        case NodeOp::Const: f.constant = node.imm; break;
        case NodeOp::Shl: f = operand(args[0], false); break;
        case NodeOp::Neg: ok = accumulate(f, operand(args[0], false), -1); break;
        case NodeOp::Mul: {
          const bool c0 = g_.is_const(args[0]), c1 = g_.is_const(args[1]);
          if (c0 == c1) {
            ok = false;
            break;
          }
          ok = accumulate(f, operand(args[c0 ? 1 : 0], false), g_.node(args[c0 ? 0 : 1]).imm);
          break;
        }
        case NodeOp::Add:
        case NodeOp::Sub:
        case NodeOp::AddMod:
        case NodeOp::SubMod: {
          const bool mod = is_mod(node.op);
          const int frac = g_.type(n).frac;
          for (int i = 0; i < 2 && ok; ++i) {
            const int up = frac - g_.type(args[static_cast<std::size_t>(i)]).frac;
            if (up < 0 || up > 40) {
              ok = false;
              break;
            }
            const int64_t sign =
                i == 1 && (node.op == NodeOp::Sub || node.op == NodeOp::SubMod) ? -1 : 1;
            ok = accumulate(f, operand(args[static_cast<std::size_t>(i)], mod),
                            sign * (int64_t{1} << up));
          }
          if (mod) f.mod = g_.type(n).width;
          break;
        }
        default: ok = false;
      }
      if (!ok) f = Form{};
      form_[n] = std::move(f);
    }
  }

  void roots() {
    std::vector<bool> root(g_.size(), false);
    for (uint32_t n = 0; n < g_.size(); ++n)
      for (uint32_t a : g_.args(n))
        if (takes_as_leaf(n, a)) root[a] = true;
    for (const dfg::Output& o : g_.outputs())
      if (form_[o.node].linear) root[o.node] = true;
    for (uint32_t n = 0; n < g_.size(); ++n)
      if (root[n] && is_sum(g_.node(n).op) && form_[n].terms.size() >= 2) roots_.push_back(n);
  }

  CmvmProblem problem() {
    std::map<uint32_t, int> index;
    for (uint32_t r : roots_)
      for (const auto& [leaf, c] : form_[r].terms) index.emplace(leaf, 0);
    for (auto& [leaf, i] : index) {
      i = static_cast<int>(leaves_.size());
      leaves_.push_back(leaf);
    }
    CmvmProblem p;
    p.inputs = static_cast<int>(leaves_.size());
    p.outputs = static_cast<int>(roots_.size());
    p.weights.assign(static_cast<std::size_t>(p.inputs) * static_cast<std::size_t>(p.outputs), 0);
    for (std::size_t j = 0; j < roots_.size(); ++j)
      for (const auto& [leaf, c] : form_[roots_[j]].terms)
        p.weights[static_cast<std::size_t>(index[leaf]) * roots_.size() + j] = c;
    for (uint32_t leaf : leaves_) {
      const numeric::FixedType t = loop::fixed_of(g_.type(leaf));
      p.ranges.emplace_back(t.min_raw(), t.max_raw());
    }
    return p;
  }

  // The adders the roots' trees take now: their sums and negations, and each
  // product by a constant's canonical signed digits less one.
  int64_t replaced_adders() const {
    std::vector<bool> seen(g_.size(), false);
    std::vector<uint32_t> stack(roots_.begin(), roots_.end());
    int64_t adders = 0;
    while (!stack.empty()) {
      const uint32_t n = stack.back();
      stack.pop_back();
      if (seen[n]) continue;
      seen[n] = true;
      const dfg::Node& node = g_.node(n);
      if (is_sum(node.op) || node.op == NodeOp::Neg) ++adders;
      if (node.op == NodeOp::Mul && !is_var_mul(g_, n))
        adders += std::max(0, constant_digits(g_, n) - 1);
      for (uint32_t a : g_.args(n))
        if (!takes_as_leaf(n, a) && form_[a].linear) stack.push_back(a);
    }
    return adders;
  }

  void emit(const CmvmGraph& answer) {
    std::vector<uint32_t> value;  // the answer's nodes as graph nodes (integers)
    for (uint32_t leaf : leaves_) value.push_back(g_.shl(leaf, g_.type(leaf).frac));
    const auto term = [&](const CmvmTerm& t) {
      const uint32_t v = value[static_cast<std::size_t>(t.node)];
      return t.shift ? g_.shl(v, t.shift) : v;
    };
    for (const CmvmAdder& a : answer.adders) {
      const uint32_t x = term(a.a), y = term({a.b.node, a.b.shift, false});
      value.push_back(a.b.negative ? g_.sub(x, y) : g_.add(x, y));
    }
    std::vector<uint32_t> repl(g_.size());
    for (uint32_t n = 0; n < repl.size(); ++n) repl[n] = n;
    for (std::size_t j = 0; j < roots_.size(); ++j) {
      const uint32_t root = roots_[j];
      const Form& f = form_[root];
      const auto& o = answer.outputs[j];
      std::optional<uint32_t> v;
      if (o) v = term(*o);
      if (f.constant != 0) {
        int width = 1;
        while (width < 63 && (f.constant < -(int64_t{1} << (width - 1)) ||
                              f.constant >= (int64_t{1} << (width - 1))))
          ++width;
        const uint32_t c = g_.constant(f.constant, {width, 0, true});
        v = !v ? c : o->negative ? g_.sub(c, *v) : g_.add(c, *v);
      } else if (v && o->negative) {
        v = g_.neg(*v);
      }
      if (!v) v = g_.constant(0, {1, 0, true});
      uint32_t back = g_.shl(*v, -g_.type(root).frac);
      if (f.mod) back = g_.quantize(back, loop::fixed_of(g_.type(root)));
      repl[root] = back;
    }
    g_.replace(repl);
  }

  dfg::Graph& g_;
  std::optional<int> max_depth_;
  std::vector<Form> form_;
  std::vector<uint32_t> roots_;
  std::vector<uint32_t> leaves_;
};

}  // namespace

SharedSums share_constant_sums(dfg::Graph& g, std::optional<int> max_depth) {
  return Pass(g, max_depth).run();
}

}  // namespace kiln::rtl
