// Scheduling as a system of difference constraints (SDC), solved as an LP.
//
// Every constraint is x[a] - x[b] >= c with integral c, or (lifetimes)
// life[v] + start[v] - start[w] >= -latency[v]; these matrices are totally
// unimodular, so the simplex method's vertex optimum is integral. The result
// is still rounded and verify()'d. XLS's objective in three steps, each
// keeping what the one before optimized:
//   1. the least latency L: the least solution of the difference constraints
//      (a longest-path relaxation; no LP needed);
//   2. with L fixed, the least sum of width x lifetime: the LP, solved by
//      GLPK's dual simplex;
//   3. with those lifetimes as upper bounds, the least start of every
//      operation (again the least solution of difference constraints, which
//      is unique, so the result does not depend on the vertex the simplex
//      reached).
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

// The least x >= 0 with x[a] >= x[b] + c for every difference row (rows of
// other shapes are skipped): a worklist relaxation, which ends because the
// list schedule is a solution (no positive cycle). Each value only grows and
// stays below that solution's, so the work is bounded.
std::vector<double> least_solution(const LpRows& rows) {
  std::vector<int> offset(rows.cols + 2, 0);
  std::vector<int> row_start(rows.lower.size() + 1, 0);
  for (std::size_t k = 1; k < rows.ia.size(); ++k) ++row_start[rows.ia[k]];
  for (std::size_t r = 1; r <= rows.lower.size(); ++r) row_start[r] += row_start[r - 1];
  // Row r's entries are ia/ja/ar[row_start[r - 1] + 1 .. row_start[r]].
  struct Edge {
    int to;
    double c;
  };
  std::vector<std::vector<Edge>> out(rows.cols + 1);
  for (std::size_t r = 1; r <= rows.lower.size(); ++r) {
    const int first = row_start[r - 1] + 1;
    if (row_start[r] - row_start[r - 1] != 2) continue;
    const int a = rows.ar[first] > 0 ? rows.ja[first] : rows.ja[first + 1];
    const int b = rows.ar[first] > 0 ? rows.ja[first + 1] : rows.ja[first];
    out[b].push_back({a, rows.lower[r - 1]});
  }
  std::vector<double> x(rows.cols + 1, 0.0);
  std::vector<char> queued(rows.cols + 1, 1);
  std::vector<int> work;
  for (int j = rows.cols; j >= 1; --j) work.push_back(j);
  while (!work.empty()) {
    const int b = work.back();
    work.pop_back();
    queued[b] = 0;
    for (const Edge& e : out[b])
      if (x[e.to] < x[b] + e.c - 1e-9) {
        x[e.to] = x[b] + e.c;
        if (!queued[e.to]) {
          queued[e.to] = 1;
          work.push_back(e.to);
        }
      }
  }
  return x;
}

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

  // The LP is feasible (the list schedule satisfies it) and bounded
  // (variables >= 0, costs >= 0), so anything but an optimum is a kiln bug.
  void solve(const Problem& p, const char* stage) {
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.meth = GLP_DUALP;    // several times faster than the primal method here
    parm.presolve = GLP_OFF;  // the standard basis is dual feasible: costs >= 0, columns at 0
    glp_std_basis(lp_);
    const int ret = glp_simplex(lp_, &parm);
    const int status = glp_get_status(lp_);
    if (ret != 0 || status != GLP_OPT)
      throw_error(ErrorKind::Internal, p.where(),
                  std::string("sdc ") + stage + ": GLPK's simplex returned " + std::to_string(ret) +
                      " with status " + std::to_string(status) + " on a feasible, bounded LP");
  }

 private:
  glp_prob* lp_;
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
  refuse_modulo(p, "sdc");
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
    rows.difference(start(d.to), start(d.from), p.latency(d));
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

  // 1. The least latency, from the least solution of the difference rows.
  const double latency = least_solution(rows)[latency_col];
  std::vector<double> x;
  if (lifetime_cost.empty()) {
    x = least_solution(rows);
  } else {
    // 2. With the latency fixed, the least register bits.
    const QuietGlpk quiet;
    Lp lp(rows);
    lp.fix(latency_col, latency);
    lp.set_objective(lifetime_cost);
    lp.solve(p, "register bits");
    // 3. The earliest starts that keep those lifetimes: start[v] >=
    // start[w] - life[v] - latency[v] for each successor w, and L as before.
    LpRows bounded = rows;
    for (int v = 0, k = 0; v < n; ++v) {
      if (g.successors(v).empty() || p.operations[v].width == 0) continue;
      const double life = std::round(lp.value(life_cols[k++]));
      for (int w : g.successors(v)) bounded.difference(start(v), start(w), -life - p.latency(v));
    }
    x = least_solution(bounded);
  }

  Solution s;
  s.start.resize(n);
  s.start_ns.assign(n, 0.0);
  for (int v = 0; v < n; ++v) s.start[v] = static_cast<int>(std::lround(x[start(v)]));
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
