#include "kiln/onnx/import.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "kiln/graph/testing/graph_testing.h"
#include "kiln/onnx/tensor_proto.h"
#include "kiln/ref/interpreter.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::onnx_import {
namespace {

namespace fs = std::filesystem;
using kiln::testing::catch_error;
using kiln::testing::TempDir;
using kiln::testing::write_bytes;
using TP = ::onnx::TensorProto;
using AP = ::onnx::AttributeProto;

constexpr int64_t kSym = -1;  // a symbolic dimension in declared shapes

// Builds ModelProtos through the protobuf API, as an exporter would.
class Model {
 public:
  explicit Model(int64_t opset = 13) {
    m_.set_ir_version(8);
    m_.set_producer_name("kiln-test");
    auto* o = m_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    m_.mutable_graph()->set_name("test_graph");
  }
  ::onnx::ModelProto& proto() { return m_; }
  ::onnx::GraphProto& g() { return *m_.mutable_graph(); }

  static void set_type(::onnx::ValueInfoProto* v, int elem, const std::vector<int64_t>& dims,
                       bool with_shape = true) {
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    if (!with_shape) return;
    auto* shape = tt->mutable_shape();
    for (int64_t d : dims) {
      auto* dim = shape->add_dim();
      if (d == kSym) {
        dim->set_dim_param("N");
      } else {
        dim->set_dim_value(d);
      }
    }
  }
  Model& input(const std::string& name, const std::vector<int64_t>& dims, int elem = TP::FLOAT) {
    auto* v = g().add_input();
    v->set_name(name);
    set_type(v, elem, dims);
    return *this;
  }
  Model& output(const std::string& name) {
    g().add_output()->set_name(name);
    return *this;
  }
  Model& output(const std::string& name, const std::vector<int64_t>& dims, int elem = TP::FLOAT) {
    auto* v = g().add_output();
    v->set_name(name);
    set_type(v, elem, dims);
    return *this;
  }
  Model& value_info(const std::string& name, const std::vector<int64_t>& dims,
                    int elem = TP::FLOAT) {
    auto* v = g().add_value_info();
    v->set_name(name);
    set_type(v, elem, dims);
    return *this;
  }
  Model& init(const std::string& name, const Tensor& t) {
    tensor_to_proto(t, name, g().add_initializer());
    return *this;
  }
  ::onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name = "") {
    auto* n = g().add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }
  Graph import(const ImportOptions& options = {}) {
    return import_model_proto(m_, fs::temp_directory_path(), options, "test.onnx");
  }
  Error import_error(const ImportOptions& options = {}) {
    return catch_error([&] { import(options); });
  }

 private:
  ::onnx::ModelProto m_;
};

AP* attr(::onnx::NodeProto& n, const std::string& name, AP::AttributeType type) {
  AP* a = n.add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}
void set_int(::onnx::NodeProto& n, const std::string& name, int64_t v) {
  attr(n, name, AP::INT)->set_i(v);
}
void set_float(::onnx::NodeProto& n, const std::string& name, float v) {
  attr(n, name, AP::FLOAT)->set_f(v);
}
void set_string(::onnx::NodeProto& n, const std::string& name, const std::string& v) {
  attr(n, name, AP::STRING)->set_s(v);
}
void set_ints(::onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  AP* a = attr(n, name, AP::INTS);
  for (int64_t x : v) a->add_ints(x);
}

Tensor ints(const std::vector<int64_t>& v) {
  return Tensor::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v);
}
Tensor ones(Shape shape) {
  Tensor t(DType::Float32, std::move(shape));
  for (float& x : t.data<float>()) x = 1.0f;
  return t;
}

const Node& only_node(const Graph& g) {
  EXPECT_EQ(g.nodes().size(), 1u);
  KILN_ASSERT(!g.nodes().empty(), "graph has no nodes");
  return kiln::testing::node_at(g, 0);
}
const TensorType& out_type(const Graph& g, std::size_t i = 0) {
  return g.value(g.outputs.at(i)).type;
}

// --- whole-model basics ------------------------------------------------------

