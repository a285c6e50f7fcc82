#!/usr/bin/env bash
# kiln's netlist interpreter against Verilator on the same designs, in the
# same run: per zoo model, `kiln rtlsim --simulator verilator` (its build plus
# run) and `kiln rtlsim --simulator kiln` (parsing netlist.knl, elaborating it
# and running it) on the same samples, both held bit for bit to kiln's
# emulator, and their measured latency and interval, which must agree with
# each other and the schedule. Prints the times and the ratio; exits 1 if any
# design differs.
#   bash bench/rtl_interpreter.sh [--kiln build/apps/kiln/kiln] [--samples N] [--models a,b,c]
#                                 [--set KEY=VALUE ...]
set -euo pipefail
cd "$(dirname "$0")/.."
kiln=build/apps/kiln/kiln
samples=8
models=vecmul_a,vecmul_b,dense_a,dense_b,softmax_a,softmax_b,conv2d_a,conv2d_b,maxpool_a,maxpool_b,thxprlsg,mlp,addmm,batch_norm_2d,conv_2d,max_pool_2d,soft_max
sets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --set) sets+=(--set "$2"); shift 2 ;;
    --kiln) kiln=$2; shift 2 ;;
    --samples) samples=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $kiln ]] || { echo "no $kiln: build kiln first (bash scripts/build.sh)" >&2; exit 2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
printf "%-14s %9s %10s %10s %9s %9s %8s %8s %7s\n" model values "verilator" "kiln" ratio latency II equal
fail=0
for m in ${models//,/ }; do
  "$kiln" rtl "models/zoo/$m/model.onnx" -o "$t/$m" "${sets[@]}" --json > "$t/$m.rtl.json"
  "$kiln" rtlsim "$t/$m" --samples "$samples" --simulator verilator --timeout 3600 --json > "$t/$m.v.json" || true
  "$kiln" rtlsim "$t/$m" --samples "$samples" --simulator kiln --json > "$t/$m.k.json" || true
  /usr/bin/python3 - "$t/$m" "$m" <<'PY' || fail=1
import json, sys
d, m = sys.argv[1], sys.argv[2]
def load(p):
    try: return json.load(open(p))
    except Exception: return {}
rtl, v, k = load(d + ".rtl.json"), load(d + ".v.json"), load(d + ".k.json")
values = sum(s.get("nodes", 0) for s in rtl.get("stages", []))
tv = (v.get("build_seconds") or 0) + (v.get("run_seconds") or 0)
tk = (k.get("build_seconds") or 0) + (k.get("run_seconds") or 0)
same = all(v.get(f) == k.get(f) for f in ("latency_cycles", "interval_cycles")) and \
    v.get("bit_exact") is True and k.get("bit_exact") is True
ratio = f"{tv / tk:9.0f}x" if tk > 0 else f"{'-':>10s}"
print(f"{m:14s} {values:9d} {tv:10.2f} {tk:10.3f} {ratio} {k.get('latency_cycles')!s:>8s} "
      f"{k.get('interval_cycles')!s:>8s} {same!s:>7s}")
sys.exit(0 if same else 1)
PY
done
echo "(verilator: build + run seconds; kiln: netlist parse + elaboration + run seconds; values: graph nodes)"
exit $fail
