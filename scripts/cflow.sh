#!/usr/bin/env bash
# scripts/cflow.sh [OUT_DIR]
#
# The C flow's tier (docs/cflow.md), beyond the default suite's samples of it:
#   1. every zoo, coverage and MLPerf Tiny model that `kiln compile` accepts, compiled with
#      `--set Backend=bambu` (seed 001's C99) and with `--set Style=loops` (Vitis C++), each
#      C-simulated bit-exact with kiln's emulator (`kiln csim --samples 3 --werror`);
#   2. every zoo and coverage model with every loop unrolled (`Loop.<each>.Unroll=full`), its
#      Bambu C built with gcc -std=c99 -Wall -Wextra -pedantic -Werror -fopenmp and run on two
#      threads: the loops marked `omp parallel for`, their bodies split into functions, must
#      still give the emulator's raw outputs (the project's own `make csim`).
# Exit 0 only when every project is bit-exact; the last line counts them.
set -uo pipefail
cd "$(dirname "$0")/.."
kiln=build/apps/kiln/kiln
[ -x "$kiln" ] || { echo "no $kiln: build kiln first (bash scripts/build.sh)" >&2; exit 2; }
out=${1:-$(mktemp -d)}
mkdir -p "$out"
n=0
ok=0
par=0
for dir in models/zoo/*/ models/coverage/*/ models/mlperf_tiny/*/; do
  [ -f "$dir/model.onnx" ] || continue
  name=$(basename "$dir")
  # A model the layer flow refuses is refused by the C flow too; it is not counted.
  "$kiln" compile "$dir/model.onnx" -o "$out/$name.layers" --force > /dev/null 2>&1 || continue
  for style in Backend=bambu Style=loops; do
    prj=$out/$name.${style%%=*}
    n=$((n + 1))
    if "$kiln" compile "$dir/model.onnx" --set "$style" -o "$prj" --force > "$prj.log" 2>&1 &&
       "$kiln" csim "$prj" --samples 3 --werror >> "$prj.log" 2>&1; then
      ok=$((ok + 1))
    else
      echo "DIFFERS or FAILED: $name $style (log: $prj.log)"
    fi
  done
  case $dir in models/mlperf_tiny/*) continue ;; esac
  sets=()
  while read -r loop; do sets+=(--set "Loop.$loop.Unroll=full"); done < <(
    "$kiln" rtl "$dir/model.onnx" --list-loops --json 2> /dev/null |
      /usr/bin/python3 -c 'import json, sys; [print(l["name"]) for l in json.load(sys.stdin)["loops"]]')
  [ ${#sets[@]} -gt 0 ] || continue
  prj=$out/$name.openmp
  n=$((n + 1))
  if "$kiln" compile "$dir/model.onnx" --set Backend=bambu "${sets[@]}" -o "$prj" --force \
       > "$prj.log" 2>&1 &&
     OMP_NUM_THREADS=2 make -B -C "$prj" csim OPENMP=-fopenmp \
       "CFLAGS=-std=c99 -O1 -Wall -Wextra -pedantic -Werror" >> "$prj.log" 2>&1 &&
     grep -q " 0 differ" "$prj.log"; then
    ok=$((ok + 1))
    par=$((par + $(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["parallel_loops"])' "$prj/report.json")))
  else
    echo "DIFFERS or FAILED: $name every loop unrolled, on 2 threads (log: $prj.log)"
  fi
done
echo "cflow: $ok of $n projects bit-exact ($par loops marked omp parallel for)"
[ "$ok" -eq "$n" ]
