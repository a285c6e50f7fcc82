// `kiln ir`, `kiln opt` and .kir files in every command, as a user runs them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST(CliIr, RoundTripsByteForByteAndRunsTheSame) {
  TempDir dir;
  const std::string a = (dir / "a.kir").string(), b = (dir / "b.kir").string();
  ProcessResult r = kiln({"ir", zoo("lenet5"), "-o", a});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("a.kir.data"), std::string::npos) << r.out;
  r = kiln({"ir", a, "-o", b});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(a), slurp(b));
  EXPECT_EQ(slurp(a + ".data"), slurp(b + ".data"));
  // The same outputs from the ONNX file and from the text.
  const std::string input =
      "input=" + (zoo_dir() / "lenet5" / "test_data_set_0" / "input_0.pb").string();
  r = kiln({"run", zoo("lenet5"), "--input", input, "-o", (dir / "ro").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = kiln({"run", a, "--input", input, "-o", (dir / "rk").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(dir / "ro" / "output.pb"), slurp(dir / "rk" / "output.pb"));
  // info reads it too.
  r = kiln({"info", a, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["total_macs"].get<int64_t>(), 416520);
}

TEST(CliIr, InlineWritesNoDataFileAndListingElides) {
  TempDir dir;
  const std::string a = (dir / "a.kir").string();
  ProcessResult r = kiln({"ir", zoo("dense_a"), "-o", a, "--inline"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(a + ".data"));
  r = kiln({"ir", zoo("lenet5")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("= elided"), std::string::npos);
  EXPECT_EQ(r.out.rfind("kir 1\n", 0), 0u);
}

TEST(CliIr, BadTextIsExit2WithTheLine) {
  TempDir dir;
  write_bytes(dir / "bad.kir",
              "kir 1\ngraph \"x\" opset 13\ninput %x: float32[2]\n%y = Rleu(%x)\n");
  const ProcessResult r = kiln({"ir", (dir / "bad.kir").string(), "-o", (dir / "o.kir").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.kir:4:6: unknown op 'Rleu'; did you mean 'Relu'?"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "o.kir"));
}

TEST(CliIr, ShapesOfATextAreFixed) {
  TempDir dir;
  const std::string a = (dir / "a.kir").string();
  ASSERT_EQ(kiln({"ir", zoo("lenet5"), "-o", a, "--batch", "2"}).exit_code, 0);
  const ProcessResult r = kiln({"info", a, "--batch", "4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--batch and --input-shape do not apply"), std::string::npos) << r.err;
}

TEST(CliOpt, PrintsAfterEachPassAndChecksEach) {
  const ProcessResult r = kiln({"opt", zoo("model8"), "--passes", "form_dense,fold_batchnorm",
                                "--print-after-all", "--verify-each"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("# ---- after form_dense (changed) ----"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# ---- after fold_batchnorm (changed) ----"), std::string::npos);
  const std::size_t last = r.out.rfind("# ---- after fold_batchnorm");
  EXPECT_EQ(r.out.find("BatchNormalization(", last), std::string::npos);
  EXPECT_NE(r.out.find("reference: max abs error"), std::string::npos);
  EXPECT_EQ(r.out.find("DIFFERS"), std::string::npos);
}

TEST(CliOpt, WritesTheResultAndNamesUnknownPasses) {
  TempDir dir;
  const std::string out = (dir / "o.kir").string();
  ProcessResult r = kiln({"opt", zoo("lenet5"), "-o", out, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["passes"].size(), 11u);
  // The written IR is the passed graph: it compiles as the ONNX model does.
  r = kiln({"compile", out, "-o", (dir / "p").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = kiln({"opt", zoo("lenet5"), "--passes", "fold_batchnrom"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'fold_batchnorm'?"), std::string::npos) << r.err;
  r = kiln({"passes"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("channels_last"), std::string::npos);
  EXPECT_NE(r.out.find("insert_clones"), std::string::npos);
}

TEST(CliLayers, PrintsAfterEachLayerPassAndWritesTheFullText) {
  ProcessResult r =
      kiln({"layers", zoo("braggnn1"), "--set", "IOType=io_stream", "--print-after-all"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("# ---- after lower_graph (changed) ----"), std::string::npos) << r.out;
  const std::size_t clones = r.out.find("# ---- after insert_clones (changed) ----");
  ASSERT_NE(clones, std::string::npos);
  EXPECT_EQ(r.out.substr(0, clones).find("= Clone("), std::string::npos);
  EXPECT_NE(r.out.find("= Clone(", clones), std::string::npos);
  EXPECT_NE(r.out.find("weights=elided"), std::string::npos);
  // The full text of the final model, as a file.
  TempDir dir;
  const std::string out = (dir / "b.layers").string();
  r = kiln({"layers", zoo("braggnn1"), "-o", out, "--set", "LayerName.conv1_Conv.ReuseFactor=3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = slurp(out);
  EXPECT_EQ(text.find("elided"), std::string::npos);
  EXPECT_NE(text.find("@conv1_Conv \"/conv1/Conv\" config {reuse_factor=3}"), std::string::npos);
  // Config mistakes name the key.
  r = kiln({"layers", zoo("braggnn1"), "--set", "LayerName.conv1_Conv.ReuseFactor=5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("LayerName.conv1_Conv.ReuseFactor"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kiln::testing
