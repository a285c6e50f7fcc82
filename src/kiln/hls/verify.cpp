#include "kiln/hls/verify.h"

#include <algorithm>
#include <set>

#include "kiln/hls/derived.h"
#include "kiln/hls/layer_kinds.h"
#include "kiln/support/error.h"
#include "kiln/support/names.h"

namespace kiln::hls {

namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

class Checker {
 public:
  Checker(const Model& m, std::string_view after) : m_(m), after_(after) {}

  void run() {
    const std::size_t nt = m_.tensors.size();
    std::vector<int> producer(nt, -1);
    std::set<std::string> layer_names, tensor_names;
    int next_tensor = 0;  // tensors are numbered in the order layers write them
    for (const TensorInfo& t : m_.tensors) {
      check(is_identifier(t.name), "tensor name '" + t.name + "' is not an identifier");
      check(tensor_names.insert(t.name).second, "tensor name '" + t.name + "' is used twice");
    }
    for (std::size_t li = 0; li < m_.layers.size(); ++li) {
      const Layer& l = m_.layers[li];
      where_ = std::string(layer_kind_name(l.kind())) + " layer '" + l.name + "'";
      check(is_identifier(l.name), "its name is not an identifier");
      check(layer_names.insert(l.name).second, "its name is used twice");
      for (int t : l.inputs) {
        check(t >= 0 && static_cast<std::size_t>(t) < nt, "reads a missing tensor");
        check(producer[static_cast<std::size_t>(t)] >= 0,
              "reads tensor '" + m_.tensors[static_cast<std::size_t>(t)].name +
                  "' before any layer writes it");
      }
      check(!l.outputs.empty(), "writes no tensor");
      check(l.kind() == LayerKind::Clone || l.outputs.size() == 1,
            "writes " + std::to_string(l.outputs.size()) + " tensors (only Clone writes several)");
      for (int t : l.outputs) {
        check(t >= 0 && static_cast<std::size_t>(t) < nt, "writes a missing tensor");
        check(t == next_tensor++, "writes tensor '" + m_.tensors[static_cast<std::size_t>(t)].name +
                                      "' out of order (tensors are numbered as layers write them)");
        check(producer[static_cast<std::size_t>(t)] < 0,
              "writes tensor '" + m_.tensors[static_cast<std::size_t>(t)].name +
                  "', which another layer writes too");
        producer[static_cast<std::size_t>(t)] = static_cast<int>(li);
        check(m_.tensors[static_cast<std::size_t>(t)].type == l.precision.result,
              "writes tensor '" + m_.tensors[static_cast<std::size_t>(t)].name + "' of type " +
                  m_.tensors[static_cast<std::size_t>(t)].type.to_string() +
                  ", not its result precision " + l.precision.result.to_string());
      }
      const std::vector<int64_t> valid = valid_reuse_factors(l);
      check(std::find(valid.begin(), valid.end(), l.reuse_factor) != valid.end(),
            "has reuse factor " + std::to_string(l.reuse_factor) + ", which is not valid for it");
      check(has_implementation(l.kind(), l.conv_impl), "has an implementation its kind lacks");
      check_params(l);
    }
    where_ = "model '" + m_.name + "'";
    for (std::size_t t = 0; t < nt; ++t)
      check(producer[t] >= 0, "no layer writes tensor '" + m_.tensors[t].name + "'");
    check_ports(m_.inputs, m_.input_ports, "input");
    check_ports(m_.outputs, m_.output_ports, "output");
    std::size_t inputs = 0;
    for (const Layer& l : m_.layers)
      if (l.kind() == LayerKind::Input) {
        ++inputs;
        check(l.inputs.empty() &&
                  std::find(m_.inputs.begin(), m_.inputs.end(), l.output()) != m_.inputs.end(),
              "Input layer '" + l.name + "' does not write a model input");
      }
    check(inputs == m_.inputs.size(), "the model inputs and its Input layers differ");
  }

