#!/usr/bin/env bash
# The hls4ml benchmark CNNs model4, model8, model32 and model64 (docs/zoo.md)
# through kiln's own RTL backend with seed 002's configuration
# (ap_fixed<16,6> everywhere, TargetCycles 10000, Strategy Resource, 5 ns
# clock), next to seed 002's Vivado HLS numbers (Tables 2 and 3, the
# LineBuffer rows; read from bench/seed002_estimates.py's PAPER, the same
# comparison for `kiln compile`; model4 has none). Per model: kiln rtl's
# schedule latency and interval, the plan TargetCycles picked for each layer,
# and kiln's LUT/FF/DSP/BRAM18 estimate. --sim adds `kiln rtlsim --samples 2`
# (Verilator: bit-exact, measured latency and interval), --synth adds `kiln
# synth` (Yosys took 28 min on bench/rtl_seed001.sh's 151K-LUT conv2d; these
# designs are estimated at 237K LUT and up, so it is off by default). A model
# kiln rtl refuses shows kiln's error in its row. Every step's wall time and
# peak memory are printed; steps run one after another, each under a memory
# limit (ulimit -v, default 3/4 of RAM) so that a step too big for the machine
# fails on its own instead of waking the kernel's OOM killer (Verilator on
# model8 needed more than 22 GB before kiln flattened the conv loops).
# Measured 2026-11-24 at commit 9ede543 (2 cores shared with a build, 23 GB):
# all four without --sim in 6 min 34 s (kiln rtl 4 s on model4, 12 s on
# model8, 101 s on model32, 277 s on model64, which stops out of memory at
# 9.8 GB resident under the 17 GB limit); --sim on model4 takes 1 min 51 s
# (Verilator build 106 s, 1.1 GB; bit-exact). See bench/README.md.
#   bash bench/rtl_model_n.sh [--kiln build/apps/kiln/kiln] [--models model4,model8,model32,model64]
#                             [--timeout 1800] [--sim] [--samples 2] [--sim-timeout 1800] [--synth]
#                             [--mem-limit GB] [--keep DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
kiln=build/apps/kiln/kiln
models=model4,model8,model32,model64
timeout_s=1800
sim=0
samples=2
sim_timeout=1800
synth=0
keep=
mem_gb=$(awk '/^MemTotal/ {printf "%d", $2 * 3 / 4 / 1048576}' /proc/meminfo)
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kiln) kiln=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --sim) sim=1; shift ;;
    --samples) samples=$2; shift 2 ;;
    --sim-timeout) sim_timeout=$2; shift 2 ;;
    --synth) synth=1; shift ;;
    --mem-limit) mem_gb=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $kiln ]] || { echo "no $kiln: build kiln first (bash scripts/build.sh)" >&2; exit 2; }
if [[ -n $keep ]]; then
  mkdir -p "$keep"; t=$(cd "$keep" && pwd)
else
  t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fi
# seed 002's configuration, as bench/seed002_estimates.py gives it to kiln compile. kiln rtl
# accepts all three; only Precision and TargetCycles change its design (on model4, Strategy,
# IOType=io_stream and ConvImplementation give the same design, so the latter two are left out).
sets=(--set "Model.Precision=ap_fixed<16,6>" --set Model.TargetCycles=10000
      --set Model.Strategy=Resource)

# step NAME LIMIT_S CMD...: runs CMD with stdout to $t/NAME.json, stderr to $t/NAME.err, and
# records "exit_code wall_seconds peak_rss_kb" in $t/NAME.step. LIMIT_S: timeout in seconds.
step() {
  local name=$1 limit=$2; shift 2
  local s rc=0
  s=$(date +%s.%N)
  local timer=(); [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f %M -o "$t/$name.rss")
  ( ulimit -v "$(awk -v g="$mem_gb" 'BEGIN { printf "%d", g * 1048576 }')"
    exec "${timer[@]}" timeout "$limit" "$@" ) > "$t/$name.json" 2> "$t/$name.err" || rc=$?
  local rss; rss=$(tail -n 1 "$t/$name.rss" 2> /dev/null || echo 0)
  [[ $rss =~ ^[0-9]+$ ]] || rss=0
  echo "$rc $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') $rss" > "$t/$name.step"
  echo "$name: exit $rc, $(cut -d' ' -f2 "$t/$name.step") s" >&2
}

