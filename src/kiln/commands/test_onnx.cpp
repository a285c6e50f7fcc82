#include "kiln/commands/test_onnx.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <new>
#include <optional>

#include "kiln/onnx/npy.h"
#include "kiln/onnx/tensor_proto.h"
#include "kiln/onnx/test_data.h"
#include "kiln/ref/interpreter.h"
#include "kiln/support/error.h"
#include "kiln/support/progress.h"

namespace kiln::commands {

namespace fs = std::filesystem;

const char* to_string(TestStatus s) {
  switch (s) {
    case TestStatus::Pass: return "pass";
    case TestStatus::Mismatch: return "mismatch";
    case TestStatus::Unsupported: return "unsupported";
    case TestStatus::Invalid: return "invalid";
    case TestStatus::Internal: return "internal-error";
  }
  return "?";
}

int exit_code(TestStatus s) {
  switch (s) {
    case TestStatus::Pass: return kExitOk;
    case TestStatus::Mismatch: return kExitMismatch;
    case TestStatus::Unsupported: return kExitUnsupported;
    case TestStatus::Invalid: return kExitInvalid;
    case TestStatus::Internal: return kExitInternal;
  }
  return kExitInternal;
}

namespace {

struct Comparison {
  bool ok = true;
  int64_t index = -1;
  double got = 0, expected = 0, abs_error = 0, max_abs_error = 0;
  std::string problem;  // shape or type disagreement
};

Comparison compare(const Tensor& got, const Tensor& expected, const Tolerance& tol) {
  Comparison c;
  if (got.dtype() != expected.dtype() || got.shape() != expected.shape()) {
    c.ok = false;
    c.problem = "got " + got.type().to_string() + ", expected " + expected.type().to_string();
    return c;
  }
  const bool exact = !is_float(expected.dtype());
  double worst_excess = -1;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double g = got.as_double(i), e = expected.as_double(i);
    bool ok;
    double err;
    if (std::isnan(e) || std::isnan(g)) {
      ok = std::isnan(e) && std::isnan(g);
      err = ok ? 0 : INFINITY;
    } else if (std::isinf(e) || std::isinf(g)) {
      ok = g == e;
      err = ok ? 0 : INFINITY;
    } else {
      err = std::fabs(g - e);
      ok = exact ? got.as_int64(i) == expected.as_int64(i)
                 : err <= tol.atol + tol.rtol * std::fabs(e);
    }
    c.max_abs_error = std::max(c.max_abs_error, err);
    // The reported element is the one furthest beyond its allowance.
    const double excess = err - (exact ? 0 : tol.atol + tol.rtol * std::fabs(e));
    if (!ok && excess > worst_excess) {
      worst_excess = excess;
      c.ok = false;
      c.index = i;
      c.got = g;
      c.expected = e;
      c.abs_error = err;
    }
  }
  return c;
}

TestStatus status_of(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Unsupported: return TestStatus::Unsupported;
    case ErrorKind::Internal: return TestStatus::Internal;
    default: return TestStatus::Invalid;
  }
}

