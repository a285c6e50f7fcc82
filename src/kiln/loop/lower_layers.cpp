// The driver of the lowering: buffers for the model's tensors, and the table
// from layer kind to its lowering (lower_dense_conv.cpp, lower_elementwise.cpp,
// lower_data_movement.cpp, lower_resample.cpp, lower_recurrent.cpp).
#include "kiln/loop/lower_layers.h"

#include <algorithm>
#include <string>

#include "kiln/hls/layer_kinds.h"
#include "kiln/hls/tables.h"
#include "kiln/loop/directives.h"
#include "kiln/loop/lowering.h"
#include "kiln/loop/sink_nests.h"
#include "kiln/support/enum_table.h"
#include "kiln/support/error.h"

namespace kiln::loop {

int LowerContext::constant(const std::string& what, const FixedType& type,
                           std::vector<int64_t> shape, std::vector<int64_t> data) {
  const int b = add_buffer(program, names.unique(layer.name + "_" + what), BufferRole::Const,
                           scalar_of(type), std::move(shape), std::move(data));
  consts.push_back(b);
  return b;
}

int LowerContext::view(int b, const std::vector<int64_t>& shape) {
  if (buffer(b).shape == shape) return b;
  const Buffer& base = buffer(b);
  Buffer v;
  v.name = names.unique(base.name + "_view");
  v.role = base.role == BufferRole::Const ? BufferRole::Const : BufferRole::Tensor;
  v.type = base.type;
  v.shape = shape;
  v.alias_of = b;
  if (base.role == BufferRole::Const) v.data = base.data;
  KILN_ASSERT(v.numel() == base.numel(), "view of @" + base.name + " changes the element count");
  program.buffers.push_back(std::move(v));
  return static_cast<int>(program.buffers.size()) - 1;
}

void LowerContext::finish(KernelBuilder& k) {
  std::vector<int> reads = in;
  reads.insert(reads.end(), consts.begin(), consts.end());
  k.finish(std::move(reads), out);
}

int fused_activation(KernelBuilder& k, int a, const hls::Activation& act, const FixedType& result,
                     const std::string& layer) {
  const FixedType pt = hls::param_type();
  auto param = [&](double v) { return k.constant(numeric::quantize(v, pt), scalar_of(pt)); };
  switch (act.kind) {
    case hls::ActKind::None: return k.convert(a, result);
    case hls::ActKind::Relu: return k.convert(k.max(a, k.constant(0, {1, 0, false})), result);
    case hls::ActKind::LeakyRelu: {
      const int negative = k.lt(a, k.constant(0, {1, 0, false}));
      return k.quantize(k.select(negative, k.mul(a, param(act.alpha)), a), result);
    }
    case hls::ActKind::Clip: {
      const int lo = k.max(a, param(act.alpha));
      return k.convert(k.min(lo, param(act.beta)), result);
    }
    default:
      throw_error(ErrorKind::Internal, "layer " + layer,
                  "activation " + std::string(enum_name(act.kind)) + " is not fusable");
  }
}

namespace {

void lower_nothing(LowerContext&) {}

using LowerFn = void (*)(LowerContext&);
constexpr auto kLower = make_enum_table<hls::LayerKind, hls::kNumLayerKinds, LowerFn>({
    {{hls::LayerKind::Input}, lower_nothing},
    {{hls::LayerKind::Dense}, lower_dense},
    {{hls::LayerKind::Conv}, lower_conv},
    {{hls::LayerKind::Pool}, lower_pool},
    {{hls::LayerKind::ZeroPad}, lower_zero_pad},
    {{hls::LayerKind::BatchNorm}, lower_batchnorm},
    {{hls::LayerKind::Activation}, lower_activation},
    {{hls::LayerKind::Softmax}, lower_softmax},
    {{hls::LayerKind::Binary}, lower_binary},
    {{hls::LayerKind::Concat}, lower_concat},
    {{hls::LayerKind::Transpose}, lower_transpose},
    {{hls::LayerKind::Slice}, lower_slice},
    {{hls::LayerKind::Resize}, lower_resize},
    {{hls::LayerKind::Recurrent}, lower_recurrent},
    {{hls::LayerKind::Quantize}, lower_quantize},
    {{hls::LayerKind::MatMul}, lower_matmul},
    {{hls::LayerKind::Reshape, hls::LayerKind::Clone}, lower_copy},
});

BufferRole role_of(const hls::Model& m, int tensor) {
  if (std::count(m.outputs.begin(), m.outputs.end(), tensor)) return BufferRole::Output;
  if (std::count(m.inputs.begin(), m.inputs.end(), tensor)) return BufferRole::Input;
  return BufferRole::Tensor;
}

// Reshape and Clone layers that keep the type move no data: their outputs
// are views of the input.
bool is_view(const hls::Model& m, const hls::Layer& l) {
  if (l.kind() != hls::LayerKind::Reshape && l.kind() != hls::LayerKind::Clone) return false;
  const auto& in = m.tensors.at(static_cast<std::size_t>(l.inputs.at(0)));
  for (int t : l.outputs)
    if (!(m.tensors.at(static_cast<std::size_t>(t)).type == in.type)) return false;
  return true;
}

}  // namespace

Program lower_model(const hls::Model& model) {
  Program p;
  p.name = model.name;
  NameTable names;
  for (const hls::TensorInfo& t : model.tensors) names.claim(t.name);
  std::vector<int> buffer_of(model.tensors.size(), -1);

  for (const hls::Layer& layer : model.layers) {
    LowerContext c{model, layer, p, names, {}, {}, {}};
    for (int t : layer.inputs) {
      KILN_ASSERT(buffer_of.at(static_cast<std::size_t>(t)) >= 0,
                  "layer " + layer.name + " reads a tensor before it is written");
      c.in.push_back(buffer_of[static_cast<std::size_t>(t)]);
    }
    const bool view = is_view(model, layer);
    for (int t : layer.outputs) {
      const hls::TensorInfo& info = model.tensors.at(static_cast<std::size_t>(t));
      const int b = add_buffer(p, info.name, role_of(model, t), scalar_of(info.type), info.shape);
      if (view) p.buffers[static_cast<std::size_t>(b)].alias_of = c.in.at(0);
      buffer_of[static_cast<std::size_t>(t)] = b;
      c.out.push_back(b);
    }
    if (!view) kLower[layer.kind()](c);
  }
  for (int t : model.inputs) p.inputs.push_back(buffer_of.at(static_cast<std::size_t>(t)));
  for (int t : model.outputs) p.outputs.push_back(buffer_of.at(static_cast<std::size_t>(t)));
  verify(p);
  return p;
}

Program configured_program(const hls::Model& model,
                           const std::map<std::string, bool>& line_buffered,
                           const hls::ConfiguredDirectives& directives) {
  Program program = lower_model(model);
  // Line-buffered first, so that the directives name that form's loops and
  // buffers; a convolution without the form (a stride over 1) stays direct.
  for (std::size_t k = 0; k < program.kernels.size(); ++k) {
    const auto it = line_buffered.find(program.kernels[k].name);
    if (it != line_buffered.end() && it->second &&
        can_line_buffer(program, model, static_cast<int>(k)))
      line_buffer(program, model, static_cast<int>(k));
  }
  for (std::size_t k = 0; k < program.kernels.size(); ++k) sink_nests(program, static_cast<int>(k));
  apply_directives(program, directives);  // names and values
  return program;
}

}  // namespace kiln::loop
