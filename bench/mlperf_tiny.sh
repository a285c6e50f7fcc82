#!/usr/bin/env bash
# The four MLPerf Tiny reference models (models/mlperf_tiny/README.md) through
# kiln's RTL backend for the Zynq-7020 (xc7z020clg400-1, 7 ns clock, 8-bit
# weights ap_fixed<8,3> and results ap_fixed<8,4>), next to the published FPGA
# results the project compares with: fpgaConvNet's MLPerf Tiny v1.1 ZedBoard
# latencies for ResNet-8, DS-CNN and MobileNetV1, hls4ml's v0.7 Pynq-Z2 latency
# for the FC autoencoder. Each model's cycle budget L is its published latency
# in 7 ns cycles (resnet8 58,714; dscnn 46,285; fc_autoencoder 2,671;
# mobilenet_v1 1,355,714), given to kiln rtl as Model.TargetCycles (default;
# the interval each layer may take) or Model.LatencyCycles (--key; on its own
# it searches every layer, each with L as its interval target) or both
# (--key both).
# Per model: the MACs (kiln info), the multiplier bound on the Zynq-7020's 220
# DSPs (MACs / 220 cycles; MACs / 440 with two 8-bit products per DSP), kiln
# rtl's wall time and peak memory, kiln's cycles (measured by `kiln rtlsim
# --samples 1` with --sim, else the schedule latency from report.json), that
# latency at 7 ns, and LUT/FF/DSP/BRAM18 (Yosys with --synth, else kiln's
# estimate, marked "est."). --no-build prints the MACs and bounds only. A step
# kiln refuses or that runs out of time or memory shows its error in the row.
# Steps run one after another, each under `timeout` and `ulimit -v`.
#   bash bench/mlperf_tiny.sh [--kiln build/apps/kiln/kiln]
#        [--models resnet8,dscnn,fc_autoencoder,mobilenet_v1,resnet8_avgpool]
#        [--key TargetCycles|LatencyCycles|both] [--timeout 900] [--mem-limit GB]
#        [--sim] [--sim-timeout 1800] [--synth] [--jobs 2] [--no-build] [--keep DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
kiln=build/apps/kiln/kiln
models=resnet8,dscnn,fc_autoencoder,mobilenet_v1
key=TargetCycles
timeout_s=900
sim=0
sim_timeout=1800
synth=0
jobs=2
build=1
keep=
mem_gb=$(awk '/^MemTotal/ {printf "%d", $2 * 3 / 4 / 1048576}' /proc/meminfo)
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kiln) kiln=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --key) key=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --mem-limit) mem_gb=$2; shift 2 ;;
    --sim) sim=1; shift ;;
    --sim-timeout) sim_timeout=$2; shift 2 ;;
    --synth) synth=1; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
case "$key" in TargetCycles|LatencyCycles|both) ;; *) echo "--key: TargetCycles, LatencyCycles or both" >&2; exit 2 ;; esac
[[ -x $kiln ]] || { echo "no $kiln: build kiln first (bash scripts/build.sh)" >&2; exit 2; }
if [[ -n $keep ]]; then
  mkdir -p "$keep"; t=$(cd "$keep" && pwd)
else
  t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fi

# Published latency in 7 ns cycles (round(latency / 7 ns)).
declare -A budget=([resnet8]=58714 [resnet8_avgpool]=58714 [dscnn]=46285 [fc_autoencoder]=2671 [mobilenet_v1]=1355714)
sets=(--set Part=xc7z020clg400-1 --set ClockPeriod=7
      --set "Model.Precision.weight=ap_fixed<8,3>" --set "Model.Precision.result=ap_fixed<8,4>")

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
  [[ -n ${budget[$m]:-} ]] || { echo "unknown model $m" >&2; exit 2; }
  onnx=models/mlperf_tiny/$m/model.onnx
  [[ -f $onnx ]] || { echo "no $onnx: /usr/bin/python3 models/mlperf_tiny/generate.py" >&2; exit 2; }
  "$kiln" info "$onnx" --json > "$t/$m.info.json"
  [[ $build == 1 ]] || continue
  l=${budget[$m]}
  case "$key" in
    both) ks=(--set "Model.TargetCycles=$l" --set "Model.LatencyCycles=$l") ;;
    *) ks=(--set "Model.$key=$l") ;;
  esac
  # --over-capacity: the table shows what kiln builds even where it does not fit the part.
  step "$m.rtl" "$timeout_s" "$kiln" rtl "$onnx" "${sets[@]}" "${ks[@]}" -o "$t/$m" --force --over-capacity --json
  [[ $(cut -d' ' -f1 "$t/$m.rtl.step") == 0 ]] || continue
  if [[ $sim == 1 ]]; then
    step "$m.sim" $((2 * sim_timeout + 120)) "$kiln" rtlsim "$t/$m" --samples 1 \
      --simulator verilator --timeout "$sim_timeout" --json
  fi
  if [[ $synth == 1 ]]; then
    step "$m.syn" 86400 "$kiln" synth "$t/$m" --jobs "$jobs" --json
    if [[ $(cut -d' ' -f1 "$t/$m.syn.step") != 0 ]] && grep -q -- "--jobs" "$t/$m.syn.err"; then
      step "$m.syn" 86400 "$kiln" synth "$t/$m" --json  # a kiln without synth --jobs
    fi
  fi
