#include "kiln/rtl/cmvm/cmvm.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "kiln/sched/operator_library.h"
#include "kiln/support/error.h"
#include "kiln/support/flat_hash.h"
#include "kiln/support/text_lexer.h"

namespace kiln::rtl {

namespace {

// Exact where coefficients times ranges outgrow 64 bits.
__extension__ typedef __int128 Wide;
using Coefficients = std::vector<Wide>;  // a value of the graph as sum of c_i * x_i

// Bits of the two's complement (or, never negative, unsigned) numbers in [lo, hi].
int width_of(Wide lo, Wide hi) {
  const auto bits = [](Wide v) {  // v >= 0
    int n = 0;
    while (v > 0) {
      ++n;
      v >>= 1;
    }
    return n;
  };
  if (lo >= 0) return std::max(1, bits(hi));
  return 1 + std::max(bits(hi), bits(-lo - 1));
}

std::pair<Wide, Wide> range_of(const Coefficients& c, const CmvmProblem& p) {
  Wide lo = 0, hi = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (c[i] == 0) continue;
    const Wide a = c[i] * p.ranges[i].first, b = c[i] * p.ranges[i].second;
    lo += std::min(a, b);
    hi += std::max(a, b);
  }
  return {lo, hi};
}

Coefficients term_coefficients(const std::vector<Coefficients>& nodes, const CmvmTerm& t) {
  Coefficients c = nodes[static_cast<std::size_t>(t.node)];
  for (Wide& v : c) v = (t.negative ? -v : v) * (Wide{1} << t.shift);
  return c;
}

// Every node's coefficients; the graph's operands must be defined first.
std::vector<Coefficients> coefficients(const CmvmGraph& g) {
  std::vector<Coefficients> nodes;
  for (int i = 0; i < g.inputs; ++i) {
    Coefficients c(static_cast<std::size_t>(g.inputs), 0);
    c[static_cast<std::size_t>(i)] = 1;
    nodes.push_back(std::move(c));
  }
  for (const CmvmAdder& a : g.adders) {
    Coefficients c = term_coefficients(nodes, a.a);
    const Coefficients b = term_coefficients(nodes, a.b);
    for (std::size_t i = 0; i < c.size(); ++i) c[i] += b[i];
    nodes.push_back(std::move(c));
  }
  return nodes;
}

// The adder's bits: its result's width less the low bits one operand passes through.
int adder_bits(const Coefficients& value, const CmvmAdder& a, const CmvmProblem& p) {
  const auto [lo, hi] = range_of(value, p);
  return std::max(1, width_of(lo, hi) - std::abs(a.a.shift - a.b.shift));
}

// ---- the solver -----------------------------------------------------------------

// A pair of terms of one output as a pattern: a + (+-b << d), a the term at
// the lower position (the lower node when both are at one).
struct Pattern {
  int a = 0, b = 0, d = 0;
  bool sub = false;
  // Ties between equal scores go to the larger key: the newest node b.
  uint64_t key() const {
    return (static_cast<uint64_t>(b) << 36) | (static_cast<uint64_t>(a) << 8) |
           (static_cast<uint64_t>(d) << 1) | (sub ? 1U : 0U);
  }
  static Pattern of(uint64_t k) {
    return {static_cast<int>((k >> 8) & 0xfffffff), static_cast<int>(k >> 36),
            static_cast<int>((k >> 1) & 0x7f), (k & 1) != 0};
  }
};

// The pattern of terms t and u of one output, and which of them is the lower;
// nullopt for the same node at the same position (those merge instead).
std::optional<std::pair<Pattern, bool>> pattern_of(const CmvmTerm& t, const CmvmTerm& u) {
  if (t.node == u.node && t.shift == u.shift) return std::nullopt;
  const bool t_lower = t.shift < u.shift || (t.shift == u.shift && t.node < u.node);
  const CmvmTerm& lo = t_lower ? t : u;
  const CmvmTerm& up = t_lower ? u : t;
  return std::make_pair(Pattern{lo.node, up.node, up.shift - lo.shift, lo.negative != up.negative},
                        t_lower);
}

// a + b as one adder, negations folded: a - b where one is negative, a + b
// marked negative where both are; both shifts less the smaller (`base`).
struct FoldedSum {
  CmvmAdder adder;
  int base = 0;
  bool negative = false;
};
FoldedSum fold_sum(CmvmTerm a, CmvmTerm b) {
  if (a.negative && !b.negative) std::swap(a, b);
  const bool both = a.negative && b.negative;
  const int base = std::min(a.shift, b.shift);
  a.shift -= base;
  b.shift -= base;
  a.negative = false;
  if (both) b.negative = false;
  return {{a, b}, base, both};
}

// How a pattern's sharing is scored (below). Balanced is Narrower less
// kImbalance per level its operands' depths differ, and shares nothing that
// scores 0 or less: pairs of equal depth, so that sharing does not deepen
// the trees (da4ml's "dc" selection, which it uses for a decomposition's
// second stage, the sums along the tree).
enum class Scoring : uint8_t { Saved, Narrower, Balanced };
constexpr double kImbalance = 256;

class Solver {
 public:
  // `arrival`, when given, is each input's adder depth already (the deltas
  // that a second stage sums).
  Solver(const CmvmProblem& p, Scoring scoring, const std::vector<int>& arrival = {},
         uint64_t seed = 0)
      : p_(p), scoring_(scoring), seed_(seed) {
    g_.inputs = p.inputs;
    for (int i = 0; i < p.inputs; ++i) {
      Coefficients c(static_cast<std::size_t>(p.inputs), 0);
      c[static_cast<std::size_t>(i)] = 1;
      coef_.push_back(std::move(c));
      depth_.push_back(arrival.empty() ? 0 : arrival[static_cast<std::size_t>(i)]);
      width_.push_back(node_width(coef_.back()));
    }
    columns_.resize(static_cast<std::size_t>(p.outputs));
    for (int j = 0; j < p.outputs; ++j)
      for (int i = 0; i < p.inputs; ++i)
        for (const auto& [digit, at] : sched::csd_digits(p.weight(i, j)))
          add_term(j, {i, at, digit < 0});
  }

