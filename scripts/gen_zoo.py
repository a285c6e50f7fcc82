#!/usr/bin/python3
"""Generates kiln's seed model zoo (docs/zoo.md, shared/MODELS.md).

Every model is built in PyTorch with random weights from a fixed per-model seed, exported to ONNX
(opset 13) and stored with PyTorch's outputs on fixed random inputs in the ONNX backend-test layout:

    <out>/<name>/model.onnx
    <out>/<name>/test_data_set_<k>/input_<i>.pb, output_0.pb      (k = 0, 1)

Run it with Debian's Python (/usr/bin/python3), which has python3-torch, -torchvision and -onnx:

    /usr/bin/python3 scripts/gen_zoo.py                  # small tier into models/zoo/
    /usr/bin/python3 scripts/gen_zoo.py --tier large     # alexnet, zfnet, vgg16 into models/large/
    /usr/bin/python3 scripts/gen_zoo.py --only lenet5,model8 --out /tmp/zoo
    /usr/bin/python3 scripts/gen_zoo.py --list

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
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torch.nn as nn

OPSET = 13
NUM_DATA_SETS = 2
SMALL_LIMIT_BYTES = 5 * 1000 * 1000  # a "small" model.onnx stays under 5 MB (it is committed)

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SMALL_OUT = os.path.join(REPO_ROOT, "models", "zoo")
DEFAULT_LARGE_OUT = os.path.join(REPO_ROOT, "models", "large")


# ---------------------------------------------------------------------------------------------
# Seeds. Derived from the model name (not its position in the list), so adding a model never
# changes the others. CRC-32 is stable across Python versions, unlike hash().


def weight_seed(name: str) -> int:
    return zlib.crc32(f"kiln-zoo/{name}/weights".encode())


def input_seed(name: str, data_set: int) -> int:
    return zlib.crc32(f"kiln-zoo/{name}/input/{data_set}".encode())


# ---------------------------------------------------------------------------------------------
# Single operators (LeFlow suite) and BraggHLS single layers.


class Mul(nn.Module):
    def forward(self, x, y):
        return x * y


class Thxprlsg(nn.Module):
    """sigmoid(relu(exp(tanh(x))))."""

    def forward(self, x):
        return torch.sigmoid(torch.relu(torch.exp(torch.tanh(x))))


class Softmax(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.softmax(x, dim=self.dim)


class Addmm(nn.Module):
    """a @ b + c; exported as MatMul + Add (torch.addmm would need 2-D c anyway)."""

    def forward(self, a, b, c):
        return torch.matmul(a, b) + c


# ---------------------------------------------------------------------------------------------
# Networks.


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(784, 10)

    def forward(self, x):
        return torch.softmax(self.fc(x), dim=-1)


def lenet5() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(400, 120), nn.ReLU(),
        nn.Linear(120, 84), nn.ReLU(),
        nn.Linear(84, 10),
    )


def zfnet() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, 96, 7, stride=2, padding=1), nn.ReLU(), nn.MaxPool2d(3, 2),
        nn.Conv2d(96, 256, 5, stride=2), nn.ReLU(), nn.MaxPool2d(3, 2),
        nn.Conv2d(256, 384, 3, padding=1), nn.ReLU(),
        nn.Conv2d(384, 384, 3, padding=1), nn.ReLU(),
        nn.Conv2d(384, 256, 3, padding=1), nn.ReLU(), nn.MaxPool2d(3, 2),
        nn.Flatten(),
        nn.Linear(6400, 4096), nn.ReLU(),
        nn.Linear(4096, 4096), nn.ReLU(),
        nn.Linear(4096, 1000),
    )


def alexnet() -> nn.Module:
    import torchvision
    return torchvision.models.alexnet(weights=None)


def vgg16() -> nn.Module:
    import torchvision
    return torchvision.models.vgg16(weights=None)


def conv_bn_lrelu(cin: int, cout: int, k: int) -> List[nn.Module]:
    """Conv (stride 1, "same" padding) -> BatchNorm -> LeakyReLU(0.3)."""
    return [nn.Conv2d(cin, cout, k, padding=k // 2), nn.BatchNorm2d(cout), nn.LeakyReLU(0.3)]


def hls4ml_cnn(n: int) -> nn.Module:
    """model<N>, the hls4ml benchmark CNN (seed 002 Table 1), input 3x16x16."""
    return nn.Sequential(
        *conv_bn_lrelu(3, n, 5), nn.MaxPool2d(2),
        *conv_bn_lrelu(n, 2 * n, 3),
        *conv_bn_lrelu(2 * n, 2 * n, 3), nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * n, 8),
    )


def hls4ml_cnn_weights(n: int) -> int:
    """Seed 002's formula for model<N>'s weight count (BN with 4 parameters per channel)."""
    return 54 * n * n + 356 * n + 8


def superwide() -> nn.Module:
    """The super-wide CNN (seed 002 Table 6), input 3x1024x32."""
    return nn.Sequential(
        *conv_bn_lrelu(3, 32, 3),
        *conv_bn_lrelu(32, 128, 3),
        *[nn.MaxPool2d((4, 2), stride=(4, 2)) for _ in range(4)],
        nn.Flatten(),
        nn.Linear(1024, 8),
    )


class NonLocalBlock(nn.Module):
    """BraggNN's non-local block (MODELS.md), for a C x S x S feature map."""

    def __init__(self, channels: int, hidden: int, side: int):
        super().__init__()
        self.hidden = hidden
        self.side = side
        self.theta = nn.Conv2d(channels, hidden, 1)
        self.phi = nn.Conv2d(channels, hidden, 1)
        self.g = nn.Conv2d(channels, hidden, 1)
        self.out = nn.Conv2d(hidden, channels, 1)

    def extra_macs(self) -> int:
        # The two matmuls: (S² x H) @ (H x S²) and (S² x S²) @ (S² x H).
        n = self.side * self.side
        return 2 * n * n * self.hidden

    def forward(self, x1):
        h, n = self.hidden, self.side * self.side
        # Constant target shapes (batch as -1) keep the exported Reshapes free of Shape subgraphs.
        t = torch.transpose(torch.reshape(self.theta(x1), (-1, h, n)), 1, 2)  # n x H
        p = torch.reshape(self.phi(x1), (-1, h, n))  # H x n
        f = torch.softmax(torch.matmul(t, p), dim=-1)  # n x n
        g = torch.transpose(torch.reshape(self.g(x1), (-1, h, n)), 1, 2)  # n x H
        y = torch.matmul(f, g)  # n x H
        y = torch.reshape(torch.transpose(y, 1, 2), (-1, h, self.side, self.side))
        return self.out(y) + x1


