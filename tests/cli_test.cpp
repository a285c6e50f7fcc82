// The CLI as a user drives it, on the bundled LeNet-5.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "kiln/onnx/npy.h"
#include "kiln/onnx/tensor_proto.h"
#include "model_builder.h"
#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

fs::path lenet() {
  return fs::path(source_dir()) / "models" / "zoo" / "lenet5";
}

TEST(CliInfo, LeNet5TotalsMatchHandCount) {
  const ProcessResult r =
      run_process({kiln_binary(), "info", (lenet() / "model.onnx").string(), "--json"}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // Parameters: conv1 6*1*5*5+6, conv2 16*6*5*5+16, fc 400*120+120, 120*84+84, 84*10+10.
  EXPECT_EQ(j["total_params"].get<int64_t>(), 156 + 2416 + 48120 + 10164 + 850);
  // MACs: conv1 6*28*28*25, conv2 16*10*10*150, fc 400*120 + 120*84 + 84*10.
  EXPECT_EQ(j["total_macs"].get<int64_t>(), 117600 + 240000 + 48000 + 10080 + 840);
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json({1, 1, 28, 28}));
  EXPECT_EQ(j["outputs"][0]["shape"], nlohmann::json({1, 10}));
  int convs = 0;
  for (const auto& l : j["layers"]) convs += l["op"] == "Conv";
  EXPECT_EQ(convs, 2);
}

TEST(CliInfo, TableHasOneRowPerLayerAndTotals) {
  const ProcessResult r =
      run_process({kiln_binary(), "info", (lenet() / "model.onnx").string()}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Conv"), std::string::npos);
  EXPECT_NE(r.out.find("Gemm"), std::string::npos);
  EXPECT_NE(r.out.find("total"), std::string::npos);
  EXPECT_NE(r.out.find("61,706"), std::string::npos) << r.out;
}

TEST(CliInfo, BatchOptionChangesShapes) {
  const ProcessResult r = run_process(
      {kiln_binary(), "info", (lenet() / "model.onnx").string(), "--json", "--batch", "4"}, 60);
  // LeNet-5's Flatten and Gemms follow the batch, so the whole model re-types.
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json({4, 1, 28, 28}));
  EXPECT_EQ(j["outputs"][0]["shape"], nlohmann::json({4, 10}));
}

Tensor read(const fs::path& p) {
  return onnx_import::read_tensor_file(p);
}

void expect_close(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.type(), want.type());
  for (int64_t i = 0; i < got.numel(); ++i)
    EXPECT_NEAR(got.as_double(i), want.as_double(i), 1e-5 + 1e-3 * std::fabs(want.as_double(i)));
}

TEST(CliRun, WritesOutputsInTheInputFormat) {
  const fs::path tmp = fresh_temp_dir("cli_run");
  const fs::path in_pb = lenet() / "test_data_set_0" / "input_0.pb";
  const Tensor expected = read(lenet() / "test_data_set_0" / "output_0.pb");

  const ProcessResult pb =
      run_process({kiln_binary(), "run", (lenet() / "model.onnx").string(), "--input",
                   "input=" + in_pb.string(), "-o", (tmp / "pb").string()},
                  60);
  ASSERT_EQ(pb.exit_code, 0) << pb.err;
  expect_close(read(tmp / "pb" / "output.pb"), expected);

  onnx_import::write_npy(tmp / "in.npy", read(in_pb));
  const ProcessResult npy =
      run_process({kiln_binary(), "run", (lenet() / "model.onnx").string(), "--input",
                   "input=" + (tmp / "in.npy").string(), "-o", (tmp / "npy").string()},
                  60);
  ASSERT_EQ(npy.exit_code, 0) << npy.err;
  expect_close(read(tmp / "npy" / "output.npy"), expected);

  // An existing output directory is not overwritten without --force.
  const ProcessResult again =
      run_process({kiln_binary(), "run", (lenet() / "model.onnx").string(), "--input",
                   "input=" + in_pb.string(), "-o", (tmp / "pb").string()},
                  60);
  EXPECT_EQ(again.exit_code, 2);
  const ProcessResult forced =
      run_process({kiln_binary(), "run", (lenet() / "model.onnx").string(), "--input",
                   "input=" + in_pb.string(), "-o", (tmp / "pb").string(), "--force"},
                  60);
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  fs::remove_all(tmp);
}

TEST(CliTestOnnx, ReportsTheWorstMismatchAndExitsOne) {
  const fs::path tmp = fresh_temp_dir("cli_mismatch");
  fs::copy(lenet(), tmp / "lenet5", fs::copy_options::recursive);
  Tensor out = read(tmp / "lenet5" / "test_data_set_0" / "output_0.pb");
  out.data<float>()[3] += 0.5f;
  out.data<float>()[7] += 0.01f;
  onnx_import::write_tensor_pb(tmp / "lenet5" / "test_data_set_0" / "output_0.pb", out, "output");
  const ProcessResult r =
      run_process({kiln_binary(), "test-onnx", (tmp / "lenet5").string(), "--json"}, 60);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["results"][0]["status"], "mismatch");
  EXPECT_EQ(j["results"][0]["worst"]["index"], 3);
  EXPECT_NEAR(j["results"][0]["worst"]["abs_error"].get<double>(), 0.5, 1e-3);
  fs::remove_all(tmp);
}

TEST(CliTestOnnx, SeveralDirectoriesPrintOneLineEachAndATotal) {
  const fs::path zoo = fs::path(source_dir()) / "models" / "zoo";
  const ProcessResult r = run_process({kiln_binary(), "test-onnx", (zoo / "lenet5").string(),
                                       (zoo / "mlp").string(), (zoo / "vecmul_a").string()},
                                      120);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 4) << r.out;
  EXPECT_NE(r.out.find("total 3: 3 passed"), std::string::npos) << r.out;
}

TEST(CliTestOnnx, UnsupportedOpIsExitThreeWithTheOpName) {
  const fs::path tmp = fresh_temp_dir("cli_unsupported");
  auto m = small_conv_model();
  m.mutable_graph()->mutable_node(1)->set_op_type("LpNormalization");
  save_model(m, tmp / "model.onnx");
  fs::create_directories(tmp / "test_data_set_0");
  const ProcessResult r = run_process({kiln_binary(), "test-onnx", tmp.string()}, 60);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("LpNormalization"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("docs/ops.md"), std::string::npos) << r.out;
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace kiln::testing
