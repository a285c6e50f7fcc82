#include "kiln/sched/solvers.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "kiln/sched/bounds.h"
#include "kiln/sched/problem_text.h"
#include "kiln/sched/testing/sched_helpers.h"
#include "kiln/sched/verify.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::sched {
namespace {

using kiln::testing::text_block;
using testing::error_of;
using Solver = Solution (*)(const Problem&);

// Problem text in, solution text out (verified once more here).
std::string solve(Solver solver, const std::string& problem_text) {
  const Problem p = parse_problem(problem_text);
  const Solution s = solver(p);
  verify(p, s);
  return print_solution(p, s);
}

const std::string kChain = text_block(R"(
problem chain plain
type add latency 0 delay 0
type mul latency 2 delay 0
op x add width 8
op m mul width 16
op a add width 16
op b add width 16
dep x m
dep m a
dep a b
)");

TEST(SchedSolvers, Chain) {
  const std::string expected = text_block(R"(
solution chain latency 2
op x 0
op m 0
op a 2
op b 2
)");
  EXPECT_EQ(solve(schedule_asap, kChain), expected);
  EXPECT_EQ(solve(schedule_list, kChain), expected);
  EXPECT_EQ(solve(schedule_sdc, kChain), expected);
}

// A wide value w that ASAP computes at once but that is used only at the end
// of a chain of multipliers: SDC computes it when needed.
const std::string kWide = text_block(R"(
problem wide plain
type add latency 0 delay 0
type mul latency 2 delay 0
op x add width 1
op w add width 64
op m1 mul width 16
op m2 mul width 16
op m3 mul width 16
op s add width 64
dep x w
dep m1 m2
dep m2 m3
dep m3 s
dep w s
)");

TEST(SchedSolvers, SdcRegisterObjectiveBeatsAsap) {
  const Problem p = parse_problem(kWide);
  const Solution asap = schedule_asap(p);
  const Solution sdc = schedule_sdc(p);
  EXPECT_EQ(asap.latency, 6);
  EXPECT_EQ(sdc.latency, 6);
  EXPECT_EQ(register_bits(p, asap), 64 * 6);  // w waits 6 cycles for s
  EXPECT_EQ(register_bits(p, sdc), 0);
  EXPECT_EQ(print_solution(p, sdc), text_block(R"(
solution wide latency 6
op x 6
op w 6
op m1 0
op m2 2
op m3 4
op s 6
)"));
}

// Four products summed by a tree of adds, at most two multipliers a cycle.
const std::string kTree = text_block(R"(
problem tree shared_operators
type mul latency 1 delay 0 limit 2
type add latency 0 delay 0
op m0 mul width 16
op m1 mul width 16
op m2 mul width 16
op m3 mul width 16
op a0 add width 17
op a1 add width 17
op a2 add width 18
dep m0 a0
dep m1 a0
dep m2 a1
dep m3 a1
dep a0 a2
dep a1 a2
)");

TEST(SchedSolvers, TreeUnderMultiplierLimit) {
  const std::string expected = text_block(R"(
solution tree latency 2
op m0 0
op m1 0
op m2 1
op m3 1
op a0 1
op a1 2
op a2 2
)");
  EXPECT_EQ(solve(schedule_list, kTree), expected);
  EXPECT_EQ(solve(schedule_sdc, kTree), expected);
  const Problem p = parse_problem(kTree);
  EXPECT_EQ(register_bits(p, schedule_sdc(p)), 17);  // a0 waits one cycle for a1
  EXPECT_EQ(error_of([&] { schedule_asap(p); }, ErrorKind::Unsupported).message(),
            "problem tree: the asap scheduler ignores resource limits, and mul has limit 2; use "
            "the list or sdc scheduler");
}

TEST(SchedSolvers, PlainProblemsIgnoreLimits) {
  Problem p = parse_problem(kTree);
  p.problem_class = ProblemClass::Plain;
  EXPECT_EQ(schedule_asap(p).latency, 1);
  EXPECT_EQ(schedule_list(p).latency, 1);
  EXPECT_EQ(schedule_sdc(p).latency, 1);
}

// Adds of 2 ns under a 5 ns clock: two fit a cycle, the third does not; the
// multiplier's 3 ns do not fit after two adds.
const std::string kChaining = text_block(R"(
problem chain5 chaining clock 5
type add latency 0 delay 2
type mul latency 1 delay 3
op a0 add width 8
op a1 add width 9
op a2 add width 10
op a3 add width 11
op m mul width 22
dep a0 a1
dep a1 a2
dep a2 a3
dep a3 m
)");

TEST(SchedSolvers, ChainingBreaksCycles) {
  const std::string asap = text_block(R"(
solution chain5 latency 3
op a0 0 0
op a1 0 2
op a2 1 0
op a3 1 2
op m 2 0
)");
  EXPECT_EQ(solve(schedule_asap, kChaining), asap);
  EXPECT_EQ(solve(schedule_list, kChaining), asap);
  // Same latency, fewer register bits: a0 (8) and a2 (10) are held instead
  // of a1 (9) and a3 (11).
  EXPECT_EQ(solve(schedule_sdc, kChaining), text_block(R"(
solution chain5 latency 3
op a0 0 0
op a1 1 0
op a2 1 2
op a3 2 0
op m 2 2
)"));
  const Problem p = parse_problem(kChaining);
  EXPECT_EQ(register_bits(p, schedule_asap(p)), 20);
  EXPECT_EQ(register_bits(p, schedule_sdc(p)), 18);
}

TEST(SchedSolvers, ChainTooLongForLatencyBound) {
  Problem p = parse_problem(kChaining);
  p.max_latency = 1;
  for (Solver solver : {schedule_asap, schedule_list, schedule_sdc})
    EXPECT_EQ(error_of([&] { solver(p); }, ErrorKind::InvalidModel).message(),
              "problem chain5: latency bound 1 cycles is 2 short: the dependence chain a0 -> a1 "
              "-> a2 -> a3 -> m needs 3 cycles; raise the latency bound to 3 or shorten the chain");
  p.max_latency = 3;
  EXPECT_EQ(schedule_sdc(p).latency, 3);
}

TEST(SchedSolvers, LimitTooTightForLatencyBound) {
  Problem p;
  p.name = "muls";
  p.problem_class = ProblemClass::SharedOperators;
  p.max_latency = 3;
  const int mul = p.add_type({"mul", 1, 0.0, 2});
  for (int i = 0; i < 8; ++i) p.add_operation("m" + std::to_string(i), mul, 16);
  for (Solver solver : {schedule_list, schedule_sdc})
    EXPECT_EQ(error_of([&] { solver(p); }, ErrorKind::InvalidModel).message(),
              "problem muls: limit 2 of mul (used by 8 operations) needs at least 4 cycles; the "
              "latency bound gives 3; raise the limit of mul to 3 or the latency bound to 4");
  p.max_latency = 4;
  EXPECT_EQ(schedule_list(p).latency, 4);
  EXPECT_EQ(schedule_sdc(p).latency, 4);
}

TEST(SchedSolvers, LongChainIsAbbreviated) {
  Problem p;
  p.name = "long";
  p.max_latency = 5;
  const int t = p.add_type({"reg", 1, 0.0, std::nullopt});
  for (int i = 0; i < 10; ++i) {
    p.add_operation("r" + std::to_string(i), t, 4);
    if (i > 0) p.add_dependence(i - 1, i);
  }
  EXPECT_EQ(error_of([&] { schedule_list(p); }, ErrorKind::InvalidModel).what_happened(),
            "latency bound 5 cycles is 5 short: the dependence chain r0 -> r1 -> r2 -> ... -> r8 "
            "-> r9 (10 operations) needs 10 cycles");
}

TEST(SchedSolvers, SdcRefusesLargeProblems) {
  const Problem p = testing::random_problem(1, kSdcMaxOperations + 1, ProblemClass::Plain, false);
  EXPECT_EQ(error_of([&] { schedule_sdc(p); }, ErrorKind::Unsupported).message(),
            "problem random1: the sdc scheduler takes at most 5000 operations; this problem has "
            "5001; use the list scheduler");
}

TEST(SchedSolvers, EmptyProblem) {
  const Problem p = parse_problem("problem e plain\n");
  for (Solver solver : {schedule_asap, schedule_list, schedule_sdc}) {
    const Solution s = solver(p);
    EXPECT_EQ(s.latency, 0);
    EXPECT_TRUE(s.start.empty());
  }
}

int lower_bound(const Problem& p) {
  int bound = 0;
  for (const LatencyBound& b : latency_lower_bounds(p, Graph(p))) bound = std::max(bound, b.cycles);
  return bound;
}

TEST(SchedSolvers, RandomDags) {
  const ProblemClass classes[] = {ProblemClass::Plain, ProblemClass::SharedOperators,
                                  ProblemClass::Chaining};
  for (uint32_t seed = 0; seed < 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const ProblemClass cls = classes[seed % 3];
    const bool limits = seed % 2 == 0 && cls != ProblemClass::Plain;
    const Problem p =
        testing::random_problem(seed, 5 + static_cast<int>(seed % 56), cls, limits, 8);
    const Solution list = schedule_list(p);
    const Solution sdc = schedule_sdc(p);
    verify(p, list);
    verify(p, sdc);
    const int bound = lower_bound(p);
    EXPECT_GE(list.latency, bound);
    EXPECT_GE(sdc.latency, bound);
    // The list schedule satisfies every SDC constraint, limits included.
    EXPECT_LE(sdc.latency, list.latency);
    if (!limits) {
      const Solution asap = schedule_asap(p);
      verify(p, asap);
      EXPECT_EQ(asap.latency, bound);  // ASAP is optimal without limits
      EXPECT_EQ(sdc.latency, asap.latency);
      EXPECT_EQ(list.latency, asap.latency);
      EXPECT_LE(register_bits(p, sdc), register_bits(p, list));
      EXPECT_LE(register_bits(p, sdc), register_bits(p, asap));
    }
  }
}

TEST(SchedSolvers, ListSchedulesThreeHundredThousandOperations) {
  const Problem p = testing::random_problem(7, 300000, ProblemClass::Chaining, true, 2000);
  const Solution s = schedule_list(p);
  EXPECT_EQ(s.start.size(), 300000u);
  EXPECT_GE(s.latency, lower_bound(p));
}

}  // namespace
}  // namespace kiln::sched
