#!/usr/bin/env bash
# Fuzzing tier: libFuzzer + AddressSanitizer + UndefinedBehaviorSanitizer.
#   scripts/fuzz.sh [SECONDS] [TARGET]   default 600 s of `import`; findings go to
#                                        build-fuzz/findings/
# Targets: import   ONNX bytes -> importer -> reference interpreter
#          ir_text  text -> graph IR parser and layer model parser, each round-tripped
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
target="${2:-import}"
case "$target" in
  import|ir_text) ;;
  *) echo "fuzz.sh: unknown target '$target' (import or ir_text)" >&2; exit 2 ;;
esac
bash scripts/install-deps.sh
export DEBIAN_FRONTEND=noninteractive
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
$SUDO apt-get install -y --no-install-recommends clang libclang-rt-14-dev libomp-14-dev
san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -g -O1"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DKILN_FUZZ=ON -DKILN_WERROR=OFF \
  -DKILN_NATIVE=OFF -DCMAKE_CXX_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
cmake --build build-fuzz --target "${target}_fuzzer" -j "$(nproc)"
corpus="build-fuzz/corpus-$target"
mkdir -p "$corpus" build-fuzz/findings
if [[ "$target" == import ]]; then
  # Seed corpus: the zoo and the ONNX conformance models.
  for f in models/zoo/*/model.onnx /usr/share/libonnx-testdata/data/node/*/model.onnx; do
    cp "$f" "$corpus/$(echo "$f" | md5sum | cut -c1-16).onnx"
  done
else
  # Seed corpus: every zoo model as graph IR text and as layer model text.
  cmake --build build-fuzz --target kiln_cli -j "$(nproc)"
  for d in models/zoo/*/; do
    m=$(basename "$d")
    build-fuzz/apps/kiln/kiln ir "$d/model.onnx" --inline -o "$corpus/$m.kir" --force >/dev/null
    build-fuzz/apps/kiln/kiln layers "$d/model.onnx" -o "$corpus/$m.layers" --force >/dev/null || true
  done
fi
"build-fuzz/fuzz/${target}_fuzzer" "$corpus" -max_total_time="$seconds" -rss_limit_mb=4096 \
  -timeout=30 -artifact_prefix=build-fuzz/findings/ -print_final_stats=1