void run_data_sets(const fs::path& dir, const Tolerance& tolerance,
                   const onnx_import::ImportOptions& import_options, TestDirResult& r) {
  const fs::path model = dir / "model.onnx";
  if (!fs::is_regular_file(model))
    throw_error(ErrorKind::Usage, dir.string(), "no model.onnx in this directory",
                "test-onnx expects the ONNX backend-test layout");
  std::optional<Graph> graph;
  std::optional<Error> unsupported;
  try {
    graph = onnx_import::import_model(model, import_options);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Unsupported) throw;
    unsupported = e;
  }

  const std::vector<fs::path> sets = onnx_import::test_data_sets(dir);
  if (sets.empty()) {
    if (unsupported) throw *unsupported;
    throw_error(ErrorKind::Usage, dir.string(), "no test_data_set_* directories",
                "test-onnx expects the ONNX backend-test layout");
  }

  // Large models (the large tier's VGG-16) take minutes per data set.
  Progress progress("test-onnx " + dir.filename().string(), static_cast<int64_t>(sets.size()));
  progress.phase("running the data sets with the interpreter");
  for (const fs::path& set : sets) {
    progress.advance(r.data_sets);
    const std::vector<fs::path> in_files = onnx_import::numbered_tensor_files(set, "input_");
    const std::vector<fs::path> out_files = onnx_import::numbered_tensor_files(set, "output_");
    std::vector<std::string> in_names(in_files.size());
    std::vector<Tensor> in_tensors;
    try {
      for (std::size_t i = 0; i < in_files.size(); ++i)
        in_tensors.push_back(onnx_import::read_tensor_pb(in_files[i], &in_names[i]));
    } catch (const Error&) {
      // Inputs of an unsupported model may be sequences or optionals, which
      // are not TensorProto files; the reason to report is the model's.
      if (unsupported) throw *unsupported;
      throw;
    }

    // A model refused only because some inputs decide shapes (Slice bounds,
    // Reshape targets, Resize scales fed at run time, as many ONNX node tests
    // do) is specialized to this data set's values of exactly those inputs:
    // that is how kiln compiles it, with them fixed. The result line says so.
    std::optional<Graph> specialized;
    std::vector<Tensor> inputs;
    if (!graph) {
      onnx_import::ImportOptions frozen = import_options;
      Error why = *unsupported;
      while (!specialized) {
        const auto it = std::find(in_names.begin(), in_names.end(), why.needs_constant());
        if (why.needs_constant().empty() || it == in_names.end() ||
            frozen.constant_inputs.count(*it))
          throw why;  // not an input of the data set: the refusal stands
        frozen.constant_inputs[*it] = in_tensors[static_cast<std::size_t>(it - in_names.begin())];
        if (std::find(r.frozen_inputs.begin(), r.frozen_inputs.end(), *it) == r.frozen_inputs.end())
          r.frozen_inputs.push_back(*it);
        try {
          specialized = onnx_import::import_model(model, frozen);
        } catch (const Error& e) {
          if (e.kind() != ErrorKind::Unsupported) throw;
          why = e;
        }
      }
      for (std::size_t i = 0; i < in_tensors.size(); ++i)
        if (!frozen.constant_inputs.count(in_names[i])) inputs.push_back(in_tensors[i]);
    } else {
      inputs = std::move(in_tensors);
    }
    const Graph& g = graph ? *graph : *specialized;
    if (inputs.size() != g.inputs.size())
      throw_error(ErrorKind::InvalidModel, set.string(),
                  fmt::format("{} input files but the model has {} runtime inputs", inputs.size(),
                              g.inputs.size()),
                  "inputs that are initializers need no file");
    if (out_files.size() != g.outputs.size())
      throw_error(ErrorKind::InvalidModel, set.string(),
                  fmt::format("{} output files but the model has {} outputs", out_files.size(),
                              g.outputs.size()));
    const ref::Interpreter interpreter(g);
    const std::vector<Tensor> outputs = interpreter.run(inputs);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const Tensor expected = onnx_import::read_tensor_pb(out_files[i]);
      const Comparison c = compare(outputs[i], expected, tolerance);
      r.max_abs_error = std::max(r.max_abs_error, c.max_abs_error);
      if (c.ok) continue;
      const std::string out_name = g.value(g.outputs[i]).onnx_name;
      if (r.status != TestStatus::Mismatch || c.abs_error > r.abs_error) {
        r.status = TestStatus::Mismatch;
        r.worst_output = out_name;
        r.worst_index = c.index;
        r.got = c.got;
        r.expected = c.expected;
        r.abs_error = c.abs_error;
        r.message =
            !c.problem.empty()
                ? fmt::format("{}: output '{}' {}", set.filename().string(), out_name, c.problem)
                : fmt::format(
                      "{}: output '{}' element {}: got {:.9g}, expected {:.9g} "
                      "(abs error {:.3g}, allowed {:.3g})",
                      set.filename().string(), out_name, c.index, c.got, c.expected, c.abs_error,
                      tolerance.atol + tolerance.rtol * std::fabs(c.expected));
      }
    }
    ++r.data_sets;
  }
}

}  // namespace

