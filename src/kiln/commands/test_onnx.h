// `kiln test-onnx`: run models in the ONNX backend-test layout against their
// expected outputs (model.onnx + test_data_set_*/input_*.pb, output_*.pb).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/onnx/import.h"

namespace kiln::commands {

// numpy.allclose semantics: |got - expected| <= atol + rtol * |expected|.
// 1e-3 / 1e-5 are the ONNX backend tests' own defaults.
struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-5;
};

enum class TestStatus { Pass, Mismatch, Unsupported, Invalid, Internal };
const char* to_string(TestStatus s);
int exit_code(TestStatus s);

struct TestDirResult {
  std::filesystem::path dir;
  TestStatus status = TestStatus::Pass;
  int data_sets = 0;    // data sets compared
  std::string message;  // why it is not a pass (one line)
  // For a mismatch: the worst element over all outputs and data sets.
  std::string worst_output;
  int64_t worst_index = -1;
  double got = 0, expected = 0, abs_error = 0;
  double max_abs_error = 0;  // over everything compared (also on a pass)
  double seconds = 0;
  // Graph inputs fixed to each data set's values because the model needs them
  // as constants (see test_onnx_dir).
  std::vector<std::string> frozen_inputs;
};

// Never throws for problems with the model or data: they become the result's
// status and message. A model that kiln refuses only because some graph inputs
// decide its shapes (Slice bounds, Reshape targets, Resize scales fed at run
// time, as many ONNX node tests do) is specialized to each data set's values of
// exactly the inputs the importer names, which is how kiln would compile it;
// frozen_inputs lists them.
TestDirResult test_onnx_dir(const std::filesystem::path& dir, const Tolerance& tolerance,
                            const onnx_import::ImportOptions& import_options = {});

std::string format_test_line(const TestDirResult& r);
nlohmann::json test_to_json(const TestDirResult& r);

// A run over several directories: "total N: ... passed, ..." and the exit
// code (4 if kiln failed anywhere, else 1 if any mismatched, else 2 if any was
// invalid, else 3 if any was unsupported, else 0).
std::string format_test_totals(const std::vector<TestDirResult>& results);
nlohmann::json test_run_to_json(const std::vector<TestDirResult>& results);
int test_run_exit_code(const std::vector<TestDirResult>& results);

}  // namespace kiln::commands
