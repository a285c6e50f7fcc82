#include "kiln/rtl/testing/random_designs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <set>

#include "kiln/hls/derived.h"
#include "kiln/hls/layer_kinds.h"
#include "kiln/hls/model_text.h"
#include "kiln/rtl/plan/options.h"
#include "kiln/rtl/plan/price.h"
#include "kiln/rtl/plan/search.h"
#include "kiln/support/error.h"

namespace kiln::rtl::testing {
namespace {

using numeric::FixedType;
using numeric::OverflowMode;
using numeric::QuantMode;

// Uniform draws from the raw bits of an mt19937 (the standard's
// distributions may differ between libraries: a seed must give one design).
class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  int64_t uniform(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    const uint64_t r = (static_cast<uint64_t>(rng_()) << 32) | rng_();
    return lo + static_cast<int64_t>(r % span);
  }
  int uniform_int(int lo, int hi) { return static_cast<int>(uniform(lo, hi)); }
  bool chance(int percent) { return uniform(0, 99) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(uniform(0, static_cast<int64_t>(v.size()) - 1))];
  }
  // Index by weight.
  int weighted(const std::vector<int>& weights) {
    int64_t r = uniform(0, std::accumulate(weights.begin(), weights.end(), int64_t{0}) - 1);
    for (std::size_t i = 0; i < weights.size(); ++i)
      if ((r -= weights[i]) < 0) return static_cast<int>(i);
    return static_cast<int>(weights.size()) - 1;
  }

 private:
  std::mt19937 rng_;
};

// A type of wmin..wmax bits: signed or not, its binary point inside, below
// its bits (integer bits <= 0) or above them (integer bits > width), an
// ap_int / ap_uint, any rounding and overflow mode.
FixedType draw_type(Gen& g, int wmin, int wmax) {
  FixedType t;
  t.width = g.uniform_int(wmin, wmax);
  t.is_signed = !g.chance(25);
  t.quant = static_cast<QuantMode>(g.uniform_int(0, 6));
  t.overflow = static_cast<OverflowMode>(g.uniform_int(0, 3));
  switch (g.uniform_int(0, 9)) {
    case 0: t.integer = g.uniform_int(-3, 0); break;
    case 1: t.integer = g.uniform_int(t.width + 1, t.width + 3); break;
    case 2:  // ap_int<W> / ap_uint<W>
      t.integer = t.width;
      t.quant = QuantMode::Trn;
      t.overflow = OverflowMode::Wrap;
      break;
    default: t.integer = g.uniform_int(1, std::max(1, t.width - 1));
  }
  return t;
}

// Raw constants of type `t`: uniform, a sixth zeros, a sixth powers of two
// (they fold), a tenth the type's extremes.
std::vector<int64_t> draw_raw(Gen& g, int64_t n, const FixedType& t, int max_bits = 12) {
  const int bits = std::min(t.width, max_bits);
  const int64_t hi = t.is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  const int64_t lo = t.is_signed ? -hi - 1 : 0;
  std::vector<int64_t> v;
  for (int64_t k = 0; k < n; ++k) {
    const int r = g.uniform_int(0, 29);
    if (r < 5)
      v.push_back(0);
    else if (r < 10)
      v.push_back((t.is_signed && g.chance(50) ? -1 : 1) *
                  (int64_t{1} << g.uniform_int(0, std::max(0, bits - 2))));
    else if (r < 13)
      v.push_back(g.chance(50) ? t.max_raw() : t.min_raw());
    else
      v.push_back(g.uniform(lo, hi));
  }
  return v;
}