TestDirResult test_onnx_dir(const fs::path& dir, const Tolerance& tolerance,
                            const onnx_import::ImportOptions& import_options) {
  TestDirResult r;
  r.dir = dir;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    run_data_sets(dir, tolerance, import_options, r);
  } catch (const Error& e) {
    r.status = status_of(e.kind());
    r.message = e.message();
  } catch (const std::bad_alloc&) {
    r.status = TestStatus::Invalid;
    r.message = dir.string() + ": out of memory while running the model";
  } catch (const std::exception& e) {
    r.status = TestStatus::Internal;
    r.message = dir.string() + ": internal error: " + e.what();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::string format_test_line(const TestDirResult& r) {
  std::string line = fmt::format("{:<11} {}", to_string(r.status), r.dir.string());
  if (r.status == TestStatus::Pass)
    line += fmt::format(" ({} data set{}, max abs error {:.3g}{})", r.data_sets,
                        r.data_sets == 1 ? "" : "s", r.max_abs_error,
                        r.frozen_inputs.empty()
                            ? ""
                            : ", specialized to the data sets' values of " +
                                  fmt::format("{}", fmt::join(r.frozen_inputs, ", ")));
  else
    line += ": " + r.message;
  return line;
}

nlohmann::json test_to_json(const TestDirResult& r) {
  nlohmann::json j{{"dir", r.dir.string()},
                   {"status", to_string(r.status)},
                   {"data_sets", r.data_sets},
                   {"max_abs_error", r.max_abs_error},
                   {"seconds", r.seconds}};
  if (r.status != TestStatus::Pass) j["message"] = r.message;
  if (!r.frozen_inputs.empty()) j["specialized_inputs"] = r.frozen_inputs;
  if (r.status == TestStatus::Mismatch && r.worst_index >= 0)
    j["worst"] = {{"output", r.worst_output},
                  {"index", r.worst_index},
                  {"got", r.got},
                  {"expected", r.expected},
                  {"abs_error", r.abs_error}};
  return j;
}

namespace {
std::map<TestStatus, int> count_statuses(const std::vector<TestDirResult>& results) {
  std::map<TestStatus, int> counts;
  for (const TestDirResult& r : results) ++counts[r.status];
  return counts;
}
}  // namespace

std::string format_test_totals(const std::vector<TestDirResult>& results) {
  std::map<TestStatus, int> c = count_statuses(results);
  using S = TestStatus;
  return fmt::format(
      "total {}: {} passed, {} mismatched, {} unsupported, {} invalid, {} internal errors\n",
      results.size(), c[S::Pass], c[S::Mismatch], c[S::Unsupported], c[S::Invalid], c[S::Internal]);
}

nlohmann::json test_run_to_json(const std::vector<TestDirResult>& results) {
  std::map<TestStatus, int> c = count_statuses(results);
  using S = TestStatus;
  nlohmann::json all = nlohmann::json::array();
  for (const TestDirResult& r : results) all.push_back(test_to_json(r));
  return {{"results", all},
          {"passed", c[S::Pass]},
          {"mismatched", c[S::Mismatch]},
          {"unsupported", c[S::Unsupported]},
          {"invalid", c[S::Invalid]},
          {"internal_errors", c[S::Internal]}};
}

int test_run_exit_code(const std::vector<TestDirResult>& results) {
  std::map<TestStatus, int> c = count_statuses(results);
  using S = TestStatus;
  for (S s : {S::Internal, S::Mismatch, S::Invalid, S::Unsupported})
    if (c[s]) return exit_code(s);
  return kExitOk;
}

}  // namespace kiln::commands
