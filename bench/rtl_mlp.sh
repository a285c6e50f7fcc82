#!/usr/bin/env bash
# The folded MLP of issue 10 (seed 001, Table 5.1: Bambu needs 57,648 cycles
# with 9 DSPs for the 784->10 MLP): kiln rtl keeps the Gemm's loop over the
# 784 inputs, unrolled by 8 and pipelined, its weights in 8 ROM banks, on 9
# DSP multipliers, and puts the Softmax's ten products in LUTs
# (MultiplierLimit 0) so that the design has 9 DSPs in all. The 7,840
# multiply-adds on 9 multipliers bound it at 871 cycles. Cycles come from
# Verilator (bit-exact against kiln's emulator), resources from Yosys.
#   bash bench/rtl_mlp.sh [--kiln build/apps/kiln/kiln] [--samples 16] [--no-synth]
set -euo pipefail
cd "$(dirname "$0")/.."
kiln=build/apps/kiln/kiln
samples=16
synth=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kiln) kiln=$2; shift 2 ;;
    --samples) samples=$2; shift 2 ;;
    --no-synth) synth=0; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $kiln ]] || { echo "no $kiln: build kiln first (bash scripts/build.sh)" >&2; exit 2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$kiln" rtl models/zoo/mlp/model.onnx -o "$t/d" --json \
  --set Model.MultiplierLimit=9 --set LayerName.Softmax.MultiplierLimit=0 \
  --set Loop.fc_Gemm/i.Unroll=8 --set Loop.fc_Gemm/i.Pipeline=1 \
  --set Buffer.fc_Gemm_w.Partition=cyclic --set Buffer.fc_Gemm_w.Factor=8 \
  --set Buffer.fc_Gemm_w.Dim=1 > "$t/rtl.json"
"$kiln" rtlsim "$t/d" --samples "$samples" --json > "$t/sim.json" || true
if [[ $synth == 1 ]]; then
  start=$(date +%s.%N)
  "$kiln" synth "$t/d" --json > "$t/syn.json" || true
  echo "yosys: $(echo "$(date +%s.%N) - $start" | bc) s" > "$t/syn.time"
fi
/usr/bin/python3 - "$t" <<'PY'
import json, os, sys
t = sys.argv[1]
def load(n):
    try: return json.load(open(os.path.join(t, n)))
    except Exception: return {}
rtl, sim, syn = load("rtl.json"), load("sim.json"), load("syn.json")
est = rtl.get("estimate", {})
print("| design | cycles (sim) | bit-exact | DSP | LUT | FF | BRAM18 |")
print("|---|---|---|---|---|---|---|")
print(f"| kiln, 9 DSP, Gemm/i unrolled 8 and pipelined | {sim.get('latency_cycles')} "
      f"(schedule {rtl.get('latency_cycles')}) | {sim.get('bit_exact')} | "
      f"{syn.get('dsp', '-')} (est. {est.get('dsp', 0):g}) | {syn.get('lut', '-')} (est. {est.get('lut', 0):.0f}) | "
      f"{syn.get('ff', '-')} (est. {est.get('ff', 0):.0f}) | {syn.get('bram18', '-')} (est. {est.get('bram18', 0):g}) |")
print("| Bambu, 9 DSP (seed 001 Table 5.1, floats, Zynq-7000) | 57,648 | | 9 | | | |")
lat = sim.get("latency_cycles")
if lat:
    print(f"kiln/Bambu cycles: {lat / 57648:.4f} ({57648 / lat:.1f}x fewer); bound 7,840 / 9 = 871")
if os.path.exists(os.path.join(t, "syn.time")):
    print(open(os.path.join(t, "syn.time")).read().strip())
print("(clock: kiln's delay-model estimate", rtl.get("clock_ns"), "ns, not a timing report)")
PY
