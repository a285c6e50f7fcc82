#!/usr/bin/env bash
# Fuzzing tier: libFuzzer + AddressSanitizer + UndefinedBehaviorSanitizer on the
# ONNX importer and the reference interpreter.
#   scripts/fuzz.sh [SECONDS]      default 600; findings go to build-fuzz/findings/
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
bash scripts/install-deps.sh
export DEBIAN_FRONTEND=noninteractive
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
$SUDO apt-get install -y --no-install-recommends clang libclang-rt-14-dev libomp-14-dev
san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -g -O1"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DKILN_FUZZ=ON -DKILN_WERROR=OFF \
  -DKILN_NATIVE=OFF -DCMAKE_CXX_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
cmake --build build-fuzz --target import_fuzzer -j "$(nproc)"
# Seed corpus: the zoo and the ONNX conformance models.
mkdir -p build-fuzz/corpus build-fuzz/findings
for f in models/zoo/*/model.onnx /usr/share/libonnx-testdata/data/node/*/model.onnx; do
  cp "$f" "build-fuzz/corpus/$(echo "$f" | md5sum | cut -c1-16).onnx"
done
build-fuzz/fuzz/import_fuzzer build-fuzz/corpus -max_total_time="$seconds" -rss_limit_mb=4096 \
  -timeout=30 -artifact_prefix=build-fuzz/findings/ -print_final_stats=1
