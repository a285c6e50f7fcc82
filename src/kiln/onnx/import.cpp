#include "kiln/onnx/import.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kiln/graph/shape_inference.h"
#include "kiln/onnx/op_attributes.h"
#include "kiln/onnx/proto_util.h"
#include "kiln/onnx/tensor_proto.h"
#include "kiln/ref/evaluate.h"

namespace kiln::onnx_import {

namespace {

// Default-domain opsets kiln reads, and the newest one ONNX has defined (so
// anything above it is corrupt rather than merely new).
constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 21;
constexpr int64_t kNewestOnnxOpset = 22;
// Largest node result (in elements) that import computes ahead of time.
constexpr int64_t kMaxFoldElements = int64_t{1} << 24;

// QONNX opsets kiln reads (Trunc changed in 2). A model that uses QONNX ops
// without importing the domain gets opset 1, QONNX's own fallback.
constexpr int64_t kMaxQonnxOpset = 2;
constexpr int64_t kDefaultQonnxOpset = 1;

bool is_default_domain(const std::string& d) {
  return op_domain_from_onnx(d) == OpDomain::Onnx;
}
bool is_qonnx_domain(const std::string& d) {
  return op_domain_from_onnx(d) == OpDomain::Qonnx;
}

// "Quant, IntQuant, BipolarQuant, Trunc": the op types kiln reads in a domain.
std::string onnx_op_types_of(OpDomain domain) {
  std::string s;
  for (int k = 0; k < kNumOpKinds; ++k)
    if (op_domain(static_cast<OpKind>(k)) == domain)
      for (std::string_view t : onnx_op_types(static_cast<OpKind>(k)))
        s += (s.empty() ? "" : ", ") + std::string(t);
  return s;
}

// "node 'conv1'", or for unnamed nodes "node #3 (output 'y')".
std::string node_label(const ::onnx::NodeProto& p, int index) {
  if (!p.name().empty()) return "node '" + p.name() + "'";
  std::string s = "node #" + std::to_string(index);
  if (p.output_size() > 0 && !p.output(0).empty()) s += " (output '" + p.output(0) + "')";
  return s;
}

// "Conv 'conv1'", or "Conv node #3 (output 'y')" for unnamed nodes.
std::string describe_proto_node(const ::onnx::NodeProto& p, int index) {
  if (!p.name().empty()) return p.op_type() + " '" + p.name() + "'";
  return p.op_type() + " " + node_label(p, index);
}

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "'" : ", '") + n + "'";
  return s.empty() ? "(none)" : s;
}

// "float32[Nx3x224x224]" for a declared tensor type.
std::string declared_to_string(const ::onnx::TypeProto_Tensor& t) {
  std::string s;
  try {
    s = dtype_name(dtype_from_onnx(t.elem_type(), ""));
  } catch (const Error&) {
    s = onnx_type_name(t.elem_type());
  }
  s += "[";
  if (!t.has_shape()) return s + "?]";
  if (t.shape().dim_size() == 0) return s + "scalar]";
  for (int i = 0; i < t.shape().dim_size(); ++i) {
    const auto& d = t.shape().dim(i);
    if (i) s += "x";
    s += d.has_dim_value()                             ? std::to_string(d.dim_value())
         : d.has_dim_param() && !d.dim_param().empty() ? d.dim_param()
                                                       : "?";
  }
  return s + "]";
}

class Importer {
 public:
  Importer(const ::onnx::ModelProto& model, std::filesystem::path base_dir,
           const ImportOptions& options)
      : model_(model), g_(model.graph()), base_dir_(std::move(base_dir)), options_(options) {}

  Graph run() {
    read_opsets();
    prescan();
    add_initializers();
    add_inputs();
    for (const auto& d : g_.value_info()) declared_[d.name()] = &d.type();
    for (const auto& d : g_.output()) declared_[d.name()] = &d.type();
    for (int i : node_order()) import_node(i);
    add_outputs();
    graph_.name = g_.name();
    graph_.opset = opset_;
    graph_.verify();
    return std::move(graph_);
  }

