// The Python module `kiln` (pybind11): the commands of the CLI as functions
// and objects, numpy arrays in and out, kiln's errors as exceptions of one
// class per kind. Logic stays in kiln's libraries; this file converts.
//
//   m = kiln.load("model.onnx")              # Model: layers, shapes, params, MACs
//   y = m.run({"input": x})                  # the golden interpreter, numpy in and out
//   cfg = kiln.default_config(m)             # a dict
//   p = kiln.compile(m, config=cfg, out_dir="prj")   # Project, p.estimate
//   r = p.csim(x_batch)                      # outputs, bit-exactness, errors, overflows
//   kiln.profile(m, data)                    # per-layer ranges and suggested types
//   d = kiln.rtl(m, out_dir="rtl"); d.rtlsim(); d.synth()
#include <pybind11/eval.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>

#include "kiln/commands/explore.h"
#include "kiln/commands/hls_flow.h"
#include "kiln/commands/info.h"
#include "kiln/commands/rtl_flow.h"
#include "kiln/hls/model_json.h"
#include "kiln/hls/ports.h"
#include "kiln/hls/project_writer.h"
#include "kiln/onnx/load.h"
#include "kiln/python/convert.h"
#include "kiln/ref/interpreter.h"
#include "kiln/rtl/dir/design_dir.h"
#include "kiln/support/error.h"

namespace kiln::python {
namespace {

namespace fs = std::filesystem;

// ---- errors -------------------------------------------------------------------

py::object g_error, g_invalid, g_unsupported, g_internal;

const char* kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::Usage: return "usage";
    case ErrorKind::InvalidModel: return "invalid";
    case ErrorKind::Io: return "io";
    case ErrorKind::Unsupported: return "unsupported";
    case ErrorKind::Internal: return "internal";
  }
  return "internal";
}

void raise(const Error& e) {
  const py::object& cls = e.kind() == ErrorKind::Unsupported ? g_unsupported
                          : e.kind() == ErrorKind::Internal  ? g_internal
                                                             : g_invalid;
  py::object exc = cls(py::str(e.what()));
  exc.attr("kind") = kind_name(e.kind());
  exc.attr("where") = e.where();
  exc.attr("what") = e.what_happened();
  exc.attr("hint") = e.hint();
  PyErr_SetObject(cls.ptr(), exc.ptr());
}

// ---- the model ------------------------------------------------------------------

struct Model {
  fs::path path;
  onnx_import::ImportOptions import;
  std::shared_ptr<const Graph> graph;
  commands::ModelInfo info;
};

std::shared_ptr<Model> load(const fs::path& path, std::optional<int64_t> batch,
                            const std::map<std::string, std::vector<int64_t>>& input_shapes) {
  auto m = std::make_shared<Model>();
  m->path = fs::absolute(path);
  m->import.batch = batch;
  for (const auto& [name, shape] : input_shapes) m->import.input_shapes[name] = Shape(shape);
  m->graph = std::make_shared<const Graph>(onnx_import::load_model(m->path, m->import));
  m->info = commands::describe_model(*m->graph);
  return m;
}

py::dict info_dict(const Model& m) {
  return to_python(commands::info_to_json(m.info)).cast<py::dict>();
}

// `v` as a numpy array (lists and scalars converted), or InvalidModel.
py::array array_arg(const py::handle& v, const std::string& where) {
  py::array a = py::array::ensure(v);
  if (!a) {
    PyErr_Clear();
    throw_error(ErrorKind::InvalidModel, where, "is not an array", "pass a numpy array");
  }
  return a;
}

// The graph's input named `name`, by its ONNX name.
std::size_t input_index(const Graph& g, const std::string& name) {
  std::string names;
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const std::string& n = g.value(g.inputs[i]).onnx_name;
    if (n == name) return i;
    names += (i ? ", " : "") + n;
  }
  throw_error(ErrorKind::InvalidModel, "input '" + name + "'",
              "the model has no input of that name", "its inputs are: " + names);
}

