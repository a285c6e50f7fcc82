// Graph structure (ids, constants, ordering, verification) and the printer.
#include "kiln/graph/graph.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kiln/graph/printer.h"

namespace kiln {
namespace {

constexpr DType F32 = DType::Float32;

TensorType f32(Shape s) {
  return TensorType{F32, std::move(s)};
}

std::vector<std::string> node_names(const Graph& g) {
  std::vector<std::string> names;
  for (const Node& n : g.nodes()) names.push_back(n.onnx_name);
  return names;
}

// Runs f, expects a kiln::Error of `kind`, returns its message.
template <class F>
std::string error_message(F&& f, ErrorKind kind) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.message();
    return e.message();
  }
  ADD_FAILURE() << "no kiln::Error thrown";
  return {};
}

TEST(Graph, ValuesGetUniqueIdentifiers) {
  Graph g;
  ValueId a = g.add_value("x", f32({2}));
  ValueId b = g.add_value("x", f32({3}));
  ValueId c = g.add_value("", f32({}));
  EXPECT_EQ(a.index, 0);
  EXPECT_EQ(b.index, 1);
  EXPECT_EQ(g.num_values(), 3u);
  EXPECT_EQ(g.value(a).name, "x");
  EXPECT_NE(g.value(b).name, "x");
  EXPECT_EQ(g.value(b).onnx_name, "x");
  EXPECT_FALSE(g.value(c).name.empty());
  EXPECT_EQ(g.value(b).type, f32({3}));
  EXPECT_FALSE(kNoValue.valid());
}

TEST(Graph, ConstantsAndProducers) {
  Graph g;
  ValueId x = g.add_value("x", f32({2}));
  ValueId w = g.add_constant("w", Tensor::from_vector<float>({2}, {1.5f, 2.5f}));
  ValueId y = g.add_value("y", f32({2}));
  g.add_node(OpKind::Add, "add", {x, w}, {y});
  EXPECT_TRUE(g.value(w).is_constant());
  EXPECT_FALSE(g.value(x).is_constant());
  EXPECT_EQ(g.value(w).type, f32({2}));
  ASSERT_NE(g.constant(w), nullptr);
  EXPECT_EQ(g.constant(w)->data<float>()[1], 2.5f);
  EXPECT_EQ(g.constant(x), nullptr);
  EXPECT_EQ(g.constant(kNoValue), nullptr);
  EXPECT_EQ(g.producer(y), 0);
  EXPECT_EQ(g.producer(x), -1);
  EXPECT_EQ(g.producer(w), -1);
}

TEST(Graph, DescribeNamesTheNode) {
  Graph g;
  ValueId x = g.add_value("x", f32({2}));
  ValueId y = g.add_value("y", f32({2}));
  const Node& named = g.add_node(OpKind::Relu, "act/1", {x}, {y});
  EXPECT_EQ(named.describe(), "Relu 'act/1'");  // errors use the ONNX name
  const Node& unnamed = g.add_node(OpKind::Sigmoid, "", {y}, {g.add_value("z", f32({2}))});
  EXPECT_EQ(unnamed.describe(), "Sigmoid '" + unnamed.name + "'");
  EXPECT_FALSE(unnamed.name.empty());
}

TEST(Graph, TopologicalSortReordersConsumersAfterProducers) {
  Graph g;
  ValueId a = g.add_value("a", f32({1}));
  ValueId b = g.add_value("b", f32({1}));
  ValueId c = g.add_value("c", f32({1}));
  ValueId d = g.add_value("d", f32({1}));
  ValueId e = g.add_value("e", f32({1}));
  g.inputs = {a};
  g.outputs = {d, e};
  // Added consumer-first: n3 needs c (from n2), n2 needs b (from n1).
  g.add_node(OpKind::Relu, "n3", {c}, {d});
  g.add_node(OpKind::Relu, "n2", {b}, {c});
  g.add_node(OpKind::Relu, "n1", {a}, {b});
  g.add_node(OpKind::Relu, "side", {a}, {e});
  EXPECT_THROW(g.verify(), Error);
  g.topological_sort();
  // Stable: among ready nodes the earlier one goes first.
  EXPECT_EQ(node_names(g), (std::vector<std::string>{"n1", "n2", "n3", "side"}));
  EXPECT_NO_THROW(g.verify());
}

