#!/usr/bin/python3
"""Generates models/qonnx/: small QONNX models (Quant, BipolarQuant, Trunc) in the ONNX test layout.

Each model is built with onnx.helper the way Brevitas exports a quantized network: activations
and weights pass through QONNX quantizer nodes (weights as float initializers feeding Quant or
BipolarQuant nodes), biases through 16-bit Quant nodes. The expected outputs come from the numpy
implementation below, written from QONNX's operator documentation
(docs/qonnx-custom-ops/*.md in github.com/fastmachinelearning/qonnx), independent of kiln's
C++ kernels. tests/qonnx_test.cpp runs `kiln test-onnx` on every model.

All scales are powers of two and the layer products are small, so every sum is exact in float32
and the outputs do not depend on the order of accumulation.

    /usr/bin/python3 scripts/gen_qonnx.py              # into models/qonnx/
    /usr/bin/python3 scripts/gen_qonnx.py --out /tmp/q
"""

from __future__ import annotations

import argparse
import os
import shutil
from typing import Callable, Dict, List, Tuple

import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(REPO_ROOT, "models", "qonnx")
F32 = np.float32
DATA_SETS = 2

# ---- QONNX semantics in numpy (float32 throughout) ---------------------------------------------


def round_with(mode: str, v: np.ndarray) -> np.ndarray:
    """The rounding modes of IntQuant's table; ROUND is ties to even."""
    mode = mode.upper()
    if mode in ("ROUND", "HALF_EVEN"):
        return np.round(v)
    if mode == "CEIL":
        return np.ceil(v)
    if mode == "FLOOR":
        return np.floor(v)
    if mode == "UP":
        return np.where(v < 0, np.floor(v), np.ceil(v))
    if mode == "DOWN":
        return np.trunc(v)
    down = np.trunc(v)
    tie = np.abs(v - down) == F32(0.5)
    nearest_away = np.where(tie, down + np.sign(v), np.round(v))
    if mode == "HALF_UP":
        return nearest_away
    if mode == "HALF_DOWN":
        return np.where(tie, down, nearest_away)
    raise ValueError(mode)


def int_range(bits: int, signed: bool, narrow: bool) -> Tuple[F32, F32]:
    if signed:
        return F32(-(2 ** (bits - 1)) + int(narrow)), F32(2 ** (bits - 1) - 1)
    return F32(0), F32(2 ** bits - 1 - int(narrow))


def quant(x, scale, zeropt, bits, signed=True, narrow=False, mode="ROUND"):
    """IntQuant: clip x / scale + zeropt to the integers of `bits`, round, map back."""
    v = x.astype(F32) / scale + zeropt
    if signed and bits == 1:  # QONNX executes signed 1-bit as bipolar
        q = np.where(v >= 0, F32(1), F32(-1))
    else:
        lo, hi = int_range(bits, signed, narrow)
        q = round_with(mode, np.minimum(np.maximum(v, lo), hi))
    return ((q - zeropt) * scale).astype(F32)


def bipolar_quant(x, scale):
    return (np.where(x >= 0, F32(1), F32(-1)) * scale).astype(F32)


def trunc(x, scale, zeropt, in_bits, out_bits, mode="FLOOR", version=1, out_scale=None,
          signed=True, narrow=False):
    """Trunc of QONNX opset 1 (drop in - out low bits) or 2 (requantize to out_scale)."""
    v = np.round(x / scale + zeropt)
    if version == 1:
        q = round_with(mode, v / F32(2.0 ** (in_bits - out_bits)))
        return ((q - zeropt) * scale).astype(F32)
    t = F32(2.0) ** np.round(np.log2(out_scale / scale))
    lo, hi = int_range(out_bits, signed, narrow)
    q = round_with(mode, np.minimum(np.maximum(v / t, lo), hi))
    return ((q - zeropt / t) * out_scale).astype(F32)


# ---- the float ops around them ------------------------------------------------------------------


def conv2d(x, w, b, pad):
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh_, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    y = np.zeros((n, m, oh_, ow), F32)
    for i in range(oh_):
        for j in range(ow):
            patch = xp[:, :, i:i + kh, j:j + kw].reshape(n, -1)
            y[:, :, i, j] = patch @ w.reshape(m, -1).T
    return (y + b.reshape(1, m, 1, 1)).astype(F32)