  CmvmGraph run() {
    share();
    sum();
    return std::move(g_);
  }

 private:
  // ---- pair counts, kept as terms come and go
  void count(const CmvmTerm& t, int j, int by) {
    for (const CmvmTerm& u : columns_[static_cast<std::size_t>(j)]) {
      const auto pat = pattern_of(t, u);
      if (!pat) continue;
      const uint64_t k = pat->first.key();
      int& n = *counts_.try_emplace(k, 0).first;
      n += by;
      if (n >= 2) dirty_.push_back(k);  // queued at its new count once a step (flush())
    }
  }
  void add_term(int j, CmvmTerm t) {
    auto& col = columns_[static_cast<std::size_t>(j)];
    // The same node at the same position: 2t is t one position up; t - t is nothing.
    for (std::size_t k = 0; k < col.size(); ++k)
      if (col[k].node == t.node && col[k].shift == t.shift) {
        const CmvmTerm u = col[k];
        remove_term(j, k);
        if (u.negative == t.negative) add_term(j, {t.node, t.shift + 1, t.negative});
        return;
      }
    count(t, j, 1);
    col.push_back(t);
  }
  void remove_term(int j, std::size_t k) {
    auto& col = columns_[static_cast<std::size_t>(j)];
    const CmvmTerm t = col[k];
    col.erase(col.begin() + static_cast<std::ptrdiff_t>(k));
    count(t, j, -1);
  }

  int node_width(const Coefficients& c) const {
    const auto [lo, hi] = range_of(c, p_);
    return width_of(lo, hi);
  }
  Coefficients pattern_coefficients(const Pattern& pat) const {
    Coefficients c = coef_[static_cast<std::size_t>(pat.a)];
    const Coefficients& b = coef_[static_cast<std::size_t>(pat.b)];
    for (std::size_t i = 0; i < c.size(); ++i) c[i] += (pat.sub ? -b[i] : b[i]) << pat.d;
    return c;
  }
  // Bits saved: each use past the first spares an adder of the pattern's width.
  // What sharing `pat` n times saves: each use past the first spares an
  // adder of its width (Scoring::Saved), or n times its narrower operand's
  // width (Scoring::Narrower, da4ml's weighting: it favours sharing wide
  // values again).
  double score(const Pattern& pat, int n) {
    const auto a = static_cast<std::size_t>(pat.a), b = static_cast<std::size_t>(pat.b);
    if (scoring_ == Scoring::Narrower)
      return static_cast<double>(n) * std::min(width_[a], width_[b]);
    if (scoring_ == Scoring::Balanced)
      return static_cast<double>(n) * std::min(width_[a], width_[b]) -
             kImbalance * std::abs(depth_[a] - depth_[b]);
    auto it = bits_.find(pat.key());
    if (it == bits_.end()) {
      const CmvmAdder a{{pat.a, 0, false}, {pat.b, pat.d, pat.sub}};
      it = bits_.emplace(pat.key(), adder_bits(pattern_coefficients(pat), a, p_)).first;
    }
    return static_cast<double>(n - 1) * it->second;
  }

  // The depth of output j's tree over `terms`' depths, summed earliest first.
  static int tree_depth(std::vector<int> d) {
    if (d.empty()) return 0;
    std::priority_queue<int, std::vector<int>, std::greater<>> q(d.begin(), d.end());
    while (q.size() > 1) {
      const int x = q.top();
      q.pop();
      const int y = q.top();
      q.pop();
      q.push(std::max(x, y) + 1);
    }
    return q.top();
  }

  // The occurrences of `pat` in output j, greedily from the lowest term, each
  // term used once: (lower, upper) indices.
  std::vector<std::pair<std::size_t, std::size_t>> occurrences(const Pattern& pat, int j) {
    const auto& col = columns_[static_cast<std::size_t>(j)];
    std::vector<std::pair<std::size_t, std::size_t>> found;
    at_.clear();
    for (std::size_t x = 0; x < col.size(); ++x)
      if (col[x].node == pat.b) at_.emplace(col[x].shift, x);
    if (at_.empty()) return found;
    std::vector<std::size_t> lower;
    for (std::size_t x = 0; x < col.size(); ++x)
      if (col[x].node == pat.a) lower.push_back(x);
    std::sort(lower.begin(), lower.end(),
              [&](std::size_t x, std::size_t y) { return col[x].shift < col[y].shift; });
    std::vector<bool> used(col.size(), false);
    for (std::size_t x : lower) {
      if (used[x]) continue;
      const auto y = at_.find(col[x].shift + pat.d);
      if (y == at_.end() || used[y->second] || y->second == x) continue;
      const auto p = pattern_of(col[x], col[y->second]);
      if (!p || !p->second || p->first.key() != pat.key()) continue;
      used[x] = used[y->second] = true;
      found.emplace_back(x, y->second);
    }
    return found;
  }

