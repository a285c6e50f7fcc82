#!/usr/bin/env bash
# Calibrates kiln's RTL resource estimate against Yosys, in one command:
#   bash bench/calibrate.sh [--kiln build/apps/kiln/kiln] [--designs a,b] [--work DIR] [--fit-only]
# 1. builds every design of bench/calibration/designs.txt with `kiln rtl` and counts it with
#    `kiln synth --jobs 2` (per module, out of context); Yosys's counts are cached in the work
#    directory (default out/calibration) by the hash of the design's Verilog, so a rerun only
#    synthesizes designs whose Verilog changed;
# 2. writes bench/calibration/data.csv: one row per stage module (and the top's own cells) with
#    the estimate, its features (the stage's `calibration` breakdown) and Yosys's counts;
# 3. fits the coefficients on the training designs (bench/calibration/fit.py) and reports the
#    error on the training and held-out designs: bench/calibration/fit.txt, and writes
#    src/kiln/rtl/stage/calibration_coefficients.inc (the table the estimate compiles in; rebuild).
# About 30 minutes from scratch on this 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
kiln=build/apps/kiln/kiln
work=out/calibration
only=""
fit_only=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kiln) kiln=$2; shift 2 ;;
    --designs) only=",$2,"; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --fit-only) fit_only=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $kiln ]] || { echo "no $kiln: build kiln first (bash scripts/build.sh)" >&2; exit 2; }
mkdir -p "$work/cache"
cal=bench/calibration
if [[ $fit_only == 0 ]]; then
  names=()
  while IFS='|' read -r split name model sets; do
    [[ -z $split || $split == \#* ]] && continue
    [[ -n $only && $only != *",$name,"* ]] && continue
    names+=("$name")
    d=$work/$name
    # shellcheck disable=SC2086 # the settings are words
    if ! "$kiln" rtl "$model/model.onnx" $sets -o "$d" --force --json > "$d.rtl.json" 2> "$d.rtl.err"; then
      echo "$name: kiln rtl failed: $(tail -c 300 "$d.rtl.err")" >&2; continue
    fi
    key=$(cat "$d"/*.v | sha256sum | cut -c1-16)
    if [[ ! -s $work/cache/$key.syn.json ]]; then
      start=$(date +%s)
      if ! "$kiln" synth "$d" --jobs 2 --timeout 1200 --json > "$work/cache/$key.tmp" 2> "$d.syn.err"; then
        echo "$name: kiln synth failed: $(tail -c 300 "$d.syn.err")" >&2; rm -f "$work/cache/$key.tmp"; continue
      fi
      mv "$work/cache/$key.tmp" "$work/cache/$key.syn.json"
      echo "$name: synthesized in $(( $(date +%s) - start )) s" >&2
    fi
    cp "$work/cache/$key.syn.json" "$d.syn.json"
  done < "$cal/designs.txt"
  /usr/bin/python3 "$cal/collect.py" "$cal/designs.txt" "$work" > "$cal/data.csv.tmp"
  mv "$cal/data.csv.tmp" "$cal/data.csv"
fi
/usr/bin/python3 "$cal/fit.py" "$cal/data.csv" --table src/kiln/rtl/stage/calibration_coefficients.inc | tee "$cal/fit.txt"
