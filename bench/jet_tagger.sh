#!/usr/bin/env bash
# The jet-tagging MLP (16-64-32-32-5, ReLU, softmax; models/coverage/jet_mlp,
# weights from gen_coverage.py's seed, not hls4ml's trained ones) fully
# unrolled at 200 MHz on the VU9P, next to hls4ml's published designs
# (Fahim et al. 2021, "hls4ml: An Open-Source Codesign Workflow to Empower
# Scientific Low-Power Machine Learning Devices", Table 1: 16-bit
# post-training quantization 50 ns, 89,209 LUT, 1,852 DSP; 6-bit
# quantization-aware 45 ns, 63,251 LUT, 38 DSP). Every weight is a constant:
# kiln shares the products and their sums across each layer's matrix
# (rtl/cmvm/cmvm_pass.h), in LUTs, and puts the Softmax's five products in LUTs
# too (MultiplierLimit 0), so that no DSP is used. Rows:
#   16-bit, hls4ml's types: ap_fixed<16,6> everywhere, the accumulator too,
#     so that each product is truncated to it before it is summed (as
#     hls4ml's Latency strategy does): products are shared per input only;
#   16-bit, 26-bit accumulator: ap_fixed<16,6> weights and results, the
#     accumulator ap_fixed<26,6> (every product exact, sums wrapping at the
#     result's range): sums shared across the matrix;
#   6-bit: ap_fixed<6,1> weights, ap_fixed<6,3> results and accumulator.
# Cycles come from Verilator (bit-exact against kiln's emulator), LUT/FF/DSP
# from Yosys (kiln synth), the clock from kiln's delay model (an estimate).
#   bash bench/jet_tagger.sh [--kiln build/apps/kiln/kiln] [--samples 8] [--no-synth]
#                            [--latency-cycles N]
set -euo pipefail
cd "$(dirname "$0")/.."
kiln=build/apps/kiln/kiln
samples=8
synth=1
latency=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kiln) kiln=$2; shift 2 ;;
    --samples) samples=$2; shift 2 ;;
    --no-synth) synth=0; shift ;;
    --latency-cycles) latency=(--set "Model.LatencyCycles=$2"); shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $kiln ]] || { echo "no $kiln: build kiln first (bash scripts/build.sh)" >&2; exit 2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
common=(--set ClockPeriod=5 --set Part=xcvu9p-flga2104-2L-e --set LayerName.Softmax.MultiplierLimit=0)
rows=(
  "16-bit, hls4ml's types|Model.Precision=ap_fixed<16,6>"
  "16-bit, 26-bit accumulator|Model.Precision=ap_fixed<16,6> Model.Precision.accum=ap_fixed<26,6>"
  "6-bit|Model.Precision=ap_fixed<6,3> Model.Precision.weight=ap_fixed<6,1>"
)
i=0
for row in "${rows[@]}"; do
  i=$((i + 1))
  name=${row%%|*}
  sets=()
  for kv in ${row#*|}; do sets+=(--set "$kv"); done
  echo "$name" > "$t/$i.name"
  start=$(date +%s.%N)
  if "$kiln" rtl models/coverage/jet_mlp/model.onnx -o "$t/$i" --json "${common[@]}" "${sets[@]}" \
      "${latency[@]}" > "$t/$i.rtl.json" 2> "$t/$i.rtl.err"; then
    echo "$(echo "$(date +%s.%N) - $start" | bc)" > "$t/$i.rtl.time"
    "$kiln" rtlsim "$t/$i" --samples "$samples" --json > "$t/$i.sim.json" 2> "$t/$i.sim.err" || true
    if [[ $synth == 1 ]]; then
      "$kiln" synth "$t/$i" --jobs 2 --json > "$t/$i.syn.json" 2> "$t/$i.syn.err" || true
    fi
  fi
done
/usr/bin/python3 - "$t" "$i" <<'PY'
import json, os, sys
t, n = sys.argv[1], int(sys.argv[2])
def load(name):
    try: return json.load(open(os.path.join(t, name)))
    except Exception: return {}
print("| design | kiln rtl | cycles (Verilator; schedule) | at 5 ns | bit-exact | LUT | FF | DSP | adders (product + sum), depth |")
print("|---|---|---|---|---|---|---|---|---|")
for i in range(1, n + 1):
    name = open(os.path.join(t, f"{i}.name")).read().strip()
    rtl, sim, syn = load(f"{i}.rtl.json"), load(f"{i}.sim.json"), load(f"{i}.syn.json")
    if not rtl:
        err = open(os.path.join(t, f"{i}.rtl.err")).read().strip().splitlines()
        print(f"| kiln, {name} | failed: {err[-1] if err else '?'} | | | | | | | |")
        continue
    est = rtl.get("estimate", {})
    ops = rtl.get("ops", {})
    secs = open(os.path.join(t, f"{i}.rtl.time")).read().strip()
    lat = sim.get("latency_cycles")
    ns = f"{lat * 5} ns" if lat else "-"
    print(f"| kiln, {name} | {float(secs):.1f} s | {lat if lat else '-'}; {rtl.get('latency_cycles')} | {ns} | "
          f"{sim.get('bit_exact', '-')} | {syn.get('lut', '-')} (est. {est.get('lut', 0):.0f}) | "
          f"{syn.get('ff', '-')} (est. {est.get('ff', 0):.0f}) | {syn.get('dsp', '-')} (est. {est.get('dsp', 0):g}) | "
          f"{ops.get('product_adders', 0)} + {ops.get('sum_adders', 0)}, {ops.get('adder_depth', 0)} |")
print("| hls4ml, 16-bit post-training quantization (Fahim et al. 2021, Table 1) | | 10 | 50 ns | | 89,209 | | 1,852 | |")
print("| hls4ml, 6-bit quantization-aware (Fahim et al. 2021, Table 1) | | 9 | 45 ns | | 63,251 | | 38 | |")
print("(kiln's clock: its delay model's estimate at ClockPeriod 5 ns, not a timing report; hls4ml's: Vivado)")
PY