  // Shares the best pattern while one recurs.
  // The patterns whose counts rose since the last step, into the queue.
  void flush() {
    std::sort(dirty_.begin(), dirty_.end());
    dirty_.erase(std::unique(dirty_.begin(), dirty_.end()), dirty_.end());
    for (const uint64_t k : dirty_)
      if (const int* n = counts_.find(k); n && *n >= 2)
        if (const double sc = score(Pattern::of(k), *n); sc > 0) queue_.push({sc, tie(k), k});
    dirty_.clear();
  }

  void share() {
    for (flush(); !queue_.empty(); flush()) {
      const auto [s, order, k] = queue_.top();
      queue_.pop();
      const int* count = counts_.find(k);
      if (!count || *count < 2 || banned_.count(k)) continue;
      const Pattern pat = Pattern::of(k);
      // Stale unless it holds the pattern's count now, or its uses as last counted.
      const auto rechecked = recheck_.find(k);
      if (score(pat, *count) != s && (rechecked == recheck_.end() || rechecked->second != s))
        continue;
      const int depth = std::max(depth_[static_cast<std::size_t>(pat.a)],
                                 depth_[static_cast<std::size_t>(pat.b)]) +
                        1;
      // Where it goes: every output, or under a bound those that stay within it.
      std::vector<std::pair<int, std::vector<std::pair<std::size_t, std::size_t>>>> uses;
      int total = 0;
      for (int j = 0; j < p_.outputs; ++j) {
        auto occ = occurrences(pat, j);
        if (occ.empty()) continue;
        if (p_.max_depth) {
          const auto& col = columns_[static_cast<std::size_t>(j)];
          std::vector<bool> gone(col.size(), false);
          for (const auto& [x, y] : occ) gone[x] = gone[y] = true;
          std::vector<int> d;
          for (std::size_t t = 0; t < col.size(); ++t)
            if (!gone[t]) d.push_back(depth_[static_cast<std::size_t>(col[t].node)]);
          d.insert(d.end(), occ.size(), depth);
          if (tree_depth(std::move(d)) > *p_.max_depth) continue;
        }
        total += static_cast<int>(occ.size());
        uses.emplace_back(j, std::move(occ));
      }
      if (total < 2 || score(pat, total) <= 0) {
        banned_.insert(k);
        continue;
      }
      // The count takes pairs that share a term; by its uses it may no longer
      // be the best: back in line at that score (lazy greedy: scores only fall).
      if (const double used = score(pat, total);
          used < s && !queue_.empty() && used < std::get<0>(queue_.top())) {
        recheck_[k] = used;
        queue_.push({used, order, k});
        continue;
      }
      const int node = p_.inputs + static_cast<int>(g_.adders.size());
      g_.adders.push_back({{pat.a, 0, false}, {pat.b, pat.d, pat.sub}});
      coef_.push_back(pattern_coefficients(pat));
      depth_.push_back(depth);
      width_.push_back(node_width(coef_.back()));
      for (auto& [j, occ] : uses) {
        auto& col = columns_[static_cast<std::size_t>(j)];
        std::vector<CmvmTerm> made;
        std::vector<std::size_t> gone;
        for (const auto& [x, y] : occ) {
          made.push_back({node, col[x].shift, col[x].negative});
          gone.push_back(x);
          gone.push_back(y);
        }
        std::sort(gone.rbegin(), gone.rend());
        for (std::size_t x : gone) remove_term(j, x);
        for (const CmvmTerm& t : made) add_term(j, t);
      }
    }
  }

  // Each output's terms summed, the earliest (then positive, then narrowest)
  // first; identical adders made once.
  void sum() {
    std::map<std::tuple<int, int, bool, int, int, bool>, int> made;
    const auto adder = [&](const CmvmAdder& a) {
      const auto key =
          std::make_tuple(a.a.node, a.a.shift, a.a.negative, a.b.node, a.b.shift, a.b.negative);
      auto it = made.find(key);
      if (it == made.end()) {
        const int node = p_.inputs + static_cast<int>(g_.adders.size());
        g_.adders.push_back(a);
        Coefficients c = term_coefficients(coef_, a.a);
        const Coefficients cb = term_coefficients(coef_, a.b);
        for (std::size_t i = 0; i < c.size(); ++i) c[i] += cb[i];
        coef_.push_back(std::move(c));
        width_.push_back(node_width(coef_.back()));
        depth_.push_back(std::max(depth_[static_cast<std::size_t>(a.a.node)],
                                  depth_[static_cast<std::size_t>(a.b.node)]) +
                         1);
        it = made.emplace(key, node).first;
      }
      return it->second;
    };
    for (int j = 0; j < p_.outputs; ++j) {
      auto terms = columns_[static_cast<std::size_t>(j)];
      const auto later = [&](const CmvmTerm& x, const CmvmTerm& y) {
        const int dx = depth_[static_cast<std::size_t>(x.node)];
        const int dy = depth_[static_cast<std::size_t>(y.node)];
        if (dx != dy) return dx > dy;
        if (x.negative != y.negative) return x.negative;
        return std::tie(x.shift, x.node) > std::tie(y.shift, y.node);
      };
      std::priority_queue<CmvmTerm, std::vector<CmvmTerm>, decltype(later)> q(later,
                                                                              std::move(terms));
      while (q.size() > 1) {
        const CmvmTerm x = q.top();
        q.pop();
        const CmvmTerm y = q.top();
        q.pop();
        const FoldedSum f = fold_sum(x, y);
        q.push({adder(f.adder), f.base, f.negative});
      }
      if (q.empty())
        g_.outputs.push_back(std::nullopt);
      else
        g_.outputs.push_back(q.top());
    }
  }