TEST(Import, ConvWithInitializerWeights) {
  Model m(13);
  m.input("x", {kSym, 3, 8, 8})
      .init("w", ones({4, 3, 3, 3}))
      .init("b", ints({0, 0, 0, 0}).cast(DType::Float32));
  auto& n = m.node("Conv", {"x", "w", "b"}, {"y"}, "conv1");
  set_ints(n, "strides", {2, 2});
  set_ints(n, "pads", {1, 1, 1, 1});
  m.output("y");
  const Graph g = m.import();
  EXPECT_EQ(g.name, "test_graph");
  EXPECT_EQ(g.opset, 13);
  ASSERT_EQ(g.inputs.size(), 1u);  // w and b are constants, not runtime inputs
  EXPECT_EQ(g.value(g.inputs[0]).type.to_string(), "float32[1x3x8x8]");  // symbolic N -> 1
  const Node& conv = only_node(g);
  EXPECT_EQ(conv.kind, OpKind::Conv);
  EXPECT_EQ(conv.onnx_name, "conv1");
  const auto& a = conv.attr<ConvAttrs>();
  EXPECT_EQ(a.kernel_shape, (std::vector<int64_t>{3, 3}));  // from W
  EXPECT_EQ(a.strides, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(a.pads, (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(a.dilations, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(a.group, 1);
  ASSERT_EQ(conv.inputs.size(), 3u);
  EXPECT_TRUE(g.value(conv.inputs[1]).is_constant());
  // (8 + 2 - 3) / 2 + 1 = 4
  EXPECT_EQ(out_type(g).to_string(), "float32[1x4x4x4]");
  EXPECT_EQ(g.value(g.outputs[0]).onnx_name, "y");
}

TEST(Import, AutoPadResolvesToExplicitPads) {
  // H: in 5, stride 2, kernel 3 -> out 3, needs (3-1)*2+3-5 = 2 pad -> 1 + 1.
  // W: in 6, stride 1, kernel 2 -> out 6, needs 5+2-6 = 1 pad -> end (UPPER) or begin (LOWER).
  const std::vector<std::pair<std::string, std::vector<int64_t>>> cases = {
      {"SAME_UPPER", {1, 0, 1, 1}}, {"SAME_LOWER", {1, 1, 1, 0}}, {"VALID", {0, 0, 0, 0}}};
  for (const auto& [mode, pads] : cases) {
    Model m(11);
    m.input("x", {1, 1, 5, 6}).init("w", ones({1, 1, 3, 2}));
    auto& n = m.node("Conv", {"x", "w"}, {"y"}, "c");
    set_string(n, "auto_pad", mode);
    set_ints(n, "strides", {2, 1});
    m.output("y");
    const Graph g = m.import();
    EXPECT_EQ(only_node(g).attr<ConvAttrs>().pads, pads) << mode;
    if (mode != "VALID") {
      EXPECT_EQ(out_type(g).to_string(), "float32[1x1x3x6]") << mode;
    }
  }
  // Pooling with dilation: in 7, kernel 3, dilation 2, stride 1 -> needs 6+5-7 = 4 -> 2 + 2.
  Model m(12);
  m.input("x", {1, 1, 7});
  auto& n = m.node("MaxPool", {"x"}, {"y"}, "p");
  set_ints(n, "kernel_shape", {3});
  set_ints(n, "dilations", {2});
  set_string(n, "auto_pad", "SAME_LOWER");
  m.output("y");
  const Graph g = m.import();
  EXPECT_EQ(only_node(g).attr<PoolAttrs>().pads, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(out_type(g).to_string(), "float32[1x1x7]");
}

TEST(Import, WindowAttributeLengthsMustMatchSpatialRank) {
  Model m(13);
  m.input("x", {1, 1, 5, 5}).init("w", ones({1, 1, 3, 3}));
  set_ints(m.node("Conv", {"x", "w"}, {"y"}, "c"), "strides", {1, 1, 1});
  m.output("y");
  const Error e = m.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "test.onnx: Conv 'c'");
  EXPECT_CONTAINS(e.message(), "strides");
}

// --- attribute form vs input form ---------------------------------------------

TEST(Import, ClipAttributesBecomeConstantInputs) {
  Model old(6);
  old.input("x", {2, 3});
  auto& n = old.node("Clip", {"x"}, {"y"}, "clip");
  set_float(n, "min", 0.0f);
  set_float(n, "max", 6.0f);
  old.output("y");
  const Graph g = old.import();
  const Node& clip = only_node(g);
  ASSERT_EQ(clip.inputs.size(), 3u);
  ASSERT_NE(g.constant(clip.inputs[1]), nullptr);
  ASSERT_NE(g.constant(clip.inputs[2]), nullptr);
  EXPECT_EQ(g.constant(clip.inputs[1])->type().to_string(), "float32[scalar]");
  EXPECT_EQ(g.constant(clip.inputs[1])->data<float>()[0], 0.0f);
  EXPECT_EQ(g.constant(clip.inputs[2])->data<float>()[0], 6.0f);

  // Only max given: min stays omitted.
  Model only_max(6);
  only_max.input("x", {2});
  set_float(only_max.node("Clip", {"x"}, {"y"}, "clip"), "max", 1.0f);
  only_max.output("y");
  const Graph g2 = only_max.import();
  ASSERT_EQ(only_node(g2).inputs.size(), 3u);
  EXPECT_FALSE(only_node(g2).inputs[1].valid());
  EXPECT_EQ(g2.constant(only_node(g2).inputs[2])->data<float>()[0], 1.0f);

  // Opset 13: the bounds are inputs already and stay so.
  Model now(13);
  now.input("x", {2, 3}).init("lo", Tensor::scalar<float>(-1.0f));
  now.node("Clip", {"x", "lo", ""}, {"y"}, "clip");
  now.output("y");
  const Graph g3 = now.import();
  ASSERT_EQ(only_node(g3).inputs.size(), 2u);  // trailing omitted input dropped
  EXPECT_EQ(g3.constant(only_node(g3).inputs[1])->data<float>()[0], -1.0f);
}

TEST(Import, SliceAttributeAndInputFormsCanonicalize) {
  // data 4x10: axis 1 from -3 to "infinity"; axis 0 untouched.
  Model old(9);
  old.input("x", {4, 10});
  auto& n = old.node("Slice", {"x"}, {"y"}, "s");
  set_ints(n, "starts", {-3});
  set_ints(n, "ends", {INT64_MAX});
  set_ints(n, "axes", {1});
  old.output("y");
  const Graph g = old.import();
  const auto& a = only_node(g).attr<SliceAttrs>();
  EXPECT_EQ(a.starts, (std::vector<int64_t>{0, 7}));
  EXPECT_EQ(a.ends, (std::vector<int64_t>{4, 10}));
  EXPECT_EQ(a.steps, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(out_type(g).to_string(), "float32[4x3]");

  // Opset 13 with a negative step on the last axis: start -1 -> 9, end very
  // negative -> clamped to -1, step -2 -> indices 9,7,5,3,1.
  Model now(13);
  now.input("x", {4, 10})
      .init("st", ints({-1, 1}))
      .init("en", ints({-INT64_MAX, 100}))
      .init("ax", ints({-1, 0}))
      .init("sp", ints({-2, 2}));
  now.node("Slice", {"x", "st", "en", "ax", "sp"}, {"y"}, "s");
  now.output("y");
  const Graph g2 = now.import();
  const Node& s = only_node(g2);
  ASSERT_EQ(s.inputs.size(), 1u);  // starts/ends/axes/steps moved into attrs
  const auto& b = s.attr<SliceAttrs>();
  EXPECT_EQ(b.starts, (std::vector<int64_t>{1, 9}));
  EXPECT_EQ(b.ends, (std::vector<int64_t>{4, -1}));
  EXPECT_EQ(b.steps, (std::vector<int64_t>{2, -2}));
  EXPECT_EQ(out_type(g2).to_string(), "float32[2x5]");
}

TEST(Import, SliceErrors) {
  Model dyn(13);
  dyn.input("x", {4}).input("st", {1}, TP::INT64).init("en", ints({3}));
  dyn.node("Slice", {"x", "st", "en"}, {"y"}, "s");
  dyn.output("y");
  Error e = dyn.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_CONTAINS(e.message(), "Slice with non-constant starts: kiln needs static shapes");
  EXPECT_CONTAINS(e.message(), "Slice 's'");

  Model zero(13);
  zero.input("x", {4})
      .init("st", ints({0}))
      .init("en", ints({3}))
      .init("ax", ints({0}))
      .init("sp", ints({0}));
  zero.node("Slice", {"x", "st", "en", "ax", "sp"}, {"y"}, "s");
  zero.output("y");
  EXPECT_EQ(zero.import_error().kind(), ErrorKind::InvalidModel);
}

TEST(Import, SqueezeAndUnsqueezeForms) {
  for (int64_t opset : {11, 13}) {
    Model m(opset);
    m.input("x", {1, 3, 1, 2});
    if (opset < 13) {
      set_ints(m.node("Squeeze", {"x"}, {"s"}, "sq"), "axes", {-2});
      set_ints(m.node("Unsqueeze", {"s"}, {"u"}, "un"), "axes", {0, -1});
    } else {
      m.init("sq_axes", ints({-2})).init("un_axes", ints({0, -1}));
      m.node("Squeeze", {"x", "sq_axes"}, {"s"}, "sq");
      m.node("Unsqueeze", {"s", "un_axes"}, {"u"}, "un");
    }
    m.output("u");
    const Graph g = m.import();
    ASSERT_EQ(g.nodes().size(), 2u);
    EXPECT_EQ(kiln::testing::node_at(g, 0).attr<AxesAttrs>().axes, (std::vector<int64_t>{2}))
        << opset;
    EXPECT_EQ(kiln::testing::node_at(g, 0).inputs.size(), 1u);
    // Unsqueeze axes count against the output rank 3 + 2 = 5: -1 -> 4.
    EXPECT_EQ(kiln::testing::node_at(g, 1).attr<AxesAttrs>().axes, (std::vector<int64_t>{0, 4}))
        << opset;
    EXPECT_EQ(kiln::testing::node_at(g, 1).inputs.size(), 1u);
    EXPECT_EQ(out_type(g).to_string(), "float32[1x1x3x2x1]");
  }
  // Squeeze without axes removes every size-1 dimension.
  Model all(13);
  all.input("x", {1, 3, 1, 2});
  all.node("Squeeze", {"x"}, {"y"}, "sq");
  all.output("y");
  const Graph g = all.import();
  EXPECT_EQ(only_node(g).attr<AxesAttrs>().axes, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(out_type(g).to_string(), "float32[3x2]");

  Model dup(11);
  dup.input("x", {3});
  set_ints(dup.node("Unsqueeze", {"x"}, {"y"}, "u"), "axes", {0, -3});  // output rank 3: both 0
  dup.output("y");
  EXPECT_EQ(dup.import_error().kind(), ErrorKind::InvalidModel);
}

TEST(Import, PadForms) {
  Model old(2);
  old.input("x", {2, 3});
  auto& n = old.node("Pad", {"x"}, {"y"}, "p");
  set_ints(n, "pads", {0, 1, 1, 2});
  set_string(n, "mode", "reflect");
  old.output("y");
  const Graph g = old.import();
  const auto& a = only_node(g).attr<PadAttrs>();
  EXPECT_EQ(a.pads, (std::vector<int64_t>{0, 1, 1, 2}));
  EXPECT_EQ(a.mode, PadMode::Reflect);
  EXPECT_EQ(out_type(g).to_string(), "float32[3x6]");

  Model now(13);
  now.input("x", {2, 3}).init("pads", ints({1, 0, 0, 0})).init("cv", Tensor::scalar<float>(2.5f));
  now.node("Pad", {"x", "pads", "cv"}, {"y"}, "p");
  now.output("y");
  const Graph g2 = now.import();
  const Node& p = only_node(g2);
  EXPECT_EQ(p.inputs.size(), 1u);
  EXPECT_EQ(p.attr<PadAttrs>().mode, PadMode::Constant);
  EXPECT_EQ(p.attr<PadAttrs>().value, 2.5);
  EXPECT_EQ(out_type(g2).to_string(), "float32[3x3]");

  Model wrap(13);
  wrap.input("x", {2, 3}).init("pads", ints({1, 0, 0, 0}));
  set_string(wrap.node("Pad", {"x", "pads"}, {"y"}, "p"), "mode", "wrap");
  wrap.output("y");
  EXPECT_EQ(wrap.import_error().kind(), ErrorKind::Unsupported);

  Model len(13);
  len.input("x", {2, 3}).init("pads", ints({1, 0}));
  len.node("Pad", {"x", "pads"}, {"y"}, "p");
  len.output("y");
  EXPECT_EQ(len.import_error().kind(), ErrorKind::InvalidModel);
}

TEST(Import, ReduceSumForms) {
  Model old(11);
  old.input("x", {2, 3, 4});
  auto& n = old.node("ReduceSum", {"x"}, {"y"}, "r");
  set_ints(n, "axes", {-1, 0});
  set_int(n, "keepdims", 0);
  old.output("y");
  const Graph g = old.import();
  EXPECT_EQ(only_node(g).attr<ReduceAttrs>().axes, (std::vector<int64_t>{0, 2}));
  EXPECT_FALSE(only_node(g).attr<ReduceAttrs>().keepdims);
  EXPECT_EQ(out_type(g).to_string(), "float32[3]");

  Model now(13);
  now.input("x", {2, 3, 4}).init("axes", ints({1}));
  now.node("ReduceSum", {"x", "axes"}, {"y"}, "r");
  now.output("y");
  const Graph g2 = now.import();
  EXPECT_EQ(only_node(g2).inputs.size(), 1u);
  EXPECT_EQ(only_node(g2).attr<ReduceAttrs>().axes, (std::vector<int64_t>{1}));
  EXPECT_EQ(out_type(g2).to_string(), "float32[2x1x4]");

  // No axes: all of them.
  Model all(13);
  all.input("x", {2, 3});
  all.node("ReduceSum", {"x"}, {"y"}, "r");
  all.output("y");
  const Graph g3 = all.import();
  EXPECT_EQ(only_node(g3).attr<ReduceAttrs>().axes, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(out_type(g3).to_string(), "float32[1x1]");

  // No axes with noop_with_empty_axes: an Identity.
  Model noop(13);
  noop.input("x", {2, 3});
  set_int(noop.node("ReduceSum", {"x"}, {"y"}, "r"), "noop_with_empty_axes", 1);
  noop.output("y");
  const Graph g4 = noop.import();
  EXPECT_EQ(only_node(g4).kind, OpKind::Identity);
  EXPECT_EQ(out_type(g4).to_string(), "float32[2x3]");

  Model dyn(13);
  dyn.input("x", {2, 3}).input("axes", {1}, TP::INT64);
  dyn.node("ReduceSum", {"x", "axes"}, {"y"}, "r");
  dyn.output("y");
  EXPECT_EQ(dyn.import_error().kind(), ErrorKind::Unsupported);
}

TEST(Import, SoftmaxAxisDefaultsDependOnOpset) {
  for (int64_t opset : {11, 13}) {
    Model m(opset);
    m.input("x", {2, 3, 4});
    m.node("Softmax", {"x"}, {"y"}, "sm");
    m.output("y");
    const Graph g = m.import();
    const auto& a = only_node(g).attr<SoftmaxAttrs>();
    EXPECT_EQ(a.axis, opset < 13 ? 1 : 2) << opset;
    EXPECT_EQ(a.coerce_2d, opset < 13) << opset;
  }
  Model neg(11);
  neg.input("x", {2, 3, 4});
  set_int(neg.node("LogSoftmax", {"x"}, {"y"}, "sm"), "axis", -1);
  neg.output("y");
  const Graph g = neg.import();
  EXPECT_EQ(only_node(g).kind, OpKind::LogSoftmax);
  EXPECT_EQ(only_node(g).attr<SoftmaxAttrs>().axis, 2);
  EXPECT_TRUE(only_node(g).attr<SoftmaxAttrs>().coerce_2d);
}

TEST(Import, ReshapeResolvesZeroAndMinusOne) {
  Model m(13);
  m.input("x", {2, 3, 4}).init("shape", ints({0, -1}));
  m.node("Reshape", {"x", "shape"}, {"y"}, "r");
  m.output("y");
  const Graph g = m.import();
  EXPECT_EQ(only_node(g).attr<ReshapeAttrs>().shape, (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(only_node(g).inputs.size(), 1u);

  Model bad(13);
  bad.input("x", {2, 3, 4}).init("shape", ints({5, -1}));
  bad.node("Reshape", {"x", "shape"}, {"y"}, "r");
  bad.output("y");
  const Error e = bad.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "Reshape 'r'");

  Model dyn(13);
  dyn.input("x", {2, 3, 4}).input("shape", {2}, TP::INT64);
  dyn.node("Reshape", {"x", "shape"}, {"y"}, "r");
  dyn.output("y");
  const Error dyn_error = dyn.import_error();
  EXPECT_EQ(dyn_error.kind(), ErrorKind::Unsupported);
  EXPECT_EQ(dyn_error.needs_constant(), "shape");  // what test-onnx specializes

  // The same model specialized to a value of its shape input.
  ImportOptions specialize;
  specialize.constant_inputs["shape"] = ints({4, -1});
  const Graph fixed = dyn.import(specialize);
  EXPECT_EQ(only_node(fixed).attr<ReshapeAttrs>().shape, (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(fixed.inputs.size(), 1u);
  specialize.constant_inputs["shape"] = ints({4, -1, 1});  // declared as [2]
  EXPECT_EQ(dyn.import_error(specialize).kind(), ErrorKind::InvalidModel);
  specialize.constant_inputs.clear();
  specialize.constant_inputs["nosuch"] = ints({4, -1});
  EXPECT_EQ(dyn.import_error(specialize).kind(), ErrorKind::Usage);

  // Opset < 5 carried the target shape as an attribute.
  Model legacy(4);
  legacy.input("x", {2, 3, 4});
  set_ints(legacy.node("Reshape", {"x"}, {"y"}, "r"), "shape", {4, 6});
  legacy.output("y");
  EXPECT_EQ(out_type(legacy.import()).to_string(), "float32[4x6]");
}

// --- folding -------------------------------------------------------------------

TEST(Import, PyTorchShapeSubgraphFoldsIntoOneReshape) {
  // x.view(x.size(0), -1) as PyTorch exports it.
  Model m(13);
  m.input("x", {2, 3, 4}).init("idx", Tensor::scalar<int64_t>(0)).init("ax0", ints({0}));
  m.node("Shape", {"x"}, {"shape"}, "shape");
  set_int(m.node("Gather", {"shape", "idx"}, {"n"}, "gather"), "axis", 0);
  m.node("Unsqueeze", {"n", "ax0"}, {"n1"}, "unsqueeze");
  auto& minus_one = m.node("Constant", {}, {"m1"}, "const");
  tensor_to_proto(ints({-1}), "", attr(minus_one, "value", AP::TENSOR)->mutable_t());
  set_int(m.node("Concat", {"n1", "m1"}, {"target"}, "concat"), "axis", 0);
  m.node("Reshape", {"x", "target"}, {"y"}, "reshape");
  m.output("y");
  const Graph g = m.import();
  const Node& r = only_node(g);
  EXPECT_EQ(r.kind, OpKind::Reshape);
  EXPECT_EQ(r.attr<ReshapeAttrs>().shape, (std::vector<int64_t>{2, 12}));
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_EQ(r.inputs[0], g.inputs[0]);
  EXPECT_EQ(out_type(g).to_string(), "float32[2x12]");
}

TEST(Import, ConstantCastChainFoldsAndConstantForms) {
  Model m(13);
  m.input("x", {3});
  auto& c = m.node("Constant", {}, {"k"}, "k");
  AP* vals = attr(c, "value_floats", AP::FLOATS);
  for (float v : {1.5f, -2.5f, 3.0f}) vals->add_floats(v);
  set_int(m.node("Cast", {"k"}, {"ki"}, "cast"), "to", TP::INT32);
  set_int(m.node("Cast", {"ki"}, {"kf"}, "cast2"), "to", TP::FLOAT);
  m.node("Add", {"x", "kf"}, {"y"}, "add");
  m.output("y").output("ki");
  const Graph g = m.import();
  const Node& add = only_node(g);
  EXPECT_EQ(add.kind, OpKind::Add);
  const Tensor* kf = g.constant(add.inputs[1]);
  ASSERT_NE(kf, nullptr);
  // float -> int32 truncates toward zero: 1, -2, 3.
  EXPECT_EQ(kf->data<float>()[0], 1.0f);
  EXPECT_EQ(kf->data<float>()[1], -2.0f);
  EXPECT_EQ(kf->data<float>()[2], 3.0f);
  // A constant may be a graph output.
  EXPECT_EQ(g.value(g.outputs[1]).type.to_string(), "int32[3]");
  EXPECT_TRUE(g.value(g.outputs[1]).is_constant());

  Model scalar(13);
  set_int(scalar.node("Constant", {}, {"k"}, "k"), "value_int", 7);
  scalar.output("k");
  const Graph gs = scalar.import();
  EXPECT_EQ(gs.value(gs.outputs[0]).constant->type().to_string(), "int64[scalar]");
  EXPECT_EQ(gs.value(gs.outputs[0]).constant->data<int64_t>()[0], 7);

  Model sparse(13);
  attr(sparse.node("Constant", {}, {"k"}, "k"), "sparse_value", AP::SPARSE_TENSOR);
  sparse.output("k");
  EXPECT_EQ(sparse.import_error().kind(), ErrorKind::Unsupported);
}

TEST(Import, HugeConstantResultsAreNotFolded) {
  Model m(13);
  m.init("c", Tensor::from_vector<float>({1}, {1.0f})).init("pads", ints({0, int64_t{1} << 25}));
  m.node("Pad", {"c", "pads"}, {"y"}, "p");
  m.output("y");
  const Graph g = m.import();
  EXPECT_EQ(only_node(g).kind, OpKind::Pad);
  EXPECT_FALSE(g.value(g.outputs[0]).is_constant());
  EXPECT_EQ(out_type(g).numel(), (int64_t{1} << 25) + 1);
}

// --- ops added for wider coverage ---------------------------------------------------

TEST(Import, ComparisonAndLogicalOpsUseLegacyBroadcast) {
  // Opset 6 Less with broadcast=1, axis=0: B [2] lines up with A's first dim.
  Model m(6);
  m.input("a", {2, 3}).input("b", {2});
  auto& n = m.node("Less", {"a", "b"}, {"y"}, "lt");
  set_int(n, "broadcast", 1);
  set_int(n, "axis", 0);
  m.output("y");
  const Graph g = m.import();
  EXPECT_EQ(out_type(g).to_string(), "bool[2x3]");
  ASSERT_EQ(g.nodes().size(), 2u);  // the Reshape of B to [2,1], then Less
  EXPECT_EQ(g.value(kiln::testing::node_at(g, 1).inputs[1]).type.shape, (Shape{2, 1}));
}

TEST(Import, ModAndBitShiftAttributes) {
  Model m(13);
  m.input("a", {3}, TP::INT32).input("b", {3}, TP::INT32);
  set_int(m.node("Mod", {"a", "b"}, {"y"}, "mod"), "fmod", 1);
  m.output("y");
  EXPECT_TRUE(only_node(m.import()).attr<ModAttrs>().fmod);

  Model f(13);
  f.input("a", {3}).input("b", {3});
  f.node("Mod", {"a", "b"}, {"y"}, "mod");
  f.output("y");
  const Error e = f.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "Mod 'mod': ");
  EXPECT_CONTAINS(e.message(), "fmod=1");

  Model s(11);
  s.input("a", {3}, TP::UINT8).input("b", {3}, TP::UINT8);
  set_string(s.node("BitShift", {"a", "b"}, {"y"}, "sh"), "direction", "RIGHT");
  s.output("y");
  EXPECT_FALSE(only_node(s.import()).attr<BitShiftAttrs>().left);

  Model bad(11);
  bad.input("a", {3}, TP::UINT8).input("b", {3}, TP::UINT8);
  set_string(bad.node("BitShift", {"a", "b"}, {"y"}, "sh"), "direction", "UP");
  bad.output("y");
  EXPECT_CONTAINS(bad.import_error().message(), "direction 'UP'");
}

TEST(Import, ArgMaxAndNewReductions) {
  Model m(12);
  m.input("x", {2, 3, 4});
  auto& n = m.node("ArgMax", {"x"}, {"y"}, "am");
  set_int(n, "axis", -1);
  set_int(n, "keepdims", 0);
  set_int(n, "select_last_index", 1);
  m.output("y");
  const Graph g = m.import();
  EXPECT_EQ(only_node(g).attr<ArgAttrs>(), (ArgAttrs{2, false, true}));
  EXPECT_EQ(out_type(g).to_string(), "int64[2x3]");

  // Opset 11 has no select_last_index: it is ignored.
  Model old(11);
  old.input("x", {2, 3});
  set_int(old.node("ArgMin", {"x"}, {"y"}, "am"), "select_last_index", 1);
  old.output("y");
  EXPECT_EQ(only_node(old.import()).attr<ArgAttrs>(), (ArgAttrs{0, true, false}));

  // ReduceL2 keeps its axes attribute at opset 13 (only ReduceSum moved to an input).
  Model r(13);
  r.input("x", {2, 3});
  set_ints(r.node("ReduceL2", {"x"}, {"y"}, "r"), "axes", {-1});
  r.output("y");
  EXPECT_EQ(out_type(r.import()).to_string(), "float32[2x1]");
}

TEST(Import, SplitForms) {
  // Opset 11: split attribute.
  Model a(11);
  a.input("x", {2, 6});
  auto& n = a.node("Split", {"x"}, {"p", "q"}, "s");
  set_int(n, "axis", 1);
  set_ints(n, "split", {2, 4});
  a.output("p").output("q");
  const Graph ga = a.import();
  EXPECT_EQ(only_node(ga).attr<SplitAttrs>(), (SplitAttrs{1, {2, 4}}));
  EXPECT_EQ(out_type(ga, 1).to_string(), "float32[2x4]");

  // Opset 13: split input; without it, equal parts.
  Model b(13);
  b.input("x", {6}).init("sizes", ints({1, 5}));
  b.node("Split", {"x", "sizes"}, {"p", "q"}, "s");
  b.output("p").output("q");
  EXPECT_EQ(only_node(b.import()).attr<SplitAttrs>().split, (std::vector<int64_t>{1, 5}));

  Model c(13);
  c.input("x", {6});
  c.node("Split", {"x"}, {"p", "q", "r"}, "s");
  c.output("p").output("q").output("r");
  EXPECT_EQ(only_node(c.import()).attr<SplitAttrs>().split, (std::vector<int64_t>{2, 2, 2}));

  Model bad(13);
  bad.input("x", {6}).init("sizes", ints({1, 4}));
  bad.node("Split", {"x", "sizes"}, {"p", "q"}, "s");
  bad.output("p").output("q");
  EXPECT_CONTAINS(bad.import_error().message(), "summing to the axis size 6");
}

TEST(Import, ShapeOpsFoldToConstants) {
  // ConstantOfShape and Range have no data inputs: they fold. Size of a
  // runtime input folds like Shape.
  Model m(13);
  m.input("x", {2, 3}).init("shape", ints({2, 2}));
  auto& cos = m.node("ConstantOfShape", {"shape"}, {"c"}, "cos");
  tensor_to_proto(Tensor::from_vector<int32_t>({1}, {5}), "",
                  attr(cos, "value", AP::TENSOR)->mutable_t());
  m.init("start", Tensor::scalar<int64_t>(1))
      .init("limit", Tensor::scalar<int64_t>(7))
      .init("delta", Tensor::scalar<int64_t>(2));
  m.node("Range", {"start", "limit", "delta"}, {"r"}, "range");
  m.node("Size", {"x"}, {"n"}, "size");
  m.output("c").output("r").output("n");
  const Graph g = m.import();
  EXPECT_TRUE(g.nodes().empty());
  const Tensor* c = g.value(g.outputs[0]).constant.get();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->type().to_string(), "int32[2x2]");
  EXPECT_EQ(c->data<int32_t>()[3], 5);
  const Tensor* r = g.value(g.outputs[1]).constant.get();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->to_int64_vector(""), (std::vector<int64_t>{1, 3, 5}));
  EXPECT_EQ(g.value(g.outputs[2]).constant->data<int64_t>()[0], 6);

  Model dyn(13);
  dyn.input("shape", {2}, TP::INT64);
  dyn.node("ConstantOfShape", {"shape"}, {"c"}, "cos");
  dyn.output("c");
  EXPECT_EQ(dyn.import_error().kind(), ErrorKind::Unsupported);
}

TEST(Import, TileExpandCastLikeOneHotCumSum) {
  // Tile-1: a scalar count along one axis.
  Model t1(1);
  t1.input("x", {2, 3})
      .init("tiles", Tensor::scalar<int64_t>(3))
      .init("axis", Tensor::scalar<int64_t>(1));
  t1.node("Tile", {"x", "tiles", "axis"}, {"y"}, "t");
  t1.output("y");
  const Graph g1 = t1.import();
  EXPECT_EQ(only_node(g1).attr<TileAttrs>().repeats, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(out_type(g1).to_string(), "float32[2x9]");

  Model e(13);
  e.input("x", {3, 1}).init("shape", ints({2, 1, 4}));
  e.node("Expand", {"x", "shape"}, {"y"}, "e");
  e.output("y");
  EXPECT_EQ(out_type(e.import()).to_string(), "float32[2x3x4]");

  Model cl(15);
  cl.input("x", {2}).input("like", {1}, TP::INT64);
  cl.node("CastLike", {"x", "like"}, {"y"}, "cl");
  cl.output("y");
  const Graph gc = cl.import();
  EXPECT_EQ(only_node(gc).kind, OpKind::Cast);
  EXPECT_EQ(only_node(gc).inputs.size(), 1u);
  EXPECT_EQ(out_type(gc).to_string(), "int64[2]");

  Model oh(11);
  oh.input("i", {4}, TP::INT64)
      .init("depth", Tensor::scalar<float>(3.0f))
      .init("values", Tensor::from_vector<float>({2}, {0.0f, 1.0f}));
  set_int(oh.node("OneHot", {"i", "depth", "values"}, {"y"}, "oh"), "axis", 0);
  oh.output("y");
  const Graph go = oh.import();
  EXPECT_EQ(only_node(go).attr<OneHotAttrs>(), (OneHotAttrs{0, 3}));
  EXPECT_EQ(only_node(go).inputs.size(), 2u);
  EXPECT_EQ(out_type(go).to_string(), "float32[3x4]");

  Model cs(14);
  cs.input("x", {2, 3}).init("axis", Tensor::scalar<int32_t>(-1));
  set_int(cs.node("CumSum", {"x", "axis"}, {"y"}, "cs"), "reverse", 1);
  cs.output("y");
  EXPECT_EQ(only_node(cs.import()).attr<CumSumAttrs>(), (CumSumAttrs{1, false, true}));
}

TEST(Import, ConvTransposeResolvesOutputShapeAndAutoPad) {
  // Natural output 2 * (3 - 1) + 3 = 7; output_shape 8 needs total padding -1:
  // floor(-1 / 2) = -1 at the end, 0 at the beginning (NOTSET).
  Model m(11);
  m.input("x", {1, 1, 3}).init("w", ones({1, 2, 3}));
  auto& n = m.node("ConvTranspose", {"x", "w"}, {"y"}, "ct");
  set_ints(n, "strides", {2});
  set_ints(n, "output_shape", {8});
  m.output("y");
  const Graph g = m.import();
  EXPECT_EQ(only_node(g).attr<ConvTransposeAttrs>().pads, (std::vector<int64_t>{0, -1}));
  EXPECT_EQ(out_type(g).to_string(), "float32[1x2x8]");

  // SAME_UPPER: output = input * stride = 6; total padding 1 goes to the end.
  Model same(11);
  same.input("x", {1, 1, 3}).init("w", ones({1, 1, 3}));
  auto& s = same.node("ConvTranspose", {"x", "w"}, {"y"}, "ct");
  set_ints(s, "strides", {2});
  set_string(s, "auto_pad", "SAME_UPPER");
  same.output("y");
  const Graph gs = same.import();
  EXPECT_EQ(only_node(gs).attr<ConvTransposeAttrs>().pads, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(out_type(gs).to_string(), "float32[1x1x6]");

  Model bad(11);
  bad.input("x", {1, 1, 3}).init("w", ones({1, 1, 3}));
  set_ints(bad.node("ConvTranspose", {"x", "w"}, {"y"}, "ct"), "output_padding", {0, 0});
  bad.output("y");
  EXPECT_CONTAINS(bad.import_error().message(), "'output_padding' [0,0] has 2 values");
}

TEST(Import, ResizeAndUpsampleForms) {
  // Upsample-7: scales attribute, asymmetric nearest.
  Model u7(7);
  u7.input("x", {1, 1, 2, 2});
  AP* sc = attr(u7.node("Upsample", {"x"}, {"y"}, "up"), "scales", AP::FLOATS);
  for (float v : {1.0f, 1.0f, 2.0f, 3.0f}) sc->add_floats(v);
  u7.output("y");
  const Graph g7 = u7.import();
  EXPECT_EQ(only_node(g7).kind, OpKind::Resize);
  EXPECT_EQ(only_node(g7).attr<ResizeAttrs>().coord, ResizeCoord::Asymmetric);
  EXPECT_EQ(only_node(g7).attr<ResizeAttrs>().nearest, NearestMode::Floor);
  EXPECT_EQ(out_type(g7).to_string(), "float32[1x1x4x6]");

  // Resize-13 with sizes and omitted roi/scales.
  Model r13(13);
  r13.input("x", {1, 1, 4, 4}).init("sizes", ints({1, 1, 3, 2}));
  auto& n = r13.node("Resize", {"x", "", "", "sizes"}, {"y"}, "rs");
  set_string(n, "mode", "linear");
  set_string(n, "coordinate_transformation_mode", "align_corners");
  r13.output("y");
  const Graph g13 = r13.import();
  const auto& a = only_node(g13).attr<ResizeAttrs>();
  EXPECT_EQ(a.mode, ResizeMode::Linear);
  EXPECT_EQ(a.coord, ResizeCoord::AlignCorners);
  EXPECT_DOUBLE_EQ(a.scales[2], 0.75);
  EXPECT_EQ(only_node(g13).inputs.size(), 1u);
  EXPECT_EQ(out_type(g13).to_string(), "float32[1x1x3x2]");

  // Resize-11 with scales: floor(5 * 0.6) = 3, defaults half_pixel / round_prefer_floor.
  Model r11(11);
  r11.input("x", {1, 1, 5})
      .init("roi", Tensor(DType::Float32, {0}))
      .init("scales", Tensor::from_vector<float>({3}, {1.0f, 1.0f, 0.6f}));
  r11.node("Resize", {"x", "roi", "scales"}, {"y"}, "rs");
  r11.output("y");
  const Graph g11 = r11.import();
  EXPECT_EQ(only_node(g11).attr<ResizeAttrs>().coord, ResizeCoord::HalfPixel);
  EXPECT_EQ(out_type(g11).to_string(), "float32[1x1x3]");

  Model dyn(13);
  dyn.input("x", {1, 1, 4}).input("scales", {3});
  dyn.node("Resize", {"x", "", "scales"}, {"y"}, "rs");
  dyn.output("y");
  EXPECT_EQ(dyn.import_error().kind(), ErrorKind::Unsupported);

  Model odd(13);
  odd.input("x", {1, 1, 4}).init("sizes", ints({1, 1, 8}));
  set_string(odd.node("Resize", {"x", "", "", "sizes"}, {"y"}, "rs"), "nearest_mode", "sideways");
  odd.output("y");
  EXPECT_CONTAINS(odd.import_error().message(), "unknown nearest_mode 'sideways'");
}

TEST(Import, NormalizationLayers) {
  Model ln(17);
  ln.input("x", {2, 3, 4}).init("scale", ones({4}));
  auto& n = ln.node("LayerNormalization", {"x", "scale"}, {"y", "", "inv"}, "ln");
  set_float(n, "epsilon", 1e-3f);
  ln.output("y").output("inv");
  const Graph g = ln.import();
  EXPECT_EQ(only_node(g).attr<LayerNormAttrs>(), (LayerNormAttrs{2, 1e-3f}));
  EXPECT_EQ(out_type(g, 1).to_string(), "float32[2x3x1]");

  Model lrn(13);
  lrn.input("x", {1, 3, 2, 2});
  lrn.node("LRN", {"x"}, {"y"}, "lrn");
  lrn.output("y");
  EXPECT_CONTAINS(lrn.import_error().message(), "attribute 'size' is required");
}

TEST(Import, MaxUnpoolOutputShape) {
  // Default: (2 - 1) * 2 + 3 - 1 - 0 = 4 per spatial dim.
  Model m(11);
  m.input("x", {1, 2, 2, 2}).input("i", {1, 2, 2, 2}, TP::INT64);
  auto& n = m.node("MaxUnpool", {"x", "i"}, {"y"}, "up");
  set_ints(n, "kernel_shape", {3, 3});
  set_ints(n, "strides", {2, 2});
  set_ints(n, "pads", {1, 1, 0, 0});
  m.output("y");
  EXPECT_EQ(out_type(m.import()).to_string(), "float32[1x2x4x4]");

  Model given(11);
  given.input("x", {1, 2, 2, 2}).input("i", {1, 2, 2, 2}, TP::INT64);
  given.init("shape", ints({1, 2, 5, 6}));
  set_ints(given.node("MaxUnpool", {"x", "i", "shape"}, {"y"}, "up"), "kernel_shape", {2, 2});
  given.output("y");
  EXPECT_EQ(out_type(given.import()).to_string(), "float32[1x2x5x6]");
}

// --- legacy opsets ----------------------------------------------------------------

TEST(Import, LegacyBroadcastAxisAppendsOnes) {
  // Opset 6: B [3] aligned at axis 1 of A [2,3,4] means B is [3,1] in numpy terms.
  Model m(6);
  m.input("a", {2, 3, 4}).input("b", {3});
  auto& n = m.node("Add", {"a", "b"}, {"y"}, "add");
  set_int(n, "broadcast", 1);
  set_int(n, "axis", 1);
  m.output("y");
  const Graph g = m.import();
  ASSERT_EQ(g.nodes().size(), 2u);
  EXPECT_EQ(kiln::testing::node_at(g, 0).kind, OpKind::Reshape);
  EXPECT_EQ(kiln::testing::node_at(g, 0).attr<ReshapeAttrs>().shape, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(kiln::testing::node_at(g, 1).kind, OpKind::Add);
  EXPECT_EQ(out_type(g).to_string(), "float32[2x3x4]");

  // A constant B is reshaped in place; PRelu's per-channel slope likewise.
  Model c(6);
  c.input("x", {2, 3, 4, 5}).init("slope", Tensor::from_vector<float>({3}, {0.1f, 0.2f, 0.3f}));
  c.node("PRelu", {"x", "slope"}, {"y"}, "prelu");
  c.output("y");
  const Graph gc = c.import();
  const Node& p = only_node(gc);
  ASSERT_NE(gc.constant(p.inputs[1]), nullptr);
  EXPECT_EQ(gc.constant(p.inputs[1])->shape(), (Shape{3, 1, 1}));
  EXPECT_EQ(gc.constant(p.inputs[1])->data<float>()[2], 0.3f);
}

TEST(Import, OpsetRange) {
  auto relu_model = [](int64_t opset) {
    Model m(opset);
    m.input("x", {2});
    m.node("Relu", {"x"}, {"y"}, "relu");
    m.output("y");
    return m;
  };
  EXPECT_EQ(relu_model(1).import().opset, 1);
  EXPECT_EQ(relu_model(5).import().opset, 5);
  EXPECT_EQ(relu_model(17).import().opset, 17);
  EXPECT_EQ(relu_model(18).import().opset, 18);
  EXPECT_EQ(relu_model(21).import().opset, 21);
  Error e = relu_model(22).import_error();
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_CONTAINS(e.message(), "version_converter");
  EXPECT_CONTAINS(e.message(), "21");
  e = relu_model(99).import_error();
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "unknown opset");
  EXPECT_EQ(relu_model(0).import_error().kind(), ErrorKind::InvalidModel);
  EXPECT_EQ(relu_model(-3).import_error().kind(), ErrorKind::InvalidModel);
}

// ---- opsets 18 to 21: the forms that changed for supported ops --------------
// (Debian's onnx stops at opset 17; the models are written here directly and
// the reference is the operator specification.)

std::vector<float> run_one(const Graph& g, const Tensor& x) {
  const std::vector<Tensor> out = ref::Interpreter(g).run({x});
  return std::vector<float>(out.at(0).data<float>().begin(), out.at(0).data<float>().end());
}

Tensor floats(Shape shape, std::vector<float> v) {
  return Tensor::from_vector<float>(std::move(shape), v);
}

TEST(ImportOpset18, ReduceAxesAreAnInput) {
  for (const char* op : {"ReduceMean", "ReduceMax", "ReduceL2", "ReduceLogSumExp"}) {
    Model m(18);
    m.input("x", {2, 3}).init("axes", ints({-1}));
    m.node(op, {"x", "axes"}, {"y"}, "r");
    m.output("y");
    const Graph g = m.import();
    EXPECT_EQ(only_node(g).attr<ReduceAttrs>().axes, (std::vector<int64_t>{1})) << op;
    EXPECT_EQ(out_type(g).to_string(), "float32[2x1]") << op;
  }
  // ReduceMean over axis 1 of [[1, 2, 3], [4, 5, 6]].
  Model m(18);
  m.input("x", {2, 3}).init("axes", ints({1}));
  set_int(m.node("ReduceMean", {"x", "axes"}, {"y"}, "r"), "keepdims", 0);
  m.output("y");
  EXPECT_EQ(run_one(m.import(), floats({2, 3}, {1, 2, 3, 4, 5, 6})), (std::vector<float>{2, 5}));
  // No axes: all of them, or nothing with noop_with_empty_axes.
  Model all(18);
  all.input("x", {2, 3});
  all.node("ReduceMax", {"x"}, {"y"}, "r");
  all.output("y");
  EXPECT_EQ(out_type(all.import()).to_string(), "float32[1x1]");
  Model noop(18);
  noop.input("x", {2, 3});
  set_int(noop.node("ReduceMax", {"x"}, {"y"}, "r"), "noop_with_empty_axes", 1);
  noop.output("y");
  EXPECT_EQ(only_node(noop.import()).kind, OpKind::Identity);
}

TEST(ImportOpset18, SplitNumOutputs) {
  // 7 into 3: ceil(7 / 3) = 3, 3, then the rest, 1.
  Model m(18);
  m.input("x", {7});
  set_int(m.node("Split", {"x"}, {"a", "b", "c"}, "s"), "num_outputs", 3);
  m.output("a").output("b").output("c");
  const Graph g = m.import();
  EXPECT_EQ(only_node(g).attr<SplitAttrs>().split, (std::vector<int64_t>{3, 3, 1}));
  EXPECT_EQ(out_type(g, 2).to_string(), "float32[1]");
  Model both(18);
  both.input("x", {6}).init("split", ints({3, 3}));
  set_int(both.node("Split", {"x", "split"}, {"a", "b"}, "s"), "num_outputs", 2);
  both.output("a").output("b");
  EXPECT_CONTAINS(both.import_error().message(), "give only one of them");
}

TEST(ImportOpset18, PadAxesInput) {
  // Pad only the last axis of [2, 3] by 1 before and 2 after.
  Model m(18);
  m.input("x", {2, 3}).init("pads", ints({1, 2})).init("axes", ints({-1}));
  m.node("Pad", {"x", "pads", "", "axes"}, {"y"}, "p");
  m.output("y");
  const Graph g = m.import();
  EXPECT_EQ(only_node(g).attr<PadAttrs>().pads, (std::vector<int64_t>{0, 1, 0, 2}));
  EXPECT_EQ(out_type(g).to_string(), "float32[2x6]");
  EXPECT_EQ(run_one(g, floats({2, 3}, {1, 2, 3, 4, 5, 6})),
            (std::vector<float>{0, 1, 2, 3, 0, 0, 0, 4, 5, 6, 0, 0}));
  // Opset 19's wrap mode is refused by name.
  Model w(19);
  w.input("x", {2, 3}).init("pads", ints({0, 1, 0, 1}));
  set_string(w.node("Pad", {"x", "pads"}, {"y"}, "p"), "mode", "wrap");
  w.output("y");
  EXPECT_EQ(w.import_error().kind(), ErrorKind::Unsupported);
}

TEST(ImportOpset18, ResizeAxesAndAspectRatio) {
  // Scales for axes 2 and 3 only.
  Model m(18);
  m.input("x", {1, 1, 2, 2}).init("scales", floats({2}, {2, 2}));
  set_ints(m.node("Resize", {"x", "", "scales"}, {"y"}, "r"), "axes", {2, 3});
  m.output("y");
  EXPECT_EQ(out_type(m.import()).to_string(), "float32[1x1x4x4]");
  // keep_aspect_ratio_policy not_larger: sizes 3x8 of 2x4 -> scale min(1.5, 2)
  // = 1.5 -> 3x6; not_smaller -> 2 -> 4x8.
  for (const auto& [policy, shape] : {std::pair{"not_larger", "float32[1x1x3x6]"},
                                      std::pair{"not_smaller", "float32[1x1x4x8]"}}) {
    Model k(18);
    k.input("x", {1, 1, 2, 4}).init("sizes", ints({3, 8}));
    auto& n = k.node("Resize", {"x", "", "", "sizes"}, {"y"}, "r");
    set_ints(n, "axes", {2, 3});
    set_string(n, "keep_aspect_ratio_policy", policy);
    k.output("y");
    const Graph g = k.import();
    EXPECT_EQ(out_type(g).to_string(), shape) << policy;
  }
  // antialias when downscaling with linear is refused, with nearest ignored.
  Model aa(18);
  aa.input("x", {1, 1, 4, 4}).init("scales", floats({4}, {1, 1, 0.5f, 0.5f}));
  auto& n = aa.node("Resize", {"x", "", "scales"}, {"y"}, "r");
  set_int(n, "antialias", 1);
  set_string(n, "mode", "linear");
  aa.output("y");
  EXPECT_EQ(aa.import_error().kind(), ErrorKind::Unsupported);
}

TEST(ImportOpset19, ResizeHalfPixelSymmetric) {
  // in 4, scale 0.6: out floor(2.4) = 2; adjustment 2 / 2.4, offset
  // 2 * (1 - adjustment) = 1/3; x_in = 1/3 + (x + 0.5) / 0.6 - 0.5 = 2/3, 7/3
  // (the operator's definition); linear over 0, 1, 2, 3 gives those values.
  Model m(19);
  m.input("x", {1, 4}).init("scales", floats({2}, {1, 0.6f}));
  auto& n = m.node("Resize", {"x", "", "scales"}, {"y"}, "r");
  set_string(n, "mode", "linear");
  set_string(n, "coordinate_transformation_mode", "half_pixel_symmetric");
  m.output("y");
  const std::vector<float> y = run_one(m.import(), floats({1, 4}, {0, 1, 2, 3}));
  ASSERT_EQ(y.size(), 2u);
  EXPECT_NEAR(y[0], 2.0 / 3.0, 1e-5);
  EXPECT_NEAR(y[1], 7.0 / 3.0, 1e-5);
}

TEST(ImportOpset19, AveragePoolDilations) {
  // Kernel 2, dilation 2 over [1, 2, 3, 4, 5]: (1+3)/2, (2+4)/2, (3+5)/2.
  Model m(19);
  m.input("x", {1, 1, 5});
  auto& n = m.node("AveragePool", {"x"}, {"y"}, "p");
  set_ints(n, "kernel_shape", {2});
  set_ints(n, "dilations", {2});
  m.output("y");
  EXPECT_EQ(run_one(m.import(), floats({1, 1, 5}, {1, 2, 3, 4, 5})), (std::vector<float>{2, 3, 4}));
}

TEST(ImportQuant, PerTensorPerAxisAndOutputTypes) {
  // Per tensor, no zero point: uint8.
  Model m(13);
  m.input("x", {2, 3}).init("s", Tensor::scalar(0.5f));
  m.node("QuantizeLinear", {"x", "s"}, {"y"}, "q");
  m.output("y");
  const Graph g = m.import();
  EXPECT_FALSE(only_node(g).attr<QuantAttrs>().per_axis);
  EXPECT_EQ(out_type(g).to_string(), "uint8[2x3]");
  // Per axis 1 (the default) with an int8 zero point; then dequantized.
  Model p(13);
  p.input("x", {2, 3})
      .init("s", floats({3}, {1, 2, 4}))
      .init("z", Tensor::from_vector<int8_t>({3}, {0, 1, 2}));
  p.node("QuantizeLinear", {"x", "s", "z"}, {"q"}, "q");
  p.node("DequantizeLinear", {"q", "s", "z"}, {"y"}, "d");
  p.output("y");
  const Graph gp = p.import();
  const auto& a = kiln::testing::node_at(gp, 0).attr<QuantAttrs>();
  EXPECT_TRUE(a.per_axis);
  EXPECT_EQ(a.axis, 1);
  EXPECT_EQ(a.to, DType::Int8);
  EXPECT_EQ(out_type(gp).to_string(), "float32[2x3]");
  EXPECT_EQ(run_one(gp, floats({2, 3}, {1, 3, 9, -1, -3, -9})),
            (std::vector<float>{1, 4, 8, -1, -4, -8}));
  // Opset 21: output_dtype without a zero point; block_size refused.
  Model o(21);
  o.input("x", {4}).init("s", Tensor::scalar(1.0f));
  set_int(o.node("QuantizeLinear", {"x", "s"}, {"y"}, "q"), "output_dtype", TP::INT8);
  o.output("y");
  EXPECT_EQ(out_type(o.import()).to_string(), "int8[4]");
  Model b(21);
  b.input("x", {4}).init("s", floats({2}, {1, 1}));
  auto& bn = b.node("QuantizeLinear", {"x", "s"}, {"y"}, "q");
  set_int(bn, "block_size", 2);
  set_int(bn, "axis", 0);
  b.output("y");
  EXPECT_EQ(b.import_error().kind(), ErrorKind::Unsupported);
  // Before opset 13 only per tensor.
  Model old(10);
  old.input("x", {2, 3}).init("s", floats({3}, {1, 2, 4}));
  old.node("QuantizeLinear", {"x", "s"}, {"y"}, "q");
  old.output("y");
  EXPECT_EQ(old.import_error().kind(), ErrorKind::InvalidModel);
}

// ---- RNN, GRU, LSTM: attributes read into RecurrentAttrs ---------------------

void set_strings(::onnx::NodeProto& n, const std::string& name, const std::vector<std::string>& v) {
  AP* a = attr(n, name, AP::STRINGS);
  for (const auto& x : v) a->add_strings(x);
}
void set_floats(::onnx::NodeProto& n, const std::string& name, const std::vector<float>& v) {
  AP* a = attr(n, name, AP::FLOATS);
  for (float x : v) a->add_floats(x);
}

// An LSTM node of hidden_size 2 over X [3, 1, 2] (bidirectional: two weight sets).
::onnx::NodeProto& add_lstm(Model& m, bool bidirectional,
                            const std::vector<std::string>& outputs = {"y", "yh"}) {
  const int64_t d = bidirectional ? 2 : 1;
  m.input("x", {3, 1, 2}).init("w", ones({d, 8, 2})).init("r", ones({d, 8, 2}));
  auto& n = m.node("LSTM", {"x", "w", "r"}, outputs, "lstm");
  if (bidirectional) set_string(n, "direction", "bidirectional");
  for (const auto& o : outputs)
    if (!o.empty()) m.output(o);
  return n;
}

TEST(ImportRecurrent, ActivationsDefaultsAlphaBetaAndHiddenSizeFromR) {
  Model plain(7);
  add_lstm(plain, false);
  const Graph g = plain.import();
  const auto& a = only_node(g).attr<RecurrentAttrs>();
  EXPECT_EQ(a.hidden_size, 2);  // no attribute: R's last dimension
  ASSERT_EQ(a.activations.size(), 3u);
  EXPECT_EQ(a.activations[0].kind, RnnActivation::Sigmoid);
  EXPECT_EQ(a.activations[2].kind, RnnActivation::Tanh);
  EXPECT_EQ(out_type(g, 0).to_string(), "float32[3x1x1x2]");
  EXPECT_EQ(out_type(g, 1).to_string(), "float32[1x1x2]");

  // alpha/beta go, in order, to the activations that take them; the rest default.
  Model m(14);
  auto& n = add_lstm(m, true);
  set_int(n, "hidden_size", 2);
  set_strings(n, "activations",
              {"HardSigmoid", "tanh", "LeakyRelu", "Affine", "ScaledTanh", "Elu"});
  set_floats(n, "activation_alpha", {0.3f, 0.05f, 2.0f});
  set_floats(n, "activation_beta", {0.6f});
  set_float(n, "clip", 4.0f);
  set_int(n, "input_forget", 1);
  const Graph gm = m.import();
  const auto& b = only_node(gm).attr<RecurrentAttrs>();
  EXPECT_EQ(b.direction, RnnDirection::Bidirectional);
  EXPECT_EQ(b.clip, 4.0f);
  EXPECT_TRUE(b.input_forget);
  const std::vector<RnnActivationFn> want = {
      {RnnActivation::HardSigmoid, 0.3f, 0.6f}, {RnnActivation::Tanh, 0.0f, 0.0f},
      {RnnActivation::LeakyRelu, 0.05f, 0.0f},  {RnnActivation::Affine, 2.0f, 0.0f},
      {RnnActivation::ScaledTanh, 1.0f, 1.0f},  {RnnActivation::Elu, 1.0f, 0.0f}};
  EXPECT_EQ(b.activations, want);
  EXPECT_EQ(out_type(gm, 0).to_string(), "float32[3x2x1x2]");

  // One direction's list serves both directions.
  Model both(14);
  set_strings(add_lstm(both, true), "activations", {"Sigmoid", "Relu", "Softsign"});
  const auto& c = only_node(both.import()).attr<RecurrentAttrs>();
  ASSERT_EQ(c.activations.size(), 6u);
  EXPECT_EQ(c.activations[4].kind, RnnActivation::Relu);
}

TEST(ImportRecurrent, LayoutOutputsAndRefusals) {
  // layout=1 (opset 14): X [batch, seq, input], Y [batch, seq, dirs, hidden];
  // Y omitted (empty name) while Y_c is used.
  Model m(14);
  m.input("x", {1, 3, 2}).init("w", ones({1, 8, 2})).init("r", ones({1, 8, 2}));
  auto& n = m.node("LSTM", {"x", "w", "r"}, {"", "yh", "yc"}, "lstm");
  set_int(n, "layout", 1);
  m.output("yc");
  const Graph g = m.import();
  EXPECT_TRUE(only_node(g).attr<RecurrentAttrs>().batch_first);
  EXPECT_EQ(out_type(g).to_string(), "float32[1x1x2]");
  std::vector<float> x = {0.5f, -1, 2, 0, 1, 1};
  const std::vector<Tensor> out = ref::Interpreter(g).run({floats({1, 3, 2}, x)});
  EXPECT_EQ(out.at(0).shape(), (Shape{1, 1, 2}));

  Model bad_size(14);
  set_int(add_lstm(bad_size, false), "hidden_size", 3);  // W is for 2
  const Error e = bad_size.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_NE(std::string(e.what()).find("hidden_size 3"), std::string::npos) << e.what();

  Model bad_act(14);
  set_strings(add_lstm(bad_act, false), "activations", {"Sigmoid", "Gelu", "Tanh"});
  const Error u = bad_act.import_error();
  EXPECT_EQ(u.kind(), ErrorKind::Unsupported);
  EXPECT_NE(std::string(u.what()).find("activation 'Gelu'"), std::string::npos) << u.what();

  Model bad_count(14);
  set_strings(add_lstm(bad_count, true), "activations", {"Sigmoid", "Tanh"});
  EXPECT_EQ(bad_count.import_error().kind(), ErrorKind::InvalidModel);

  Model bad_dir(14);
  set_string(add_lstm(bad_dir, false), "direction", "sideways");
  EXPECT_EQ(bad_dir.import_error().kind(), ErrorKind::InvalidModel);

  // GRU: linear_before_reset; RNN: the schema's default list of two Tanh.
  Model gru(14);
  gru.input("x", {3, 1, 2}).init("w", ones({1, 6, 2})).init("r", ones({1, 6, 2}));
  set_int(gru.node("GRU", {"x", "w", "r"}, {"y"}, "gru"), "linear_before_reset", 1);
  gru.output("y");
  EXPECT_TRUE(only_node(gru.import()).attr<RecurrentAttrs>().linear_before_reset);
  Model rnn(14);
  rnn.input("x", {3, 1, 2}).init("w", ones({1, 2, 2})).init("r", ones({1, 2, 2}));
  set_strings(rnn.node("RNN", {"x", "w", "r"}, {"y"}, "rnn"), "activations", {"Tanh", "Tanh"});
  rnn.output("y");
  EXPECT_EQ(only_node(rnn.import()).attr<RecurrentAttrs>().activations.size(), 1u);
}

TEST(Import, Domains) {
  Model undeclared(13);
  undeclared.input("x", {2});
  auto& n = undeclared.node("FusedGemm", {"x"}, {"y"}, "fg");
  n.set_domain("com.microsoft");
  undeclared.output("y");
  Error e = undeclared.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "unknown domain");

  Model declared = undeclared;
  auto* o = declared.proto().add_opset_import();
  o->set_domain("com.microsoft");
  o->set_version(1);
  e = declared.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_CONTAINS(e.message(), "FusedGemm");
  EXPECT_CONTAINS(e.message(), "com.microsoft");
  EXPECT_CONTAINS(e.message(), "'fg'");

  // ai.onnx is the default domain by its other name.
  Model named(13);
  named.input("x", {2});
  named.node("Relu", {"x"}, {"y"}, "r").set_domain("ai.onnx");
  named.output("y");
  EXPECT_EQ(only_node(named.import()).kind, OpKind::Relu);
}

// ---- QONNX's quantizers (domain qonnx.custom_op.general, FINN's old name too)

// A model of the default domain at opset 13 and, if `qonnx_opset` > 0, the
// QONNX domain under the name `domain`.
Model qonnx_model(int64_t qonnx_opset, const std::string& domain = "qonnx.custom_op.general") {
  Model m(13);
  if (qonnx_opset > 0) {
    auto* o = m.proto().add_opset_import();
    o->set_domain(domain);
    o->set_version(qonnx_opset);
  }
  return m;
}

// x [2, 3] -> Quant(x, scale 0.5, zeropt 0, bitwidth) -> y.
::onnx::NodeProto& quant_node(Model& m, const std::string& domain, const Tensor& bitwidth,
                              const std::string& op = "Quant") {
  m.input("x", {2, 3})
      .init("s", Tensor::scalar(0.5f))
      .init("z", Tensor::scalar(0.0f))
      .init("b", bitwidth);
  auto& n = m.node(op, {"x", "s", "z", "b"}, {"y"}, "q");
  n.set_domain(domain);
  m.output("y");
  return n;
}

TEST(ImportQonnx, QuantReadsItsAttributesAndBitWidth) {
  Model m = qonnx_model(1);
  auto& n = quant_node(m, "qonnx.custom_op.general", Tensor::scalar(3.0f));
  set_int(n, "signed", 0);
  set_int(n, "narrow", 1);
  set_string(n, "rounding_mode", "floor");  // QONNX accepts either case
  const Graph g = m.import();
  const Node& q = only_node(g);
  ASSERT_EQ(q.kind, OpKind::Quant);
  EXPECT_EQ(q.inputs.size(), 3u);  // the bit width became an attribute
  EXPECT_EQ(q.attr<IntQuantAttrs>(), (IntQuantAttrs{3, false, true, RoundingMode::Floor}));
  EXPECT_EQ(out_type(g).to_string(), "float32[2x3]");
  // Unsigned narrow 3-bit: [0, 6]; x / 0.5 floored.
  EXPECT_EQ(run_one(g, floats({2, 3}, {-1, 0.7f, 1.2f, 2.9f, 3.5f, 9})),
            (std::vector<float>{0, 0.5f, 1, 2.5f, 3, 3}));
}

TEST(ImportQonnx, DefaultsOtherDomainNamesAndIntQuant) {
  // Defaults: signed, not narrow, ROUND; bitwidth as int64. FINN's domain
  // name and QONNX's new op name IntQuant read the same.
  Model m = qonnx_model(1, "finn.custom_op.general");
  quant_node(m, "finn.custom_op.general", Tensor::scalar<int64_t>(4), "IntQuant");
  const Graph g = m.import();
  const Node& q = only_node(g);
  EXPECT_EQ(q.kind, OpKind::Quant);
  EXPECT_EQ(q.attr<IntQuantAttrs>(), (IntQuantAttrs{4, true, false, RoundingMode::Round}));
  // No opset_import for the domain: QONNX's own fallback, opset 1.
  Model undeclared = qonnx_model(0);
  quant_node(undeclared, "qonnx.custom_op.general", Tensor::scalar(2.0f));
  EXPECT_EQ(only_node(undeclared.import()).attr<IntQuantAttrs>().bitwidth, 2);
}

TEST(ImportQonnx, BipolarQuantAndFoldedWeights) {
  Model m = qonnx_model(1);
  m.input("x", {3}).init("s", Tensor::scalar(0.25f)).init("w", floats({3}, {2, 0, -0.1f}));
  m.node("BipolarQuant", {"x", "s"}, {"y"}, "bq").set_domain("qonnx.custom_op.general");
  // Quantized weights, as Brevitas exports them: folded to a constant at import.
  m.node("BipolarQuant", {"w", "s"}, {"wq"}, "wq").set_domain("qonnx.custom_op.general");
  m.node("Mul", {"y", "wq"}, {"out"}, "mul");
  m.output("out");
  const Graph g = m.import();
  ASSERT_EQ(g.nodes().size(), 2u);
  EXPECT_EQ(kiln::testing::node_at(g, 0).kind, OpKind::BipolarQuant);
  // y = (-1, 1, 1) / 4 (0 is +1), wq = (1, 1, -1) / 4.
  EXPECT_EQ(run_one(g, floats({3}, {-5, 3, 0})), (std::vector<float>{-0.0625f, 0.0625f, -0.0625f}));
}

TEST(ImportQonnx, TruncFormFollowsTheQonnxOpset) {
  // Opset 1: X, scale, zeropt, in_bitwidth, out_bitwidth.
  Model v1 = qonnx_model(1);
  v1.input("x", {2})
      .init("s", Tensor::scalar(1.0f))
      .init("z", Tensor::scalar(0.0f))
      .init("bi", Tensor::scalar(8.0f))
      .init("bo", Tensor::scalar(4.0f))
      .init("os", Tensor::scalar(16.0f));
  v1.node("Trunc", {"x", "s", "z", "bi", "bo"}, {"y"}, "t").set_domain("qonnx.custom_op.general");
  v1.output("y");
  const Graph g1 = v1.import();
  EXPECT_EQ(only_node(g1).attr<TruncAttrs>(),
            (TruncAttrs{1, 8, 4, true, false, RoundingMode::Floor}));
  EXPECT_EQ(run_one(g1, floats({2}, {37, -37})), (std::vector<float>{2, -3}));
  // Opset 2: out_scale before out_bitwidth, signed/narrow attributes, clipping.
  Model v2 = v1;
  v2.proto().mutable_opset_import(1)->set_version(2);
  auto& t2 = *v2.g().mutable_node(0);
  t2.clear_input();
  for (const char* in : {"x", "s", "z", "bi", "os", "bo"}) t2.add_input(in);
  set_int(t2, "signed", 0);
  set_string(t2, "rounding_mode", "ROUND");
  const Graph g2 = v2.import();
  EXPECT_EQ(only_node(g2).inputs.size(), 4u);
  EXPECT_EQ(only_node(g2).attr<TruncAttrs>(),
            (TruncAttrs{2, 8, 4, false, false, RoundingMode::Round}));
  // t = 16: 37 / 16 = 2.3125 -> 2 -> 32; 300 / 16 clips at 15 -> 240; -37 clips at 0.
  EXPECT_EQ(run_one(g2, floats({2}, {37, 300})), (std::vector<float>{32, 240}));
  EXPECT_EQ(run_one(g2, floats({2}, {-37, 0})), (std::vector<float>{0, 0}));
  // Each opset's input count is checked: opset 1 with opset 2's six inputs.
  Model wrong = v2;
  wrong.proto().mutable_opset_import(1)->set_version(1);
  const Error e = wrong.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "Trunc of QONNX opset 1 takes 5 inputs, got 6");
}

TEST(ImportQonnx, BadQuantizersAreCleanErrors) {
  const auto error_of = [](const Tensor& bitwidth, const std::string& rounding = "ROUND") {
    Model m = qonnx_model(1);
    set_string(quant_node(m, "qonnx.custom_op.general", bitwidth), "rounding_mode", rounding);
    return m.import_error();
  };
  Error e = error_of(Tensor::scalar(0.0f));
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "bitwidth 0 must be at least 1");
  e = error_of(Tensor::scalar(2.5f));
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "bitwidth 2.5 is not a whole number of bits");
  e = error_of(Tensor::scalar(65.0f));
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_CONTAINS(e.message(), "bitwidth 65 is above kiln's limit of 64");
  e = error_of(floats({2}, {4, 4}));
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "'bitwidth' must be a scalar");
  e = error_of(Tensor::scalar(4.0f), "SIDEWAYS");
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "unknown rounding_mode 'SIDEWAYS'");
  // A bit width computed at run time.
  Model runtime = qonnx_model(1);
  runtime.input("x", {2, 3}).input("b", {}).init("s", Tensor::scalar(0.5f));
  runtime.init("z", Tensor::scalar(0.0f));
  runtime.node("Quant", {"x", "s", "z", "b"}, {"y"}, "q").set_domain("qonnx.custom_op.general");
  runtime.output("y");
  e = runtime.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_CONTAINS(e.message(), "Quant with non-constant bitwidth: kiln reads bit widths at import");
  // A scale that does not broadcast to X.
  Model scales = qonnx_model(1);
  quant_node(scales, "qonnx.custom_op.general", Tensor::scalar(4.0f));
  tensor_to_proto(floats({2}, {1, 1}), "s", scales.g().mutable_initializer(0));
  e = scales.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "does not broadcast to X");
}

TEST(ImportQonnx, DomainsAndOpsetsKilnDoesNotRead) {
  // Another QONNX op: unsupported, naming the op, the domain and what kiln reads.
  Model other = qonnx_model(1);
  other.input("x", {2});
  other.node("MultiThreshold", {"x"}, {"y"}, "mt").set_domain("qonnx.custom_op.general");
  other.output("y");
  Error e = other.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_CONTAINS(e.message(), "op MultiThreshold of domain 'qonnx.custom_op.general'");
  EXPECT_CONTAINS(e.message(), "Quant, IntQuant, BipolarQuant, Trunc");
  // Quant in a declared domain that is not QONNX's, and in the default domain.
  Model foreign = qonnx_model(1, "com.example");
  quant_node(foreign, "com.example", Tensor::scalar(4.0f));
  e = foreign.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_CONTAINS(e.message(), "op Quant of domain 'com.example' is not supported by kiln");
  Model plain = qonnx_model(1);
  quant_node(plain, "", Tensor::scalar(4.0f));
  e = plain.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_CONTAINS(e.message(), "op Quant is not supported by kiln");
  // QONNX opsets: 3 does not exist yet, 0 never did.
  Model newer = qonnx_model(3);
  quant_node(newer, "qonnx.custom_op.general", Tensor::scalar(4.0f));
  e = newer.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_CONTAINS(e.message(), "QONNX opset 3 is newer than kiln reads (1 to 2)");
  Model zero = qonnx_model(0);
  zero.proto().add_opset_import()->set_domain("finn.custom_op.general");
  quant_node(zero, "finn.custom_op.general", Tensor::scalar(4.0f));
  EXPECT_EQ(zero.import_error().kind(), ErrorKind::InvalidModel);
}

// --- graph structure errors -----------------------------------------------------------

TEST(Import, UnsupportedOpMessage) {
  Model m(13);
  m.input("x", {2});
  m.node("Relu", {"x"}, {"r"}, "ok");
  m.node("Foo", {"r"}, {"y"}, "X");
  m.output("y");
  const Error e = m.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_EQ(e.message(),
            "test.onnx: node 'X': op Foo is not supported by kiln; the supported ops are listed in "
            "docs/ops.md");
}

TEST(Import, MissingInitializerNamesNodeAndInput) {
  Model m(13);
  m.input("x", {1, 1, 4, 4});
  m.node("Conv", {"x", "w"}, {"y"}, "conv1");
  m.output("y");
  const Error e = m.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(),
                  "input 'w' of node 'conv1' is not produced by any node, initializer or graph "
                  "input");
}

TEST(Import, CycleIsRejectedAndUnsortedNodesAreSorted) {
  Model cyc(13);
  cyc.input("x", {2});
  cyc.node("Add", {"x", "b"}, {"a"}, "first");
  cyc.node("Relu", {"a"}, {"b"}, "second");
  cyc.node("Relu", {"x"}, {"y"}, "bystander");
  cyc.output("y");
  const Error e = cyc.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "cycle");
  EXPECT_TRUE(e.message().find("'first'") != std::string::npos ||
              e.message().find("'second'") != std::string::npos)
      << e.message();

  Model unsorted(13);
  unsorted.input("x", {2});
  unsorted.node("Neg", {"r"}, {"y"}, "late");
  unsorted.node("Relu", {"x"}, {"r"}, "early");
  unsorted.output("y");
  const Graph g = unsorted.import();
  ASSERT_EQ(g.nodes().size(), 2u);
  EXPECT_EQ(kiln::testing::node_at(g, 0).onnx_name, "early");
  EXPECT_EQ(kiln::testing::node_at(g, 1).onnx_name, "late");
}

