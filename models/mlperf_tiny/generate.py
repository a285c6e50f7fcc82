#!/usr/bin/python3
"""Generates the four MLPerf Tiny reference models (models/mlperf_tiny/README.md) as ONNX.

The architectures are those of the Keras training scripts of github.com/mlcommons/tiny
(benchmark/training/...), rebuilt in PyTorch with random weights from a fixed per-model seed and
exported to ONNX (opset 13, as kiln's seed zoo) with BatchNormalization kept as nodes. Each model
directory holds the ONNX backend-test layout kiln's zoo uses:

    models/mlperf_tiny/<name>/model.onnx
    models/mlperf_tiny/<name>/test_data_set_<k>/input_0.pb, output_0.pb      (k = 0, 1)

Run it with Debian's Python (/usr/bin/python3: python3-torch and python3-onnx):

    /usr/bin/python3 models/mlperf_tiny/generate.py                 # all four, in place
    /usr/bin/python3 models/mlperf_tiny/generate.py --only dscnn --out /tmp/tiny
    /usr/bin/python3 models/mlperf_tiny/generate.py --list

The output is deterministic: the same command writes byte-identical files.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import os
import shutil
import sys
import tempfile
import time
import warnings
import zlib
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torch.nn as nn
import torch.nn.functional as F

OPSET = 13
NUM_DATA_SETS = 2
SIZE_LIMIT_BYTES = 2 * 1000 * 1000  # every model.onnx here stays under 2 MB (they are committed)

HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------------------------------------
# Seeds, from the model name (CRC-32 is stable across Python versions, unlike hash()).


def weight_seed(name: str) -> int:
    return zlib.crc32(f"kiln-mlperf-tiny/{name}/weights".encode())


def input_seed(name: str, data_set: int) -> int:
    return zlib.crc32(f"kiln-mlperf-tiny/{name}/input/{data_set}".encode())


# ---------------------------------------------------------------------------------------------
# Keras "same" padding. Keras pads (total // 2) before and the rest after, so a stride-2 3x3
# convolution of an even-sized map pads 0 above/left and 1 below/right. PyTorch's Conv2d pads
# symmetrically; an asymmetric case is built as ZeroPad2d + Conv2d(padding=0) and the exported
# Pad is merged into the Conv's `pads` attribute afterwards (merge_pads_into_convs), which is the
# ONNX form of the same computation.


def same_pads(size: int, kernel: int, stride: int) -> Tuple[int, int]:
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


class SameConv2d(nn.Module):
    """Conv2d with Keras's padding='same' for an input of spatial size `hw` (bias on, as Keras)."""

    def __init__(self, cin: int, cout: int, kernel, stride, hw: Tuple[int, int], groups: int = 1):
        super().__init__()
        kh, kw = (kernel, kernel) if isinstance(kernel, int) else kernel
        sh, sw = (stride, stride) if isinstance(stride, int) else stride
        (top, bottom), (left, right) = same_pads(hw[0], kh, sh), same_pads(hw[1], kw, sw)
        self.out_hw = (-(-hw[0] // sh), -(-hw[1] // sw))
        if top == bottom and left == right:
            self.pad = nn.Identity()
            padding = (top, left)
        else:
            self.pad = nn.ZeroPad2d((left, right, top, bottom))
            padding = (0, 0)
        self.conv = nn.Conv2d(cin, cout, (kh, kw), stride=(sh, sw), padding=padding, groups=groups)

    def forward(self, x):
        return self.conv(self.pad(x))


KERAS_BN_EPS = 1e-3  # Keras BatchNormalization's default epsilon


def conv_bn_relu(cin, cout, kernel, stride, hw, groups=1) -> Tuple[nn.Sequential, Tuple[int, int]]:
    conv = SameConv2d(cin, cout, kernel, stride, hw, groups)
    return nn.Sequential(conv, nn.BatchNorm2d(cout, eps=KERAS_BN_EPS), nn.ReLU()), conv.out_hw


# ---------------------------------------------------------------------------------------------
# ResNet-8 (image_classification/keras_model.py, resnet_v1_eembc with 16 filters).


class ResidualStack(nn.Module):
    """conv3x3(stride) BN ReLU conv3x3 BN, plus the identity or a 1x1 conv(stride) shortcut, ReLU."""

    def __init__(self, cin: int, cout: int, stride: int, hw: Tuple[int, int]):
        super().__init__()
        self.conv1, hw1 = conv_bn_relu(cin, cout, 3, stride, hw)
        conv2 = SameConv2d(cout, cout, 3, 1, hw1)
        self.conv2 = nn.Sequential(conv2, nn.BatchNorm2d(cout, eps=KERAS_BN_EPS))
        self.shortcut = (SameConv2d(cin, cout, 1, stride, hw)
                         if stride != 1 or cin != cout else nn.Identity())
        self.relu = nn.ReLU()
        self.out_hw = conv2.out_hw

    def forward(self, x):
        return self.relu(self.shortcut(x) + self.conv2(self.conv1(x)))


class ResNet8(nn.Module):
    def __init__(self, filters: int = 16, classes: int = 10):
        super().__init__()
        hw = (32, 32)
        self.stem, hw = conv_bn_relu(3, filters, 3, 1, hw)
        self.stack1 = ResidualStack(filters, filters, 1, hw)
        self.stack2 = ResidualStack(filters, 2 * filters, 2, self.stack1.out_hw)
        self.stack3 = ResidualStack(2 * filters, 4 * filters, 2, self.stack2.out_hw)
        # AveragePooling2D(pool_size = the 8x8 map) then Flatten: a global average pool.
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(4 * filters, classes)

    def forward(self, x):
        x = self.stack3(self.stack2(self.stack1(self.stem(x))))
        return torch.softmax(self.fc(self.flatten(self.pool(x))), dim=-1)


class ResNet8AvgPool(ResNet8):
    """ResNet-8 with its head written the usual PyTorch way, F.avg_pool2d(x, 8): the exporter
    writes a Pad of zeros and an AveragePool over the whole 8x8 map (the same values)."""

    def forward(self, x):
        x = self.stack3(self.stack2(self.stack1(self.stem(x))))
        return torch.softmax(self.fc(self.flatten(F.avg_pool2d(x, 8))), dim=-1)


# ---------------------------------------------------------------------------------------------
# DS-CNN (keyword_spotting/keras_model.py, model_architecture 'ds_cnn'), input 49x10x1 MFCC.


class DSCNN(nn.Module):
    def __init__(self, filters: int = 64, classes: int = 12, hw: Tuple[int, int] = (49, 10)):
        super().__init__()
        layers, hw1 = conv_bn_relu(1, filters, (10, 4), 2, hw)
        blocks: List[nn.Module] = [*layers, nn.Dropout(0.2)]
        for _ in range(4):
            dw, _ = conv_bn_relu(filters, filters, 3, 1, hw1, groups=filters)
            pw, _ = conv_bn_relu(filters, filters, 1, 1, hw1)
            blocks += [*dw, *pw]
        blocks.append(nn.Dropout(0.4))
        self.features = nn.Sequential(*blocks)
        # AveragePooling2D(pool_size=(int(49 / 2), int(10 / 2))) = (24, 5) on the 25x5 map, valid,
        # stride = pool size: one output that averages rows 0..23 (the last row is not read).
        # count_include_pad=False changes nothing without padding, but keeps the exporter from
        # writing a zero Pad before the AveragePool.
        self.pool = nn.AvgPool2d((hw[0] // 2, hw[1] // 2), count_include_pad=False)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(filters, classes)

    def forward(self, x):
        return torch.softmax(self.fc(self.flatten(self.pool(self.features(x)))), dim=-1)


# ---------------------------------------------------------------------------------------------
# FC autoencoder (anomaly_detection/keras_model.py; 640 = n_mels 128 x frames 5, baseline.yaml).


def fc_autoencoder(inputs: int = 640) -> nn.Module:
    widths = [inputs, 128, 128, 128, 128, 8, 128, 128, 128, 128]
    layers: List[nn.Module] = []
    for a, b in zip(widths, widths[1:]):
        layers += [nn.Linear(a, b), nn.BatchNorm1d(b, eps=KERAS_BN_EPS), nn.ReLU()]
    layers.append(nn.Linear(128, inputs))
    return nn.Sequential(*layers)


# ---------------------------------------------------------------------------------------------
# MobileNetV1, width 0.25, 96x96x3 (visual_wake_words/vww_model.py).


class MobileNetV1(nn.Module):
    def __init__(self, classes: int = 2, side: int = 96):
        super().__init__()
        hw = (side, side)
        stem, hw = conv_bn_relu(3, 8, 3, 2, hw)
        layers: List[nn.Module] = [*stem]
        channels = 8
        # (depthwise stride, pointwise output channels) of the 13 depthwise-separable layers.
        plan = [(1, 16), (2, 32), (1, 32), (2, 64), (1, 64), (2, 128)] + [(1, 128)] * 5 + \
               [(2, 256), (1, 256)]
        for stride, cout in plan:
            dw, hw = conv_bn_relu(channels, channels, 3, stride, hw, groups=channels)
            pw, hw = conv_bn_relu(channels, cout, 1, 1, hw)
            layers += [*dw, *pw]
            channels = cout
        self.features = nn.Sequential(*layers)
        # AveragePooling2D(pool_size = the 3x3 map) then Flatten: a global average pool.
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(channels, classes)

    def forward(self, x):
        return torch.softmax(self.fc(self.flatten(self.pool(self.features(x)))), dim=-1)


# ---------------------------------------------------------------------------------------------
# The models.


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    name: str
    build: Callable[[], nn.Module]
    input_shape: Tuple[int, ...]
    description: str
    keeps_pad: bool = False  # a Pad the export writes for a pooling stays in the model


MODELS: List[ModelSpec] = [
    ModelSpec("resnet8", ResNet8, (1, 3, 32, 32), "MLPerf Tiny image classification: ResNet-8, CIFAR-10"),
    ModelSpec("dscnn", DSCNN, (1, 1, 49, 10), "MLPerf Tiny keyword spotting: DS-CNN, 49x10 MFCC, 12 classes"),
    ModelSpec("fc_autoencoder", fc_autoencoder, (1, 640),
              "MLPerf Tiny anomaly detection: FC autoencoder 640-128x4-8-128x4-640"),
    ModelSpec("mobilenet_v1", MobileNetV1, (1, 3, 96, 96),
              "MLPerf Tiny visual wake words: MobileNetV1 width 0.25, 96x96, 2 classes"),
    ModelSpec("resnet8_avgpool", ResNet8AvgPool, (1, 3, 32, 32),
              "ResNet-8 with its head as F.avg_pool2d(x, 8): a Pad of zeros, a whole-map AveragePool",
              keeps_pad=True),
]
MODELS_BY_NAME: Dict[str, ModelSpec] = {m.name: m for m in MODELS}


def randomize_weights(module: nn.Module) -> None:
    """He-uniform weights (the reference uses he_normal) and U(-0.2, 0.2) biases, global RNG."""
    for m in module.modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            fan_in = m.weight[0].numel()
            bound = (6.0 / fan_in) ** 0.5
            with torch.no_grad():
                m.weight.uniform_(-bound, bound)
                if m.bias is not None:
                    m.bias.uniform_(-0.2, 0.2)


def randomize_batchnorm(module: nn.Module, gen: torch.Generator) -> None:
    """Non-trivial running statistics and affine parameters, as kiln's seed zoo draws them."""
    for m in module.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            c = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(c, generator=gen) * 0.5)
                m.running_var.copy_(torch.rand(c, generator=gen) * 1.5 + 0.5)  # [0.5, 2)
                sign = torch.where(torch.rand(c, generator=gen) < 0.2, -1.0, 1.0)
                m.weight.copy_(sign * (torch.rand(c, generator=gen) + 0.5))  # |w| in [0.5, 1.5)
                m.bias.copy_(torch.randn(c, generator=gen) * 0.2)


def build_model(spec: ModelSpec) -> nn.Module:
    torch.manual_seed(weight_seed(spec.name))
    model = spec.build()
    torch.manual_seed(weight_seed(spec.name))
    randomize_weights(model)
    randomize_batchnorm(model, torch.Generator().manual_seed(weight_seed(spec.name) + 1))
    return model.float().eval()


def make_input(spec: ModelSpec, data_set: int) -> torch.Tensor:
    gen = torch.Generator().manual_seed(input_seed(spec.name, data_set))
    return torch.randn(spec.input_shape, generator=gen, dtype=torch.float32)


def reference_output(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """PyTorch's output in float64, rounded to float32 (as the seed zoo; docs/zoo.md says why)."""
    with torch.no_grad():
        out = model.double()(x.double()).float()
    model.float()
    return out


def count_params(model: nn.Module) -> int:
    """Trainable parameters plus BatchNorm running mean/var (Keras's total: BN counts 4)."""
    n = sum(p.numel() for p in model.parameters())
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            n += m.running_mean.numel() + m.running_var.numel()
    return n


def count_macs(model: nn.Module, x: torch.Tensor) -> int:
    """Multiply-accumulates of the Conv2d and Linear layers."""
    total = 0

    def hook(m, _inp, out):
        nonlocal total
        if isinstance(m, nn.Conv2d):
            total += out.numel() * (m.in_channels // m.groups) * m.kernel_size[0] * m.kernel_size[1]
        else:
            total += out.numel() * m.in_features

    handles = [m.register_forward_hook(hook) for m in model.modules()
               if isinstance(m, (nn.Conv2d, nn.Linear))]
    with torch.no_grad():
        model(x)
    for h in handles:
        h.remove()
    return total


# ---------------------------------------------------------------------------------------------
# Export.


def zero_pads_in_order(model: nn.Module, example: torch.Tensor) -> List[Tuple[int, int, int, int]]:
    """The (left, right, top, bottom) of every ZeroPad2d, in the order a forward pass runs them."""
    order: List[Tuple[int, int, int, int]] = []
    handles = [m.register_forward_hook(lambda m, _i, _o: order.append(tuple(m.padding)))
               for m in model.modules() if isinstance(m, nn.ZeroPad2d)]
    with torch.no_grad():
        model(example)
    for h in handles:
        h.remove()
    return order


def merge_pads_into_convs(graph: onnx.GraphProto, paddings: Sequence[Tuple[int, int, int, int]]) -> None:
    """Merges the exported Pads into the Conv that reads each, then drops the dead nodes.

    torch 1.13 exports ZeroPad2d as a Pad whose `pads` come from a small subgraph (ConstantOfShape,
    Concat, Reshape, Slice with step -1, Transpose, Cast) that its constant folding leaves alone.
    The Pads appear in the graph in the order the forward pass ran the ZeroPad2d modules, so the
    i-th Pad node gets `paddings[i]`; it must be read by exactly one Conv without auto_pad, whose
    pads become [top, left, bottom, right] (plus its own). kiln's check against PyTorch's outputs
    would catch a wrong assignment.
    """
    readers: Dict[str, List[onnx.NodeProto]] = {}
    for node in graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node)
    # The Pads of ZeroPad2d are read by a Conv; others (F.avg_pool2d's) stay.
    pad_nodes = [n for n in graph.node if n.op_type == "Pad" and
                 any(r.op_type == "Conv" for r in readers.get(n.output[0], []))]
    if len(pad_nodes) != len(paddings):
        raise SystemExit(f"generate.py: {len(pad_nodes)} Pad nodes for {len(paddings)} ZeroPad2d")
    for node, (left, right, top, bottom) in zip(pad_nodes, paddings):
        users = readers.get(node.output[0], [])
        if len(users) != 1 or users[0].op_type != "Conv" or \
                any(a.name == "auto_pad" for a in users[0].attribute):
            raise SystemExit(f"generate.py: Pad {node.name} is not read by exactly one Conv")
        conv = users[0]
        old = next((list(a.ints) for a in conv.attribute if a.name == "pads"), [0, 0, 0, 0])
        new = [o + p for o, p in zip(old, [top, left, bottom, right])]
        kept = [a for a in conv.attribute if a.name != "pads"]
        del conv.attribute[:]
        conv.attribute.extend(kept + [onnx.helper.make_attribute("pads", new)])
        conv.input[0] = node.input[0]
    # Drop the merged Pads and every node or initializer that no longer reaches an output.
    merged = {id(n) for n in pad_nodes}
    live = {o.name for o in graph.output}
    nodes = []
    for node in reversed(graph.node):
        if id(node) not in merged and any(o in live for o in node.output):
            nodes.append(node)
            live.update(i for i in node.input if i)
    del graph.node[:]
    graph.node.extend(reversed(nodes))
    inits = [t for t in graph.initializer if t.name in live]
    del graph.initializer[:]
    graph.initializer.extend(inits)


def export_onnx(spec: ModelSpec, model: nn.Module, example: torch.Tensor) -> bytes:
    """Serialized ONNX, opset 13, BatchNormalization kept as nodes.

    training=PRESERVE on the eval() module exports inference semantics but skips the exporter's
    eval-mode Conv+BN fusion (as scripts/gen_zoo.py); Dropout still disappears.
    """
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*constant folding be turned off.*")
        # ZeroPad2d's pads subgraph (a Slice with step -1); merge_pads_into_convs removes it.
        warnings.filterwarnings("ignore", message=".*Only steps=1 can be constant folded.*")
        torch.onnx.export(
            model, (example,), buf,
            export_params=True,
            opset_version=OPSET,
            do_constant_folding=True,
            training=torch.onnx.TrainingMode.PRESERVE,
            input_names=["input"],
            output_names=["output"],
        )
    proto = onnx.load_from_string(buf.getvalue())
    merge_pads_into_convs(proto.graph, zero_pads_in_order(model, example))
    proto.producer_name = "kiln models/mlperf_tiny/generate.py (torch " + \
        torch.__version__.split("+")[0] + ")"
    proto.doc_string = f"kiln mlperf_tiny: {spec.name}: {spec.description}"
    onnx.checker.check_model(proto)
    ops = {n.op_type for n in proto.graph.node}
    bn_modules = sum(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in model.modules())
    bn_nodes = sum(n.op_type == "BatchNormalization" for n in proto.graph.node)
    if bn_nodes != bn_modules:
        raise SystemExit(f"generate.py: {spec.name}: {bn_modules} BatchNorm modules but {bn_nodes} "
                         "BatchNormalization nodes in the export (folded?)")
    unexpected = {"Dropout", "Shape", "Gather"} | (set() if spec.keeps_pad else {"Pad"})
    if ops & unexpected:
        raise SystemExit(f"generate.py: {spec.name}: unexpected ops in the export: "
                         f"{sorted(ops & unexpected)}")
    return proto.SerializeToString()


def write_tensor(path: str, array: np.ndarray, name: str) -> None:
    tensor = onnx.numpy_helper.from_array(np.ascontiguousarray(array, dtype=np.float32), name)
    with open(path, "wb") as f:
        f.write(tensor.SerializeToString())


def op_counts(onnx_bytes: bytes) -> str:
    counts: Dict[str, int] = {}
    for n in onnx.load_from_string(onnx_bytes).graph.node:
        counts[n.op_type] = counts.get(n.op_type, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))


def generate(spec: ModelSpec, out_root: str) -> Tuple[int, int, int, str, float]:
    """Writes <out_root>/<name>/ atomically; returns (params, MACs, onnx bytes, ops, seconds)."""
    t0 = time.perf_counter()
    model = build_model(spec)
    onnx_bytes = export_onnx(spec, model, make_input(spec, 0))
    os.makedirs(out_root, exist_ok=True)
    final = os.path.join(out_root, spec.name)
    staging = tempfile.mkdtemp(prefix=f".{spec.name}.", dir=out_root)
    try:
        with open(os.path.join(staging, "model.onnx"), "wb") as f:
            f.write(onnx_bytes)
        for k in range(NUM_DATA_SETS):
            x = make_input(spec, k)
            d = os.path.join(staging, f"test_data_set_{k}")
            os.mkdir(d)
            write_tensor(os.path.join(d, "input_0.pb"), x.numpy(), "input")
            write_tensor(os.path.join(d, "output_0.pb"), reference_output(model, x).numpy(), "output")
        os.chmod(staging, 0o755)
        old = None
        if os.path.exists(final):
            old = final + ".old"
            shutil.rmtree(old, ignore_errors=True)
            os.rename(final, old)
        os.rename(staging, final)
        if old:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return (count_params(model), count_macs(model, make_input(spec, 0)), len(onnx_bytes),
            op_counts(onnx_bytes), time.perf_counter() - t0)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=HERE, help="output directory (default: this script's)")
    parser.add_argument("--only", help="comma-separated model names")
    parser.add_argument("--list", action="store_true", help="list the models and exit")
    args = parser.parse_args(argv)

    torch.set_num_threads(1)  # the same reduction order on every machine and run
    specs = MODELS
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in MODELS_BY_NAME]
        if unknown:
            raise SystemExit(f"generate.py: unknown model(s) {', '.join(unknown)}; "
                             f"known: {', '.join(MODELS_BY_NAME)}")
        specs = [MODELS_BY_NAME[n] for n in names]
    if args.list:
        for s in specs:
            m = build_model(s)
            print(f"{s.name:15s} input {'x'.join(map(str, s.input_shape)):11s} "
                  f"params {count_params(m):>8,d}  MACs {count_macs(m, make_input(s, 0)):>11,d}  "
                  f"{s.description}")
        return 0
    too_big = []
    for s in specs:
        params, macs, size, ops, secs = generate(s, args.out)
        print(f"{s.name:15s} params {params:>8,d}  MACs {macs:>11,d}  model.onnx {size:>9,d} B  "
              f"{secs:5.2f} s  ops: {ops}", flush=True)
        if size >= SIZE_LIMIT_BYTES:
            too_big.append(s.name)
    if too_big:
        print(f"generate.py: model.onnx over {SIZE_LIMIT_BYTES:,d} B: {', '.join(too_big)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
