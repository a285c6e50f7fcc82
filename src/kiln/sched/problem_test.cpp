#include "kiln/sched/problem.h"

#include <gtest/gtest.h>

#include "kiln/sched/problem_text.h"
#include "kiln/sched/testing/sched_helpers.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::sched {
namespace {

using kiln::testing::text_block;
using testing::error_of;

const std::string kValid = text_block(R"(
problem p chaining clock 5
type add latency 0 delay 0.5
type mul latency 1 delay 2 limit 2
op a add width 8
op b mul width 16
op c add width 17
dep a b
dep b c
dep a c
)");

// The message check() gives for `text`.
std::string check_error(const std::string& text) {
  const Problem p = parse_problem(text);
  return error_of([&] { check(p); }, ErrorKind::InvalidModel).what_happened();
}

std::string check_error(const Problem& p) {
  return error_of([&] { check(p); }, ErrorKind::InvalidModel).what_happened();
}

TEST(SchedProblem, ValidProblemPasses) {
  EXPECT_NO_THROW(check(parse_problem(kValid)));
}

TEST(SchedProblem, GraphAdjacency) {
  const Problem p = parse_problem(kValid);
  const Graph g(p);
  ASSERT_EQ(g.successors(0).size(), 2u);
  EXPECT_EQ(g.successors(0)[0], 1);
  EXPECT_EQ(g.successors(0)[1], 2);
  ASSERT_EQ(g.predecessors(2).size(), 2u);
  EXPECT_EQ(g.predecessors(2)[0], 1);
  EXPECT_EQ(g.predecessors(2)[1], 0);
  EXPECT_TRUE(g.successors(2).empty());
  EXPECT_EQ(g.topological_order(), (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(g.acyclic());
}

TEST(SchedProblem, RegisterBitsCountClockEdgesCrossed) {
  const Problem p = parse_problem(kValid);
  Solution s;
  s.start = {0, 0, 4};
  s.start_ns = {0, 0.5, 0};
  s.latency = 4;
  // a: ready in cycle 0, last used in cycle 4: 8 x 4; b: ready in 1, used in 4: 16 x 3.
  EXPECT_EQ(register_bits(p, s), 8 * 4 + 16 * 3);
  s.start = {0, 0, 1};
  EXPECT_EQ(register_bits(p, s), 8 * 1);
  EXPECT_EQ(schedule_latency(p, s.start), 1);
}

TEST(SchedProblem, CheckClock) {
  EXPECT_EQ(check_error("problem p chaining clock 0\n"),
            "a chaining problem needs a clock period > 0, got 0.00 ns");
}

TEST(SchedProblem, CheckMaxLatency) {
  EXPECT_EQ(check_error("problem p plain max_latency -1\n"), "max_latency -1 is negative");
}

TEST(SchedProblem, CheckTypeName) {
  Problem p = parse_problem(kValid);
  p.types[1].name = "add";
  EXPECT_EQ(check_error(p), "operator type add is defined twice");
  p.types[1].name = "";
  EXPECT_EQ(check_error(p), "operator type 1 has no name");
}

TEST(SchedProblem, CheckLatencyAndDelay) {
  EXPECT_EQ(check_error("problem p plain\ntype t latency -1\n"),
            "operator type t has negative latency -1");
  EXPECT_EQ(check_error("problem p plain\ntype t delay -0.5\n"),
            "operator type t has delay -0.50 ns; it must be >= 0");
}

TEST(SchedProblem, CheckOperations) {
  Problem p = parse_problem(kValid);
  p.operations[2].name = "a";
  EXPECT_EQ(check_error(p), "operation a is defined twice");
  p = parse_problem(kValid);
  p.operations[2].name = "";
  EXPECT_EQ(check_error(p), "operation 2 has no name");
  p = parse_problem(kValid);
  p.operations[1].type = 5;
  EXPECT_EQ(check_error(p), "op b has type index 5, but the problem has 2 types");
  p = parse_problem(kValid);
  p.operations[1].width = -3;
  EXPECT_EQ(check_error(p), "op b has negative width -3");
}

TEST(SchedProblem, CheckDependences) {
  Problem p = parse_problem(kValid);
  p.add_dependence(0, 7);
  EXPECT_EQ(check_error(p), "dependence 3 refers to unknown operation 7 (the problem has 3)");
  EXPECT_EQ(check_error("problem p plain\ntype t\nop a t\ndep a a\n"), "op a depends on itself");
  EXPECT_EQ(check_error("problem p plain\ntype t\nop a t\nop b t\ndep a b distance 1\n"),
            "dependence a -> b has distance 1; only the modulo problem allows a nonzero distance");
}

TEST(SchedProblem, CheckLimit) {
  EXPECT_EQ(check_error("problem p shared_operators\ntype t limit 0\nop a t\nop b t\n"),
            "limit 0 of t (used by 2 operations) is below 1");
  // Unused types and Plain problems (no limits) do not care.
  EXPECT_NO_THROW(check(parse_problem("problem p shared_operators\ntype t limit 0\n")));
  EXPECT_NO_THROW(check(parse_problem("problem p plain\ntype t limit 0\nop a t\n")));
}

TEST(SchedProblem, CheckCycle) {
  EXPECT_EQ(check_error(text_block(R"(
problem p plain
type t
op x t
op a t
op b t
op c t
dep x a
dep a b
dep b c
dep c a
)")),
            "the dependences form a cycle: b -> c -> a -> b");
}

TEST(SchedProblem, CheckDelayAgainstClock) {
  const Error e = error_of(
      [] {
        check(
            parse_problem("problem p chaining clock 5\ntype mul latency 1 delay 6.2\nop m3 mul\n"));
      },
      ErrorKind::InvalidModel);
  EXPECT_EQ(e.message(),
            "problem p: op m3 (mul, 6.20 ns) does not fit the 5.00 ns clock: 1.20 ns over; raise "
            "the clock period or give mul a pipeline stage");
}

}  // namespace
}  // namespace kiln::sched
