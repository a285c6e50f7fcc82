// Constant matrix products (rtl/cmvm/cmvm.h) on matrices from files: kiln's
// adders, adder depth and adder bits, unconstrained and at the minimal depth,
// and the solver's time. bench/cmvm.sh runs it beside da4ml's core when
// DA4ML_SRC names a checkout of it.
//
//   kiln_bench_cmvm [--input-bits N] [--sweep] FILE...
//
// --sweep also prints the adders at each depth bound from the least up to
// the unconstrained answer's depth.
//
// A file holds "ROWS COLS" and then ROWS lines of COLS numbers (W[i][j]: y_j
// = sum_i W[i][j] x_i); fractions are scaled by the least power of two that
// makes every weight an integer. Inputs are N-bit signed integers (default 8).
// Without files: five random 16x16 8-bit matrices.
#include "kiln/rtl/cmvm/cmvm.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

struct Named {
  std::string name;
  kiln::rtl::CmvmProblem problem;
};

bool read_matrix(const std::string& path, int bits, Named& out) {
  std::ifstream f(path);
  int rows = 0, cols = 0;
  if (!(f >> rows >> cols) || rows < 1 || cols < 1) return false;
  std::vector<double> v(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  for (double& x : v)
    if (!(f >> x)) return false;
  double scale = 1;
  const auto integral = [&] {
    for (double x : v)
      if (std::abs(x * scale - std::round(x * scale)) > 1e-9) return false;
    return true;
  };
  while (!integral() && scale < 1e9) scale *= 2;
  out.name = path.substr(path.find_last_of('/') + 1);
  out.problem.inputs = rows;
  out.problem.outputs = cols;
  for (double x : v) out.problem.weights.push_back(static_cast<int64_t>(std::llround(x * scale)));
  const int64_t half = int64_t{1} << (bits - 1);
  out.problem.ranges.assign(static_cast<std::size_t>(rows), {-half, half - 1});
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int bits = 8;
  bool sweep = false;
  std::vector<Named> problems;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--input-bits" && a + 1 < argc) {
      bits = std::stoi(argv[++a]);
      continue;
    }
    if (arg == "--sweep") {
      sweep = true;
      continue;
    }
    Named n;
    if (!read_matrix(arg, bits, n)) {
      fmt::print(stderr, "kiln_bench_cmvm: {}: not a matrix (ROWS COLS, then the numbers)\n", arg);
      return 2;
    }
    problems.push_back(std::move(n));
  }
  if (problems.empty()) {
    std::mt19937 rng(2024);
    std::uniform_int_distribution<int64_t> w(-128, 127);
    for (int k = 0; k < 5; ++k) {
      Named n{fmt::format("random16x16_{}", k), {}};
      n.problem.inputs = n.problem.outputs = 16;
      for (int e = 0; e < 256; ++e) n.problem.weights.push_back(w(rng));
      n.problem.ranges.assign(16, {-128, 127});
      problems.push_back(std::move(n));
    }
  }
  fmt::print("{:<22} {:>6} {:>5} {:>8} {:>7} | {:>6} {:>5} {:>8} | {:>8}\n", "matrix", "adders",
             "depth", "bits", "ms", "min:ad", "depth", "bits", "products");
  int failed = 0;
  for (Named& n : problems) {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    const kiln::rtl::CmvmGraph free = kiln::rtl::solve_cmvm(n.problem);
    const double ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    kiln::rtl::CmvmProblem least = n.problem;
    least.max_depth = kiln::rtl::minimal_depth(n.problem);
    const kiln::rtl::CmvmGraph shallow = kiln::rtl::solve_cmvm(least);
    for (const auto& [p, g] : {std::pair{&n.problem, &free}, std::pair{&least, &shallow}})
      if (const std::string why = kiln::rtl::verify_cmvm(*p, *g); !why.empty()) {
        fmt::print(stderr, "{}: the answer is wrong: {}\n", n.name, why);
        ++failed;
      }
    const kiln::rtl::CmvmCounts f = kiln::rtl::cmvm_counts(n.problem, free);
    const kiln::rtl::CmvmCounts s = kiln::rtl::cmvm_counts(least, shallow);
    int64_t products = 0;
    for (int64_t w : n.problem.weights) products += w != 0;
    fmt::print("{:<22} {:>6} {:>5} {:>8} {:>7.1f} | {:>6} {:>5} {:>8} | {:>8}\n", n.name, f.adders,
               f.depth, f.adder_bits, ms, s.adders, s.depth, s.adder_bits, products);
    if (sweep) {
      std::string line = "  by depth bound:";
      for (int d = *least.max_depth + 1; d < f.depth; ++d) {
        kiln::rtl::CmvmProblem bounded = n.problem;
        bounded.max_depth = d;
        const kiln::rtl::CmvmCounts b =
            kiln::rtl::cmvm_counts(bounded, kiln::rtl::solve_cmvm(bounded));
        line += fmt::format(" {}:{}", d, b.adders);
      }
      fmt::print("{}\n", line);
    }
  }
  return failed ? 1 : 0;
}
