#!/usr/bin/python3
"""Times kiln's reference interpreter against PyTorch on CPU (see bench/README.md).

For each model and thread count, in the same run: PyTorch inference of the torch module the zoo
model was exported from (torch.set_num_threads(T), median of R runs after warm-up), and
`kiln run MODEL --threads T --repeat R --json`, whose "seconds_per_run" is the median of R runs
excluding import. Both see the same input (test_data_set_0), and kiln's output is checked
against PyTorch's, so a fast but wrong interpreter does not pass.

    /usr/bin/python3 bench/bench_interpreter.py          # vgg16, model4..model64, 1 thread
    /usr/bin/python3 bench/bench_interpreter.py --threads all --models model64 --repeat 20
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional, Sequence

# Both kiln and PyTorch use libgomp, which reads this only at start-up. Spinning idle threads
# (the default) make 2 threads slower than 1 whenever anything else runs on a 2-core machine;
# passive waiting costs nothing on an idle one. Set before torch loads, and inherited by kiln.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnx.numpy_helper  # noqa: E402
import torch  # noqa: E402

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO_ROOT, "scripts"))
import gen_zoo  # noqa: E402  (the zoo's model definitions, seeds and generator)

DEFAULT_MODELS = ["vgg16", "model4", "model8", "model32", "model64"]
DEFAULT_KILN = os.path.join(REPO_ROOT, "build", "apps", "kiln", "kiln")
DEFAULT_RESULTS = os.path.join(REPO_ROOT, "bench", "results", "latest.json")
# kiln's output must match PyTorch's within this, relative to max(1, |expected|).
TOLERANCE = 1e-3
AUTO_REPEAT_SECONDS = 2.0  # --repeat auto: about this much timed work per measurement
AUTO_REPEAT_RANGE = (3, 500)


def read_pb(path: str) -> np.ndarray:
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return onnx.numpy_helper.to_array(t)


def model_dir(spec: gen_zoo.ModelSpec, zoo: str, large: str) -> str:
    """The model's zoo directory, generated first if it is missing."""
    root = zoo if spec.tier == "small" else large
    path = os.path.join(root, spec.name)
    if not os.path.isfile(os.path.join(path, "model.onnx")):
        print(f"{spec.name}: not in {root}, generating it", file=sys.stderr, flush=True)
        gen_zoo.generate(spec, root)
    return path


def max_rel_error(got: np.ndarray, expected: np.ndarray) -> float:
    if got.shape != expected.shape:
        return float("inf")
    diff = np.abs(got.astype(np.float64) - expected.astype(np.float64))
    return float(np.max(diff / np.maximum(1.0, np.abs(expected.astype(np.float64)))))


def time_torch(module: torch.nn.Module, inputs: Sequence[torch.Tensor], threads: int,
               repeat: int) -> float:
    """Median seconds per inference after two warm-up runs."""
    torch.set_num_threads(threads)
    times = []
    with torch.inference_mode():
        for _ in range(2):
            module(*inputs)
        for _ in range(repeat):
            t0 = time.perf_counter()
            module(*inputs)
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def auto_repeat(seconds_per_run: float) -> int:
    lo, hi = AUTO_REPEAT_RANGE
    return int(min(hi, max(lo, AUTO_REPEAT_SECONDS / max(seconds_per_run, 1e-9))))


