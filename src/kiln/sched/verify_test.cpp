#include "kiln/sched/verify.h"

#include <gtest/gtest.h>

#include "kiln/sched/problem_text.h"
#include "kiln/sched/testing/sched_helpers.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::sched {
namespace {

using kiln::testing::text_block;
using testing::error_of;

// One valid schedule; each test breaks one rule of verify().
class SchedVerify : public ::testing::Test {
 protected:
  Problem p = parse_problem(text_block(R"(
problem v chaining clock 5 max_latency 3
type add latency 0 delay 2
type mul latency 1 delay 3 limit 1
op a0 add width 8
op a1 add width 8
op m0 mul width 16
op m1 mul width 16
op a2 add width 17
dep a0 a1
dep a1 m0
dep a0 m1
dep m1 a2
)"));
  // a1 chains after a0; m0 does not fit after a1 (2 + 2 + 3 > 5) and waits.
  Solution s = parse_solution(p, text_block(R"(
solution v latency 2
op a0 0 0
op a1 0 2
op m0 1 0
op m1 0 2
op a2 1 0
)"));

  std::string error() {
    return error_of([&] { verify(p, s); }, ErrorKind::Internal).what_happened();
  }
};

TEST_F(SchedVerify, ValidSchedulePasses) {
  check(p);
  EXPECT_NO_THROW(verify(p, s));
}

TEST_F(SchedVerify, OneStartPerOperation) {
  s.start.pop_back();
  EXPECT_EQ(error(), "the solution has 4 starts and 5 offsets for 5 operations");
}

TEST_F(SchedVerify, NonNegativeStart) {
  s.start[0] = -1;
  EXPECT_EQ(error(), "op a0 starts in cycle -1");
}

TEST_F(SchedVerify, NonNegativeOffset) {
  s.start_ns[0] = -0.5;
  EXPECT_EQ(error(), "op a0 starts at offset -0.500 ns");
}

TEST_F(SchedVerify, NoOffsetsWithoutChaining) {
  p.problem_class = ProblemClass::SharedOperators;
  EXPECT_EQ(error(), "op a1 has offset 2.000 ns in a problem without chaining");
}

TEST_F(SchedVerify, Dependence) {
  s.start[4] = 0;
  EXPECT_EQ(error(),
            "dependence m1 -> a2: a2 starts in cycle 0, before cycle 1 when m1's result is ready");
}

// An order (anti-dependence) lets `to` start in `from`'s cycle, at any offset.
TEST_F(SchedVerify, OrderAllowsTheSameCycle) {
  p.dependences.push_back({3, 1, 0, true});  // m1 -> a1: a1 in m1's cycle 0
  s.start_ns[1] = 0;
  p.dependences.erase(p.dependences.begin());  // a1 no longer chains after a0
  EXPECT_NO_THROW(verify(p, s));
  s.start[3] = 1;  // m1 after a1: the order is broken
  s.start[4] = 2;
  s.latency = 3;
  p.max_latency.reset();
  EXPECT_EQ(error(),
            "dependence m1 -> a1: a1 starts in cycle 0, before cycle 1, the cycle of m1 it must "
            "follow");
}

TEST_F(SchedVerify, ChainedDelay) {
  s.start_ns[1] = 1;
  EXPECT_EQ(
      error(),
      "dependence a0 -> a1 in cycle 0: a1 starts at 1.000 ns, before a0's result at 2.000 ns");
}

TEST_F(SchedVerify, Clock) {
  s.start_ns[3] = 2.5;
  EXPECT_EQ(error(), "op m1 in cycle 0 ends at 5.500 ns, after the 5.000 ns clock period");
}

TEST_F(SchedVerify, Limit) {
  s.start[3] = 1;
  s.start_ns[3] = 0;
  s.start[4] = 2;
  EXPECT_EQ(error(), "2 operations of mul start in cycle 1, over its limit 1");
}

TEST_F(SchedVerify, LatencyConsistent) {
  s.latency = 3;
  EXPECT_EQ(error(), "the solution says latency 3 but max(start + latency) is 2");
}

TEST_F(SchedVerify, MaxLatency) {
  p.max_latency = 1;
  EXPECT_EQ(error(), "latency 2 exceeds the bound 1");
}

}  // namespace
}  // namespace kiln::sched