def max_pool2(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def relu(x):
    return np.maximum(x, F32(0))


# ---- model building -----------------------------------------------------------------------------


class Builder:
    """Nodes, initializers and the numpy value of every tensor, side by side."""

    def __init__(self, domain: str):
        self.domain = domain
        self.nodes: List[onnx.NodeProto] = []
        self.inits: List[onnx.TensorProto] = []
        self.count = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self, value, prefix: str = "c") -> str:
        n = self.name(prefix)
        self.inits.append(onnx.numpy_helper.from_array(np.asarray(value, dtype=F32), n))
        return n

    def node(self, op: str, inputs: List[str], qonnx: bool = False, **attrs) -> str:
        out = self.name(op.lower() + "_")
        self.nodes.append(oh.make_node(op, inputs, [out], name=out,
                                       domain=self.domain if qonnx else "", **attrs))
        return out

    def quant(self, x: str, scale, zeropt, bits, signed=True, narrow=False, mode="ROUND") -> str:
        return self.node("Quant", [x, self.const(scale, "scale"), self.const(zeropt, "zeropt"),
                                   self.const(bits, "bitwidth")], qonnx=True,
                         signed=int(signed), narrow=int(narrow), rounding_mode=mode)


def rng_for(name: str) -> np.random.Generator:
    return np.random.default_rng(sum(ord(ch) * (i + 1) for i, ch in enumerate(name)))


def pow2(rng, shape, lo, hi):
    """Random power-of-two scales 2^-hi .. 2^-lo."""
    return (F32(2.0) ** -rng.integers(lo, hi + 1, size=shape)).astype(F32)


def mlp(rng) -> Tuple[Callable, Callable, List[int], Dict]:
    """16 -> 24 -> 16 -> 5: 4-bit activations and weights (per-channel on the first layer),
    binary weights on the second, a Trunc (QONNX opset 1) before the last."""
    w1, b1 = rng.normal(0, 0.4, (16, 24)).astype(F32), rng.normal(0, 0.5, 24).astype(F32)
    w2, b2 = rng.normal(0, 1, (16, 24)).astype(F32), rng.normal(0, 0.5, 16).astype(F32)
    w3, b3 = rng.normal(0, 1, (16, 5)).astype(F32), rng.normal(0, 0.5, 5).astype(F32)
    s1 = pow2(rng, (1, 24), 2, 4)

    def reference(x):
        a = quant(x, F32(0.25), F32(0), 4)
        a = a @ quant(w1, s1, F32(0), 4, narrow=True) + quant(b1, F32(2 ** -6), F32(0), 16)
        a = quant(relu(a), F32(0.5), F32(0), 4, signed=False)
        a = a @ bipolar_quant(w2, F32(0.125)).T + quant(b2, F32(2 ** -4), F32(0), 16)
        a = quant(relu(a), F32(2 ** -4), F32(0), 8, signed=False)
        a = trunc(a, F32(2 ** -4), F32(0), 8, 6)
        a = a @ quant(w3, F32(0.25), F32(0), 4, narrow=True) + quant(b3, F32(2 ** -6), F32(0), 16)
        return quant(a, F32(0.125), F32(0), 8)

    def build(b: Builder, x: str) -> str:
        a = b.quant(x, 0.25, 0, 4)
        a = b.node("MatMul", [a, b.quant(b.const(w1, "w"), s1, 0, 4, narrow=True)])
        a = b.node("Add", [a, b.quant(b.const(b1, "b"), 2 ** -6, 0, 16)])
        a = b.quant(b.node("Relu", [a]), 0.5, 0, 4, signed=False)
        wq = b.node("BipolarQuant", [b.const(w2, "w"), b.const(0.125, "scale")], qonnx=True)
        a = b.node("Gemm", [a, wq, b.quant(b.const(b2, "b"), 2 ** -4, 0, 16)], transB=1)
        a = b.quant(b.node("Relu", [a]), 2 ** -4, 0, 8, signed=False)
        a = b.node("Trunc", [a, b.const(2 ** -4, "scale"), b.const(0, "zeropt"),
                             b.const(8, "in_bitwidth"), b.const(6, "out_bitwidth")],
                   qonnx=True, rounding_mode="FLOOR")
        a = b.node("MatMul", [a, b.quant(b.const(w3, "w"), 0.25, 0, 4, narrow=True)])
        a = b.node("Add", [a, b.quant(b.const(b3, "b"), 2 ** -6, 0, 16)])
        return b.quant(a, 0.125, 0, 8)

    return build, reference, [4, 16], {"domain": "qonnx.custom_op.general", "qonnx_opset": 1}


