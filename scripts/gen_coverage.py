#!/usr/bin/python3
"""Generates models/coverage/: the models users bring that the seed zoo does not hold.

Each is a small PyTorch network with random weights from a fixed per-model seed, exported to
ONNX (opset 13) with PyTorch's outputs on fixed random inputs, in the layout and with the
machinery of scripts/gen_zoo.py. tests/coverage_test.cpp checks every one against PyTorch in the
golden interpreter and compiles and C-simulates it bit-exact in both IO types (models of ops
without an HLS layer yet, such as the recurrent taggers, are instead refused by compile; see
kNoHlsLayerYet there).

    /usr/bin/python3 scripts/gen_coverage.py            # into models/coverage/
    /usr/bin/python3 scripts/gen_coverage.py --only jet_mlp --out /tmp/cov
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional, Sequence

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_zoo  # noqa: E402  (the zoo's seeds, export and test-data writer)

DEFAULT_OUT = os.path.join(gen_zoo.REPO_ROOT, "models", "coverage")


class JetMlp(nn.Module):
    """hls4ml's jet-tagging MLP: 16 -> 64 -> 32 -> 32 -> 5, ReLU, softmax."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(),
                                  nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 5))

    def forward(self, x):
        return torch.softmax(self.body(x), dim=-1)


class DilatedGroupedCnn(nn.Module):
    """Dilation, grouped (non-depthwise) and dilated depthwise convolutions, a ceil-mode pool."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(2, 8, 3, padding=2, dilation=2)
        self.b = nn.Conv2d(8, 8, 3, padding=1, groups=4)
        self.c = nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=8)
        self.pool = nn.MaxPool2d(2, ceil_mode=True)
        self.d = nn.Conv2d(8, 6, 3, padding=(1, 2), dilation=(1, 2), groups=2)

    def forward(self, x):
        x = torch.relu(self.a(x))
        x = torch.relu(self.b(x))
        x = torch.relu(self.c(x))
        return nn.functional.hardswish(self.d(self.pool(x)))


class Pulse1d(nn.Module):
    """A 1-D pulse CNN: dilated and grouped 1-D convolutions, a ceil-mode average pool."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv1d(3, 8, 5, padding=4, dilation=2)
        self.b = nn.Conv1d(8, 8, 3, padding=3, dilation=3, groups=2)
        self.pool = nn.AvgPool1d(3, stride=2, ceil_mode=True)
        self.fc = nn.Linear(8 * 10, 4)

    def forward(self, x):
        x = self.pool(torch.relu(self.b(torch.relu(self.a(x)))))
        return self.fc(torch.flatten(x, 1))


