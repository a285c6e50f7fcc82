// The modulo problem: text in, solution and its explanation out; one error
// test per rule check() and verify() add for it; random loop bodies solved
// and verified.
#include <gtest/gtest.h>

#include "kiln/sched/bounds.h"
#include "kiln/sched/problem_text.h"
#include "kiln/sched/solvers.h"
#include "kiln/sched/testing/sched_helpers.h"
#include "kiln/sched/verify.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::sched {
namespace {

using kiln::testing::text_block;
using testing::error_of;

// Also checks that the problem and the solution print as they parse.
std::string solve(const std::string& problem_text) {
  const Problem p = parse_problem(problem_text);
  EXPECT_EQ(print_problem(parse_problem(print_problem(p))), print_problem(p));
  const Solution s = schedule_modulo(p);
  verify(p, s);
  const std::string text = print_solution(p, s);
  EXPECT_EQ(print_solution(p, parse_solution(p, text)), text);
  return text;
}

std::string why(const std::string& problem_text) {
  const Problem p = parse_problem(problem_text);
  return describe_ii(p, modulo_bounds(p), schedule_modulo(p).ii);
}

// A multiply-accumulate loop: acc[i] = acc[i-1] + x[i] * w[i]. The add
// feeds itself one iteration later, so with a 1-cycle add the II can be 1.
const std::string kMac = text_block(R"(
problem mac modulo ii 1
type load latency 1 delay 0
type mul latency 3 delay 0 limit 1
type add latency 1 delay 0
op x load width 8
op w load width 8
op m mul width 16
op acc add width 32
dep x m
dep w m
dep m acc
dep acc acc distance 1
)");

TEST(SchedModulo, AccumulatorRecurrenceAllowsIIOne) {
  EXPECT_EQ(solve(kMac), text_block(R"(
solution mac latency 5 ii 1
op x 0
op w 0
op m 1
op acc 4
)"));
  EXPECT_EQ(why(kMac), "II 1 (asked 1): ResMII 1; RecMII 1");
}

// A shift register of state: s0 loads what s1 held, s1 what s2 held (each a
// register load of latency 1, read by the next iteration). A reader of the
// old value may share the writer's cycle (an order, not a value), so II 1;
// as data dependences, s0 -> s1 and s1 -> s0 a cycle later make II 2.
const std::string kShift = text_block(R"(
problem shift modulo
type state latency 1 delay 0
op s0 state width 8
op s1 state width 8
op s2 state width 8
dep s1 s0 distance 1
dep s2 s1 distance 1
dep s0 s1 order
dep s1 s2 order
)");

TEST(SchedModulo, AntiDependencesLetReaderAndWriterShareACycle) {
  EXPECT_EQ(solve(kShift), text_block(R"(
solution shift latency 1 ii 1
op s0 0
op s1 0
op s2 0
)"));
  std::string data = kShift;
  for (std::size_t at; (at = data.find(" order")) != std::string::npos;) data.erase(at, 6);
  EXPECT_EQ(schedule_modulo(parse_problem(data)).ii, 2);
}

// With a clock, latency-0 operations chain within it: three 2 ns adds under
// a 5 ns clock take two cycles (the third starts a new one), offsets printed.
TEST(SchedModulo, AClockChainsLatencyZeroOperationsWithinIt) {
  EXPECT_EQ(solve(text_block(R"(
problem chain modulo clock 5 ii 1
type load latency 1 delay 0
type add latency 0 delay 2
op x load width 8
op a add width 8
op b add width 8
op c add width 8
dep x a
dep a b
dep b c
)")),
            text_block(R"(
solution chain latency 2 ii 1
op x 0 0
op a 1 0
op b 1 2
op c 2 0
)"));
}

// A chain longer than two clock periods at II 1: each operation's window
// starts where its producers put it, not at its ASAP cycle (the chain pushes
// the last adds two cycles past ASAP).
TEST(SchedModulo, LongChainsSpillOverSeveralCycles) {
  EXPECT_EQ(solve(text_block(R"(
problem chain modulo clock 5 ii 1
type add latency 0 delay 2
op a add width 8
op b add width 8
op c add width 8
op d add width 8
op e add width 8
dep a b
dep b c
dep c d
dep d e
)")),
            text_block(R"(
solution chain latency 2 ii 1
op a 0 0
op b 0 2
op c 1 0
op d 1 2
op e 2 0
)"));
}

// A latency-0 recurrence at II 1: the next iteration's add runs in the next
// cycle, and the clock only bounds each cycle's chain.
TEST(SchedModulo, ClockedRecurrenceOfLatencyZero) {
  const Problem p = parse_problem(text_block(R"(
problem acc modulo clock 5
type add latency 0 delay 2
type reg latency 1 delay 0
op a add width 8
op b add width 8
op s reg width 8
dep a b
dep b s
dep s a distance 1
)"));
  const Solution s = schedule_modulo(p);
  verify(p, s);
  EXPECT_EQ(s.ii, 1);
  EXPECT_EQ(s.start[1], s.start[0]);  // b chains after a in its cycle
  EXPECT_NEAR(s.start_ns[1], 2.0, 1e-9);
}

// An accumulator whose first use (a select: the first iteration starts from
// the bias) is combined with a sum of products, a chain of adds longer than
// a clock period. By latencies alone every add is in the product's cycle, so
// the select's earliest cycle is too; the clock moves the adds a cycle
// later, and the state with them. The select, placed first, left the state
// no room (the greedy placement went to II 4); raised to where the
// recurrence closes, the loop runs at II 1.
TEST(SchedModulo, ARecurrencesFirstUseWaitsForTheValuesItCombines) {
  const Problem p = parse_problem(text_block(R"(
problem mac modulo clock 5
type mul latency 2 delay 0
type sel latency 0 delay 0.35
type add latency 0 delay 2
type reg latency 1 delay 0
op m mul width 16
op a1 add width 16
op a2 add width 16
op a3 add width 16
op x sel width 16
op y add width 16
op s reg width 16
dep m a1
dep a1 a2
dep a2 a3
dep a3 y
dep x y
dep y s
dep s x distance 1
)"));
  const Solution s = schedule_modulo(p);
  verify(p, s);
  EXPECT_EQ(s.ii, 1);
  EXPECT_EQ(s.start[4], s.start[5]);  // the select, in the cycle of its add
}

// A layer's 128 output channels are 128 such recurrences: one placement pass
// finds every select to raise (restarting once per accumulator gave up after
// 64 restarts, and model64's third convolution ran at II 3).
TEST(SchedModulo, ManyRecurrencesCloseInOneRestart) {
  std::string text =
      "problem macs modulo clock 5\ntype mul latency 2 delay 0\n"
      "type sel latency 0 delay 0.35\ntype add latency 0 delay 2\n"
      "type reg latency 1 delay 0\n";
  const int n = 128;
  for (int c = 0; c < n; ++c) {
    const std::string k = std::to_string(c);
    for (const char* op : {"m mul", "a1 add", "a2 add", "a3 add", "x sel", "y add", "s reg"}) {
      const std::string o = op;
      text += "op " + o.substr(0, o.find(' ')) + k + o.substr(o.find(' ')) + " width 16\n";
    }
    text += "dep m" + k + " a1" + k + "\ndep a1" + k + " a2" + k + "\ndep a2" + k + " a3" + k +
            "\ndep a3" + k + " y" + k + "\ndep x" + k + " y" + k + "\ndep y" + k + " s" + k +
            "\ndep s" + k + " x" + k + " distance 1\n";
  }
  const Problem p = parse_problem(text);
  const Solution s = schedule_modulo(p);
  verify(p, s);
  EXPECT_EQ(s.ii, 1);
  for (int c = 0; c < n; ++c)  // each select in the cycle of its add
    EXPECT_EQ(s.start[static_cast<std::size_t>(7 * c + 4)],
              s.start[static_cast<std::size_t>(7 * c + 5)]);
}

// Two products share one multiplier: ResMII 2, and the report says which type.
TEST(SchedModulo, LimitedMultiplierSetsResMII) {
  const std::string text = text_block(R"(
problem two modulo ii 1
type mul latency 3 delay 0 limit 1
type add latency 0 delay 0
op m0 mul width 16
op m1 mul width 16
op s add width 17
dep m0 s
dep m1 s
)");
  EXPECT_EQ(solve(text), text_block(R"(
solution two latency 4 ii 2
op m0 0
op m1 1
op s 4
)"));
  EXPECT_EQ(why(text), "II 2 (asked 1): ResMII 2 from mul (2 operations, limit 1); RecMII 1");
}

// A recurrence through a 3-cycle multiply and a 1-cycle add over distance 2
// needs II >= ceil(4 / 2) = 2, and the report names the cycle.
TEST(SchedModulo, RecurrenceSetsRecMIIAndIsNamed) {
  const std::string text = text_block(R"(
problem rec modulo
type mul latency 3 delay 0
type add latency 1 delay 0
op m mul width 16
op a add width 16
dep m a
dep a m distance 2
)");
  EXPECT_EQ(solve(text), text_block(R"(
solution rec latency 4 ii 2
op m 0
op a 3
)"));
  EXPECT_EQ(why(text), "II 2: ResMII 1; RecMII 2 from a -> m -> a");
}

// An asked II above the bounds is kept: the directive is a ceiling the
// designer chose, and a larger II frees the reservation table.
TEST(SchedModulo, AskedIIAboveTheBoundsIsKept) {
  const Problem p = parse_problem(kMac + "");
  Problem q = p;
  q.ii = 4;
  const Solution s = schedule_modulo(q);
  EXPECT_EQ(s.ii, 4);
  verify(q, s);
}

// ---- check() and verify() for the modulo rules -------------------------------

std::string check_error(const std::string& text) {
  return error_of([&] { check(parse_problem(text)); }, ErrorKind::InvalidModel).what_happened();
}

TEST(SchedModulo, CheckRules) {
  EXPECT_EQ(check_error("problem p modulo\ntype t\nop a t\nop b t\ndep a b distance -1\n"),
            "dependence a -> b has negative distance -1");
  EXPECT_EQ(check_error("problem p modulo ii 0\ntype t\nop a t\n"),
            "initiation interval 0 is below 1");
  Problem p = parse_problem("problem p plain\ntype t\nop a t\n");
  p.ii = 2;
  EXPECT_EQ(error_of([&] { check(p); }, ErrorKind::InvalidModel).what_happened(),
            "an initiation interval applies to the modulo problem only");
  // A cycle of distance 0 is an error; one through a later iteration is not.
  EXPECT_EQ(check_error("problem p modulo\ntype t\nop a t\nop b t\ndep a b\ndep b a\n"),
            "the dependences of distance 0 form a cycle: b -> a -> b");
  EXPECT_NO_THROW(check(parse_problem("problem p modulo\ntype t\nop a t\ndep a a distance 1\n")));
}

TEST(SchedModulo, TextRefusesAnIIOutsideModulo) {
  EXPECT_EQ(
      error_of([] { parse_problem("problem p plain ii 2\n", "t.sched"); }, ErrorKind::InvalidModel)
          .what_happened(),
      "an initiation interval applies to modulo problems only");
}

TEST(SchedModulo, OtherSolversRefuseModuloProblems) {
  const Problem p = parse_problem(kMac);
  for (auto solver : {schedule_asap, schedule_list, schedule_sdc})
    EXPECT_EQ(error_of([&] { solver(p); }, ErrorKind::Unsupported).what_happened(),
              std::string("the ") +
                  (solver == schedule_asap   ? "asap"
                   : solver == schedule_list ? "list"
                                             : "sdc") +
                  " scheduler solves acyclic problems, not modulo");
  const Problem plain = parse_problem("problem p plain\ntype t\nop a t\n");
  EXPECT_EQ(error_of([&] { schedule_modulo(plain); }, ErrorKind::Unsupported).what_happened(),
            "the modulo scheduler solves modulo problems; this one is plain");
}

class SchedModuloVerify : public ::testing::Test {
 protected:
  Problem p = parse_problem(kMac);
  Solution s = parse_solution(p, text_block(R"(
solution mac latency 5 ii 1
op x 0
op w 0
op m 1
op acc 4
)"));
  std::string error() {
    return error_of([&] { verify(p, s); }, ErrorKind::Internal).what_happened();
  }
};

TEST_F(SchedModuloVerify, ValidSchedulePasses) {
  EXPECT_NO_THROW(verify(p, s));
}

TEST_F(SchedModuloVerify, IIAtLeastOne) {
  s.ii = 0;
  EXPECT_EQ(error(), "the solution has initiation interval 0, below 1");
}

TEST_F(SchedModuloVerify, LoopCarriedDependence) {
  // acc of iteration i+1 (II 1) must start after acc of iteration i ends:
  // with a 2-cycle add it cannot at II 1.
  p.types[2].latency = 2;
  s.latency = 6;
  EXPECT_EQ(error(),
            "dependence acc -> acc (distance 1, II 1): acc starts in cycle 4, before cycle 5 when "
            "acc's result is ready");
}

TEST_F(SchedModuloVerify, ReservationTableModII) {
  // Two multiplies at cycles 1 and 3 collide mod 2 on the single multiplier.
  p.operations.push_back({"m2", 1, 16});
  s.start.push_back(3);
  s.start_ns.push_back(0);
  s.ii = 2;
  s.latency = 6;
  EXPECT_EQ(error(), "2 operations of mul start in cycle 1 mod II 2, over its limit 1");
}

// With a clock, a latency-0 result of the previous iteration read in the
// same clock cycle must be ready before its reader starts.
TEST_F(SchedModuloVerify, ChainAcrossIterationsInOneCycle) {
  p = parse_problem(text_block(R"(
problem acc modulo clock 5
type add latency 0 delay 3
op a add width 8
op b add width 8
dep a b distance 1
)"));
  s = parse_solution(p, text_block(R"(
solution acc latency 1 ii 1
op a 1 0
op b 0 0
)"));
  EXPECT_EQ(error(),
            "dependence a -> b in cycle 0: b starts at 0.000 ns, before a's result at 3.000 ns");
}

// Random loop bodies with recurrences: every solution verifies, its II is
// at least both bounds, and never worse than not overlapping iterations.
TEST(SchedModulo, RandomLoopBodiesVerify) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    Problem p = testing::random_problem(seed, 30 + static_cast<int>(seed) * 5, ProblemClass::Modulo,
                                        seed % 2 == 0);
    // Back edges from later operations to earlier ones, one to three iterations later.
    for (int i = 0; i < 4; ++i) {
      const int from = p.num_operations() - 1 - i * 3, to = i * 2;
      p.add_dependence(from, to, 1 + i % 3);
    }
    // Every third one with a clock that fits the slowest operation.
    if (seed % 3 == 0) {
      double slowest = 0.1;
      for (const OperatorType& t : p.types) slowest = std::max(slowest, t.delay_ns);
      p.clock_ns = slowest * 1.5;
    }
    SCOPED_TRACE(print_problem(p));
    const Solution s = schedule_modulo(p);
    EXPECT_NO_THROW(verify(p, s));
    const ModuloBounds b = modulo_bounds(p);
    EXPECT_GE(s.ii, b.mii());
  }
}

}  // namespace
}  // namespace kiln::sched