py::dict run(const Model& m, const py::dict& inputs, int threads) {
  const Graph& g = *m.graph;
  std::vector<Tensor> in(g.inputs.size());
  std::vector<bool> bound(in.size(), false);
  for (const auto& [k, v] : inputs) {
    const std::string name = py::str(k).cast<std::string>();
    const std::size_t i = input_index(g, name);
    in[i] = tensor_of(array_arg(v, "input '" + name + "'"), "input '" + name + "'");
    bound[i] = true;
  }
  for (std::size_t i = 0; i < in.size(); ++i)
    if (!bound[i])
      throw_error(ErrorKind::InvalidModel, "input '" + g.value(g.inputs[i]).onnx_name + "'",
                  "not given", "pass every input of the model in the dict");
  ref::Interpreter::set_num_threads(threads);
  std::vector<Tensor> out;
  {
    py::gil_scoped_release release;
    out = ref::Interpreter(g).run(in);
  }
  py::dict result;
  for (std::size_t o = 0; o < out.size(); ++o)
    result[py::str(g.value(g.outputs[o]).onnx_name)] = array_of(out[o]);
  return result;
}

// ---- configurations -------------------------------------------------------------

nlohmann::json yaml_to_json(const YAML::Node& n) {
  if (n.IsMap()) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& kv : n) j[kv.first.as<std::string>()] = yaml_to_json(kv.second);
    return j;
  }
  if (n.IsSequence()) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& x : n) j.push_back(yaml_to_json(x));
    return j;
  }
  if (!n.IsScalar()) return nullptr;
  const std::string s = n.as<std::string>();
  int64_t i = 0;
  double d = 0;
  bool b = false;
  if (YAML::convert<int64_t>::decode(n, i)) return i;
  if (YAML::convert<double>::decode(n, d)) return d;
  if (YAML::convert<bool>::decode(n, b)) return b;
  return s;
}

py::dict default_config(const Model& m, const std::string& granularity) {
  const std::string text =
      commands::default_config(m.path, m.import, commands::parse_granularity(granularity));
  return to_python(yaml_to_json(YAML::Load(text))).cast<py::dict>();
}

// A config given as a dict is written as JSON (which YAML reads) next to the
// output directory, so the project records where it came from.
std::optional<fs::path> config_path(const py::object& config, const fs::path& out_dir) {
  if (config.is_none()) return std::nullopt;
  if (py::isinstance<py::str>(config) || py::hasattr(config, "__fspath__"))
    return fs::path(py::str(config).cast<std::string>());
  const nlohmann::json j = to_json(config, "config");
  fs::path file = fs::absolute(out_dir);
  file += ".config.yaml";
  std::ofstream(file) << j.dump(2) << "\n";
  return file;
}

commands::CompileOptions compile_options(const Model& m, const py::object& config,
                                         const fs::path& out_dir,
                                         const std::vector<std::string>& sets, bool force) {
  commands::CompileOptions o;
  o.import = m.import;
  if (std::optional<fs::path> c = config_path(config, out_dir)) o.configs.push_back(*c);
  o.sets = sets;
  o.output_dir = out_dir;
  o.overwrite = force;
  return o;
}

// ---- projects -------------------------------------------------------------------

struct Project {
  fs::path dir;
  std::shared_ptr<Model> model;
  nlohmann::json summary;  // kiln compile --json
};

std::shared_ptr<Project> compile(const std::shared_ptr<Model>& m, const py::object& config,
                                 const fs::path& out_dir, const std::vector<std::string>& sets,
                                 bool force, std::optional<fs::path> profile_data) {
  commands::CompileOptions o = compile_options(*m, config, out_dir, sets, force);
  o.profile_data = std::move(profile_data);
  commands::CompileResult r;
  {
    py::gil_scoped_release release;
    r = commands::compile_model(m->path, o);
  }
  return std::make_shared<Project>(Project{r.project, m, commands::compile_to_json(r)});
}