TEST(Graph, TopologicalSortKeepsValidOrder) {
  Graph g;
  ValueId a = g.add_value("a", f32({1}));
  ValueId b = g.add_value("b", f32({1}));
  ValueId c = g.add_value("c", f32({1}));
  g.inputs = {a};
  g.add_node(OpKind::Relu, "first", {a}, {b});
  g.add_node(OpKind::Add, "second", {a, b, kNoValue}, {c});
  g.topological_sort();
  EXPECT_EQ(node_names(g), (std::vector<std::string>{"first", "second"}));
}

TEST(Graph, TopologicalSortReportsCycle) {
  Graph g;
  ValueId a = g.add_value("a", f32({1}));
  ValueId b = g.add_value("b", f32({1}));
  ValueId c = g.add_value("c", f32({1}));
  g.inputs = {a};
  g.add_node(OpKind::Add, "loop_a", {a, c}, {b});
  g.add_node(OpKind::Relu, "loop_b", {b}, {c});
  const std::string msg = error_message([&] { g.topological_sort(); }, ErrorKind::InvalidModel);
  EXPECT_NE(msg.find("cycle"), std::string::npos) << msg;
  EXPECT_TRUE(msg.find("'loop_a'") != std::string::npos ||
              msg.find("'loop_b'") != std::string::npos)
      << msg;
}

// The header promises to name a node ON the cycle, not merely one blocked by it.
TEST(Graph, TopologicalSortNamesANodeOnTheCycle) {
  Graph g;
  ValueId a = g.add_value("a", f32({1}));
  ValueId b = g.add_value("b", f32({1}));
  ValueId c = g.add_value("c", f32({1}));
  ValueId d = g.add_value("d", f32({1}));
  g.inputs = {a};
  g.add_node(OpKind::Relu, "downstream", {c}, {d});  // waits for the cycle, is not on it
  g.add_node(OpKind::Add, "loop_a", {a, c}, {b});
  g.add_node(OpKind::Relu, "loop_b", {b}, {c});
  const std::string msg = error_message([&] { g.topological_sort(); }, ErrorKind::InvalidModel);
  EXPECT_EQ(msg.find("'downstream'"), std::string::npos) << msg;
  EXPECT_TRUE(msg.find("'loop_a'") != std::string::npos ||
              msg.find("'loop_b'") != std::string::npos)
      << msg;
}

TEST(Graph, VerifyAcceptsWellFormedGraph) {
  Graph g;
  ValueId x = g.add_value("x", f32({2}));
  ValueId w = g.add_constant("w", Tensor(F32, {2}));
  ValueId y = g.add_value("y", f32({2}));
  ValueId mask = g.add_value("mask", TensorType{DType::Bool, {2}});
  g.inputs = {x};
  g.outputs = {y};
  g.add_node(OpKind::Dropout, "drop", {x}, {y, mask});
  g.add_node(OpKind::Add, "unused", {y, w}, {g.add_value("z", f32({2}))});
  EXPECT_NO_THROW(g.verify());
}

TEST(Graph, VerifyRejectsBrokenStructure) {
  {  // an input used before it is produced
    Graph g;
    ValueId x = g.add_value("x", f32({2}));
    ValueId y = g.add_value("y", f32({2}));
    ValueId z = g.add_value("z", f32({2}));
    g.inputs = {x};
    g.add_node(OpKind::Relu, "late", {y}, {z});
    g.add_node(OpKind::Relu, "early", {x}, {y});
    const std::string msg = error_message([&] { g.verify(); }, ErrorKind::Internal);
    EXPECT_NE(msg.find("Relu 'late'"), std::string::npos) << msg;
  }
  {  // two producers of one value
    Graph g;
    ValueId x = g.add_value("x", f32({2}));
    ValueId y = g.add_value("y", f32({2}));
    g.inputs = {x};
    g.add_node(OpKind::Relu, "p1", {x}, {y});
    g.add_node(OpKind::Relu, "p2", {x}, {y});
    const std::string msg = error_message([&] { g.verify(); }, ErrorKind::Internal);
    EXPECT_NE(msg.find("Relu 'p2'"), std::string::npos) << msg;
  }
  {  // an output nobody produces
    Graph g;
    ValueId x = g.add_value("x", f32({2}));
    g.inputs = {x};
    g.outputs = {g.add_value("orphan", f32({2}))};
    error_message([&] { g.verify(); }, ErrorKind::Internal);
  }
  {  // a constant listed as a runtime input
    Graph g;
    g.inputs = {g.add_constant("w", Tensor(F32, {1}))};
    error_message([&] { g.verify(); }, ErrorKind::Internal);
  }
  {  // a graph input that is also a node output
    Graph g;
    ValueId x = g.add_value("x", f32({2}));
    g.inputs = {x};
    g.add_node(OpKind::Relu, "again", {x}, {x});
    error_message([&] { g.verify(); }, ErrorKind::Internal);
  }
}