class MobileNetV3Block(nn.Module):
    """Expand 1x1, depthwise 3x3, project 1x1 with BatchNorm and HardSwish, a residual, then a
    HardSigmoid-gated classifier head."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.Hardswish())
        self.expand = nn.Sequential(nn.Conv2d(8, 16, 1), nn.BatchNorm2d(16), nn.Hardswish())
        self.dw = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1, groups=16), nn.BatchNorm2d(16),
                                nn.Hardswish())
        self.project = nn.Sequential(nn.Conv2d(16, 8, 1), nn.BatchNorm2d(8))
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        x = self.stem(x)
        x = x + self.project(self.dw(self.expand(x)))
        x = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)
        return nn.functional.hardsigmoid(self.head(x))


class MobileNetV3Se(MobileNetV3Block):
    """MobileNetV3Block's bottleneck with squeeze-and-excitation between the depthwise conv and the
    projection: global average pool, 1x1 conv, ReLU, 1x1 conv, a HardSigmoid gate [N, C, 1, 1]
    multiplying the map (torchvision's SqueezeExcitation); a Linear head on the pooled map."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Conv2d(16, 8, 1)
        self.fc2 = nn.Conv2d(8, 16, 1)

    def forward(self, x):
        x = self.stem(x)
        y = self.dw(self.expand(x))
        s = nn.functional.adaptive_avg_pool2d(y, 1)
        s = nn.functional.hardsigmoid(self.fc2(torch.relu(self.fc1(s))))
        x = x + self.project(y * s)
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


class SpatialGate(nn.Module):
    """Gates between computed tensors: a CBAM-style spatial gate (sigmoid of a 1-channel conv,
    [N, 1, H, W]) multiplying the map, a per-pixel bias added with the gate as first operand, and
    the map subtracted from its per-channel mean (gate - x); then a 1-D squeeze-and-excitation
    ([N, C, L] * [N, C, 1])."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)
        self.gate = nn.Conv2d(6, 1, 3, padding=1)
        self.shift = nn.Conv2d(6, 1, 1)
        self.rows = nn.Conv2d(6, 6, (6, 1))  # [N, 6, 6, 6] -> [N, 6, 1, 6]: a 1-D sequence
        self.seq = nn.Conv1d(6, 8, 3, padding=1)
        self.fc1 = nn.Conv1d(8, 4, 1)
        self.fc2 = nn.Conv1d(4, 8, 1)
        self.head = nn.Linear(8 * 6, 3)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        x = x * torch.sigmoid(self.gate(x))
        x = self.shift(x) + x
        x = nn.functional.adaptive_avg_pool2d(x, 1) - x
        x = torch.relu(self.seq(self.rows(x).squeeze(2)))
        s = nn.functional.adaptive_avg_pool1d(x, 1)
        x = x * torch.sigmoid(self.fc2(torch.relu(self.fc1(s))))
        return self.head(torch.flatten(x, 1))


class SequenceLinear(nn.Module):
    """PyTorch's Linear applied to every step of a sequence (a Dense over rows)."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 12)
        self.b = nn.Linear(12, 3)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


class ScaleShift(nn.Module):
    """Per-channel and scalar constants (input normalization, layer scale) around a conv, and a
    concatenation of six branches."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.register_buffer("scale", torch.tensor([0.5, -1.25, 2.0, 0.75]).view(1, 4, 1, 1))

    def forward(self, x):
        y = torch.relu(self.conv((x - 0.25) * 2.0)) * self.scale + 0.125
        return torch.cat([y, 1.0 - y, y, y * 0.5, y, y], dim=1)


class SmallUNet(nn.Module):
    """A two-level U-Net: conv, pool, conv, nearest and bilinear upsampling, skip Concats."""

    def __init__(self):
        super().__init__()
        self.enc1 = nn.Conv2d(1, 4, 3, padding=1)
        self.enc2 = nn.Conv2d(4, 8, 3, padding=1)
        self.mid = nn.Conv2d(8, 8, 3, padding=1)
        self.dec2 = nn.Conv2d(16, 4, 3, padding=1)
        self.dec1 = nn.Conv2d(8, 2, 3, padding=1)

    def forward(self, x):
        e1 = torch.relu(self.enc1(x))                        # 4 x 12 x 12
        e2 = torch.relu(self.enc2(nn.functional.max_pool2d(e1, 2)))  # 8 x 6 x 6
        m = torch.relu(self.mid(nn.functional.max_pool2d(e2, 2)))    # 8 x 3 x 3
        u2 = nn.functional.interpolate(m, scale_factor=2, mode="nearest")
        d2 = torch.relu(self.dec2(torch.cat([u2, e2], dim=1)))       # 4 x 6 x 6
        u1 = nn.functional.interpolate(d2, scale_factor=2, mode="bilinear", align_corners=False)
        return self.dec1(torch.cat([u1, e1], dim=1))


class ChannelSplitNet(nn.Module):
    """Channel slices and splits: a residual over half the channels (x[:, :4]),
    torch.chunk into a Split, a bilinear 1-D upsampling with align_corners."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 8, 3, padding=1)
        self.b = nn.Conv2d(4, 4, 3, padding=1)
        self.c = nn.Conv1d(4, 4, 3, padding=1)

    def forward(self, x):
        y = torch.relu(self.a(x))                      # 8 x 6 x 6
        left, right = torch.chunk(y, 2, dim=1)        # Split
        z = torch.cat([torch.relu(self.b(left)) + y[:, 4:], right[:, 1:3]], dim=1)  # 6 ch
        s = z[:, :4, 2:3, :].squeeze(2)               # 4 x 6, a 1-D map
        s = nn.functional.interpolate(s, size=11, mode="linear", align_corners=True)
        return torch.cat([self.c(s).flatten(1), z[:, ::2, 1:5:2, :].flatten(1)], dim=1)


class ConvAutoencoder(nn.Module):
    """A convolutional autoencoder: strided convs down, transposed convs up (stride 2 with
    output_padding, kernel 2 stride 2, a depthwise one with dilation)."""

    def __init__(self):
        super().__init__()
        self.e1 = nn.Conv2d(1, 4, 3, stride=2, padding=1)
        self.e2 = nn.Conv2d(4, 8, 3, stride=2, padding=1)
        self.d1 = nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1)
        self.d2 = nn.ConvTranspose2d(4, 4, 3, padding=2, dilation=2, groups=4)
        self.d3 = nn.ConvTranspose2d(4, 1, 2, stride=2)

    def forward(self, x):
        h = torch.relu(self.e2(torch.relu(self.e1(x))))   # 8 x 3 x 3
        h = torch.relu(self.d1(h))                        # 4 x 6 x 6
        return self.d3(torch.relu(self.d2(h)))            # 1 x 12 x 12