TEST(Import, ValueInfoDisagreementNamesNode) {
  Model m(13);
  m.input("x", {1, 1, 30, 30}).init("w", ones({6, 1, 3, 3}));
  m.node("Conv", {"x", "w"}, {"c"}, "conv1");
  m.node("Relu", {"c"}, {"y"}, "relu");
  m.value_info("c", {1, 6, 27, 27});
  m.output("y");
  const Error e = m.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(),
                  "node 'conv1' output 'c': inferred float32[1x6x28x28] but the model declares "
                  "float32[1x6x27x27]");

  // Symbolic declared dims, unknown element type and missing shape constrain nothing.
  Model ok(13);
  ok.input("x", {1, 1, 30, 30}).init("w", ones({6, 1, 3, 3}));
  ok.node("Conv", {"x", "w"}, {"c"}, "conv1");
  ok.node("Relu", {"c"}, {"y"}, "relu");
  ok.value_info("c", {kSym, 6, kSym, 28});
  ok.output("y", {}, 0);
  ok.g().mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  EXPECT_EQ(out_type(ok.import()).to_string(), "float32[1x6x28x28]");

  Model dtype(13);
  dtype.input("x", {2});
  dtype.node("Relu", {"x"}, {"y"}, "relu");
  dtype.output("y", {2}, TP::INT32);
  EXPECT_CONTAINS(dtype.import_error().message(), "declares int32[2]");
}

