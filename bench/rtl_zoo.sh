#!/usr/bin/env bash
# What the RTL zoo costs, per zoo model: `kiln rtl` time, the graph's nodes, the
# Verilog's bytes and wire declarations (the names a simulator elaborates), and
# each simulator's build and run time on N samples with whether it was
# bit-exact, with the latency and interval measured in simulation. Defaults:
# Icarus and Verilator, 3 samples, the 17 small zoo designs of
# ../shared/checks/C-rtl-zoo (conv2d_b's Verilator build takes about 5 minutes
# here; the whole run about 10). So that a change that grows the Verilog, or a
# simulator's build, is seen in its own commit. --synth also runs `kiln synth`
# on every design and prints Yosys's LUT, FF, DSP and BRAM18 next to the
# operator library's estimate, with the estimate's error ((estimate - Yosys) /
# Yosys): conv_2d and soft_max take 10-25 minutes each in Yosys on this machine.
#   bash bench/rtl_zoo.sh [--kiln build/apps/kiln/kiln] [--simulators icarus,verilator]
#                         [--samples N] [--models a,b,c] [--synth] [--set KEY=VALUE ...]
set -euo pipefail
cd "$(dirname "$0")/.."
kiln=build/apps/kiln/kiln
sims=icarus,verilator
samples=3
models=vecmul_a,vecmul_b,dense_a,dense_b,softmax_a,softmax_b,conv2d_a,conv2d_b,maxpool_a,maxpool_b,thxprlsg,mlp,addmm,batch_norm_2d,conv_2d,max_pool_2d,soft_max
synth=0
sets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --synth) synth=1; shift ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    --kiln) kiln=$2; shift 2 ;;
    --simulators|--simulator) sims=$2; shift 2 ;;
    --samples) samples=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $kiln ]] || { echo "no $kiln: build kiln first (bash scripts/build.sh)" >&2; exit 2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
header=$(printf "%-14s %7s %8s %11s %8s" model rtl_s nodes verilog_B wires)
for s in ${sims//,/ }; do header+=$(printf " %11s %8s %6s" "$s build_s" run_s exact); done
echo "$header$(printf " %8s %6s" latency II)"
for m in ${models//,/ }; do
  start=$(date +%s.%N)
  "$kiln" rtl "models/zoo/$m/model.onnx" -o "$t/$m" "${sets[@]}" --json > "$t/$m.rtl.json"
  rtl_s=$(echo "$(date +%s.%N) - $start" | bc)
  for s in ${sims//,/ }; do
    "$kiln" rtlsim "$t/$m" --samples "$samples" --simulator "$s" --timeout 1800 --json \
      > "$t/$m.$s.json" 2> "$t/$m.$s.err" || true
  done
  if [[ $synth == 1 ]]; then
    "$kiln" synth "$t/$m" --json > "$t/$m.syn.json" 2> "$t/$m.syn.err" || echo "$m: synth failed: $(head -c 200 "$t/$m.syn.err")"
  fi
  /usr/bin/python3 - "$t/$m" "$m" "$rtl_s" "$sims" <<'PY'
import glob, json, re, sys
d, m, rtl_s, sims = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4].split(",")
rtl = json.load(open(d + ".rtl.json"))
nodes = sum(s.get("nodes", 0) for s in rtl.get("stages", []))
size = wires = 0
for f in glob.glob(d + "/*.v"):
    text = open(f).read()
    size += len(text.encode())
    wires += len(re.findall(r"^  wire\b", text, re.M))
row = f"{m:14s} {rtl_s:7.2f} {nodes:8d} {size:11d} {wires:8d}"
latency = interval = None
for s in sims:
    try: sim = json.load(open(f"{d}.{s}.json"))
    except Exception: sim = {}
    b, r = sim.get("build_seconds"), sim.get("run_seconds")
    fmt = lambda x: "-" if x is None else f"{x:.1f}"
    row += f" {fmt(b):>11s} {fmt(r):>8s} {str(sim.get('bit_exact', '-')):>6s}"
    latency = latency or sim.get("latency_cycles")
    interval = interval or sim.get("interval_cycles")
print(f"{row} {latency!s:>8s} {interval!s:>6s}")
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
