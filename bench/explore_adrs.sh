#!/usr/bin/env bash
# kiln explore's strategies against the true frontier: for each model, the
# frontier of every design of the layers' candidates placed
# (--strategy exhaustive, where the space holds at most 200,000 designs) and
# the frontiers of kiln's strategy and seed 003's, each with its time, the
# designs it placed and its ADRS (average distance from the reference set,
# over latency and LUTs: for each exhaustive frontier point, the least over
# the strategy's points of the larger relative excess, averaged; 0 when the
# strategy's frontier covers the true one). Model options go to every run.
#   bash bench/explore_adrs.sh [--kiln build/apps/kiln/kiln] [--models mlp,thxprlsg]
#                              [--jobs N] [-- EXPLORE OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")/.."
kiln=build/apps/kiln/kiln
models=thxprlsg,dense_b,mlp
jobs=2
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kiln) kiln=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $kiln ]] || { echo "no $kiln: build kiln first (bash scripts/build.sh)" >&2; exit 2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
printf "%-12s %-13s %9s %9s %8s %9s %8s\n" model strategy seconds priced placed frontier adrs
for m in ${models//,/ }; do
  f=models/zoo/$m/model.onnx
  [[ -f $f ]] || f=models/coverage/$m/model.onnx
  for s in exhaustive kiln deepflexihls; do
    if ! "$kiln" explore "$f" --strategy "$s" --jobs "$jobs" "${extra[@]}" -o "$t/$m-$s" \
        > /dev/null 2> "$t/$m-$s.err"; then
      printf "%-12s %-13s refused: %s\n" "$m" "$s" "$(tail -1 "$t/$m-$s.err" | head -c 120)"
      continue
    fi
    python3 - "$t/$m-exhaustive/frontier.json" "$t/$m-$s/frontier.json" "$m" "$s" <<'EOF'
import json, os, sys
ref_path, got_path, model, strategy = sys.argv[1:5]
got = json.load(open(got_path))
adrs = "-"
if os.path.exists(ref_path):
    ref = json.load(open(ref_path))["points"]
    ex = lambda a, r: max(0.0, (a - r) / max(r, 1.0))
    adrs = "%.2f%%" % (100 * sum(
        min(max(ex(a["latency_cycles"], r["latency_cycles"]), ex(a["lut"], r["lut"]))
            for a in got["points"]) for r in ref) / len(ref))
print("%-12s %-13s %9.1f %9d %8d %9d %8s" % (model, strategy, got["seconds"],
      got["points_priced"], got["points_placed"], len(got["points"]), adrs))
EOF
  done
done
