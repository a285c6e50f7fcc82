#include "kiln/hls/model_json.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "kiln/hls/layer_kinds.h"
#include "kiln/support/error.h"

namespace kiln::hls {

using nlohmann::json;

namespace {

// A well-formed JSON document that is not a valid model.
struct FormatError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- values: one generic put/get for every field type -------------------
//
// Enums use their EnumNames spellings; structs with a visit() (the params,
// Precision, TableConfig, Activation) are objects of their fields.

template <class T>
concept Visitable = requires(T& t) {
  T::visit(t, [](const char*, auto&) {});
};

template <class T>
json put(const T& v);

template <class T>
json put_fields(const T& v) {
  json j = json::object();
  T::visit(v, [&](const char* name, const auto& member) { j[name] = put(member); });
  return j;
}

template <class T>
json put(const T& v) {
  if constexpr (std::is_same_v<T, FixedType>) {
    return {{"width", v.width},
            {"integer", v.integer},
            {"signed", v.is_signed},
            {"quant", std::string(enum_name(v.quant))},
            {"overflow", std::string(enum_name(v.overflow))}};
  } else if constexpr (std::is_enum_v<T>) {
    return std::string(enum_name(v));
  } else if constexpr (Visitable<T>) {
    return put_fields(v);
  } else {
    return v;  // numbers, bools, vectors of numbers
  }
}

template <class E>
E get_enum(const json& j) {
  const std::string s = j.get<std::string>();
  if (auto e = enum_from_name<E>(s)) return *e;
  throw FormatError("unknown enum value '" + s + "'");
}

template <class T>
void get(const json& j, T& v) {
  if constexpr (std::is_same_v<T, FixedType>) {
    get(j.at("width"), v.width);
    get(j.at("integer"), v.integer);
    get(j.at("signed"), v.is_signed);
    v.quant = get_enum<numeric::QuantMode>(j.at("quant"));
    v.overflow = get_enum<numeric::OverflowMode>(j.at("overflow"));
    if (v.width < 1 || v.width > 64) throw FormatError("fixed-point width out of range 1..64");
  } else if constexpr (std::is_enum_v<T>) {
    v = get_enum<T>(j);
  } else if constexpr (Visitable<T>) {
    T::visit(v, [&](const char* name, auto& member) { get(j.at(name), member); });
  } else {
    v = j.get<T>();
  }
}

// The params variant: {"type": <LayerKind>, fields...}.
json put_params(const LayerParams& params) {
  json j = json::object();
  std::visit([&](const auto& p) { j = put_fields(p); }, params);
  j["type"] = std::string(enum_name(static_cast<LayerKind>(params.index())));
  return j;
}

template <std::size_t I = 0>
LayerParams params_by_index(std::size_t index) {
  if constexpr (I < std::variant_size_v<LayerParams>) {
    if (index == I) return LayerParams(std::in_place_index<I>);
    return params_by_index<I + 1>(index);
  } else {
    return LayerParams();
  }
}

void get_params(const json& j, LayerParams& params) {
  const LayerKind kind = get_enum<LayerKind>(j.at("type"));
  params = params_by_index(static_cast<std::size_t>(kind));
  std::visit([&](auto& p) { get(j, p); }, params);
}

json put_port(const Model::Port& p) {
  return {{"onnx_name", p.onnx_name}, {"onnx_shape", p.onnx_shape}, {"perm", p.perm}};
}
void get_port(const json& j, Model::Port& p) {
  get(j.at("onnx_name"), p.onnx_name);
  get(j.at("onnx_shape"), p.onnx_shape);
  get(j.at("perm"), p.perm);
}

void check_index(int index, std::size_t size, const std::string& what) {
  if (index < 0 || static_cast<std::size_t>(index) >= size)
    throw FormatError(what + " refers to missing tensor " + std::to_string(index));
}

}  // namespace

json model_to_json(const Model& m) {
  json j;
  j["name"] = m.name;
  j["part"] = m.part;
  j["clock_period_ns"] = m.clock_period_ns;
  j["io_type"] = put(m.io_type);
  j["backend"] = put(m.backend);
  j["style"] = put(m.style);
  json tensors = json::array();
  for (const TensorInfo& t : m.tensors)
    tensors.push_back({{"name", t.name}, {"shape", t.shape}, {"type", put(t.type)}});
  j["tensors"] = std::move(tensors);
  json layers = json::array();
  for (const Layer& l : m.layers) {
    layers.push_back({{"name", l.name},
                      {"onnx_name", l.onnx_name},
                      {"kind", put(l.kind())},
                      {"params", put_params(l.params)},
                      {"inputs", l.inputs},
                      {"outputs", l.outputs},
                      {"precision", put(l.precision)},
                      {"reuse_factor", l.reuse_factor},
                      {"strategy", put(l.strategy)},
                      {"conv_impl", put(l.conv_impl)},
                      {"tables", put(l.tables)},
                      {"weights", l.weights},
                      {"bias", l.bias}});
  }
  j["layers"] = std::move(layers);
  j["inputs"] = m.inputs;
  j["outputs"] = m.outputs;
  json in_ports = json::array(), out_ports = json::array();
  for (const auto& p : m.input_ports) in_ports.push_back(put_port(p));
  for (const auto& p : m.output_ports) out_ports.push_back(put_port(p));
  j["input_ports"] = std::move(in_ports);
  j["output_ports"] = std::move(out_ports);
  return j;
}

Model model_from_json(const json& j, const std::string& where) {
  Model m;
  try {
    get(j.at("name"), m.name);
    get(j.at("part"), m.part);
    get(j.at("clock_period_ns"), m.clock_period_ns);
    get(j.at("io_type"), m.io_type);
    get(j.at("backend"), m.backend);
    if (j.contains("style")) get(j.at("style"), m.style);  // older files: the layer library
    for (const json& jt : j.at("tensors")) {
      TensorInfo t;
      get(jt.at("name"), t.name);
      get(jt.at("shape"), t.shape);
      get(jt.at("type"), t.type);
      m.tensors.push_back(std::move(t));
    }
    for (const json& jl : j.at("layers")) {
      Layer l;
      get(jl.at("name"), l.name);
      get(jl.at("onnx_name"), l.onnx_name);
      get_params(jl.at("params"), l.params);
      if (get_enum<LayerKind>(jl.at("kind")) != l.kind())
        throw FormatError("layer '" + l.name + "' has params of another kind");
      get(jl.at("inputs"), l.inputs);
      get(jl.at("outputs"), l.outputs);
      get(jl.at("precision"), l.precision);
      get(jl.at("reuse_factor"), l.reuse_factor);
      get(jl.at("strategy"), l.strategy);
      get(jl.at("conv_impl"), l.conv_impl);
      get(jl.at("tables"), l.tables);
      get(jl.at("weights"), l.weights);
      get(jl.at("bias"), l.bias);
      for (int t : l.inputs) check_index(t, m.tensors.size(), "layer '" + l.name + "'");
      for (int t : l.outputs) check_index(t, m.tensors.size(), "layer '" + l.name + "'");
      if (l.outputs.empty()) throw FormatError("layer '" + l.name + "' has no output");
      m.layers.push_back(std::move(l));
    }
    get(j.at("inputs"), m.inputs);
    get(j.at("outputs"), m.outputs);
    for (int t : m.inputs) check_index(t, m.tensors.size(), "inputs");
    for (int t : m.outputs) check_index(t, m.tensors.size(), "outputs");
    for (const json& jp : j.at("input_ports")) get_port(jp, m.input_ports.emplace_back());
    for (const json& jp : j.at("output_ports")) get_port(jp, m.output_ports.emplace_back());
  } catch (const json::exception& e) {
    throw_error(ErrorKind::InvalidModel, where, std::string("malformed model: ") + e.what(),
                "rewrite the project with `kiln compile`");
  } catch (const FormatError& e) {
    throw_error(ErrorKind::InvalidModel, where, std::string("malformed model: ") + e.what(),
                "rewrite the project with `kiln compile`");
  }
  return m;
}

void save_model_json(const std::filesystem::path& path, const Model& model, const json& source) {
  json j;
  j["format"] = kModelJsonFormat;
  j["version"] = kModelJsonVersion;
  j["source"] = source;
  j["model"] = model_to_json(model);
  std::ofstream f(path, std::ios::binary);
  f << j.dump(1) << "\n";
  if (!f)
    throw_error(ErrorKind::Io, path.string(), "cannot write file", "check that it is writable");
}

ModelFile load_model_json(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw_error(ErrorKind::Io, path.string(), "cannot read file",
                "is this a project written by `kiln compile`?");
  json j;
  try {
    j = json::parse(f);
  } catch (const json::exception& e) {
    throw_error(ErrorKind::InvalidModel, path.string(), std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object() || j.value("format", "") != kModelJsonFormat)
    throw_error(ErrorKind::InvalidModel, path.string(), "not a kiln model file",
                "is this a project written by `kiln compile`?");
  if (j.value("version", 0) != kModelJsonVersion)
    throw_error(ErrorKind::InvalidModel, path.string(),
                "model file version " + j["version"].dump() + " is not " +
                    std::to_string(kModelJsonVersion),
                "rewrite the project with this kiln's `kiln compile`");
  ModelFile out;
  out.source = j.value("source", json());
  if (!j.contains("model")) throw_error(ErrorKind::InvalidModel, path.string(), "no \"model\" key");
  out.model = model_from_json(j["model"], path.string());
  return out;
}

}  // namespace kiln::hls
