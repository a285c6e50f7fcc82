#include "kiln/hls/emit/layer_code.h"

#include <algorithm>
#include <string>
#include <vector>

#include "kiln/support/error.h"

namespace kiln::hls {

LayerCode emit_layer(const Model& model, const Layer& layer, const EmitContext& ctx) {
  switch (layer.kind) {
    case LayerKind::Input: return {};
    case LayerKind::Dense:
    case LayerKind::Conv:
    case LayerKind::Pool:
    case LayerKind::ZeroPad: return emit_dense_conv_pool(model, layer, ctx);
    case LayerKind::BatchNorm:
    case LayerKind::Activation:
    case LayerKind::Softmax:
    case LayerKind::Binary:
    case LayerKind::Concat:
    case LayerKind::Transpose:
    case LayerKind::MatMul:
    case LayerKind::Reshape: return emit_elementwise(model, layer, ctx);
  }
  KILN_ASSERT(false, "emit_layer: unknown layer kind");
  return {};
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
