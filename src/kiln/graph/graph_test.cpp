// Graph structure (ids, constants, ordering, verification) and the printer.
#include "kiln/graph/graph.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kiln/graph/ir_text.h"

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
  EXPECT_EQ(g.producer(y), g.first_node());
  EXPECT_EQ(g.producer(x), kNoNode);
  EXPECT_EQ(g.producer(w), kNoNode);
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
  {  // two producers of one value: refused when the second is added
    Graph g;
    ValueId x = g.add_value("x", f32({2}));
    ValueId y = g.add_value("y", f32({2}));
    g.inputs = {x};
    g.add_node(OpKind::Relu, "p1", {x}, {y});
    const std::string msg =
        error_message([&] { g.add_node(OpKind::Relu, "p2", {x}, {y}); }, ErrorKind::Internal);
    EXPECT_NE(msg.find("value 'y' already has a producer"), std::string::npos) << msg;
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
  {  // attributes of another op kind
    Graph g;
    ValueId x = g.add_value("x", f32({2}));
    ValueId y = g.add_value("y", f32({2}));
    g.inputs = {x};
    g.add_node(OpKind::Relu, "r", {x}, {y}).attrs = LeakyReluAttrs{};
    const std::string msg = error_message([&] { g.verify(); }, ErrorKind::Internal);
    EXPECT_NE(msg.find("carries attributes of another op kind"), std::string::npos) << msg;
  }
}

// The use-def index follows every edit.
TEST(Graph, UseDefFollowsEdits) {
  Graph g;
  ValueId x = g.add_value("x", f32({2}));
  ValueId y = g.add_value("y", f32({2}));
  ValueId z = g.add_value("z", f32({2}));
  ValueId w = g.add_value("w", f32({2}));
  g.inputs = {x};
  g.outputs = {w};
  const NodeId a = g.add_node(OpKind::Relu, "a", {x}, {y}).id();
  const NodeId b = g.add_node(OpKind::Add, "b", {y, y}, {z}).id();
  const NodeId c = g.add_node(OpKind::Relu, "c", {z}, {w}).id();
  EXPECT_EQ(g.uses(y), (std::vector<Use>{{b, 0}, {b, 1}}));
  EXPECT_EQ(g.producer(z), b);
  g.set_input(b, 1, x);
  EXPECT_EQ(g.uses(y), (std::vector<Use>{{b, 0}}));
  EXPECT_EQ(g.uses(x).size(), 2u);
  g.replace_all_uses(x, y);
  EXPECT_TRUE(g.uses(x).empty());
  EXPECT_EQ(g.uses(y).size(), 3u);
  EXPECT_EQ(g.node(a).inputs[0], y);  // a now reads its own output: verify catches it
  EXPECT_THROW(g.verify(), Error);
  g.set_input(a, 0, x);
  g.verify();
  // Moving an output to another producer.
  g.erase_node(c);
  EXPECT_FALSE(g.producer(w).valid());
  g.set_output(b, 0, w);
  EXPECT_EQ(g.producer(w), b);
  EXPECT_FALSE(g.producer(z).valid());
  g.verify();
  EXPECT_EQ(g.node_ids(), (std::vector<NodeId>{a, b}));
}

TEST(Graph, InsertNodeKeepsTheOrder) {
  Graph g;
  ValueId x = g.add_value("x", f32({2}));
  ValueId y = g.add_value("y", f32({2}));
  ValueId z = g.add_value("z", f32({2}));
  g.inputs = {x};
  g.outputs = {z};
  const NodeId last = g.add_node(OpKind::Relu, "last", {y}, {z}).id();
  g.insert_node(last, OpKind::Relu, "first", {x}, {y});
  EXPECT_EQ(node_names(g), (std::vector<std::string>{"first", "last"}));
  g.verify();
}

TEST(Graph, TopologicalSortIsLinearOnALongChain) {
  // Nodes added in reverse order of a 100k chain sort back in one pass
  // (a quadratic sort would take minutes here).
  Graph g;
  const int n = 100000;
  std::vector<ValueId> v;
  for (int i = 0; i <= n; ++i) v.push_back(g.add_value("v", f32({1})));
  g.inputs = {v[0]};
  g.outputs = {v[n]};
  for (int i = n; i >= 1; --i) g.add_node(OpKind::Relu, "", {v[i - 1]}, {v[i]});
  g.topological_sort();
  g.verify();
  EXPECT_EQ(g.node(g.first_node()).inputs[0], v[0]);
}

TEST(Graph, EraseNodeKeepsOtherHandles) {
  Graph g;
  ValueId x = g.add_value("x", f32({2}));
  g.inputs = {x};
  std::vector<NodeId> ids;
  for (const char* name : {"a", "b", "c", "d"})
    ids.push_back(g.add_node(OpKind::Relu, name, {x}, {g.add_value(name, f32({2}))}).id());
  g.erase_node(ids[1]);
  g.erase_node(ids[3]);
  EXPECT_EQ(node_names(g), (std::vector<std::string>{"a", "c"}));
  // The handles of the others still name them; the erased ones are gone.
  EXPECT_EQ(g.node(ids[2]).onnx_name, "c");
  EXPECT_FALSE(g.alive(ids[1]));
  error_message([&] { g.node(ids[1]); }, ErrorKind::Internal);
  EXPECT_EQ(g.uses(x).size(), 2u);
  EXPECT_EQ(g.num_nodes(), 2u);
  g.verify();
  g.erase_node(ids[0]);
  g.erase_node(ids[2]);
  EXPECT_TRUE(g.nodes().empty());
  EXPECT_TRUE(g.uses(x).empty());
  g.verify();
}

}  // namespace
}  // namespace kiln