std::string list(const std::vector<int64_t>& v) {
  return "[" + fmt::format("{}", fmt::join(v, ",")) + "]";
}
std::string dims(const std::vector<int64_t>& shape) {
  return fmt::format("{}", fmt::join(shape, "x"));
}
int64_t numel(const std::vector<int64_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

struct Tensor {
  std::string name;
  FixedType type;
  std::vector<int64_t> shape;  // [n], [L, C] or [H, W, C]
};

// A model written layer by layer as layer text (hls/model_text.h).
class ModelText {
 public:
  explicit ModelText(Gen& g) : g_(g) {}

  Tensor input(const FixedType& type, std::vector<int64_t> shape) {
    Tensor t{fmt::format("in{}", inputs_.size()), type, std::move(shape)};
    lines_ += fmt::format("%{0}: {1}[{2}] = Input() @{0} \"{0}\"\n", t.name, type.to_string(),
                          dims(t.shape));
    inputs_.push_back(t);
    return t;
  }

  // A layer of `kind` reading `ins`, writing one tensor.
  Tensor layer(const std::string& kind, const std::vector<Tensor>& ins, const FixedType& type,
               std::vector<int64_t> shape, const std::string& params,
               const std::string& config = "", const std::string& constants = "") {
    Tensor t{fmt::format("t{}", tensors_++), type, std::move(shape)};
    std::vector<std::string> names;
    for (const Tensor& i : ins) names.push_back("%" + i.name);
    std::string s = fmt::format("%{}: {}[{}] = {}({})", t.name, type.to_string(), dims(t.shape),
                                kind, fmt::join(names, ", "));
    if (!params.empty()) s += " {" + params + "}";
    const std::string name = fmt::format("{}{}", lowercase(kind), layers_++);
    s += fmt::format(" @{0} \"{0}\"", name);
    if (!config.empty()) s += " config {" + config + "}";
    if (!constants.empty()) s += " constants {" + constants + "}";
    lines_ += s + "\n";
    return t;
  }

  // Two copies of `in` (a Clone layer).
  std::pair<Tensor, Tensor> clone(const Tensor& in) {
    Tensor a{fmt::format("t{}", tensors_++), in.type, in.shape};
    Tensor b{fmt::format("t{}", tensors_++), in.type, in.shape};
    const std::string t = in.type.to_string() + "[" + dims(in.shape) + "]";
    lines_ += fmt::format("%{}: {}, %{}: {} = Clone(%{}) @clone{}\n", a.name, t, b.name, t, in.name,
                          layers_++);
    return {a, b};
  }

  std::string text(const std::vector<Tensor>& outputs) const {
    std::string s = "model \"r\" {}\n" + lines_;
    auto port = [](const char* side, const Tensor& t) {
      std::vector<int64_t> perm(t.shape.size());
      std::iota(perm.begin(), perm.end(), 0);
      return fmt::format("{} %{} \"{}\": [1x{}] perm={}\n", side, t.name, t.name, dims(t.shape),
                         list(perm));
    };
    for (const Tensor& t : inputs_) s += port("input", t);
    for (const Tensor& t : outputs) s += port("output", t);
    return s;
  }

 private:
  static std::string lowercase(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
  Gen& g_;
  std::string lines_;
  std::vector<Tensor> inputs_;
  int tensors_ = 0, layers_ = 0;
};

// The types of a layer that computes: its result, and the config fields
// it reads.
struct LayerTypes {
  FixedType result, accum, weight, bias;
  std::string config;  // "accum=... weight=... bias=..."
};

LayerTypes draw_layer_types(Gen& g, bool weights) {
  LayerTypes t;
  t.result = draw_type(g, 3, 16);
  t.accum = draw_type(g, 10, 32);
  t.weight = g.chance(60) ? hls::Precision{}.weight : draw_type(g, 4, 16);
  t.bias = g.chance(60) ? hls::Precision{}.bias : draw_type(g, 4, 16);
  t.config = "accum=" + t.accum.to_string();
  if (weights && !(t.weight == hls::Precision{}.weight))
    t.config += " weight=" + t.weight.to_string();
  if (weights && !(t.bias == hls::Precision{}.bias)) t.config += " bias=" + t.bias.to_string();
  return t;
}

std::string draw_act(Gen& g, bool fused) {
  // Fused into Dense and Conv: the ones docs/numerics.md fuses.
  if (fused) {
    switch (g.uniform_int(0, 3)) {
      case 0: return "";
      case 1: return " act={kind=Relu}";
      case 2: return fmt::format(" act={{kind=LeakyRelu alpha={}}}", g.pick<double>({0.1875, 0.3}));
      default: return " act={kind=Clip alpha=-1.5 beta=2.25}";
    }
  }
  static const std::vector<std::string> kAct = {
      "kind=Relu",
      "kind=LeakyRelu alpha=0.3",
      "kind=Elu alpha=0.5",
      "kind=Selu alpha=1.6732632423543772 beta=1.0507009873554805",
      "kind=PRelu",
      "kind=Clip alpha=-2 beta=1.5",
      "kind=Sigmoid",
      "kind=Tanh",
      "kind=Exp",
      "kind=HardSigmoid alpha=0.2 beta=0.5",
      "kind=HardSwish alpha=0.16666666666666666 beta=0.5"};
  return g.pick(kAct);
}

std::string table_config(Gen& g) {
  return fmt::format("tables={{table_size={} table_range={} inv_table_size={}}}",
                     int64_t{1} << g.uniform_int(3, 7), 1 << g.uniform_int(1, 3),
                     int64_t{1} << g.uniform_int(3, 7));
}

// Shapes kept small: a design is built and simulated in milliseconds.
std::vector<int64_t> draw_shape(Gen& g, int rank) {
  switch (rank) {
    case 1: return {g.uniform(2, 8)};
    case 2: return {g.uniform(2, 5), g.uniform(1, 3)};
    default: return {g.uniform(2, 5), g.uniform(2, 5), g.uniform(1, 3)};
  }
}

// The layers after `x`, one drawn per step from the kinds its rank takes.
class ModelDraw {
 public:
  ModelDraw(Gen& g, ModelText& m) : g_(g), m_(m) {}

  // A layer reading x (and perhaps an earlier tensor or a new input).
  Tensor next(const Tensor& x) {
    const int rank = static_cast<int>(x.shape.size());
    // Kinds by rank; weights favour the computing layers.
    enum K {
      kDense,
      kConv,
      kPool,
      kZeroPad,
      kBatchNorm,
      kAct,
      kSoftmax,
      kBinary,
      kConcat,
      kTranspose,
      kSlice,
      kResize,
      kQuantize,
      kMatMul,
      kRecurrent,
      kReshape,
      kCount
    };
    std::vector<int> w(kCount, 0);
    w[kDense] = rank <= 2 ? 14 : 0;
    w[kConv] = rank >= 2 ? 16 : 0;
    w[kPool] = rank >= 2 ? 8 : 0;
    w[kZeroPad] = rank >= 2 ? 4 : 0;
    w[kBatchNorm] = 4;
    w[kAct] = 9;
    w[kSoftmax] = 4;
    w[kBinary] = 7;
    w[kConcat] = 4;
    w[kTranspose] = rank >= 2 ? 3 : 0;
    w[kSlice] = 3;
    w[kResize] = rank >= 2 ? 4 : 0;
    w[kQuantize] = 3;
    w[kMatMul] = rank <= 2 ? 4 : 0;
    w[kRecurrent] = rank == 2 ? 5 : 0;
    w[kReshape] = 3;
    if (g_.chance(6)) return residual(x);
    switch (g_.weighted(w)) {
      case kDense: return dense(x);
      case kConv: return conv(x);
      case kPool: return pool(x);
      case kZeroPad: return zero_pad(x);
      case kBatchNorm: return batch_norm(x);
      case kAct: return activation(x);
      case kSoftmax: return softmax(x);
      case kBinary: return binary(x);
      case kConcat: return concat(x);
      case kTranspose: return transpose(x);
      case kSlice: return slice(x);
      case kResize: return resize(x);
      case kQuantize: return quantize(x);
      case kMatMul: return matmul(x);
      case kRecurrent: return recurrent(x);
      default: return reshape(x);
    }
  }

  void remember(const Tensor& t) { earlier_.push_back(t); }

 private:
  // An earlier tensor of `shape` (a skip), or a new model input of it.
  Tensor second_operand(const std::vector<int64_t>& shape, bool skip_ok) {
    std::vector<Tensor> same;
    for (const Tensor& t : earlier_)
      if (t.shape == shape) same.push_back(t);
    if (skip_ok && !same.empty() && g_.chance(60)) return g_.pick(same);
    return m_.input(draw_type(g_, 3, 12), shape);
  }

  Tensor dense(const Tensor& x) {
    const int64_t n_in = x.shape.back(), n_out = g_.uniform(1, 4);
    const LayerTypes t = draw_layer_types(g_, true);
    std::vector<int64_t> shape = x.shape;
    shape.back() = n_out;
    return m_.layer("Dense", {x}, t.result, shape,
                    fmt::format("n_in={} n_out={}{}", n_in, n_out, draw_act(g_, true)), t.config,
                    "weights=" + list(draw_raw(g_, n_in * n_out, t.weight)) +
                        " bias=" + list(draw_raw(g_, n_out, t.bias, 10)));
  }

  Tensor conv(const Tensor& x) {
    const bool two = x.shape.size() == 3;
    const int64_t in_h = two ? x.shape[0] : 1, in_w = two ? x.shape[1] : x.shape[0];
    const int64_t c_in = x.shape.back();
    int64_t groups = 1;
    if (c_in > 1 && g_.chance(30)) groups = g_.chance(50) ? c_in : 1;
    const int64_t c_out = groups * g_.uniform(1, groups > 1 ? 2 : 3);
    const int64_t kh = two ? g_.uniform(1, 3) : 1, kw = g_.uniform(1, 3);
    const int64_t sh = two ? g_.uniform(1, 2) : 1, sw = g_.uniform(1, 2);
    const int64_t pt = two ? g_.uniform(0, 1) : 0, pb = two ? g_.uniform(0, 1) : 0;
    const int64_t pl = g_.uniform(0, 1), pr = g_.uniform(0, 1);
    const int64_t out_h = (in_h + pt + pb - kh) / sh + 1, out_w = (in_w + pl + pr - kw) / sw + 1;
    if (out_h < 1 || out_w < 1 || in_h + pt + pb < kh || in_w + pl + pr < kw) return dense_or(x);
    const LayerTypes t = draw_layer_types(g_, true);
    const std::string params =
        two ? fmt::format(
                  "in_h={} in_w={} c_in={} out_h={} out_w={} c_out={} kernel_h={} kernel_w={} "
                  "stride_h={} stride_w={} pad_top={} pad_bottom={} pad_left={} pad_right={} "
                  "groups={}{}",
                  in_h, in_w, c_in, out_h, out_w, c_out, kh, kw, sh, sw, pt, pb, pl, pr, groups,
                  draw_act(g_, true))
            : fmt::format(
                  "dims=1 in_w={} c_in={} out_w={} c_out={} kernel_w={} stride_w={} pad_left={} "
                  "pad_right={} groups={}{}",
                  in_w, c_in, out_w, c_out, kw, sw, pl, pr, groups, draw_act(g_, true));
    std::vector<int64_t> shape =
        two ? std::vector<int64_t>{out_h, out_w, c_out} : std::vector<int64_t>{out_w, c_out};
    return m_.layer("Conv", {x}, t.result, shape, params, t.config,
                    "weights=" + list(draw_raw(g_, kh * kw * (c_in / groups) * c_out, t.weight)) +
                        " bias=" + list(draw_raw(g_, c_out, t.bias, 10)));
  }

  // A residual block: a layer that keeps the shape (a padded 3 x 3
  // convolution, an activation or a batch norm), then its result added to
  // its input, which waits for it (a skip).
  Tensor residual(const Tensor& x) {
    Tensor y = x;
    if (x.shape.size() == 3 && numel(x.shape) <= 32 && g_.chance(60)) {
      const int64_t h = x.shape[0], w = x.shape[1], c = x.shape[2];
      const LayerTypes t = draw_layer_types(g_, true);
      y = m_.layer("Conv", {x}, t.result, x.shape,
                   fmt::format("in_h={0} in_w={1} c_in={2} out_h={0} out_w={1} c_out={2} "
                               "kernel_h=3 kernel_w=3 pad_top=1 pad_bottom=1 pad_left=1 "
                               "pad_right=1{3}",
                               h, w, c, draw_act(g_, true)),
                   t.config,
                   "weights=" + list(draw_raw(g_, 9 * c * c, t.weight)) +
                       " bias=" + list(draw_raw(g_, c, t.bias, 10)));
    } else {
      y = g_.chance(50) ? activation(x) : batch_norm(x);
    }
    return m_.layer("Binary", {y, x}, draw_type(g_, 3, 16), x.shape,
                    fmt::format("op=Add n={} channels={}", numel(x.shape), x.shape.back()));
  }

  Tensor dense_or(const Tensor& x) { return x.shape.size() <= 2 ? dense(x) : activation(x); }

  Tensor pool(const Tensor& x) {
    const bool two = x.shape.size() == 3;
    const int64_t in_h = two ? x.shape[0] : 1, in_w = two ? x.shape[1] : x.shape[0];
    const int64_t c = x.shape.back();
    const bool avg = g_.chance(50);
    int64_t kh = two ? g_.uniform(2, 3) : 1, kw = g_.uniform(2, 3);
    int64_t sh = two ? g_.uniform(1, 2) : 1, sw = g_.uniform(1, 2);
    int64_t pt = two ? g_.uniform(0, 1) : 0, pb = two ? g_.uniform(0, 1) : 0;
    int64_t pl = g_.uniform(0, 1), pr = g_.uniform(0, 1);
    if (g_.chance(20)) {  // global
      kh = in_h, kw = in_w, sh = sw = 1, pt = pb = pl = pr = 0;
    }
    const int64_t out_h = (in_h + pt + pb - kh) / sh + 1, out_w = (in_w + pl + pr - kw) / sw + 1;
    if (in_h + pt + pb < kh || in_w + pl + pr < kw) return activation(x);
    const LayerTypes t = draw_layer_types(g_, false);
    const std::string count = avg && g_.chance(30) ? " count_include_pad=true" : "";
    const std::string params =
        two ? fmt::format(
                  "kind={} in_h={} in_w={} channels={} out_h={} out_w={} kernel_h={} kernel_w={} "
                  "stride_h={} stride_w={} pad_top={} pad_bottom={} pad_left={} pad_right={}{}",
                  avg ? "Average" : "Max", in_h, in_w, c, out_h, out_w, kh, kw, sh, sw, pt, pb, pl,
                  pr, count)
            : fmt::format(
                  "kind={} dims=1 in_w={} channels={} out_w={} kernel_w={} stride_w={} "
                  "pad_left={} pad_right={}{}",
                  avg ? "Average" : "Max", in_w, c, out_w, kw, sw, pl, pr, count);
    std::vector<int64_t> shape =
        two ? std::vector<int64_t>{out_h, out_w, c} : std::vector<int64_t>{out_w, c};
    return m_.layer("Pool", {x}, t.result, shape, params, t.config);
  }

  Tensor zero_pad(const Tensor& x) {
    const bool two = x.shape.size() == 3;
    const int64_t in_h = two ? x.shape[0] : 1, in_w = two ? x.shape[1] : x.shape[0];
    const int64_t c = x.shape.back();
    const int64_t pt = two ? g_.uniform(0, 1) : 0, pb = two ? g_.uniform(0, 1) : 0;
    const int64_t pl = g_.uniform(0, 1), pr = g_.uniform(0, 1);
    const int64_t sh = two ? g_.uniform(1, 2) : 1, sw = g_.uniform(1, 2);
    const int64_t out_h = (in_h - 1) * sh + 1 + pt + pb, out_w = (in_w - 1) * sw + 1 + pl + pr;
    const std::string params =
        two ? fmt::format(
                  "in_h={} in_w={} channels={} pad_top={} pad_bottom={} pad_left={} "
                  "pad_right={} stride_h={} stride_w={}",
                  in_h, in_w, c, pt, pb, pl, pr, sh, sw)
            : fmt::format("dims=1 in_w={} channels={} pad_left={} pad_right={} stride_w={}", in_w,
                          c, pl, pr, sw);
    std::vector<int64_t> shape =
        two ? std::vector<int64_t>{out_h, out_w, c} : std::vector<int64_t>{out_w, c};
    return m_.layer("ZeroPad", {x}, draw_type(g_, 3, 14), shape, params);
  }

  Tensor batch_norm(const Tensor& x) {
    const int64_t c = x.shape.back();
    const LayerTypes t = draw_layer_types(g_, true);
    return m_.layer(
        "BatchNorm", {x}, t.result, x.shape, fmt::format("n={} channels={}", numel(x.shape), c),
        t.config.substr(t.config.find(' ') == std::string::npos ? t.config.size()
                                                                : t.config.find(' ') + 1),
        "weights=" + list(draw_raw(g_, c, t.weight)) +
            " bias=" + list(draw_raw(g_, c, t.bias, 10)));
  }

  Tensor activation(const Tensor& x) {
    const std::string act = draw_act(g_, false);
    const int64_t c = x.shape.back();
    const bool prelu = act == "kind=PRelu";
    const bool tables =
        act.find("Sigmoid") != std::string::npos || act.find("Tanh") != std::string::npos ||
        act.find("Exp") != std::string::npos || act.find("Elu") != std::string::npos;
    std::string config;
    if (tables) config = "table=" + draw_type(g_, 6, 18).to_string() + " " + table_config(g_);
    const FixedType weight = draw_type(g_, 4, 12);
    if (prelu) config = "weight=" + weight.to_string();
    return m_.layer("Activation", {x}, draw_type(g_, 3, 16), x.shape,
                    fmt::format("n={} channels={} act={{{}}}", numel(x.shape), c, act), config,
                    prelu ? "weights=" + list(draw_raw(g_, c, weight)) : "");
  }

  Tensor softmax(const Tensor& x) {
    const int64_t length = x.shape.back(), rows = numel(x.shape) / length;
    if (length < 2) return activation(x);
    const bool log = g_.chance(30);
    std::string config = "accum=" + draw_type(g_, 10, 24).to_string() +
                         " table=" + draw_type(g_, 8, 18).to_string() + " " + table_config(g_);
    config += log ? " log_table=" + draw_type(g_, 8, 18).to_string()
                  : " inv_table=" + draw_type(g_, 8, 18).to_string();
    return m_.layer("Softmax", {x}, draw_type(g_, 4, 16), x.shape,
                    fmt::format("rows={} length={}{}", rows, length, log ? " log=true" : ""),
                    config);
  }

  Tensor binary(const Tensor& x) {
    static const std::vector<std::string> kOp = {"Add", "Sub", "Mul", "ReverseSub"};
    static const std::vector<std::string> kBroadcast = {"None", "PerChannel", "PerPixel"};
    const std::string broadcast = x.shape.size() >= 2 ? g_.pick(kBroadcast) : "None";
    std::vector<int64_t> b_shape = x.shape;
    if (broadcast == "PerChannel") std::fill(b_shape.begin(), b_shape.end() - 1, 1);
    if (broadcast == "PerPixel") b_shape.back() = 1;
    const Tensor b = second_operand(b_shape, broadcast == "None");
    std::string params =
        fmt::format("op={} n={} channels={}", g_.pick(kOp), numel(x.shape), x.shape.back());
    if (broadcast != "None") params += " broadcast=" + broadcast;
    return m_.layer("Binary", {x, b}, draw_type(g_, 3, 16), x.shape, params);
  }

  Tensor concat(const Tensor& x) {
    const int axis = g_.uniform_int(0, static_cast<int>(x.shape.size()) - 1);
    std::vector<int64_t> b_shape = x.shape;
    if (g_.chance(50)) b_shape[static_cast<std::size_t>(axis)] = g_.uniform(1, 3);
    const Tensor b = second_operand(b_shape, true);
    std::vector<int64_t> shape = x.shape;
    shape[static_cast<std::size_t>(axis)] += b_shape[static_cast<std::size_t>(axis)];
    return m_.layer("Concat", {x, b}, draw_type(g_, 3, 16), shape, fmt::format("axis={}", axis));
  }

  Tensor transpose(const Tensor& x) {
    std::vector<int64_t> perm(x.shape.size());
    std::iota(perm.begin(), perm.end(), 0);
    while (std::is_sorted(perm.begin(), perm.end()))
      for (std::size_t i = perm.size() - 1; i > 0; --i)
        std::swap(perm[i], perm[static_cast<std::size_t>(g_.uniform(0, static_cast<int64_t>(i)))]);
    std::vector<int64_t> shape;
    for (int64_t a : perm) shape.push_back(x.shape[static_cast<std::size_t>(a)]);
    return m_.layer("Transpose", {x}, g_.chance(50) ? x.type : draw_type(g_, 3, 14), shape,
                    "perm=" + list(perm));
  }

  Tensor slice(const Tensor& x) {
    std::vector<int64_t> begin, step, shape;
    for (int64_t n : x.shape) {
      begin.push_back(g_.uniform(0, n - 1));
      step.push_back(g_.uniform(1, 2));
      const int64_t most = (n - begin.back() + step.back() - 1) / step.back();
      shape.push_back(g_.uniform(1, most));
    }
    return m_.layer("Slice", {x}, g_.chance(50) ? x.type : draw_type(g_, 3, 14), shape,
                    "begin=" + list(begin) + " step=" + list(step));
  }

  Tensor resize(const Tensor& x) {
    const bool two = x.shape.size() == 3;
    const int64_t in_h = two ? x.shape[0] : 1, in_w = two ? x.shape[1] : x.shape[0];
    const int64_t c = x.shape.back();
    const bool linear = g_.chance(50);
    const int64_t out_h = two ? g_.uniform(1, 2 * in_h) : 1, out_w = g_.uniform(1, 2 * in_w);
    // Each output's source: the nearest (asymmetric, floor), or the two
    // around it for linear.
    auto index = [&](int64_t out, int64_t in) {
      std::vector<int64_t> v;
      for (int64_t o = 0; o < out; ++o) {
        const int64_t s = std::min(in - 1, o * in / out);
        v.push_back(s);
        if (linear) v.push_back(std::min(in - 1, s + 1));
      }
      return v;
    };
    std::string params = fmt::format(
        "mode={} {}in_h={} in_w={} channels={} out_h={} out_w={} row_index={} col_index={}",
        linear ? "Linear" : "Nearest", two ? "" : "dims=1 ", in_h, in_w, c, out_h, out_w,
        list(index(out_h, in_h)), list(index(out_w, in_w)));
    std::vector<int64_t> shape =
        two ? std::vector<int64_t>{out_h, out_w, c} : std::vector<int64_t>{out_w, c};
    if (!linear) return m_.layer("Resize", {x}, draw_type(g_, 3, 14), shape, params);
    const LayerTypes t = draw_layer_types(g_, true);
    return m_.layer("Resize", {x}, t.result, shape, params,
                    "accum=" + t.accum.to_string() + " weight=" + t.weight.to_string(),
                    "weights=" + list(draw_raw(g_, (out_h + out_w) * 2, t.weight)));
  }

  Tensor quantize(const Tensor& x) {
    if (g_.chance(25)) {
      const FixedType bipolar{2, 2, true, QuantMode::Trn, OverflowMode::Wrap};
      return m_.layer("Quantize", {x}, bipolar, x.shape,
                      "format=ap_int<2> min_raw=-1 max_raw=1 bipolar=true");
    }
    FixedType f = draw_type(g_, 3, 10);
    if (g_.chance(70)) f.quant = QuantMode::RndConv, f.overflow = OverflowMode::Sat;
    const int64_t lo = g_.uniform(f.min_raw(), std::min<int64_t>(f.max_raw(), f.min_raw() + 3));
    const int64_t hi = g_.uniform(std::max(lo, f.max_raw() - 3), f.max_raw());
    return m_.layer("Quantize", {x}, f, x.shape,
                    fmt::format("format={} min_raw={} max_raw={}", f.to_string(), lo, hi));
  }

  Tensor matmul(const Tensor& x) {
    const int64_t m = x.shape.size() == 2 ? x.shape[0] : 1, k = x.shape.back();
    const int64_t n = g_.uniform(1, 3);
    const Tensor b = second_operand({k, n}, true);
    const LayerTypes t = draw_layer_types(g_, false);
    std::vector<int64_t> shape =
        x.shape.size() == 2 ? std::vector<int64_t>{m, n} : std::vector<int64_t>{n};
    return m_.layer("MatMul", {x, b}, t.result, shape, fmt::format("m={} k={} n={}", m, k, n),
                    t.config);
  }

  Tensor recurrent(const Tensor& x) {
    const int64_t steps = x.shape[0], n_in = x.shape[1], hidden = g_.uniform(1, 3);
    const bool lstm = g_.chance(50), sequences = g_.chance(60);
    const int64_t gates = (lstm ? 4 : 3) * hidden;
    const LayerTypes t = draw_layer_types(g_, true);
    std::vector<int64_t> shape =
        sequences ? std::vector<int64_t>{steps, hidden} : std::vector<int64_t>{hidden};
    return m_.layer(
        "Recurrent", {x}, t.result, shape,
        fmt::format("cell={} steps={} n_in={} hidden={}{}", lstm ? "LSTM" : "GRU", steps, n_in,
                    hidden, sequences ? "" : " sequences=false"),
        t.config + " table=" + draw_type(g_, 8, 18).to_string() + " " + table_config(g_),
        "weights=" + list(draw_raw(g_, (n_in + hidden) * gates, t.weight)) +
            " bias=" + list(draw_raw(g_, 2 * gates, t.bias, 10)));
  }

  Tensor reshape(const Tensor& x) {
    std::vector<int64_t> shape = {numel(x.shape)};
    if (x.shape.size() == 1 && x.shape[0] % 2 == 0) shape = {x.shape[0] / 2, 2};
    // Keeping the type, it is an alias of its input (no kernel): not of a
    // model input, which would leave a model of no layers.
    const bool alias = x.name.rfind("in", 0) != 0 && g_.chance(60);
    return m_.layer("Reshape", {x}, alias ? x.type : draw_type(g_, 3, 14), shape, "");
  }

  Gen& g_;
  ModelText& m_;
  std::vector<Tensor> earlier_;
};

std::string how_text(const RandomDesign& r) {
  const RtlOptions& o = r.options;
  std::string s;
  switch (r.mode) {
    case BuildMode::Plans: s = "plans:"; break;
    case BuildMode::Target: s = "TargetCycles:"; break;
    case BuildMode::Latency:
      s = fmt::format("LatencyCycles {}:", o.latency_cycles.value_or(0));
      break;
    case BuildMode::Fold: s = "MultiplierLimit fold:"; break;
    case BuildMode::Default: s = "kiln's defaults:"; break;
  }
  for (const IntervalTarget& t : o.interval_targets)
    if (r.mode == BuildMode::Target) s += fmt::format(" {} {}", t.layer, t.cycles);
  for (const auto& [name, d] : o.directives.loops) {
    s += " Loop." + name + "{";
    if (d.unroll) s += fmt::format("unroll={} ", *d.unroll);
    if (d.pipeline_ii) s += fmt::format("ii={} ", *d.pipeline_ii);
    if (d.flatten) s += "flatten ";
    s += "}";
  }
  for (const auto& [name, d] : o.directives.buffers)
    s += fmt::format(" Buffer.{}{{{} {} dim={}}}", name, enum_name(d.partition),
                     enum_name(d.storage), d.dim);
  for (const auto& [layer, lb] : o.line_buffer)
    s += fmt::format(" {}:{}", layer, lb ? "LineBuffer" : "Encoded");
  for (const auto& [layer, dsp] : o.constants_on_dsps)
    if (dsp) s += " " + layer + ":ConstantProducts=DSP";
  for (const auto& [layer, least] : o.least_depth)
    if (least) s += " " + layer + ":AdderDepth=Least";
  for (const auto& [layer, n] : o.multiplier_limits)
    s += fmt::format(" {}:MultiplierLimit={}", layer, n);
  if (o.stream_inputs) s += *o.stream_inputs ? " io_stream" : " io_parallel";
  s += fmt::format(" scheduler={} clock={} part={}", enum_name(o.scheduler),
                   r.model.clock_period_ns, r.model.part);
  return s;
}

constexpr int64_t kMaxIterations = 256;

// Each layer's plan drawn from those the searches may try, with its
// products, adder depth and multipliers: the first of a few draws that kiln
// can build (priced alone, as a search prices it), else kiln's default.
void draw_plans(Gen& g, RandomDesign& r) {
  const loop::Program program = design_program(r.model, r.options);
  const fpga::Device device = fpga::device_of_part(r.model.part);
  Pricer pricer(program, r.model, {}, device, {}, {});
  for (std::size_t k = 0; k < program.kernels.size(); ++k) {
    const int kernel = static_cast<int>(k);
    const std::vector<LayerPlan> plans = candidate_plans(pricer, kernel);
    if (plans.empty() || g.chance(5)) continue;  // left to kiln: fully unrolled
    // The line-buffered form's plans are few among a convolution's: a
    // third of the draws take one of them where there are.
    std::vector<LayerPlan> line_buffered;
    for (const LayerPlan& p : plans)
      if (p.line_buffered) line_buffered.push_back(p);
    for (int attempt = 0; attempt < 4; ++attempt) {
      LayerPlan plan =
          !line_buffered.empty() && g.chance(33) ? g.pick(line_buffered) : g.pick(plans);
      if (plan.loop >= 0) {
        const int ii = g.weighted({15, 70, 15});  // none, 1, 2..3
        plan.pipeline_ii =
            ii == 0 ? std::nullopt : std::optional<int>(ii == 1 ? 1 : g.uniform_int(2, 3));
      }
      switch (g.uniform_int(0, 5)) {
        case 0: plan.multipliers = 0; break;  // products of two variables in LUTs
        case 1: plan.multipliers = 1; break;  // all on one DSP
        case 2: plan.multipliers = g.uniform_int(2, 3); break;
        default: break;  // one each
      }
      plan.constants_on_dsps = g.chance(25);
      plan.least_depth = g.chance(30);
      StageOptions so;
      so.clock_ns = r.model.clock_period_ns;
      so.family = device.family;
      so.scheduler = r.options.scheduler;
      so.emit = false;
      // At most a few hundred iterations a sample: a flattened nest of
      // thousands, its weights a table each, takes the interpreter a minute.
      const loop::Kernel& form = pricer.program_for(kernel, plan).kernels[k];
      if (plan_iterations(form, plan) > kMaxIterations) continue;
      if (!pricer.price(kernel, plan, so).feasible) continue;
      set_plan(r.options, r.model, program.kernels[k].name, plan);
      break;
    }
  }
}

}  // namespace

RandomDesign random_design(int seed) {
  Gen g(static_cast<uint32_t>(seed) * 2654435761u + 12345u);
  RandomDesign r;
  r.seed = seed;
  ModelText text(g);
  ModelDraw draw(g, text);
  const int rank = g.weighted({30, 25, 45}) + 1;
  Tensor x = text.input(draw_type(g, 3, 14), draw_shape(g, rank));
  draw.remember(x);
  std::vector<Tensor> outputs;
  const int layers = g.weighted({35, 30, 20, 15}) + 1;
  for (int l = 0; l < layers; ++l) {
    if (l > 0 && g.chance(8)) {  // a tensor two layers read, copied by a Clone
      auto [a, b] = text.clone(x);
      draw.remember(b);
      x = a;
    }
    x = draw.next(x);
    draw.remember(x);
    // A tensor layers read that is also a model output.
    if (l == 0 && layers > 1 && g.chance(10)) outputs.push_back(x);
  }
  outputs.insert(outputs.begin(), x);
  const std::string layer_text = text.text(outputs);
  try {
    r.model = hls::parse_layers("layers 1\n" + layer_text, fmt::format("random design {}", seed));
  } catch (const Error& e) {
    throw_error(ErrorKind::Internal, fmt::format("random design {}", seed),
                fmt::format("the generator wrote an invalid model: {}\n{}", e.what(), layer_text));
  }
  r.model.name = "r";
  r.model.part = g.pick<std::string>(
      {"xcvu9p-flga2104-2L-e", "xcvu9p-flga2104-2L-e", "xc7z020clg400-1", "xcku115-flvb2104-2-e"});
  r.model.clock_period_ns = g.pick<double>({3, 4, 5, 5, 10});

  RtlOptions& o = r.options;
  o.scheduler = static_cast<Scheduler>(g.weighted({10, 80, 10}));
  const int stream = g.uniform_int(0, 2);
  if (stream < 2) o.stream_inputs = stream == 1;
  r.mode = static_cast<BuildMode>(g.weighted({62, 13, 13, 5, 7}));
  const loop::Program program = design_program(r.model, o);
  switch (r.mode) {
    case BuildMode::Plans: draw_plans(g, r); break;
    case BuildMode::Target:
      for (const loop::Kernel& k : program.kernels)
        if (g.chance(80))
          o.interval_targets.push_back(
              {k.name, int64_t{1} << g.uniform_int(0, 7), "TargetCycles (random)"});
      break;
    case BuildMode::Latency: {
      o.latency_cycles = g.uniform(2, 300);
      for (const loop::Kernel& k : program.kernels)
        o.interval_targets.push_back({k.name, *o.latency_cycles, "LatencyCycles (random)"});
      break;
    }
    case BuildMode::Fold: {
      bool any = false;
      for (const hls::Layer& l : r.model.layers)
        if (l.kind() == hls::LayerKind::Dense) {
          o.multiplier_limits.emplace_back(l.name, g.uniform_int(1, 3));
          o.fold.insert(l.name);
          any = true;
        }
      if (!any) {
        r.mode = BuildMode::Plans;
        draw_plans(g, r);
      }
      break;
    }
    case BuildMode::Default: break;
  }
  r.text = hls::print_layers(r.model);
  r.how = how_text(r);
  return r;
}

std::vector<std::string> design_forms(const RandomDesign& r, const Design& d) {
  std::set<std::string> f;
  const hls::Model& m = r.model;
  auto type_forms = [&](const FixedType& t) {
    f.insert(std::string("type:AP_") + std::string(enum_name(t.quant)));
    f.insert(std::string("type:AP_") + std::string(enum_name(t.overflow)));
    if (!t.is_signed) f.insert("type:unsigned");
    if (t.integer <= 0) f.insert("type:integer<=0");
    if (t.integer > t.width) f.insert("type:integer>width");
    if (t.integer == t.width && t.quant == QuantMode::Trn) f.insert("type:ap_int");
  };
  for (const hls::TensorInfo& t : m.tensors) type_forms(t.type);
  for (const hls::Layer& l : m.layers) {
    if (l.kind() == hls::LayerKind::Input) continue;
    const std::string kind(hls::layer_kind_name(l.kind()));
    f.insert("layer:" + kind);
    if (hls::uses_field(l, hls::PrecisionField::Accum)) type_forms(l.precision.accum);
    if (const auto* c = std::get_if<hls::ConvParams>(&l.params)) {
      if (c->dims == 1) f.insert("layer:Conv/1d");
      if (c->groups > 1)
        f.insert(c->groups == c->c_in ? "layer:Conv/depthwise" : "layer:Conv/grouped");
      if (c->stride_h > 1 || c->stride_w > 1) f.insert("layer:Conv/strided");
    }
    if (const auto* p = std::get_if<hls::PoolParams>(&l.params)) {
      f.insert(p->kind == hls::PoolKind::Max ? "layer:Pool/max" : "layer:Pool/average");
      if (hls::is_global_pool(*p)) f.insert("layer:Pool/global");
    }
    if (const auto* a = std::get_if<hls::ActivationParams>(&l.params))
      f.insert("layer:Activation/" + std::string(enum_name(a->act.kind)));
    if (const auto* s = std::get_if<hls::SoftmaxParams>(&l.params); s && s->log)
      f.insert("layer:Softmax/log");
    if (const auto* b = std::get_if<hls::BinaryParams>(&l.params))
      f.insert("layer:Binary/" + std::string(enum_name(b->op)) + "/" +
               std::string(enum_name(b->broadcast)));
    if (const auto* z = std::get_if<hls::ResizeParams>(&l.params))
      f.insert(z->mode == hls::ResizeKind::Linear ? "layer:Resize/linear" : "layer:Resize/nearest");
    if (const auto* c = std::get_if<hls::RecurrentParams>(&l.params))
      f.insert(c->cell == hls::CellKind::Lstm ? "layer:Recurrent/LSTM" : "layer:Recurrent/GRU");
    if (const auto* q = std::get_if<hls::QuantizeParams>(&l.params); q && q->bipolar)
      f.insert("layer:Quantize/bipolar");
  }
  switch (r.mode) {
    case BuildMode::Plans: f.insert("build:plans"); break;
    case BuildMode::Target: f.insert("build:target"); break;
    case BuildMode::Latency: f.insert("build:latency"); break;
    case BuildMode::Fold: f.insert("build:fold"); break;
    case BuildMode::Default: f.insert("build:default"); break;
  }
  f.insert(fmt::format("build:scheduler={}", enum_name(r.options.scheduler)));
  std::set<int> intervals;
  for (const StageReport& s : d.stages) {
    const LayerPlan& p = s.layer_plan;
    intervals.insert(s.interval_cycles);
    if (p.loop < 0) {
      f.insert("plan:unrolled");
    } else {
      f.insert(p.flatten == 0   ? "plan:loop"
               : p.flatten == 1 ? "plan:flatten=1"
                                : "plan:flatten>=2");
      if (p.unroll > 1) f.insert("plan:unroll>1");
      if (!p.pipeline_ii) f.insert("plan:not_pipelined");
      if (p.pipeline_ii && *p.pipeline_ii > 1) f.insert("plan:ii>1");
      if (p.weights == WeightPlace::Banked) f.insert("plan:weights=banked");
      if (p.weights == WeightPlace::Registers) f.insert("plan:weights=registers");
    }
    if (p.line_buffered) f.insert("plan:line_buffer");
    if (s.multiplier_units > 0) f.insert("product:dsp");
    if (s.multipliers > 0 && s.multiplier_units == 0) f.insert("product:lut");
    if (s.multiplier_units > 0 && s.multiplier_units < s.multipliers) f.insert("product:few_units");
    if (p.constants_on_dsps) f.insert("product:constants_on_dsp");
    if (s.const_multipliers > 0) f.insert("product:constants_in_lut");
    if (s.dsp_pairs > 0) f.insert("product:pair");
    if (s.shared_sums > 0) f.insert(p.loop < 0 ? "sum:shared_unrolled" : "sum:shared_in_loop");
    if (s.shared_sums > 0 && p.least_depth) f.insert("sum:least_depth");
    if (s.shared_sums > 0 && !p.least_depth) f.insert("sum:lean");
  }
  if (d.stages.size() > 1) f.insert("design:multi_layer");
  if (d.stages.size() > 1 && intervals.size() > 1) f.insert("design:paced");
  for (const Handoff& h : d.handoffs) {
    if (h.channel) f.insert(h.producer == "input" ? "design:streamed_channel" : "design:channel");
  }
  for (const Port& p : d.inputs)
    if (p.lanes_per_beat() < p.numel) f.insert("design:streamed_input");
  if (d.outputs.size() > 1) f.insert("design:two_outputs");
  {
    const loop::Program p = design_program(m, {});
    for (std::size_t k = 0; k < p.kernels.size(); ++k)
      if (reads_a_skip(p, static_cast<int>(k))) f.insert("design:skip");
  }
  return {f.begin(), f.end()};
}

Stimulus random_stimulus(const hls::Model& m, int samples, double scale, uint32_t seed) {
  std::mt19937 rng(seed);
  Stimulus raw;
  for (int s = 0; s < samples; ++s) {
    raw.emplace_back();
    for (int t : m.inputs) {
      const hls::TensorInfo& info = m.tensors.at(static_cast<std::size_t>(t));
      const double span =
          std::max(std::abs(info.type.max_value()), std::abs(info.type.min_value()));
      std::uniform_real_distribution<double> u(-span, span);
      raw.back().emplace_back();
      for (int64_t i = 0; i < info.numel(); ++i)
        raw.back().back().push_back(numeric::quantize(u(rng) * scale, info.type));
    }
  }
  return raw;
}

// Two samples uniform over 1.5 times each input's range (wrapping or
// saturating into it) and two of extremes: each element its type's least or
// greatest value, zero, one step either side of zero, or random.
Stimulus fuzz_stimulus(const hls::Model& m, int seed) {
  Stimulus s = random_stimulus(m, 2, 1.5, static_cast<uint32_t>(seed));
  std::mt19937 rng(static_cast<uint32_t>(seed) ^ 0x5bd1e995u);
  for (int sample = 0; sample < 2; ++sample) {
    s.emplace_back();
    for (int t : m.inputs) {
      const hls::TensorInfo& info = m.tensors.at(static_cast<std::size_t>(t));
      const numeric::FixedType& ty = info.type;
      s.back().emplace_back();
      for (int64_t i = 0; i < info.numel(); ++i) {
        const int64_t span = ty.max_raw() - ty.min_raw() + 1;
        int64_t v = ty.min_raw() + static_cast<int64_t>(rng() % static_cast<uint64_t>(span));
        switch (rng() % 6) {
          case 0: v = ty.min_raw(); break;
          case 1: v = ty.max_raw(); break;
          case 2: v = 0; break;
          case 3: v = std::clamp<int64_t>(rng() % 2 ? 1 : -1, ty.min_raw(), ty.max_raw()); break;
          default: break;
        }
        // A value the input can hold: AP_SAT_SYM never gives its least.
        s.back().back().push_back(numeric::quantize(numeric::to_exact(v, ty), ty));
      }
    }
  }
  return s;
}

void FormCounts::add(const std::vector<std::string>& forms) {
  for (const std::string& f : forms) ++counts_[f];
}

int64_t FormCounts::count(const std::string& form) const {
  const auto it = counts_.find(form);
  return it == counts_.end() ? 0 : it->second;
}

std::string FormCounts::summary() const {
  std::string s;
  std::string group;
  for (const auto& [form, n] : counts_) {
    const std::string g = form.substr(0, form.find(':'));
    if (g != group) {
      s += (s.empty() ? "" : "; ") + g + ":";
      group = g;
    } else {
      s += ",";
    }
    s += fmt::format(" {} {}", form.substr(form.find(':') + 1), n);
  }
  return s;
}

const std::vector<std::string>& FormCounts::expected() {
  static const std::vector<std::string> kForms = {
      // every layer kind kiln rtl lowers
      "layer:Dense", "layer:Conv", "layer:Conv/1d", "layer:Conv/depthwise", "layer:Conv/strided",
      "layer:Pool/max", "layer:Pool/average", "layer:Pool/global", "layer:ZeroPad",
      "layer:BatchNorm", "layer:Activation", "layer:Softmax", "layer:Softmax/log", "layer:Binary",
      "layer:Concat", "layer:Transpose", "layer:Slice", "layer:Resize/nearest",
      "layer:Resize/linear", "layer:Quantize", "layer:Quantize/bipolar", "layer:MatMul",
      "layer:Recurrent/GRU", "layer:Recurrent/LSTM", "layer:Reshape", "layer:Clone",
      // every plan form
      "plan:unrolled", "plan:loop", "plan:flatten=1", "plan:flatten>=2", "plan:unroll>1",
      "plan:not_pipelined", "plan:ii>1", "plan:weights=banked", "plan:weights=registers",
      "plan:line_buffer",
      // products and sums
      "product:dsp", "product:lut", "product:few_units", "product:constants_on_dsp",
      "product:constants_in_lut", "product:pair", "sum:shared_unrolled", "sum:shared_in_loop",
      "sum:least_depth", "sum:lean",
      // designs
      "design:multi_layer", "design:paced", "design:channel", "design:streamed_input",
      "design:streamed_channel", "design:skip", "design:two_outputs",
      // how
      "build:plans", "build:target", "build:latency", "build:fold", "build:default",
      "build:scheduler=asap", "build:scheduler=list", "build:scheduler=sdc",
      // types
      "type:AP_TRN", "type:AP_TRN_ZERO", "type:AP_RND", "type:AP_RND_ZERO", "type:AP_RND_MIN_INF",
      "type:AP_RND_INF", "type:AP_RND_CONV", "type:AP_WRAP", "type:AP_SAT", "type:AP_SAT_ZERO",
      "type:AP_SAT_SYM", "type:unsigned", "type:integer<=0", "type:integer>width", "type:ap_int"};
  return kForms;
}

}  // namespace kiln::rtl::testing