 private:
  void read_opsets();
  void read_qonnx_opset(const std::string& domain, int64_t version);
  int64_t qonnx_opset(const std::string& domain) const;
  void prescan();
  void add_initializers();
  void add_inputs();
  Shape input_shape(const ::onnx::ValueInfoProto& in, const std::string& where);
  std::vector<int> node_order();
  void import_node(int index);
  void check_declared(ValueId id, const std::string& where, bool check_dtype);
  void add_outputs();

  const ::onnx::ModelProto& model_;
  const ::onnx::GraphProto& g_;
  std::filesystem::path base_dir_;
  const ImportOptions& options_;

  Graph graph_;
  int64_t opset_ = 0;
  std::unordered_set<std::string> other_domains_;
  // The QONNX opset imported under each spelling of its domain.
  std::unordered_map<std::string, int64_t> qonnx_opsets_;
  std::unordered_map<std::string, ValueId> values_;  // ONNX name -> value
  std::unordered_map<std::string, const ::onnx::TypeProto*> declared_;
  // Set when options changed a fixed input dimension: declared output dims
  // then describe the original model, not this import.
  bool shapes_overridden_ = false;
};

void Importer::read_opsets() {
  bool have_default = false;
  for (const auto& op : model_.opset_import()) {
    if (is_qonnx_domain(op.domain())) {
      read_qonnx_opset(op.domain(), op.version());
      continue;
    }
    if (!is_default_domain(op.domain())) {
      other_domains_.insert(op.domain());
      continue;
    }
    if (have_default && op.version() != opset_)
      throw_error(ErrorKind::InvalidModel, "opset_import",
                  "the default domain is imported twice, as opsets " + std::to_string(opset_) +
                      " and " + std::to_string(op.version()),
                  "import one opset per domain");
    have_default = true;
    opset_ = op.version();
  }
  // IR versions before 3 had no opset_import and meant opset 1.
  if (!have_default && model_.opset_import_size() == 0 && model_.ir_version() < 3) {
    have_default = true;
    opset_ = 1;
  }
  if (!have_default) return;  // nodes of the default domain are then rejected
  const std::string where = "opset " + std::to_string(opset_);
  if (opset_ < kMinOpset || opset_ > kNewestOnnxOpset)
    throw_error(ErrorKind::InvalidModel, where, "unknown opset version for the default ONNX domain",
                "ONNX defines opsets 1 to " + std::to_string(kNewestOnnxOpset) +
                    "; the file may be corrupt");
  if (opset_ > kMaxOpset)
    throw_error(ErrorKind::Unsupported, where,
                "the model's opset is newer than kiln supports (" + std::to_string(kMinOpset) +
                    " to " + std::to_string(kMaxOpset) + ")",
                "convert it with onnx.version_converter.convert_version(model, " +
                    std::to_string(kMaxOpset) + ")");
}

void Importer::read_qonnx_opset(const std::string& domain, int64_t version) {
  const std::string where = "opset_import '" + domain + "'";
  if (const auto it = qonnx_opsets_.find(domain);
      it != qonnx_opsets_.end() && it->second != version)
    throw_error(ErrorKind::InvalidModel, where,
                "is imported twice, as opsets " + std::to_string(it->second) + " and " +
                    std::to_string(version),
                "import one opset per domain");
  if (version < 1)
    throw_error(ErrorKind::InvalidModel, where,
                "QONNX opset " + std::to_string(version) + " does not exist",
                "QONNX opsets start at 1; the file may be corrupt");
  if (version > kMaxQonnxOpset)
    throw_error(
        ErrorKind::Unsupported, where,
        "QONNX opset " + std::to_string(version) + " is newer than kiln reads (1 to " +
            std::to_string(kMaxQonnxOpset) + ")",
        "export the model with QONNX opset " + std::to_string(kMaxQonnxOpset) + " or older");
  qonnx_opsets_[domain] = version;
}

int64_t Importer::qonnx_opset(const std::string& domain) const {
  const auto it = qonnx_opsets_.find(domain);
  return it == qonnx_opsets_.end() ? kDefaultQonnxOpset : it->second;
}