TEST(Import, GraphOutputMayBeAnInput) {
  Model m(13);
  m.input("x", {2});
  m.output("x");
  const Graph g = m.import();
  EXPECT_TRUE(g.nodes().empty());
  EXPECT_EQ(g.outputs[0], g.inputs[0]);

  Model missing(13);
  missing.input("x", {2});
  missing.output("nowhere");
  EXPECT_EQ(missing.import_error().kind(), ErrorKind::InvalidModel);
}

TEST(Import, TrainingModeIsUnsupported) {
  Model bn(15);
  bn.input("x", {1, 2, 3})
      .init("s", ones({2}))
      .init("b", ones({2}))
      .init("m", ones({2}))
      .init("v", ones({2}));
  bn.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm", "rv"}, "bn");
  bn.output("y");
  Error e = bn.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_CONTAINS(e.message(), "training mode");

  Model drop(13);
  drop.input("x", {2}).init("t", Tensor::scalar<bool>(true));
  drop.node("Dropout", {"x", "", "t"}, {"y"}, "d");
  drop.output("y");
  EXPECT_EQ(drop.import_error().kind(), ErrorKind::Unsupported);

  // Inference-mode Dropout imports; its mask is bool.
  Model inf(13);
  inf.input("x", {2}).init("t", Tensor::scalar<bool>(false));
  inf.node("Dropout", {"x", "", "t"}, {"y", "mask"}, "d");
  inf.output("y").output("mask");
  const Graph g = inf.import();
  EXPECT_EQ(only_node(g).kind, OpKind::Dropout);
  EXPECT_EQ(out_type(g, 1).to_string(), "bool[2]");
}

