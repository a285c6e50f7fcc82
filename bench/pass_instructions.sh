#!/usr/bin/env bash
# Instructions per node of every graph pass (and the verifier, the IR printer
# and parser) at two graph sizes, counted by valgrind's callgrind: a measure of
# the algorithm that cache effects do not blur. Linear passes give equal counts.
#   bash bench/pass_instructions.sh [SMALL] [LARGE]     (default 10000 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
small="${1:-10000}"
large="${2:-100000}"
bin=build/bench/kiln_bench_passes
[ -x "$bin" ] || { echo "build first: bash scripts/build.sh" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A fn=(
  [remove_identity]='kiln::passes::RemoveIdentityPass::run*'
  [form_dense]='kiln::passes::FormDensePass::run*'
  [fold_batchnorm]='kiln::passes::FoldBatchNormPass::run*'
  [fuse_activation]='kiln::passes::FuseActivationPass::run*'
  [softmax_last_axis]='kiln::passes::SoftmaxLastAxisPass::run*'
  [channels_last]='kiln::passes::ChannelsLastPass::run*'
  [simplify_layout]='kiln::passes::SimplifyLayoutPass::run*'
  [verify]='kiln::IrTraits<kiln::Graph>::verify*'
  [print]='kiln::print_ir*'
  [parse]='kiln::parse_ir*'
)
printf "%-20s %14s %14s %8s\n" "instructions/node" "$small" "$large" "ratio"
for name in remove_identity form_dense fold_batchnorm fuse_activation softmax_last_axis \
            channels_last simplify_layout verify print parse; do
  row=()
  for n in "$small" "$large"; do
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" --toggle-collect="${fn[$name]}" \
      "$bin" --sizes "$n" --repeats 1 --json "$tmp/run.json" >/dev/null 2>&1
    ir=$(callgrind_annotate "$tmp/cg" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
    nodes=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['nodes'][0])" "$tmp/run.json")
    row+=("$(python3 -c "print(f'{$ir / $nodes:.0f}')")")
  done
  printf "%-20s %14s %14s %8s\n" "$name" "${row[0]}" "${row[1]}" \
    "$(python3 -c "print(f'{${row[1]} / ${row[0]}:.2f}')")"
done