  const CmvmProblem& p_;
  CmvmGraph g_;
  std::vector<Coefficients> coef_;
  std::vector<int> depth_;
  std::vector<std::vector<CmvmTerm>> columns_;
  struct KeyHash {
    std::size_t operator()(uint64_t k) const { return static_cast<std::size_t>(k); }
  };
  FlatHashMap<uint64_t, int, KeyHash> counts_;  // pairs of terms per pattern
  std::unordered_map<uint64_t, int> bits_;
  std::unordered_set<uint64_t> banned_;
  std::vector<uint64_t> dirty_;                   // patterns whose counts rose, not yet queued
  std::unordered_map<uint64_t, double> recheck_;  // a pattern's score by its uses, when lower
  std::unordered_map<int, std::size_t> at_;       // occurrences(): b's terms by position
  Scoring scoring_;
  std::vector<int> width_;  // each node's width  // patterns no bound-keeping use recurs in
  // By score, then by tie(key).
  std::priority_queue<std::tuple<double, uint64_t, uint64_t>> queue_;
  uint64_t seed_ = 0;
  // Equal scores in the key's order (the newest node first), or, with a
  // seed, in an order the seed scrambles: another greedy walk.
  uint64_t tie(uint64_t k) const {
    if (seed_ == 0) return k;
    uint64_t x = k ^ (seed_ * 0x9e3779b97f4a7c15ULL);
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 29;
    return x;
  }
};

}  // namespace

std::vector<int> CmvmGraph::depths() const {
  std::vector<int> d(static_cast<std::size_t>(inputs), 0);
  for (const CmvmAdder& a : adders)
    d.push_back(
        std::max(d[static_cast<std::size_t>(a.a.node)], d[static_cast<std::size_t>(a.b.node)]) + 1);
  return d;
}

int CmvmGraph::depth() const {
  const std::vector<int> d = depths();
  int most = 0;
  for (const auto& o : outputs)
    if (o) most = std::max(most, d[static_cast<std::size_t>(o->node)]);
  return most;
}

CmvmCounts cmvm_counts(const CmvmProblem& problem, const CmvmGraph& graph) {
  CmvmCounts c;
  const std::vector<Coefficients> nodes = coefficients(graph);
  for (std::size_t k = 0; k < graph.adders.size(); ++k) {
    const Coefficients& v = nodes[static_cast<std::size_t>(graph.inputs) + k];
    const auto inputs = std::count_if(v.begin(), v.end(), [](Wide x) { return x != 0; });
    (inputs <= 1 ? c.product_adders : c.sum_adders) += 1;
    c.adder_bits += adder_bits(v, graph.adders[k], problem);
  }
  c.adders = static_cast<int64_t>(graph.adders.size());
  c.depth = graph.depth();
  return c;
}

CmvmCounts& operator+=(CmvmCounts& a, const CmvmCounts& b) {
  a.adders += b.adders;
  a.product_adders += b.product_adders;
  a.sum_adders += b.sum_adders;
  a.adder_bits += b.adder_bits;
  a.depth = std::max(a.depth, b.depth);
  return a;
}

int minimal_depth(const CmvmProblem& problem) {
  int most = 0;
  for (int j = 0; j < problem.outputs; ++j) {
    int digits = 0;
    for (int i = 0; i < problem.inputs; ++i)
      digits += sched::csd_nonzero_digits(problem.weight(i, j));
    int depth = 0;
    while ((1 << depth) < digits) ++depth;
    most = std::max(most, depth);
  }
  return most;
}