done

/usr/bin/python3 - "$t" "$models" "$timeout_s" "$key" "$build" <<'PY'
import json, os, sys
t, models, limit, key, build = sys.argv[1], sys.argv[2].split(","), sys.argv[3], sys.argv[4], sys.argv[5] == "1"
CLOCK_NS = 7.0
DSPS = 220  # xc7z020
PUBLISHED = {  # model: (seconds, who)
    "resnet8": (0.411e-3, "fpgaConvNet v1.1 ZedBoard"),
    "resnet8_avgpool": (0.411e-3, "ResNet-8's; this is its F.avg_pool2d variant"),
    "dscnn": (0.324e-3, "fpgaConvNet v1.1 ZedBoard"),
    "fc_autoencoder": (18.7e-6, "hls4ml v0.7 Pynq-Z2"),
    "mobilenet_v1": (9.49e-3, "fpgaConvNet v1.1 ZedBoard"),
}

sys.dont_write_bytecode = True
sys.path.insert(0, "bench")
import bench_steps
load = bench_steps.load

def stepinfo(name): return bench_steps.stepinfo(t, name)

def why(rc, err): return bench_steps.why(rc, err, limit, quote=True)

def mem(kb): return "" if not kb else f", {kb / 1048576:.1f} GB" if kb >= 1048576 else f", {kb // 1024} MB"

def dur(s):
    return f"{s * 1e3:.3g} ms" if s >= 1e-4 else f"{s * 1e6:.3g} us"

def n(x): return "-" if x is None else f"{x:,.0f}"

print(f"kiln rtl: xc7z020clg400-1, 7 ns, weight ap_fixed<8,3>, result ap_fixed<8,4>, "
      f"Model.{key if key != 'both' else 'TargetCycles and LatencyCycles'} = published latency in 7 ns cycles")
print()
print("| model | MACs | bound cycles (220 / 440) | kiln rtl | kiln cycles (latency / interval) | latency at 7 ns "
      "| LUT | FF | DSP | BRAM18 | published |")
print("|---|---:|---:|---|---|---:|---:|---:|---:|---:|---|")
for m in models:
    macs = load(os.path.join(t, m + ".info.json")).get("total_macs")
    pub_s, who = PUBLISHED[m]
    pub = f"{dur(pub_s)} ({int(pub_s / (CLOCK_NS * 1e-9)):,} cycles at 7 ns; {who})"
    bound = f"{-(-macs // DSPS):,} / {-(-macs // (2 * DSPS)):,}" if macs else "-"
    r = stepinfo(m + ".rtl") if build else None
    if r is None:
        print(f"| {m} | {n(macs)} | {bound} | not run | - | - | - | - | - | - | {pub} |")
        continue
    rc, secs, rss, rtl, err = r
    if rc != 0:
        print(f"| {m} | {n(macs)} | {bound} | {secs:.1f} s{mem(rss)}: {why(rc, err)} | - | - | - | - | - | - | {pub} |")
        continue
    rep = load(os.path.join(t, m, "report.json")) or rtl
    lat, ii, src = rep.get("latency_cycles"), rep.get("interval_cycles"), "schedule"
    s = stepinfo(m + ".sim")
    if s is not None:
        if s[0] == 0 and s[3].get("latency_cycles") is not None:
            lat, ii = s[3]["latency_cycles"], s[3].get("interval_cycles", ii)
            src = "rtlsim, bit-exact" if s[3].get("bit_exact") else "rtlsim, NOT bit-exact"
        else:
            src = f"schedule; rtlsim: {why(s[0], s[4])}"
    est = rep.get("estimate", {})
    res = [f"{n(est.get(k))} est." for k in ("lut", "ff", "dsp", "bram18")]
    y = stepinfo(m + ".syn")
    if y is not None:
        if y[0] == 0 and y[3]:
            res = [n(y[3].get(k)) for k in ("lut", "ff", "dsp", "bram18")]
        else:
            res[0] += f" (synth: {why(y[0], y[4])})"
    at = dur(lat * CLOCK_NS * 1e-9) if lat is not None else "-"
    print(f"| {m} | {n(macs)} | {bound} | {secs:.1f} s{mem(rss)} | {n(lat)} / {n(ii)} ({src}) | {at} | "
          + " | ".join(res) + f" | {pub} |")
print()
print(f"(bound: MACs / {DSPS} DSPs, and / {2 * DSPS} with two 8-bit products per DSP, one product per DSP "
      "per cycle; the Zynq-7020 has 53,200 LUT, 106,400 FF, 220 DSP, 280 BRAM18)")
PY
