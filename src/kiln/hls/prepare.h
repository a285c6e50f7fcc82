// The front of the HLS flow: the graph a design is built from, the name of its
// top function and how many testbench samples the project carries.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "kiln/graph/graph.h"
#include "kiln/onnx/import.h"
#include "kiln/support/pass.h"

namespace kiln::hls {

// The graph the HLS flow starts from: imported, then through the HLS graph
// pass pipeline (passes/pipeline.h).
struct PreparedGraph {
  Graph original;  // as imported: the float reference
  Graph passed;    // after passes::run_hls_pipeline
  std::vector<PassRecord> passes;
  bool batch_one = false;  // re-imported with batch 1 (the model fixed a larger batch)
};

// Loads an ONNX model or kiln IR text. The HLS design takes one sample per
// call, so a model exported with a fixed batch > 1 of image-like inputs
// (rank >= 3) is re-imported with batch 1 unless `import` chooses a batch; IR
// text cannot be (its shapes are fixed), which is an Unsupported error.
PreparedGraph prepare_graph(const std::filesystem::path& model,
                            const onnx_import::ImportOptions& import);

// The top function's name: `requested`, else the file stem (the directory's
// name for the common "model.onnx"), made a C identifier.
std::string top_function_name(const std::filesystem::path& model, const std::string& requested);

// Samples whose expected outputs the project's testbench carries: the
// emulator computes them when the project is written, so their number keeps
// that under a few seconds for GMAC-sized graphs (1 to 8).
int testbench_samples(const Graph& passed);

}  // namespace kiln::hls
