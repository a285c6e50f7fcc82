#!/usr/bin/env bash
# scripts/ap_types.sh AP_TYPES_DIR [OUT_DIR]
#
# The ap_types tier: every zoo model compiled in io_parallel, io_stream and
# io_stream with encoded convolutions, and as the loop nests of `Style: loops`
# (the typed C++ from kiln's loop IR, docs/cflow.md), C-simulated by kiln (20 random samples,
# bit-exact with the emulator), then rebuilt against the vendor's ap_fixed
# headers in AP_TYPES_DIR with the project's `make csim_ap_types`, which
# requires every raw output to equal the kiln_fixed.h build's. The headers are
# never part of kiln: fetch Xilinx's HLS_arbitrary_Precision_Types (include/)
# and add an hls_stream.h (e.g. hls4ml's templates/vivado/ap_types/).
# VARIANTS (default "io_parallel io_stream encoded loops") picks some.
# Exit 0 only when every project is identical; the last line counts them.
set -uo pipefail
cd "$(dirname "$0")/.."
apt=${1:?usage: scripts/ap_types.sh AP_TYPES_DIR [OUT_DIR]}
[ -f "$apt/ap_fixed.h" ] && [ -f "$apt/hls_stream.h" ] || {
  echo "$apt: needs ap_fixed.h and hls_stream.h; see the comment at the top of $0" >&2
  exit 2
}
apt=$(readlink -f "$apt")
out=${2:-$(mktemp -d)}
mkdir -p "$out"
kiln=build/apps/kiln/kiln
n=0
ok=0
for dir in models/zoo/*/; do
  model=$(basename "$dir")
  for variant in ${VARIANTS:-io_parallel io_stream encoded loops}; do
    sets=(--set IOType=io_stream)
    case $variant in
      io_parallel) sets=(--set IOType=io_parallel) ;;
      encoded) sets+=(--set Model.ConvImplementation=Encoded) ;;
      loops) sets=(--set Style=loops) ;;
    esac
    prj=$out/${model}__$variant
    n=$((n + 1))
    if "$kiln" compile "$dir/model.onnx" -o "$prj" --force "${sets[@]}" > "$prj.log" 2>&1 &&
       "$kiln" csim "$prj" --samples 20 >> "$prj.log" 2>&1 &&
       make -C "$prj" csim_ap_types AP_TYPES="$apt" >> "$prj.log" 2>&1; then
      ok=$((ok + 1))
    else
      echo "DIFFERS or FAILED: $model $variant (log: $prj.log)"
    fi
  done
done
echo "ap_types: $ok of $n projects identical"
[ "$ok" -eq "$n" ]
