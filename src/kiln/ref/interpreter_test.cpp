#include "kiln/ref/interpreter.h"

#include "kiln/ref/testing/ref_testing.h"

namespace kiln::ref {
namespace {

using testing::expect_values;
using testing::F;
using testing::FT;

// x[1,2,2,2] -> Conv (1x1, weights [1, -1], bias 0.5) -> Relu -> GlobalAveragePool.
struct TinyNet {
  Graph g;
  ValueId x, k, r, out;
  TinyNet() {
    x = g.add_value("x", FT({1, 2, 2, 2}));
    const ValueId w = g.add_constant("w", F({1, 2, 1, 1}, {1, -1}));
    const ValueId b = g.add_constant("b", F({1}, {0.5f}));
    k = g.add_constant("k", F({2}, {7, 8}));
    const ValueId c = g.add_value("c", FT({1, 1, 2, 2}));
    r = g.add_value("r", FT({1, 1, 2, 2}));
    out = g.add_value("out", FT({1, 1, 1, 1}));
    g.add_node(OpKind::Conv, "conv", {x, w, b}, {c},
               ConvAttrs{{1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1});
    g.add_node(OpKind::Relu, "relu", {c}, {r});
    g.add_node(OpKind::GlobalAveragePool, "gap", {r}, {out});
    g.inputs = {x};
  }
};

TEST(Interpreter, RunsATinyGraph) {
  TinyNet net;
  net.g.outputs = {net.out};
  Interpreter interp(net.g);
  // conv = ch0 - ch1 + 0.5 = [-2.5, 1.5, 2.5, 3.5]; relu -> mean 7.5 / 4.
  const Tensor x = F({1, 2, 2, 2}, {1, 2, 3, 4, 4, 1, 1, 1});
  const std::vector<Tensor> y = interp.run({x});
  ASSERT_EQ(y.size(), 1u);
  expect_values(y[0], {1, 1, 1, 1}, {1.875});
  // Runs again with other data (nothing left over from the first run).
  const Tensor x2 = F({1, 2, 2, 2}, {0, 0, 0, 0, 1, 1, 1, 1});
  expect_values(interp.run({x2})[0], {1, 1, 1, 1}, {0});
}

TEST(Interpreter, OutputsMayBeIntermediatesConstantsOrInputs) {
  TinyNet net;
  net.g.outputs = {net.r, net.out, net.k, net.x};
  Interpreter interp(net.g);
  const Tensor x = F({1, 2, 2, 2}, {1, 2, 3, 4, 4, 1, 1, 1});
  const std::vector<Tensor> y = interp.run({x});
  ASSERT_EQ(y.size(), 4u);
  expect_values(y[0], {1, 1, 2, 2}, {0, 1.5, 2.5, 3.5});
  expect_values(y[1], {1, 1, 1, 1}, {1.875});
  expect_values(y[2], {2}, {7, 8});
  expect_values(y[3], {1, 2, 2, 2}, {1, 2, 3, 4, 4, 1, 1, 1});
}

TEST(Interpreter, InputTypeMismatchIsInvalidModel) {
  TinyNet net;
  net.g.outputs = {net.out};
  Interpreter interp(net.g);
  try {
    interp.run({Tensor(DType::Float32, {1, 2, 3, 3})});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
    EXPECT_NE(e.message().find("input 'x'"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("expects float32[1x2x2x2], got float32[1x2x3x3]"), std::string::npos)
        << e.message();
  }
  try {
    interp.run({Tensor(DType::Float64, {1, 2, 2, 2})});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("got float64[1x2x2x2]"), std::string::npos) << e.message();
  }
  EXPECT_THROW(interp.run({}), Error);
}

TEST(Interpreter, ValueReadByLaterNodesSurvives) {
  // a = Relu(x); b = a + a; c = b * a: `a` must not be freed after the Add.
  Graph g;
  const ValueId x = g.add_value("x", FT({2}));
  const ValueId a = g.add_value("a", FT({2}));
  const ValueId b = g.add_value("b", FT({2}));
  const ValueId c = g.add_value("c", FT({2}));
  const ValueId idx = g.add_value("idx", TensorType{DType::Int64, {1, 1, 1}});
  const ValueId pooled = g.add_value("pooled", FT({1, 1, 1}));
  g.add_node(OpKind::Relu, "relu", {x}, {a});
  g.add_node(OpKind::Add, "add", {a, a}, {b});
  g.add_node(OpKind::Mul, "mul", {b, a}, {c});
  // A second output nobody reads is computed and dropped.
  const ValueId c3 = g.add_value("c3", FT({1, 1, 2}));
  g.add_node(OpKind::Reshape, "reshape", {c}, {c3}, ReshapeAttrs{{1, 1, 2}});
  g.add_node(OpKind::MaxPool, "pool", {c3}, {pooled, idx},
             PoolAttrs{{2}, {1}, {0, 0}, {1}, false, false});
  g.inputs = {x};
  g.outputs = {c, pooled};
  Interpreter interp(g);
  const std::vector<Tensor> y = interp.run({F({2}, {-1, 2})});
  expect_values(y[0], {2}, {0, 8});
  expect_values(y[1], {1, 1, 1}, {8});
}

TEST(Interpreter, KernelErrorsNameTheNode) {
  Graph g;
  const ValueId d = g.add_value("d", FT({3}));
  const ValueId i = g.add_value("i", TensorType{DType::Int64, {1}});
  const ValueId y = g.add_value("y", FT({1}));
  g.add_node(OpKind::Gather, "gather_it", {d, i}, {y}, GatherAttrs{0});
  g.inputs = {d, i};
  g.outputs = {y};
  Interpreter interp(g);
  expect_values(interp.run({F({3}, {1, 2, 3}), Tensor::from_vector<int64_t>({1}, {-3})})[0], {1},
                {1});
  try {
    interp.run({F({3}, {1, 2, 3}), Tensor::from_vector<int64_t>({1}, {5})});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
    EXPECT_NE(e.message().find("Gather 'gather_it'"), std::string::npos) << e.message();
  }
}

TEST(Interpreter, SetNumThreadsKeepsResults) {
  TinyNet net;
  net.g.outputs = {net.out};
  Interpreter interp(net.g);
  const Tensor x = F({1, 2, 2, 2}, {1, 2, 3, 4, 4, 1, 1, 1});
  Interpreter::set_num_threads(1);
  expect_values(interp.run({x})[0], {1, 1, 1, 1}, {1.875});
  Interpreter::set_num_threads(0);
  expect_values(interp.run({x})[0], {1, 1, 1, 1}, {1.875});
}

}  // namespace
}  // namespace kiln::ref
