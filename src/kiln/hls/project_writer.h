// Writes a self-contained HLS C++ project for a Model (docs/project.md):
// firmware (top function, defines, parameters, weights, the layer library),
// testbench and its data, Vitis HLS and Bambu scripts, a Makefile for plain
// g++ C simulation, report.json, kiln_model.json and a README.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "kiln/hls/model.h"

namespace kiln::hls {

struct ProjectOptions {
  // Replace `out_dir` if it exists (otherwise it must be absent or empty).
  bool replace_existing = false;
  // Weight arrays with more elements than this also get a .bin file that C
  // simulation loads instead of compiling the literal header.
  int64_t weights_header_max = 4096;
  // Samples in tb_data/inputs.txt and tb_data/expected_raw.txt (emulator
  // outputs), so `make csim` and Vitis csim check themselves. 0: none.
  int tb_samples = 8;
  uint64_t tb_seed = 1;
  // Embedded verbatim in report.json ("estimate"); null when not estimated.
  nlohmann::json estimate;
  // Where the model came from (ONNX path, config...), kept in report.json and
  // kiln_model.json ("source").
  nlohmann::json source;
  // Test hook: runs on the staging directory after every file is written and
  // before it is moved into place. If it throws, nothing is left behind.
  std::function<void(const std::filesystem::path& staging)> before_commit;
};

// The whole project appears at `out_dir` or nothing does (AtomicDir).
// Throws kiln::Error: Io (cannot write), Unsupported (a model the writer
// cannot express), or whatever the layer emitters throw.
void write_project(const Model& model, const ProjectOptions& options,
                   const std::filesystem::path& out_dir);

// Project-relative paths of the files the writer and csim share.
inline constexpr const char* kModelJsonFile = "kiln_model.json";
inline constexpr const char* kInputsFile = "tb_data/inputs.txt";
inline constexpr const char* kExpectedFile = "tb_data/expected_raw.txt";
inline constexpr const char* kResultsFile = "tb_data/csim_results.txt";

}  // namespace kiln::hls
