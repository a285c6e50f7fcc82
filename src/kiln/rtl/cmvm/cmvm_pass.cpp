#include "kiln/rtl/cmvm/cmvm_pass.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "kiln/rtl/stage/node_cost.h"
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

bool is_mod(NodeOp op) {
  return op == NodeOp::AddMod || op == NodeOp::SubMod;
}

// A problem's nonzero weights: up to kThoroughTerms it is solved every way
// (tens of milliseconds for 16x16, a second for 64x32; 64x64 16-bit weights
// take 4 s every way, 0.6 s once, for 0.6% more adders), up to kMaxTerms once
// (CmvmEffort::Quick), beyond that not at all (its sums stay as they are).
constexpr int64_t kThoroughTerms = 2048;
constexpr int64_t kMaxTerms = 1 << 15;

constexpr int kExact = std::numeric_limits<int>::max();

// A group of roots and the leaves they read.
struct Group {
  std::vector<uint32_t> roots;
  std::vector<uint32_t> leaves;  // in element order (leaf_before)
  int64_t terms = 0;
};

class Pass {
 public:
  Pass(dfg::Graph& g, const ShareOptions& options) : g_(g), o_(options) {}

  SharedSums run() {
    forms();
    roots();
    SharedSums out;
    if (roots_.empty()) return out;
    std::vector<uint32_t> repl(g_.size());
    for (uint32_t n = 0; n < repl.size(); ++n) repl[n] = n;
    for (const Group& group : groups()) {
      if (group.terms > kMaxTerms) continue;
      CmvmProblem p = problem(group);
      const int least = minimal_depth(p);
      if (o_.least_depth)
        p.max_depth = least;
      else if (o_.max_depth) {
        if (*o_.max_depth < least) continue;  // no answer within it: as it is
        p.max_depth = o_.max_depth;
      }
      const CmvmGraph& answer = solve(p, group.terms, out);
      const CmvmCounts c = cmvm_counts(p, answer);
      const int64_t before = replaced_adders(group.roots);
      if (c.adders >= before) continue;  // no better than it was
      emit(group, answer, repl);
      ++out.problems;
      out.roots += static_cast<int>(group.roots.size());
      out.replaced += before;
      out.counts += c;
      out.deeper += c.depth > least ? 1 : 0;
    }
    if (out.roots > 0) g_.replace(repl);
    return out;
  }

 private:
  const CmvmGraph& solve(const CmvmProblem& p, int64_t terms, SharedSums& out) {
    CmvmMemo& memo = o_.memo ? *o_.memo : local_memo_;
    std::string key = cmvm_key(p);
    if (const auto it = memo.find(key); it != memo.end()) return it->second;
    CmvmGraph answer =
        solve_cmvm(p, terms > kThoroughTerms ? CmvmEffort::Quick : CmvmEffort::Thorough);
    const std::string wrong = verify_cmvm(p, answer);
    KILN_ASSERT(wrong.empty(), "a constant matrix product the check refuses: " + wrong);
    ++out.solved;
    return memo.emplace(std::move(key), std::move(answer)).first->second;
  }

  // Leaves in the order of the elements they read (other leaves after, by
  // node): a convolution's windows list their elements alike at every pixel.
  bool leaf_before(uint32_t a, uint32_t b) const {
    const auto key = [this](uint32_t n) {
      if (g_.node(n).op != NodeOp::Input) return std::make_tuple(1, 0, int64_t{n});
      const dfg::Element& e = g_.input_of(n);
      return std::make_tuple(0, e.buffer, e.element);
    };
    return key(a) < key(b);
  }