// Everything that makes a valid model unsupported is reported before any
// consistency check, so such models fail with "unsupported" (exit 3).
void Importer::prescan() {
  for (int i = 0; i < g_.node_size(); ++i) {
    const auto& p = g_.node(i);
    const std::string label = node_label(p, i);
    if (is_default_domain(p.domain())) {
      if (opset_ == 0)
        throw_error(ErrorKind::InvalidModel, label,
                    "uses the default ONNX domain, which the model does not import (unknown "
                    "domain)",
                    "add the default domain to the model's opset_import");
      if (p.op_type() != "Constant" && !op_kind_from_onnx(OpDomain::Onnx, p.op_type()))
        throw_error(ErrorKind::Unsupported, label,
                    "op " + p.op_type() + " is not supported by kiln",
                    "the supported ops are listed in docs/ops.md");
    } else if (is_qonnx_domain(p.domain())) {
      if (!op_kind_from_onnx(OpDomain::Qonnx, p.op_type()))
        throw_error(
            ErrorKind::Unsupported, label,
            "op " + p.op_type() + " of domain '" + p.domain() + "' is not supported by kiln",
            "of QONNX's ops kiln reads " + onnx_op_types_of(OpDomain::Qonnx) +
                "; the supported ops are listed in docs/ops.md");
    } else if (!other_domains_.count(p.domain())) {
      throw_error(ErrorKind::InvalidModel, label,
                  "op " + p.op_type() + " is of unknown domain '" + p.domain() +
                      "' (not declared in opset_import)",
                  "declare the domain in the model's opset_import");
    } else {
      throw_error(ErrorKind::Unsupported, label,
                  "op " + p.op_type() + " of domain '" + p.domain() + "' is not supported by kiln",
                  "kiln reads the default ONNX domain and QONNX's " +
                      std::string(onnx_domain_name(OpDomain::Qonnx)) +
                      "; the supported ops are listed in docs/ops.md");
    }
  }
  if (g_.sparse_initializer_size() > 0)
    throw_error(ErrorKind::Unsupported,
                "sparse initializer '" + g_.sparse_initializer(0).values().name() + "'",
                "sparse initializers are not supported", "store the weights densely");
  for (const auto& t : g_.initializer())
    if (t.data_type() != ::onnx::TensorProto::UNDEFINED)
      dtype_from_onnx(t.data_type(), "initializer '" + t.name() + "'");
  std::unordered_set<std::string> init_names;
  for (const auto& t : g_.initializer()) init_names.insert(t.name());
  for (const auto& in : g_.input()) {
    if (init_names.count(in.name())) continue;
    const std::string where = "input '" + in.name() + "'";
    const auto& type = in.type();
    if (!type.has_tensor_type()) {
      const char* kind = type.has_sequence_type()        ? "a sequence"
                         : type.has_map_type()           ? "a map"
                         : type.has_optional_type()      ? "an optional"
                         : type.has_sparse_tensor_type() ? "a sparse tensor"
                                                         : "not a tensor";
      if (type.value_case() == ::onnx::TypeProto::VALUE_NOT_SET)
        throw_error(ErrorKind::InvalidModel, where, "has no type",
                    "the model must declare the type of every graph input");
      throw_error(ErrorKind::Unsupported, where, std::string("is ") + kind,
                  "kiln supports tensor inputs only");
    }
    dtype_from_onnx(type.tensor_type().elem_type(), where);
  }
}

void Importer::add_initializers() {
  for (const auto& t : g_.initializer()) {
    const std::string where = "initializer '" + t.name() + "'";
    if (t.name().empty())
      throw_error(ErrorKind::InvalidModel, "initializer", "an initializer has no name",
                  "name every initializer");
    if (values_.count(t.name()))
      throw_error(ErrorKind::InvalidModel, where, "is defined twice",
                  "initializer names must be unique");
    values_[t.name()] = graph_.add_constant(t.name(), tensor_from_proto(t, base_dir_, where));
  }
}

