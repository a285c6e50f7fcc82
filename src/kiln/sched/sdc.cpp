// Scheduling as a system of difference constraints (SDC), solved as an LP.
//
// Every constraint is x[a] - x[b] >= c with integral c, or (lifetimes)
// life[v] + start[v] - start[w] >= -latency[v]; these matrices are totally
// unimodular, so the simplex method's vertex optimum is integral. The result
// is still rounded and verify()'d. Three solves, each fixing what the one
// before optimized (XLS's objective, plus a tie-break for reproducibility):
//   1. the least latency L (L >= start[v] + latency[v] for each sink);
//   2. with L fixed, the least sum of width x lifetime;
//   3. with the lifetimes fixed, the least sum of starts (as early as
//      possible among the optima, so results do not depend on the vertex
//      the simplex happens to reach).
#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <utility>

#include "kiln/sched/bounds.h"
#include "kiln/sched/solvers.h"
#include "kiln/sched/verify.h"
#include "kiln/support/error.h"

namespace kiln::sched {

namespace {

// Rows of the LP as coordinates, 1-based as glp_load_matrix wants them.
struct LpRows {
  int cols = 0;
  std::vector<double> lower;  // row i + 1 >= lower[i]
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0.0};

  int add_col() { return ++cols; }
  void add(std::initializer_list<std::pair<int, double>> terms, double lb) {
    lower.push_back(lb);
    const int row = static_cast<int>(lower.size());
    for (const auto& [col, coef] : terms) {
      ia.push_back(row);
      ja.push_back(col);
      ar.push_back(coef);
    }
  }
  // x[a] - x[b] >= c
  void difference(int a, int b, double c) { add({{a, 1.0}, {b, -1.0}}, c); }
};

// Pairs (u, v) joined by a path of latency-0 operations (u included, v's
// own delay counted) whose delay exceeds the clock: they cannot share a
// cycle. A search from each latency-0 u in topological order, so each
// operation's longest delay from u is final when it is visited, and bounded:
// it stops at an operation beyond the clock (anything past it is later
// still) and at latency >= 1 operations (their result is registered).
std::vector<std::pair<int, int>> chaining_pairs(const Problem& p, const Graph& g) {
  const int n = p.num_operations();
  std::vector<int> position(n);
  for (int i = 0; i < n; ++i) position[g.topological_order()[i]] = i;
  std::vector<double> dist(n, -1.0);
  std::vector<int> touched;
  std::priority_queue<int, std::vector<int>, std::greater<int>> queue;  // positions
  std::vector<std::pair<int, int>> pairs;
  for (int u = 0; u < n; ++u) {
    if (p.latency(u) != 0) continue;
    dist[u] = p.delay_ns(u);
    touched.push_back(u);
    queue.push(position[u]);
    while (!queue.empty()) {
      const int v = g.topological_order()[queue.top()];
      queue.pop();
      if (dist[v] > p.clock_ns + kDelayEpsilon) {
        pairs.emplace_back(u, v);
        continue;
      }
      if (p.latency(v) != 0) continue;
      for (int w : g.successors(v)) {
        if (dist[w] < 0) {
          touched.push_back(w);
          queue.push(position[w]);
        }
        dist[w] = std::max(dist[w], dist[v] + p.delay_ns(w));
      }
    }
    for (int v : touched) dist[v] = -1.0;
    touched.clear();
  }
  return pairs;
}

class Lp {
 public:
  explicit Lp(const LpRows& rows) : lp_(glp_create_prob()) {
    glp_set_obj_dir(lp_, GLP_MIN);
    glp_add_cols(lp_, rows.cols);
    for (int j = 1; j <= rows.cols; ++j) glp_set_col_bnds(lp_, j, GLP_LO, 0.0, 0.0);
    if (!rows.lower.empty()) {
      glp_add_rows(lp_, static_cast<int>(rows.lower.size()));
      for (std::size_t i = 0; i < rows.lower.size(); ++i)
        glp_set_row_bnds(lp_, static_cast<int>(i) + 1, GLP_LO, rows.lower[i], 0.0);
      glp_load_matrix(lp_, static_cast<int>(rows.ia.size()) - 1, rows.ia.data(), rows.ja.data(),
                      rows.ar.data());
    }
  }
  ~Lp() { glp_delete_prob(lp_); }
  Lp(const Lp&) = delete;
  Lp& operator=(const Lp&) = delete;

  void set_objective(const std::vector<std::pair<int, double>>& terms) {
    for (int j = 1; j <= glp_get_num_cols(lp_); ++j) glp_set_obj_coef(lp_, j, 0.0);
    for (const auto& [col, coef] : terms) glp_set_obj_coef(lp_, col, coef);
  }
  void fix(int col, double value) { glp_set_col_bnds(lp_, col, GLP_FX, value, value); }
  double value(int col) const { return glp_get_col_prim(lp_, col); }
  double objective() const { return glp_get_obj_val(lp_); }

  // Every LP here is feasible (the list schedule satisfies it) and bounded
  // (variables >= 0, costs >= 0), so anything but an optimum is a kiln bug.
  void solve(const Problem& p, const char* stage) {
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    // Later stages start from the previous optimal basis; the first (and a
    // retry after a basis the solver refuses) uses the presolver.
    parm.presolve = warm_ ? GLP_OFF : GLP_ON;
    int ret = glp_simplex(lp_, &parm);
    if (ret != 0 && warm_) {
      glp_std_basis(lp_);
      parm.presolve = GLP_ON;
      ret = glp_simplex(lp_, &parm);
    }
    const int status = glp_get_status(lp_);
    if (ret != 0 || status != GLP_OPT)
      throw_error(ErrorKind::Internal, p.where(),
                  std::string("sdc ") + stage + ": GLPK's simplex returned " + std::to_string(ret) +
                      " with status " + std::to_string(status) + " on a feasible, bounded LP");
    warm_ = true;
  }

