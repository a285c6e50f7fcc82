#include "kiln/hls/derived.h"

#include <algorithm>
#include <numeric>

#include "kiln/hls/layer_kinds.h"
#include "kiln/support/error.h"

namespace kiln::hls {

std::optional<ProductShape> product_shape(const Layer& layer) {
  switch (layer.kind()) {
    case LayerKind::Dense: {
      const auto& p = layer.as<DenseParams>();
      return ProductShape{p.n_in, p.n_out};
    }
    case LayerKind::Conv: {
      const auto& p = layer.as<ConvParams>();
      return ProductShape{p.kernel_h * p.kernel_w * (p.groups > 0 ? p.c_in / p.groups : p.c_in),
                          p.c_out};
    }
    case LayerKind::MatMul: {
      const auto& p = layer.as<MatMulParams>();
      return ProductShape{p.k, p.n};
    }
    case LayerKind::Recurrent: {
      const auto& p = layer.as<RecurrentParams>();
      return ProductShape{p.n_in + p.hidden, p.gates() * p.hidden};
    }
    case LayerKind::Input:
    case LayerKind::Pool:
    case LayerKind::ZeroPad:
    case LayerKind::BatchNorm:
    case LayerKind::Activation:
    case LayerKind::Softmax:
    case LayerKind::Binary:
    case LayerKind::Concat:
    case LayerKind::Transpose:
    case LayerKind::Slice:
    case LayerKind::Resize:
    case LayerKind::Quantize:
    case LayerKind::Reshape:
    case LayerKind::Clone: return std::nullopt;
  }
  return std::nullopt;
}

std::vector<ProductShape> kernel_products(const Layer& layer) {
  if (layer.kind() == LayerKind::Recurrent) {
    const auto& p = layer.as<RecurrentParams>();
    return {ProductShape{p.n_in, p.gates() * p.hidden},
            ProductShape{p.hidden, p.gates() * p.hidden}};
  }
  const auto shape = product_shape(layer);
  if (!shape) return {};
  return {*shape};
}

int64_t multipliers_of(const ProductShape& product, int64_t reuse_factor) {
  const int64_t total = product.products();
  if (total <= 0) return 0;
  const int64_t rf = std::clamp<int64_t>(reuse_factor, 1, total);
  return (total + rf - 1) / rf;
}

std::vector<int64_t> valid_reuse_factors(const Layer& layer) {
  int64_t total = 0;  // the gcd of the products: every kernel's RF divides its own
  for (const ProductShape& k : kernel_products(layer)) total = std::gcd(total, k.products());
  if (total <= 0) return {1};
  std::vector<int64_t> small, large;  // divisors below and above sqrt(total)
  for (int64_t d = 1; d * d <= total; ++d) {
    if (total % d != 0) continue;
    small.push_back(d);
    if (d != total / d) large.push_back(total / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

int64_t block_factor(const Layer& layer) {
  int64_t m = 0;
  for (const ProductShape& k : kernel_products(layer)) m += multipliers_of(k, layer.reuse_factor);
  return m;
}

int64_t product_layer_ii(const Model& model, const Layer& layer, int64_t rf) {
  const bool stream = model.io_type == IOType::Stream;
  auto input_beats = [&] {
    if (!stream || layer.inputs.empty()) return int64_t{0};
    return stream_elements(model.tensors.at(static_cast<std::size_t>(layer.inputs[0])));
  };
  if (!product_shape(layer)) return 0;
  if (layer.kind() == LayerKind::Recurrent)  // the steps follow each other (docs/estimates.md)
    return layer.as<RecurrentParams>().steps * (rf + kRecurrentStepOverhead);
  if (layer.kind() == LayerKind::Conv) {
    const auto& p = layer.as<ConvParams>();
    const int64_t pixels =
        stream ? (p.in_h + p.pad_top + p.pad_bottom) * (p.in_w + p.pad_left + p.pad_right)
               : p.out_h * p.out_w;
    return pixels * rf;
  }
  return input_beats() + rf;  // Dense, MatMul
}

int64_t reuse_factor_for_target(const Model& model, const Layer& layer, int64_t target_cycles) {
  int64_t best = 1;
  for (int64_t rf : valid_reuse_factors(layer))
    if (product_layer_ii(model, layer, rf) <= target_cycles) best = std::max(best, rf);
  return best;
}

int64_t stream_width(const TensorInfo& t) {
  return t.shape.empty() ? 1 : t.shape.back();
}

int64_t stream_elements(const TensorInfo& t) {
  const int64_t c = stream_width(t);
  return c == 0 ? 0 : t.numel() / c;
}

int64_t stream_fifo_depth(const TensorInfo& t) {
  return std::max<int64_t>(stream_elements(t), 1);
}

std::vector<int64_t> binary_operand_shape(std::vector<int64_t> out, BinaryBroadcast b) {
  if (out.empty()) return out;
  switch (b) {
    case BinaryBroadcast::None: break;
    case BinaryBroadcast::PerChannel: std::fill(out.begin(), out.end() - 1, 1); break;
    case BinaryBroadcast::PerPixel: out.back() = 1; break;
  }
  return out;
}

bool is_global_pool(const PoolParams& p) {
  return p.kernel_h == p.in_h && p.kernel_w == p.in_w && p.pad_top == 0 && p.pad_bottom == 0 &&
         p.pad_left == 0 && p.pad_right == 0;
}

WindowBuffer window_buffer(const Model& model, const Layer& layer) {
  WindowBuffer b;
  if (model.io_type != IOType::Stream || !layer_kind_info(layer.kind()).window) return b;
  const TensorInfo& in = model.tensors.at(static_cast<std::size_t>(layer.inputs.at(0)));
  b.width = in.type.width;
  if (layer.kind() == LayerKind::Pool) {
    const auto& p = layer.as<PoolParams>();
    if (is_global_pool(p)) return b;
    b.kind = WindowKind::LineBuffer;
    b.count = std::max<int64_t>(p.kernel_h - 1, 0) * p.channels;
    b.depth = p.in_w + p.pad_left + p.pad_right;
    return b;
  }
  const auto& p = layer.as<ConvParams>();
  if (layer.conv_impl == ConvImpl::Encoded) {
    b.kind = WindowKind::Encoded;
    b.count = p.kernel_h * p.kernel_w * p.c_in;
    b.depth = encoded_table(p).stream_depth;
    return b;
  }
  b.kind = WindowKind::LineBuffer;
  b.count = std::max<int64_t>(p.kernel_h - 1, 0) * p.c_in;
  b.depth = p.in_w + p.pad_left + p.pad_right;
  return b;
}

EncodedTable encoded_table(const ConvParams& p) {
  const int64_t kh = p.kernel_h, kw = p.kernel_w;
  const int64_t hp = p.in_h + p.pad_top + p.pad_bottom;
  const int64_t wp = p.in_w + p.pad_left + p.pad_right;
  // Bit k of axis_mask(i) is set when padded index i is window offset k of
  // some output position.
  auto axis_mask = [](int64_t i, int64_t k, int64_t s, int64_t out) {
    uint64_t m = 0;
    for (int64_t o = 0; o < out; ++o) {
      const int64_t off = i - o * s;
      if (off >= 0 && off < k) m |= uint64_t{1} << off;
    }
    return m;
  };
  // The header's encoded_class(): own class above the first complete window
  // and below the last window start, stride-periodic in between.
  auto cls = [](int64_t i, int64_t k, int64_t s, int64_t out) {
    const int64_t top = k - 1, last = (out - 1) * s;
    if (i < top) return i;
    if (i <= last) return top + (i - top) % s;
    return top + s + (i - last - 1);
  };
  EncodedTable t;
  t.n_row_classes = (kh - 1) + p.stride_h + (hp - 1 - (p.out_h - 1) * p.stride_h);
  t.n_col_classes = (kw - 1) + p.stride_w + (wp - 1 - (p.out_w - 1) * p.stride_w);
  t.table.assign(t.n_row_classes * t.n_col_classes, 0);
  std::vector<bool> set(t.table.size(), false);
  std::vector<int64_t> fill(kh * kw, 0);
  t.stream_depth = 1;
  for (int64_t ph = 0; ph < hp; ++ph) {
    const uint64_t rm = axis_mask(ph, kh, p.stride_h, p.out_h);
    for (int64_t pw = 0; pw < wp; ++pw) {
      const uint64_t cm = axis_mask(pw, kw, p.stride_w, p.out_w);
      uint64_t instr = 0;
      for (int64_t a = 0; a < kh; ++a)
        for (int64_t b = 0; b < kw; ++b)
          if (((rm >> a) & 1) && ((cm >> b) & 1)) instr |= uint64_t{1} << (a * kw + b);
      const int64_t idx =
          cls(ph, kh, p.stride_h, p.out_h) * t.n_col_classes + cls(pw, kw, p.stride_w, p.out_w);
      KILN_ASSERT(idx >= 0 && idx < static_cast<int64_t>(t.table.size()),
                  "encoded class out of range");
      KILN_ASSERT(!set[idx] || t.table[idx] == instr, "encoded classes disagree");
      t.table[idx] = instr;
      set[idx] = true;
      // FIFO occupancy, to size the streams.
      for (int64_t q = 0; q < kh * kw; ++q) {
        if ((instr >> q) & 1) fill[q]++;
        t.stream_depth = std::max(t.stream_depth, fill[q]);
      }
      if ((instr >> (kh * kw - 1)) & 1)
        for (int64_t& f : fill) f--;
    }
  }
  return t;
}

}  // namespace kiln::hls
