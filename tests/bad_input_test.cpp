// Bad input never crashes kiln: each case is one clear line on stderr, exit 2,
// and no output directory left behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kiln/onnx/npy.h"
#include "model_builder.h"
#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_temp_dir("bad");
    input_ = dir_ / "x.npy";
    onnx_import::write_npy(input_, Tensor(DType::Float32, {1, 1, 4, 4}));
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const ::onnx::ModelProto& m, const std::string& name = "model.onnx") {
    const fs::path p = dir_ / name;
    save_model(m, p);
    return p;
  }
  fs::path write_bytes(const std::string& bytes, const std::string& name) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }

  // Runs `kiln run` and `kiln info` on the model; both must fail with `code`,
  // print one line that contains `expected_text`, and write nothing.
  void expect_rejected(const fs::path& model, const std::string& expected_text, int code = 2,
                       bool model_is_bad = true) {
    const fs::path out = dir_ / "out";
    const ProcessResult run = run_process({kiln_binary(), "run", model.string(), "--input",
                                           "x=" + input_.string(), "-o", out.string()},
                                          60);
    EXPECT_FALSE(run.crashed()) << "signal " << run.signal;
    EXPECT_EQ(run.exit_code, code) << run.err;
    EXPECT_EQ(run.out, "");
    ASSERT_FALSE(run.err.empty());
    EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "not one line: " << run.err;
    EXPECT_NE(run.err.find(expected_text), std::string::npos) << run.err;
    EXPECT_FALSE(fs::exists(out)) << "half-written output left behind";
    for (const auto& e : fs::directory_iterator(dir_))
      EXPECT_EQ(e.path().filename().string().find(".kiln-tmp"), std::string::npos);

    if (!model_is_bad) return;
    const ProcessResult info = run_process({kiln_binary(), "info", model.string()}, 60);
    EXPECT_EQ(info.exit_code, code) << info.err;
    EXPECT_NE(info.err.find(expected_text), std::string::npos) << info.err;
  }

  fs::path dir_, input_;
};

TEST_F(BadInput, ValidModelRuns) {
  // The baseline the other cases break: it must work, or they prove nothing.
  const fs::path model = write(small_conv_model());
  const ProcessResult r = run_process({kiln_binary(), "run", model.string(), "--input",
                                       "x=" + input_.string(), "-o", (dir_ / "ok").string()},
                                      60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "ok" / "y.npy"));
}

TEST_F(BadInput, MissingFile) {
  expect_rejected(dir_ / "nope.onnx", "nope.onnx");
}

TEST_F(BadInput, EmptyFile) {
  expect_rejected(write_bytes("", "empty.onnx"), "not an ONNX model");
}

TEST_F(BadInput, GarbageBytes) {
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk.push_back(static_cast<char>((i * 7919 + 13) % 251));
  expect_rejected(write_bytes(junk, "junk.onnx"), "not an ONNX model");
}

TEST_F(BadInput, TruncatedModel) {
  std::string bytes;
  small_conv_model().SerializeToString(&bytes);
  for (std::size_t cut : {bytes.size() / 2, bytes.size() - 3, std::size_t{10}})
    expect_rejected(write_bytes(bytes.substr(0, cut), "cut.onnx"), "model");
}

TEST_F(BadInput, TensorProtoIsNotAModel) {
  ::onnx::TensorProto t;
  t.set_name("t");
  t.set_data_type(::onnx::TensorProto::FLOAT);
  t.add_dims(3);
  for (int i = 0; i < 3; ++i) t.add_float_data(1.0f);
  std::string bytes;
  t.SerializeToString(&bytes);
  expect_rejected(write_bytes(bytes, "tensor.onnx"), "not an ONNX model");
}

TEST_F(BadInput, MissingInitializer) {
  auto m = small_conv_model();
  m.mutable_graph()->mutable_initializer()->RemoveLast();  // drop "b"
  expect_rejected(write(m), "'b'");
}

TEST_F(BadInput, Cycle) {
  auto m = small_conv_model();
  // conv1 now reads relu1's output, which reads conv1's output.
  m.mutable_graph()->mutable_node(0)->set_input(0, "y");
  expect_rejected(write(m), "cycle");
}

TEST_F(BadInput, ValueInfoDisagreesWithInference) {
  auto m = small_conv_model();
  add_value_info(m.mutable_graph()->add_value_info(), "c", {1, 2, 3, 3});
  expect_rejected(write(m), "conv1");
}

TEST_F(BadInput, DeclaredOutputShapeWrong) {
  auto m = small_conv_model();
  m.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(5);
  expect_rejected(write(m), "relu1");
}

TEST_F(BadInput, WeightShapeInconsistentWithInput) {
  auto m = small_conv_model();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->set_dims(1, 3);  // 3 input channels, but x has 1
  w->clear_float_data();
  for (int i = 0; i < 2 * 3 * 9; ++i) w->add_float_data(0.1f);
  expect_rejected(write(m), "conv1");
}

TEST_F(BadInput, InitializerDataShorterThanShape) {
  auto m = small_conv_model();
  m.mutable_graph()->mutable_initializer(0)->mutable_float_data()->RemoveLast();
  expect_rejected(write(m), "'w'");
}

TEST_F(BadInput, UndeclaredDomain) {
  auto m = small_conv_model();
  m.mutable_graph()->mutable_node(1)->set_domain("com.example.unknown");
  expect_rejected(write(m), "domain");
}

TEST_F(BadInput, UnknownOpset) {
  auto m = small_conv_model();
  m.mutable_opset_import(0)->set_version(999);
  expect_rejected(write(m), "opset");
}

TEST_F(BadInput, AbsurdDeclaredDimensions) {
  auto m = small_conv_model();
  auto* shape =
      m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->mutable_dim(2)->set_dim_value(int64_t{1} << 40);
  shape->mutable_dim(3)->set_dim_value(int64_t{1} << 40);
  expect_rejected(write(m), "absurd");
}

TEST_F(BadInput, NegativeDeclaredDimension) {
  auto m = small_conv_model();
  m.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(2)
      ->set_dim_value(-4);
  expect_rejected(write(m), "negative");
}

TEST_F(BadInput, InputFileOfWrongShape) {
  const fs::path model = write(small_conv_model());
  onnx_import::write_npy(input_, Tensor(DType::Float32, {1, 1, 5, 4}));
  expect_rejected(model, "expects float32[1x1x4x4], got float32[1x1x5x4]", 2,
                  /*model_is_bad=*/false);
}

TEST_F(BadInput, UnsupportedOpIsExitThree) {
  auto m = small_conv_model();
  m.mutable_graph()->mutable_node(1)->set_op_type("LpNormalization");
  expect_rejected(write(m), "LpNormalization", 3);
}

TEST_F(BadInput, UsageErrors) {
  const fs::path model = write(small_conv_model());
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{kiln_binary()},
        {kiln_binary(), "frobnicate"},
        {kiln_binary(), "run", model.string()},  // no --input for x
        {kiln_binary(), "run", model.string(), "--input", "x"},
        {kiln_binary(), "run", model.string(), "--input", "nosuch=" + input_.string()},
        {kiln_binary(), "info", model.string(), "--batch", "0"},
        {kiln_binary(), "info", model.string(), "--input-shape", "x=1xAx4"},
        {kiln_binary(), "test-onnx", dir_.string()}}) {
    const ProcessResult r = run_process(args, 60);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_FALSE(r.err.empty() && r.out.empty()) << args.back();
  }
}

}  // namespace
}  // namespace kiln::testing
