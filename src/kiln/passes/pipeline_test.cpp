// The whole pipeline and every single pass on the zoo models: the reference
// interpreter's outputs must not change, and the HLS-style models must come
// out in the form the HLS backend expects.
#include <cstdlib>
#include <filesystem>

#include "kiln/onnx/import.h"
#include "kiln/passes/channels_last.h"
#include "kiln/passes/fold_batchnorm.h"
#include "kiln/passes/form_dense.h"
#include "kiln/passes/fuse_activation.h"
#include "kiln/passes/remove_identity.h"
#include "kiln/passes/simplify_layout.h"
#include "kiln/passes/softmax_last_axis.h"
#include "kiln/passes/test_util.h"

namespace kiln::passes {
namespace {

namespace fs = std::filesystem;
using testing::count_kind;

fs::path zoo_dir() {
  const char* src = std::getenv("KILN_SOURCE_DIR");
  return fs::path(src != nullptr ? src : ".") / "models" / "zoo";
}

std::vector<std::string> zoo_models() {
  std::vector<std::string> names;
  if (!fs::is_directory(zoo_dir())) return names;
  for (const auto& e : fs::directory_iterator(zoo_dir()))
    if (fs::is_regular_file(e.path() / "model.onnx")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

Graph load(const std::string& name) {
  return onnx_import::import_model(zoo_dir() / name / "model.onnx");
}

TEST(Pipeline, RecordsEachPass) {
  testing::Builder b;
  b.output(b.node(OpKind::Identity, {b.input({2})}));
  const std::vector<PassRecord> r = run_hls_pipeline(b.g);
  ASSERT_EQ(r.size(), 7u);
  EXPECT_EQ(r[0].name, "remove_identity");
  EXPECT_EQ(r[4].name, "softmax_last_axis");
  EXPECT_EQ(r[5].name, "channels_last");
  EXPECT_EQ(r[6].name, "simplify_layout");
  for (const PassRecord& p : r) EXPECT_FALSE(p.changed) << p.name;  // input -> output stays
  EXPECT_EQ(run_hls_pipeline(b.g, HlsPipelineOptions{false}).size(), 6u);
}

TEST(Pipeline, CheckValueTypesCatchesAStaleType) {
  testing::Builder b;
  const ValueId y = b.node(OpKind::Relu, {b.input({2, 3})});
  b.output(y);
  b.g.value(y).type.shape = {3, 2};
  EXPECT_THROW(check_value_types(b.g, "test"), Error);
}

TEST(Pipeline, ZooHasTheModels) {
  EXPECT_GE(zoo_models().size(), 25u) << zoo_dir();
}

// One pass (or the pipeline) applied to a copy of the model.
struct Config {
  const char* name;
  void (*apply)(Graph&);
};

template <class P>
void one(Graph& g) {
  PassPipeline p;
  p.add(std::make_unique<P>());
  p.run(g);
}

const Config kConfigs[] = {
    {"pipeline", [](Graph& g) { run_hls_pipeline(g); }},
    {"pipeline_channels_first", [](Graph& g) { run_hls_pipeline(g, HlsPipelineOptions{false}); }},
    {"remove_identity", one<RemoveIdentityPass>},
    {"form_dense", one<FormDensePass>},
    {"fold_batchnorm", one<FoldBatchNormPass>},
    {"fuse_activation", one<FuseActivationPass>},
    {"channels_last", one<ChannelsLastPass>},
    {"simplify_layout", one<SimplifyLayoutPass>},
    {"softmax_last_axis", one<SoftmaxLastAxisPass>},
};

class ZooTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooTest, KeepsTheReferenceOutputs) {
  const Graph original = load(GetParam());
  const std::vector<Tensor> ins = testing::random_inputs(original, 42);
  const std::vector<Tensor> want = ref::Interpreter(original).run(ins);
  for (const Config& c : kConfigs) {
    Graph g = original;
    c.apply(g);
    testing::expect_same_outputs(ref::Interpreter(g).run(ins), want, GetParam() + " " + c.name);
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooTest, ::testing::ValuesIn(zoo_models()),
                         [](const auto& info) { return info.param; });

class HlsStyleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(HlsStyleTest, ConvsAreChannelsLastWithFusedLeakyReluAndGemmIsDense) {
  Graph g = load(GetParam());
  const int convs = count_kind(g, OpKind::Conv);
  ASSERT_GT(convs, 0);
  ASSERT_GT(count_kind(g, OpKind::Gemm), 0);
  run_hls_pipeline(g);
  EXPECT_EQ(count_kind(g, OpKind::BatchNormalization), 0);
  EXPECT_EQ(count_kind(g, OpKind::Gemm), 0);
  EXPECT_GT(count_kind(g, OpKind::Dense), 0);
  EXPECT_EQ(count_kind(g, OpKind::Conv), convs);
  EXPECT_EQ(count_kind(g, OpKind::LeakyRelu), 0);
  for (const Node& n : g.nodes()) {
    if (n.kind != OpKind::Conv) continue;
    const auto& a = n.attr<ConvAttrs>();
    EXPECT_TRUE(a.channels_last) << n.describe();
    EXPECT_EQ(a.activation.kind, FusedActivation::Kind::LeakyRelu) << n.describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, HlsStyleTest,
                         ::testing::Values("model4", "model8", "model32", "model64", "superwide"));

}  // namespace
}  // namespace kiln::passes
