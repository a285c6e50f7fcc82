#!/usr/bin/env bash
# Seed 001's benchmarks (Tables 5.1 and 5.2: Bambu 0.9.6 from Halide, Zynq-7000,
# floats) built by kiln rtl: cycles from Verilator (bit-exact against kiln's
# emulator), resources from Yosys (synth_xilinx for the config's part), next
# to Bambu's cycles and DSPs with and without Halide's autoscheduler. kiln's
# designs use 16-bit fixed point (the zoo's default config); the
# convolutions' weights are constants, so their products are shifts and adds
# in LUTs. Rows: maxpool 8x8 and 32x32, conv2d 8x8 (unrolled) and 64x64 (the
# loop over output rows pipelined), and the MLP folded on 9 DSPs. A second table
# takes each model through the C flow (Backend: bambu, docs/cflow.md): its
# filters, the values computed per sample before and after the clean-ups, the
# C99's C simulation against kiln's emulator, and Bambu's cycles from
# `kiln csynth` when Bambu is installed.
#   bash bench/rtl_seed001.sh [--kiln build/apps/kiln/kiln] [--samples 8] [--no-synth]
set -euo pipefail
cd "$(dirname "$0")/.."
kiln=build/apps/kiln/kiln
samples=8
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
# name model bambu_auto bambu_root bambu_dsp -- kiln rtl sets...
rows=(
  "maxpool_8|maxpool_a|556|82|0|"
  "maxpool_32|maxpool_b|556|2113|0|"
  "conv2d_8x8|conv2d_a|442209|2019778|2|--set Model.MultiplierLimit=2"
  "conv2d_64x64|conv2d_b|18093466|129261690|2|--set Model.MultiplierLimit=2 --set Loop.Conv/oh.Pipeline=1"
  "MLP|mlp|57648|107958|9|--set Model.MultiplierLimit=9 --set LayerName.Softmax.MultiplierLimit=0 --set Loop.fc_Gemm/i.Unroll=8 --set Loop.fc_Gemm/i.Pipeline=1 --set Buffer.fc_Gemm_w.Partition=cyclic --set Buffer.fc_Gemm_w.Factor=8 --set Buffer.fc_Gemm_w.Dim=1"
)
for row in "${rows[@]}"; do
  IFS='|' read -r name model auto root dsp sets <<< "$row"
  d="$t/$name"
  # shellcheck disable=SC2086
  "$kiln" rtl "models/zoo/$model/model.onnx" -o "$d" --json $sets > "$d.rtl.json"
  "$kiln" rtlsim "$d" --samples "$samples" --json > "$d.sim.json" || true
  if [[ $synth == 1 ]]; then
    s=$(date +%s)
    "$kiln" synth "$d" --json > "$d.syn.json" || true
    echo $(( $(date +%s) - s )) > "$d.syn.s"
  fi
  # The same model through the C flow (Backend: bambu, seed 001's C99): C-simulated against
  # kiln's emulator, and Bambu's own report when it is installed (kiln csynth, else exit 3).
  "$kiln" compile "models/zoo/$model/model.onnx" --set Backend=bambu -o "$d.c" > /dev/null
  "$kiln" csim "$d.c" --samples "$samples" --werror --json > "$d.csim.json" || true
  "$kiln" csynth "$d.c" --json > "$d.csynth.json" 2> "$d.csynth.err" || true
  echo "$name|$auto|$root|$dsp|$sets" > "$d.row"
done
/usr/bin/python3 - "$t" <<'PY'
import glob, json, os, sys
t = sys.argv[1]
def load(p):
    try: return json.load(open(p))
    except Exception: return {}
print("| benchmark | kiln cycles (sim) | bit-exact | kiln DSP | LUT | FF | BRAM18 | Yosys s | Bambu cycles (auto / root) | Bambu DSP | fewer cycles (vs auto) |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for name in ["maxpool_8", "maxpool_32", "conv2d_8x8", "conv2d_64x64", "MLP"]:
    d = os.path.join(t, name)
    if not os.path.exists(d + ".row"): continue
    _, auto, root, dsp, sets = open(d + ".row").read().strip().split("|", 4)
    sim, syn = load(d + ".sim.json"), load(d + ".syn.json")
    lat = sim.get("latency_cycles")
    secs = open(d + ".syn.s").read().strip() if os.path.exists(d + ".syn.s") else "-"
    ratio = f"{int(auto) / lat:,.0f}x" if lat else "-"
    print(f"| {name} | {lat} | {sim.get('bit_exact')} | {syn.get('dsp', '-')} | {syn.get('lut', '-')} | "
          f"{syn.get('ff', '-')} | {syn.get('bram18', '-')} | {secs} | {int(auto):,} / {int(root):,} | {dsp} | {ratio} |")
print()
print("| benchmark | C flow filters | C ops per sample (before / after clean-ups) | C99 csim bit-exact | kiln csynth (Bambu) |")
print("|---|---|---|---|---|")
for name in ["maxpool_8", "maxpool_32", "conv2d_8x8", "conv2d_64x64", "MLP"]:
    d = os.path.join(t, name)
    if not os.path.exists(d + ".row"): continue
    rep, cs, syn = load(d + ".c/report.json"), load(d + ".csim.json"), load(d + ".csynth.json")
    ops = rep.get("ops_per_sample", {})
    exact = f"{cs.get('bit_exact_samples')}/{cs.get('samples')}" if cs else "-"
    if syn:
        bambu = f"{syn.get('simulated_cycles', '-')} cycles"
    else:
        err = open(d + ".csynth.err").read().strip() if os.path.exists(d + ".csynth.err") else ""
        bambu = "not installed" if "not on PATH" in err else ("failed: " + err[:80] if err else "-")
    print(f"| {name} | {rep.get('filters', '-')} | {ops.get('before_clean_ups', 0):,} / {ops.get('after_clean_ups', 0):,} | {exact} | {bambu} |")
print("(kiln: 16-bit fixed point, the clock period is kiln's delay-model estimate; Bambu: floats, Zynq-7000 at 60-89 MHz)")
PY