class BraggNN(nn.Module):
    """BraggNN(s) (seed 004 Listing 5), input 1x11x11."""

    def __init__(self, s: int):
        super().__init__()
        c, h = 16 * s, 8 * s
        self.conv1 = nn.Conv2d(1, c, 3)
        self.nlb = NonLocalBlock(c, h, side=9)
        self.head = nn.Sequential(
            nn.ReLU(),
            nn.Conv2d(c, h, 3), nn.ReLU(),
            nn.Conv2d(h, 2 * s, 3), nn.ReLU(),
            nn.Flatten(),
            nn.Linear(50 * s, 16 * s), nn.ReLU(),
            nn.Linear(16 * s, 8 * s), nn.ReLU(),
            nn.Linear(8 * s, 4 * s), nn.ReLU(),
            nn.Linear(4 * s, 2), nn.ReLU(),
        )

    def forward(self, x):
        return self.head(self.nlb(self.conv1(x)))


# ---------------------------------------------------------------------------------------------
# The zoo.


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    name: str
    build: Callable[[], nn.Module]
    inputs: Tuple[Tuple[str, Tuple[int, ...]], ...]  # (ONNX input name, shape)
    tier: str  # "small" (committed to models/zoo) or "large" (git-ignored models/large)
    description: str


def _spec(name, build, inputs, description, tier="small"):
    return ModelSpec(name, build, tuple((n, tuple(s)) for n, s in inputs), tier, description)


