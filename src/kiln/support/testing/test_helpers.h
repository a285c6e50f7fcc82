// Helpers shared by kiln's tests (the kiln_support_testing library, linked by tests only).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/support/error.h"

namespace kiln::testing {

// A fresh directory under the system temp dir, removed afterwards.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("kiln_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// A text written as a raw string literal that starts on the line after R"(:
// the leading newline dropped.
inline std::string text_block(std::string_view text) {
  if (!text.empty() && text.front() == '\n') text.remove_prefix(1);
  return std::string(text);
}

inline void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The source tree (models/zoo, docs, the layer library), set by the build.
inline std::filesystem::path source_dir() {
  return KILN_SOURCE_DIR_PATH;
}

// The names of the model directories <dir>/<name>/model.onnx, sorted.
inline std::vector<std::string> model_names(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (std::filesystem::is_regular_file(e.path() / "model.onnx"))
      names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The committed model zoo (models/zoo/<name>/model.onnx) and its model names, sorted.
inline std::filesystem::path zoo_dir() {
  return source_dir() / "models" / "zoo";
}
inline std::filesystem::path zoo_model(const std::string& name) {
  return zoo_dir() / name / "model.onnx";
}
inline std::vector<std::string> zoo_models() {
  return model_names(zoo_dir());
}
// A test parameter's name for a model path ("zoo/lenet5" -> "zoo_lenet5").
struct ModelParamName {
  template <class Info>
  std::string operator()(const Info& info) const {
    std::string s = info.param;
    for (char& c : s)
      if (c == '/') c = '_';
    return s;
  }
};

// Every zoo and coverage model as "zoo/<name>" and "coverage/<name>" (paths
// under models/), for the tests that run each.
inline std::vector<std::string> zoo_and_coverage_models() {
  std::vector<std::string> names;
  for (const char* sub : {"zoo", "coverage"})
    for (const std::string& n : model_names(source_dir() / "models" / sub))
      names.push_back(std::string(sub) + "/" + n);
  return names;
}

// Runs f and returns the kiln::Error it throws (fails the test if none).
template <class F>
Error catch_error(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no kiln::Error thrown";
  return Error(ErrorKind::Internal, "", "no error");
}

}  // namespace kiln::testing

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)
