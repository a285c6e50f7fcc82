#!/usr/bin/env bash
# Per zoo model: `kiln rtl` time, the simulator's build time and its
# simulation throughput (samples per second of run time), with the latency
# and interval measured in simulation. Defaults: Verilator, 64 samples, the
# small models of issue 9 (conv2d_b takes many minutes to build: add it with
# --models). --synth also runs `kiln synth` on every design and prints Yosys's
# LUT, FF, DSP and BRAM18 next to the operator library's estimate, with the
# estimate's error ((estimate - Yosys) / Yosys): the check of the estimator on
# every design the RTL tests build (conv_2d and soft_max take 10-25 minutes
# each in Yosys on this machine).
#   bash bench/rtl_zoo.sh [--kiln build/apps/kiln/kiln] [--simulator verilator|icarus]
#                         [--samples N] [--models a,b,c] [--synth] [--set KEY=VALUE ...]
set -euo pipefail
cd "$(dirname "$0")/.."
kiln=build/apps/kiln/kiln
sim=verilator
samples=64
models=vecmul_a,vecmul_b,dense_a,dense_b,softmax_a,softmax_b,conv2d_a,maxpool_a,maxpool_b,thxprlsg,mlp,addmm,batch_norm_2d,conv_2d,max_pool_2d,soft_max
synth=0
sets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --synth) synth=1; shift ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    --kiln) kiln=$2; shift 2 ;;
    --simulator) sim=$2; shift 2 ;;
    --samples) samples=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $kiln ]] || { echo "no $kiln: build kiln first (bash scripts/build.sh)" >&2; exit 2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
printf "%-14s %8s %8s %10s %10s %12s %8s %8s %9s\n" model rtl_s nodes "$sim build" "run s" "samples/s" latency II bit-exact
for m in ${models//,/ }; do
  s=$(date +%s.%N)
  "$kiln" rtl "models/zoo/$m/model.onnx" -o "$t/$m" "${sets[@]}" --json > "$t/$m.rtl.json"
  rtl_s=$(echo "$(date +%s.%N) - $s" | bc)
  "$kiln" rtlsim "$t/$m" --samples "$samples" --simulator "$sim" --json > "$t/$m.sim.json" || true
  if [[ $synth == 1 ]]; then
    "$kiln" synth "$t/$m" --json > "$t/$m.syn.json" 2> "$t/$m.syn.err" || echo "$m: synth failed: $(head -c 200 "$t/$m.syn.err")"
  fi
  /usr/bin/python3 - "$t/$m" "$m" "$rtl_s" "$samples" <<'PY'
import json, sys
d, m, rtl_s, n = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
rtl = json.load(open(d + ".rtl.json"))
try: sim = json.load(open(d + ".sim.json"))
except Exception: sim = {}
nodes = sum(s.get("nodes", 0) for s in rtl.get("stages", []))
b, r = sim.get("build_seconds"), sim.get("run_seconds")
rate = f"{n / r:12.0f}" if r else f"{'-':>12s}"
print(f"{m:14s} {rtl_s:8.2f} {nodes:8d} {b if b is None else round(b, 1)!s:>10s} {r if r is None else round(r, 2)!s:>10s} {rate} "
      f"{sim.get('latency_cycles')!s:>8s} {sim.get('interval_cycles')!s:>8s} {sim.get('bit_exact')!s:>9s}")
try: syn = json.load(open(d + ".syn.json"))
except Exception: syn = None
if syn:
    est, err = rtl.get("estimate", {}), syn.get("error", {})
    cells = "  ".join(f"{k.upper()} {syn.get(k)} (est {est.get(k, 0):.0f}, "
                      f"{'-' if err.get(k) is None else f'{100 * err[k]:+.0f}%'})"
                      for k in ("lut", "ff", "dsp", "bram18"))
    print(f"{'':14s} Yosys {syn.get('seconds', 0):.0f} s: {cells}")
PY
done
