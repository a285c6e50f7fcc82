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
    gen_zoo._spec("sequence_linear", SequenceLinear, [("input", [1, 10, 8])],
                  "Linear over the 10 steps of a sequence"),
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
