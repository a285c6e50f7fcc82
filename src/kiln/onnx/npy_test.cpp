#include "kiln/onnx/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "kiln/support/testing/test_helpers.h"

namespace kiln::onnx_import {
namespace {

namespace fs = std::filesystem;
using kiln::testing::catch_error;
using kiln::testing::TempDir;
using kiln::testing::write_bytes;

std::string read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// A .npy file as numpy writes it: magic, version, header length, dict, data.
std::string npy_file(int major, const std::string& dict, const std::string& data) {
  std::string header = dict;
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  while ((6 + 2 + len_bytes + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < len_bytes; ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return out + header + data;
}

std::string f32_bytes(std::initializer_list<float> vals) {
  std::string s;
  for (float v : vals) {
    char b[4];
    std::memcpy(b, &v, 4);
    s.append(b, 4);
  }
  return s;
}

TEST(Npy, ReadsVersion1Float32) {
  TempDir dir;
  write_bytes(dir / "a.npy",
              npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
                       f32_bytes({1.0f, 2.0f, -3.0f, 0.5f})));
  const Tensor t = read_npy(dir / "a.npy");
  ASSERT_EQ(t.type().to_string(), "float32[2x2]");
  EXPECT_EQ(t.data<float>()[2], -3.0f);
  EXPECT_EQ(t.data<float>()[3], 0.5f);
}

TEST(Npy, ReadsVersions2And3ScalarsAndByteOrders) {
  TempDir dir;
  write_bytes(dir / "v2.npy",
              npy_file(2, "{'descr': '=i4', 'fortran_order': False, 'shape': (3,), }",
                       std::string("\x01\0\0\0\xff\xff\xff\xff\x00\x01\0\0", 12)));
  const Tensor v2 = read_npy(dir / "v2.npy");
  ASSERT_EQ(v2.type().to_string(), "int32[3]");
  EXPECT_EQ(v2.data<int32_t>()[0], 1);
  EXPECT_EQ(v2.data<int32_t>()[1], -1);
  EXPECT_EQ(v2.data<int32_t>()[2], 256);

  write_bytes(dir / "v3.npy",
              npy_file(3, "{\"descr\": \"|u1\", \"fortran_order\": False, \"shape\": (), }",
                       std::string("\xc8", 1)));
  const Tensor v3 = read_npy(dir / "v3.npy");
  ASSERT_EQ(v3.type().to_string(), "uint8[scalar]");
  EXPECT_EQ(v3.data<uint8_t>()[0], 200);

  write_bytes(dir / "b.npy",
              npy_file(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
                       std::string("\x00\x01\x01", 3)));
  const Tensor b = read_npy(dir / "b.npy");
  ASSERT_EQ(b.dtype(), DType::Bool);
  EXPECT_FALSE(b.data<bool>()[0]);
  EXPECT_TRUE(b.data<bool>()[2]);

  // Big-endian int16 0x0102 = 258; Python 2 style long dims "3L".
  write_bytes(dir / "be.npy",
              npy_file(1, "{'descr': '>i2', 'fortran_order': False, 'shape': (1L,), }",
                       std::string("\x01\x02", 2)));
  EXPECT_EQ(read_npy(dir / "be.npy").data<int16_t>()[0], 258);

  write_bytes(dir / "i8.npy",
              npy_file(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (1, 0), }", ""));
  EXPECT_EQ(read_npy(dir / "i8.npy").type().to_string(), "int64[1x0]");
}

TEST(Npy, WritesVersion1HeaderExactly) {
  TempDir dir;
  write_npy(dir / "w.npy", Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  const std::string bytes = read_bytes(dir / "w.npy");
  ASSERT_GE(bytes.size(), 64u + 24u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t header_len =
      static_cast<unsigned char>(bytes[8]) |
      (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  const std::string header = bytes.substr(10, header_len);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u)
      << header;
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(bytes.size(), 10 + header_len + 24);
  EXPECT_EQ(bytes.substr(10 + header_len, 8), f32_bytes({1.0f, 2.0f}));

  write_npy(dir / "s.npy", Tensor::from_vector<int64_t>({4}, {1, 2, 3, 4}));
  EXPECT_NE(
      read_bytes(dir / "s.npy").find("'descr': '<i8', 'fortran_order': False, 'shape': (4,), }"),
      std::string::npos);
  write_npy(dir / "z.npy", Tensor::scalar<bool>(true));
  EXPECT_NE(
      read_bytes(dir / "z.npy").find("'descr': '|b1', 'fortran_order': False, 'shape': (), }"),
      std::string::npos);
}

TEST(Npy, RoundTripsEveryType) {
  TempDir dir;
  const std::vector<Tensor> tensors = {
      Tensor::from_vector<float>({1, 2}, {0.25f, -8}),
      Tensor::from_vector<double>({1}, {1e-300}),
      Tensor::from_vector<int8_t>({2}, {-128, 1}),
      Tensor::from_vector<int16_t>({1}, {-2}),
      Tensor::from_vector<int32_t>({1}, {123456}),
      Tensor::from_vector<int64_t>({1}, {-1}),
      Tensor::from_vector<uint8_t>({1}, {7}),
      Tensor::from_vector<uint16_t>({1}, {40000}),
      Tensor::from_vector<uint32_t>({1}, {3000000000U}),
      Tensor::from_vector<uint64_t>({1}, {18000000000000000000ULL}),
      Tensor::from_vector<bool>({2, 1}, {false, true}),
      Tensor::scalar<float>(3.0f),
  };
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const fs::path file = dir / ("t" + std::to_string(i) + ".npy");
    write_tensor_file(file, tensors[i], "ignored");
    const Tensor back = read_tensor_file(file);
    ASSERT_EQ(back.type(), tensors[i].type()) << i;
    EXPECT_EQ(std::memcmp(back.raw().data(), tensors[i].raw().data(), back.byte_size()), 0) << i;
  }
}

TEST(Npy, RejectsUnsupportedLayouts) {
  TempDir dir;
  write_bytes(dir / "f.npy",
              npy_file(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
                       f32_bytes({1, 2, 3, 4})));
  Error e = catch_error([&] { read_npy(dir / "f.npy"); });
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_NE(e.message().find("Fortran"), std::string::npos) << e.message();

  write_bytes(dir / "h.npy",
              npy_file(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }",
                       std::string(2, '\0')));
  EXPECT_EQ(catch_error([&] { read_npy(dir / "h.npy"); }).kind(), ErrorKind::Unsupported);

  write_bytes(dir / "c.npy",
              npy_file(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
                       std::string(8, '\0')));
  EXPECT_EQ(catch_error([&] { read_npy(dir / "c.npy"); }).kind(), ErrorKind::Unsupported);

  std::string v4 =
      npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", f32_bytes({1}));
  v4[6] = 4;
  write_bytes(dir / "v4.npy", v4);
  EXPECT_EQ(catch_error([&] { read_npy(dir / "v4.npy"); }).kind(), ErrorKind::Unsupported);
}

TEST(Npy, RejectsMalformedFiles) {
  TempDir dir;
  const std::string good =
      npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", f32_bytes({1, 2}));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"magic.npy", "NOTNUMPY" + good.substr(8)},
      {"short.npy", good.substr(0, good.size() - 1)},
      {"long.npy", good + "x"},
      {"header.npy", good.substr(0, 30)},
      {"empty.npy", ""},
      {"nodescr.npy", npy_file(1, "{'fortran_order': False, 'shape': (2,), }", f32_bytes({1, 2}))},
      {"badshape.npy", npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }",
                                f32_bytes({1, 2}))},
      {"negative.npy", npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }",
                                f32_bytes({1, 2}))},
      {"absurd.npy",
       npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999, 99999999), }",
                "")},
  };
  for (const auto& [name, bytes] : cases) {
    write_bytes(dir / name, bytes);
    const Error e = catch_error([&] { read_npy(dir / name); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel) << name << ": " << e.message();
    EXPECT_NE(e.message().find(name), std::string::npos) << e.message();
  }
  EXPECT_EQ(catch_error([&] { read_npy(dir / "missing.npy"); }).kind(), ErrorKind::Io);
}

TEST(Npy, TensorFileDispatchesOnExtension) {
  TempDir dir;
  const Tensor t = Tensor::from_vector<int32_t>({2}, {5, -6});
  write_tensor_file(dir / "x.pb", t, "x");
  EXPECT_EQ(read_tensor_file(dir / "x.pb").data<int32_t>()[1], -6);
  // The .pb file really is a TensorProto, not .npy.
  EXPECT_NE(read_bytes(dir / "x.pb").substr(0, 6), "\x93NUMPY");
  write_tensor_file(dir / "x.NPY", t, "x");
  EXPECT_EQ(read_bytes(dir / "x.NPY").substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(catch_error([&] { read_tensor_file(dir / "x.txt"); }).kind(), ErrorKind::Usage);
  EXPECT_EQ(catch_error([&] { write_tensor_file(dir / "x.bin", t, "x"); }).kind(),
            ErrorKind::Usage);
}

}  // namespace
}  // namespace kiln::onnx_import