// The inputs of a model, by ONNX name, with their ONNX shapes.
using InputShapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;

// Samples from a dict of arrays whose first dimension counts them, or one
// array when the model has one input. An array one rank above the input's
// shape holds samples of that shape; an array of the input's own rank whose
// first dimension is 1 in the model (a batch of one) holds samples that keep
// that dimension.
std::vector<std::vector<std::pair<std::string, Tensor>>> samples_of(const py::object& inputs,
                                                                    const InputShapes& model,
                                                                    const std::string& where) {
  py::dict d;
  if (py::isinstance<py::dict>(inputs)) {
    d = inputs.cast<py::dict>();
  } else {
    if (model.size() != 1)
      throw_error(ErrorKind::InvalidModel, where,
                  "the model has " + std::to_string(model.size()) + " inputs",
                  "pass a dict of arrays by input name");
    d[py::str(model[0].first)] = inputs;
  }
  std::vector<std::vector<std::pair<std::string, Tensor>>> samples;
  for (const auto& [k, v] : d) {
    const std::string name = py::str(k).cast<std::string>();
    const std::string here = where + " '" + name + "'";
    const auto it =
        std::find_if(model.begin(), model.end(), [&](const auto& in) { return in.first == name; });
    if (it == model.end()) {
      std::string names;
      for (const auto& in : model) names += (names.empty() ? "" : ", ") + in.first;
      throw_error(ErrorKind::InvalidModel, here, "the model has no input of that name",
                  "its inputs are: " + names);
    }
    const std::vector<int64_t>& shape = it->second;
    const Tensor all = tensor_of(array_arg(v, here), here);
    const auto rank = static_cast<int64_t>(shape.size());
    Shape one;  // the shape of each sample
    if (all.rank() == rank + 1) {
      one = Shape(all.shape().begin() + 1, all.shape().end());
    } else if (all.rank() == rank && rank > 0 && shape[0] == 1) {
      one = all.shape();
      one[0] = 1;
    } else {
      throw_error(ErrorKind::InvalidModel, here,
                  "an array of rank " + std::to_string(all.rank()) + " for an input of shape " +
                      shape_to_string(Shape(shape)),
                  "give the samples along a first dimension, each of the input's shape");
    }
    const int64_t n = all.shape()[0];
    if (samples.empty()) samples.resize(static_cast<std::size_t>(n));
    if (static_cast<int64_t>(samples.size()) != n)
      throw_error(
          ErrorKind::InvalidModel, here,
          "has " + std::to_string(n) + " samples, another input " + std::to_string(samples.size()),
          "give every input the same number of samples");
    const std::size_t bytes = all.byte_size() / static_cast<std::size_t>(std::max<int64_t>(n, 1));
    for (int64_t s = 0; s < n; ++s) {
      Tensor t(all.dtype(), one);
      std::memcpy(t.raw().data(), all.raw().data() + static_cast<std::size_t>(s) * bytes, bytes);
      samples[static_cast<std::size_t>(s)].emplace_back(name, std::move(t));
    }
  }
  return samples;
}

// The input ports of a project or design, with their ONNX shapes.
InputShapes port_shapes(const hls::Model& m) {
  InputShapes r;
  for (const auto& port : m.input_ports) r.emplace_back(port.onnx_name, port.onnx_shape);
  return r;
}