ZOO: List[ModelSpec] = [
    # Single operators (seed 001 §5.1.1).
    _spec("vecmul_a", Mul, [("x", [8]), ("y", [8])], "z = x * y, 8 elements"),
    _spec("vecmul_b", Mul, [("x", [64]), ("y", [64])], "z = x * y, 64 elements"),
    _spec("dense_a", lambda: nn.Linear(8, 8), [("input", [1, 8])], "Linear(8, 8)"),
    _spec("dense_b", lambda: nn.Linear(64, 64), [("input", [1, 64])], "Linear(64, 64)"),
    _spec("softmax_a", lambda: Softmax(-1), [("input", [8])], "softmax over 8 elements"),
    _spec("softmax_b", lambda: Softmax(-1), [("input", [64])], "softmax over 64 elements"),
    _spec("conv2d_a", lambda: nn.Conv2d(1, 1, 3), [("input", [1, 1, 8, 8])],
          "Conv2d(1, 1, 3x3), valid, 8x8 image"),
    _spec("conv2d_b", lambda: nn.Conv2d(1, 1, 3), [("input", [1, 1, 64, 64])],
          "Conv2d(1, 1, 3x3), valid, 64x64 image"),
    _spec("maxpool_a", lambda: nn.MaxPool2d(2, 2), [("input", [1, 1, 8, 8])],
          "MaxPool 2x2 stride 2, 8x8"),
    _spec("maxpool_b", lambda: nn.MaxPool2d(2, 2), [("input", [1, 1, 32, 32])],
          "MaxPool 2x2 stride 2, 32x32"),
    _spec("thxprlsg", Thxprlsg, [("input", [8])], "sigmoid(relu(exp(tanh(x))))"),
    # Complete networks.
    _spec("mlp", Mlp, [("input", [1, 784])], "Linear(784, 10) -> Softmax"),
    _spec("lenet5", lenet5, [("input", [1, 1, 28, 28])], "LeNet-5"),
    _spec("alexnet", alexnet, [("input", [1, 3, 224, 224])], "torchvision alexnet", "large"),
    _spec("zfnet", zfnet, [("input", [1, 3, 224, 224])], "ZFNet", "large"),
    _spec("vgg16", vgg16, [("input", [1, 3, 224, 224])], "torchvision vgg16", "large"),
    # hls4ml benchmark CNN (seed 002 Table 1) and the super-wide CNN (Table 6).
    *[_spec(f"model{n}", (lambda n=n: hls4ml_cnn(n)), [("input", [1, 3, 16, 16])],
            f"hls4ml benchmark CNN, N = {n}") for n in (4, 8, 32, 64)],
    _spec("superwide", superwide, [("input", [1, 3, 1024, 32])], "super-wide CNN"),
    # BraggNN (seed 004 Listing 5).
    _spec("braggnn1", lambda: BraggNN(1), [("input", [1, 1, 11, 11])], "BraggNN(1)"),
    _spec("braggnn2", lambda: BraggNN(2), [("input", [1, 1, 11, 11])], "BraggNN(2)"),
    # BraggHLS single layers (seed 004 Table II).
    _spec("addmm", Addmm, [("a", [16, 16]), ("b", [16, 16]), ("c", [16, 16])], "a @ b + c"),
    _spec("batch_norm_2d", lambda: nn.BatchNorm2d(2), [("input", [10, 2, 3, 3])],
          "BatchNorm2d(2), batch 10"),
    _spec("conv_2d", lambda: nn.Conv2d(1, 3, 3), [("input", [1, 1, 16, 16])], "Conv2d(1, 3, 3x3)"),
    _spec("max_pool_2d", lambda: nn.MaxPool2d(3, 2), [("input", [1, 3, 16, 16])],
          "MaxPool 3x3 stride 2"),
    _spec("soft_max", lambda: Softmax(1), [("input", [1, 3, 16, 16])], "Softmax over channels"),
]

ZOO_BY_NAME = {spec.name: spec for spec in ZOO}


def randomize_weights(module: nn.Module) -> None:
    """He-uniform weights and U(-0.2, 0.2) biases for every Conv2d and Linear, from the global RNG.

    PyTorch's default init (and torchvision's) shrinks activations layer by layer: with it,
    BraggNN's output hardly depends on its input (data sets 0 and 1 differ by 5e-4), a weak test.
    He init keeps activations near unit scale through ReLU-like layers, so the expected outputs
    depend on every layer.
    """
    for m in module.modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            fan_in = m.weight[0].numel()
            bound = (6.0 / fan_in) ** 0.5
            with torch.no_grad():
                m.weight.uniform_(-bound, bound)
                if m.bias is not None:
                    m.bias.uniform_(-0.2, 0.2)


def randomize_batchnorm(module: nn.Module, gen: torch.Generator) -> None:
    """Gives every BatchNorm non-trivial statistics and affine parameters.

    Fresh BatchNorm layers are the identity (mean 0, var 1, weight 1, bias 0), which would hide any
    bug in how kiln applies or folds them.
    """
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            c = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(c, generator=gen) * 0.5)
                m.running_var.copy_(torch.rand(c, generator=gen) * 1.5 + 0.5)  # [0.5, 2)
                sign = torch.where(torch.rand(c, generator=gen) < 0.2, -1.0, 1.0)
                # |weight| in [0.5, 1.5), about one in five negative
                m.weight.copy_(sign * (torch.rand(c, generator=gen) + 0.5))
                m.bias.copy_(torch.randn(c, generator=gen) * 0.2)
            m.eps = 1e-5