Shape Importer::input_shape(const ::onnx::ValueInfoProto& in, const std::string& where) {
  const auto& tt = in.type().tensor_type();
  const bool declared = tt.has_shape();
  const int rank = declared ? tt.shape().dim_size() : -1;
  Shape shape;
  if (auto it = options_.input_shapes.find(in.name()); it != options_.input_shapes.end()) {
    shape = it->second;
    if (declared && static_cast<int>(shape.size()) != rank)
      throw_error(ErrorKind::Usage, "--input-shape " + in.name(),
                  "gives rank " + std::to_string(shape.size()) + " but the model declares " +
                      declared_to_string(tt) + " (rank " + std::to_string(rank) + ")",
                  "give one size per dimension of the declared shape");
  } else {
    const std::string hint = "pass --input-shape " + in.name() +
                             "=AxBxC... with every dimension (--batch only sets dimension 0)";
    if (!declared)
      throw_error(ErrorKind::Usage, where, "the model does not declare its shape", hint);
    for (int d = 0; d < rank; ++d) {
      const auto& dim = tt.shape().dim(d);
      if (d == 0 && options_.batch) {
        shape.push_back(*options_.batch);
      } else if (dim.has_dim_value()) {
        shape.push_back(dim.dim_value());
      } else if (d == 0) {
        shape.push_back(1);  // symbolic batch dimension
      } else {
        throw_error(
            ErrorKind::Usage, where,
            "dimension " + std::to_string(d) + " of " + declared_to_string(tt) + " is not fixed",
            hint);
      }
    }
  }
  check_shape_sane(shape, where);
  if (declared)
    for (int d = 0; d < rank; ++d)
      if (tt.shape().dim(d).has_dim_value() && tt.shape().dim(d).dim_value() != shape[d])
        shapes_overridden_ = true;
  return shape;
}

void Importer::add_inputs() {
  if (options_.batch && *options_.batch < 1)
    throw_error(ErrorKind::Usage, "--batch", "must be at least 1");
  std::vector<std::string> runtime_names;
  std::unordered_set<std::string> seen;
  for (const auto& in : g_.input()) {
    if (!seen.insert(in.name()).second)
      throw_error(ErrorKind::InvalidModel, "input '" + in.name() + "'", "is listed twice",
                  "graph input names must be unique");
    if (values_.count(in.name())) continue;  // an initializer: a constant, not a runtime input
    runtime_names.push_back(in.name());
  }
  for (const auto& [name, shape] : options_.input_shapes)
    if (std::find(runtime_names.begin(), runtime_names.end(), name) == runtime_names.end())
      throw_error(ErrorKind::Usage, "--input-shape " + name,
                  "the model has no input '" + name + "'",
                  "its inputs are " + join_names(runtime_names));
  for (const auto& [name, tensor] : options_.constant_inputs)
    if (std::find(runtime_names.begin(), runtime_names.end(), name) == runtime_names.end())
      throw_error(ErrorKind::Usage, "constant input " + name,
                  "the model has no input '" + name + "'",
                  "its inputs are " + join_names(runtime_names));
  for (const auto& in : g_.input()) {
    if (values_.count(in.name())) continue;
    const std::string where = "input '" + in.name() + "'";
    if (in.name().empty())
      throw_error(ErrorKind::InvalidModel, "graph input", "a graph input has no name",
                  "name every input");
    const DType dtype = dtype_from_onnx(in.type().tensor_type().elem_type(), where);
    if (auto c = options_.constant_inputs.find(in.name()); c != options_.constant_inputs.end()) {
      const Tensor& t = c->second;
      const auto& tt = in.type().tensor_type();
      bool fits = t.dtype() == dtype && (!tt.has_shape() || tt.shape().dim_size() == t.rank());
      for (int d = 0; fits && tt.has_shape() && d < tt.shape().dim_size(); ++d)
        fits = !tt.shape().dim(d).has_dim_value() || tt.shape().dim(d).dim_value() == t.shape()[d];
      if (!fits)
        throw_error(ErrorKind::InvalidModel, where,
                    "declared " + declared_to_string(tt) + " but the constant given for it is " +
                        t.type().to_string(),
                    "give a tensor of the declared type and shape");
      values_[in.name()] = graph_.add_constant(in.name(), t);
      continue;
    }
    const ValueId id = graph_.add_value(in.name(), TensorType{dtype, input_shape(in, where)});
    values_[in.name()] = id;
    graph_.inputs.push_back(id);
  }
}