 private:
  void check(bool ok, const std::string& what) const {
    if (!ok)
      throw_error(ErrorKind::Internal, where_, what + " (after " + std::string(after_) + ")");
  }

  static bool is_identifier(const std::string& s) {
    return !s.empty() && sanitize_identifier(s) == s;
  }

  const TensorInfo& tensor(int t) const { return m_.tensors.at(static_cast<std::size_t>(t)); }
  const std::vector<int64_t>& in_shape(const Layer& l, std::size_t i = 0) const {
    return tensor(l.inputs.at(i)).shape;
  }
  const std::vector<int64_t>& out_shape(const Layer& l) const { return tensor(l.output()).shape; }

  void inputs(const Layer& l, std::size_t n) const {
    check(l.inputs.size() == n,
          "reads " + std::to_string(l.inputs.size()) + " tensors, not " + std::to_string(n));
  }

  // Float constants before the quantize pass, raw ones after.
  void constants(const Layer& l, int64_t weights, int64_t bias) const {
    const bool quantized = l.float_weights.empty() && l.float_bias.empty();
    const auto w = static_cast<int64_t>(quantized ? l.weights.size() : l.float_weights.size());
    const auto b = static_cast<int64_t>(quantized ? l.bias.size() : l.float_bias.size());
    check(w == weights, "has " + std::to_string(w) + " weights, not " + std::to_string(weights));
    check(b == bias, "has " + std::to_string(b) + " biases, not " + std::to_string(bias));
  }

  std::vector<int64_t> map_shape(int dims, int64_t h, int64_t w, int64_t c) const {
    return dims == 2 ? std::vector<int64_t>{h, w, c} : std::vector<int64_t>{w, c};
  }

