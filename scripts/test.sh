#!/usr/bin/env bash
# Installs what is needed, builds, and runs a test tier.
#   scripts/test.sh            the default suite (unit, ONNX corpus, zoo, CLI, bad input)
#   scripts/test.sh slow       the slow tier: tests labelled `slow` (superwide's top-1 check, ~7 min)
#   scripts/test.sh rtl-zoo    the small zoo's RTL designs (../shared/checks/C-rtl-zoo's 17) each
#                              built and simulated in Icarus and Verilator (ctest label `rtl-zoo`)
#   scripts/test.sh ap_types DIR  every zoo project rebuilt against the vendor's ap_fixed headers in
#                              DIR and compared bit for bit (scripts/ap_types.sh; headers not included)
#   scripts/test.sh cflow      the C flow on every zoo, coverage and MLPerf Tiny model in both
#                              styles, and with every loop unrolled on OpenMP threads
#                              (scripts/cflow.sh)
#   scripts/test.sh large      the large tier: AlexNet, ZFNet, VGG-16 generated with PyTorch
#   scripts/test.sh fuzz [S]   libFuzzer on import + interpreter for S seconds (default 600)
#   scripts/test.sh fuzz-rtl [N]  N random RTL designs (default 100000, from seed
#                              KILN_RTL_FUZZ_FIRST, default 1000) in kiln's netlist interpreter
#                              against the emulator, every 1000th also in Icarus and every
#                              20000th in Verilator (about 9 min here; the default suite runs
#                              10,000, every 100th in Icarus)
set -euo pipefail
cd "$(dirname "$0")/.."
tier="${1:-default}"
case "$tier" in
  default)
    bash scripts/install-deps.sh
    bash scripts/build.sh
    ctest --test-dir build --output-on-failure -j 2 -LE 'large|slow|rtl-zoo'
    ;;
  rtl-zoo)
    bash scripts/install-deps.sh
    bash scripts/build.sh
    ctest --test-dir build --output-on-failure -j 2 -L rtl-zoo
    ;;
  slow)
    bash scripts/install-deps.sh
    bash scripts/build.sh
    ctest --test-dir build --output-on-failure -j 2 -L slow
    ;;
  ap_types)
    bash scripts/install-deps.sh
    bash scripts/build.sh
    bash scripts/ap_types.sh "${2:?scripts/test.sh ap_types DIR}"
    # The RTL's bit-exactness reproducers as HLS projects under the same headers.
    KILN_AP_TYPES="$(readlink -f "$2")" build/src/kiln/kiln_rtl_tests --gtest_filter='*BitExact.ApFixed*'
    ;;
  cflow)
    bash scripts/install-deps.sh
    bash scripts/build.sh
    bash scripts/cflow.sh
    ;;
  large)
    bash scripts/install-deps.sh --torch
    bash scripts/build.sh
    /usr/bin/python3 scripts/gen_zoo.py --tier large  # into models/large (git-ignored)
    build/apps/kiln/kiln test-onnx models/large/alexnet models/large/zfnet models/large/vgg16
    # The Loop IR interpreter bit-exact with the emulator on those models too (ctest's `large` label).
    ctest --test-dir build --output-on-failure -L large
    ;;
  fuzz)
    bash scripts/fuzz.sh "${2:-600}"
    ;;
  fuzz-rtl)
    bash scripts/install-deps.sh
    bash scripts/build.sh
    KILN_RTL_FUZZ="${2:-100000}" KILN_RTL_FUZZ_ICARUS="${KILN_RTL_FUZZ_ICARUS:-1000}" \
      KILN_RTL_FUZZ_VERILATOR="${KILN_RTL_FUZZ_VERILATOR:-20000}" \
      build/src/kiln/kiln_rtl_tests --gtest_filter='RtlFuzz.*'
    ;;
  *)
    echo "usage: scripts/test.sh [default|slow|rtl-zoo|ap_types DIR|cflow|large|fuzz [SECONDS]|fuzz-rtl [N]]" >&2
    exit 2
    ;;
esac
