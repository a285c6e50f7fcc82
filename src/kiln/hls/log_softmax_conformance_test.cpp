// LogSoftmax against ONNX's conformance data (Debian's libonnx-testdata,
// node/test_logsoftmax_*): each model through the HLS flow (graph passes,
// layers, the emulator, which defines the generated design's values) and its
// outputs compared with ONNX's expected ones, within a bound derived from the
// layer's tables and formats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "kiln/hls/build_model.h"
#include "kiln/hls/emulate/emulator.h"
#include "kiln/hls/ports.h"
#include "kiln/hls/prepare.h"
#include "kiln/hls/tables.h"
#include "kiln/onnx/npy.h"
#include "kiln/support/error.h"

namespace kiln::hls {
namespace {

namespace fs = std::filesystem;

const fs::path kNode = "/usr/share/libonnx-testdata/data/node";

// The worst error of one Softmax layer with log=true on a row of `length`
// inputs of format `in`:
//  - exp table: left bin edges overstate exp(-d) by a factor < exp(bin)
//    (log: < exp(bin) - 1); entries rounded toward -inf lose < 1 LSB each on
//    a sum >= 1; a difference past the table's end reads exp(-(R - bin))
//    instead of a smaller value;
//  - log table: bin midpoints err by < half a bin on a sum >= 1, plus the
//    entry's LSB;
//  - the inputs' rounding moves x_i - m and the log-sum by one LSB each, the
//    result's rounding by one LSB.
double error_bound(const Layer& l, const FixedType& in) {
  const auto& p = l.as<SoftmaxParams>();
  const TableGeometry eg = table_geometry(TableKind::SoftmaxExp, l.tables, p.length, l.name);
  const TableGeometry lg = table_geometry(TableKind::SoftmaxLog, l.tables, p.length, l.name);
  const double n = static_cast<double>(p.length);
  const double ebin = std::ldexp(1.0, -eg.shift), lbin = std::ldexp(1.0, -lg.shift);
  const double exp_err = std::expm1(ebin) + n * l.precision.table.lsb() +
                         n * l.precision.accum.lsb() + n * std::exp(-(eg.range - ebin));
  const double log_err = lbin / 2 + l.precision.log_table.lsb();
  return exp_err + log_err + 3 * in.lsb() + l.precision.result.lsb();
}

struct Measured {
  double max_error = 0;
  double bound = 0;
  int64_t values = 0;
};

// Runs `dir`'s model with every layer's result (and so the input) in
// `result`; nullopt when the inputs do not fit it. The HLS design takes one
// sample: a [3x4x5] model is imported with batch 1 (hls::prepare_graph), and
// each of ONNX's 3 samples runs on its own.
std::optional<Measured> run_case(const fs::path& dir, const FixedType& result) {
  const PreparedGraph g = prepare_graph(dir / "model.onnx", {});
  Config cfg;
  cfg.model.result = PrecisionSpec{false, result};
  const Model m = build_model(g.passed, cfg, nullptr);
  const Tensor x = onnx_import::read_tensor_file(dir / "test_data_set_0/input_0.pb");
  const Tensor want = onnx_import::read_tensor_file(dir / "test_data_set_0/output_0.pb");
  for (int64_t i = 0; i < x.numel(); ++i)
    if (x.as_double(i) < result.min_value() || x.as_double(i) > result.max_value())
      return std::nullopt;
  const Layer* sm = nullptr;
  for (const Layer& l : m.layers)
    if (l.kind() == LayerKind::Softmax) sm = &l;
  EXPECT_NE(sm, nullptr);
  if (sm == nullptr) return std::nullopt;
  EXPECT_TRUE(sm->as<SoftmaxParams>().log);
  const TensorInfo& in = m.tensors.at(static_cast<std::size_t>(m.inputs.at(0)));
  const TensorInfo& out = m.tensors.at(static_cast<std::size_t>(m.outputs.at(0)));
  const std::vector<int64_t> in_map = port_element_map(in.shape, m.input_ports.at(0).perm);
  const std::vector<int64_t> out_map = port_element_map(out.shape, m.output_ports.at(0).perm);
  const int64_t per = static_cast<int64_t>(in_map.size());
  EXPECT_EQ(x.numel() % per, 0);
  EXPECT_EQ(want.numel(), x.numel());
  Measured got;
  got.bound = error_bound(*sm, result);
  for (int64_t b = 0; b < x.numel() / per; ++b) {
    std::vector<double> sample;
    for (int64_t k : in_map) sample.push_back(x.as_double(b * per + k));
    const FixedTensor y = emulate(m, {sample}).outputs.at(0);
    for (std::size_t i = 0; i < out_map.size(); ++i) {
      const int64_t k = b * per + out_map[i];
      const double e = std::abs(y.at(i) - want.as_double(k));
      got.max_error = std::max(got.max_error, e);
      ++got.values;
      EXPECT_LE(e, got.bound) << "element " << k << ": got " << y.at(i) << ", ONNX "
                              << want.as_double(k);
    }
  }
  EXPECT_EQ(got.values, want.numel());
  return got;
}

// The message kiln gives for `dir`'s model, "" if it builds.
std::string refusal(const fs::path& dir) {
  try {
    build_model(prepare_graph(dir / "model.onnx", {}).passed, Config{}, nullptr);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    return e.message();
  }
  return "";
}

TEST(LogSoftmaxConformance, MatchesOnnxWithinTheTableBound) {
  if (!fs::exists(kNode)) GTEST_SKIP() << kNode << " missing: install libonnx-testdata";
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(kNode)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("test_logsoftmax_", 0) == 0 && name.find("expanded") == std::string::npos)
      dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  ASSERT_EQ(dirs.size(), 7u);
  // axis 0 of [3x4x5] is the batch axis once the model is imported with
  // batch 1: refused in one line, exactly as the Softmax counterpart is.
  const fs::path axis0 = kNode / "test_logsoftmax_axis_0";
  const std::string why = refusal(axis0);
  EXPECT_NE(why, "");
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  std::string softmax_why = refusal(kNode / "test_softmax_axis_0");
  for (std::size_t at = 0; (at = softmax_why.find("Softmax", at)) != std::string::npos; at += 10)
    softmax_why.replace(at, 7, "LogSoftmax");
  EXPECT_EQ(why, softmax_why);
  dirs.erase(std::find(dirs.begin(), dirs.end(), axis0));
  // Kiln's default result format, and a wide one for large_number's inputs
  // (10,000), which the default cannot hold.
  const FixedType formats[] = {FixedType{16, 6}, FixedType{32, 16}};
  int wide_runs = 0;
  for (const FixedType& f : formats) {
    for (const fs::path& dir : dirs) {
      SCOPED_TRACE(dir.filename().string() + " " + f.to_string());
      const std::optional<Measured> got = run_case(dir, f);
      if (!got) {
        EXPECT_EQ(dir.filename(), "test_logsoftmax_large_number") << "inputs out of range";
        continue;
      }
      if (f.width == 32) ++wide_runs;
      std::printf("%-36s %-18s %3lld values  max |error| %.5f  bound %.5f\n",
                  dir.filename().c_str(), f.to_string().c_str(),
                  static_cast<long long>(got->values), got->max_error, got->bound);
    }
  }
  EXPECT_EQ(wide_runs, static_cast<int>(dirs.size()));
}

}  // namespace
}  // namespace kiln::hls