// --- inputs and shapes -------------------------------------------------------------------

TEST(Import, BatchAndInputShapes) {
  auto make = [] {
    Model m(13);
    m.input("img", {kSym, 3, 4}).input("aux", {5, 2});
    m.node("Relu", {"img"}, {"y"}, "r");
    m.node("Relu", {"aux"}, {"z"}, "r2");
    m.output("y", {kSym, 3, 4}).output("z", {5, 2});
    return m;
  };
  Graph g = make().import();
  EXPECT_EQ(g.value(g.inputs[0]).type.shape, (Shape{1, 3, 4}));
  EXPECT_EQ(g.value(g.inputs[1]).type.shape, (Shape{5, 2}));

  ImportOptions batch;
  batch.batch = 4;
  g = make().import(batch);  // the fixed declared output 5x2 no longer binds
  EXPECT_EQ(g.value(g.inputs[0]).type.shape, (Shape{4, 3, 4}));
  EXPECT_EQ(g.value(g.inputs[1]).type.shape, (Shape{4, 2}));
  EXPECT_EQ(out_type(g, 1).shape, (Shape{4, 2}));

  ImportOptions shapes;
  shapes.batch = 4;
  shapes.input_shapes["img"] = {2, 3, 9};
  g = make().import(shapes);
  EXPECT_EQ(g.value(g.inputs[0]).type.shape, (Shape{2, 3, 9}));

  ImportOptions unknown;
  unknown.input_shapes["image"] = {1, 3, 4};
  Error e = make().import_error(unknown);
  EXPECT_EQ(e.kind(), ErrorKind::Usage);
  EXPECT_CONTAINS(e.message(), "'img', 'aux'");

  ImportOptions rank;
  rank.input_shapes["img"] = {1, 3};
  EXPECT_EQ(make().import_error(rank).kind(), ErrorKind::Usage);

  Model sym(13);
  sym.input("x", {1, kSym});
  sym.node("Relu", {"x"}, {"y"}, "r");
  sym.output("y");
  e = sym.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::Usage);
  EXPECT_CONTAINS(e.message(), "--input-shape x=");
  ImportOptions fix;
  fix.input_shapes["x"] = {1, 7};
  EXPECT_EQ(out_type(sym.import(fix)).shape, (Shape{1, 7}));
}

