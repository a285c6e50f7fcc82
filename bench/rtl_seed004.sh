#!/usr/bin/env bash
# Seed 004's five layers (Table II) through kiln's RTL flow, next to Vitis HLS
# at unroll factor 1024 (seed 004 Table III). kiln: cycles measured in
# Verilator, the clock period is kiln's configured ClockPeriod (its delay
# model's estimate, not a timing closure), LUT/FF/DSP counted by Yosys
# (synth_xilinx -family xcup). Each layer may use at most the DSPs Vitis used
# (U280: 9,024 DSP slices x Table III's percentage) as its MultiplierLimit.
# Precision: kiln's default ap_fixed<16,6> activations and weights with a
# 32-bit accumulator (seed 004 used (5,11) floats). batch_norm_2d processes a
# batch of 10 as Table III does: 10 samples back to back, latency + 9 x II.
#   bash bench/rtl_seed004.sh [--kiln build/apps/kiln/kiln] [--simulator verilator|icarus]
set -euo pipefail
cd "$(dirname "$0")/.."
kiln=build/apps/kiln/kiln
sim=verilator
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kiln) kiln=$2; shift 2 ;;
    --simulator) sim=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $kiln ]] || { echo "no $kiln: build kiln first (bash scripts/build.sh)" >&2; exit 2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
# layer  vitis_cycles  vitis_clock_ns  vitis_dsp  batch
rows="addmm 314 6.14 511 1
batch_norm_2d 23 6.06 140 10
conv_2d 795 6.14 178 1
max_pool_2d 262 38.1 0 1
soft_max 1684 6.14 1552 1"
printf "%-14s | %-28s | %-44s | %s\n" layer "Vitis HLS (Table III)" "kiln rtl (Verilator cycles, Yosys counts)" "speed-up"
while read -r m vc vclk vdsp batch; do
  d=$t/$m
  s=$(date +%s.%N)
  "$kiln" rtl "models/zoo/$m/model.onnx" --set Model.MultiplierLimit=$vdsp -o "$d" --json > "$d.rtl.json"
  rtl_s=$(echo "$(date +%s.%N) - $s" | bc)
  "$kiln" rtlsim "$d" --samples "$batch" --simulator "$sim" --json > "$d.sim.json" || true
  "$kiln" synth "$d" --json > "$d.syn.json" || true
  /usr/bin/python3 - "$d" "$m" "$vc" "$vclk" "$vdsp" "$batch" "$rtl_s" <<'PY'
import json, sys
d, m, vc, vclk, vdsp, batch, rtl_s = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
def load(p):
    try: return json.load(open(p))
    except Exception: return {}
rtl, sim, syn = load(d + ".rtl.json"), load(d + ".sim.json"), load(d + ".syn.json")
lat, ii, clk = sim.get("latency_cycles"), sim.get("interval_cycles") or rtl.get("interval_cycles"), rtl.get("clock_ns")
if lat is None or clk is None:
    print(f"{m:14s} | incomplete: rtl {rtl.get('latency_cycles')}, sim {sim}"); sys.exit()
cycles = lat + (batch - 1) * (ii or 1)
vt, kt = vc * vclk, cycles * clk
print(f"{m:14s} | {vc:5d} cyc x {vclk:5.2f} ns = {vt:7.0f} ns, {vdsp:4d} DSP | "
      f"{cycles:4d} cyc x {clk:4.2f} ns = {kt:5.0f} ns, LUT {syn.get('lut')} FF {syn.get('ff')} DSP {syn.get('dsp')} "
      f"| {vt / kt:6.1f}x  (bit-exact {sim.get('bit_exact')}, {batch} sample(s), rtl {rtl_s:.1f} s)")
PY
done <<< "$rows"