  void check_params(const Layer& l) const {
    std::visit(
        Overloaded{
            [&](const InputParams&) {
              inputs(l, 0);
              constants(l, 0, 0);
            },
            [&](const DenseParams& p) {
              inputs(l, 1);
              const int64_t in = tensor(l.inputs[0]).numel();
              check(p.n_in > 0 && in % p.n_in == 0, "n_in does not divide its input");
              check(tensor(l.output()).numel() == in / std::max<int64_t>(p.n_in, 1) * p.n_out,
                    "its output size is not rows * n_out");
              constants(l, p.n_in * p.n_out, p.n_out);
            },
            [&](const ConvParams& p) {
              inputs(l, 1);
              check(p.groups >= 1 && p.c_in % p.groups == 0 && p.c_out % p.groups == 0,
                    "its groups do not divide the channels");
              check(in_shape(l) == map_shape(p.dims, p.in_h, p.in_w, p.c_in),
                    "its input shape is not its params'");
              check(out_shape(l) == map_shape(p.dims, p.out_h, p.out_w, p.c_out),
                    "its output shape is not its params'");
              constants(
                  l, p.kernel_h * p.kernel_w * (p.c_in / std::max<int64_t>(p.groups, 1)) * p.c_out,
                  p.c_out);
            },
            [&](const PoolParams& p) {
              inputs(l, 1);
              check(in_shape(l) == map_shape(p.dims, p.in_h, p.in_w, p.channels),
                    "its input shape is not its params'");
              check(out_shape(l) == map_shape(p.dims, p.out_h, p.out_w, p.channels),
                    "its output shape is not its params'");
              constants(l, 0, 0);
            },
            [&](const ZeroPadParams& p) {
              inputs(l, 1);
              check(in_shape(l) == map_shape(p.dims, p.in_h, p.in_w, p.channels),
                    "its input shape is not its params'");
              check(p.stride_h >= 1 && p.stride_w >= 1, "has a stride below 1");
              check(out_shape(l) == map_shape(p.dims, p.out_h(), p.out_w(), p.channels),
                    "its output shape is not the padded input");
              constants(l, 0, 0);
            },
            [&](const BatchNormParams& p) {
              inputs(l, 1);
              check(tensor(l.inputs[0]).numel() == p.n, "n is not its input size");
              constants(l, p.channels, p.channels);
            },
            [&](const ActivationParams& p) {
              inputs(l, 1);
              check(tensor(l.inputs[0]).numel() == p.n && tensor(l.output()).numel() == p.n,
                    "n is not its input and output size");
              constants(l, p.act.kind == ActKind::PRelu ? p.channels : 0, 0);
            },
            [&](const SoftmaxParams& p) {
              inputs(l, 1);
              check(p.rows * p.length == tensor(l.inputs[0]).numel(),
                    "rows * length is not its input size");
              constants(l, 0, 0);
            },
            [&](const BinaryParams& p) {
              inputs(l, 2);
              check(in_shape(l) == out_shape(l) && tensor(l.output()).numel() == p.n,
                    "n is not the size of its first operand and output");
              check(p.channels == (out_shape(l).empty() ? 1 : out_shape(l).back()),
                    "channels is not its output's last axis");
              check(tensor(l.inputs[1]).shape == binary_operand_shape(out_shape(l), p.broadcast),
                    "its second operand is not shaped as broadcast=" +
                        std::string(enum_name(p.broadcast)) + " says");
              constants(l, 0, 0);
            },
            [&](const ConcatParams& p) {
              check(!l.inputs.empty(), "concatenates nothing");
              int64_t total = 0;
              for (int t : l.inputs) total += tensor(t).numel();
              check(total == tensor(l.output()).numel(), "its output size is not the sum");
              check(p.axis >= 0 && p.axis < static_cast<int>(out_shape(l).size()),
                    "its axis is out of range");
              constants(l, 0, 0);
            },
            [&](const TransposeParams& p) {
              inputs(l, 1);
              const auto& in = in_shape(l);
              std::vector<int64_t> sorted = p.perm;
              std::sort(sorted.begin(), sorted.end());
              bool perm_ok = sorted.size() == in.size();
              for (std::size_t i = 0; perm_ok && i < sorted.size(); ++i)
                perm_ok = sorted[i] == static_cast<int64_t>(i);
              check(perm_ok, "perm is not a permutation of its input's axes");
              std::vector<int64_t> out;
              for (int64_t a : p.perm) out.push_back(in[static_cast<std::size_t>(a)]);
              check(out == out_shape(l), "its output shape is not the permuted input");
              constants(l, 0, 0);
            },
            [&](const SliceParams& p) {
              inputs(l, 1);
              const auto& in = in_shape(l);
              const auto& out = out_shape(l);
              bool ok = p.begin.size() == in.size() && p.step.size() == in.size() &&
                        out.size() == in.size();
              for (std::size_t a = 0; ok && a < in.size(); ++a)
                ok = p.step[a] > 0 && p.begin[a] >= 0 &&
                     (out[a] == 0 || p.begin[a] + (out[a] - 1) * p.step[a] < in[a]);
              check(ok, "its begin, step and output shape do not lie inside its input");
              constants(l, 0, 0);
            },
            [&](const ResizeParams& p) {
              inputs(l, 1);
              check(map_shape(p.dims, p.in_h, p.in_w, p.channels) == in_shape(l) &&
                        map_shape(p.dims, p.out_h, p.out_w, p.channels) == out_shape(l),
                    "its shapes are not those of its input and output");
              check(static_cast<int64_t>(p.row_index.size()) == p.out_h * p.taps() &&
                        static_cast<int64_t>(p.col_index.size()) == p.out_w * p.taps(),
                    "has not one source index per output row and column and tap");
              check(std::all_of(p.row_index.begin(), p.row_index.end(),
                                [&](int64_t i) { return i >= 0 && i < p.in_h; }) &&
                        std::all_of(p.col_index.begin(), p.col_index.end(),
                                    [&](int64_t i) { return i >= 0 && i < p.in_w; }),
                    "reads a row or column outside its input");
              const int64_t n_weights =
                  p.mode == ResizeKind::Linear ? (p.out_h + p.out_w) * p.taps() : 0;
              constants(l, n_weights, 0);
            },
            [&](const QuantizeParams& p) {
              inputs(l, 1);
              check(l.precision.result == p.format, "its result format is not its quantizer's");
              check(p.format.min_raw() <= p.min_raw && p.min_raw <= p.max_raw &&
                        p.max_raw <= p.format.max_raw(),
                    "its clamp is not a range of its format");
              check(!p.bipolar || (p.min_raw == -1 && p.max_raw == 1),
                    "is bipolar but does not output -1 and +1");
              check(tensor(l.output()).shape == in_shape(l), "changes the shape");
              constants(l, 0, 0);
            },
            [&](const MatMulParams& p) {
              inputs(l, 2);
              check(tensor(l.inputs[0]).numel() == p.batch * p.m * p.k &&
                        tensor(l.inputs[1]).numel() == p.batch * p.k * p.n &&
                        tensor(l.output()).numel() == p.batch * p.m * p.n,
                    "its operand sizes do not match batch, m, k, n");
              constants(l, 0, 0);
            },
            [&](const RecurrentParams& p) {
              inputs(l, 1);
              check(p.steps >= 1 && p.n_in >= 1 && p.hidden >= 1, "has an empty dimension");
              check(tensor(l.inputs[0]).numel() == p.steps * p.n_in &&
                        tensor(l.output()).numel() == (p.sequences ? p.steps : 1) * p.hidden,
                    "its input and output sizes do not match steps, n_in and hidden");
              // io_stream: one element per step in, one per step (or one) out.
              check(in_shape(l).back() == p.n_in && out_shape(l).back() == p.hidden,
                    "its input or output is not one vector per step");
              const int64_t gates = p.gates() * p.hidden;
              constants(l, (p.n_in + p.hidden) * gates, 2 * gates);
            },
            [&](const ReshapeParams&) {
              inputs(l, 1);
              check(tensor(l.inputs[0]).numel() == tensor(l.output()).numel(),
                    "changes the number of elements");
              constants(l, 0, 0);
            },
            [&](const CloneParams&) {
              inputs(l, 1);
              for (int t : l.outputs)
                check(tensor(t).shape == in_shape(l) && tensor(t).type == tensor(l.inputs[0]).type,
                      "writes a copy of another shape or type");
              constants(l, 0, 0);
            },
        },
        l.params);
  }

