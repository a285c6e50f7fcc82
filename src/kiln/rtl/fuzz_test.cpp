// The RTL fuzz tier (docs/rtl-design.md "The fuzz tier"): KILN_RTL_FUZZ
// random designs (testing/random_designs.h; 10,000 by default) from seed
// KILN_RTL_FUZZ_FIRST (1000), each built and run in kiln's netlist
// interpreter against the emulator on random and extreme inputs, every
// KILN_RTL_FUZZ_ICARUS-th (100) also in Icarus and every
// KILN_RTL_FUZZ_VERILATOR-th (none) in Verilator, the outside references.
// Designs kiln refuses to build (exit 2 or 3 for a user) do not count; a
// crash, an internal error or a generator that writes an invalid model does.
// The summary line counts the forms drawn; `scripts/test.sh fuzz-rtl N`
// runs N.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>

#include "kiln/rtl/lower/design.h"
#include "kiln/rtl/testing/random_designs.h"
#include "kiln/rtl/testing/sim_check.h"
#include "kiln/support/error.h"
#include "kiln/tools/hdl.h"

namespace kiln::rtl {
namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

struct Settings {
  int n = 10000, first = 1000;
  int icarus_every = 100, verilator_every = 0;  // 0: never
  double slow = 0;            // KILN_RTL_FUZZ_SLOW: print designs taking longer (seconds)
  bool show_refused = false;  // KILN_RTL_FUZZ_SHOW_REFUSED: print each refusal
};

struct Tally {
  int kiln = 0, icarus = 0, verilator = 0, refused = 0;
  std::map<std::string, int> refusals;  // by the message's start
  testing::FormCounts forms;
};

// Seed's design built and simulated (the i-th of the run). False when it
// failed (the test has its failure, with the seed and the design).
bool check_seed(int seed, int i, const Settings& s, Tally& t) {
  const auto start = std::chrono::steady_clock::now();
  const testing::RandomDesign r = testing::random_design(seed);
  SCOPED_TRACE(fmt::format("seed {} ({})\n{}", seed, r.how, r.text));
  Design d;
  try {
    d = build_design(r.model, r.options);
  } catch (const Error& e) {
    // A plan kiln refuses to build (exit 3 for a user) or a target it
    // cannot meet (exit 2) is not a finding; an internal error is.
    if (e.kind() != ErrorKind::Unsupported && e.kind() != ErrorKind::InvalidModel) {
      ADD_FAILURE() << "kiln failed to build it: " << e.what();
      return false;
    }
    ++t.refused;
    ++t.refusals[std::string(e.what()).substr(0, 60)];
    if (s.show_refused) std::cout << fmt::format("RtlFuzz refused seed {}: {}\n", seed, e.what());
    return true;
  }
  const testing::Stimulus stimulus = testing::fuzz_stimulus(r.model, seed);
  const auto simulate = [&](tools::Simulator sim, int& ok) {
    testing::expect_bit_exact(r.model, d, sim, stimulus);
    ok += !::testing::Test::HasFailure();
    return !::testing::Test::HasFailure();
  };
  if (!simulate(tools::Simulator::Kiln, t.kiln)) return false;
  t.forms.add(testing::design_forms(r, d));
  if (s.icarus_every > 0 && i % s.icarus_every == 0 &&
      !simulate(tools::Simulator::Icarus, t.icarus))
    return false;
  if (s.verilator_every > 0 && i % s.verilator_every == 0 &&
      !simulate(tools::Simulator::Verilator, t.verilator))
    return false;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (s.slow > 0 && seconds > s.slow)
    std::cout << fmt::format("RtlFuzz slow seed {}: {:.2f} s ({})\n", seed, seconds, r.how);
  return true;
}

TEST(RtlFuzz, RandomDesignsEqualTheEmulator) {
  Settings s;
  s.n = env_int("KILN_RTL_FUZZ", s.n);
  s.first = env_int("KILN_RTL_FUZZ_FIRST", s.first);
  s.icarus_every = env_int("KILN_RTL_FUZZ_ICARUS", s.icarus_every);
  s.verilator_every = env_int("KILN_RTL_FUZZ_VERILATOR", s.verilator_every);
  if (const char* v = std::getenv("KILN_RTL_FUZZ_SLOW")) s.slow = std::atof(v);
  s.show_refused = std::getenv("KILN_RTL_FUZZ_SHOW_REFUSED") != nullptr;
  Tally t;
  const int most_refused = s.n / 5 + 10;  // the generator mostly makes designs kiln builds
  // Until n designs are checked (designs kiln refuses do not count); the
  // first failure is the finding.
  for (int i = 0; t.kiln < s.n && t.refused <= most_refused; ++i)
    if (!check_seed(s.first + i, i, s, t)) break;
  std::cout << fmt::format(
      "RtlFuzz: {} random designs equal the emulator in kiln's netlist interpreter, {} also in "
      "Icarus, {} also in Verilator; {} refused (exit 2 or 3); forms drawn (designs with each): "
      "{}\n",
      t.kiln, t.icarus, t.verilator, t.refused, t.forms.summary());
  std::vector<std::pair<int, std::string>> common;
  for (const auto& [what, count] : t.refusals) common.emplace_back(count, what);
  std::sort(common.rbegin(), common.rend());
  for (std::size_t k = 0; k < common.size() && k < 8; ++k)
    std::cout << fmt::format("RtlFuzz refused {}: {}...\n", common[k].first, common[k].second);
  EXPECT_EQ(t.kiln, s.n);
  EXPECT_LE(t.refused, most_refused);
  // A few thousand designs draw every form the tier claims to cover.
  if (s.n >= 5000) {
    for (const std::string& form : testing::FormCounts::expected()) {
      EXPECT_GT(t.forms.count(form), 0) << "no design drew " << form;
    }
  }
}

}  // namespace
}  // namespace kiln::rtl
