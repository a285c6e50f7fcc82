// Emits the activation, softmax, merge, batch-norm and data-movement layers:
// config structs for the headers activation.h, softmax.h, merge.h,
// batchnorm.h, reshape.h, transpose.h and matmul.h, their calls, and their
// constant arrays (tables from tables.h, slopes and batch-norm constants).
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/hls/derived.h"
#include "kiln/hls/emit/config_writer.h"
#include "kiln/hls/emit/layer_code.h"
#include "kiln/hls/tables.h"
#include "kiln/support/error.h"

namespace kiln::hls {

namespace {

using namespace emit_util;

void activation_code(const Model& model, const Layer& layer, const EmitContext& ctx,
                     LayerCode& code) {
  const auto& p = layer.as<ActivationParams>();
  const TensorInfo& out = model.tensors.at(static_cast<std::size_t>(layer.output()));
  ConfigWriter cfg(layer.name);
  cfg.value("n", numel(out.shape));
  cfg.value("channels", width(out));
  std::vector<std::string> args{ctx.inputs.at(0)};
  std::string function;
  switch (p.act.kind) {
    case ActKind::None: function = "kiln::linear"; break;
    case ActKind::Relu: function = "kiln::relu"; break;
    case ActKind::LeakyRelu:
      function = "kiln::leaky_relu";
      cfg.param("alpha", p.act.alpha);
      break;
    case ActKind::Clip:
      function = "kiln::clip";
      cfg.param("lo", p.act.alpha);
      cfg.param("hi", p.act.beta);
      break;
    case ActKind::PRelu:
      function = "kiln::prelu";
      cfg.type("weight_t", layer.name + "_weight_t");
      code.arrays.push_back(
          table_array(layer, "_w", "_weight_t", layer.precision.weight, layer.weights));
      args.push_back(layer.name + "_w");
      break;
    case ActKind::Elu:
      function = "kiln::elu";
      cfg.param("alpha", p.act.alpha);
      break;
    case ActKind::Selu:
      function = "kiln::selu";
      cfg.param("alpha", p.act.alpha);
      cfg.param("gamma", p.act.beta);
      break;
    case ActKind::Sigmoid: function = "kiln::sigmoid"; break;
    case ActKind::Tanh: function = "kiln::tanh"; break;
    case ActKind::Exp: function = "kiln::exp"; break;
    case ActKind::HardSigmoid:
    case ActKind::HardSwish:
      function = p.act.kind == ActKind::HardSigmoid ? "kiln::hard_sigmoid" : "kiln::hard_swish";
      cfg.param("alpha", p.act.alpha);
      cfg.param("beta", p.act.beta);
      break;
  }
  if (auto kind = table_kind(p.act.kind)) {
    const TableGeometry g = table_geometry(*kind, layer.tables, 0, layer.onnx_name);
    cfg.value("table_size", g.size);
    cfg.signed_value("table_shift", g.shift);
    cfg.type("table_t", layer.name + "_table_t");
    code.arrays.push_back(table_array(layer, "_table", "_table_t", layer.precision.table,
                                      make_table(*kind, g, layer.precision.table)));
    args.push_back(layer.name + "_table");
  }
  args.push_back(ctx.output());
  code.includes.push_back("kiln/activation.h");
  code.config = cfg.text();
  code.call = call(function, cfg.name(), args);
}

// Softmax and LogSoftmax differ in their second table: the reciprocal
// (inv_) or the log (log_) of the exp sum.
void softmax_code(const Layer& layer, const EmitContext& ctx, LayerCode& code) {
  const auto& p = layer.as<SoftmaxParams>();
  const TableKind sum_kind = softmax_sum_table(p);
  const FixedType& st = softmax_sum_table_type(p, layer.precision);
  const std::string prefix = p.log ? "log_" : "inv_";
  const TableGeometry eg =
      table_geometry(TableKind::SoftmaxExp, layer.tables, p.length, layer.onnx_name);
  const TableGeometry sg = table_geometry(sum_kind, layer.tables, p.length, layer.onnx_name);
  ConfigWriter cfg(layer.name);
  cfg.value("rows", p.rows);
  cfg.value("length", p.length);
  cfg.value("table_size", eg.size);
  cfg.signed_value("table_shift", eg.shift);
  cfg.value((prefix + "table_size").c_str(), sg.size);
  cfg.signed_value((prefix + "table_shift").c_str(), sg.shift);
  cfg.type("table_t", layer.name + "_table_t");
  cfg.type((prefix + "table_t").c_str(), layer.name + "_" + prefix + "table_t");
  cfg.type("accum_t", layer.name + "_accum_t");
  code.arrays.push_back(table_array(layer, "_table", "_table_t", layer.precision.table,
                                    make_table(TableKind::SoftmaxExp, eg, layer.precision.table)));
  code.arrays.push_back(table_array(layer, "_" + prefix + "table", "_" + prefix + "table_t", st,
                                    make_table(sum_kind, sg, st)));
  code.includes.push_back("kiln/softmax.h");
  code.config = cfg.text();
  code.call = call(
      p.log ? "kiln::log_softmax" : "kiln::softmax", cfg.name(),
      {ctx.inputs.at(0), layer.name + "_table", layer.name + "_" + prefix + "table", ctx.output()});
}

void batchnorm_code(const Model& model, const Layer& layer, const EmitContext& ctx,
                    LayerCode& code) {
  const auto& p = layer.as<BatchNormParams>();
  const TensorInfo& out = model.tensors.at(static_cast<std::size_t>(layer.output()));
  ConfigWriter cfg(layer.name);
  cfg.value("n", numel(out.shape));
  cfg.value("channels", p.channels);
  cfg.type("weight_t", layer.name + "_weight_t");
  cfg.type("bias_t", layer.name + "_bias_t");
  code.arrays.push_back(
      table_array(layer, "_w", "_weight_t", layer.precision.weight, layer.weights));
  code.arrays.push_back(table_array(layer, "_b", "_bias_t", layer.precision.bias, layer.bias));
  code.includes.push_back("kiln/batchnorm.h");
  code.config = cfg.text();
  code.call = call("kiln::batchnorm", cfg.name(),
                   {ctx.inputs.at(0), layer.name + "_w", layer.name + "_b", ctx.output()});
}

// The library function of each Binary op.
constexpr std::pair<BinaryOp, const char*> kBinaryFunctions[] = {
    {BinaryOp::Add, "kiln::add"},
    {BinaryOp::Sub, "kiln::sub"},
    {BinaryOp::Mul, "kiln::mul"},
    {BinaryOp::ReverseSub, "kiln::reverse_sub"}};

void binary_code(const Model& model, const Layer& layer, const EmitContext& ctx, LayerCode& code) {
  const auto& p = layer.as<BinaryParams>();
  const TensorInfo& out = model.tensors.at(static_cast<std::size_t>(layer.output()));
  ConfigWriter cfg(layer.name);
  cfg.value("n", numel(out.shape));
  cfg.value("channels", width(out));
  cfg.enumerator("broadcast", "Broadcast", enum_name(p.broadcast));
  const auto* f = std::find_if(std::begin(kBinaryFunctions), std::end(kBinaryFunctions),
                               [&](const auto& row) { return row.first == p.op; });
  KILN_ASSERT(f != std::end(kBinaryFunctions), "binary op without a library function");
  code.includes.push_back("kiln/merge.h");
  code.config = cfg.text();
  code.call = call(f->second, cfg.name(), {ctx.inputs.at(0), ctx.inputs.at(1), ctx.output()});
}

void reshape_code(const Model& model, const Layer& layer, const EmitContext& ctx, LayerCode& code) {
  const TensorInfo& out = model.tensors.at(static_cast<std::size_t>(layer.output()));
  ConfigWriter cfg(layer.name);
  cfg.value("n", numel(out.shape));
  code.includes.push_back("kiln/reshape.h");
  code.config = cfg.text();
  code.call = call("kiln::reshape", cfg.name(), {ctx.inputs.at(0), ctx.output()});
}

void concat_code(const Model& model, const Layer& layer, const EmitContext& ctx, LayerCode& code) {
  const auto& p = layer.as<ConcatParams>();
  const std::size_t n_in = layer.inputs.size();
  if (n_in == 1) return reshape_code(model, layer, ctx, code);  // a copy
  KILN_ASSERT(n_in <= 4, "concat of more than 4 inputs (check_supported refuses it)");
  const TensorInfo& out = model.tensors.at(static_cast<std::size_t>(layer.output()));
  const int rank = static_cast<int>(out.shape.size());
  KILN_ASSERT(p.axis >= 0 && p.axis < rank, "concat axis out of range");
  int64_t outer = 1;
  for (int a = 0; a < p.axis; ++a) outer *= out.shape[static_cast<std::size_t>(a)];
  ConfigWriter cfg(layer.name);
  cfg.value("outer", outer);
  static const char* kInner[] = {"in0_inner", "in1_inner", "in2_inner", "in3_inner"};
  for (std::size_t i = 0; i < 4; ++i) {
    int64_t inner = 0;
    if (i < n_in) {
      inner = numel(model.tensors.at(static_cast<std::size_t>(layer.inputs[i])).shape) / outer;
    }
    cfg.value(kInner[i], inner);
  }
  cfg.flag("last_axis", p.axis == rank - 1);
  std::vector<std::string> args(ctx.inputs.begin(), ctx.inputs.end());
  args.push_back(ctx.output());
  code.includes.push_back("kiln/merge.h");
  code.config = cfg.text();
  code.call = call("kiln::concat", cfg.name(), args);
}

void transpose_code(const Model& model, const Layer& layer, const EmitContext& ctx,
                    LayerCode& code) {
  const auto& p = layer.as<TransposeParams>();
  const TensorInfo& in = model.tensors.at(static_cast<std::size_t>(layer.inputs.at(0)));
  const std::size_t rank = in.shape.size();
  KILN_ASSERT(rank <= 4, "transpose of rank > 4 (check_supported refuses it)");
  KILN_ASSERT(p.perm.size() == rank, "transpose perm rank");
  std::vector<int64_t> stride(rank, 1);
  for (std::size_t a = rank; a-- > 1;) stride[a - 1] = stride[a] * in.shape[a];
  // Output axes padded to 4 with leading axes of size 1 (stride 0).
  int64_t dims[4] = {1, 1, 1, 1}, strides[4] = {0, 0, 0, 0};
  for (std::size_t a = 0; a < rank; ++a) {
    const auto src = static_cast<std::size_t>(p.perm[a]);
    dims[4 - rank + a] = in.shape.at(src);
    strides[4 - rank + a] = stride.at(src);
  }
  ConfigWriter cfg(layer.name);
  cfg.value("n", numel(in.shape));
  static const char* kDim[] = {"d0", "d1", "d2", "d3"};
  static const char* kStride[] = {"s0", "s1", "s2", "s3"};
  for (int a = 0; a < 4; ++a) cfg.value(kDim[a], dims[a]);
  for (int a = 0; a < 4; ++a) cfg.value(kStride[a], strides[a]);
  code.includes.push_back("kiln/transpose.h");
  code.config = cfg.text();
  code.call = call("kiln::transpose", cfg.name(), {ctx.inputs.at(0), ctx.output()});
}

void matmul_code(const Layer& layer, const EmitContext& ctx, LayerCode& code) {
  const auto& p = layer.as<MatMulParams>();
  ConfigWriter cfg(layer.name);
  cfg.value("batch", p.batch);
  cfg.value("m", p.m);
  cfg.value("k", p.k);
  cfg.value("n", p.n);
  cfg.type("accum_t", layer.name + "_accum_t");
  code.includes.push_back("kiln/matmul.h");
  code.config = cfg.text();
  code.call = call("kiln::matmul", cfg.name(), {ctx.inputs.at(0), ctx.inputs.at(1), ctx.output()});
}

template <class F>
LayerCode with_code(F&& f) {
  LayerCode code;
  f(code);
  return code;
}

}  // namespace

LayerCode emit_activation(const Model& model, const Layer& layer, const EmitContext& ctx) {
  return with_code([&](LayerCode& c) { activation_code(model, layer, ctx, c); });
}
LayerCode emit_softmax(const Model&, const Layer& layer, const EmitContext& ctx) {
  return with_code([&](LayerCode& c) { softmax_code(layer, ctx, c); });
}
LayerCode emit_batchnorm(const Model& model, const Layer& layer, const EmitContext& ctx) {
  return with_code([&](LayerCode& c) { batchnorm_code(model, layer, ctx, c); });
}
LayerCode emit_binary(const Model& model, const Layer& layer, const EmitContext& ctx) {
  return with_code([&](LayerCode& c) { binary_code(model, layer, ctx, c); });
}
LayerCode emit_concat(const Model& model, const Layer& layer, const EmitContext& ctx) {
  return with_code([&](LayerCode& c) { concat_code(model, layer, ctx, c); });
}
LayerCode emit_quantize(const Model& model, const Layer& layer, const EmitContext& ctx) {
  const auto& p = layer.as<QuantizeParams>();
  const TensorInfo& out = model.tensors.at(static_cast<std::size_t>(layer.output()));
  ConfigWriter cfg(layer.name);
  cfg.value("n", numel(out.shape));
  cfg.value("channels", width(out));
  const bool clamp = p.min_raw != p.format.min_raw() || p.max_raw != p.format.max_raw();
  cfg.flag("clamp", clamp);
  cfg.flag("bipolar", p.bipolar);
  cfg.exact("lo", p.min_raw, p.format);
  cfg.exact("hi", p.max_raw, p.format);
  LayerCode code;
  code.includes.push_back("kiln/quantize.h");
  code.config = cfg.text();
  code.call = call("kiln::quantize", cfg.name(), {ctx.inputs.at(0), ctx.output()});
  return code;
}

LayerCode emit_transpose(const Model& model, const Layer& layer, const EmitContext& ctx) {
  return with_code([&](LayerCode& c) { transpose_code(model, layer, ctx, c); });
}
LayerCode emit_matmul(const Model&, const Layer& layer, const EmitContext& ctx) {
  return with_code([&](LayerCode& c) { matmul_code(layer, ctx, c); });
}
LayerCode emit_reshape(const Model& model, const Layer& layer, const EmitContext& ctx) {
  return with_code([&](LayerCode& c) { reshape_code(model, layer, ctx, c); });
}

// Copies of one tensor: kiln::clone in io_stream (two or three copies per
// call), an unrolled copy loop in io_parallel (an output port also read
// inside the design).
LayerCode emit_clone(const Model& model, const Layer& layer, const EmitContext& ctx) {
  const TensorInfo& in = model.tensors.at(static_cast<std::size_t>(layer.inputs.at(0)));
  LayerCode code;
  if (ctx.io_type == IOType::Stream) {
    KILN_ASSERT(ctx.outputs.size() == 2 || ctx.outputs.size() == 3,
                "a stream clone makes two or three copies");
    std::string s = "kiln::clone<" + std::to_string(stream_elements(in)) + ">(" + ctx.inputs.at(0);
    for (const std::string& o : ctx.outputs) s += ", " + o;
    code.call = s + ");\n";
    return code;
  }
  for (const std::string& o : ctx.outputs)
    code.call += "for (int i = 0; i < " + std::to_string(in.numel()) +
                 "; ++i) {\n  KILN_PRAGMA(HLS UNROLL)\n  " + o + "[i] = " + ctx.inputs.at(0) +
                 "[i];\n}\n";
  return code;
}

}  // namespace kiln::hls
