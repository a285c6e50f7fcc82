// The ONNX conformance corpus (Debian's libonnx-testdata): every model kiln
// supports must match ONNX's expected outputs, every other one must be a clean
// "unsupported" (exit 3, one line), and nothing may crash, hang or call a
// valid model invalid.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <regex>
#include <thread>

#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

fs::path corpus_root() {
  const char* env = std::getenv("KILN_ONNX_TESTDATA");
  return env ? fs::path(env) : fs::path("/usr/share/libonnx-testdata/data");
}

struct Outcome {
  fs::path dir;
  ProcessResult result;
};

// "op Foo" / "element type float16" / ...: the reason part of an unsupported message,
// with node names removed so the histogram groups alike reasons.
std::string reason_key(const std::string& err) {
  static const std::regex op_re("op ([A-Za-z0-9_]+)");
  std::smatch m;
  if (std::regex_search(err, m, op_re) && err.find("not supported") != std::string::npos)
    return "op " + m[1].str() + " not supported";
  std::string s = err;
  const auto colon = s.rfind(": ", s.find(';') == std::string::npos ? s.size() : s.find(';'));
  if (colon != std::string::npos) s = s.substr(colon + 2);
  s = s.substr(0, s.find(';'));
  s = std::regex_replace(s, std::regex("'[^']*'"), "'…'");
  return s.substr(0, 90);
}

TEST(OnnxConformanceCorpus, SupportedModelsMatchAndTheRestAreCleanlyUnsupported) {
  const fs::path root = corpus_root();
  if (!fs::exists(root)) GTEST_SKIP() << root << " missing: install libonnx-testdata";
  std::vector<fs::path> dirs;
  for (const char* group : {"node", "pytorch-converted", "pytorch-operator", "simple"})
    for (const auto& e : fs::directory_iterator(root / group))
      if (fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  ASSERT_GT(dirs.size(), 1000u) << "the corpus looks incomplete";

  std::vector<Outcome> outcomes(dirs.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next++) < dirs.size();) {
      outcomes[i].dir = dirs[i];
      outcomes[i].result = run_process({kiln_binary(), "test-onnx", dirs[i].string()}, 120.0);
    }
  };
  std::thread t1(worker), t2(worker);
  t1.join();
  t2.join();

  int passed = 0, unsupported = 0, failed = 0;
  std::map<std::string, int> reasons;
  std::vector<std::string> failures;
  for (const Outcome& o : outcomes) {
    const ProcessResult& r = o.result;
    const std::string name =
        o.dir.parent_path().filename().string() + "/" + o.dir.filename().string();
    if (r.timed_out) {
      failures.push_back(name + ": HANG (killed after 120 s)");
    } else if (r.signal) {
      failures.push_back(name + ": CRASH (signal " + std::to_string(r.signal) + ")");
    } else if (r.exit_code == 0) {
      ++passed;
      continue;
    } else if (r.exit_code == 3) {
      // test-onnx reports on stdout: "unsupported <dir>: <where>: <what>; <hint>".
      const bool one_line = r.out.rfind("unsupported", 0) == 0 &&
                            r.out.find(": ") != std::string::npos &&
                            r.out.find('\n') == r.out.size() - 1;
      if (one_line) {
        ++unsupported;
        ++reasons[reason_key(r.out)];
        continue;
      }
      failures.push_back(name + ": exit 3 without a one-line message: " + r.out + r.err);
    } else {
      failures.push_back(name + ": exit " + std::to_string(r.exit_code) + ": " + r.out + r.err);
    }
    ++failed;
  }

  std::vector<std::pair<int, std::string>> by_count;
  for (const auto& [k, v] : reasons) by_count.emplace_back(v, k);
  std::sort(by_count.rbegin(), by_count.rend());
  std::string summary = "unsupported, most common reasons:\n";
  for (std::size_t i = 0; i < by_count.size() && i < 25; ++i)
    summary += "  " + std::to_string(by_count[i].first) + "  " + by_count[i].second + "\n";
  std::cout << summary;
  std::cout << "ONNX corpus: " << dirs.size() << " models: " << passed << " passed, " << unsupported
            << " unsupported (exit 3), " << failed << " failed or crashed\n";
  for (const std::string& f : failures) ADD_FAILURE() << f;
  EXPECT_EQ(failed, 0);
}

}  // namespace
}  // namespace kiln::testing
