#!/usr/bin/env bash
# Installs what is needed, builds, and runs a test tier.
#   scripts/test.sh            the default suite (unit, ONNX corpus, zoo, CLI, bad input)
#   scripts/test.sh large      the large tier: AlexNet, ZFNet, VGG-16 generated with PyTorch
set -euo pipefail
cd "$(dirname "$0")/.."
tier="${1:-default}"
case "$tier" in
  default)
    bash scripts/install-deps.sh
    bash scripts/build.sh
    ctest --test-dir build --output-on-failure -j 2 -LE large
    ;;
  large)
    bash scripts/install-deps.sh --torch
    bash scripts/build.sh
    /usr/bin/python3 scripts/gen_zoo.py --tier large --out models/large
    for m in alexnet zfnet vgg16; do
      build/apps/kiln/kiln test-onnx "models/large/$m"
    done
    ;;
  *)
    echo "usage: scripts/test.sh [default|large]" >&2
    exit 2
    ;;
esac
