// Emitter of the dense / convolution / recurrent / pooling / zero-padding
// family: the config structs the layer library
// (include/kiln/{dense,conv,recurrent,pool,zero_pad}.h) is templated on, the
// call, and the constant arrays (docs/hls-layers.md).
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/hls/derived.h"
#include "kiln/hls/emit/layer_code.h"
#include "kiln/hls/tables.h"
#include "kiln/support/error.h"

namespace kiln::hls {
namespace {

// A double literal that reads back as exactly `v` (17 significant digits
// round-trip; every param_t value is an exact double).
std::string double_literal(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

// Value of `v` as a param_t constant, as kiln quantizes constants.
double param_value(double v) {
  const FixedType t = param_type();
  return numeric::to_double(numeric::quantize(v, t), t);
}

class ConfigWriter {
 public:
  explicit ConfigWriter(const std::string& name) { os_ << "struct " << name << " {\n"; }
  void field(const char* name, int64_t v) {
    os_ << "  static const int " << name << " = " << v << ";\n";
  }
  void raw(const std::string& line) { os_ << "  " << line << "\n"; }
  void type(const char* alias, const std::string& type) {
    os_ << "  typedef " << type << " " << alias << ";\n";
  }
  std::string finish() {
    os_ << "};\n";
    return os_.str();
  }

 private:
  std::ostringstream os_;
};

const char* strategy_name(Strategy s) {
  return s == Strategy::Resource ? "kiln::Strategy::Resource" : "kiln::Strategy::Latency";
}

// The dense-kernel fields shared by Dense, Conv and the products of a
// Recurrent layer, whose kernels have `block` multipliers.
void write_product_fields(ConfigWriter& w, const Layer& layer, int64_t n_in, int64_t n_out,
                          const Activation& act, int64_t block) {
  const int64_t rf = layer.reuse_factor < 1 ? 1 : layer.reuse_factor;
  w.field("n_in", n_in);
  w.field("n_out", n_out);
  w.field("reuse_factor", rf);
  w.field("block_factor", block);
  w.field("multiplier_limit", block);
  w.raw(std::string("static const kiln::Strategy strategy = ") + strategy_name(layer.strategy) +
        ";");
  const char* act_name = nullptr;
  double alpha = 0, lo = 0, hi = 0;
  switch (act.kind) {
    case ActKind::None: act_name = "None"; break;
    case ActKind::Relu: act_name = "Relu"; break;
    case ActKind::LeakyRelu:
      act_name = "LeakyRelu";
      alpha = param_value(act.alpha);
      break;
    case ActKind::Clip:
      act_name = "Clip";
      lo = param_value(act.alpha);
      hi = param_value(act.beta);
      break;
    default:
      KILN_ASSERT(false, "layer '" + layer.name + "': activation " +
                             std::string(enum_name(act.kind)) +
                             " is not fusable (check_supported refuses it)");
  }
  w.raw(std::string("static const kiln::Act activation = kiln::Act::") + act_name + ";");
  w.raw("static double act_alpha() { return " + double_literal(alpha) + "; }");
  w.raw("static double act_lo() { return " + double_literal(lo) + "; }");
  w.raw("static double act_hi() { return " + double_literal(hi) + "; }");
  w.type("weight_t", layer.name + "_weight_t");
  w.type("bias_t", layer.name + "_bias_t");
  w.type("accum_t", layer.name + "_accum_t");
}

void add_weights(LayerCode& code, const Layer& layer, int64_t n_weights, int64_t n_bias) {
  if (static_cast<int64_t>(layer.weights.size()) != n_weights)
    throw_error(ErrorKind::Internal, "layer '" + layer.onnx_name + "'",
                "has " + std::to_string(layer.weights.size()) + " weights, expected " +
                    std::to_string(n_weights));
  std::vector<int64_t> bias = layer.bias;
  if (bias.empty()) bias.assign(n_bias, 0);
  if (static_cast<int64_t>(bias.size()) != n_bias)
    throw_error(
        ErrorKind::Internal, "layer '" + layer.onnx_name + "'",
        "has " + std::to_string(bias.size()) + " biases, expected " + std::to_string(n_bias));
  code.arrays.push_back(
      {layer.name + "_w", layer.name + "_weight_t", layer.precision.weight, layer.weights});
  code.arrays.push_back({layer.name + "_b", layer.name + "_bias_t", layer.precision.bias, bias});
}

std::string call(const std::string& fn, const std::string& config, const EmitContext& ctx,
                 bool with_weights, const std::string& layer_name) {
  std::string s = fn + "<" + config + ">(" + ctx.inputs.at(0) + ", " + ctx.output();
  if (with_weights) s += ", " + layer_name + "_w, " + layer_name + "_b";
  return s + ");\n";
}

void write_geometry(ConfigWriter& w, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                    int64_t pt, int64_t pb, int64_t pl, int64_t pr) {
  w.field("in_height", in_h);
  w.field("in_width", in_w);
  w.field("out_height", out_h);
  w.field("out_width", out_w);
  w.field("pad_top", pt);
  w.field("pad_bottom", pb);
  w.field("pad_left", pl);
  w.field("pad_right", pr);
}

}  // namespace

LayerCode emit_dense(const Model& model, const Layer& layer, const EmitContext& ctx) {
  const auto& p = layer.as<DenseParams>();
  const std::string cfg = "config_" + layer.name;
  const int64_t in_numel = model.tensors.at(layer.inputs.at(0)).numel();
  if (p.n_in < 1 || p.n_out < 1 || in_numel % p.n_in != 0)
    throw_error(ErrorKind::Internal, "layer '" + layer.onnx_name + "'",
                "dense input size does not match n_in");
  LayerCode code;
  code.includes = {"kiln/dense.h"};
  ConfigWriter w(cfg);
  w.field("n_rows", in_numel / p.n_in);
  write_product_fields(w, layer, p.n_in, p.n_out, p.act, block_factor(layer));
  w.type("result_t", model.tensors.at(layer.output()).name + "_t");
  code.config = w.finish();
  add_weights(code, layer, p.n_in * p.n_out, p.n_out);
  code.call = call("kiln::dense", cfg, ctx, true, layer.name);
  return code;
}

// Recurrent: a config per product kernel (its result_t is the accumulator)
// and the layer's; W, R, Wb, Rb and the sigmoid and tanh tables as arrays.
LayerCode emit_recurrent(const Model& model, const Layer& layer, const EmitContext& ctx) {
  const auto& p = layer.as<RecurrentParams>();
  const int64_t gates = p.gates() * p.hidden;
  const std::vector<ProductShape> kernels = kernel_products(layer);
  LayerCode code;
  code.includes = {"kiln/recurrent.h"};
  const char* kernel_names[] = {"input", "state"};
  std::string configs;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    ConfigWriter kw("config_" + layer.name + "_" + kernel_names[k]);
    write_product_fields(kw, layer, kernels[k].n_in, kernels[k].n_out, Activation{},
                         multipliers_of(kernels[k], layer.reuse_factor));
    kw.field("n_rows", 1);
    kw.type("result_t", layer.name + "_accum_t");
    configs += kw.finish();
  }
  const std::string cfg = "config_" + layer.name;
  ConfigWriter w(cfg);
  w.field("n_steps", p.steps);
  w.field("n_in", p.n_in);
  w.field("n_hidden", p.hidden);
  w.field("n_gates", gates);
  w.raw(std::string("static const kiln::Cell cell = kiln::Cell::") +
        (p.cell == CellKind::Gru ? "Gru;" : "Lstm;"));
  w.raw(std::string("static const bool sequences = ") + (p.sequences ? "true;" : "false;"));
  const TableGeometry g = table_geometry(TableKind::Sigmoid, layer.tables, 0, layer.onnx_name);
  w.field("table_size", g.size);
  w.field("table_shift", g.shift);
  w.type("weight_t", layer.name + "_weight_t");
  w.type("bias_t", layer.name + "_bias_t");
  w.type("accum_t", layer.name + "_accum_t");
  w.type("table_t", layer.name + "_table_t");
  w.type("result_t", model.tensors.at(layer.output()).name + "_t");
  w.type("input_config", "config_" + layer.name + "_input");
  w.type("state_config", "config_" + layer.name + "_state");
  code.config = configs + w.finish();

