#include "kiln/hls/emit/layer_code.h"

#include <algorithm>
#include <string>
#include <vector>

#include "kiln/support/enum_table.h"
#include "kiln/support/error.h"

namespace kiln::hls {

namespace {

LayerCode emit_input(const Model&, const Layer&, const EmitContext&) {
  return {};
}

// The emitter of every layer kind; the build fails while a kind has no row.
using EmitFn = LayerCode (*)(const Model&, const Layer&, const EmitContext&);
constexpr auto kEmit = make_enum_table<LayerKind, kNumLayerKinds, EmitFn>({
    {{LayerKind::Input}, emit_input},
    {{LayerKind::Dense}, emit_dense},
    {{LayerKind::Conv}, emit_conv},
    {{LayerKind::Pool}, emit_pool},
    {{LayerKind::ZeroPad}, emit_zero_pad},
    {{LayerKind::BatchNorm}, emit_batchnorm},
    {{LayerKind::Activation}, emit_activation},
    {{LayerKind::Softmax}, emit_softmax},
    {{LayerKind::Binary}, emit_binary},
    {{LayerKind::Concat}, emit_concat},
    {{LayerKind::Transpose}, emit_transpose},
    {{LayerKind::Slice}, emit_slice},
    {{LayerKind::Resize}, emit_resize},
    {{LayerKind::Quantize}, emit_quantize},
    {{LayerKind::MatMul}, emit_matmul},
    {{LayerKind::Recurrent}, emit_recurrent},
    {{LayerKind::Reshape}, emit_reshape},
    {{LayerKind::Clone}, emit_clone},
});

}  // namespace

LayerCode emit_layer(const Model& model, const Layer& layer, const EmitContext& ctx) {
  return kEmit[layer.kind()](model, layer, ctx);
}

namespace {

// Decimal digits, most significant first, of a non-negative integer.
using Digits = std::vector<int>;

Digits digits_of(numeric::int128 v) {
  Digits d;
  do {
    d.push_back(static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  std::reverse(d.begin(), d.end());
  return d;
}

void double_digits(Digits& d) {
  int carry = 0;
  for (std::size_t i = d.size(); i-- > 0;) {
    const int v = d[i] * 2 + carry;
    d[i] = v % 10;
    carry = v / 10;
  }
  if (carry != 0) d.insert(d.begin(), carry);
}

}  // namespace

// raw * 2^-F written exactly: halving a decimal number appends at most one
// digit, so F halvings of the integer |raw| give the exact expansion.
std::string fixed_literal(int64_t raw, const FixedType& type) {
  const bool negative = raw < 0;
  numeric::int128 mag = raw;
  if (negative) mag = -mag;
  Digits d = digits_of(mag);
  std::size_t frac_digits = 0;
  const int f = type.frac();
  for (int i = 0; i < -f; ++i) double_digits(d);
  for (int i = 0; i < f; ++i) {
    // Halve: long division by 2 over all digits, then one more digit for
    // the remainder.
    int rem = 0;
    for (int& digit : d) {
      const int v = rem * 10 + digit;
      digit = v / 2;
      rem = v % 2;
    }
    if (rem != 0) {
      d.push_back(5);
      ++frac_digits;
    }
  }
  // Split into integer and fraction parts; trim zeros.
  std::size_t int_len = d.size() - frac_digits;
  std::string int_part, frac_part;
  for (std::size_t i = 0; i < int_len; ++i) int_part += static_cast<char>('0' + d[i]);
  for (std::size_t i = int_len; i < d.size(); ++i) frac_part += static_cast<char>('0' + d[i]);
  const std::size_t first = int_part.find_first_not_of('0');
  int_part = first == std::string::npos ? "0" : int_part.substr(first);
  while (!frac_part.empty() && frac_part.back() == '0') frac_part.pop_back();
  if (frac_part.empty()) frac_part = "0";
  const bool zero = int_part == "0" && frac_part == "0";
  return (negative && !zero ? "-" : "") + int_part + "." + frac_part;
}

}  // namespace kiln::hls