class PulseDecoder(nn.Module):
    """1-D transposed convolutions: stride 2 with padding and output_padding, then stride 3."""

    def __init__(self):
        super().__init__()
        self.a = nn.ConvTranspose1d(3, 4, 5, stride=2, padding=2, output_padding=1)
        self.b = nn.ConvTranspose1d(4, 2, 3, stride=3)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def fake_quant(x, k: int, signed: bool = True, zero_point: int = 0):
    """An 8-bit quantizer of scale 2^-k: exported as QuantizeLinear + DequantizeLinear."""
    lo, hi = (-128, 127) if signed else (0, 255)
    return torch.fake_quantize_per_tensor_affine(x, 2.0 ** -k, zero_point, lo, hi)


def quant_weight(w, ks):
    """int8 weights with a power-of-two scale 2^-k per output channel (exported as a constant
    QuantizeLinear + DequantizeLinear pair, which the importer folds to exact values)."""
    scales = torch.tensor([2.0 ** -k for k in ks], dtype=torch.float32)
    return torch.fake_quantize_per_channel_affine(w, scales, torch.zeros(len(ks), dtype=torch.int32),
                                                  0, -128, 127)


def dyadic(p, frac_bits: int = 12):
    """A parameter rounded to a multiple of 2^-frac_bits, as an int32 bias of scale 2^-frac_bits
    (the exporter folds the rounding into the constant)."""
    return torch.round(p * 2.0 ** frac_bits) / 2.0 ** frac_bits