def run_kiln(kiln: str, onnx_path: str, input_files: Dict[str, str], threads: int,
             repeat: int) -> dict:
    """Runs `kiln run ... --json`; returns {"seconds": s, "output": array} or {"error": text}."""
    with tempfile.TemporaryDirectory(prefix="kiln-bench-") as tmp:
        out_dir = os.path.join(tmp, "out")  # kiln creates it (it must not exist)
        cmd = [kiln, "run", onnx_path]
        for name, path in input_files.items():
            cmd += ["--input", f"{name}={path}"]
        cmd += ["-o", out_dir, "--threads", str(threads), "--repeat", str(repeat), "--json"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
        except (OSError, subprocess.TimeoutExpired) as e:
            return {"error": f"{' '.join(cmd)}: {e}"}
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["(no stderr)"])[-1]
            return {"error": f"kiln exited with {proc.returncode}: {last}"}
        try:
            report = json.loads(proc.stdout)
            seconds = float(report["seconds_per_run"])
        except (ValueError, KeyError, TypeError) as e:
            return {"error": f"kiln printed no JSON with seconds_per_run ({e}): "
                             f"{proc.stdout[:200]!r}"}
        # The output tensor: the written file if any, else the values in the JSON.
        output = None
        written = [p for p in report.get("written", []) if p.endswith(".pb")]
        if written and os.path.isfile(written[0]):
            output = read_pb(written[0])
        else:
            pb_files = sorted(f for f in os.listdir(out_dir) if f.endswith(".pb")) \
                if os.path.isdir(out_dir) else []
            if pb_files:
                output = read_pb(os.path.join(out_dir, pb_files[0]))
            elif report.get("outputs") and report["outputs"][0].get("values"):
                o = report["outputs"][0]
                output = np.asarray(o["values"], dtype=np.float64).reshape(o["shape"])
        return {"seconds": seconds, "output": output,
                "import_seconds": report.get("import_seconds")}


def parse_threads(text: str) -> List[int]:
    if text == "all":
        return sorted({1, 2, os.cpu_count() or 1})
    try:
        threads = sorted({int(t) for t in text.split(",")})
    except ValueError:
        raise SystemExit(f"bench_interpreter.py: --threads {text}: expected N, N,M or all")
    if threads[0] < 1:
        raise SystemExit("bench_interpreter.py: --threads must be at least 1")
    return threads


