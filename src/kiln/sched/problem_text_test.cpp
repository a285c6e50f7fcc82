#include "kiln/sched/problem_text.h"

#include <gtest/gtest.h>

#include "kiln/sched/testing/sched_helpers.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::sched {
namespace {

using kiln::testing::text_block;
using testing::error_of;

std::string parse_error(const std::string& text) {
  return error_of([&] { parse_problem(text, "t.sched"); }, ErrorKind::InvalidModel).where() + ": " +
         error_of([&] { parse_problem(text, "t.sched"); }, ErrorKind::InvalidModel).what_happened();
}

TEST(SchedText, ProblemRoundTrip) {
  const std::string text = text_block(R"(
problem conv1 chaining clock 5 max_latency 40
type mul latency 1 delay 2.1 limit 4
type add latency 0 delay 0.8
op m0 mul width 32
op a0 add width 33
dep m0 a0
dep a0 m0 distance 2
dep a0 m0 order
)");
  const Problem p = parse_problem(text);
  EXPECT_EQ(p.problem_class, ProblemClass::Chaining);
  EXPECT_EQ(p.clock_ns, 5.0);
  EXPECT_EQ(p.max_latency, 40);
  ASSERT_EQ(p.types.size(), 2u);
  EXPECT_EQ(p.types[0].limit, 4);
  EXPECT_EQ(p.types[1].delay_ns, 0.8);
  ASSERT_EQ(p.operations.size(), 2u);
  EXPECT_EQ(p.operations[1].type, 1);
  EXPECT_EQ(p.operations[1].width, 33);
  EXPECT_EQ(p.dependences[1].distance, 2);
  EXPECT_FALSE(p.dependences[1].order);
  EXPECT_TRUE(p.dependences[2].order);
  EXPECT_EQ(print_problem(p), text);
}

TEST(SchedText, FieldsInAnyOrderWithDefaultsAndComments) {
  const Problem p = parse_problem(text_block(R"(
# a comment

problem q shared_operators   # trailing
type t limit 3 delay 1.5
op x t
)"));
  EXPECT_EQ(print_problem(p), text_block(R"(
problem q shared_operators
type t latency 0 delay 1.5 limit 3
op x t width 0
)"));
}

TEST(SchedText, SolutionRoundTrip) {
  const Problem p = parse_problem("problem c chaining clock 5\ntype t delay 1.5\nop a t\nop b t\n");
  const std::string text = "solution c latency 0\nop a 0 0\nop b 0 1.5\n";
  const Solution s = parse_solution(p, text);
  EXPECT_EQ(s.start, (std::vector<int>{0, 0}));
  EXPECT_EQ(s.start_ns, (std::vector<double>{0, 1.5}));
  EXPECT_EQ(print_solution(p, s), text);
  // Any order in; problem order out.
  EXPECT_EQ(print_solution(p, parse_solution(p, "solution c latency 0\nop b 0 1.5\nop a 0 0\n")),
            text);

  const Problem plain = parse_problem("problem c plain\ntype t latency 2\nop a t\nop b t\n");
  const std::string plain_text = "solution c latency 4\nop a 0\nop b 2\n";
  EXPECT_EQ(print_solution(plain, parse_solution(plain, plain_text)), plain_text);
}

TEST(SchedText, ProblemParseErrors) {
  EXPECT_EQ(parse_error("problem p wide\n"),
            "t.sched:1:11: unknown problem class 'wide', expected plain | shared_operators | "
            "chaining | modulo");
  EXPECT_EQ(parse_error("problem p plain clock 5\n"),
            "t.sched:1:23: a clock applies to chaining and modulo problems only");
  EXPECT_EQ(parse_error("problem p chaining\n"),
            "t.sched:2:1: a chaining problem needs 'clock NS'");
  EXPECT_EQ(parse_error("problem p plain\nop a mul\n"), "t.sched:2:6: unknown type 'mul'");
  EXPECT_EQ(parse_error("problem p plain\ntype t\ntype t\n"),
            "t.sched:3:6: type 't' is defined twice");
  EXPECT_EQ(parse_error("problem p plain\ntype t\nop a t\nop a t\n"),
            "t.sched:4:4: operation 'a' is defined twice");
  EXPECT_EQ(parse_error("problem p plain\ntype t\nop a t\ndep a b\n"),
            "t.sched:4:7: unknown operation 'b'");
  EXPECT_EQ(parse_error("problem p plain\ntype t speed 3\n"), "t.sched:2:8: unknown field 'speed'");
  EXPECT_EQ(parse_error("problem p plain\ntype t latency 1 latency 2\n"),
            "t.sched:2:18: field 'latency' is given twice");
  EXPECT_EQ(parse_error("problem p plain\nedge a b\n"),
            "t.sched:2:1: expected 'type', 'op' or 'dep', got 'edge'");
  EXPECT_EQ(parse_error("problem p plain\ntype t latency 99999999999\n"),
            "t.sched:2:16: integer 99999999999 is out of range");
}

TEST(SchedText, SolutionParseErrors) {
  const Problem p = parse_problem("problem c plain\ntype t\nop a t\nop b t\n");
  const auto error = [&](const std::string& text) {
    const Error e = error_of([&] { parse_solution(p, text, "s.txt"); }, ErrorKind::InvalidModel);
    return e.where() + ": " + e.what_happened();
  };
  EXPECT_EQ(error("solution d latency 0\n"), "s.txt:1:10: solution of problem 'd', expected 'c'");
  EXPECT_EQ(error("solution c latency 0\nop a 0\nop x 0\n"), "s.txt:3:4: unknown operation 'x'");
  EXPECT_EQ(error("solution c latency 0\nop a 0\nop a 0\n"),
            "s.txt:3:4: operation 'a' is given twice");
  EXPECT_EQ(error("solution c latency 0\nop a 0\n"), "s.txt:3:1: no start for operation 'b'");
  EXPECT_EQ(error("solution c latency 0\nop a 0 0.5\n"),
            "s.txt:2:8: expected the end of the line, got the number 0.5");
}

}  // namespace
}  // namespace kiln::sched