// Node indices in a topological order that keeps the file's order where it
// can (ONNX requires sorted nodes, but some exporters do not comply).
std::vector<int> Importer::node_order() {
  const int n = g_.node_size();
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < n; ++i) {
    const auto& p = g_.node(i);
    for (const std::string& o : p.output()) {
      if (o.empty()) continue;
      if (values_.count(o))
        throw_error(ErrorKind::InvalidModel, node_label(p, i),
                    "output '" + o + "' has the name of a graph input or initializer",
                    "every value must have exactly one definition");
      if (auto [it, fresh] = producer.emplace(o, i); !fresh)
        throw_error(
            ErrorKind::InvalidModel, node_label(p, i),
            "output '" + o + "' is also produced by " + node_label(g_.node(it->second), it->second),
            "every value must have exactly one definition");
    }
  }
  std::vector<int> pending(static_cast<std::size_t>(n), 0);
  std::vector<std::vector<int>> users(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const auto& p = g_.node(i);
    for (const std::string& in : p.input()) {
      if (in.empty() || values_.count(in)) continue;
      const auto it = producer.find(in);
      if (it == producer.end())
        throw_error(ErrorKind::InvalidModel, node_label(p, i),
                    "input '" + in + "' of " + node_label(p, i) +
                        " is not produced by any node, initializer or graph input",
                    "the model is incomplete; re-export it");
      ++pending[static_cast<std::size_t>(i)];
      users[static_cast<std::size_t>(it->second)].push_back(i);
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int i = 0; i < n; ++i)
    if (pending[static_cast<std::size_t>(i)] == 0) ready.push(i);
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(n));
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int u : users[static_cast<std::size_t>(i)])
      if (--pending[static_cast<std::size_t>(u)] == 0) ready.push(u);
  }
  if (static_cast<int>(order.size()) < n) {
    // Walk back through unfinished producers until a node repeats: it lies on a cycle.
    std::vector<bool> visited(static_cast<std::size_t>(n), false);
    int cur = 0;
    while (pending[static_cast<std::size_t>(cur)] == 0) ++cur;
    while (!visited[static_cast<std::size_t>(cur)]) {
      visited[static_cast<std::size_t>(cur)] = true;
      for (const std::string& in : g_.node(cur).input()) {
        const auto it = producer.find(in);
        if (it != producer.end() && pending[static_cast<std::size_t>(it->second)] > 0) {
          cur = it->second;
          break;
        }
      }
    }
    throw_error(ErrorKind::InvalidModel, node_label(g_.node(cur), cur),
                "the graph has a cycle through this node",
                "ONNX graphs must be acyclic; re-export the model");
  }
  return order;
}

void Importer::check_declared(ValueId id, const std::string& where, bool check_dtype) {
  const Value& v = graph_.value(id);
  const auto it = declared_.find(v.onnx_name);
  if (it == declared_.end() || !it->second->has_tensor_type()) return;
  const auto& tt = it->second->tensor_type();
  const TensorType& got = v.type;
  bool ok = true;
  if (check_dtype && tt.elem_type() != 0 && tt.elem_type() != onnx_from_dtype(got.dtype))
    ok = false;
  if (tt.has_shape()) {
    if (tt.shape().dim_size() != static_cast<int>(got.shape.size())) {
      ok = false;
    } else if (!shapes_overridden_) {
      for (int d = 0; d < tt.shape().dim_size(); ++d)
        if (tt.shape().dim(d).has_dim_value() &&
            tt.shape().dim(d).dim_value() != got.shape[static_cast<std::size_t>(d)])
          ok = false;
    }
  }
  if (!ok)
    throw_error(ErrorKind::InvalidModel, where + " output '" + v.onnx_name + "'",
                "inferred " + got.to_string() + " but the model declares " + declared_to_string(tt),
                "the model's value_info/output types contradict its operators; re-export the "
                "model (or report a kiln bug if the model is right)");
}