class QdqMlp(nn.Module):
    """int8 QDQ MLP with power-of-two scales: a signed input quantizer, per-channel weight
    scales, an unsigned quantizer after ReLU, one with a zero point (3) that clamps."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 12)
        self.b = nn.Linear(12, 8)
        self.c = nn.Linear(8, 4)

    def forward(self, x):
        x = fake_quant(x, 5)
        w = quant_weight(self.a.weight, [6 + i % 2 for i in range(12)])
        h = torch.relu(nn.functional.linear(x, w, dyadic(self.a.bias)))
        h = fake_quant(h, 4, signed=False)
        h = nn.functional.linear(h, quant_weight(self.b.weight, [7] * 8), dyadic(self.b.bias))
        h = fake_quant(h, 4, signed=False, zero_point=3)
        w = quant_weight(self.c.weight, [6] * 4)
        return fake_quant(nn.functional.linear(h, w, dyadic(self.c.bias)), 4)


class QdqCnn(nn.Module):
    """int8 QDQ CNN with power-of-two scales: conv, ReLU, unsigned quantizer, max pool, conv,
    quantizer, Linear."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(1, 4, 3, padding=1)
        self.b = nn.Conv2d(4, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        x = fake_quant(x, 5)
        w = quant_weight(self.a.weight, [6, 7, 6, 7])
        h = fake_quant(torch.relu(nn.functional.conv2d(x, w, dyadic(self.a.bias), padding=1)), 4, False)
        h = nn.functional.max_pool2d(h, 2)
        w = quant_weight(self.b.weight, [7] * 4)
        h = fake_quant(nn.functional.conv2d(h, w, dyadic(self.b.bias), padding=1), 3)
        w = quant_weight(self.fc.weight, [8] * 3)
        return fake_quant(nn.functional.linear(torch.flatten(h, 1), w, dyadic(self.fc.bias)), 3)


class Tagger(nn.Module):
    """A recurrent layer (nn.GRU or nn.LSTM, 6 -> 16, batch first) over 20 steps, its last step
    classified into 5 classes. PyTorch exports a GRU with linear_before_reset=1."""

    def __init__(self, cell, softmax: bool):
        super().__init__()
        self.rnn = cell(6, 16, batch_first=True)
        self.head = nn.Linear(16, 5)
        self.softmax = softmax

    def forward(self, x):
        y, _ = self.rnn(x)
        logits = self.head(y[:, -1])
        return torch.softmax(logits, dim=-1) if self.softmax else logits


class BiLstm2(nn.Module):
    """A bidirectional 2-layer LSTM (two bidirectional LSTM nodes) tagging each of 12 steps, and
    a bidirectional GRU on its output: both directions' states feed every step's tag."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 8, num_layers=2, bidirectional=True, batch_first=True)
        self.gru = nn.GRU(16, 6, bidirectional=True, batch_first=True)
        self.head = nn.Linear(12, 3)

    def forward(self, x):
        y, _ = self.lstm(x)
        z, _ = self.gru(y)
        return self.head(z)


COVERAGE: List[gen_zoo.ModelSpec] = [
    gen_zoo._spec("jet_mlp", JetMlp, [("input", [1, 16])], "hls4ml's jet-tagging MLP"),
    gen_zoo._spec("dilated_grouped_cnn", DilatedGroupedCnn, [("input", [1, 2, 9, 9])],
                  "dilated, grouped and dilated depthwise 2-D convolutions, ceil-mode MaxPool"),
    gen_zoo._spec("pulse1d", Pulse1d, [("input", [1, 3, 20])],
                  "dilated and grouped 1-D convolutions, ceil-mode AvgPool, Linear"),
    gen_zoo._spec("mobilenetv3_block", MobileNetV3Block, [("input", [1, 3, 8, 8])],
                  "MobileNetV3-style inverted residual with HardSwish and HardSigmoid"),
    gen_zoo._spec("mobilenetv3_se", MobileNetV3Se, [("input", [1, 3, 8, 8])],
                  "MobileNetV3 bottleneck with squeeze-and-excitation (HardSigmoid gate), residual"),
    gen_zoo._spec("spatial_gate", SpatialGate, [("input", [1, 3, 6, 6])],
                  "spatial-attention gate, per-pixel and per-channel Add/Sub, 1-D SE"),
    gen_zoo._spec("sequence_linear", SequenceLinear, [("input", [1, 10, 8])],
                  "Linear over the 10 steps of a sequence"),
    gen_zoo._spec("small_unet", SmallUNet, [("input", [1, 1, 12, 12])],
                  "U-Net: nearest and bilinear upsampling, skip Concats"),
    gen_zoo._spec("channel_split", ChannelSplitNet, [("input", [1, 3, 6, 6])],
                  "channel Slice and Split, strided Slices, linear 1-D Resize with align_corners"),
    gen_zoo._spec("conv_autoencoder", ConvAutoencoder, [("input", [1, 1, 12, 12])],
                  "strided convs down, transposed convs up (output_padding, depthwise, dilation)"),
    gen_zoo._spec("pulse_decoder", PulseDecoder, [("input", [1, 3, 8])],
                  "1-D transposed convolutions, strides 2 and 3"),
    gen_zoo._spec("qdq_mlp", QdqMlp, [("input", [1, 16])],
                  "int8 QDQ MLP, power-of-two scales, a zero point"),
    gen_zoo._spec("qdq_cnn", QdqCnn, [("input", [1, 1, 8, 8])],
                  "int8 QDQ CNN, power-of-two scales, per-channel weight scales"),
    gen_zoo._spec("scale_shift", ScaleShift, [("input", [1, 2, 6, 6])],
                  "scalar and per-channel constants, Concat of six"),
    gen_zoo._spec("gru_tagger", lambda: Tagger(nn.GRU, True), [("input", [1, 20, 6])],
                  "GRU(6, 16) over 20 steps, last step -> Linear(16, 5) -> softmax"),
    gen_zoo._spec("lstm_tagger", lambda: Tagger(nn.LSTM, False), [("input", [1, 20, 6])],
                  "LSTM(6, 16) over 20 steps, last step -> Linear(16, 5)"),
    gen_zoo._spec("bilstm2_tagger", BiLstm2, [("input", [1, 12, 4])],
                  "bidirectional 2-layer LSTM(4, 8), bidirectional GRU(16, 6), Linear per step"),
]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="output directory (models/coverage)")
    parser.add_argument("--only", help="comma-separated model names")
    args = parser.parse_args(argv)
    wanted = set(args.only.split(",")) if args.only else None
    for spec in COVERAGE:
        if wanted is None or spec.name in wanted:
            r = gen_zoo.generate(spec, args.out)
            print(f"{r.name}: {r.params} parameters, {r.onnx_bytes} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