  // Roots with the same leaves together; each such set joins the group
  // (largest sets first) holding all but a tenth of its leaves, within
  // kMaxTerms, or starts one.
  std::vector<Group> groups() const {
    std::map<std::vector<uint32_t>, std::vector<uint32_t>> by_leaves;
    for (uint32_t r : roots_) {
      std::vector<uint32_t> leaves;
      for (const auto& [leaf, c] : form_[r].terms) leaves.push_back(leaf);
      by_leaves[std::move(leaves)].push_back(r);
    }
    std::vector<const std::pair<const std::vector<uint32_t>, std::vector<uint32_t>>*> sets;
    for (const auto& s : by_leaves) sets.push_back(&s);
    std::stable_sort(sets.begin(), sets.end(), [](const auto* a, const auto* b) {
      return a->first.size() > b->first.size();
    });
    std::vector<Group> out;
    std::vector<std::set<uint32_t>> held;
    std::unordered_map<uint32_t, std::vector<int>> groups_of;  // leaf -> groups holding it
    for (const auto* s : sets) {
      const std::vector<uint32_t>& leaves = s->first;
      const auto terms = static_cast<int64_t>(leaves.size() * s->second.size());
      std::map<int, int64_t> votes;
      for (uint32_t leaf : leaves)
        if (const auto it = groups_of.find(leaf); it != groups_of.end())
          for (int gi : it->second) ++votes[gi];
      int best = -1;
      for (const auto& [gi, v] : votes)
        if (out[static_cast<std::size_t>(gi)].terms + terms <= kMaxTerms &&
            (best < 0 || v > votes[best]))
          best = gi;
      const auto size = static_cast<int64_t>(leaves.size());
      if (best < 0 || (size - votes[best]) * 10 > size) {
        best = static_cast<int>(out.size());
        out.emplace_back();
        held.emplace_back();
      }
      Group& group = out[static_cast<std::size_t>(best)];
      group.roots.insert(group.roots.end(), s->second.begin(), s->second.end());
      group.terms += terms;
      for (uint32_t leaf : leaves)
        if (held[static_cast<std::size_t>(best)].insert(leaf).second) {
          group.leaves.push_back(leaf);
          groups_of[leaf].push_back(best);
        }
    }
    for (Group& group : out) {
      std::sort(group.roots.begin(), group.roots.end());
      std::sort(group.leaves.begin(), group.leaves.end(),
                [this](uint32_t a, uint32_t b) { return leaf_before(a, b); });
    }
    return out;
  }

  // Whether user `u` takes operand `a`'s linear form as terms of its own: an
  // exact form always; a modular one (raw modulo 2^mod in its own units) only
  // into a modular sum whose modulus, in those units, is no wider. A wrap at
  // 4 around a sum wrapped at 1/2 keeps what the inner wrap took away (the
  // random graphs' seed 5771: a modular sum of ap_ufixed<9,-1> under one of
  // ap_fixed<12,2>).
  bool composes(uint32_t u, uint32_t a) const {
    const Form& f = form_[a];
    if (f.mod == 0) return true;
    if (!is_mod(g_.node(u).op)) return false;
    const int up = g_.type(u).frac - g_.type(a).frac;
    return g_.type(u).width <= f.mod + up;
  }