def build_model(spec: ModelSpec) -> nn.Module:
    """The torch module of `spec` with its deterministic weights, in eval mode."""
    torch.manual_seed(weight_seed(spec.name))
    model = spec.build()
    torch.manual_seed(weight_seed(spec.name))  # independent of how much RNG the build consumed
    randomize_weights(model)
    gen = torch.Generator().manual_seed(weight_seed(spec.name) + 1)
    randomize_batchnorm(model, gen)
    return model.float().eval()


def make_inputs(spec: ModelSpec, data_set: int) -> List[torch.Tensor]:
    """Standard normal float32 inputs of data set `data_set`."""
    gen = torch.Generator().manual_seed(input_seed(spec.name, data_set))
    return [torch.randn(shape, generator=gen, dtype=torch.float32) for _, shape in spec.inputs]


def reference_output(model: nn.Module, inputs: Sequence[torch.Tensor]) -> torch.Tensor:
    """PyTorch's output for `inputs`, evaluated in float64 and rounded to float32.

    The weights and inputs are float32 values either way; only the arithmetic is exact-er. PyTorch's
    own float32 evaluation of VGG-16 is up to 5.5e-5 away from this on logits of scale 19, which
    exceeds the ONNX default tolerance (atol 1e-5, rtol 1e-3) on small logits, so a float32
    expected output would test PyTorch's rounding as much as kiln's.
    """
    with torch.no_grad():
        out = model.double()(*[x.double() for x in inputs]).float()
    model.float()
    return out


def count_params(model: nn.Module) -> int:
    """Trainable parameters plus BatchNorm running mean/var (so BN counts 4 per channel)."""
    n = sum(p.numel() for p in model.parameters())
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            n += m.running_mean.numel() + m.running_var.numel()
    return n


def count_macs(model: nn.Module, inputs: Sequence[torch.Tensor]) -> int:
    """Multiply-accumulates of Conv2d, Linear and BraggNN's matmuls (other ops are not counted)."""
    total = 0

    def conv_hook(m, _inp, out):
        nonlocal total
        k = m.in_channels // m.groups * m.kernel_size[0] * m.kernel_size[1]
        total += out.numel() * k

    def linear_hook(m, _inp, out):
        nonlocal total
        total += out.numel() * m.in_features

    def nlb_hook(m, _inp, _out):
        nonlocal total
        total += m.extra_macs()

    handles = []
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            handles.append(m.register_forward_hook(conv_hook))
        elif isinstance(m, nn.Linear):
            handles.append(m.register_forward_hook(linear_hook))
        elif isinstance(m, NonLocalBlock):
            handles.append(m.register_forward_hook(nlb_hook))
    with torch.no_grad():
        model(*inputs)
    for h in handles:
        h.remove()
    if isinstance(model, Addmm):
        a, b, _ = inputs
        total += a.shape[0] * a.shape[1] * b.shape[1]
    return total


def export_onnx(spec: ModelSpec, model: nn.Module, example: Sequence[torch.Tensor]) -> bytes:
    """Serialized ONNX model, opset 13.

    training=PRESERVE (the module is in eval mode, so this exports inference) skips the exporter's
    eval-mode peephole that would fuse BatchNorm into the preceding Conv: kiln must see and fold
    BatchNormalization itself.
    """
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*constant folding be turned off.*")
        torch.onnx.export(
            model, tuple(example), buf,
            export_params=True,
            opset_version=OPSET,
            do_constant_folding=True,
            training=torch.onnx.TrainingMode.PRESERVE,
            input_names=[name for name, _ in spec.inputs],
            output_names=["output"],
        )
    proto = onnx.load_from_string(buf.getvalue())
    proto.producer_name = "kiln gen_zoo.py (torch " + torch.__version__.split("+")[0] + ")"
    proto.doc_string = f"kiln seed zoo: {spec.name}: {spec.description}"
    onnx.checker.check_model(proto)
    return proto.SerializeToString()


def write_tensor(path: str, array: np.ndarray, name: str) -> None:
    tensor = onnx.numpy_helper.from_array(np.ascontiguousarray(array, dtype=np.float32), name)
    with open(path, "wb") as f:
        f.write(tensor.SerializeToString())


@dataclasses.dataclass
class GenResult:
    name: str
    tier: str
    params: int
    macs: int
    onnx_bytes: int
    seconds: float
    path: str


