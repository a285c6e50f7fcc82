// Random CNNs of the shapes the coverage issue named (dilated and grouped
// convolutions, strides, ceil-mode max and average pools), written as kiln IR
// text from a fixed seed: each compiles in io_parallel, io_stream and encoded
// io_stream and C-simulates bit-exact with kiln's emulator, within a small
// error of the golden model (which the ONNX conformance data checks).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <vector>

#include "kiln/support/testing/test_helpers.h"
#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

class RandomCnn {
 public:
  explicit RandomCnn(unsigned seed) : rng_(seed) {}

  // The IR text of one model: 2 or 3 conv blocks (some followed by a pool),
  // then a global average pool and a Linear to 3 outputs.
  std::string text() {
    std::ostringstream s;
    s << "kir 1\ngraph \"random\" opset 13\n";
    int64_t c = uni(1, 3), h = uni(7, 11), w = uni(7, 11);
    s << "input %x: float32[1x" << c << "x" << h << "x" << w << "]\n";
    std::string x = "%x";
    const int64_t blocks = uni(2, 3);
    for (int64_t b = 0; b < blocks; ++b) {
      const std::string id = std::to_string(b);
      // groups divide both channel counts (c_out a multiple of the groups):
      // 1, 2, or every input channel (depthwise, with a channel multiplier).
      std::vector<int64_t> choices = {1};
      if (c % 2 == 0) choices.push_back(2);
      if (c > 2) choices.push_back(c);
      const int64_t groups = choices[static_cast<std::size_t>(uni(0, choices.size() - 1))];
      const int64_t c_out = std::max<int64_t>(groups * uni(1, 3), 2);
      const int64_t k = uni(1, 3), dil = k > 1 ? uni(1, 2) : 1, stride = uni(1, 2);
      const int64_t k_eff = (k - 1) * dil + 1;
      const int64_t pad = uni(0, k_eff - 1);
      if (h + 2 * pad < k_eff || w + 2 * pad < k_eff) break;
      s << "const %w" << id << ": float32[" << c_out << "x" << c / groups << "x" << k << "x" << k
        << "] = " << values(c_out * (c / groups) * k * k, 0.6) << "\n";
      s << "const %b" << id << ": float32[" << c_out << "] = " << values(c_out, 0.2) << "\n";
      s << "%c" << id << " = Conv(" << x << ", %w" << id << ", %b" << id << ") {kernel_shape=[" << k
        << "," << k << "] strides=[" << stride << "," << stride << "] pads=[" << pad << "," << pad
        << "," << pad << "," << pad << "] dilations=[" << dil << "," << dil << "] group=" << groups
        << "} @conv" << id << "\n";
      s << "%r" << id << " = Relu(%c" << id << ") @relu" << id << "\n";
      x = "%r" + std::to_string(b);
      c = c_out;
      h = (h + 2 * pad - k_eff) / stride + 1;
      w = (w + 2 * pad - k_eff) / stride + 1;
      const int64_t pk = uni(2, 3);
      if (uni(0, 1) && h >= pk && w >= pk) {
        const bool avg = uni(0, 1);
        s << "%p" << id << " = " << (avg ? "AveragePool" : "MaxPool") << "(" << x
          << ") {kernel_shape=[" << pk << "," << pk
          << "] strides=[2,2] pads=[0,0,0,0] dilations=[1,1] ceil_mode=true} @pool" << id << "\n";
        x = "%p" + id;
        // Ceil mode: a window starts at every stride up to the last pixel.
        h = (h - pk + 1) / 2 + 1;
        w = (w - pk + 1) / 2 + 1;
      }
    }
    s << "%g = GlobalAveragePool(" << x << ") @gap\n%f = Flatten(%g) @flat\n";
    s << "const %fw: float32[3x" << c << "] = " << values(3 * c, 0.5) << "\n";
    s << "const %fb: float32[3] = " << values(3, 0.1) << "\n";
    s << "%y = Gemm(%f, %fw, %fb) {trans_b=true} @fc\noutput %y\n";
    return s.str();
  }

 private:
  int64_t uni(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  std::string values(int64_t n, double scale) {
    std::normal_distribution<double> d(0.0, scale);
    std::ostringstream s;
    s << "[";
    for (int64_t i = 0; i < n; ++i) s << (i ? "," : "") << static_cast<float>(d(rng_));
    s << "]";
    return s.str();
  }

  std::mt19937 rng_;
};

class RandomCnns : public ::testing::TestWithParam<unsigned> {};

TEST_P(RandomCnns, SimulateBitExactInEveryIoType) {
  TempDir tmp;
  const std::string text = RandomCnn(GetParam()).text();
  const fs::path model = tmp.path() / "model.kir";
  std::ofstream(model) << text;
  const std::vector<std::vector<std::string>> variants = {
      {"--set", "IOType=io_parallel"},
      {"--set", "IOType=io_stream"},
      {"--set", "IOType=io_stream", "--set", "Model.ConvImplementation=Encoded"}};
  for (std::size_t v = 0; v < variants.size(); ++v) {
    const fs::path prj = tmp.path() / std::to_string(v);
    std::vector<std::string> compile = {kiln_binary(), "compile", model.string(), "-o",
                                        prj.string()};
    compile.insert(compile.end(), variants[v].begin(), variants[v].end());
    const ProcessResult c = run_process(compile, 300.0);
    ASSERT_EQ(c.exit_code, 0) << variants[v].back() << ": " << c.err << "\n" << text;
    const ProcessResult s = run_process(
        {kiln_binary(), "csim", prj.string(), "--samples", "3", "--werror", "--json"}, 600.0);
    ASSERT_EQ(s.exit_code, 0) << variants[v].back() << ": " << s.out << s.err << "\n" << text;
    const nlohmann::json j = stdout_json(s);
    EXPECT_EQ(j.value("bit_exact_samples", -1), 3) << s.out << "\n" << text;
    const nlohmann::json& f = j["float_reference"];
    EXPECT_TRUE(f.value("max_abs_error", 1.0) < 0.05 || f.value("max_rel_error", 1.0) < 0.05)
        << s.out << "\n"
        << text;
  }
}

constexpr unsigned kSeeds[] = {1, 2, 3, 4, 5, 6, 7, 8};
INSTANTIATE_TEST_SUITE_P(Seeds, RandomCnns, ::testing::ValuesIn(kSeeds));

// The seeds above, together, hold every feature the models are for.
TEST(RandomCnn, SeedsCoverDilationGroupsStridesAndCeilModePools) {
  std::string all;
  for (unsigned seed : kSeeds) all += RandomCnn(seed).text();
  for (const char* feature : {"dilations=[2,2] group=", "strides=[2,2] pads", "group=2}",
                              "= MaxPool(", "= AveragePool(", "ceil_mode=true"})
    EXPECT_NE(all.find(feature), std::string::npos) << feature << "\n" << all;
  bool depthwise = false;  // group = c_in > 2
  for (unsigned seed : kSeeds) {
    const std::string t = RandomCnn(seed).text();
    for (std::size_t at = t.find("group="); at != std::string::npos; at = t.find("group=", at + 1))
      depthwise = depthwise || std::stoi(t.substr(at + 6)) > 2;
  }
  EXPECT_TRUE(depthwise) << all;
}

}  // namespace
}  // namespace kiln::testing