def cnn(rng) -> Tuple[Callable, Callable, List[int], Dict]:
    """2x8x8 -> conv 4 -> pool -> conv 6 -> global average -> Trunc (QONNX opset 2) -> dense 3;
    an asymmetric (zero point) input quantizer, per-channel weight scales, FINN's domain name."""
    w1, b1 = rng.normal(0, 0.4, (4, 2, 3, 3)).astype(F32), rng.normal(0, 0.5, 4).astype(F32)
    w2 = rng.normal(0, 0.3, (6, 4, 3, 3)).astype(F32)
    w3, b3 = rng.normal(0, 0.5, (3, 6)).astype(F32), rng.normal(0, 0.5, 3).astype(F32)
    s1, s2 = pow2(rng, (4, 1, 1, 1), 2, 4), pow2(rng, (6, 1, 1, 1), 2, 4)
    no_bias = np.zeros(6, F32)

    def reference(x):
        a = quant(x, F32(0.125), F32(3), 6, signed=False)
        a = conv2d(a, quant(w1, s1, F32(0), 4, narrow=True), quant(b1, F32(2 ** -7), F32(0), 16), 1)
        a = max_pool2(quant(relu(a), F32(0.25), F32(0), 4, signed=False))
        a = conv2d(a, quant(w2, s2, F32(0), 4, narrow=True), no_bias, 1)
        a = quant(relu(a), F32(0.5), F32(0), 4, signed=False)
        a = a.mean(axis=(2, 3), keepdims=True, dtype=F32)
        a = trunc(a, F32(2 ** -5), F32(0), 8, 4, version=2, out_scale=F32(0.25), signed=False)
        a = a.reshape(a.shape[0], -1)
        return a @ quant(w3, F32(0.125), F32(0), 4, narrow=True).T + quant(b3, F32(2 ** -4),
                                                                          F32(0), 16)

    def build(b: Builder, x: str) -> str:
        a = b.quant(x, 0.125, 3, 6, signed=False)
        w = b.quant(b.const(w1, "w"), s1, 0, 4, narrow=True)
        a = b.node("Conv", [a, w, b.quant(b.const(b1, "b"), 2 ** -7, 0, 16)], pads=[1, 1, 1, 1])
        a = b.quant(b.node("Relu", [a]), 0.25, 0, 4, signed=False)
        a = b.node("MaxPool", [a], kernel_shape=[2, 2], strides=[2, 2])
        a = b.node("Conv", [a, b.quant(b.const(w2, "w"), s2, 0, 4, narrow=True)], pads=[1, 1, 1, 1])
        a = b.quant(b.node("Relu", [a]), 0.5, 0, 4, signed=False)
        a = b.node("GlobalAveragePool", [a])
        a = b.node("Trunc", [a, b.const(2 ** -5, "scale"), b.const(0, "zeropt"),
                             b.const(8, "in_bitwidth"), b.const(0.25, "out_scale"),
                             b.const(4, "out_bitwidth")],
                   qonnx=True, rounding_mode="FLOOR", signed=0, narrow=0)
        a = b.node("Flatten", [a])
        w = b.quant(b.const(w3, "w"), 0.125, 0, 4, narrow=True)
        return b.node("Gemm", [a, w, b.quant(b.const(b3, "b"), 2 ** -4, 0, 16)], transB=1)

    return build, reference, [2, 2, 8, 8], {"domain": "finn.custom_op.general", "qonnx_opset": 2}