def generate(spec: ModelSpec, out_root: str) -> GenResult:
    """Writes <out_root>/<name>/ (replacing an existing one only once the new one is complete)."""
    t0 = time.perf_counter()
    model = build_model(spec)
    onnx_bytes = export_onnx(spec, model, make_inputs(spec, 0))

    os.makedirs(out_root, exist_ok=True)
    final = os.path.join(out_root, spec.name)
    staging = tempfile.mkdtemp(prefix=f".{spec.name}.", dir=out_root)
    try:
        with open(os.path.join(staging, "model.onnx"), "wb") as f:
            f.write(onnx_bytes)
        for k in range(NUM_DATA_SETS):
            inputs = make_inputs(spec, k)
            output = reference_output(model, inputs)
            d = os.path.join(staging, f"test_data_set_{k}")
            os.mkdir(d)
            for i, ((name, _), x) in enumerate(zip(spec.inputs, inputs)):
                write_tensor(os.path.join(d, f"input_{i}.pb"), x.numpy(), name)
            write_tensor(os.path.join(d, "output_0.pb"), output.numpy(), "output")
        os.chmod(staging, 0o755)  # mkdtemp makes it 0700
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
    macs = count_macs(model, make_inputs(spec, 0))
    return GenResult(spec.name, spec.tier, count_params(model), macs, len(onnx_bytes),
                     time.perf_counter() - t0, final)


def human_bytes(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000.0
    raise AssertionError


def dir_bytes(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def select(only: Optional[str], tier: str) -> List[ModelSpec]:
    if only:
        names = [n.strip() for n in only.split(",") if n.strip()]
        unknown = [n for n in names if n not in ZOO_BY_NAME]
        if unknown:
            raise SystemExit(f"gen_zoo.py: unknown model(s) {', '.join(unknown)}; "
                             f"see --list for the {len(ZOO)} models")
        return [ZOO_BY_NAME[n] for n in names]
    return [s for s in ZOO if tier == "all" or s.tier == tier]


def check_hls4ml_formula() -> None:
    """Prints and checks seed 002's weight formula against the built model<N>."""
    for n in (4, 8, 32, 64):
        counted = count_params(build_model(ZOO_BY_NAME[f"model{n}"]))
        formula = hls4ml_cnn_weights(n)
        status = "ok" if counted == formula else "MISMATCH"
        print(f"model{n}: 54N²+356N+8 = {formula}, counted {counted}: {status}")
        if counted != formula:
            raise SystemExit("gen_zoo.py: model<N> does not match seed 002's weight formula")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=DEFAULT_SMALL_OUT,
                        help="output directory of the small tier (default models/zoo)")
    parser.add_argument("--large-out", default=DEFAULT_LARGE_OUT,
                        help="output directory of the large tier (default models/large, "
                             "git-ignored)")
    parser.add_argument("--only", help="comma-separated model names (overrides --tier)")
    parser.add_argument("--tier", choices=["small", "large", "all"], default="small")
    parser.add_argument("--list", action="store_true", help="list the models and exit")
    args = parser.parse_args(argv)

    torch.set_num_threads(1)  # the same reduction order on every machine and run

    specs = select(args.only, args.tier)
    if args.list:
        for s in specs:
            shapes = ", ".join(f"{n}{list(shape)}" for n, shape in s.inputs)
            print(f"{s.name:14s} {s.tier:5s} params {count_params(build_model(s)):>11,d}  "
                  f"{shapes}  {s.description}")
        return 0

    if any(s.name.startswith("model") for s in specs):
        check_hls4ml_formula()

    total_t0 = time.perf_counter()
    oversized = []
    for s in specs:
        root = args.out if s.tier == "small" else args.large_out
        r = generate(s, root)
        print(f"{r.name:14s} {r.tier:5s} params {r.params:>11,d}  MACs {r.macs:>13,d}  "
              f"model.onnx {human_bytes(r.onnx_bytes):>9s}  "
              f"dir {human_bytes(dir_bytes(r.path)):>9s}"
              f"  {r.seconds:6.2f} s", flush=True)
        if s.tier == "small" and r.onnx_bytes >= SMALL_LIMIT_BYTES:
            oversized.append(s.name)
    print(f"{len(specs)} model(s) in {time.perf_counter() - total_t0:.1f} s")
    if oversized:
        print(f"gen_zoo.py: small-tier model(s) over {human_bytes(SMALL_LIMIT_BYTES)}: "
              f"{', '.join(oversized)}; move them to the large tier", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