void Importer::import_node(int index) {
  const auto& p = g_.node(index);
  const std::string where = describe_proto_node(p, index);
  const std::string label = node_label(p, index);

  if (p.op_type() == "Constant") {
    if (count_used_outputs(p) != 1 || p.output_size() != 1)
      throw_error(ErrorKind::InvalidModel, where, "a Constant must have exactly one output");
    const ValueId id = graph_.add_constant(p.output(0), constant_node_value(p, base_dir_, where));
    values_[p.output(0)] = id;
    check_declared(id, label, true);
    return;
  }

  // prescan() let through only ops kiln reads, of the default or the QONNX domain.
  const OpDomain domain = *op_domain_from_onnx(p.domain());
  const OpKind kind = *op_kind_from_onnx(domain, p.op_type());
  const int64_t opset = domain == OpDomain::Qonnx ? qonnx_opset(p.domain()) : opset_;
  std::vector<ValueId> inputs;
  for (const std::string& in : p.input()) inputs.push_back(in.empty() ? kNoValue : values_.at(in));
  const LoweredNode lowered = lower_node(NodeContext{graph_, p, kind, opset, inputs, where});

  std::vector<ValueId> outputs;
  for (const std::string& o : p.output()) {
    if (o.empty()) {
      outputs.push_back(kNoValue);
      continue;
    }
    const ValueId id = graph_.add_value(o, TensorType{});
    values_[o] = id;
    outputs.push_back(id);
  }
  const NodeId id =
      graph_.add_node(lowered.kind, p.name(), lowered.inputs, outputs, lowered.attrs).id();

  // Errors from shape inference and the kernels name the node by its graph
  // name; for unnamed ONNX nodes say which one it is.
  auto wrapped = [&](auto&& f) {
    try {
      return f();
    } catch (const Error& e) {
      if (p.name().empty()) throw e.within(label);
      throw;
    }
  };
  const std::vector<TensorType> types =
      wrapped([&] { return infer_node_types(graph_, graph_.node(id)); });
  KILN_ASSERT(types.size() == outputs.size(), "infer_node_types: wrong number of output types");
  for (std::size_t k = 0; k < outputs.size(); ++k)
    if (outputs[k].valid()) graph_.value(outputs[k]).type = types[k];

  // Fold: a Shape node only needs its input's (static) type; a node whose
  // inputs are all constant is computed now by the reference kernels.
  // Nodes without inputs (ConstantOfShape, Range) are constants too.
  bool all_constant = true;
  for (ValueId in : lowered.inputs) {
    if (!in.valid()) continue;
    all_constant = graph_.value(in).is_constant();
    if (!all_constant) break;
  }
  // Opset < 10 typed Dropout's mask like the data; kiln's mask is always bool.
  const auto check_dtype = [&](std::size_t k) {
    return !(kind == OpKind::Dropout && k == 1 && opset_ < 10);
  };
  // Huge constant results stay nodes: folding them would only move a large
  // computation and allocation into the importer.
  int64_t result_elements = 0;
  for (const TensorType& t : types) result_elements += t.numel();
  if (result_elements > kMaxFoldElements) all_constant = false;
  const bool shape_only = lowered.kind == OpKind::Shape || lowered.kind == OpKind::Size;
  if (!shape_only && !all_constant) {
    for (std::size_t k = 0; k < outputs.size(); ++k)
      if (outputs[k].valid()) check_declared(outputs[k], label, check_dtype(k));
    return;
  }
  const Node node = graph_.node(id);
  graph_.erase_node(id);
  std::vector<Tensor> results;
  if (node.kind == OpKind::Shape) {
    const auto& a = node.attr<ShapeAttrs>();
    const Shape& s = graph_.value(node.inputs[0]).type.shape;
    results.push_back(Tensor::from_vector<int64_t>(
        {std::max<int64_t>(0, a.end - a.start)},
        std::vector<int64_t>(s.begin() + a.start, s.begin() + std::max(a.start, a.end))));
  } else if (node.kind == OpKind::Size) {
    results.push_back(Tensor::scalar<int64_t>(graph_.value(node.inputs[0]).type.numel()));
  } else {
    std::vector<const Tensor*> ptrs;
    for (ValueId in : node.inputs) ptrs.push_back(in.valid() ? graph_.constant(in) : nullptr);
    results = wrapped([&] { return ref::evaluate_node(node, ptrs, types); });
  }
  KILN_ASSERT(results.size() == outputs.size(), "evaluate_node: wrong number of outputs");
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    if (!outputs[k].valid()) continue;
    KILN_ASSERT(results[k].type() == types[k],
                node.describe() + ": kernel produced " + results[k].type().to_string() +
                    " but shape inference said " + types[k].to_string());
    graph_.value(outputs[k]).constant = std::make_shared<const Tensor>(std::move(results[k]));
    check_declared(outputs[k], label, check_dtype(k));
  }
}

