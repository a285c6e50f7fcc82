#include "kiln/onnx/tensor_proto.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "kiln/support/testing/test_helpers.h"

namespace kiln::onnx_import {
namespace {

namespace fs = std::filesystem;
using kiln::testing::catch_error;
using kiln::testing::TempDir;
using kiln::testing::write_bytes;
using TP = ::onnx::TensorProto;

std::string le_bytes_f32(std::initializer_list<float> vals) {
  std::string s;
  for (float v : vals) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    for (int i = 0; i < 4; ++i) s += static_cast<char>((bits >> (8 * i)) & 0xFF);
  }
  return s;
}

TEST(TensorProto, ReadsFloatData) {
  TP p;
  p.set_name("w");
  p.set_data_type(TP::FLOAT);
  p.add_dims(2);
  p.add_dims(2);
  for (float v : {1.5f, -2.0f, 3.25f, 0.0f}) p.add_float_data(v);
  const Tensor t = tensor_from_proto(p, {}, "");
  ASSERT_EQ(t.dtype(), DType::Float32);
  EXPECT_EQ(t.shape(), (Shape{2, 2}));
  EXPECT_EQ(t.data<float>()[0], 1.5f);
  EXPECT_EQ(t.data<float>()[1], -2.0f);
  EXPECT_EQ(t.data<float>()[2], 3.25f);
}

TEST(TensorProto, ReadsInt32DataForNarrowTypes) {
  TP p;
  p.set_data_type(TP::INT8);
  p.add_dims(3);
  for (int v : {-128, 5, 127}) p.add_int32_data(v);
  Tensor t = tensor_from_proto(p, {}, "");
  ASSERT_EQ(t.dtype(), DType::Int8);
  EXPECT_EQ(t.data<int8_t>()[0], -128);
  EXPECT_EQ(t.data<int8_t>()[2], 127);

  p.set_data_type(TP::UINT16);
  p.clear_int32_data();
  for (int v : {0, 65535, 300}) p.add_int32_data(v);
  t = tensor_from_proto(p, {}, "");
  ASSERT_EQ(t.dtype(), DType::UInt16);
  EXPECT_EQ(t.data<uint16_t>()[1], 65535);

  p.set_data_type(TP::BOOL);
  p.clear_int32_data();
  for (int v : {0, 1, 2}) p.add_int32_data(v);
  t = tensor_from_proto(p, {}, "");
  ASSERT_EQ(t.dtype(), DType::Bool);
  EXPECT_FALSE(t.data<bool>()[0]);
  EXPECT_TRUE(t.data<bool>()[1]);
  EXPECT_TRUE(t.data<bool>()[2]);
}

TEST(TensorProto, ReadsInt64Uint64AndDoubleData) {
  TP p;
  p.set_data_type(TP::INT64);
  p.add_int64_data(-5000000000LL);
  EXPECT_EQ(tensor_from_proto(p, {}, "").data<int64_t>()[0], -5000000000LL);  // rank 0
  TP u;
  u.set_data_type(TP::UINT32);
  u.add_dims(1);
  u.add_uint64_data(4000000000ULL);
  EXPECT_EQ(tensor_from_proto(u, {}, "").data<uint32_t>()[0], 4000000000U);
  TP d;
  d.set_data_type(TP::DOUBLE);
  d.add_dims(1);
  d.add_double_data(0.1);
  EXPECT_EQ(tensor_from_proto(d, {}, "").data<double>()[0], 0.1);
}

TEST(TensorProto, ReadsRawDataLittleEndian) {
  TP p;
  p.set_data_type(TP::FLOAT);
  p.add_dims(3);
  p.set_raw_data(le_bytes_f32({1.0f, -0.5f, 8.0f}));
  const Tensor t = tensor_from_proto(p, {}, "");
  EXPECT_EQ(t.data<float>()[1], -0.5f);
  EXPECT_EQ(t.data<float>()[2], 8.0f);

  TP i;
  i.set_data_type(TP::INT16);
  i.add_dims(2);
  i.set_raw_data(std::string("\x01\x02\xff\xff", 4));
  const Tensor ti = tensor_from_proto(i, {}, "");
  EXPECT_EQ(ti.data<int16_t>()[0], 0x0201);
  EXPECT_EQ(ti.data<int16_t>()[1], -1);
}

TEST(TensorProto, ValueCountMustMatchShape) {
  TP p;
  p.set_name("w");
  p.set_data_type(TP::FLOAT);
  p.add_dims(3);
  p.add_dims(4);
  for (int k = 0; k < 10; ++k) p.add_float_data(1.0f);
  const Error e = catch_error([&] { tensor_from_proto(p, {}, ""); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_NE(e.message().find("tensor 'w' has 10 values but shape 3x4 needs 12"), std::string::npos)
      << e.message();

  TP r;
  r.set_name("r");
  r.set_data_type(TP::INT32);
  r.add_dims(2);
  r.set_raw_data(std::string(7, '\0'));
  EXPECT_EQ(catch_error([&] { tensor_from_proto(r, {}, ""); }).kind(), ErrorKind::InvalidModel);
}

TEST(TensorProto, RejectsUnsupportedAndUndefinedTypes) {
  TP p;
  p.set_name("h");
  p.set_data_type(TP::FLOAT16);
  p.add_dims(1);
  p.add_int32_data(0x3C00);
  const Error e = catch_error([&] { tensor_from_proto(p, {}, ""); });
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_NE(e.message().find("float16"), std::string::npos) << e.message();

  p.set_data_type(TP::STRING);
  EXPECT_EQ(catch_error([&] { tensor_from_proto(p, {}, ""); }).kind(), ErrorKind::Unsupported);
  p.set_data_type(TP::UNDEFINED);
  EXPECT_EQ(catch_error([&] { tensor_from_proto(p, {}, ""); }).kind(), ErrorKind::InvalidModel);
  p.set_data_type(77);
  EXPECT_EQ(catch_error([&] { tensor_from_proto(p, {}, ""); }).kind(), ErrorKind::InvalidModel);
}

TEST(TensorProto, RejectsNegativeAndAbsurdDims) {
  TP p;
  p.set_data_type(TP::FLOAT);
  p.add_dims(-2);
  EXPECT_EQ(catch_error([&] { tensor_from_proto(p, {}, ""); }).kind(), ErrorKind::InvalidModel);
  TP q;
  q.set_data_type(TP::FLOAT);
  q.add_dims(int64_t{1} << 20);
  q.add_dims(int64_t{1} << 20);
  EXPECT_EQ(catch_error([&] { tensor_from_proto(q, {}, ""); }).kind(), ErrorKind::InvalidModel);
}

TEST(TensorProto, WritesRawDataAndRoundTripsEveryType) {
  TempDir dir;
  const Tensor f = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, -6.5f});
  TP p;
  tensor_to_proto(f, "x", &p);
  EXPECT_EQ(p.name(), "x");
  EXPECT_EQ(p.data_type(), TP::FLOAT);
  ASSERT_EQ(p.dims_size(), 2);
  EXPECT_EQ(p.dims(1), 3);
  EXPECT_EQ(p.raw_data(), le_bytes_f32({1, 2, 3, 4, 5, -6.5f}));

  const std::vector<Tensor> tensors = {
      f,
      Tensor::from_vector<double>({2}, {1e300, -2.5}),
      Tensor::from_vector<int8_t>({3}, {-1, 0, 127}),
      Tensor::from_vector<int16_t>({1}, {-300}),
      Tensor::from_vector<int32_t>({2}, {-70000, 5}),
      Tensor::from_vector<int64_t>({2, 1}, {-1, int64_t{1} << 40}),
      Tensor::from_vector<uint8_t>({2}, {0, 255}),
      Tensor::from_vector<uint16_t>({1}, {65535}),
      Tensor::from_vector<uint32_t>({1}, {4000000000U}),
      Tensor::from_vector<uint64_t>({1}, {uint64_t{1} << 63}),
      Tensor::from_vector<bool>({3}, {true, false, true}),
      Tensor::scalar<float>(2.0f),
      Tensor(DType::Float32, {0, 3}),
  };
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const fs::path file = dir.path() / ("t" + std::to_string(i) + ".pb");
    write_tensor_pb(file, tensors[i], "name" + std::to_string(i));
    std::string name;
    const Tensor back = read_tensor_pb(file, &name);
    EXPECT_EQ(name, "name" + std::to_string(i));
    EXPECT_EQ(back.type(), tensors[i].type()) << i;
    ASSERT_EQ(back.byte_size(), tensors[i].byte_size()) << i;
    EXPECT_EQ(std::memcmp(back.raw().data(), tensors[i].raw().data(), back.byte_size()), 0) << i;
  }
}