// values[sample][output][element] (Model::outputs order, channels-last) as
// one array per output in the ONNX layout, the samples first.
py::dict output_arrays(const hls::Model& m,
                       const std::vector<std::vector<std::vector<double>>>& values) {
  py::dict outputs;
  for (std::size_t o = 0; o < m.output_ports.size(); ++o) {
    const auto& port = m.output_ports[o];
    const std::vector<int64_t>& tshape = m.tensors.at(static_cast<std::size_t>(m.outputs[o])).shape;
    const std::vector<int64_t> map = hls::port_element_map(tshape, port.perm);
    std::vector<py::ssize_t> shape = {static_cast<py::ssize_t>(values.size())};
    // A leading batch of one gives way to the samples; any other shape is kept whole.
    const bool batch = !port.onnx_shape.empty() && port.onnx_shape[0] == 1;
    for (std::size_t d = batch ? 1 : 0; d < port.onnx_shape.size(); ++d)
      shape.push_back(port.onnx_shape[d]);
    py::array_t<double> a(shape);
    double* out = a.mutable_data();
    const auto per = static_cast<std::size_t>(map.size());
    KILN_ASSERT(static_cast<std::size_t>(a.size()) == per * values.size(),
                "output " + port.onnx_name + ": the port's shape and its elements differ");
    for (std::size_t s = 0; s < values.size(); ++s)
      for (std::size_t i = 0; i < per; ++i)
        out[s * per + static_cast<std::size_t>(map[i])] = values[s][o][i];
    outputs[py::str(port.onnx_name)] = a;
  }
  return outputs;
}

py::dict csim(const Project& p, const py::object& inputs, int samples, uint64_t seed, bool werror) {
  const hls::ModelFile file = hls::load_model_json(p.dir / hls::kModelJsonFile);
  commands::CsimCommandOptions o;
  o.samples = samples;
  o.seed = seed;
  o.werror = werror;
  commands::CsimCommandResult r;
  if (!inputs.is_none()) o.given = samples_of(inputs, port_shapes(file.model), "csim input");
  if (!o.given.empty()) o.samples = static_cast<int>(o.given.size());
  {
    py::gil_scoped_release release;
    r = commands::csim_project(p.dir, o);
  }
  py::dict result = to_python(commands::csim_to_json(r)).cast<py::dict>();
  result["outputs"] = output_arrays(file.model, r.csim.outputs);
  return result;
}

// ---- profiles -------------------------------------------------------------------

py::dict profile(const Model& m, const py::object& data, int samples, uint64_t seed, int width) {
  commands::ProfileOptions o;
  o.import = m.import;
  o.samples = samples;
  o.seed = seed;
  o.width = width;
  if (py::isinstance<py::str>(data) || py::hasattr(data, "__fspath__")) {
    o.data = fs::path(py::str(data).cast<std::string>());
  } else if (!data.is_none()) {
    InputShapes shapes;
    for (ValueId v : m.graph->inputs)
      shapes.emplace_back(m.graph->value(v).onnx_name,
                          std::vector<int64_t>(m.graph->value(v).type.shape.begin(),
                                               m.graph->value(v).type.shape.end()));
    for (auto& named : samples_of(data, shapes, "profile data")) {
      std::vector<Tensor> one(m.graph->inputs.size());
      for (auto& [name, t] : named) one[input_index(*m.graph, name)] = std::move(t);
      o.given.push_back(std::move(one));
    }
  }
  commands::ProfileResult r;
  {
    py::gil_scoped_release release;
    r = commands::profile_model(m.path, o);
  }
  return to_python(commands::profile_to_json(r)).cast<py::dict>();
}

// ---- RTL ------------------------------------------------------------------------

struct Design {
  fs::path dir;
  std::shared_ptr<Model> model;
  nlohmann::json report;  // kiln rtl --json
};

std::shared_ptr<Design> rtl(const std::shared_ptr<Model>& m, const py::object& config,
                            const fs::path& out_dir, const std::vector<std::string>& sets,
                            bool force) {
  const commands::CompileOptions o = compile_options(*m, config, out_dir, sets, force);
  commands::RtlCommandResult r;
  {
    py::gil_scoped_release release;
    r = commands::rtl_model(m->path, o);
  }
  return std::make_shared<Design>(Design{out_dir, m, commands::rtl_to_json(r)});
}