  // The operand `a` of user `u`: its form, or a leaf when it is not linear
  // for that user (composes).
  Form operand(uint32_t a, uint32_t u) const {
    const Form& f = form_[a];
    if (f.linear && composes(u, a)) return f;
    Form leaf;
    leaf.linear = true;
    leaf.terms[a] = 1;
    return leaf;
  }
  bool takes_as_leaf(uint32_t user, uint32_t a) const {
    const Form& f = form_[a];
    if (!f.linear) return false;
    return !form_[user].linear || !composes(user, a);
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
        case NodeOp::Shl: f = operand(args[0], n); break;
        case NodeOp::Neg: ok = accumulate(f, operand(args[0], n), -1); break;
        case NodeOp::Mul: {
          const bool c0 = g_.is_const(args[0]), c1 = g_.is_const(args[1]);
          if (c0 == c1) {
            ok = false;
            break;
          }
          ok = accumulate(f, operand(args[c0 ? 1 : 0], n), g_.node(args[c0 ? 0 : 1]).imm);
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
            ok = accumulate(f, operand(args[static_cast<std::size_t>(i)], n),
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
    // The low bits of each node its users read (kExact: all of it): a
    // quantize that wraps and rounds blind to the sign reads the bits it
    // keeps and those it rounds away, any other user all of them (AP_TRN_ZERO
    // rounds a negative sum up: the sign of the whole sum decides).
    needs_.assign(g_.size(), 0);
    for (uint32_t n = 0; n < g_.size(); ++n) {
      const dfg::Node& node = g_.node(n);
      for (uint32_t a : g_.args(n)) {
        if (takes_as_leaf(n, a)) root[a] = true;
        int need = kExact;
        if (node.op == NodeOp::Quantize &&
            numeric::assignment_reads_low_bits(g_.quantize_target(n))) {
          const numeric::FixedType& t = g_.quantize_target(n);
          need = std::max(1, t.width + g_.type(a).frac - t.frac());
        }
        needs_[a] = std::max(needs_[a], need);
      }
    }
    for (const dfg::Output& o : g_.outputs()) {
      if (form_[o.node].linear) root[o.node] = true;
      needs_[o.node] = kExact;
    }
    for (uint32_t n = 0; n < g_.size(); ++n)
      if (root[n] && is_adder(g_.node(n).op) && form_[n].terms.size() >= 2) roots_.push_back(n);
  }

  CmvmProblem problem(const Group& group) const {
    std::unordered_map<uint32_t, std::size_t> index;
    for (std::size_t i = 0; i < group.leaves.size(); ++i) index.emplace(group.leaves[i], i);
    CmvmProblem p;
    p.inputs = static_cast<int>(group.leaves.size());
    p.outputs = static_cast<int>(group.roots.size());
    p.weights.assign(group.leaves.size() * group.roots.size(), 0);
    for (std::size_t j = 0; j < group.roots.size(); ++j)
      for (const auto& [leaf, c] : form_[group.roots[j]].terms)
        p.weights[index.at(leaf) * group.roots.size() + j] = c;
    for (uint32_t leaf : group.leaves) {
      const numeric::FixedType t = loop::fixed_of(g_.type(leaf));
      p.ranges.emplace_back(t.min_raw(), t.max_raw());
    }
    return p;
  }

  // The adders the roots' trees take now: their sums and negations, and each
  // product by a constant's canonical signed digits less one.
  int64_t replaced_adders(const std::vector<uint32_t>& roots) const {
    std::vector<bool> seen(g_.size(), false);
    std::vector<uint32_t> stack(roots.begin(), roots.end());
    int64_t adders = 0;
    while (!stack.empty()) {
      const uint32_t n = stack.back();
      stack.pop_back();
      if (seen[n]) continue;
      seen[n] = true;
      const dfg::Node& node = g_.node(n);
      if (is_adder(node.op) || node.op == NodeOp::Neg) ++adders;
      if (node.op == NodeOp::Mul && !is_var_mul(g_, n))
        adders += std::max(0, constant_digits(g_, n) - 1);
      for (uint32_t a : g_.args(n))
        if (!takes_as_leaf(n, a) && form_[a].linear) stack.push_back(a);
    }
    return adders;
  }

  // The answer's adders as nodes on the integers, and the group's roots
  // replaced (in `repl`) by its outputs.
  //
  // A root whose users read only its low bits (a modular sum, a quantize
  // that wraps) needs its value only modulo 2^bits, and so do the adders
  // it is built from, less the shift each is used at: those are modular
  // sums of that many bits, not exact ones (a 16-bit result of a sum of
  // 16-bit products by 16-bit weights: 26 bits where the exact sum has 38).
  void emit(const Group& group, const CmvmGraph& answer, std::vector<uint32_t>& repl) {
    const std::size_t inputs = group.leaves.size();
    std::vector<int> root_need(group.roots.size());
    for (std::size_t j = 0; j < group.roots.size(); ++j) {
      const uint32_t root = group.roots[j];
      root_need[j] = needs_[root];
      if (form_[root].mod) root_need[j] = std::min(root_need[j], form_[root].mod);
    }
    // Each answer node's bits needed, from the outputs back.
    std::vector<int> need(inputs + answer.adders.size(), 0);
    const auto read = [&](const CmvmTerm& t, int bits) {
      int& n = need[static_cast<std::size_t>(t.node)];
      n = std::max(n, bits == kExact ? kExact : bits - t.shift);
    };
    for (std::size_t j = 0; j < group.roots.size(); ++j)
      if (const auto& o = answer.outputs[j]) read(*o, root_need[j]);
    for (std::size_t k = answer.adders.size(); k-- > 0;) {
      const int bits = need[inputs + k];
      if (bits <= 0) continue;
      read(answer.adders[k].a, bits);
      read(answer.adders[k].b, bits);
    }
    // a + b on the integers, modulo 2^bits where that is narrower.
    const auto sum = [&](uint32_t x, uint32_t y, bool subtract, int bits) {
      const uint32_t exact = subtract ? g_.sub(x, y) : g_.add(x, y);
      if (bits == kExact || bits >= g_.type(exact).width) return exact;
      const loop::ScalarType t{std::max(bits, 1), 0, true};
      return subtract ? g_.sub_mod(x, y, t) : g_.add_mod(x, y, t);
    };
    std::vector<uint32_t> value;  // the answer's nodes as graph nodes
    for (uint32_t leaf : group.leaves) value.push_back(g_.shl(leaf, g_.type(leaf).frac));
    const auto term = [&](const CmvmTerm& t) {
      const uint32_t v = value[static_cast<std::size_t>(t.node)];
      return t.shift ? g_.shl(v, t.shift) : v;
    };
    for (std::size_t k = 0; k < answer.adders.size(); ++k) {
      const CmvmAdder& a = answer.adders[k];
      const uint32_t x = term(a.a), y = term({a.b.node, a.b.shift, false});
      value.push_back(sum(x, y, a.b.negative, need[inputs + k]));
    }
    for (std::size_t j = 0; j < group.roots.size(); ++j) {
      const uint32_t root = group.roots[j];
      const Form& f = form_[root];
      const auto& o = answer.outputs[j];
      std::optional<uint32_t> v;
      if (o) v = term(*o);
      if (f.constant != 0) {
        // (A constant's type is the fewest bits for its value, whatever is asked.)
        const uint32_t c = g_.constant(f.constant, {64, 0, true});
        v = !v ? c : sum(c, *v, o->negative, root_need[j]);
      } else if (v && o->negative) {
        v = sum(g_.constant(0, {1, 0, true}), *v, true, root_need[j]);
      }
      if (!v) v = g_.constant(0, {1, 0, true});
      uint32_t back = g_.shl(*v, -g_.type(root).frac);
      // A modular root wraps to its type, unless its users read fewer bits
      // than it has (then the value is right modulo those, all they read).
      if (f.mod && root_need[j] >= f.mod) back = g_.quantize(back, loop::fixed_of(g_.type(root)));
      repl[root] = back;
    }
  }

  dfg::Graph& g_;
  ShareOptions o_;
  CmvmMemo local_memo_;
  std::vector<Form> form_;
  std::vector<uint32_t> roots_;
  std::vector<int> needs_;  // per node: the low bits its users read (roots())
};

}  // namespace

std::string cmvm_key(const CmvmProblem& p) {
  // The numbers' bytes, not their text: a convolution asks once per pixel.
  std::vector<int64_t> words = {p.inputs, p.outputs, p.max_depth.value_or(-1)};
  for (const auto& [lo, hi] : p.ranges) words.insert(words.end(), {lo, hi});
  words.insert(words.end(), p.weights.begin(), p.weights.end());
  return std::string(reinterpret_cast<const char*>(words.data()), words.size() * sizeof(int64_t));
}

SharedSums share_constant_sums(dfg::Graph& g, const ShareOptions& options) {
  return Pass(g, options).run();
}

}  // namespace kiln::rtl
