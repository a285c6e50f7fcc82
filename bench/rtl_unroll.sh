#!/usr/bin/env bash
# Unrolling with store-to-load forwarding, kiln against MLIR (issue 9): the
# affine form of a 3x3 single-channel convolution over an n x n image goes
# through Debian's mlir-opt-16 (-affine-loop-unroll=unroll-full once per loop
# level, then -affine-scalrep); kiln unrolls the same nest (Loop IR lowering +
# symbolic unrolling) and builds the whole design, in the same run. Prints a
# table with the ratios. Needs mlir-16-tools (scripts/install-deps.sh --torch).
#   bash bench/rtl_unroll.sh [--bench build/bench/kiln_bench_rtl_unroll]
#                            [--mlir-sizes 6,10,18] [--kiln-sizes 6,10,18,128] [--timeout 900]
set -euo pipefail
cd "$(dirname "$0")/.."
bench=build/bench/kiln_bench_rtl_unroll
mlir_sizes=6,10,18
kiln_sizes=6,10,18,128
limit=900
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bench) bench=$2; shift 2 ;;
    --mlir-sizes) mlir_sizes=$2; shift 2 ;;
    --kiln-sizes) kiln_sizes=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $bench ]] || { echo "no $bench: build kiln first (bash scripts/build.sh)" >&2; exit 2; }
opt=/usr/lib/llvm-16/bin/mlir-opt
[[ -x $opt ]] || { echo "no $opt: run scripts/install-deps.sh --torch (mlir-16-tools)" >&2; exit 2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT

conv_mlir() {  # the nest of seed 004 / the issue: y[i][j] += x[i+ki][j+kj] * w[ki][kj]
  local n=$1 o=$(($1 - 2))
  cat <<MLIR
func.func @conv(%x: memref<${n}x${n}xf32>, %w: memref<3x3xf32>, %y: memref<${o}x${o}xf32>) {
  affine.for %i = 0 to ${o} {
    affine.for %j = 0 to ${o} {
      affine.for %ki = 0 to 3 {
        affine.for %kj = 0 to 3 {
          %a = affine.load %x[%i + %ki, %j + %kj] : memref<${n}x${n}xf32>
          %b = affine.load %w[%ki, %kj] : memref<3x3xf32>
          %c = affine.load %y[%i, %j] : memref<${o}x${o}xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %c, %p : f32
          affine.store %s, %y[%i, %j] : memref<${o}x${o}xf32>
        }
      }
    }
  }
  return
}
MLIR
}

declare -A mlir_s mlir_ops
for n in ${mlir_sizes//,/ }; do
  conv_mlir "$n" > "$t/conv$n.mlir"
  P=-affine-loop-unroll=unroll-full
  s=$(date +%s.%N)
  if timeout "$limit" "$opt" "$t/conv$n.mlir" $P $P $P $P -affine-scalrep -o "$t/out$n.mlir"; then
    mlir_s[$n]=$(echo "$(date +%s.%N) - $s" | bc)
    mlir_ops[$n]=$(grep -c "arith.mulf" "$t/out$n.mlir" || true)
  else
    mlir_s[$n]="timeout>$limit"
  fi
done

printf "%-6s %8s %14s %12s %10s %10s %12s %10s\n" n MACs "mlir-opt s" "kiln unroll s" ratio nodes "kiln rtl s" "Verilog MB"
"$bench" --sizes "$kiln_sizes" | while read -r line; do
  n=$(echo "$line" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["n"])')
  read -r macs u nodes r bytes < <(echo "$line" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["macs"], d["unroll_seconds"], d["nodes"], d["rtl_seconds"], d["verilog_bytes"])')
  m=${mlir_s[$n]:-not run}
  ratio=-
  if [[ $m =~ ^[0-9.]+$ ]]; then ratio=$(echo "scale=0; $m / $u" | bc)x; fi
  printf "%-6s %8s %14s %12s %10s %10s %12s %10s\n" "$n" "$macs" "$m" "$u" "$ratio" "$nodes" "$r" \
    "$(echo "scale=1; $bytes / 1000000" | bc)"
done
for n in ${mlir_sizes//,/ }; do
  [[ -n ${mlir_ops[$n]:-} ]] && echo "mlir-opt left ${mlir_ops[$n]} multiplies for n=$n (of $(( (n-2)*(n-2)*9 )))"
done
echo "mlir-opt: $($opt --version | grep -i version | head -1 | xargs)"