// kiln explore: the frontier as a list of records (frontier.json's points),
// the whole frontier.json under "frontier" of the returned dict.
py::dict explore(const std::shared_ptr<Model>& m, const std::string& part, const py::object& config,
                 const fs::path& out_dir, const std::vector<std::string>& sets,
                 const std::string& objective, const std::string& strategy,
                 const std::optional<int64_t>& max_latency, const std::optional<std::string>& max,
                 int jobs, int validate, bool force, const std::optional<std::string>& accuracy,
                 const std::optional<double>& min_top1, const std::optional<double>& max_error,
                 int64_t cache_memory_mb, const std::vector<std::string>& emit) {
  commands::ExploreCommandOptions o;
  static_cast<commands::CompileOptions&>(o) = compile_options(*m, config, out_dir, sets, force);
  o.part = part;
  o.explore.goal = commands::parse_goal(objective);
  o.explore.strategy = commands::parse_strategy(strategy);
  if (max_latency) o.explore.max_cycles = *max_latency;
  if (max) commands::parse_max(*max, o.explore);
  o.jobs = jobs;
  o.validate = validate;
  if (cache_memory_mb < 1)
    throw_error(ErrorKind::Usage, "kiln.explore", "cache_memory_mb must be at least 1",
                "the default is 1024");
  o.explore.graph_cache_bytes = static_cast<std::size_t>(cache_memory_mb) << 20;
  o.emit = emit;
  commands::set_accuracy(accuracy.value_or(""), min_top1.value_or(-1), max_error.value_or(-1), o);
  commands::ExploreCommandResult r;
  {
    py::gil_scoped_release release;
    r = commands::explore_model(m->path, o);
  }
  const nlohmann::json j = commands::explore_to_json(r);
  py::dict result;
  result["points"] = to_python(j["points"]);
  result["frontier"] = to_python(j);
  result["dir"] = out_dir;
  return result;
}

py::dict rtlsim(const Design& d, const py::object& inputs, int samples, uint64_t seed,
                const std::string& simulator, double timeout) {
  const hls::Model model = rtl::load_design_dir(d.dir).model;  // its ports, read once
  commands::RtlsimCommandOptions o;
  if (!inputs.is_none()) o.given = samples_of(inputs, port_shapes(model), "rtlsim input");
  o.samples = samples;
  o.seed = seed;
  o.simulator = simulator;
  o.timeout_seconds = timeout;
  rtl::RtlsimResult r;
  {
    py::gil_scoped_release release;
    r = commands::rtlsim_dir(d.dir, o);
  }
  py::dict result = to_python(commands::rtlsim_to_json(r)).cast<py::dict>();
  result["outputs"] = output_arrays(model, r.outputs);
  return result;
}

py::dict synth(const Design& d, double timeout, std::optional<int> jobs,
               std::optional<double> memory_limit_gb) {
  commands::SynthCommandOptions o;
  o.timeout_seconds = timeout;
  o.jobs = jobs;
  o.memory_limit_gb = memory_limit_gb;
  rtl::SynthRun r;
  {
    py::gil_scoped_release release;
    r = commands::synth_dir(d.dir, o);
  }
  return to_python(commands::synth_to_json(r)).cast<py::dict>();
}

}  // namespace
}  // namespace kiln::python