void Importer::add_outputs() {
  for (const auto& o : g_.output()) {
    const auto it = values_.find(o.name());
    if (it == values_.end())
      throw_error(ErrorKind::InvalidModel, "graph output '" + o.name() + "'",
                  "is not produced by any node, initializer or graph input",
                  "the model is incomplete; re-export it");
    graph_.outputs.push_back(it->second);
  }
}

}  // namespace

Graph import_model_proto(const ::onnx::ModelProto& model, const std::filesystem::path& base_dir,
                         const ImportOptions& options, const std::string& where) {
  try {
    if (!model.has_graph() || model.ir_version() == 0)
      throw_error(ErrorKind::InvalidModel, "",
                  std::string("not an ONNX model: ") +
                      (model.ir_version() == 0 ? "no IR version" : "no graph"),
                  "expected an .onnx model file");
    return Importer(model, base_dir, options).run();
  } catch (const Error& e) {
    throw e.within(where);
  }
}

Graph import_model(const std::filesystem::path& path, const ImportOptions& options) {
  // Protobuf cannot parse messages of 2 GiB or more; say so before reading it all.
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > static_cast<std::uintmax_t>(INT_MAX))
    throw_error(ErrorKind::Unsupported, path.string(),
                "model file is larger than 2 GiB, the protobuf limit",
                "save the weights as external data (onnx.save(..., save_as_external_data=True))");
  ::onnx::ModelProto model;
  {
    // Scoped so the file's bytes are freed before the weights are converted:
    // the peak is then two copies of the weights, not three.
    const std::string bytes = read_file_bytes(path);
    if (!parse_proto(bytes, &model))
      throw_error(ErrorKind::InvalidModel, path.string(),
                  "not an ONNX model (protobuf parse failed)",
                  "expected an .onnx model file; the file may be truncated or corrupt");
  }
  return import_model_proto(model, path.parent_path(), options, path.string());
}

Shape parse_shape(const std::string& text, const std::string& where) {
  Shape shape;
  const auto bad = [&](const std::string& why) {
    throw_error(ErrorKind::Usage, where, "bad shape '" + text + "': " + why,
                "write it like 1x3x224x224 or 1,3,224,224");
  };
  if (text.empty()) bad("empty");
  std::size_t pos = 0;
  while (true) {
    std::size_t end = pos;
    int64_t v = 0;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') {
      if (v > kMaxTensorElements) bad("dimension too large");
      v = v * 10 + (text[end] - '0');
      ++end;
    }
    if (end == pos) bad("expected a number at position " + std::to_string(pos + 1));
    shape.push_back(v);
    if (end == text.size()) break;
    if (text[end] != 'x' && text[end] != 'X' && text[end] != ',')
      bad(std::string("unexpected '") + text[end] + "'");
    pos = end + 1;
  }
  try {
    check_shape_sane(shape, where);
  } catch (const Error& e) {
    throw Error(ErrorKind::Usage, e.where(), e.what_happened(), e.hint());
  }
  return shape;
}

}  // namespace kiln::onnx_import