 private:
  glp_prob* lp_;
  bool warm_ = false;
};

// Silences GLPK's terminal output for the lifetime of the object.
class QuietGlpk {
 public:
  QuietGlpk() : old_(glp_term_out(GLP_OFF)) {}
  ~QuietGlpk() { glp_term_out(old_); }
  QuietGlpk(const QuietGlpk&) = delete;
  QuietGlpk& operator=(const QuietGlpk&) = delete;

 private:
  int old_;
};

}  // namespace

Solution schedule_sdc(const Problem& p) {
  check(p);
  const int n = p.num_operations();
  if (n > kSdcMaxOperations)
    throw_error(ErrorKind::Unsupported, p.where(),
                "the sdc scheduler takes at most " + std::to_string(kSdcMaxOperations) +
                    " operations; this problem has " + std::to_string(n),
                "use the list scheduler");
  const Graph g(p);
  check_latency_bounds(p, g);

  LpRows rows;
  for (int v = 0; v < n; ++v) rows.add_col();  // start[v] is column v + 1
  const auto start = [](int v) { return v + 1; };
  const int latency_col = rows.add_col();

  for (const Dependence& d : p.dependences)
    rows.difference(start(d.to), start(d.from), p.latency(d.from));
  if (p.has_chaining())
    for (const auto& [u, v] : chaining_pairs(p, g)) rows.difference(start(v), start(u), 1);
  for (int v = 0; v < n; ++v)
    if (g.successors(v).empty()) rows.difference(latency_col, start(v), p.latency(v));

  // Limits: keep the list schedule's order of each limited type's operations.
  // Group i holds the operations of one list cycle (at most `limit`), and a
  // column sep_i with start[a] <= sep_i < start[b] for a in group i and b in
  // group i + 1 keeps the groups in disjoint cycles without pairwise rows.
  bool limited = false;
  for (int v = 0; v < n && !limited; ++v) limited = p.limit_of(v).has_value();
  if (limited) {
    Problem unbounded = p;
    unbounded.max_latency.reset();
    const Solution list = schedule_list(unbounded);
    for (int t = 0; t < static_cast<int>(p.types.size()); ++t) {
      if (!p.has_limits() || !p.types[t].limit) continue;
      std::vector<int> ops;
      for (int v = 0; v < n; ++v)
        if (p.operations[v].type == t) ops.push_back(v);
      std::stable_sort(ops.begin(), ops.end(),
                       [&](int a, int b) { return list.start[a] < list.start[b]; });
      int sep = 0;
      for (std::size_t i = 0; i < ops.size(); ++i) {
        if (i > 0 && list.start[ops[i]] != list.start[ops[i - 1]]) {
          sep = rows.add_col();
          for (std::size_t j = i; j-- > 0 && list.start[ops[j]] == list.start[ops[i - 1]];)
            rows.difference(sep, start(ops[j]), 0);
        }
        if (sep != 0) rows.difference(start(ops[i]), sep, 1);
      }
    }
  }

  // life[v] >= start[w] - start[v] - latency[v] for each successor w.
  std::vector<std::pair<int, double>> lifetime_cost;
  std::vector<int> life_cols;
  for (int v = 0; v < n; ++v) {
    if (g.successors(v).empty() || p.operations[v].width == 0) continue;
    const int life = rows.add_col();
    life_cols.push_back(life);
    lifetime_cost.emplace_back(life, p.operations[v].width);
    for (int w : g.successors(v))
      rows.add({{life, 1.0}, {start(v), 1.0}, {start(w), -1.0}}, -p.latency(v));
  }

  const QuietGlpk quiet;
  Lp lp(rows);
  lp.set_objective({{latency_col, 1.0}});
  lp.solve(p, "latency");
  lp.fix(latency_col, std::round(lp.value(latency_col)));
  if (!lifetime_cost.empty()) {
    lp.set_objective(lifetime_cost);
    lp.solve(p, "register bits");
    for (int col : life_cols) lp.fix(col, std::round(lp.value(col)));
  }
  std::vector<std::pair<int, double>> starts;
  for (int v = 0; v < n; ++v) starts.emplace_back(start(v), 1.0);
  lp.set_objective(starts);
  lp.solve(p, "earliest starts");

  Solution s;
  s.start.resize(n);
  s.start_ns.assign(n, 0.0);
  for (int v = 0; v < n; ++v) s.start[v] = static_cast<int>(std::lround(lp.value(start(v))));
  // Offsets within each cycle: the forward pass the constraints above allow.
  if (p.has_chaining())
    for (int v : g.topological_order())
      for (int u : g.predecessors(v))
        if (p.latency(u) == 0 && s.start[u] == s.start[v])
          s.start_ns[v] = std::max(s.start_ns[v], s.start_ns[u] + p.delay_ns(u));
  s.latency = schedule_latency(p, s.start);
  if (p.max_latency && s.latency > *p.max_latency) fail_latency(p, g, "sdc", s.latency);
  verify(p, s);
  return s;
}

}  // namespace kiln::sched
