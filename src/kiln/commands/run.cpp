#include "kiln/commands/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <set>

#include "kiln/onnx/load.h"
#include "kiln/onnx/npy.h"
#include "kiln/ref/interpreter.h"
#include "kiln/support/atomic_dir.h"
#include "kiln/support/error.h"

namespace kiln::commands {

namespace fs = std::filesystem;

namespace {
// A file name for an output: the ONNX name where it is a plain file name,
// otherwise with every other character replaced; clashes get a numeric suffix.
std::string file_stem(const std::string& onnx_name, std::set<std::string>& used) {
  std::string stem;
  for (char c : onnx_name)
    stem.push_back(
        std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_');
  if (stem.empty() || stem.front() == '.') stem = "output_" + stem;
  std::string candidate = stem;
  for (int n = 2; !used.insert(candidate).second; ++n) candidate = stem + "_" + std::to_string(n);
  return candidate;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<Tensor> bind_inputs(const Graph& graph, const RunOptions& options) {
  std::vector<Tensor> tensors(graph.inputs.size());
  std::vector<bool> bound(graph.inputs.size(), false);
  std::string names;
  for (ValueId id : graph.inputs) names += (names.empty() ? "" : ", ") + graph.value(id).onnx_name;
  for (const auto& [name, file] : options.inputs) {
    std::size_t i = 0;
    while (i < graph.inputs.size() && graph.value(graph.inputs[i]).onnx_name != name) ++i;
    if (i == graph.inputs.size())
      throw_error(ErrorKind::Usage, "--input " + name, "the model has no input of that name",
                  "its inputs are: " + (names.empty() ? std::string("(none)") : names));
    if (bound[i])
      throw_error(ErrorKind::Usage, "--input " + name, "input given twice", "give it once");
    tensors[i] = onnx_import::read_tensor_file(file);
    bound[i] = true;
  }
  for (std::size_t i = 0; i < graph.inputs.size(); ++i)
    if (!bound[i]) {
      const Value& v = graph.value(graph.inputs[i]);
      throw_error(ErrorKind::Usage, "input '" + v.onnx_name + "'", "no --input given for it",
                  "pass --input " + v.onnx_name + "=FILE with a " + v.type.to_string() +
                      " tensor (.pb or .npy)");
    }
  return tensors;
}
}  // namespace

RunResult run_model(const fs::path& model, const RunOptions& options) {
  if (options.repeat < 1) throw_error(ErrorKind::Usage, "--repeat", "must be at least 1", "");
  RunResult result;
  auto t0 = std::chrono::steady_clock::now();
  const Graph graph = onnx_import::load_model(model, options.import);
  result.import_seconds = seconds_since(t0);

  const std::vector<Tensor> inputs = bind_inputs(graph, options);
  ref::Interpreter::set_num_threads(options.threads);
  const ref::Interpreter interpreter(graph);

  std::vector<Tensor> outputs;
  std::vector<double> times;
  if (options.repeat > 1) outputs = interpreter.run(inputs);  // warm-up: caches, thread pool
  for (int r = 0; r < options.repeat; ++r) {
    t0 = std::chrono::steady_clock::now();
    outputs = interpreter.run(inputs);
    times.push_back(seconds_since(t0));
  }
  std::sort(times.begin(), times.end());
  result.seconds_per_run = times[times.size() / 2];

  for (std::size_t i = 0; i < outputs.size(); ++i)
    result.outputs.push_back({graph.value(graph.outputs[i]).onnx_name, std::move(outputs[i])});

  if (options.output_dir) {
    const std::string ext =
        !options.inputs.empty() && options.inputs.front().second.extension() == ".npy" ? ".npy"
                                                                                       : ".pb";
    AtomicDir dir(*options.output_dir, options.overwrite);
    std::set<std::string> used;
    for (std::size_t i = 0; i < result.outputs.size(); ++i) {
      const std::string stem = file_stem(result.outputs[i].name, used);
      const fs::path file = dir.staging() / (stem + ext);
      onnx_import::write_tensor_file(file, result.outputs[i].tensor, result.outputs[i].name);
      result.written.push_back(*options.output_dir / (stem + ext));
    }
    dir.commit();
  }
  return result;
}

namespace {
std::string values_preview(const Tensor& t) {
  std::string s;
  const int64_t n = std::min<int64_t>(t.numel(), 8);
  for (int64_t i = 0; i < n; ++i) s += (i ? " " : "") + fmt::format("{:.6g}", t.as_double(i));
  if (t.numel() > n) s += " ...";
  return s;
}
}  // namespace

std::string format_run_summary(const RunResult& result) {
  std::string out;
  for (const NamedTensor& o : result.outputs) {
    const Tensor& t = o.tensor;
    out += fmt::format("{}: {}\n", o.name, t.type().to_string());
    if (t.numel() > 0) {
      double lo = t.as_double(0), hi = lo, sum = 0;
      int64_t argmax = 0;
      for (int64_t i = 0; i < t.numel(); ++i) {
        const double v = t.as_double(i);
        if (v > hi) {
          hi = v;
          argmax = i;
        }
        lo = std::min(lo, v);
        sum += v;
      }
      out += fmt::format("  min {:.6g}  max {:.6g}  mean {:.6g}  argmax {}\n", lo, hi,
                         sum / static_cast<double>(t.numel()), argmax);
      out += "  values: " + values_preview(t) + "\n";
    }
  }
  for (const fs::path& p : result.written) out += "wrote " + p.string() + "\n";
  out += fmt::format("inference: {:.3f} ms (import {:.1f} ms)\n", result.seconds_per_run * 1e3,
                     result.import_seconds * 1e3);
  return out;
}

nlohmann::json run_to_json(const RunResult& result) {
  nlohmann::json j;
  j["outputs"] = nlohmann::json::array();
  for (const NamedTensor& o : result.outputs) {
    nlohmann::json values = nlohmann::json::array();
    if (o.tensor.numel() <= 4096)
      for (int64_t i = 0; i < o.tensor.numel(); ++i) values.push_back(o.tensor.as_double(i));
    j["outputs"].push_back({{"name", o.name},
                            {"dtype", dtype_name(o.tensor.dtype())},
                            {"shape", o.tensor.shape()},
                            {"values", values}});
  }
  j["written"] = nlohmann::json::array();
  for (const fs::path& p : result.written) j["written"].push_back(p.string());
  j["import_seconds"] = result.import_seconds;
  j["seconds_per_run"] = result.seconds_per_run;
  return j;
}

}  // namespace kiln::commands
