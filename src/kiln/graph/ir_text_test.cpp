// The graph IR text: printing, parsing, round trips, and one expected-error
// case per rule the parser checks (in the spirit of CIRCT's *-errors.mlir).
#include "kiln/graph/ir_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include "kiln/support/testing/test_helpers.h"

namespace kiln {
namespace {

using testing::catch_error;

constexpr DType F32 = DType::Float32;

TensorType f32(Shape s) {
  return TensorType{F32, std::move(s)};
}

// Parses `text`, prints it again with every constant inline, and expects the
// same text: the canonical form round-trips exactly.
void expect_round_trip(const std::string& text) {
  const Graph g = parse_ir(text, "test.kir");
  IrWriteOptions o;
  o.large = IrWriteOptions::Large::Inline;
  EXPECT_EQ(print_ir(g, o).text, text);
}

// Parses `text` and returns the InvalidModel message it must produce.
std::string parse_error(const std::string& text) {
  const Error e = catch_error([&] { parse_ir(text, "bad.kir"); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel) << e.message();
  return e.message();
}

const std::string kHeader = "kir 1\ngraph \"t\" opset 13\n";

TEST(IrText, PrintsABuiltGraph) {
  Graph g;
  g.name = "tiny";
  g.opset = 13;
  ValueId x = g.add_value("x", f32({1, 2, 4, 4}));
  ValueId w = g.add_constant("w", Tensor::from_vector<float>({3, 2, 1, 1}, {1, 2, 3, 4, 5, 6}));
  g.add_constant("unused", Tensor(F32, {16}));
  ValueId lo = g.add_constant("lo", Tensor::scalar<float>(0.5f));
  ValueId y = g.add_value("y", f32({1, 3, 4, 4}));
  ValueId z = g.add_value("z.1", f32({1, 3, 4, 4}));
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
      "kir 1\n"
      "graph \"tiny\" opset 13\n"
      "input %x \"x\": float32[1x2x4x4]\n"
      "const %w \"w\": float32[3x2x1x1] = [1,2,3,4,5,6]\n"
      "const %lo \"lo\": float32[] = 0.5\n"
      "%y \"y\": float32[1x3x4x4] = Conv(%x, %w, _) {kernel_shape=[1,1] strides=[1,1] "
      "pads=[0,0,0,0] dilations=[1,1]} @conv1 \"conv1\"\n"
      "%z_1 \"z.1\": float32[1x3x4x4] = Clip(%y, %lo) @Clip\n"
      "%p \"p\": float32[1x3x2x2], _ = MaxPool(%z_1) {kernel_shape=[2,2] strides=[2,2] "
      "pads=[0,0,0,0] dilations=[1,1]} @pool \"pool\"\n"
      "output %p\n";
  EXPECT_EQ(print_graph(g), expected);
  expect_round_trip(expected);
}

TEST(IrText, ConstantValuesReadBackExactly) {
  const std::string text = kHeader +
                           "const %i: int64[2] = [3,-1]\n"
                           "const %flag: bool[] = true\n"
                           "const %u: uint64[] = 18446744073709551615\n"
                           "const %third: float32[] = 0.33333334\n"
                           "const %d: float64[3] = [0.1,-1e-300,1.7976931348623157e+308]\n"
                           "const %specials: float32[3] = [nan,inf,-inf]\n"
                           "const %empty: float32[0] = []\n"
                           "%s: float32[3] = Add(%specials, %third) @add\n"
                           "output %i\noutput %flag\noutput %u\noutput %d\noutput %s\noutput "
                           "%empty\n";
  expect_round_trip(text);
  const Graph g = parse_ir(text, "t.kir");
  EXPECT_EQ(g.constant(g.outputs[2])->data<uint64_t>()[0], std::numeric_limits<uint64_t>::max());
  // The shortest text of 1/3f reads back as that float, not a neighbour.
  ValueId third;
  for (std::size_t i = 0; i < g.num_values(); ++i)
    if (g.value(ValueId{static_cast<int32_t>(i)}).name == "third")
      third = ValueId{static_cast<int32_t>(i)};
  EXPECT_EQ(g.constant(third)->data<float>()[0], 1.0f / 3.0f);
}

TEST(IrText, TypesMayBeLeftOutAndAreInferred) {
  const Graph g = parse_ir(kHeader +
                               "input %x: float32[2x3]\n"
                               "%y = Transpose(%x) {perm=[1,0]}\n"
                               "%z = Relu(%y)\n"
                               "output %z\n",
                           "t.kir");
  EXPECT_EQ(g.value(g.outputs[0]).type, f32({3, 2}));
  // Nodes without @names get the names Graph::add_node gives.
  EXPECT_NE(print_graph(g).find("@Relu"), std::string::npos);
}

TEST(IrText, AttributesAtTheirDefaultsAreLeftOut) {
  const Graph g = parse_ir(kHeader +
                               "input %x: float32[4]\n"
                               "%y = LeakyRelu(%x)\n"
                               "%z = LeakyRelu(%y) {alpha=0.25}\n"
                               "output %z\n",
                           "t.kir");
  const std::string text = print_graph(g);
  EXPECT_NE(text.find("= LeakyRelu(%x) @"), std::string::npos) << text;
  EXPECT_NE(text.find("{alpha=0.25}"), std::string::npos) << text;
  std::vector<float> alphas;
  for (const Node& n : g.nodes()) alphas.push_back(n.attr<LeakyReluAttrs>().alpha);
  EXPECT_EQ(alphas, (std::vector<float>{0.01f, 0.25f}));
}

TEST(IrText, NestedStructsAndEnums) {
  const std::string text =
      kHeader +
      "input %x: float32[1x1x3x3]\n"
      "const %w: float32[1x1x1x1] = [2]\n"
      "%y: float32[1x1x3x3] = Conv(%x, %w) {kernel_shape=[1,1] "
      "strides=[1,1] pads=[0,0,0,0] dilations=[1,1] activation={kind=clip "
      "lo=-1 hi=inf}} @c\n"
      "%p: float32[1x1x5x5] = Pad(%y) {pads=[0,0,1,1,0,0,1,1] mode=edge} @pad\n"
      "%q: int32[1x1x5x5] = Cast(%p) {to=int32} @cast\n"
      "output %q\n";
  expect_round_trip(text);
  const Graph g = parse_ir(text, "t.kir");
  int convs = 0;
  for (const Node& n : g.nodes())
    if (n.kind == OpKind::Conv) {
      ++convs;
      EXPECT_EQ(n.attr<ConvAttrs>().activation.kind, FusedActivation::Kind::Clip);
      EXPECT_TRUE(std::isinf(n.attr<ConvAttrs>().activation.hi));
    }
  EXPECT_EQ(convs, 1);
}

TEST(IrText, RecurrentActivationsWithParameters) {
  const std::string text =
      kHeader +
      "input %x: float32[2x1x1]\n"
      "const %w: float32[2x1x1] = [1,2]\n"
      "const %r: float32[2x1x1] = [0,0.5]\n"
      "%y: float32[2x2x1x1], %h: float32[2x1x1] = RNN(%x, %w, %r) {direction=bidirectional "
      "hidden_size=1 activations=[leaky_relu(0.5,0),scaled_tanh(-2,0.25)] clip=3} @rnn\n"
      "output %h\n";
  expect_round_trip(text);
  const Graph g = parse_ir(text, "t.kir");
  const auto& a = g.node(g.first_node()).attr<RecurrentAttrs>();
  const std::vector<RnnActivationFn> want = {{RnnActivation::LeakyRelu, 0.5f, 0.0f},
                                             {RnnActivation::ScaledTanh, -2.0f, 0.25f}};
  EXPECT_EQ(a.activations, want);
  EXPECT_EQ(a.direction, RnnDirection::Bidirectional);
  EXPECT_NE(parse_error(kHeader + "input %x: float32[2x1x1]\n"
                                  "const %w: float32[1x1x1] = [1]\n"
                                  "%y = RNN(%x, %w, %w) {hidden_size=1 activations=[gelu]} @r\n"
                                  "output %y\n")
                .find("'gelu' is not one of"),
            std::string::npos);
}

TEST(IrText, LargeConstantsGoToTheDataFileAndBack) {
  testing::TempDir dir;
  Graph g;
  g.name = "big";
  g.opset = 17;
  ValueId x = g.add_value("x", f32({40}));
  std::vector<float> v(40);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.1f * static_cast<float>(i) - 1.7f;
  ValueId w = g.add_constant("w", Tensor::from_vector<float>({40}, v));
  ValueId y = g.add_value("y", f32({40}));
  g.inputs = {x};
  g.outputs = {y};
  g.add_node(OpKind::Add, "add", {x, w}, {y});
  const auto path = dir / "m.kir";
  write_ir_file(g, path);
  ASSERT_TRUE(std::filesystem::exists(ir_data_path(path)));
  const std::string text = [&] {
    std::ifstream f(path);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }();
  EXPECT_NE(text.find("data size=160 fnv1a="), std::string::npos) << text;
  EXPECT_NE(text.find("= data[0:160]"), std::string::npos) << text;
  const Graph back = read_ir_file(path);
  EXPECT_EQ(back.constant(back.node(back.first_node()).inputs[1])->data<float>()[39], v[39]);
  // Written again, both files are the same bytes.
  write_ir_file(back, dir / "n.kir");
  std::ifstream a(path), b(dir / "n.kir");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(a), {}),
            std::string(std::istreambuf_iterator<char>(b), {}));