def jet_mlp4(rng) -> Tuple[Callable, Callable, List[int], Dict]:
    """hls4ml's jet tagger at 4 bits, batch 1, the form kiln's HLS flow maps exactly: 16 -> 32 ->
    16 -> 5, per-channel and binary weights, 16-bit biases, a HALF_UP and a narrow quantizer."""
    w1, b1 = rng.normal(0, 0.4, (16, 32)).astype(F32), rng.normal(0, 0.5, 32).astype(F32)
    w2, b2 = rng.normal(0, 1, (16, 32)).astype(F32), rng.normal(0, 0.5, 16).astype(F32)
    w3, b3 = rng.normal(0, 1, (16, 5)).astype(F32), rng.normal(0, 0.5, 5).astype(F32)
    s1 = pow2(rng, (1, 32), 2, 4)

    def reference(x):
        a = quant(x, F32(0.25), F32(0), 4)
        a = a @ quant(w1, s1, F32(0), 4, narrow=True) + quant(b1, F32(2 ** -6), F32(0), 16)
        a = quant(relu(a), F32(0.5), F32(0), 4, signed=False, mode="HALF_UP")
        a = a @ bipolar_quant(w2, F32(0.125)).T + quant(b2, F32(2 ** -4), F32(0), 16)
        a = quant(relu(a), F32(2 ** -3), F32(0), 6, signed=False)
        a = a @ quant(w3, F32(0.25), F32(0), 4, narrow=True) + quant(b3, F32(2 ** -6), F32(0), 16)
        return quant(a, F32(0.125), F32(0), 8, narrow=True)

    def build(b: Builder, x: str) -> str:
        a = b.quant(x, 0.25, 0, 4)
        a = b.node("MatMul", [a, b.quant(b.const(w1, "w"), s1, 0, 4, narrow=True)])
        a = b.node("Add", [a, b.quant(b.const(b1, "b"), 2 ** -6, 0, 16)])
        a = b.quant(b.node("Relu", [a]), 0.5, 0, 4, signed=False, mode="HALF_UP")
        wq = b.node("BipolarQuant", [b.const(w2, "w"), b.const(0.125, "scale")], qonnx=True)
        a = b.node("Gemm", [a, wq, b.quant(b.const(b2, "b"), 2 ** -4, 0, 16)], transB=1)
        a = b.quant(b.node("Relu", [a]), 2 ** -3, 0, 6, signed=False)
        a = b.node("MatMul", [a, b.quant(b.const(w3, "w"), 0.25, 0, 4, narrow=True)])
        a = b.node("Add", [a, b.quant(b.const(b3, "b"), 2 ** -6, 0, 16)])
        return b.quant(a, 0.125, 0, 8, narrow=True)

    return build, reference, [1, 16], {"domain": "qonnx.custom_op.general", "qonnx_opset": 1}


def cnn4_hls(rng) -> Tuple[Callable, Callable, List[int], Dict]:
    """1x8x8 -> conv 4 -> pool -> conv 4 -> dense 3 at 4 bits, batch 1: an input quantizer with a
    zero point (a clamp), per-channel weight scales, FINN's domain name."""
    w1, b1 = rng.normal(0, 0.4, (4, 1, 3, 3)).astype(F32), rng.normal(0, 0.5, 4).astype(F32)
    w2, b2 = rng.normal(0, 0.3, (4, 4, 3, 3)).astype(F32), rng.normal(0, 0.5, 4).astype(F32)
    w3, b3 = rng.normal(0, 0.5, (3, 64)).astype(F32), rng.normal(0, 0.5, 3).astype(F32)
    s1, s2 = pow2(rng, (4, 1, 1, 1), 2, 4), pow2(rng, (4, 1, 1, 1), 2, 4)

    def reference(x):
        a = quant(x, F32(0.125), F32(3), 6, signed=False)
        a = conv2d(a, quant(w1, s1, F32(0), 4, narrow=True), quant(b1, F32(2 ** -7), F32(0), 16), 1)
        a = max_pool2(quant(relu(a), F32(0.25), F32(0), 4, signed=False))
        a = conv2d(a, quant(w2, s2, F32(0), 4, narrow=True), quant(b2, F32(2 ** -7), F32(0), 16), 1)
        a = quant(relu(a), F32(0.5), F32(0), 4, signed=False).reshape(1, -1)
        a = a @ quant(w3, F32(0.125), F32(0), 4, narrow=True).T + quant(b3, F32(2 ** -4), F32(0), 16)
        return quant(a, F32(0.25), F32(0), 8)

    def build(b: Builder, x: str) -> str:
        a = b.quant(x, 0.125, 3, 6, signed=False)
        w = b.quant(b.const(w1, "w"), s1, 0, 4, narrow=True)
        a = b.node("Conv", [a, w, b.quant(b.const(b1, "b"), 2 ** -7, 0, 16)], pads=[1, 1, 1, 1])
        a = b.quant(b.node("Relu", [a]), 0.25, 0, 4, signed=False)
        a = b.node("MaxPool", [a], kernel_shape=[2, 2], strides=[2, 2])
        w = b.quant(b.const(w2, "w"), s2, 0, 4, narrow=True)
        a = b.node("Conv", [a, w, b.quant(b.const(b2, "b"), 2 ** -7, 0, 16)], pads=[1, 1, 1, 1])
        a = b.quant(b.node("Relu", [a]), 0.5, 0, 4, signed=False)
        a = b.node("Flatten", [a])
        w = b.quant(b.const(w3, "w"), 0.125, 0, 4, narrow=True)
        a = b.node("Gemm", [a, w, b.quant(b.const(b3, "b"), 2 ** -4, 0, 16)], transB=1)
        return b.quant(a, 0.25, 0, 8)

    return build, reference, [1, 1, 8, 8], {"domain": "finn.custom_op.general", "qonnx_opset": 1}