PYBIND11_MODULE(kiln, m) {
  using namespace kiln::python;
  namespace kp = kiln::python;
  m.doc() = "kiln: trained networks (ONNX) to FPGA hardware. See the README's Python section.";
  m.attr("__version__") = KILN_VERSION;

  g_error = py::module_::import("builtins")
                .attr("type")("Error",
                              py::make_tuple(py::reinterpret_borrow<py::object>(PyExc_Exception)),
                              py::dict());
  auto sub = [&](const char* name, const char* doc) {
    py::dict attrs;
    attrs["__doc__"] = doc;
    py::object cls =
        py::module_::import("builtins").attr("type")(name, py::make_tuple(g_error), attrs);
    m.attr(name) = cls;
    return cls;
  };
  g_error.attr("__doc__") =
      "A kiln error: str(e) is kiln's one-line message; e.kind, e.where, e.what, e.hint its parts.";
  g_error.attr("__module__") = "kiln";
  m.attr("Error") = g_error;
  g_invalid = sub("InvalidInputError",
                  "Bad input: a malformed model, config, file or argument (the CLI's exit 2).");
  g_unsupported =
      sub("UnsupportedError", "Valid input that kiln does not handle (yet) (the CLI's exit 3).");
  g_internal = sub("InternalError", "A bug in kiln (the CLI's exit 4): please report it.");
  for (const py::object* c : {&g_invalid, &g_unsupported, &g_internal})
    c->attr("__module__") = "kiln";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const kiln::Error& e) {
      kp::raise(e);
    }
  });

  py::class_<kp::Model, std::shared_ptr<kp::Model>>(m, "Model",
                                                    "A model: its layers, shapes and costs.")
      .def_property_readonly("path", [](const kp::Model& x) { return x.path; })
      .def_property_readonly("name", [](const kp::Model& x) { return x.info.model; })
      .def_property_readonly("opset", [](const kp::Model& x) { return x.info.opset; })
      .def_property_readonly(
          "inputs", [](const kp::Model& x) -> py::object { return info_dict(x)["inputs"]; })
      .def_property_readonly(
          "outputs", [](const kp::Model& x) -> py::object { return info_dict(x)["outputs"]; })
      .def_property_readonly(
          "layers", [](const kp::Model& x) -> py::object { return info_dict(x)["layers"]; })
      .def_property_readonly("total_params", [](const kp::Model& x) { return x.info.total_params; })
      .def_property_readonly("total_macs", [](const kp::Model& x) { return x.info.total_macs; })
      .def("info", &kp::info_dict, "The data of `kiln info --json`.")
      .def("run", &kp::run, py::arg("inputs"), py::arg("threads") = 0,
           "Runs the golden interpreter: {input name: array} -> {output name: array}.")
      .def("__repr__", [](const kp::Model& x) {
        return "<kiln.Model " + x.info.model + ": " + std::to_string(x.info.layers.size()) +
               " layers, " + std::to_string(x.info.total_macs) + " MACs>";
      });

  m.def("load", &kp::load, py::arg("path"), py::arg("batch") = py::none(),
        py::arg("input_shapes") = std::map<std::string, std::vector<int64_t>>{},
        "Loads an ONNX model (or kiln's .kir IR text).");
  m.def("default_config", &kp::default_config, py::arg("model"), py::arg("granularity") = "model",
        "A complete default configuration as a dict (granularity: model, type or name).");

  py::class_<kp::Project, std::shared_ptr<kp::Project>>(m, "Project",
                                                        "An HLS project kiln compile wrote.")
      .def_property_readonly("dir", [](const kp::Project& p) { return p.dir; })
      .def_property_readonly("model", [](const kp::Project& p) { return p.model; })
      .def_property_readonly("summary", [](const kp::Project& p) { return to_python(p.summary); })
      .def_property_readonly("estimate",
                             [](const kp::Project& p) { return to_python(p.summary["estimate"]); })
      .def(
          "report",
          [](const kp::Project& p) {
            return to_python(kiln::commands::report_to_json(kiln::commands::report_project(p.dir)));
          },
          "The data of `kiln report --json`.")
      .def("csim", &kp::csim, py::arg("inputs") = py::none(), py::arg("samples") = 10,
           py::arg("seed") = 1, py::arg("werror") = false,
           "C-simulates the project with g++ on `inputs` (an array, or a dict of arrays, with "
           "the samples first) or on random ones: its outputs as arrays, bit-exactness against "
           "kiln's emulator, error against the float model, overflows per layer.");

  m.def("compile", &kp::compile, py::arg("model"), py::arg("config") = py::none(),
        py::arg("out_dir"), py::arg("sets") = std::vector<std::string>{}, py::arg("force") = false,
        py::arg("profile_data") = py::none(),
        "kiln compile: writes the HLS project to out_dir and returns it.");
  m.def("profile", &kp::profile, py::arg("model"), py::arg("data") = py::none(),
        py::arg("samples") = 100, py::arg("seed") = 1, py::arg("width") = 16,
        "Per-layer value ranges and suggested types, on `data` (arrays with the samples first, "
        "or a directory of test data sets) or random inputs.");

  py::class_<kp::Design, std::shared_ptr<kp::Design>>(m, "Design", "An RTL design kiln rtl wrote.")
      .def_property_readonly("dir", [](const kp::Design& d) { return d.dir; })
      .def_property_readonly("report", [](const kp::Design& d) { return to_python(d.report); })
      .def("rtlsim", &kp::rtlsim, py::arg("inputs") = py::none(), py::arg("samples") = 8,
           py::arg("seed") = 1, py::arg("simulator") = "verilator", py::arg("timeout") = 600.0,
           "Simulates the design (Verilator or Icarus) on `inputs` (as csim takes them) or random "
           "samples, against kiln's emulator: bit-exactness, latency and interval measured.")
      .def("synth", &kp::synth, py::arg("timeout") = 3600.0, py::arg("jobs") = py::none(),
           py::arg("memory_limit_gb") = py::none(),
           "Yosys's resource counts next to kiln's estimate: one run of the whole design, or "
           "with `jobs` each module on its own, that many at once (kiln synth --jobs).");
  m.def("explore", &kp::explore, py::arg("model"), py::arg("part"), py::arg("config") = py::none(),
        py::arg("out_dir"), py::arg("sets") = std::vector<std::string>{},
        py::arg("objective") = "latency", py::arg("strategy") = "kiln",
        py::arg("max_latency") = py::none(), py::arg("max") = py::none(), py::arg("jobs") = 1,
        py::arg("validate") = 0, py::arg("force") = false, py::arg("accuracy") = py::none(),
        py::arg("min_top1") = py::none(), py::arg("max_error") = py::none(),
        py::arg("cache_memory_mb") = 1024, py::arg("emit") = std::vector<std::string>{},
        "kiln explore: the frontier of designs for the part (with accuracy='random:N' or a data "
        "directory, per-layer precisions too, each point's accuracy measured); returns "
        "{'points': [...], "
        "'frontier': frontier.json, 'dir': out_dir}; each point's 'config' (in out_dir) "
        "builds it with kiln.rtl; cache_memory_mb bounds the pricing's graph cache "
        "(--cache-memory); emit=['vitis', 'bambu'] also writes the chosen point as C "
        "projects (--emit).");
  m.def("rtl", &kp::rtl, py::arg("model"), py::arg("config") = py::none(), py::arg("out_dir"),
        py::arg("sets") = std::vector<std::string>{}, py::arg("force") = false,
        "kiln rtl: writes kiln's own Verilog to out_dir and returns the design.");

  // Pictures: drawn by kiln_plot (matplotlib), imported when first asked for.
  py::exec(R"(
def plot_frontier(frontier, file=None):
    """kiln explore's frontier (the dict kiln.explore returns, or its 'frontier'):
    latency against LUTs and DSPs."""
    import kiln_plot
    return kiln_plot.plot_frontier(frontier.get("frontier", frontier), file)

def plot_profile(profile, file=None):
    """The precision plot: per layer, its values against its types' range and resolution."""
    import kiln_plot
    return kiln_plot.plot_profile(profile, file)

def plot_estimate(estimate, file=None):
    """Per-layer latency and resources against the device's capacity."""
    import kiln_plot
    return kiln_plot.plot_estimate(estimate, file)

def plot_csim(result, file=None):
    """C simulation: the error histogram against the float model and overflows per layer."""
    import kiln_plot
    return kiln_plot.plot_csim(result, file)
)",
           m.attr("__dict__"));
}