TEST(TensorProto, ReadsConformanceCorpusFile) {
  // input_1 of test_conv_with_strides_padding is the all-ones 1x1x3x3 weight.
  const fs::path file =
      "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding/test_data_set_0/"
      "input_1.pb";
  if (!fs::exists(file)) GTEST_SKIP() << "libonnx-testdata not installed";
  const Tensor t = read_tensor_pb(file);
  EXPECT_EQ(t.type().to_string(), "float32[1x1x3x3]");
  for (float v : t.data<float>()) EXPECT_EQ(v, 1.0f);
}

TEST(TensorProto, ReadTensorPbRejectsGarbageEmptyAndMissingFiles) {
  TempDir dir;
  const fs::path garbage = dir.path() / "garbage.pb";
  write_bytes(garbage, std::string("\xff\xff\xff\xff\xff\xff this is not protobuf", 28));
  Error e = catch_error([&] { read_tensor_pb(garbage); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_NE(e.message().find("garbage.pb"), std::string::npos);

  const fs::path empty = dir.path() / "empty.pb";
  write_bytes(empty, "");
  EXPECT_EQ(catch_error([&] { read_tensor_pb(empty); }).kind(), ErrorKind::InvalidModel);

  // A truncated tensor file: raw_data is cut short.
  TP p;
  tensor_to_proto(Tensor::from_vector<float>({4}, {1, 2, 3, 4}), "x", &p);
  const std::string full = p.SerializeAsString();
  const fs::path cut = dir.path() / "cut.pb";
  write_bytes(cut, full.substr(0, full.size() - 3));
  EXPECT_EQ(catch_error([&] { read_tensor_pb(cut); }).kind(), ErrorKind::InvalidModel);

  EXPECT_EQ(catch_error([&] { read_tensor_pb(dir.path() / "missing.pb"); }).kind(), ErrorKind::Io);
}

// --- external data ---------------------------------------------------------

TP external_tensor(const std::string& location, std::optional<int64_t> offset,
                   std::optional<int64_t> length) {
  TP p;
  p.set_name("big");
  p.set_data_type(TP::FLOAT);
  p.add_dims(2);
  p.set_data_location(TP::EXTERNAL);
  auto add = [&](const std::string& k, const std::string& v) {
    auto* kv = p.add_external_data();
    kv->set_key(k);
    kv->set_value(v);
  };
  add("location", location);
  if (offset) add("offset", std::to_string(*offset));
  if (length) add("length", std::to_string(*length));
  return p;
}

TEST(TensorProtoExternal, ReadsWithOffsetAndLength) {
  TempDir dir;
  fs::create_directories(dir.path() / "weights");
  write_bytes(dir.path() / "weights" / "w.bin", "PAD!" + le_bytes_f32({3.0f, -1.0f}) + "TAIL");
  const Tensor t = tensor_from_proto(external_tensor("weights/w.bin", 4, 8), dir.path(), "");
  EXPECT_EQ(t.data<float>()[0], 3.0f);
  EXPECT_EQ(t.data<float>()[1], -1.0f);

  // Without offset/length the whole file is the tensor.
  write_bytes(dir.path() / "exact.bin", le_bytes_f32({7.0f, 8.0f}));
  const Tensor u = tensor_from_proto(external_tensor("exact.bin", {}, {}), dir.path(), "");
  EXPECT_EQ(u.data<float>()[1], 8.0f);
}

TEST(TensorProtoExternal, RejectsEscapingAbsoluteMissingAndShortFiles) {
  TempDir dir;
  write_bytes(dir.path() / "short.bin", le_bytes_f32({1.0f}));
  const fs::path model_dir = dir.path() / "model";
  fs::create_directories(model_dir);
  write_bytes(model_dir / "short.bin", le_bytes_f32({1.0f}));

  for (const auto& [loc, needle] :
       std::vector<std::pair<std::string, std::string>>{{"/etc/passwd", "absolute"},
                                                        {"../short.bin", "outside"},
                                                        {"sub/../../short.bin", "outside"},
                                                        {"missing.bin", "cannot open"},
                                                        {"short.bin", "big"}}) {
    const Error e =
        catch_error([&] { tensor_from_proto(external_tensor(loc, {}, {}), model_dir, ""); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel) << loc;
    EXPECT_NE(e.message().find(needle), std::string::npos) << loc << ": " << e.message();
    EXPECT_NE(e.message().find("big"), std::string::npos) << e.message();  // names the tensor
  }
  // Declared length fits the type but the file ends early.
  const Error e =
      catch_error([&] { tensor_from_proto(external_tensor("short.bin", 0, 8), model_dir, ""); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_NE(e.message().find("too short"), std::string::npos) << e.message();
  EXPECT_EQ(catch_error([&] {
              tensor_from_proto(external_tensor("short.bin", {}, {}), model_dir, "");
            }).kind(),
            ErrorKind::InvalidModel);
}

}  // namespace
}  // namespace kiln::onnx_import