  // A data file of another model, or none, is refused with the reason.
  testing::write_bytes(ir_data_path(path), std::string(160, '\0'));
  EXPECT_CONTAINS(catch_error([&] { read_ir_file(path); }).message(),
                  "m.kir.data does not belong to this IR text");
  std::filesystem::remove(ir_data_path(path));
  EXPECT_CONTAINS(catch_error([&] { read_ir_file(path); }).message(), "which was not found");
}

TEST(IrText, ListingsElideLargeConstants) {
  Graph g;
  g.add_constant("w", Tensor(F32, {100}));
  ValueId y = g.add_value("y", f32({100}));
  g.add_node(OpKind::Relu, "r", {ValueId{0}}, {y});
  g.outputs = {y};
  const std::string text = print_graph(g);
  EXPECT_NE(text.find("float32[100] = elided"), std::string::npos) << text;
  EXPECT_CONTAINS(parse_error(text), "elided in this listing");
}

// ---- one error per rule ---------------------------------------------------------

TEST(IrTextErrors, Header) {
  EXPECT_CONTAINS(parse_error("graph \"t\" opset 1\n"), "bad.kir:1:1: expected 'kir'");
  EXPECT_CONTAINS(parse_error("kir 7\ngraph \"t\" opset 1\n"), "version 7");
  EXPECT_CONTAINS(parse_error("kir 1\n"), "expected 'graph'");
}

TEST(IrTextErrors, UnknownOpSuggestsASpelling) {
  const std::string m = parse_error(kHeader + "input %x: float32[2]\n%y = Rleu(%x)\n");
  EXPECT_CONTAINS(m, "bad.kir:4:6: unknown op 'Rleu'; did you mean 'Relu'?");
}

TEST(IrTextErrors, UnknownAttributeSuggestsAField) {
  EXPECT_CONTAINS(
      parse_error(kHeader + "input %x: float32[2x2]\n%y = Transpose(%x) {prem=[1,0]}\n"),
      "Transpose attributes have no field 'prem'; did you mean 'perm'?");
}

TEST(IrTextErrors, AttributesOnAnOpWithoutThem) {
  EXPECT_CONTAINS(parse_error(kHeader + "input %x: float32[2]\n%y = Relu(%x) {alpha=1}\n"),
                  "Relu has no attributes");
}

TEST(IrTextErrors, AttributeValueOfTheWrongType) {
  EXPECT_CONTAINS(parse_error(kHeader + "input %x: float32[2x2]\n%y = Transpose(%x) {perm=true}\n"),
                  "expected '['");
  EXPECT_CONTAINS(parse_error(kHeader + "input %x: float32[2]\n%y = Cast(%x) {to=float16}\n"),
                  "'float16' is not one of float32, float64");
  EXPECT_CONTAINS(
      parse_error(kHeader + "input %x: float32[2x2]\n%y = Softmax(%x) {axis=1 axis=1}\n"),
      "field 'axis' is given twice");
}

TEST(IrTextErrors, UseBeforeDefinition) {
  EXPECT_CONTAINS(parse_error(kHeader + "%y = Relu(%x)\ninput %x: float32[2]\n"),
                  "bad.kir:3:11: %x is used before it is defined");
  EXPECT_CONTAINS(parse_error(kHeader + "output %nothing\n"), "%nothing is used before");
}

TEST(IrTextErrors, DefinedTwice) {
  EXPECT_CONTAINS(parse_error(kHeader + "input %x: float32[2]\n%y = Relu(%x)\n%y = Relu(%x)\n"),
                  "bad.kir:5:1: %y is defined twice");
  EXPECT_CONTAINS(
      parse_error(kHeader + "input %x: float32[2]\n%y = Relu(%x) @n\n%z = Relu(%x) @n\n"),
      "@n is not a plain identifier or is already used");
  EXPECT_CONTAINS(parse_error(kHeader + "input %x: float32[2]\n%y = Relu(%x) @x\n"),
                  "@x is not a plain identifier or is already used");
}

// Value names become C++ and Verilog identifiers; a keyword of either is refused by name
// (BatchNormalization's "var" input is the usual one).
TEST(IrTextErrors, ReservedWordAsValueName) {
  EXPECT_CONTAINS(parse_error(kHeader + "input %var: float32[2]\n%y = Relu(%var)\n"),
                  "bad.kir:3:7: %var is a C++ or Verilog reserved word");
}

TEST(IrTextErrors, DeclaredTypeDiffersFromInference) {
  EXPECT_CONTAINS(
      parse_error(kHeader +
                  "input %x: float32[2x3]\n%y: float32[2x3] = Transpose(%x) {perm=[1,0]}\n"),
      "%y is declared float32[2x3] but Transpose gives float32[3x2]");
}

TEST(IrTextErrors, ShapeInferenceRulesApply) {
  const std::string m =
      parse_error(kHeader + "input %a: float32[2]\ninput %b: float32[3]\n%y = Add(%a, %b)\n");
  EXPECT_CONTAINS(m, "bad.kir:5:6");
  EXPECT_CONTAINS(m, "cannot broadcast");
  EXPECT_CONTAINS(parse_error(kHeader + "input %x: float32[2]\n%y = Relu(%x, %x)\n"),
                  "expected 1 input, got 2");
}

TEST(IrTextErrors, ConstantValues) {
  EXPECT_CONTAINS(parse_error(kHeader + "const %c: float32[3] = [1,2]\n"),
                  "2 values given for float32[3], which has 3");
  EXPECT_CONTAINS(parse_error(kHeader + "const %c: float32[1] = [true]\n"),
                  "'true' is not a float32 value");
  EXPECT_CONTAINS(parse_error(kHeader + "const %c: int8[1] = [300]\n"),
                  "the number 300 is not a int8 value");
  EXPECT_CONTAINS(parse_error(kHeader + "const %c: float32[1] = data[0:4]\n"),
                  "data[...] needs a `data` line");
}

TEST(IrTextErrors, Types) {
  EXPECT_CONTAINS(parse_error(kHeader + "input %x: float16[2]\n"),
                  "'float16' is not an element type");
  EXPECT_CONTAINS(parse_error(kHeader + "input %x: float32[2xx3]\n"), "expected ']'");
  EXPECT_CONTAINS(parse_error(kHeader + "input %x: float32[99999x99999x99999]\n"), "absurd shape");
  EXPECT_CONTAINS(parse_error(kHeader + "input %x\n"), "expected ':' and the type of %x");
}

TEST(IrTextErrors, Lexical) {
  EXPECT_CONTAINS(parse_error(kHeader + "input %x \"unterminated: float32[2]\n"),
                  "unterminated string");
  EXPECT_CONTAINS(parse_error(kHeader + "input %x: float32[2] $\n"), "unexpected character '$'");
  EXPECT_CONTAINS(parse_error(kHeader + "input %x: float32[2] extra\n"),
                  "expected the end of the line, got 'extra'");
}

TEST(IrText, NamesAndOnnxNamesSurvive) {
  const std::string text =
      kHeader +
      "input %input_1 \"input.1\": float32[2]\n"
      "%y \"onnx::Relu_3\": float32[2] = Relu(%input_1) @Relu_0 \"/relu/Relu\"\n"
      "%z: float32[2] = Relu(%y) @r2\n"
      "output %z\n";
  expect_round_trip(text);
  const Graph g = parse_ir(text, "t.kir");
  EXPECT_EQ(g.value(g.inputs[0]).onnx_name, "input.1");
  EXPECT_EQ(g.node(g.first_node()).onnx_name, "/relu/Relu");
  EXPECT_EQ(g.node(g.first_node()).name, "Relu_0");
  EXPECT_TRUE(g.value(g.outputs[0]).onnx_name.empty());
  // Strings escape what they must.
  Graph h;
  h.name = "a\"b\\c\nd";
  EXPECT_EQ(parse_ir(print_graph(h), "h.kir").name, h.name);
}

}  // namespace
}  // namespace kiln