TEST(Graph, EraseNodes) {
  Graph g;
  ValueId x = g.add_value("x", f32({2}));
  g.inputs = {x};
  for (const char* name : {"a", "b", "c", "d"})
    g.add_node(OpKind::Relu, name, {x}, {g.add_value(name, f32({2}))});
  g.erase_nodes({false, true, false, true});
  EXPECT_EQ(node_names(g), (std::vector<std::string>{"a", "c"}));
  g.erase_nodes({false, false});
  EXPECT_EQ(node_names(g), (std::vector<std::string>{"a", "c"}));
  error_message([&] { g.erase_nodes({true}); }, ErrorKind::Internal);
  EXPECT_EQ(g.nodes().size(), 2u);
  g.erase_nodes({true, true});
  EXPECT_TRUE(g.nodes().empty());
}

// ---- printer --------------------------------------------------------------------

TEST(Printer, PrintsInputsConstantsNodesAndOutputs) {
  Graph g;
  g.name = "tiny";
  g.opset = 13;
  ValueId x = g.add_value("x", f32({1, 2, 4, 4}));
  ValueId w = g.add_constant("w", Tensor::from_vector<float>({3, 2, 1, 1}, {1, 2, 3, 4, 5, 6}));
  g.add_constant("big", Tensor(F32, {16}));
  ValueId lo = g.add_constant("lo", Tensor::scalar<float>(0.5f));
  ValueId y = g.add_value("y", f32({1, 3, 4, 4}));
  ValueId z = g.add_value("z", f32({1, 3, 4, 4}));
  ValueId p = g.add_value("p", f32({1, 3, 2, 2}));
  g.inputs = {x};
  g.outputs = {p};
  g.add_node(OpKind::Conv, "conv1", {x, w, kNoValue}, {y},
             ConvAttrs{{1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1});
  g.add_node(OpKind::Clip, "", {y, lo}, {z});
  PoolAttrs pool;
  pool.kernel_shape = {2, 2};
  pool.strides = {2, 2};
  pool.pads = {0, 0, 0, 0};
  pool.dilations = {1, 1};
  g.add_node(OpKind::MaxPool, "pool", {z}, {p, kNoValue}, pool);
  const std::string expected =
      "graph tiny (opset 13)\n"
      "input %x: float32[1x2x4x4]\n"
      "const %w: float32[3x2x1x1] = [1, 2, 3, 4, 5, 6]\n"
      "const %big: float32[16]\n"
      "const %lo: float32[scalar] = 0.5\n"
      "%y: float32[1x3x4x4] = Conv(%x, %w, _) {kernel=1x1 strides=1x1 pads=0,0,0,0 "
      "dilations=1x1 group=1}  # conv1\n"
      "%z: float32[1x3x4x4] = Clip(%y, %lo)  # Clip\n"
      "%p: float32[1x3x2x2], _ = MaxPool(%z) {kernel=2x2 strides=2x2 pads=0,0,0,0 "
      "dilations=1x1}  # pool\n"
      "output %p: float32[1x3x2x2]\n";
  EXPECT_EQ(print_graph(g), expected);
  EXPECT_EQ(print_graph(g), print_graph(g));
}

TEST(Printer, ConstantValueFormats) {
  Graph g;
  g.add_constant("i", Tensor::from_vector<int64_t>({2}, {3, -1}));
  g.add_constant("flag", Tensor::scalar<bool>(true));
  g.add_constant("u", Tensor::scalar<uint64_t>(18446744073709551615ull));
  g.add_constant("third", Tensor::scalar<float>(1.0f / 3.0f));
  EXPECT_EQ(print_graph(g),
            "graph (opset 0)\n"
            "const %i: int64[2] = [3, -1]\n"
            "const %flag: bool[scalar] = true\n"
            "const %u: uint64[scalar] = 18446744073709551615\n"
            "const %third: float32[scalar] = 0.333333343\n");
}

}  // namespace
}  // namespace kiln