TEST(Import, AbsurdAndUnsupportedInputs) {
  Model huge(13);
  huge.input("x", {100000, 100000, 100000});
  huge.node("Relu", {"x"}, {"y"}, "r");
  huge.output("y");
  Error e = huge.import_error();
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "input 'x'");

  Model half(13);
  half.input("x", {2}, TP::FLOAT16);
  half.node("Relu", {"x"}, {"y"}, "r");
  half.output("y");
  EXPECT_EQ(half.import_error().kind(), ErrorKind::Unsupported);

  Model seq(13);
  auto* in = seq.g().add_input();
  in->set_name("s");
  in->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(TP::FLOAT);
  seq.output("s");
  EXPECT_EQ(seq.import_error().kind(), ErrorKind::Unsupported);
}

TEST(Import, ParseShape) {
  EXPECT_EQ(parse_shape("1x3x224x224", "s"), (Shape{1, 3, 224, 224}));
  EXPECT_EQ(parse_shape("1,3,5", "s"), (Shape{1, 3, 5}));
  EXPECT_EQ(parse_shape("7", "s"), (Shape{7}));
  for (const char* bad : {"", "1x", "x1", "1xx2", "1x-2", "a", "1x3 ", "99999999999x99999999999"})
    EXPECT_EQ(catch_error([&] { parse_shape(bad, "--input-shape"); }).kind(), ErrorKind::Usage)
        << bad;
}