  const int64_t n_w = p.n_in * gates, n_r = p.hidden * gates;
  if (static_cast<int64_t>(layer.weights.size()) != n_w + n_r ||
      static_cast<int64_t>(layer.bias.size()) != 2 * gates)
    throw_error(ErrorKind::Internal, "layer '" + layer.onnx_name + "'",
                "has " + std::to_string(layer.weights.size()) + " weights and " +
                    std::to_string(layer.bias.size()) + " biases, expected " +
                    std::to_string(n_w + n_r) + " and " + std::to_string(2 * gates));
  auto part = [](const std::vector<int64_t>& v, int64_t from, int64_t n) {
    return std::vector<int64_t>(v.begin() + from, v.begin() + from + n);
  };
  const std::string& wt = layer.name + "_weight_t";
  const std::string& bt = layer.name + "_bias_t";
  const std::string tt = layer.name + "_table_t";
  const Precision& pr = layer.precision;
  code.arrays.push_back({layer.name + "_w", wt, pr.weight, part(layer.weights, 0, n_w)});
  code.arrays.push_back({layer.name + "_r", wt, pr.weight, part(layer.weights, n_w, n_r)});
  code.arrays.push_back({layer.name + "_wb", bt, pr.bias, part(layer.bias, 0, gates)});
  code.arrays.push_back({layer.name + "_rb", bt, pr.bias, part(layer.bias, gates, gates)});
  code.arrays.push_back(
      {layer.name + "_sigmoid", tt, pr.table, make_table(TableKind::Sigmoid, g, pr.table)});
  code.arrays.push_back(
      {layer.name + "_tanh", tt, pr.table, make_table(TableKind::Tanh, g, pr.table)});
  code.call = "kiln::recurrent<" + cfg + ">(" + ctx.inputs.at(0) + ", " + ctx.output();
  for (const char* a : {"_w", "_r", "_wb", "_rb", "_sigmoid", "_tanh"})
    code.call += ", " + layer.name + a;
  code.call += ");\n";
  return code;
}

LayerCode emit_conv(const Model& model, const Layer& layer, const EmitContext& ctx) {
  const auto& p = layer.as<ConvParams>();
  const std::string cfg = "config_" + layer.name;
  const int64_t n_in = p.kernel_h * p.kernel_w * (p.c_in / p.groups);
  LayerCode code;
  code.includes = {"kiln/conv.h"};
  ConfigWriter w(cfg);
  write_geometry(w, p.in_h, p.in_w, p.out_h, p.out_w, p.pad_top, p.pad_bottom, p.pad_left,
                 p.pad_right);
  w.field("n_chan", p.c_in);
  w.field("n_filt", p.c_out);
  w.field("filt_height", p.kernel_h);
  w.field("filt_width", p.kernel_w);
  w.field("stride_height", p.stride_h);
  w.field("stride_width", p.stride_w);
  w.field("groups", p.groups);
  write_product_fields(w, layer, n_in, p.c_out, p.act, block_factor(layer));
  w.type("result_t", model.tensors.at(layer.output()).name + "_t");
  std::string fn = "kiln::conv_2d";
  const bool encoded = ctx.io_type == IOType::Stream && layer.conv_impl == ConvImpl::Encoded;
  w.raw(std::string("static const kiln::ConvImpl implementation = kiln::ConvImpl::") +
        (encoded ? "Encoded;" : "LineBuffer;"));
  if (ctx.io_type == IOType::Stream) {
    if (encoded) {
      const EncodedTable t = encoded_table(p);
      w.field("stream_depth", t.stream_depth);
      w.field("n_row_classes", t.n_row_classes);
      w.field("n_col_classes", t.n_col_classes);
      std::ostringstream os;
      os << "static unsigned long long instruction(int i) {\n"
         << "    static const unsigned long long table[" << t.table.size() << "] = {";
      for (std::size_t i = 0; i < t.table.size(); ++i)
        os << (i ? ", " : "") << (i % 8 == 0 ? "\n        " : "") << t.table[i] << "ULL";
      os << "};\n    return table[i];\n  }";
      w.raw(os.str());
      fn = "kiln::conv_2d_encoded";
    } else {
      fn = "kiln::conv_2d_line_buffer";
    }
  }
  code.config = w.finish();
  add_weights(code, layer, n_in * p.c_out, p.c_out);
  code.call = call(fn, cfg, ctx, true, layer.name);
  return code;
}

LayerCode emit_pool(const Model& model, const Layer& layer, const EmitContext& ctx) {
  const auto& p = layer.as<PoolParams>();
  const std::string cfg = "config_" + layer.name;
  LayerCode code;
  code.includes = {"kiln/pool.h"};
  ConfigWriter w(cfg);
  write_geometry(w, p.in_h, p.in_w, p.out_h, p.out_w, p.pad_top, p.pad_bottom, p.pad_left,
                 p.pad_right);
  w.field("n_chan", p.channels);
  w.field("pool_height", p.kernel_h);
  w.field("pool_width", p.kernel_w);
  w.field("stride_height", p.stride_h);
  w.field("stride_width", p.stride_w);
  w.raw(std::string("static const kiln::PoolOp pool_op = kiln::PoolOp::") +
        (p.kind == PoolKind::Max ? "Max;" : "Average;"));
  w.raw(std::string("static const bool count_include_pad = ") +
        (p.count_include_pad ? "true;" : "false;"));
  w.type("accum_t", layer.name + "_accum_t");
  w.type("result_t", model.tensors.at(layer.output()).name + "_t");
  code.config = w.finish();
  const bool global = p.kernel_h == p.in_h && p.kernel_w == p.in_w && p.pad_top == 0 &&
                      p.pad_bottom == 0 && p.pad_left == 0 && p.pad_right == 0;
  code.call = call(global ? "kiln::global_pool_2d" : "kiln::pool_2d", cfg, ctx, false, "");
  return code;
}

LayerCode emit_zero_pad(const Model& model, const Layer& layer, const EmitContext& ctx) {
  const auto& p = layer.as<ZeroPadParams>();
  const std::string cfg = "config_" + layer.name;
  LayerCode code;
  code.includes = {"kiln/zero_pad.h"};
  ConfigWriter w(cfg);
  write_geometry(w, p.in_h, p.in_w, p.out_h(), p.out_w(), p.pad_top, p.pad_bottom, p.pad_left,
                 p.pad_right);
  w.field("stride_height", p.stride_h);
  w.field("stride_width", p.stride_w);
  w.field("n_chan", p.channels);
  w.type("result_t", model.tensors.at(layer.output()).name + "_t");
  code.config = w.finish();
  code.call = call("kiln::zero_pad_2d", cfg, ctx, false, "");
  return code;
}

}  // namespace kiln::hls