namespace {

// ---- the column decomposition (da4ml's first stage) -------------------------------

int64_t csd_weight(const std::vector<int64_t>& column) {
  int64_t n = 0;
  for (int64_t v : column) n += sched::csd_nonzero_digits(v);
  return n;
}

int ceil_log2(int64_t v) {
  int n = 0;
  while ((int64_t{1} << n) < v) ++n;
  return n;
}

// Outputs built from one another: output c is +-(its parent's) plus a delta,
// the deltas a constant matrix product of their own. A spanning tree over the
// outputs and the zero column (Prim's), each edge weighted by the digits of
// the cheaper of the two columns' difference and sum; an edge whose chain
// would run deeper than (2^dc - 1) + log2(the heaviest column's digits) is
// taken only when no other is left.
struct Decomposition {
  CmvmProblem deltas;  // one output per nonzero delta
  struct Step {
    int output = 0;
    int parent = -1;  // an output built before, or -1: none
    bool negate = false;
    int delta = -1;  // the delta's output in `deltas`, or -1: none
  };
  std::vector<Step> steps;  // parents first
  int height = 0;           // the longest chain of parents
};

constexpr int kMaxDecomposedOutputs = 256;  // Prim's here is cubic in the outputs

std::optional<Decomposition> decompose(const CmvmProblem& p, int dc) {
  const int n = p.outputs;
  if (n < 2 || n > kMaxDecomposedOutputs) return std::nullopt;
  std::vector<std::vector<int64_t>> col(
      static_cast<std::size_t>(n) + 1, std::vector<int64_t>(static_cast<std::size_t>(p.inputs), 0));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < p.inputs; ++i)
      col[static_cast<std::size_t>(j) + 1][static_cast<std::size_t>(i)] = p.weight(i, j);
  const auto combined = [&](std::size_t a, std::size_t b, int sign) {
    std::vector<int64_t> v = col[a];
    for (std::size_t i = 0; i < v.size(); ++i) v[i] -= sign * col[b][i];
    return v;
  };
  const std::size_t v = static_cast<std::size_t>(n) + 1;
  std::vector<int64_t> dist(v * v, 0);
  std::vector<int> sign(v * v, 1);
  int64_t heaviest = 1;
  for (std::size_t a = 0; a < v; ++a)
    for (std::size_t b = 0; b < a; ++b) {
      const int64_t minus = csd_weight(combined(a, b, 1)), plus = csd_weight(combined(a, b, -1));
      dist[a * v + b] = dist[b * v + a] = std::min(minus, plus);
      sign[a * v + b] = sign[b * v + a] = plus < minus ? -1 : 1;
      if (b == 0) heaviest = std::max(heaviest, minus);
    }
  const int bound = (1 << dc) - 1 + ceil_log2(heaviest);
  constexpr int64_t kTooDeep = int64_t{1} << 40;
  std::vector<bool> in(v, false);
  std::vector<int> depth(v, 0);
  std::vector<std::pair<std::size_t, std::size_t>> edges;  // (parent, child), in order
  in[0] = true;
  for (std::size_t added = 1; added < v; ++added) {
    int64_t best = -1;
    std::size_t bi = 0, bj = 0;
    int bd = 0;
    for (std::size_t i = 1; i < v; ++i) {
      if (in[i]) continue;
      for (std::size_t j = 0; j < v; ++j) {
        if (!in[j]) continue;
        const int64_t d = dist[i * v + j];
        const int deep = std::max(ceil_log2(std::max<int64_t>(d, 1)), depth[j]) + 1;
        const int64_t cost = deep > bound ? kTooDeep : d;  // too deep: the root first
        if (best < 0 || cost < best) {
          best = cost;
          bi = i;
          bj = j;
          bd = deep;
        }
      }
    }
    in[bi] = true;
    depth[bi] = bd;
    edges.emplace_back(bj, bi);
  }
  Decomposition dec;
  dec.deltas.inputs = p.inputs;
  dec.deltas.ranges = p.ranges;
  std::vector<std::vector<int64_t>> deltas;
  std::vector<int> chain(v, 0);
  for (const auto& [parent, child] : edges) {
    Decomposition::Step step;
    step.output = static_cast<int>(child) - 1;
    step.parent = static_cast<int>(parent) - 1;
    step.negate = parent != 0 && sign[child * v + parent] < 0;
    const std::vector<int64_t> delta =
        parent == 0 ? col[child] : combined(child, parent, sign[child * v + parent]);
    if (std::any_of(delta.begin(), delta.end(), [](int64_t x) { return x != 0; })) {
      step.delta = static_cast<int>(deltas.size());
      deltas.push_back(delta);
    }
    chain[child] = parent == 0 ? 0 : chain[parent] + 1;
    dec.height = std::max(dec.height, chain[child]);
    dec.steps.push_back(step);
  }
  dec.deltas.outputs = static_cast<int>(deltas.size());
  for (int i = 0; i < p.inputs; ++i)
    for (const std::vector<int64_t>& d : deltas)
      dec.deltas.weights.push_back(d[static_cast<std::size_t>(i)]);
  return dec;
}

bool same_tree(const Decomposition& d, const std::vector<Decomposition::Step>& steps) {
  if (d.steps.size() != steps.size()) return false;
  for (std::size_t k = 0; k < steps.size(); ++k)
    if (d.steps[k].output != steps[k].output || d.steps[k].parent != steps[k].parent ||
        d.steps[k].negate != steps[k].negate || d.steps[k].delta != steps[k].delta)
      return false;
  return true;
}

// a + b as a term of `g`, negations folded: a subtraction, or -(a + b).
CmvmTerm add_terms(CmvmGraph& g, const CmvmTerm& a, const CmvmTerm& b) {
  const FoldedSum f = fold_sum(a, b);
  g.adders.push_back(f.adder);
  return {g.inputs + static_cast<int>(g.adders.size()) - 1, f.base, f.negative};
}

