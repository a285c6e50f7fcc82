#!/usr/bin/env bash
# Installs everything kiln needs from Debian 12's packages. Run as root.
#   scripts/install-deps.sh          build + default test suite
#   scripts/install-deps.sh --torch  also torchvision for scripts/gen_zoo.py and bench/,
#                                    valgrind for bench/pass_instructions.sh, and mlir-16-tools
#                                    (mlir-opt, the peer of bench/rtl_unroll.sh)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libonnx-dev libprotobuf-dev protobuf-compiler  # ONNX protobuf schema
  libeigen3-dev                                   # reference interpreter GEMM
  libyaml-cpp-dev nlohmann-json3-dev libfmt-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libonnx-testdata                                # ONNX conformance corpus (tests)
  verilator iverilog yosys libglpk-dev clang      # RTL backend (docs/rtl-design.md); clang for Verilator
  # The Python module (README "Python"), its pictures and tests: pybind11,
  # numpy, matplotlib and pytest for Debian's python3; PyTorch and onnx for the
  # PyTorch-to-csim example the tests run; chromium for the HTML report's
  # browser test.
  python3 python3-dev pybind11-dev python3-numpy python3-matplotlib python3-pytest
  python3-onnx python3-torch chromium
  # A one-node Slurm cluster for kiln explore's Slurm executor test
  # (scripts/slurm_local.sh starts and stops it; docs/explore.md).
  slurm-wlm munge
)
if [[ "${1:-}" == "--torch" ]]; then
  packages+=(python3-torchvision valgrind mlir-16-tools)
fi

if [[ $(id -u) -ne 0 ]]; then
  SUDO=sudo
else
  SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${packages[@]}"
