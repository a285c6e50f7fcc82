// Scheduling problems, kept apart from the algorithms that solve them.
//
// A Problem is a DAG of operations, each an instance of an OperatorType with a
// latency (cycles), a combinational delay and an optional per-cycle limit on
// how many instances may start. The ProblemClass says which constraints apply:
//
//  - Plain: start[to] >= start[from] + latency[from] for every dependence.
//    Latency-0 operations may start in the cycle their operands appear (they
//    chain with no delay limit); the clock and the limits are ignored.
//  - SharedOperators: Plain, plus at most `limit` operations of a limited type
//    start in any one cycle (units are fully pipelined: an operation occupies
//    its unit for its start cycle only).
//  - Chaining: SharedOperators, plus each operation has an offset start_ns
//    within its cycle. For a dependence from a latency-0 operation in the same
//    cycle, start_ns[to] >= start_ns[from] + delay[from]. Every operation needs
//    start_ns + delay <= clock_ns (for latency >= 1 the delay is the logic
//    before the unit's first register). A latency >= 1 result, and a latency-0
//    result used in a later cycle, is seen at offset 0.
//
// The latency of a schedule is max over operations of start + latency (0 for
// no operations). The RTL registers the outputs, so the hardware takes one
// more cycle for a latency-0 output; the scheduling problems leave that out.
//
//  - Modulo: SharedOperators for the body of a pipelined loop, whose
//    iterations start every II cycles (Solution::ii). A dependence of
//    distance d links an operation to one d iterations later:
//    start[to] + d * II >= start[from] + latency[from]. At most `limit`
//    operations of a limited type start in cycles congruent mod II (the
//    modulo reservation table). `ii` on the problem is the II asked for (a
//    pipeline directive); a solver raises it only as far as it must. Without
//    a clock (clock_ns 0), latency-0 operations chain freely as in
//    SharedOperators; with one, as in Chaining, where "the same cycle" for a
//    dependence of distance d means start[to] + d * II == start[from].
//
// The other classes require every distance to be 0.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kiln/support/enum_table.h"

namespace kiln::sched {

enum class ProblemClass : uint8_t { Plain, SharedOperators, Chaining, Modulo };

struct OperatorType {
  std::string name;
  int latency = 0;           // cycles; 0 = combinational
  double delay_ns = 0;       // combinational delay (before the first register if latency >= 1)
  std::optional<int> limit;  // most operations starting in one cycle; nullopt = unlimited
};

struct Operation {
  std::string name;  // unique within the problem
  int type = 0;      // index into Problem::types
  int width = 0;     // result bits (the register objective counts them)
};

struct Dependence {
  int from = 0;  // operation indices
  int to = 0;
  int distance = 0;  // iterations between producer and consumer; 0 outside the modulo problem
  // An order, not a value: `to` starts no earlier than `from`'s own cycle
  // (an anti-dependence: a register or memory read in the cycle its new
  // value is stored still sees the old one). No latency, no chaining.
  bool order = false;
};

struct Problem {
  std::string name;
  ProblemClass problem_class = ProblemClass::Plain;
  double clock_ns = 0;  // Chaining; Modulo: 0 = no clock
  std::optional<int> max_latency;
  std::optional<int> ii;  // Modulo only: the initiation interval asked for
  std::vector<OperatorType> types;
  std::vector<Operation> operations;
  std::vector<Dependence> dependences;

  // Builders for converters: each returns the new index.
  int add_type(OperatorType t) {
    types.push_back(std::move(t));
    return static_cast<int>(types.size()) - 1;
  }
  int add_operation(std::string op_name, int type, int width) {
    operations.push_back({std::move(op_name), type, width});
    return static_cast<int>(operations.size()) - 1;
  }
  void add_dependence(int from, int to, int distance = 0, bool order = false) {
    dependences.push_back({from, to, distance, order});
  }

  int num_operations() const { return static_cast<int>(operations.size()); }
  const OperatorType& type_of(int op) const { return types[operations[op].type]; }
  int latency(int op) const { return type_of(op).latency; }
  // The cycles `d.to` starts after `d.from` at least (within one iteration).
  int latency(const Dependence& d) const { return d.order ? 0 : latency(d.from); }
  // Whether `d` carries a value that may chain combinationally in one cycle.
  bool chains(const Dependence& d) const { return !d.order && latency(d.from) == 0; }
  double delay_ns(int op) const { return type_of(op).delay_ns; }
  // Whether limits (SharedOperators, Chaining) and offsets (Chaining) apply.
  bool has_limits() const { return problem_class != ProblemClass::Plain; }
  // Chaining, and Modulo with a clock: latency-0 operations chain within it.
  bool has_chaining() const {
    return problem_class == ProblemClass::Chaining ||
           (problem_class == ProblemClass::Modulo && clock_ns > 0);
  }
  bool is_modulo() const { return problem_class == ProblemClass::Modulo; }
  // A limit that applies to `op`, or nullopt.
  std::optional<int> limit_of(int op) const {
    return has_limits() ? type_of(op).limit : std::nullopt;
  }
  // "problem NAME", for error locations.
  std::string where() const { return "problem " + name; }
};

// Successors and predecessors in compressed sparse row form, built once, and a
// topological order, over the dependences of distance 0 (within one
// iteration; the modulo solver handles the others itself). Indices must be in range (check()
// reports them first); with a cycle, topological_order() holds only the operations off it.
class Graph {
 public:
  explicit Graph(const Problem& p);

  std::span<const int> successors(int op) const {
    return {succ_.data() + succ_offset_[op], succ_.data() + succ_offset_[op + 1]};
  }
  std::span<const int> predecessors(int op) const {
    return {pred_.data() + pred_offset_[op], pred_.data() + pred_offset_[op + 1]};
  }
  const std::vector<int>& topological_order() const { return order_; }
  bool acyclic() const { return static_cast<int>(order_.size()) == n_; }

 private:
  int n_ = 0;
  std::vector<int> succ_offset_, succ_, pred_offset_, pred_, order_;
};

// Validates the problem; throws kiln::Error(InvalidModel) naming the first
// broken rule (see problem.cpp for the list).
void check(const Problem& p);
// check(p), returning the Graph it builds (for the solvers, which need it too).
Graph checked_graph(const Problem& p);

struct Solution {
  std::vector<int> start;        // cycle per operation
  std::vector<double> start_ns;  // offset within the cycle; zeros outside Chaining
  int latency = 0;               // max over operations of start + latency
  int ii = 0;                    // Modulo: the initiation interval (>= 1); 0 otherwise
};

// max over operations of start + latency; 0 for no operations.
int schedule_latency(const Problem& p, const std::vector<int>& start);

// Sum over operations of width x lifetime, where lifetime = max over
// successors of start[succ] - (start[op] + latency[op]), at least 0: the
// number of clock edges the value crosses before its last use (uses in the
// same iteration: a modulo schedule's loop-carried values are not counted).
int64_t register_bits(const Problem& p, const Graph& g, const Solution& s);
int64_t register_bits(const Problem& p, const Solution& s);

// Tolerance for the nanosecond comparisons (sums of delays in double).
inline constexpr double kDelayEpsilon = 1e-9;

}  // namespace kiln::sched

namespace kiln {
template <>
struct EnumNames<sched::ProblemClass> {
  static constexpr std::pair<sched::ProblemClass, std::string_view> kNames[] = {
      {sched::ProblemClass::Plain, "plain"},
      {sched::ProblemClass::SharedOperators, "shared_operators"},
      {sched::ProblemClass::Chaining, "chaining"},
      {sched::ProblemClass::Modulo, "modulo"},
  };
};
}  // namespace kiln
