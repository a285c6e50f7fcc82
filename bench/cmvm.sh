#!/usr/bin/env bash
# Constant matrix products: kiln's adder graphs (rtl/cmvm/cmvm.h) against da4ml's
# core on the same integer matrices (issue 27). Prints, per matrix, kiln's
# adders and adder depth unconstrained and at the minimal depth, and da4ml's
# (hard_dc -1 and 0) when DA4ML_SRC names a checkout, or the bare git
# directory, of calad0i/da4ml: its C++ core is built into a temporary
# directory with a harness this script writes (nothing of it enters the
# repository). Matrices: five random 16x16 8-bit ones, a 27x8 8-bit
# convolution, and the jet tagger's shapes (16x64, 64x32, 32x32, 32x5) of
# normal weights in ap_fixed<8,3> with 16-bit inputs.
#
#   bench/cmvm.sh [--no-build]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
if [ "${1:-}" != --no-build ]; then cmake --build "$build" -j2 --target kiln_bench_cmvm >/dev/null; fi
bench=$build/bench/kiln_bench_cmvm
work=$(mktemp -d)
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
mkdir -p "$work/mats"

/usr/bin/python3 - "$work/mats" <<'EOF'
import sys
import numpy as np
out = sys.argv[1]
def save(name, m):
    with open(f"{out}/{name}.txt", "w") as f:
        f.write(f"{m.shape[0]} {m.shape[1]}\n")
        for row in m:
            f.write(" ".join(repr(float(v)) for v in row) + "\n")
for k in range(5):
    save(f"int8_random16x16_{k}", np.random.default_rng(100 + k).integers(-128, 128, (16, 16)))
save("int8_conv27x8", np.random.default_rng(7).integers(-128, 128, (27, 8)))
rng = np.random.default_rng(11)
for a, b in [(16, 64), (64, 32), (32, 32), (32, 5)]:
    w = np.clip(np.round(rng.normal(0.0, 1.0, (a, b)) * 32), -128, 127) / 32.0
    save(f"jet{a}x{b}", w)
EOF

# kiln: matrix adders depth min_adders min_depth
declare -A kiln
while read -r name adders depth bits ms _ madders mdepth _; do
  kiln[$name]="$adders $depth $madders $mdepth"
done < <("$bench" "$work"/mats/int8_*.txt | tail -n +2; "$bench" --input-bits 16 "$work"/mats/jet*.txt | tail -n +2)

peer=""
if [ -n "${DA4ML_SRC:-}" ]; then
  d=$work/da4ml
  mkdir -p "$d/src/src/da4ml/_binary/cmvm" "$d/shim/nanobind"
  core=$d/src/src/da4ml/_binary/cmvm
  if [ -d "$DA4ML_SRC/src/da4ml/_binary/cmvm" ]; then
    cp "$DA4ML_SRC"/src/da4ml/_binary/cmvm/*.cc "$DA4ML_SRC"/src/da4ml/_binary/cmvm/*.hh "$core/"
  else
    git --git-dir="$DA4ML_SRC" archive HEAD src/da4ml/_binary/cmvm | tar -x -C "$d/src"
  fi
  dpkg -s xtensor-dev >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y xtensor-dev >/dev/null; }
  # Its Python bindings are left out: nanobind declared empty, the numpy entry point dropped.
  printf '#pragma once\nnamespace nanobind { struct tuple {}; template <class... T> struct ndarray {}; namespace literals {} }\n' >"$d/shim/nanobind/nanobind.h"
  echo '#pragma once' >"$d/shim/nanobind/ndarray.h"
  /usr/bin/python3 - "$core/mat_decompose.cc" "$core/mat_decompose.hh" <<'EOF'
import re, sys
cc, hh = sys.argv[1], sys.argv[2]
s = open(cc).read()
i = s.find("nb::tuple kernel_decompose_numpy")
if i >= 0:
    j = s.index("{", i); depth = 0; k = j
    while True:
        depth += {"{": 1, "}": -1}.get(s[k], 0)
        if depth == 0: break
        k += 1
    s = s[:i] + s[k + 1:]
open(cc, "w").write(s)
h = re.sub(r"nb::tuple kernel_decompose_numpy\([^;]*\);", "", open(hh).read())
open(hh, "w").write(h)
EOF
  # Debian's xtensor 0.24 keeps its headers in one folder: forward the newer paths da4ml includes.
  grep -ho '#include [<"]xtensor/[a-z_]*/[a-z_]*\.hpp[>"]' "$core"/*.hh "$core"/*.cc | sort -u | while read -r _ inc; do
    p=${inc:1:${#inc}-2}; mkdir -p "$d/shim/$(dirname "$p")"
    echo "#include <xtensor/$(basename "$p")>" >"$d/shim/$p"
  done
  cat >"$d/harness.cpp" <<'EOF'
// bench/cmvm.sh's call of da4ml's solve(): adders (ops that add or subtract)
// and the outputs' latest arrival (its adder depth).
#include <cstdio>
#include <fstream>
#include <string>

#include "api.hh"

int main(int argc, char** argv) {
  std::ifstream in(argv[1]);
  std::size_t rows = 0, cols = 0;
  in >> rows >> cols;
  xt::xarray<float> m = xt::zeros<float>({rows, cols});
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      double v = 0;
      in >> v;
      m(i, j) = static_cast<float>(v);
    }
  const int hard_dc = std::stoi(argv[2]);
  std::vector<QInterval> q;
  if (argc > 4) q.assign(rows, QInterval{std::stof(argv[3]), std::stof(argv[4]), 1.0f});
  const PipelineResult r = solve(m, "wmc", "auto", hard_dc, -2, q, {}, -1, -1, true);
  long adders = 0;
  for (const auto& stage : r.solutions)
    for (const auto& op : stage.ops) adders += op.opcode == 0 || op.opcode == 1;
  float depth = 0;
  const auto& last = r.solutions.back();
  for (const auto idx : last.out_idxs)
    if (idx >= 0 && last.ops[idx].latency > depth) depth = last.ops[idx].latency;
  std::printf("%ld %.0f\n", adders, depth);
}
EOF
  objs=()
  for f in "$core"/*.cc; do
    case $(basename "$f") in bindings.cc | debug.cc) continue ;; esac  # Python's, and a debug aid
    g++ -std=c++20 -O2 -fopenmp -I"$d/shim" -I"$d/src" -I"$core" -c "$f" -o "$d/$(basename "$f" .cc).o"
    objs+=("$d/$(basename "$f" .cc).o")
  done
  g++ -std=c++20 -O2 -fopenmp -I"$d/shim" -I"$d/src" -I"$core" "$d/harness.cpp" "${objs[@]}" -o "$d/da4ml"
  peer=$d/da4ml
fi

printf '%-22s | %12s %12s | %12s %12s\n' matrix "kiln free" "da4ml free" "kiln min" "da4ml min"
printf '%-22s | %12s %12s | %12s %12s\n' "" "adders/depth" "adders/depth" "adders/depth" "adders/depth"
for f in "$work"/mats/*.txt; do
  name=$(basename "$f")
  read -r ka kd kma kmd <<<"${kiln[$name]}"
  da="-"; dm="-"
  if [ -n "$peer" ]; then
    range=(); case $name in jet*) range=(-32768 32767) ;; esac
    da=$("$peer" "$f" -1 "${range[@]}" | tr ' ' /)
    dm=$("$peer" "$f" 0 "${range[@]}" | tr ' ' /)
  fi
  printf '%-22s | %12s %12s | %12s %12s\n' "${name%.txt}" "$ka/$kd" "$da" "$kma/$kmd" "$dm"
done
