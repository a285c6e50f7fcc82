#!/usr/bin/env bash
# Where each folded design keeps its tensors: for every small zoo and coverage
# model that `kiln compile` accepts (the set of ../shared/checks/M-stream), built
# by `kiln rtl` at TargetCycles 2000 (MACs/1000 where that is more), prints the
# tensors between layers that went through channels and through registers, the
# most register bits one consumer holds for a tensor (report.json's handoffs),
# whether that consumer's plan is fully unrolled, and the bits in the top's delay
# lines. A line is flagged OVER when a consumer that keeps a loop holds more
# than 64 Kbit, or the top's delay lines do; the exit status is 1 then.
#   bash bench/stream_audit.sh [--kiln build/apps/kiln/kiln] [--target N] [--models a,b]
set -euo pipefail
cd "$(dirname "$0")/.."
kiln=build/apps/kiln/kiln
target=2000
models=
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kiln) kiln=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $kiln ]] || { echo "no $kiln: build kiln first (bash scripts/build.sh)" >&2; exit 2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
limit=65536
over=0
printf "%-22s %8s %9s %9s %12s %-10s %10s\n" model target channels registers max_reg_bits holder top_bits
for d in models/zoo/*/ models/coverage/*/; do
  m=$(basename "$d"); f="$d/model.onnx"
  [[ -n $models && ",$models," != *",$m,"* ]] && continue
  [[ -f $f && $(stat -c %s "$f") -lt 5000000 ]] || continue
  macs=$("$kiln" info "$f" --json 2>/dev/null |
    python3 -c "import json,sys; print(json.load(sys.stdin).get('total_macs', 0))" 2>/dev/null || echo 0)
  [[ ${macs:-0} -le 20000000 ]] || continue
  tc=$((macs / 1000 > target ? macs / 1000 : target))
  "$kiln" compile "$f" -o "$t/hls" >/dev/null 2>&1 || continue
  rm -rf "$t/hls"
  if ! "$kiln" rtl "$f" --set Model.TargetCycles=$tc -o "$t/$m" >/dev/null 2>"$t/err"; then
    printf "%-22s %8d refused: %s\n" "$m" "$tc" "$(head -c 120 "$t/err" | tr '\n' ' ')"
    over=1
    continue
  fi
  line=$(python3 - "$t/$m/report.json" "$limit" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
limit = int(sys.argv[2])
unrolled = {s["name"]: "fully unrolled" in s["plan"] for s in r["stages"]}
hs = r["handoffs"]
regs = [h for h in hs if h["through"] == "registers"]
worst = max(regs, key=lambda h: h.get("register_bits", 0), default=None)
bits = worst.get("register_bits", 0) if worst else 0
holder = "-" if worst is None else ("unrolled" if unrolled.get(worst["to"], False) else "loop")
top = r["top_estimate"]["delay_register_bits"]
flag = (top > limit) or any(h.get("register_bits", 0) > limit and not unrolled.get(h["to"], False)
                            for h in regs)
print(f"{len(hs) - len(regs):9d} {len(regs):9d} {bits:12d} {holder:<10} {top:10d}" +
      ("  OVER" if flag else ""))
EOF
)
  printf "%-22s %8d %s\n" "$m" "$tc" "$line"
  [[ $line == *OVER ]] && over=1
  rm -rf "$t/$m"
done
exit $over