def git_commit() -> Optional[str]:
    try:
        out = subprocess.run(["git", "-C", REPO_ROOT, "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() or None
    except OSError:
        return None


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def write_json_atomically(path: str, data: dict) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def fmt_ms(seconds: Optional[float]) -> str:
    return "n/a" if seconds is None else f"{seconds * 1e3:.3f}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kiln", help="kiln executable (default build/apps/kiln/kiln; if that "
                                       "is missing, PyTorch is timed alone)")
    parser.add_argument("--threads", default="1", help="N, N,M,... or all (= 1, 2 and #cores)")
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS),
                        help=f"comma-separated zoo models (default {','.join(DEFAULT_MODELS)})")
    parser.add_argument("--repeat", default="auto",
                        help="timed runs per measurement, or auto (about "
                             f"{AUTO_REPEAT_SECONDS:g} s of PyTorch work, {AUTO_REPEAT_RANGE[0]}"
                             f"..{AUTO_REPEAT_RANGE[1]} runs)")
    parser.add_argument("--zoo", default=gen_zoo.DEFAULT_SMALL_OUT, help="small-tier zoo directory")
    parser.add_argument("--large", default=gen_zoo.DEFAULT_LARGE_OUT,
                        help="large-tier zoo directory")
    parser.add_argument("--json-out", default=DEFAULT_RESULTS,
                        help="results file (default bench/results/latest.json)")
    parser.add_argument("--torch-only", action="store_true", help="skip kiln")
    parser.add_argument("--max-ratio", type=float,
                        help="exit 1 if any kiln/torch ratio exceeds this (e.g. 2.0)")
    args = parser.parse_args(argv)

    threads = parse_threads(args.threads)
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in gen_zoo.ZOO_BY_NAME]
    if unknown:
        raise SystemExit(f"bench_interpreter.py: unknown model(s): {', '.join(unknown)}")
    if args.repeat != "auto" and (not args.repeat.isdigit() or int(args.repeat) < 1):
        raise SystemExit("bench_interpreter.py: --repeat must be a positive integer or auto")

    kiln = None
    if not args.torch_only:
        path = args.kiln or DEFAULT_KILN
        if os.path.isfile(path) and os.access(path, os.X_OK):
            kiln = os.path.abspath(path)
        elif args.kiln:
            raise SystemExit(f"bench_interpreter.py: --kiln {args.kiln}: not an executable file")
        else:
            print(f"bench_interpreter.py: no kiln executable at {path}; timing PyTorch only "
                  "(build kiln or pass --kiln PATH)", file=sys.stderr)

    load_before = os.getloadavg()[0]
    if load_before > 0.5:
        print(f"bench_interpreter.py: load average {load_before:.2f}: other processes are busy, "
              "timings (especially with 2+ threads) will be noisy", file=sys.stderr)

    rows = []
    failed = False
    header = f"{'model':10s} {'threads':>7s} {'repeat':>6s} {'kiln ms':>11s} {'torch ms':>11s} " \
             f"{'ratio':>7s} {'max err':>9s}"
    print(header)
    print("-" * len(header), flush=True)
    for name in names:
        spec = gen_zoo.ZOO_BY_NAME[name]
        path = model_dir(spec, args.zoo, args.large)
        data = os.path.join(path, "test_data_set_0")
        input_files = {n: os.path.join(data, f"input_{i}.pb")
                       for i, (n, _) in enumerate(spec.inputs)}
        inputs = [torch.from_numpy(read_pb(f).copy()) for f in input_files.values()]
        expected = read_pb(os.path.join(data, "output_0.pb"))

        module = gen_zoo.build_model(spec)
        with torch.inference_mode():
            torch_out = module(*inputs).numpy()
        # The module must be the one the ONNX file was exported from (same seed, same code).
        if max_rel_error(torch_out, expected) > TOLERANCE:
            raise SystemExit(f"bench_interpreter.py: {name}: the torch module does not reproduce "
                             f"{data}/output_0.pb; regenerate the zoo with scripts/gen_zoo.py")

        for t in threads:
            if args.repeat == "auto":
                repeat = auto_repeat(time_torch(module, inputs, t, 1))
            else:
                repeat = int(args.repeat)
            torch_s = time_torch(module, inputs, t, repeat)
            row = {"model": name, "threads": t, "repeat": repeat, "torch_seconds": torch_s,
                   "kiln_seconds": None, "ratio": None, "max_rel_error": None, "error": None}
            if kiln:
                k = run_kiln(kiln, os.path.join(path, "model.onnx"), input_files, t, repeat)
                if "error" in k:
                    row["error"] = k["error"]
                    failed = True
                else:
                    row["kiln_seconds"] = k["seconds"]
                    row["kiln_import_seconds"] = k.get("import_seconds")
                    row["ratio"] = k["seconds"] / torch_s
                    if k["output"] is None:
                        row["error"] = "kiln wrote no output to compare"
                        failed = True
                    else:
                        err = max_rel_error(k["output"], expected)
                        row["max_rel_error"] = err
                        if err > TOLERANCE:
                            row["error"] = f"output differs from PyTorch (max rel error {err:.3g})"
                            failed = True
                    if args.max_ratio is not None and row["ratio"] > args.max_ratio:
                        row["error"] = row["error"] or \
                            f"ratio {row['ratio']:.2f} is above --max-ratio {args.max_ratio:g}"
                        failed = True
            rows.append(row)
            ratio = "n/a" if row["ratio"] is None else f"{row['ratio']:.2f}"
            err = "n/a" if row["max_rel_error"] is None else f"{row['max_rel_error']:.1e}"
            print(f"{name:10s} {t:>7d} {repeat:>6d} {fmt_ms(row['kiln_seconds']):>11s} "
                  f"{fmt_ms(torch_s):>11s} {ratio:>7s} {err:>9s}", flush=True)
            if row["error"]:
                print(f"  error: {row['error']}", flush=True)

    results = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "kiln": kiln,
        "torch_version": torch.__version__,
        "cpu": cpu_name(),
        "cpu_count": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": os.getloadavg()[0],
        "tolerance": TOLERANCE,
        "ratio": "kiln_seconds / torch_seconds (median per inference, same threads)",
        "results": rows,
    }
    write_json_atomically(args.json_out, results)
    print(f"wrote {os.path.relpath(args.json_out)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