// The outputs as sums of the deltas (the tree's paths, M1 of K = M0 M1):
// a constant matrix product of its own over the deltas, 0 and +-1 weights.
CmvmProblem path_sums(const Decomposition& dec, const CmvmGraph& deltas_graph,
                      const CmvmProblem& deltas, int outputs) {
  const int k = deltas.outputs;
  std::vector<std::vector<int64_t>> m(static_cast<std::size_t>(outputs),
                                      std::vector<int64_t>(static_cast<std::size_t>(k), 0));
  for (const Decomposition::Step& s : dec.steps) {
    auto& row = m[static_cast<std::size_t>(s.output)];
    if (s.parent >= 0)
      for (int d = 0; d < k; ++d)
        row[static_cast<std::size_t>(d)] =
            (s.negate ? -1 : 1) *
            m[static_cast<std::size_t>(s.parent)][static_cast<std::size_t>(d)];
    if (s.delta >= 0) row[static_cast<std::size_t>(s.delta)] += 1;
  }
  CmvmProblem p;
  p.inputs = k;
  p.outputs = outputs;
  for (int d = 0; d < k; ++d)
    for (int j = 0; j < outputs; ++j)
      p.weights.push_back(m[static_cast<std::size_t>(j)][static_cast<std::size_t>(d)]);
  // Each delta's range, from its coefficients over the inputs.
  const std::vector<Coefficients> nodes = coefficients(deltas_graph);
  for (int d = 0; d < k; ++d) {
    const auto& t = deltas_graph.outputs[static_cast<std::size_t>(d)];
    const auto [lo, hi] = range_of(t ? term_coefficients(nodes, *t) : Coefficients{}, deltas);
    p.ranges.emplace_back(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
  }
  return p;
}

// Stage 2's graph over stage 1's outputs, written into stage 1's graph.
CmvmGraph chain(CmvmGraph first, const CmvmGraph& second) {
  std::vector<std::optional<CmvmTerm>> node;  // second's nodes as terms of first
  for (int i = 0; i < second.inputs; ++i)
    node.push_back(first.outputs[static_cast<std::size_t>(i)]);
  const auto term = [&](const CmvmTerm& t) -> std::optional<CmvmTerm> {
    std::optional<CmvmTerm> v = node[static_cast<std::size_t>(t.node)];
    if (!v) return v;
    v->shift += t.shift;
    v->negative = v->negative != t.negative;
    return v;
  };
  for (const CmvmAdder& a : second.adders) {
    const std::optional<CmvmTerm> x = term(a.a), y = term(a.b);
    node.push_back(x && y ? std::optional<CmvmTerm>(add_terms(first, *x, *y)) : x ? x : y);
  }
  std::vector<std::optional<CmvmTerm>> outputs;
  for (const auto& o : second.outputs) outputs.push_back(o ? term(*o) : std::nullopt);
  first.outputs = std::move(outputs);
  return first;
}

// The deltas' graph, then each output from its parent and its delta.
CmvmGraph compose(const Decomposition& dec, CmvmGraph g, int outputs) {
  std::vector<std::optional<CmvmTerm>> y(static_cast<std::size_t>(outputs));
  for (const Decomposition::Step& s : dec.steps) {
    std::optional<CmvmTerm> from;
    if (s.parent >= 0 && y[static_cast<std::size_t>(s.parent)]) {
      from = y[static_cast<std::size_t>(s.parent)];
      if (s.negate) from->negative = !from->negative;
    }
    const std::optional<CmvmTerm> delta =
        s.delta >= 0 ? g.outputs[static_cast<std::size_t>(s.delta)] : std::nullopt;
    y[static_cast<std::size_t>(s.output)] = from && delta ? add_terms(g, *from, *delta)
                                            : from        ? from
                                                          : delta;
  }
  g.outputs = std::move(y);
  return g;
}

}  // namespace

namespace {

// Greedy walks with their ties broken in other orders (seeds), as many as
// keep the work near this many weights: 16 for a 16x16 matrix, 2 for 64x32.
constexpr int64_t kSeedWork = 4096;
// Among answers within this share of the fewest adders, the shallowest.
constexpr double kLeanSlack = 0.01;

struct Candidate {
  CmvmGraph graph;
  CmvmCounts counts;
};

// Every way tried (below), each answer within the bound kept.
std::vector<Candidate> every_way(const CmvmProblem& problem, int64_t seeds) {
  std::vector<Candidate> out;
  const auto consider = [&](CmvmGraph g) {
    if (problem.max_depth && g.depth() > *problem.max_depth) return;
    const CmvmCounts c = cmvm_counts(problem, g);
    out.push_back({std::move(g), c});
  };
  // The decompositions (deterministic), each dc that changes the tree.
  std::vector<Decomposition> decompositions;
  std::vector<Decomposition::Step> last_tree;
  for (int dc = 0; dc <= ceil_log2(std::max(problem.inputs, 1)); ++dc) {
    std::optional<Decomposition> dec = decompose(problem, dc);
    if (!dec || dec->height == 0) continue;    // no output built from another
    if (same_tree(*dec, last_tree)) continue;  // a larger dc that changed nothing
    last_tree = dec->steps;
    // The deltas' sums within the bound less the chains.
    if (problem.max_depth) {
      dec->deltas.max_depth = *problem.max_depth - dec->height;
      if (*dec->deltas.max_depth < minimal_depth(dec->deltas)) continue;
    }
    decompositions.push_back(std::move(*dec));
  }
  for (int64_t s = 0; s < seeds; ++s) {
    const auto seed = static_cast<uint64_t>(s);
    for (const Scoring scoring : {Scoring::Saved, Scoring::Narrower}) {
      consider(Solver(problem, scoring, {}, seed).run());
      for (const Decomposition& dec : decompositions) {
        const CmvmGraph first = Solver(dec.deltas, scoring, {}, seed).run();
        consider(compose(dec, first, problem.outputs));
        // Or the paths summed as a product of their own, the deltas arriving
        // at their depths: the same sharing, trees balanced by arrival.
        CmvmProblem paths = path_sums(dec, first, dec.deltas, problem.outputs);
        paths.max_depth = problem.max_depth;
        const std::vector<int> depth = first.depths();
        std::vector<int> arrival;
        for (const auto& o : first.outputs)
          arrival.push_back(o ? depth[static_cast<std::size_t>(o->node)] : 0);
        for (const Scoring second : {scoring, Scoring::Balanced})
          consider(chain(first, Solver(paths, second, arrival, seed).run()));
      }
    }
  }
  return out;
}

// The fewest adders, or within kLeanSlack of them the shallowest (then the
// fewest adders, then bits).
const Candidate* lean(const std::vector<Candidate>& all) {
  if (all.empty()) return nullptr;
  int64_t fewest = all.front().counts.adders;
  for (const Candidate& c : all) fewest = std::min(fewest, c.counts.adders);
  const auto within = static_cast<int64_t>(static_cast<double>(fewest) * (1 + kLeanSlack));
  const Candidate* best = nullptr;
  const auto key = [](const Candidate& c) {
    return std::make_tuple(c.counts.depth, c.counts.adders, c.counts.adder_bits);
  };
  for (const Candidate& c : all)
    if (c.counts.adders <= within && (!best || key(c) < key(*best))) best = &c;
  return best;
}

}  // namespace