def bnn_mlp(rng) -> Tuple[Callable, Callable, List[int], Dict]:
    """A binarized MLP (FINN's BNN form), batch 1: 16 -> 32 -> 24 -> 5, binary weights and binary
    activations (BipolarQuant of computed tensors, scales 1 and 0.5, and a signed 1-bit Quant),
    an 8-bit input and a 4-bit last layer."""
    w1, b1 = rng.normal(0, 1, (32, 16)).astype(F32), rng.normal(0, 0.5, 32).astype(F32)
    w2, b2 = rng.normal(0, 1, (24, 32)).astype(F32), rng.normal(0, 0.5, 24).astype(F32)
    w3, b3 = rng.normal(0, 1, (24, 5)).astype(F32), rng.normal(0, 0.5, 5).astype(F32)

    def reference(x):
        a = quant(x, F32(2 ** -4), F32(0), 8)
        a = a @ bipolar_quant(w1, F32(1)).T + quant(b1, F32(2 ** -4), F32(0), 16)
        a = bipolar_quant(a, F32(1))
        a = a @ bipolar_quant(w2, F32(0.5)).T + quant(b2, F32(2 ** -4), F32(0), 16)
        a = quant(a, F32(0.5), F32(0), 1)  # signed 1-bit: bipolar
        a = a @ quant(w3, F32(0.25), F32(0), 4, narrow=True) + quant(b3, F32(2 ** -6), F32(0), 16)
        return quant(a, F32(0.125), F32(0), 8)

    def build(b: Builder, x: str) -> str:
        a = b.quant(x, 2 ** -4, 0, 8)
        wq = b.node("BipolarQuant", [b.const(w1, "w"), b.const(1.0, "scale")], qonnx=True)
        a = b.node("Gemm", [a, wq, b.quant(b.const(b1, "b"), 2 ** -4, 0, 16)], transB=1)
        a = b.node("BipolarQuant", [a, b.const(1.0, "scale")], qonnx=True)
        wq = b.node("BipolarQuant", [b.const(w2, "w"), b.const(0.5, "scale")], qonnx=True)
        a = b.node("Gemm", [a, wq, b.quant(b.const(b2, "b"), 2 ** -4, 0, 16)], transB=1)
        a = b.quant(a, 0.5, 0, 1)
        a = b.node("MatMul", [a, b.quant(b.const(w3, "w"), 0.25, 0, 4, narrow=True)])
        a = b.node("Add", [a, b.quant(b.const(b3, "b"), 2 ** -6, 0, 16)])
        return b.quant(a, 0.125, 0, 8)

    return build, reference, [1, 16], {"domain": "qonnx.custom_op.general", "qonnx_opset": 1}


def avg_pool2(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).mean(axis=(3, 5)).astype(F32)