// --- files ------------------------------------------------------------------------------

TEST(ImportFile, ExternalDataRoundTrip) {
  TempDir dir;
  Model m(13);
  m.input("x", {2, 2});
  m.node("Add", {"x", "w"}, {"y"}, "add");
  m.output("y");
  TP* w = m.g().add_initializer();
  w->set_name("w");
  w->set_data_type(TP::FLOAT);
  w->add_dims(2);
  w->add_dims(2);
  w->set_data_location(TP::EXTERNAL);
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"location", "weights.bin"}, {"offset", "4"}, {"length", "16"}}) {
    auto* kv = w->add_external_data();
    kv->set_key(k);
    kv->set_value(v);
  }
  const float vals[4] = {1.0f, 2.0f, 3.0f, 4.5f};
  write_bytes(dir.path() / "weights.bin",
              "skip" + std::string(reinterpret_cast<const char*>(vals), sizeof vals));
  write_bytes(dir.path() / "model.onnx", m.proto().SerializeAsString());
  const Graph g = import_model(dir.path() / "model.onnx");
  const Tensor* t = g.constant(only_node(g).inputs[1]);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->data<float>()[3], 4.5f);

  // A missing external file is an invalid model naming the tensor.
  fs::remove(dir.path() / "weights.bin");
  const Error e = catch_error([&] { import_model(dir.path() / "model.onnx"); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "model.onnx");
  EXPECT_CONTAINS(e.message(), "'w'");
}

