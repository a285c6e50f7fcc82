#!/usr/bin/env bash
# Quick start: install dependencies, build, and run kiln's main job on the
# bundled LeNet-5 (per-layer summary, then inference with the reference interpreter).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
model=models/zoo/lenet5
set -x
build/apps/kiln/kiln info "$model/model.onnx"
build/apps/kiln/kiln run "$model/model.onnx" \
  --input input="$model/test_data_set_0/input_0.pb" -o out/lenet5 --force
build/apps/kiln/kiln test-onnx "$model"
# The HLS flow: an io_stream project with estimates (precisions from a profile, reuse factors
# from a cycle target), then C simulation against kiln's emulator and the float model.
build/apps/kiln/kiln compile "$model/model.onnx" -o out/lenet5_hls --force \
  --set IOType=io_stream --set Model.Precision=auto \
  --set Model.Strategy=Resource --set Model.TargetCycles=2000
build/apps/kiln/kiln csim out/lenet5_hls --samples 20
# Its pictures in one self-contained HTML file (estimate, precision profile, C simulation).
build/apps/kiln/kiln report out/lenet5_hls --html out/lenet5_report.html --force
# kiln's own hardware: the frontier of designs of the same model for a Zynq-7020 at 7 ns with
# 8-bit weights and results (latency against LUT, FF, DSP and BRAM18, every point priced from
# its schedules, none built), then the fastest point that fits built from its config and
# simulated: Verilator (bit-exact against kiln's emulator, latency and interval measured as the
# frontier priced them) and kiln's netlist interpreter. (Without --no-design, explore builds the
# chosen point into out/lenet5_explore/design itself; here kiln rtl does it, as a user would
# build any other point.)
build/apps/kiln/kiln explore "$model/model.onnx" --part xc7z020clg400-1 -o out/lenet5_explore \
  --force --no-design --set ClockPeriod=7 --set 'Model.Precision.weight=ap_fixed<8,2>' \
  --set 'Model.Precision.result=ap_fixed<8,4>'
build/apps/kiln/kiln rtl "$model/model.onnx" -c out/lenet5_explore/points/p0.yaml \
  -o out/lenet5_rtl --force
build/apps/kiln/kiln rtlsim out/lenet5_rtl --samples 2
build/apps/kiln/kiln rtlsim out/lenet5_rtl --samples 20 --simulator kiln