for m in ${models//,/ }; do
  step "$m.rtl" "$timeout_s" "$kiln" rtl "models/zoo/$m/model.onnx" -o "$t/$m" --force --json "${sets[@]}"
  [[ $(cut -d' ' -f1 "$t/$m.rtl.step") == 0 ]] || continue
  if [[ $sim == 1 ]]; then
    step "$m.sim" $((2 * sim_timeout + 120)) "$kiln" rtlsim "$t/$m" --samples "$samples" \
      --timeout "$sim_timeout" --json
  fi
  if [[ $synth == 1 ]]; then
    step "$m.syn" 86400 "$kiln" synth "$t/$m" --json
  fi
done

/usr/bin/python3 - "$t" "$models" "$timeout_s" <<'PY'
import json, os, re, sys
t, models, limit = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
argv, sys.argv = sys.argv, [os.path.join("bench", "seed002_estimates.py")]
sys.dont_write_bytecode = True
sys.path.insert(0, "bench")
from seed002_estimates import PAPER  # (model, impl) -> (csynth II, csynth lat, cosim lat, DSP, BRAM, LUT, FF, SRL)
sys.argv = argv

import bench_steps
load = bench_steps.load

def stepinfo(name): return bench_steps.stepinfo(t, name)

def why(rc, err): return bench_steps.why(rc, err, limit, quote=False)

def n(x): return "-" if x is None else f"{x:,.0f}"

def plan(stage):
    # "TargetCycles T: loop n_0_Conv/oh unrolled by 2, pipelined, weights in registers,
    #  36 cycles per sample, 61.90% of xcvu9p (3 plans tried)"  ->  "n_0_Conv: oh x2 regs, 36 cyc, 61.9%"
    p = stage.get("plan") or ""
    m = re.match(r"TargetCycles \d+: (.*), (\d+) cycles per sample, ([\d.]+)% of", p)
    if not m: return f"{stage['name']}: {p or '-'}"
    how, cyc, pct = m.groups()
    how = re.sub(r"^loop [^/]*/", "", how).replace(" unrolled by ", " x").replace(", pipelined", "")
    how = how.replace(", not pipelined", " unpipelined").replace(", weights in registers", " regs")
    return f"{stage['name']}: {how}, {cyc} cyc, {float(pct):.1f}%"

def mem(kb): return "" if not kb else f", {kb / 1048576:.1f} GB" if kb >= 1048576 else f", {kb // 1024} MB"

print("| model | kiln rtl | layer plans (kept loop, cycles per sample, share of VU9P) | latency: kiln / paper csynth, cosim "
      "| interval: kiln / paper II | DSP: kiln / paper | BRAM: kiln BRAM18 / paper | LUT: kiln / paper | FF: kiln / paper |")
print("|---|---|---|---|---|---|---|---|---|")
rows2 = []
for m in models:
    r = stepinfo(m + ".rtl")
    if r is None: continue
    rc, secs, rss, rtl, err = r
    p = PAPER.get((m, "LineBuffer"))
    pp = (lambda i: f"{p[i]:,}") if p else (lambda i: "-")
    lat_p = f"{pp(1)}, {pp(2)}" if p else "-"
    if rc != 0:
        print(f"| {m} | {secs:.1f} s{mem(rss)} | {why(rc, err)} | - / {lat_p} | - / {pp(0)} | - / {pp(3)} | "
              f"- / {pp(4)} | - / {pp(5)} | - / {pp(6)} |")
        continue
    e = rtl["estimate"]
    plans = "; ".join(plan(s) for s in rtl["stages"])
    print(f"| {m} | {secs:.1f} s{mem(rss)} | {plans} | {n(rtl['latency_cycles'])} / {lat_p} | "
          f"{n(rtl['interval_cycles'])} / {pp(0)} | {n(e['dsp'])} / {pp(3)} | {n(e['bram18'])} / {pp(4)} | "
          f"{n(e['lut'])} / {pp(5)} | {n(e['ff'])} / {pp(6)} |")
    rows2.append((m, rtl, stepinfo(m + ".sim"), stepinfo(m + ".syn")))
print(f"(kiln: schedule cycles at its {rows2[0][1]['clock_ns'] if rows2 else 5} ns delay-model clock and its own "
      "estimate; paper: seed 002 Tables 2-3, Vivado HLS 2019.2, xcvu9p at 5 ns, io_stream, Resource, LineBuffer, "
      "post-synthesis resources)")

if any(s or y for _, _, s, y in rows2):
    print()
    print("| model | kiln rtlsim (build / run) | bit-exact | latency: sim / schedule | interval: sim / schedule "
          "| kiln synth | DSP: Yosys / est. | BRAM18 | LUT | FF |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for m, rtl, s, y in rows2:
        if s is None: simc = ["-"] * 4
        elif not s[3]: simc = [f"{s[1]:.0f} s{mem(s[2])}", why(s[0], s[4]), "-", "-"]
        else:
            j = s[3]
            b, rn = j.get("build_seconds"), j.get("run_seconds")
            simc = [f"{s[1]:.0f} s ({b:.0f} / {rn:.1f}){mem(s[2])}", str(j.get("bit_exact")) +
                    ("" if j.get("bit_exact") else f": {j.get('failure') or ''}"),
                    f"{n(j.get('latency_cycles'))} / {n(rtl['latency_cycles'])}",
                    f"{n(j.get('interval_cycles'))} / {n(rtl['interval_cycles'])}"]
        e = rtl["estimate"]
        if y is None: sync = ["-"] * 5
        elif not y[3]: sync = [f"{y[1]:.0f} s: {why(y[0], y[4])}"] + ["-"] * 4
        else:
            j = y[3]
            sync = [f"{y[1]:.0f} s"] + [f"{n(j.get(k))} / {n(e[k])}" for k in ("dsp", "bram18", "lut", "ff")]
        print(f"| {m} | " + " | ".join(simc + sync) + " |")
PY