CmvmGraph solve_cmvm(const CmvmProblem& problem, CmvmEffort effort) {
  KILN_ASSERT(problem.weights.size() == static_cast<std::size_t>(problem.inputs) *
                                            static_cast<std::size_t>(problem.outputs) &&
                  problem.ranges.size() == static_cast<std::size_t>(problem.inputs),
              "a constant matrix problem of the wrong shape");
  const int least = minimal_depth(problem);
  if (problem.max_depth && *problem.max_depth < least)
    throw_error(ErrorKind::InvalidModel, "constant matrix product",
                fmt::format("an adder depth of {} is below the least its outputs' sums need, {}",
                            *problem.max_depth, least),
                "allow more adder levels (a longer clock period or more cycles)");
  if (effort == CmvmEffort::Quick) return Solver(problem, Scoring::Saved).run();
  int64_t terms = 0;
  for (int64_t w : problem.weights) terms += w != 0;
  const int64_t seeds = std::clamp<int64_t>(kSeedWork / std::max<int64_t>(terms, 1), 1, 16);
  std::vector<Candidate> all = every_way(problem, seeds);
  // Then bounded below the pick's depth, level by level (a bound keeps the
  // trees shallow from the start, where the free walks only happen to), with
  // a quarter of the walks.
  const Candidate* pick = lean(all);
  KILN_ASSERT(pick != nullptr, "no answer within the depth bound, not even the plain sums");
  const int deepest = pick->counts.depth;
  for (int d = deepest - 1; d > least; --d) {
    CmvmProblem bounded = problem;
    bounded.max_depth = d;
    std::vector<Candidate> more = every_way(bounded, std::max<int64_t>(1, seeds / 4));
    if (more.empty()) break;
    for (Candidate& c : more) all.push_back(std::move(c));
  }
  return lean(all)->graph;
}

std::string verify_cmvm(const CmvmProblem& problem, const CmvmGraph& graph) {
  if (graph.inputs != problem.inputs)
    return fmt::format("{} inputs, not the problem's {}", graph.inputs, problem.inputs);
  if (graph.outputs.size() != static_cast<std::size_t>(problem.outputs))
    return fmt::format("{} outputs, not the problem's {}", graph.outputs.size(), problem.outputs);
  const auto bad_term = [](const CmvmTerm& t, int defined) {
    return t.node < 0 || t.node >= defined || t.shift < 0 || t.shift > 62;
  };
  for (std::size_t k = 0; k < graph.adders.size(); ++k) {
    const CmvmAdder& a = graph.adders[k];
    const int defined = graph.inputs + static_cast<int>(k);
    if (bad_term(a.a, defined) || bad_term(a.b, defined))
      return fmt::format("adder a{} reads a node not defined before it, or shifts out of range", k);
    if (a.a.negative) return fmt::format("adder a{}'s first operand is negative", k);
  }
  const int all = graph.inputs + static_cast<int>(graph.adders.size());
  for (std::size_t j = 0; j < graph.outputs.size(); ++j)
    if (graph.outputs[j] && bad_term(*graph.outputs[j], all))
      return fmt::format("output y{} reads a node that does not exist", j);
  const std::vector<Coefficients> nodes = coefficients(graph);
  for (int j = 0; j < problem.outputs; ++j) {
    const auto& o = graph.outputs[static_cast<std::size_t>(j)];
    const Coefficients c = o ? term_coefficients(nodes, *o)
                             : Coefficients(static_cast<std::size_t>(problem.inputs), 0);
    for (int i = 0; i < problem.inputs; ++i)
      if (c[static_cast<std::size_t>(i)] != problem.weight(i, j))
        return fmt::format("output y{} takes x{} {} times, not {}", j, i,
                           static_cast<int64_t>(c[static_cast<std::size_t>(i)]),
                           problem.weight(i, j));
  }
  if (problem.max_depth && graph.depth() > *problem.max_depth)
    return fmt::format("adder depth {}, over the bound {}", graph.depth(), *problem.max_depth);
  return "";
}