def trunc_cnn(rng) -> Tuple[Callable, Callable, List[int], Dict]:
    """1x8x8 -> conv 4 -> Brevitas's truncating average pool (AveragePool, Mul by the window size,
    Trunc of QONNX opset 2 to 4 bits) -> dense 3, batch 1."""
    w1, b1 = rng.normal(0, 0.4, (4, 1, 3, 3)).astype(F32), rng.normal(0, 0.5, 4).astype(F32)
    w2, b2 = rng.normal(0, 0.5, (3, 64)).astype(F32), rng.normal(0, 0.5, 3).astype(F32)

    def reference(x):
        a = quant(x, F32(2 ** -4), F32(0), 8)
        a = conv2d(a, quant(w1, F32(0.125), F32(0), 4, narrow=True),
                   quant(b1, F32(2 ** -7), F32(0), 16), 1)
        a = quant(relu(a), F32(0.25), F32(0), 4, signed=False)
        a = avg_pool2(a) * F32(4)
        a = trunc(a, F32(0.25), F32(0), 6, 4, version=2, out_scale=F32(1.0), signed=False)
        a = a.reshape(1, -1)
        a = a @ quant(w2, F32(0.125), F32(0), 4, narrow=True).T + quant(b2, F32(2 ** -4), F32(0), 16)
        return quant(a, F32(0.25), F32(0), 8)

    def build(b: Builder, x: str) -> str:
        a = b.quant(x, 2 ** -4, 0, 8)
        w = b.quant(b.const(w1, "w"), 0.125, 0, 4, narrow=True)
        a = b.node("Conv", [a, w, b.quant(b.const(b1, "b"), 2 ** -7, 0, 16)], pads=[1, 1, 1, 1])
        a = b.quant(b.node("Relu", [a]), 0.25, 0, 4, signed=False)
        a = b.node("AveragePool", [a], kernel_shape=[2, 2], strides=[2, 2])
        a = b.node("Mul", [a, b.const(4.0, "window")])
        a = b.node("Trunc", [a, b.const(0.25, "scale"), b.const(0, "zeropt"),
                             b.const(6, "in_bitwidth"), b.const(1.0, "out_scale"),
                             b.const(4, "out_bitwidth")],
                   qonnx=True, rounding_mode="FLOOR", signed=0, narrow=0)
        a = b.node("Flatten", [a])
        w = b.quant(b.const(w2, "w"), 0.125, 0, 4, narrow=True)
        a = b.node("Gemm", [a, w, b.quant(b.const(b2, "b"), 2 ** -4, 0, 16)], transB=1)
        return b.quant(a, 0.25, 0, 8)

    return build, reference, [1, 1, 8, 8], {"domain": "qonnx.custom_op.general", "qonnx_opset": 2}


MODELS = {"mlp4": mlp, "cnn4": cnn, "jet_mlp4": jet_mlp4, "cnn4_hls": cnn4_hls,
          "bnn_mlp": bnn_mlp, "trunc_cnn": trunc_cnn}


def write_tensor(path: str, array: np.ndarray, name: str) -> None:
    with open(path, "wb") as f:
        f.write(onnx.numpy_helper.from_array(np.ascontiguousarray(array, dtype=F32),
                                             name).SerializeToString())


def generate(name: str, out_root: str) -> None:
    build, reference, in_shape, meta = MODELS[name](rng_for(name))
    b = Builder(meta["domain"])
    y = build(b, "input")
    out_shape = list(reference(np.zeros(in_shape, F32)).shape)
    graph = oh.make_graph(b.nodes, name, [oh.make_tensor_value_info("input", 1, in_shape)],
                          [oh.make_tensor_value_info(y, 1, out_shape)], b.inits)
    model = oh.make_model(graph, producer_name="kiln scripts/gen_qonnx.py",
                          opset_imports=[oh.make_opsetid("", 13),
                                         oh.make_opsetid(meta["domain"], meta["qonnx_opset"])])
    model.ir_version = 8
    onnx.checker.check_model(model)
    out_dir = os.path.join(out_root, name)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    onnx.save(model, os.path.join(out_dir, "model.onnx"))
    rng = np.random.default_rng(1000 + len(name))
    for k in range(DATA_SETS):
        x = rng.normal(0, 1.5, in_shape).astype(F32)
        d = os.path.join(out_dir, f"test_data_set_{k}")
        os.makedirs(d)
        write_tensor(os.path.join(d, "input_0.pb"), x, "input")
        write_tensor(os.path.join(d, "output_0.pb"), reference(x), y)
    print(f"{name}: {len(b.nodes)} nodes -> {out_dir}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--only", choices=sorted(MODELS), help="generate this model only")
    args = ap.parse_args()
    for name in [args.only] if args.only else MODELS:
        generate(name, args.out)


if __name__ == "__main__":
    main()
