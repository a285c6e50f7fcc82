#include "kiln/hls/model_json.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "kiln/support/error.h"

namespace kiln::hls {

using nlohmann::json;

namespace {

// A well-formed JSON document that is not a valid model.
struct FormatError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- enums: stable spellings, independent of the enumerator values --------

template <class E>
struct EnumName {
  E value;
  const char* name;
};

constexpr EnumName<IOType> kIOTypes[] = {{IOType::Parallel, "io_parallel"},
                                         {IOType::Stream, "io_stream"}};
constexpr EnumName<Strategy> kStrategies[] = {{Strategy::Latency, "Latency"},
                                              {Strategy::Resource, "Resource"}};
constexpr EnumName<ConvImpl> kConvImpls[] = {{ConvImpl::LineBuffer, "LineBuffer"},
                                             {ConvImpl::Encoded, "Encoded"}};
constexpr EnumName<Backend> kBackends[] = {{Backend::Vitis, "vitis"}, {Backend::Bambu, "bambu"}};
constexpr EnumName<ActKind> kActKinds[] = {
    {ActKind::None, "None"}, {ActKind::Relu, "Relu"},       {ActKind::LeakyRelu, "LeakyRelu"},
    {ActKind::Elu, "Elu"},   {ActKind::Selu, "Selu"},       {ActKind::PRelu, "PRelu"},
    {ActKind::Clip, "Clip"}, {ActKind::Sigmoid, "Sigmoid"}, {ActKind::Tanh, "Tanh"},
    {ActKind::Exp, "Exp"}};
constexpr EnumName<PoolKind> kPoolKinds[] = {{PoolKind::Max, "Max"},
                                             {PoolKind::Average, "Average"}};
constexpr EnumName<BinaryOp> kBinaryOps[] = {
    {BinaryOp::Add, "Add"}, {BinaryOp::Sub, "Sub"}, {BinaryOp::Mul, "Mul"}};
constexpr EnumName<LayerKind> kLayerKinds[] = {{LayerKind::Input, "Input"},
                                               {LayerKind::Dense, "Dense"},
                                               {LayerKind::Conv, "Conv"},
                                               {LayerKind::Pool, "Pool"},
                                               {LayerKind::ZeroPad, "ZeroPad"},
                                               {LayerKind::BatchNorm, "BatchNorm"},
                                               {LayerKind::Activation, "Activation"},
                                               {LayerKind::Softmax, "Softmax"},
                                               {LayerKind::Binary, "Binary"},
                                               {LayerKind::Concat, "Concat"},
                                               {LayerKind::Transpose, "Transpose"},
                                               {LayerKind::MatMul, "MatMul"},
                                               {LayerKind::Reshape, "Reshape"}};
constexpr EnumName<numeric::QuantMode> kQuantModes[] = {
    {numeric::QuantMode::Trn, "TRN"},
    {numeric::QuantMode::TrnZero, "TRN_ZERO"},
    {numeric::QuantMode::Rnd, "RND"},
    {numeric::QuantMode::RndZero, "RND_ZERO"},
    {numeric::QuantMode::RndMinInf, "RND_MIN_INF"},
    {numeric::QuantMode::RndInf, "RND_INF"},
    {numeric::QuantMode::RndConv, "RND_CONV"}};
constexpr EnumName<numeric::OverflowMode> kOverflowModes[] = {
    {numeric::OverflowMode::Wrap, "WRAP"},
    {numeric::OverflowMode::Sat, "SAT"},
    {numeric::OverflowMode::SatZero, "SAT_ZERO"},
    {numeric::OverflowMode::SatSym, "SAT_SYM"}};

template <class E, std::size_t N>
json enum_out(E v, const EnumName<E> (&table)[N]) {
  for (const auto& e : table)
    if (e.value == v) return e.name;
  KILN_ASSERT(false, "enum value missing from the JSON table");
  return nullptr;
}

template <class E, std::size_t N>
E enum_in(const json& j, const EnumName<E> (&table)[N]) {
  const std::string s = j.get<std::string>();
  for (const auto& e : table)
    if (s == e.name) return e.value;
  throw FormatError("unknown enum value '" + s + "'");
}

// ---- generic put/get -------------------------------------------------------

// Overloads for every field type the model uses.
json put(int64_t v) {
  return v;
}
json put(int v) {
  return v;
}
json put(bool v) {
  return v;
}
json put(const std::vector<int64_t>& v) {
  return v;
}
json put(ActKind v) {
  return enum_out(v, kActKinds);
}
json put(PoolKind v) {
  return enum_out(v, kPoolKinds);
}
json put(BinaryOp v) {
  return enum_out(v, kBinaryOps);
}

template <class T>
void get(const json& j, T& v) {
  v = j.get<T>();
}
void get(const json& j, ActKind& v) {
  v = enum_in(j, kActKinds);
}
void get(const json& j, PoolKind& v) {
  v = enum_in(j, kPoolKinds);
}
void get(const json& j, BinaryOp& v) {
  v = enum_in(j, kBinaryOps);
}

json put(const Activation& a) {
  return {{"kind", put(a.kind)}, {"alpha", a.alpha}, {"beta", a.beta}};
}
void get(const json& j, Activation& a) {
  get(j.at("kind"), a.kind);
  get(j.at("alpha"), a.alpha);
  get(j.at("beta"), a.beta);
}

json put(const FixedType& t) {
  return {{"width", t.width},
          {"integer", t.integer},
          {"signed", t.is_signed},
          {"quant", enum_out(t.quant, kQuantModes)},
          {"overflow", enum_out(t.overflow, kOverflowModes)}};
}
void get(const json& j, FixedType& t) {
  get(j.at("width"), t.width);
  get(j.at("integer"), t.integer);
  get(j.at("signed"), t.is_signed);
  t.quant = enum_in(j.at("quant"), kQuantModes);
  t.overflow = enum_in(j.at("overflow"), kOverflowModes);
  if (t.width < 1 || t.width > 64) throw FormatError("fixed-point width out of range 1..64");
}

// ---- parameter structs: one field list drives both directions --------------

// fields(p, f) calls f(name, member) for each member of p.
template <class F>
void fields(InputParams&, F&&) {}
template <class F>
void fields(ReshapeParams&, F&&) {}
template <class F>
void fields(DenseParams& p, F&& f) {
  f("n_in", p.n_in), f("n_out", p.n_out), f("act", p.act);
}
template <class F>
void fields(ConvParams& p, F&& f) {
  f("dims", p.dims), f("in_h", p.in_h), f("in_w", p.in_w), f("c_in", p.c_in);
  f("out_h", p.out_h), f("out_w", p.out_w), f("c_out", p.c_out);
  f("kernel_h", p.kernel_h), f("kernel_w", p.kernel_w);
  f("stride_h", p.stride_h), f("stride_w", p.stride_w);
  f("pad_top", p.pad_top), f("pad_bottom", p.pad_bottom), f("pad_left", p.pad_left);
  f("pad_right", p.pad_right), f("groups", p.groups), f("act", p.act);
}
template <class F>
void fields(PoolParams& p, F&& f) {
  f("kind", p.kind), f("dims", p.dims), f("in_h", p.in_h), f("in_w", p.in_w);
  f("channels", p.channels), f("out_h", p.out_h), f("out_w", p.out_w);
  f("kernel_h", p.kernel_h), f("kernel_w", p.kernel_w);
  f("stride_h", p.stride_h), f("stride_w", p.stride_w);
  f("pad_top", p.pad_top), f("pad_bottom", p.pad_bottom), f("pad_left", p.pad_left);
  f("pad_right", p.pad_right), f("count_include_pad", p.count_include_pad);
}
template <class F>
void fields(ZeroPadParams& p, F&& f) {
  f("dims", p.dims), f("in_h", p.in_h), f("in_w", p.in_w), f("channels", p.channels);
  f("pad_top", p.pad_top), f("pad_bottom", p.pad_bottom), f("pad_left", p.pad_left);
  f("pad_right", p.pad_right);
}
template <class F>
void fields(BatchNormParams& p, F&& f) {
  f("n", p.n), f("channels", p.channels);
}
template <class F>
void fields(ActivationParams& p, F&& f) {
  f("n", p.n), f("channels", p.channels), f("act", p.act);
}
template <class F>
void fields(SoftmaxParams& p, F&& f) {
  f("rows", p.rows), f("length", p.length);
}
template <class F>
void fields(BinaryParams& p, F&& f) {
  f("op", p.op), f("n", p.n), f("channels", p.channels);
}
template <class F>
void fields(ConcatParams& p, F&& f) {
  f("axis", p.axis);
}
template <class F>
void fields(TransposeParams& p, F&& f) {
  f("perm", p.perm);
}
template <class F>
void fields(MatMulParams& p, F&& f) {
  f("batch", p.batch), f("m", p.m), f("k", p.k), f("n", p.n);
}

// The variant's alternatives by name (the tag written next to the fields).
constexpr const char* kParamsNames[] = {"Input",     "Dense",      "Conv",    "Pool",   "ZeroPad",
                                        "BatchNorm", "Activation", "Softmax", "Binary", "Concat",
                                        "Transpose", "MatMul",     "Reshape"};
static_assert(std::size(kParamsNames) == std::variant_size_v<LayerParams>);

json put(const LayerParams& params) {
  json j = json::object();
  j["type"] = kParamsNames[params.index()];
  std::visit(
      [&](const auto& p) {
        auto& mutable_p = const_cast<std::decay_t<decltype(p)>&>(p);  // fields() reads only here
        fields(mutable_p, [&](const char* name, const auto& member) { j[name] = put(member); });
      },
      params);
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

void get(const json& j, LayerParams& params) {
  const std::string type = j.at("type").get<std::string>();
  std::size_t index = std::size(kParamsNames);
  for (std::size_t i = 0; i < std::size(kParamsNames); ++i)
    if (type == kParamsNames[i]) index = i;
  if (index == std::size(kParamsNames))
    throw FormatError("unknown layer params type '" + type + "'");
  params = params_by_index(index);
  std::visit(
      [&](auto& p) { fields(p, [&](const char* name, auto& member) { get(j.at(name), member); }); },
      params);
}

json put(const Precision& p) {
  return {{"weight", put(p.weight)}, {"bias", put(p.bias)},   {"result", put(p.result)},
          {"accum", put(p.accum)},   {"table", put(p.table)}, {"inv_table", put(p.inv_table)}};
}
void get(const json& j, Precision& p) {
  get(j.at("weight"), p.weight);
  get(j.at("bias"), p.bias);
  get(j.at("result"), p.result);
  get(j.at("accum"), p.accum);
  get(j.at("table"), p.table);
  get(j.at("inv_table"), p.inv_table);
}

json put(const TableConfig& t) {
  return {{"table_size", t.table_size},
          {"table_range", t.table_range},
          {"inv_table_size", t.inv_table_size},
          {"inv_table_range", t.inv_table_range}};
}
void get(const json& j, TableConfig& t) {
  get(j.at("table_size"), t.table_size);
  get(j.at("table_range"), t.table_range);
  get(j.at("inv_table_size"), t.inv_table_size);
  get(j.at("inv_table_range"), t.inv_table_range);
}

json put(const Model::Port& p) {
  return {{"onnx_name", p.onnx_name}, {"onnx_shape", p.onnx_shape}, {"perm", p.perm}};
}
void get(const json& j, Model::Port& p) {
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
  j["io_type"] = enum_out(m.io_type, kIOTypes);
  j["backend"] = enum_out(m.backend, kBackends);
  json tensors = json::array();
  for (const TensorInfo& t : m.tensors)
    tensors.push_back({{"name", t.name}, {"shape", t.shape}, {"type", put(t.type)}});
  j["tensors"] = std::move(tensors);
  json layers = json::array();
  for (const Layer& l : m.layers) {
    layers.push_back({{"name", l.name},
                      {"onnx_name", l.onnx_name},
                      {"kind", enum_out(l.kind, kLayerKinds)},
                      {"params", put(l.params)},
                      {"inputs", l.inputs},
                      {"output", l.output},
                      {"precision", put(l.precision)},
                      {"reuse_factor", l.reuse_factor},
                      {"strategy", enum_out(l.strategy, kStrategies)},
                      {"conv_impl", enum_out(l.conv_impl, kConvImpls)},
                      {"tables", put(l.tables)},
                      {"weights", l.weights},
                      {"bias", l.bias}});
  }
  j["layers"] = std::move(layers);
  j["inputs"] = m.inputs;
  j["outputs"] = m.outputs;
  json in_ports = json::array(), out_ports = json::array();
  for (const auto& p : m.input_ports) in_ports.push_back(put(p));
  for (const auto& p : m.output_ports) out_ports.push_back(put(p));
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
    m.io_type = enum_in(j.at("io_type"), kIOTypes);
    m.backend = enum_in(j.at("backend"), kBackends);
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
      l.kind = enum_in(jl.at("kind"), kLayerKinds);
      get(jl.at("params"), l.params);
      get(jl.at("inputs"), l.inputs);
      get(jl.at("output"), l.output);
      get(jl.at("precision"), l.precision);
      get(jl.at("reuse_factor"), l.reuse_factor);
      l.strategy = enum_in(jl.at("strategy"), kStrategies);
      l.conv_impl = enum_in(jl.at("conv_impl"), kConvImpls);
      get(jl.at("tables"), l.tables);
      get(jl.at("weights"), l.weights);
      get(jl.at("bias"), l.bias);
      for (int t : l.inputs) check_index(t, m.tensors.size(), "layer '" + l.name + "'");
      check_index(l.output, m.tensors.size(), "layer '" + l.name + "'");
      m.layers.push_back(std::move(l));
    }
    get(j.at("inputs"), m.inputs);
    get(j.at("outputs"), m.outputs);
    for (int t : m.inputs) check_index(t, m.tensors.size(), "inputs");
    for (int t : m.outputs) check_index(t, m.tensors.size(), "outputs");
    for (const json& jp : j.at("input_ports")) get(jp, m.input_ports.emplace_back());
    for (const json& jp : j.at("output_ports")) get(jp, m.output_ports.emplace_back());
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
