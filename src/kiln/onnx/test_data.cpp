#include "kiln/onnx/test_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <utility>

#include "kiln/onnx/npy.h"
#include "kiln/support/error.h"

namespace kiln::onnx_import {

namespace fs = std::filesystem;

std::vector<fs::path> test_data_sets(const fs::path& dir) {
  std::vector<fs::path> sets;
  std::error_code ec;
  if (fs::is_directory(dir, ec))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0)
        sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  return sets;
}

std::vector<fs::path> numbered_tensor_files(const fs::path& set, const std::string& prefix) {
  std::vector<std::pair<int, fs::path>> found;
  for (const auto& e : fs::directory_iterator(set)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || e.path().extension() != ".pb") continue;
    const std::string num = name.substr(prefix.size(), name.size() - prefix.size() - 3);
    if (num.empty() || num.size() > 6 ||
        !std::all_of(num.begin(), num.end(), [](unsigned char c) { return std::isdigit(c); }))
      continue;
    found.emplace_back(std::stoi(num), e.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> out;
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (found[i].first != static_cast<int>(i))
      throw_error(ErrorKind::InvalidModel, set.string(),
                  fmt::format("{}{}.pb is missing", prefix, i), "data sets number files from 0");
    out.push_back(found[i].second);
  }
  return out;
}

std::vector<std::vector<Tensor>> read_test_data_inputs(const fs::path& dir) {
  const std::vector<fs::path> sets = test_data_sets(dir);
  if (sets.empty())
    throw_error(ErrorKind::Usage, dir.string(), "no test_data_set_* directories",
                "give a directory in the ONNX backend-test layout (test_data_set_N/input_K.pb)");
  std::vector<std::vector<Tensor>> samples;
  for (const fs::path& set : sets) {
    std::vector<Tensor> in;
    for (const fs::path& f : numbered_tensor_files(set, "input_"))
      in.push_back(read_tensor_file(f));
    samples.push_back(std::move(in));
  }
  return samples;
}

}  // namespace kiln::onnx_import
