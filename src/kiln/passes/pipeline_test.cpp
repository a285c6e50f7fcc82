// The whole pipeline and every single pass on the zoo models: the reference
// interpreter's outputs must not change, and the models come out in the form
// the HLS backend expects.
#include "kiln/passes/pipeline.h"

#include "kiln/onnx/import.h"
#include "kiln/passes/testing/pass_testing.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::passes {
namespace {

using kiln::testing::zoo_dir;
using kiln::testing::zoo_models;
using testing::count_kind;

Graph load(const std::string& name) {
  return onnx_import::import_model(kiln::testing::zoo_model(name));
}

TEST(Pipeline, RecordsEachPassFromTheRegistry) {
  Graph g = testing::parse(R"(
input %x: float32[2]
%y = Identity(%x) @id
output %y
)");
  const std::vector<PassRecord> r = run_hls_pipeline(g);
  ASSERT_EQ(r.size(), 11u);
  EXPECT_EQ(r[0].name, "remove_identity");
  EXPECT_EQ(r[1].name, "fold_pad");
  EXPECT_EQ(r[2].name, "global_pool");
  EXPECT_EQ(r[4].name, "recurrent_batch_first");
  EXPECT_EQ(r[8].name, "softmax_last_axis");
  EXPECT_EQ(r[9].name, "channels_last");
  EXPECT_EQ(r[10].name, "simplify_layout");
  for (const PassRecord& p : r) EXPECT_FALSE(p.changed) << p.name;  // input -> output stays
  EXPECT_EQ(run_hls_pipeline(g, HlsPipelineOptions{false}).size(), 10u);
  for (const std::string& name : hls_pipeline()) EXPECT_NE(graph_passes().find(name), nullptr);
}

TEST(Pipeline, UnknownPassNamesTheClosestOne) {
  const Error e = kiln::testing::catch_error([] { graph_passes().pipeline({"fold_batchnrom"}); });
  EXPECT_EQ(e.kind(), ErrorKind::Usage);
  EXPECT_CONTAINS(e.message(), "did you mean 'fold_batchnorm'?");
}

// A pass that breaks the graph is caught right after it, by name.
class StaleTypePass : public GraphPass {
 public:
  std::string_view name() const override { return "stale_type"; }
  bool run(Graph& g) override {
    g.value(g.outputs[0]).type.shape = {3, 2};
    return true;
  }
};

TEST(Pipeline, VerifierCatchesAStaleTypeAfterThePass) {
  Graph g = testing::parse(R"(
input %x: float32[2x3]
%y = Relu(%x) @relu
output %y
)");
  GraphPipeline p;
  p.add(std::make_unique<StaleTypePass>());
  const Error e = kiln::testing::catch_error([&] { p.run(g); });
  EXPECT_EQ(e.kind(), ErrorKind::Internal);
  EXPECT_CONTAINS(e.message(), "after pass stale_type output 0 is stored as float32[3x2]");
}

TEST(Pipeline, ZooHasTheModels) {
  EXPECT_GE(zoo_models().size(), 25u) << zoo_dir();
}

class ZooTest : public ::testing::TestWithParam<std::string> {};

// The default pipeline, the channels-first one and each registered pass
// alone keep the reference outputs of every zoo model.
TEST_P(ZooTest, KeepsTheReferenceOutputs) {
  const Graph original = load(GetParam());
  const std::vector<Tensor> ins = testing::random_inputs(original, 42);
  const std::vector<Tensor> want = ref::Interpreter(original).run(ins);
  std::vector<std::pair<std::string, GraphPipeline>> configs;
  configs.emplace_back("pipeline", make_hls_pipeline());
  configs.emplace_back("pipeline_channels_first", make_hls_pipeline(HlsPipelineOptions{false}));
  for (const auto& e : graph_passes().entries())
    configs.emplace_back(e.name, graph_passes().pipeline({e.name}));
  for (const auto& [name, pipeline] : configs) {
    Graph g = original;
    pipeline.run(g);
    testing::expect_same_outputs(ref::Interpreter(g).run(ins), want, GetParam() + " " + name);
  }
}

// What the HLS backend relies on, for whatever a model holds: convolutions
// stay convolutions and become channels-last, batch norms after them fold,
// Gemms become Dense, and a LeakyRelu right after a conv (or its batch norm)
// is fused into it.
TEST_P(ZooTest, ComesOutInTheHlsForm) {
  Graph g = load(GetParam());
  const int convs = count_kind(g, OpKind::Conv);
  int fusable = 0;
  for (const Node& n : g.nodes()) {
    if (n.kind != OpKind::LeakyRelu) continue;
    NodeId p = g.producer(n.inputs[0]);
    if (p.valid() && g.node(p).kind == OpKind::BatchNormalization)
      p = g.producer(g.node(p).inputs[0]);
    if (p.valid() && g.node(p).kind == OpKind::Conv) ++fusable;
  }
  run_hls_pipeline(g);
  EXPECT_EQ(count_kind(g, OpKind::Conv), convs);
  EXPECT_EQ(count_kind(g, OpKind::Gemm), 0);
  int fused = 0;
  for (const Node& n : g.nodes()) {
    if (n.kind != OpKind::Conv) continue;
    const auto& a = n.attr<ConvAttrs>();
    EXPECT_TRUE(a.channels_last) << n.describe();
    if (a.activation.kind == FusedActivation::Kind::LeakyRelu) ++fused;
    EXPECT_NE(g.uses(n.outputs[0]).size() == 1 ? g.node(g.uses(n.outputs[0])[0].node).kind
                                               : OpKind::Identity,
              OpKind::BatchNormalization)
        << n.describe() << " still feeds a batch norm";
  }
  EXPECT_EQ(fused, fusable);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooTest, ::testing::ValuesIn(zoo_models()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kiln::passes
