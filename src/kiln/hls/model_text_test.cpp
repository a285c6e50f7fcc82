// The layer model text: hand-written texts parse to the model they say,
// every zoo model's built layer model prints, parses back and prints the
// same, and mistakes are errors at FILE:LINE:COL.
#include "kiln/hls/model_text.h"

#include <gtest/gtest.h>

#include "kiln/hls/build_model.h"
#include "kiln/hls/model_json.h"
#include "kiln/hls/prepare.h"
#include "kiln/hls/testing/layer_pass_testing.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::hls {
namespace {

using kiln::testing::catch_error;
using testing::body_text;
using testing::parse;

constexpr const char* kSmall = R"(
model "net" {io_type=io_stream clock_period_ns=3.3}
%x: ap_fixed<16,6>[4x4x2] = Input() @x "input"
%c: ap_fixed<18,-2,AP_RND_CONV,AP_SAT_SYM>[2x2x3] = Conv(%x) {in_h=4 in_w=4 c_in=2 out_h=2 out_w=2 c_out=3 kernel_h=3 kernel_w=3 act={kind=Clip alpha=-inf beta=1.5}} @conv1 "/conv/Conv" config {weight=ap_fixed<8,3> reuse_factor=2 strategy=Resource conv_impl=Encoded tables={table_size=256}} constants {weights=[1,-2,3,-4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54] bias=[5,-6,7]}
%f: ap_fixed<18,-2,AP_RND_CONV,AP_SAT_SYM>[12] = Reshape(%c) @flat
%a: ap_fixed<18,-2,AP_RND_CONV,AP_SAT_SYM>[12], %b: ap_fixed<18,-2,AP_RND_CONV,AP_SAT_SYM>[12] = Clone(%f) @f_clone
input %x "input": [1x2x4x4] perm=[1,2,0]
output %a "out": [1x12] perm=[0]
output %b "out2": [1x12] perm=[0]
)";

TEST(LayerText, ParsesWhatItSays) {
  const Model m = parse(kSmall);
  EXPECT_EQ(m.name, "net");
  EXPECT_EQ(m.io_type, IOType::Stream);
  EXPECT_EQ(m.clock_period_ns, 3.3);
  ASSERT_EQ(m.layers.size(), 4u);
  const Layer& c = m.layers[1];
  EXPECT_EQ(c.kind(), LayerKind::Conv);
  EXPECT_EQ(c.name, "conv1");
  EXPECT_EQ(c.onnx_name, "/conv/Conv");
  EXPECT_EQ(c.as<ConvParams>().act.alpha, -INFINITY);
  EXPECT_EQ(c.precision.weight.to_string(), "ap_fixed<8,3>");
  EXPECT_EQ(c.precision.result.to_string(), "ap_fixed<18,-2,AP_RND_CONV,AP_SAT_SYM>");
  EXPECT_EQ(c.reuse_factor, 2);
  EXPECT_EQ(c.conv_impl, ConvImpl::Encoded);
  EXPECT_EQ(c.tables.table_size, 256);
  EXPECT_EQ(c.bias, (std::vector<int64_t>{5, -6, 7}));
  EXPECT_EQ(m.layers[3].outputs, (std::vector<int>{3, 4}));
  EXPECT_EQ(m.input_ports[0].perm, (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(m.outputs, (std::vector<int>{3, 4}));
  EXPECT_EQ(body_text(m), testing::trimmed(kSmall));
}

TEST(LayerText, ListingsElideLongConstants) {
  const std::string listing = print_layer_listing(parse(kSmall));
  EXPECT_NE(listing.find("constants {weights=elided bias=[5,-6,7]}"), std::string::npos);
  const Error e = catch_error([&] { parse_layers(listing, "l.layers"); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "l.layers:4:");
  EXPECT_CONTAINS(e.message(), "the weights are elided in this listing");
}

// Every zoo model, built in both IO types: text -> model -> text is the
// identity, and the parsed model is the built one (kiln_model.json, which
// holds every field, is equal).
TEST(LayerText, ZooModelsRoundTrip) {
  for (const std::string& name : kiln::testing::zoo_models()) {
    const PreparedGraph p = prepare_graph(kiln::testing::zoo_model(name), {});
    for (IOType io : {IOType::Parallel, IOType::Stream}) {
      Config cfg;
      cfg.io_type = io;
      const Model m = build_model(p.passed, cfg, nullptr);
      const std::string text = print_layers(m);
      const Model back = parse_layers(text, name + ".layers");
      EXPECT_EQ(print_layers(back), text) << name;
      const nlohmann::json a = model_to_json(back), b = model_to_json(m);
      // Compare layer by layer so a failure names the layer, not the whole model.
      ASSERT_EQ(a["layers"].size(), b["layers"].size()) << name;
      for (std::size_t i = 0; i < a["layers"].size(); ++i)
        EXPECT_EQ(a["layers"][i].dump(), b["layers"][i].dump()) << name;
      EXPECT_EQ(a.dump(), b.dump()) << name;
    }
  }
}

struct BadText {
  const char* text;
  const char* where;
  const char* what;
};

TEST(LayerText, MistakesAreErrorsAtTheirPlace) {
  const BadText cases[] = {
      {"layers 2\n", "t:1:8", "layer text version 2"},
      {"model \"n\" {}\n%x: ap_fixed<16,6>[4] = Inptu() @x\n", "t:3:25", "did you mean 'Input'"},
      {"model \"n\" {}\n%x: ap_fixed<16,6>[4] = Input(%y) @x\n", "t:3:31",
       "tensor %y is not defined before"},
      {"model \"n\" {}\n%x: ap_fixed<1 6>[4] = Input() @x\n", "t:3:", "bad fixed-point type"},
      {"model \"n\" {io=io_stream}\n", "t:2:12", "model fields have no field 'io'"},
      {"model \"n\" {}\n%x: ap_fixed<16,6>[4] = Input() {n=3} @x\n",
       "t:3:", "Input parameters have no field 'n'"},
      {"model \"n\" {}\n%x: ap_fixed<16,6>[4] = Input() @x\n%x: ap_fixed<16,6>[4] = Reshape(%x) "
       "@r\n",
       "t:4:1", "tensor %x is defined twice"},
      {"model \"n\" {}\n%x: ap_fixed<16,6>[4] = Input() @x config {reuse_factr=2}\n",
       "t:3:", "did you mean 'reuse_factor'"},
      {"model \"n\" {}\n%x: ap_fixed<16,6>[4] = Input() @x\n%y: ap_fixed<16,6>[5] = Reshape(%x) "
       "@r\ninput %x \"x\": [1x4] perm=[0]\noutput %y \"y\": [1x5] perm=[0]\n",
       "t", "the layer model is inconsistent: Reshape layer 'r': changes the number of elements"},
  };
  for (const BadText& c : cases) {
    const std::string text =
        c.text[0] == 'l' ? std::string(c.text) : "layers 1\n" + std::string(c.text);
    const Error e = catch_error([&] { parse_layers(text, "t"); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel) << c.text;
    EXPECT_CONTAINS(e.where(), c.where) << c.text;
    EXPECT_CONTAINS(e.message(), c.what) << c.text;
  }
}

}  // namespace
}  // namespace kiln::hls