// ---- text -----------------------------------------------------------------------

namespace {

std::string term_text(const CmvmGraph& g, const CmvmTerm& t) {
  std::string s =
      t.node < g.inputs ? fmt::format("x{}", t.node) : fmt::format("a{}", t.node - g.inputs);
  if (t.shift) s += fmt::format(":{}", t.shift);
  return s;
}

CmvmTerm parse_term(Lexer& lex, int inputs, int defined) {
  const Token t = lex.next();
  if (t.kind != TokenKind::Ident || t.text.size() < 2 || (t.text[0] != 'x' && t.text[0] != 'a'))
    lex.fail_at(t, "expected a value (x<input> or a<adder>), got " + Lexer::describe(t));
  int n = 0;
  try {
    std::size_t used = 0;
    n = std::stoi(t.text.substr(1), &used);
    if (used + 1 != t.text.size() || n < 0) throw std::invalid_argument("");
  } catch (const std::exception&) {
    lex.fail_at(t, "'" + t.text + "' is not a value name");
  }
  CmvmTerm term{t.text[0] == 'x' ? n : inputs + n, 0, false};
  if ((t.text[0] == 'x' && n >= inputs) || term.node >= defined)
    lex.fail_at(t, "'" + t.text + "' is not defined before this line");
  if (lex.accept(':')) {
    const int64_t s = lex.expect_int();
    if (s < 0 || s > 62) lex.fail("a shift is 0 to 62");
    term.shift = static_cast<int>(s);
  }
  return term;
}

}  // namespace

std::string cmvm_text(const CmvmGraph& g) {
  std::string s = fmt::format("cmvm inputs {} outputs {}\n", g.inputs, g.outputs.size());
  for (std::size_t k = 0; k < g.adders.size(); ++k) {
    const CmvmAdder& a = g.adders[k];
    s += fmt::format("a{} = {} {}, {}\n", k, a.b.negative ? "sub" : "add", term_text(g, a.a),
                     term_text(g, a.b));
  }
  for (std::size_t j = 0; j < g.outputs.size(); ++j) {
    const auto& o = g.outputs[j];
    s += !o ? fmt::format("y{} = zero\n", j)
            : fmt::format("y{} = {}{}\n", j, o->negative ? "neg " : "", term_text(g, *o));
  }
  return s;
}

CmvmGraph parse_cmvm(std::string_view text, const std::string& where) {
  Lexer lex(text, where);
  lex.skip_newlines();
  lex.expect_ident("cmvm");
  lex.expect_ident("inputs");
  CmvmGraph g;
  const int64_t inputs = lex.expect_int();
  lex.expect_ident("outputs");
  const int64_t outputs = lex.expect_int();
  if (inputs < 0 || outputs < 0 || inputs > (1 << 20) || outputs > (1 << 20))
    lex.fail("inputs and outputs are counts up to 1048576");
  g.inputs = static_cast<int>(inputs);
  g.outputs.resize(static_cast<std::size_t>(outputs));
  std::vector<bool> seen(static_cast<std::size_t>(outputs), false);
  lex.expect_end_of_line();
  for (lex.skip_newlines(); !lex.at_end(); lex.skip_newlines()) {
    const Token name = lex.next();
    if (name.kind != TokenKind::Ident || name.text.size() < 2)
      lex.fail_at(name, "expected a0 = ... or y0 = ..., got " + Lexer::describe(name));
    lex.expect('=');
    if (name.text[0] == 'a' && name.text == fmt::format("a{}", g.adders.size())) {
      const int defined = g.inputs + static_cast<int>(g.adders.size());
      const bool sub = lex.accept_ident("sub");
      if (!sub) lex.expect_ident("add");
      CmvmAdder a;
      a.a = parse_term(lex, g.inputs, defined);
      lex.expect(',');
      a.b = parse_term(lex, g.inputs, defined);
      a.b.negative = sub;
      g.adders.push_back(a);
    } else if (name.text[0] == 'y') {
      std::size_t j = 0;
      try {
        std::size_t used = 0;
        j = static_cast<std::size_t>(std::stoul(name.text.substr(1), &used));
        if (used + 1 != name.text.size()) throw std::invalid_argument("");
      } catch (const std::exception&) {
        lex.fail_at(name, "'" + name.text + "' is not an output name");
      }
      if (j >= g.outputs.size() || seen[j])
        lex.fail_at(name, "'" + name.text + "' is not an output, or is given twice");
      seen[j] = true;
      if (!lex.accept_ident("zero")) {
        const bool neg = lex.accept_ident("neg");
        CmvmTerm t = parse_term(lex, g.inputs, g.inputs + static_cast<int>(g.adders.size()));
        t.negative = neg;
        g.outputs[j] = t;
      }
    } else {
      lex.fail_at(name, fmt::format("expected a{} (adders in order) or an output y<j>, got '{}'",
                                    g.adders.size(), name.text));
    }
    lex.expect_end_of_line();
  }
  for (std::size_t j = 0; j < seen.size(); ++j)
    if (!seen[j]) lex.fail(fmt::format("output y{} is not given", j));
  return g;
}

}  // namespace kiln::rtl
