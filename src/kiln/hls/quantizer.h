// The model's quantizers as fixed-point formats: what an ONNX
// QuantizeLinear / DequantizeLinear pair computes, y = (clamp(round(x / s) +
// z, qmin, qmax) - z) * s with round half to even, written as a Quantize
// layer's format and clamp (docs/hls-layers.md "Quantized models").
#pragma once

#include <cstdint>

#include "kiln/graph/dtype.h"
#include "kiln/hls/model.h"

namespace kiln::hls {

// The exponent k with scale == 2^-k exactly, if there is one.
std::optional<int> power_of_two_exponent(double scale);

// A quantizer of scale `scale` (> 0), zero point `zero_point` and integer
// type `dtype` (int8, uint8, int16, uint16). With scale 2^-k the format has
// k fraction bits and the fewest bits that hold qmin - z .. qmax - z, rounds
// half to even and saturates: exact. Another scale gets kInexactExtraBits
// more fraction bits than the scale resolves and the range it spans; values
// then stay on that grid rather than on multiples of the scale (exact = false).
QuantizeParams quantizer_params(double scale, int64_t zero_point, DType dtype);
// The same for `bits`-bit integers (signed or not; narrow drops the most
// negative, or for unsigned the largest, value) rounded by `mode` (QONNX's
// Quant: ROUND is RndConv, FLOOR Trn, DOWN TrnZero, HALF_UP RndInf, HALF_DOWN
// RndZero).
QuantizeParams quantizer_params(double scale, int64_t zero_point, int bits, bool is_signed,
                                bool narrow, numeric::QuantMode mode);
inline constexpr int kInexactExtraBits = 3;

// QONNX's BipolarQuant, y = x >= 0 ? scale : -scale, for a power-of-two
// scale 2^-k: raw -1 and +1 of a 2-bit format with k fraction bits. nullopt
// for other scales (their +-scale has no exact format).
std::optional<QuantizeParams> bipolar_params(double scale);

}  // namespace kiln::hls
