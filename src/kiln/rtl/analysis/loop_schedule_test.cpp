// Pipelined loop bodies as modulo problems: the II that memory ports,
// multipliers and recurrences allow, and the reason the report gives.
#include "kiln/rtl/analysis/loop_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "kiln/hls/build_model.h"
#include "kiln/hls/prepare.h"
#include "kiln/loop/builder.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/loop/testing/small_programs.h"
#include "kiln/rtl/lower/design.h"
#include "kiln/rtl/testing/sim_check.h"
#include "kiln/sched/problem_text.h"
#include "kiln/support/error.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::rtl {
namespace {

loop::Program mlp_program() {
  const auto onnx = kiln::testing::source_dir() / "models" / "zoo" / "mlp" / "model.onnx";
  const hls::PreparedGraph g = hls::prepare_graph(onnx, {});
  return loop::lower_model(hls::build_model(g.passed, hls::Config{}, nullptr));
}

int loop_named(const loop::Kernel& k, const std::string& name) {
  for (std::size_t l = 0; l < k.loops.size(); ++l)
    if (k.loops[l].name == name) return static_cast<int>(l);
  ADD_FAILURE() << "no loop " << name;
  return -1;
}

LoopSchedule mlp_main_loop(loop::Program& p, std::optional<int> multipliers, int64_t unroll = 1) {
  const int i = loop_named(p.kernels[0], "i");
  const dfg::SplitKernel sk = dfg::split_at_loop(p, 0, i, unroll);
  LoopScheduleOptions o;
  o.multiplier_limit = multipliers;
  return schedule_loop(sk.body, p, o);
}

// x[i] and ten weights w[i][j] per iteration; the weights in one dual-port
// memory take five cycles.
TEST(LoopSchedule, OneWeightMemoryLimitsTheDenseLoop) {
  loop::Program p = mlp_program();
  const LoopSchedule s = mlp_main_loop(p, 9);
  EXPECT_EQ(s.solution.ii, 5) << s.why;
  EXPECT_EQ(s.bounds.res_mii, 5);
  EXPECT_NE(s.why.find("@fc_Gemm_w"), std::string::npos) << s.why;
  EXPECT_EQ(s.cycles, 783 * 5 + s.solution.latency);
}

// Partitioned by output (Dim 2), each weight column has its own memory:
// then the ten products on nine multipliers set II 2.
TEST(LoopSchedule, PartitionedWeightsLeaveTheMultipliers) {
  loop::Program p = mlp_program();
  loop::Buffer& w = p.buffers[static_cast<std::size_t>(p.find_buffer("fc_Gemm_w"))];
  w.directives.partition = loop::Partition::Complete;
  w.directives.dim = 2;
  const LoopSchedule s = mlp_main_loop(p, 9);
  EXPECT_EQ(s.solution.ii, 2) << s.why;
  EXPECT_NE(s.why.find("mul"), std::string::npos) << s.why;
  const LoopSchedule free = mlp_main_loop(p, std::nullopt);
  EXPECT_EQ(free.solution.ii, 1) << free.why;  // the accumulators chain within the cycle
  // Unrolled by 8 on 9 multipliers: 80 products per iteration, ResMII 9 over
  // 98 iterations. The greedy placement needs II 10 (980 cycles): 80 of 81
  // slots is too tight for it.
  w.directives.partition = loop::Partition::Cyclic;
  w.directives.factor = 8;
  w.directives.dim = 1;
  const LoopSchedule u = mlp_main_loop(p, 9, 8);
  EXPECT_EQ(u.bounds.res_mii, 9) << u.why;
  EXPECT_GE(u.solution.ii, 9);
  EXPECT_LE(u.solution.ii, 10) << u.why;
  EXPECT_EQ(u.cycles, 97 * u.solution.ii + u.solution.latency);
}

// Each accumulator is a register whose load (an operation of latency 1 after
// the value it stores) feeds the next iteration's readers (distance 1); its
// readers go no later than the load (distance 0). The MLP's wrapping
// accumulators are read by the modular add whose sum is stored.
TEST(LoopSchedule, StateReadersPrecedeItsWriterAndFeedTheNextIteration) {
  loop::Program p = mlp_program();
  const dfg::SplitKernel sk = dfg::split_at_loop(p, 0, loop_named(p.kernels[0], "i"));
  const dfg::Graph& g = sk.body.graph;
  const LoopProblem lp = loop_problem(sk.body, p, {});
  auto has = [&](int from, int to, int distance) {
    for (const sched::Dependence& d : lp.problem.dependences)
      if (d.from == from && d.to == to && d.distance == distance) return true;
    return false;
  };
  int checked = 0;
  for (std::size_t i = 0; i < g.outputs().size(); ++i) {
    const dfg::Output& o = g.outputs()[i];
    if (o.where.element < 0) continue;
    const int writer = lp.output_ops[i];
    EXPECT_EQ(lp.problem
                  .types[static_cast<std::size_t>(
                      lp.problem.operations[static_cast<std::size_t>(writer)].type)]
                  .latency,
              1);
    EXPECT_TRUE(has(lp.op_of_node[o.node], writer, 0));
    for (uint32_t n = 0; n < g.size(); ++n)
      for (uint32_t a : g.args(n))
        if (g.node(a).op == dfg::NodeOp::Input && g.input_of(a) == o.where) {
          const int reader = lp.op_of_node[n];
          EXPECT_TRUE(has(reader, writer, 0)) << "n" << n;
          EXPECT_TRUE(has(writer, reader, 1)) << "n" << n;
          ++checked;
        }
  }
  EXPECT_EQ(checked, 10) << dfg::print_graph(g);  // one add per accumulator
}

// A saturating accumulator is read by its add and written by the
// quantization after it: the add goes no later than the quantization.
TEST(LoopSchedule, SaturatingAccumulatorsAreReadBeforeTheyAreWritten) {
  const loop::Program p =
      loop::testing::dot_program({1, 2, 3, 4, 5, 6}, 3, 2, numeric::OverflowMode::Sat);
  const dfg::SplitKernel sk = dfg::split_at_loop(p, 0, loop_named(p.kernels[0], "i"));
  const dfg::Graph& g = sk.body.graph;
  const LoopProblem lp = loop_problem(sk.body, p, {});
  int war = 0;
  for (const dfg::Output& o : g.outputs())
    for (uint32_t n = 0; n < g.size(); ++n)
      for (uint32_t a : g.args(n))
        if (o.where.element >= 0 && g.node(a).op == dfg::NodeOp::Input &&
            g.input_of(a) == o.where && lp.op_of_node[n] != lp.op_of_node[o.node])
          for (const sched::Dependence& d : lp.problem.dependences)
            war += d.from == lp.op_of_node[n] && d.to == lp.op_of_node[o.node] && d.distance == 0;
  EXPECT_EQ(war, 2) << sched::print_problem(lp.problem);  // acc[0], acc[1]
  const LoopSchedule s = schedule_loop(sk.body, p, {});
  EXPECT_EQ(s.solution.ii, 1) << s.why;
}

// A delay line, y[i] = s; s = x[i]: the write of y reads the register s,
// which this iteration's load of x's value overwrites, so the write goes no
// later than that load.
TEST(LoopSchedule, AReaderThatDoesNotFeedTheWriterPrecedesIt) {
  loop::Program p;
  p.name = "delay";
  const loop::ScalarType t{8, 0, true};
  const int x = loop::add_buffer(p, "x", loop::BufferRole::Input, t, {4});
  const int y = loop::add_buffer(p, "y", loop::BufferRole::Output, t, {4});
  p.inputs = {x};
  p.outputs = {y};
  loop::KernelBuilder k(p, "delay", "delay");
  const int st = k.local("s", t, {1});
  k.store(st, {loop::Affine::of(0)}, k.constant(0, t));
  k.loop("i", 4, [&](const loop::Affine& i) {
    k.store(y, {i}, k.load(st, {loop::Affine::of(0)}));
    k.store(st, {loop::Affine::of(0)}, k.load(x, {i}));
  });
  k.finish({x}, {y});
  loop::verify(p);
  const dfg::SplitKernel sk = dfg::split_at_loop(p, 0, loop_named(p.kernels[0], "i"));
  const LoopProblem lp = loop_problem(sk.body, p, {});
  ASSERT_EQ(lp.read_ops.size(), 1u);
  ASSERT_EQ(lp.write_ops.size(), 1u);
  ASSERT_EQ(lp.output_ops.size(), 2u);
  const int load = lp.output_ops[0] == lp.write_ops[0] ? lp.output_ops[1] : lp.output_ops[0];
  bool write_first = false;
  for (const sched::Dependence& d : lp.problem.dependences)
    write_first |= d.from == lp.write_ops[0] && d.to == load && d.distance == 0;
  EXPECT_TRUE(write_first) << sched::print_problem(lp.problem);
}

// MultiplierLimit 0: the products are in LUTs, as many as there are; only
// the weights' ports limit the loop.
TEST(LoopSchedule, MultiplierLimitZeroPutsProductsInLuts) {
  loop::Program p = mlp_program();
  const LoopSchedule s = mlp_main_loop(p, 0);
  EXPECT_EQ(s.solution.ii, 5) << s.why;
  EXPECT_NE(s.why.find("@fc_Gemm_w"), std::string::npos) << s.why;
  for (const sched::OperatorType& t : s.lp.problem.types) EXPECT_NE(t.name, "mul");
}

// s[i + 1] = s[i] * x[i]: a read of what the previous iteration wrote, a
// recurrence through the memory of distance 1 over a one-cycle read and a
// one-cycle write.
TEST(LoopSchedule, MemoryRecurrenceSetsRecMii) {
  const loop::Program p = loop::testing::scan_program();
  const dfg::SplitKernel sk = dfg::split_at_loop(p, 0, 0);
  const LoopSchedule s = schedule_loop(sk.body, p, {});
  EXPECT_EQ(s.bounds.rec_mii, 2) << sched::print_problem(s.lp.problem);
  EXPECT_EQ(s.solution.ii, 2) << s.why;
  EXPECT_NE(s.why.find("RecMII 2"), std::string::npos) << s.why;
}

// `kiln rtl --list-loops`'s table counts a flattened nest's iterations: conv2d_a's
// row loop flattened with its column loop runs 36 iterations, not 6.
TEST(EstimatePipelines, AFlattenedNestRunsEveryKeptLoopsIterations) {
  const hls::Model m = testing::zoo_model("conv2d_a");
  for (const bool flatten : {false, true}) {
    RtlOptions o;
    o.directives.loops["Conv/oh"] = {std::nullopt, 1, flatten};
    const loop::Program program = design_program(m, o);
    const std::vector<PipelineEstimate> e =
        estimate_pipelines(program, o, fpga::Family::UltraScalePlus, 5.0);
    const auto oh = std::find_if(e.begin(), e.end(),
                                 [](const PipelineEstimate& x) { return x.loop == "Conv/oh"; });
    ASSERT_NE(oh, e.end());
    EXPECT_EQ(oh->iterations, flatten ? 36 : 6);
    EXPECT_GE(oh->ii, 1) << oh->why;
    EXPECT_EQ(oh->cycles, (oh->iterations - 1) * oh->ii + oh->depth);
  }
}

}  // namespace
}  // namespace kiln::rtl
