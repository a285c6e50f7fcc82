#!/usr/bin/env python3
"""HLS flow benchmark (not a test): `kiln compile` time for every zoo model, and C-simulation
throughput for model<N>, each next to a peer measured in the same run.

- compile: wall time of `kiln compile MODEL --set IOType=io_stream` (import, passes, lowering,
  estimate, project writing), against `kiln info MODEL` (import alone) as the peer.
- csim: samples per second of the compiled fixed-point testbench (g++ -O2, kiln_fixed.h), from
  `kiln csim --json` run_seconds with the build cached, against kiln's float32 reference
  interpreter (`kiln run --repeat`, one thread) on the same model. The ratio says how much
  bit-accurate simulation costs over float.

Usage: bench/bench_hls.py [--kiln PATH] [--samples N] [--out bench/results/hls.json]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr}")
    return time.perf_counter() - t0, r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiln", default=os.path.join(ROOT, "build", "apps", "kiln", "kiln"))
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "hls.json"))
    a = ap.parse_args()
    results = {"compile": [], "csim": []}
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'model':<14} {'compile s':>10} {'import s':>10} {'ratio':>7}")
        for d in sorted(glob.glob(os.path.join(ROOT, "models", "zoo", "*", "model.onnx"))):
            name = os.path.basename(os.path.dirname(d))
            t_info, _ = timed([a.kiln, "info", d])
            t_comp, _ = timed([a.kiln, "compile", d, "-o", os.path.join(tmp, name),
                               "--set", "IOType=io_stream"])
            results["compile"].append({"model": name, "compile_s": t_comp, "import_s": t_info})
            print(f"{name:<14} {t_comp:>10.3f} {t_info:>10.3f} {t_comp / t_info:>7.2f}")
        print()
        print(f"{'model':<10} {'csim samples/s':>15} {'float samples/s':>16} {'slowdown':>9}")
        for n in (4, 8, 32, 64):
            name = f"model{n}"
            prj = os.path.join(tmp, name)  # compiled above (io_stream)
            timed([a.kiln, "csim", prj, "--samples", "1"])  # builds the testbench
            _, out = timed([a.kiln, "csim", prj, "--samples", str(a.samples), "--json"])
            csim = json.loads(out)
            csim_rate = a.samples / csim["run_seconds"]
            pb = os.path.join(ROOT, "models", "zoo", name, "test_data_set_0", "input_0.pb")
            _, out = timed([a.kiln, "run", os.path.join(ROOT, "models", "zoo", name, "model.onnx"),
                            "--input", f"input={pb}", "--threads", "1", "--repeat", "50",
                            "--json"])
            float_rate = 1.0 / json.loads(out)["seconds_per_run"]
            results["csim"].append({"model": name, "csim_samples_per_s": csim_rate,
                                    "float_samples_per_s": float_rate,
                                    "bit_exact": csim["bit_exact"]})
            print(f"{name:<10} {csim_rate:>15.1f} {float_rate:>16.1f} {float_rate / csim_rate:>9.1f}")
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