  void check_ports(const std::vector<int>& tensors, const std::vector<Model::Port>& ports,
                   const std::string& side) const {
    check(tensors.size() == ports.size(), "has " + std::to_string(tensors.size()) + " " + side +
                                              "s but " + std::to_string(ports.size()) + " " + side +
                                              " ports");
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      check(tensors[i] >= 0 && static_cast<std::size_t>(tensors[i]) < m_.tensors.size(),
            "names a missing " + side + " tensor");
      const auto& shape = tensor(tensors[i]).shape;
      const Model::Port& p = ports[i];
      check(p.perm.size() == shape.size(),
            side + " port '" + p.onnx_name + "' has a permutation of another rank");
      const std::size_t batch = p.onnx_shape.size() - shape.size();
      check(batch <= 1, side + " port '" + p.onnx_name + "' drops more than the batch");
      for (std::size_t d = 0; d < shape.size(); ++d) {
        const int64_t src = p.perm[d];
        check(src >= 0 && static_cast<std::size_t>(src) < shape.size() &&
                  p.onnx_shape[batch + static_cast<std::size_t>(src)] == shape[d],
              side + " port '" + p.onnx_name + "' does not map its ONNX shape to the tensor");
      }
    }
  }

  const Model& m_;
  std::string_view after_;
  std::string where_;
};

}  // namespace

void verify_model(const Model& model, std::string_view after_pass) {
  Checker(model, after_pass).run();
}

}  // namespace kiln::hls
