// C from the loop IR, checked against references it does not share code
// with: the C runtime's assignment against numeric::quantize on random
// values of every mode, and whole zoo models compiled by gcc as C99
// (-pedantic -Werror) and run against loop::interpret, raw value for raw
// value.
#include "kiln/cgen/print_c.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "kiln/cgen/c_runtime.h"
#include "kiln/cgen/clean_up.h"
#include "kiln/hls/build_model.h"
#include "kiln/hls/library_headers.h"
#include "kiln/hls/prepare.h"
#include "kiln/loop/interpret.h"
#include "kiln/loop/loop_text.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/loop/testing/emulator_match.h"
#include "kiln/support/error.h"
#include "kiln/support/testing/test_helpers.h"
#include "kiln/tools/process.h"

namespace kiln::cgen {
namespace {

namespace fs = std::filesystem;
using kiln::testing::TempDir;

void write(const fs::path& p, std::string_view text) {
  std::ofstream(p) << text;
}

// Compiles `files` in `dir` as C99 with every warning an error; the
// compiler's output on failure.
std::string compile_c99(const fs::path& dir, const std::vector<std::string>& files,
                        const std::string& out) {
  std::vector<std::string> args = {"-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O1"};
  args.insert(args.end(), files.begin(), files.end());
  args.insert(args.end(), {"-o", out, "-lm"});
  tools::ProcessOptions o;
  o.cwd = dir;
  o.timeout_seconds = 300;
  const tools::ProcessResult r = tools::run_process("gcc", args, o);
  return r.ok() ? "" : r.status_text() + ": " + r.err;
}

std::string run(const fs::path& dir, const std::string& program, const std::string& input) {
  tools::ProcessOptions o;
  o.cwd = dir;
  o.timeout_seconds = 300;
  const tools::ProcessResult r = tools::run_process((dir / program).string(), {input}, o);
  EXPECT_TRUE(r.ok()) << r.status_text() << r.err;
  return r.out;
}

TEST(CRuntime, AssignmentEqualsTheEmulatorsOnEveryMode) {
  TempDir tmp;
  write(tmp.path() / kCFixedHeaderName, c_fixed_header());
  struct Case {
    int64_t raw;
    int from_frac;
    numeric::FixedType t;
  };
  std::vector<Case> cases;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 4000; ++i) {
    numeric::FixedType t;
    t.width = 1 + static_cast<int>(rng() % 63);
    t.is_signed = rng() % 2 == 0 || t.width == 63;
    if (!t.is_signed && t.width == 63) t.width = 62;
    t.integer = t.width - static_cast<int>(rng() % 40) + 10;
    t.quant = static_cast<numeric::QuantMode>(rng() % 7);
    t.overflow = static_cast<numeric::OverflowMode>(rng() % 4);
    const int bits = 1 + static_cast<int>(rng() % 62);
    int64_t raw = static_cast<int64_t>(rng() >> (64 - bits));
    if (rng() % 2) raw = -raw;
    if (rng() % 50 == 0) raw = 0;
    cases.push_back({raw, static_cast<int>(rng() % 90) - 20, t});
  }
  std::string c =
      fmt::format("#include <stdio.h>\n#include \"{}\"\nint main(void) {{\n", kCFixedHeaderName);
  for (const Case& x : cases)
    c += fmt::format(
        "  printf(\"%lld\\n\", (long long)kiln_quantize(INT64_C({}), {}, {}, {}, {}, "
        "KILN_{}, KILN_{}));\n",
        x.raw, x.from_frac, x.t.width, x.t.frac(), x.t.is_signed ? 1 : 0, enum_name(x.t.quant),
        enum_name(x.t.overflow));
  // Doubles too: a testbench's inputs.
  std::vector<std::pair<double, numeric::FixedType>> doubles;
  for (int i = 0; i < 500; ++i) {
    numeric::FixedType t = cases[static_cast<std::size_t>(i)].t;
    const double v = std::ldexp(static_cast<double>(static_cast<int64_t>(rng() >> 11)) - 0x1p52,
                                static_cast<int>(rng() % 80) - 70);
    doubles.emplace_back(v, t);
    c += fmt::format(
        "  printf(\"%lld\\n\", (long long)kiln_from_double({:a}, {}, {}, {}, KILN_{}, "
        "KILN_{}));\n",
        v, t.width, t.frac(), t.is_signed ? 1 : 0, enum_name(t.quant), enum_name(t.overflow));
  }
  c += "  return 0;\n}\n";
  write(tmp.path() / "q.c", c);
  ASSERT_EQ(compile_c99(tmp.path(), {"q.c"}, "q"), "");
  std::istringstream out(run(tmp.path(), "q", ""));
  int mismatches = 0;
  for (const Case& x : cases) {
    long long got = 0;
    out >> got;
    const int64_t want = numeric::quantize(numeric::Exact{x.raw, x.from_frac}, x.t);
    if (got != want && ++mismatches < 5)
      ADD_FAILURE() << x.raw << " at " << x.from_frac << " to " << x.t.to_string() << ": C " << got
                    << ", emulator " << want;
  }
  for (const auto& [v, t] : doubles) {
    long long got = 0;
    out >> got;
    const int64_t want = numeric::quantize(v, t);
    if (got != want && ++mismatches < 5)
      ADD_FAILURE() << v << " to " << t.to_string() << ": C " << got << ", emulator " << want;
  }
  EXPECT_EQ(mismatches, 0);
}

hls::Model model_of(const fs::path& onnx) {
  const hls::PreparedGraph g = hls::prepare_graph(onnx, {});
  return hls::build_model(g.passed, hls::Config{}, nullptr);
}

hls::Model zoo(const std::string& name) {
  return model_of(kiln::testing::zoo_model(name));
}

// Programs over this many operations run too long for the default suite.
constexpr int64_t kMostOps = 50'000'000;

class CFromLoop : public ::testing::TestWithParam<std::string> {};

// Compiles `files` in `dir` as C++14 with kiln's headers (kiln/) and every
// warning an error; the compiler's output on failure.
std::string compile_cpp(const fs::path& dir, const std::vector<std::string>& files,
                        const std::string& out) {
  fs::create_directories(dir / "kiln");
  for (const hls::EmbeddedFile& f : hls::library_headers()) write(dir / "kiln" / f.name, f.text);
  std::vector<std::string> args = {"-std=c++14", "-Wall", "-Wextra", "-Werror", "-O1", "-I."};
  args.insert(args.end(), files.begin(), files.end());
  args.insert(args.end(), {"-o", out});
  tools::ProcessOptions o;
  o.cwd = dir;
  o.timeout_seconds = 600;
  const tools::ProcessResult r = tools::run_process("g++", args, o);
  return r.ok() ? "" : r.status_text() + ": " + r.err.substr(0, 4000);
}

// The model's program, cleaned up and printed in `dialect`, compiled and
// run on random inputs over twice each input type's range (saturation and
// wrap included), gives loop::interpret's raw outputs for the program
// before the clean-ups.
void expect_interpreters_outputs(const std::string& model, Dialect dialect) {
  hls::Model m;
  try {
    m = model_of(kiln::testing::source_dir() / "models" / model / "model.onnx");
  } catch (const Error& e) {
    GTEST_SKIP() << "not an HLS model: " << e.message();
  }
  const loop::Program p = loop::lower_model(m);
  int64_t ops = 0;
  for (const loop::Kernel& k : p.kernels) ops += loop::dynamic_ops(k);
  if (ops > kMostOps) GTEST_SKIP() << ops << " operations";
  TempDir tmp;
  loop::Program cleaned = p;
  clean_up(cleaned);
  loop::verify(cleaned);  // the clean-ups keep the loop IR's rules
  PrintOptions po;
  po.dialect = dialect;
  const CProgram c = print_c(cleaned, "top", po);
  write(tmp.path() / "top.h", c.header);
  if (dialect == Dialect::C99) {
    write(tmp.path() / "top.c", c.source);
    write(tmp.path() / kCFixedHeaderName, c_fixed_header());
    write(tmp.path() / "main.c", print_c_raw_main(p, "top"));
    ASSERT_EQ(compile_c99(tmp.path(), {"top.c", "main.c"}, "sim"), "");
  } else {
    write(tmp.path() / "top.cpp", c.source);
    write(tmp.path() / "main.cpp", print_c_raw_main(p, "top", dialect));
    ASSERT_EQ(compile_cpp(tmp.path(), {"top.cpp", "main.cpp"}, "sim"), "");
  }

  std::string input;
  std::vector<std::vector<hls::FixedTensor>> want;
  for (uint32_t seed = 1; seed <= 2; ++seed) {
    const auto raw = loop::testing::raw_inputs(m, loop::testing::random_inputs(m, seed));
    for (const std::vector<int64_t>& in : raw)
      for (int64_t v : in) input += std::to_string(v) + " ";
    input += "\n";
    want.push_back(loop::interpret(p, raw).outputs);
  }
  write(tmp.path() / "in.txt", input);
  std::istringstream out(run(tmp.path(), "sim", "in.txt"));
  for (std::size_t s = 0; s < want.size(); ++s)
    for (std::size_t o = 0; o < want[s].size(); ++o)
      for (std::size_t i = 0; i < want[s][o].raw.size(); ++i) {
        long long got = 0;
        ASSERT_TRUE(out >> got) << "sample " << s << ": the C printed too few values";
        ASSERT_EQ(got, want[s][o].raw[i])
            << model << ": sample " << s << ", output " << o << ", element " << i;
      }
}

// Every zoo and coverage model's C (the ones the HLS flow builds), as C99.
TEST_P(CFromLoop, CompilesAsC99AndEqualsTheInterpreter) {
  expect_interpreters_outputs(GetParam(), Dialect::C99);
}

// The same as the Vitis dialect's typed C++ on kiln_fixed.h (the ap_types
// tier, scripts/test.sh ap_types, builds it on the vendor's headers).
TEST_P(CFromLoop, TypedCppEqualsTheInterpreter) {
  expect_interpreters_outputs(GetParam(), Dialect::VitisCpp);
}

INSTANTIATE_TEST_SUITE_P(Models, CFromLoop,
                         ::testing::ValuesIn(kiln::testing::zoo_and_coverage_models()),
                         kiln::testing::ModelParamName());

// A value wider than int64_t arithmetic holds is refused, naming the layer.
TEST(CFromLoop, RefusesAValueWiderThan63Bits) {
  const hls::Model m = zoo("dense_a");
  loop::Program p = loop::lower_model(m);
  for (loop::Value& v : p.kernels[0].values)
    if (v.op == loop::Op::Mul) v.type.width = 70;
  const Error e = kiln::testing::catch_error([&] { print_c(p, "top"); });
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_NE(std::string(e.what()).find("70 bits"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace kiln::cgen

namespace kiln::cgen {
namespace {

// Seed 001's elementary operations with shared subexpressions, for indices:
// x[i][j] and y[i][j] share one flat index, built as partial sums, each at
// the top of the loop whose term it adds; the loads and the store use it.
TEST(PrintC, IndicesArePartialSumsSharedByTheAccessesAndComputedOncePerLoop) {
  const loop::Program p = loop::parse_program(kiln::testing::text_block(R"(
program "s"
buffer @x input ap_fixed<8,3> [4x3]
buffer @y output ap_fixed<9,4> [4x3]
inputs @x
outputs @y
kernel k "/K" reads @x writes @y locals {
  for %i < 4 {
    for %j < 3 {
      %v0 = load @x[%i, %j] : ap_fixed<8,3>
      %v1 = load @x[%i, 2] : ap_fixed<8,3>
      %v2 = add %v0, %v1 : ap_fixed<9,4>
      store @y[%i, %j] = %v2
    }
  }
}
)"),
                                              "s.loop");
  const std::string c = print_c(p, "top").source;
  const std::string want =
      "  for (int64_t l0 = 0; l0 < 4; ++l0) { /* i */\n"
      "    const int64_t x0 = 3 * l0;\n"
      "    const int64_t x1 = 2 + 3 * l0;\n"
      "    for (int64_t l1 = 0; l1 < 3; ++l1) { /* j */\n"
      "      const int64_t x2 = x0 + l1;\n"
      "      const int64_t v0 = (int64_t)b0_x[x2]; /* ap_fixed<8,3> */\n"
      "      const int64_t v1 = (int64_t)b0_x[x1]; /* ap_fixed<8,3> */\n";
  EXPECT_NE(c.find(want), std::string::npos) << c;
  EXPECT_NE(c.find("b1_y[x2] = "), std::string::npos) << c;
}

}  // namespace
}  // namespace kiln::cgen