TEST(ImportFile, BadFiles) {
  TempDir dir;
  Model m(13);
  m.input("x", {4}).init("w", Tensor::from_vector<float>({4}, {1, 2, 3, 4}));
  m.node("Add", {"x", "w"}, {"y"}, "add");
  m.output("y");
  const std::string good = m.proto().SerializeAsString();
  write_bytes(dir.path() / "good.onnx", good);
  EXPECT_EQ(import_model(dir.path() / "good.onnx").nodes().size(), 1u);

  // Every proper prefix of the file is rejected cleanly.
  for (std::size_t len = 0; len < good.size(); len += 3) {
    write_bytes(dir.path() / "cut.onnx", good.substr(0, len));
    const Error e = catch_error([&] { import_model(dir.path() / "cut.onnx"); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel) << len << ": " << e.message();
  }
  write_bytes(dir.path() / "garbage.onnx", std::string("\x0f\xff\xfe garbage \x01\x02", 14));
  Error e = catch_error([&] { import_model(dir.path() / "garbage.onnx"); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "not an ONNX model");

  // A TensorProto parses as a ModelProto with no graph.
  write_tensor_pb(dir.path() / "tensor.pb", Tensor::from_vector<float>({2}, {1, 2}), "t");
  e = catch_error([&] { import_model(dir.path() / "tensor.pb"); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "not an ONNX model");

  EXPECT_EQ(catch_error([&] { import_model(dir.path() / "missing.onnx"); }).kind(), ErrorKind::Io);
}

// Corrupted files never crash the importer or trip an internal assertion.
TEST(ImportFile, MutatedModelsFailCleanly) {
  Model m(11);
  m.input("x", {1, 2, 6, 6}).init("w", ones({3, 2, 3, 3})).init("shape", ints({1, -1}));
  auto& conv = m.node("Conv", {"x", "w"}, {"c"}, "conv");
  set_ints(conv, "pads", {1, 1, 1, 1});
  set_string(conv, "auto_pad", "NOTSET");
  auto& pool = m.node("MaxPool", {"c"}, {"p"}, "pool");
  set_ints(pool, "kernel_shape", {2, 2});
  set_ints(pool, "strides", {2, 2});
  m.node("Shape", {"p"}, {"s"}, "shape");
  m.node("Reshape", {"p", "shape"}, {"r"}, "reshape");
  set_int(m.node("Softmax", {"r"}, {"y"}, "softmax"), "axis", 1);
  m.output("y").output("s");
  const std::string good = m.proto().SerializeAsString();
  ::onnx::ModelProto check;
  ASSERT_TRUE(check.ParseFromString(good));
  EXPECT_EQ(import_model_proto(check, {}, {}).nodes().size(), 4u);

  uint32_t state = 12345;  // deterministic LCG: reproducible failures
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  int parsed = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string bytes = good;
    for (uint32_t k = 0, n = 1 + next() % 4; k < n; ++k) {
      const std::size_t pos = next() % bytes.size();
      bytes[pos] = static_cast<char>(next() % 3 == 0 ? next() : bytes[pos] ^ (1u << (next() % 8)));
    }
    ::onnx::ModelProto mutated;
    if (!mutated.ParseFromString(bytes)) continue;
    ++parsed;
    try {
      import_model_proto(mutated, fs::temp_directory_path(), {});
    } catch (const Error& e) {
      ASSERT_NE(e.kind(), ErrorKind::Internal) << "iteration " << iter << ": " << e.message();
    }
  }
  EXPECT_GT(parsed, 100);
}

// --- the conformance corpus -----------------------------------------------------------------

const fs::path kCorpus = "/usr/share/libonnx-testdata/data";

TEST(ImportCorpus, SmokeModels) {
  if (!fs::exists(kCorpus)) GTEST_SKIP() << "libonnx-testdata not installed";
  Graph g = import_model(kCorpus / "node/test_conv_with_strides_padding/model.onnx");
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(kiln::testing::node_at(g, 0).attr<ConvAttrs>().pads,
            (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(out_type(g).to_string(), "float32[1x1x4x3]");

  g = import_model(kCorpus / "pytorch-converted/test_Conv2d/model.onnx");
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(kiln::testing::node_at(g, 0).kind, OpKind::Conv);
  EXPECT_EQ(g.inputs.size(), 1u);  // weights are initializers

  // Opset 6 legacy broadcast of a [3] operand at axis 1 of [2x3].
  g = import_model(kCorpus / "pytorch-operator/test_operator_add_broadcast/model.onnx");
  EXPECT_EQ(out_type(g).to_string(), "float64[2x3]");
}

// Every valid corpus model is imported or rejected as unsupported, never as invalid.
TEST(ImportCorpus, EveryModelImportsOrIsUnsupported) {
  if (!fs::exists(kCorpus)) GTEST_SKIP() << "libonnx-testdata not installed";
  int imported = 0, unsupported = 0;
  std::string failures;
  for (const auto& suite : fs::directory_iterator(kCorpus)) {
    for (const auto& test : fs::directory_iterator(suite.path())) {
      const fs::path model = test.path() / "model.onnx";
      if (!fs::exists(model)) continue;
      try {
        import_model(model);
        ++imported;
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::Unsupported) {
          ++unsupported;
        } else {
          failures += e.message() + "\n";
        }
      }
    }
  }
  EXPECT_EQ(failures, "");
  EXPECT_GT(imported, 300);
  RecordProperty("imported", imported);
  RecordProperty("unsupported", unsupported);
  std::printf("corpus: %d imported, %d unsupported\n", imported, unsupported);
}

}  // namespace
}  // namespace kiln::onnx_import
