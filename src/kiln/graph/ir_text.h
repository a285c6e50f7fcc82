// The graph IR as text (.kir files): a printer and a parser that round-trip.
//
//   kir 1
//   graph "lenet5" opset 13
//   data size=245064 fnv1a=5f0c59d7a2b3f1e0
//   input %input: float32[1x1x28x28]
//   const %conv1_w "conv1.weight": float32[6x1x5x5] = data[0:600]
//   const %shape: int64[2] = [1,-1]
//   %conv1_out: float32[1x6x24x24] = Conv(%input, %conv1_w, %conv1_b) {kernel_shape=[5,5] ...}
//   @conv1 "conv1" output %y
//
// A value is %identifier, followed by its ONNX name as a "string" when it has
// one; a node ends in @identifier and its ONNX name. Attributes print the
// fields that differ from the op's defaults (graph/ops.h). Constants with at
// most IrWriteOptions::inline_limit elements are written as values (the
// shortest text that reads back exactly); larger ones live in a side file,
// FILE.data next to FILE, as raw little-endian bytes at a byte range, and the
// `data` line records its size and checksum. docs/ir.md has the grammar.
//
// Parsing checks everything the text can get wrong and reports it as
// InvalidModel at FILE:LINE:COL: unknown ops and attributes, values used
// before their definition or defined twice, output types that differ from
// shape inference (types may be left out: `%y = Relu(%x)`), data ranges that
// do not fit, and every shape inference rule.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "kiln/graph/graph.h"

namespace kiln {

struct IrWriteOptions {
  // Constants with more elements than this are not written as values.
  int64_t inline_limit = 16;
  // What happens to them: written to the side file, written as values
  // anyway, or elided (`= ...`, a listing that cannot be parsed back).
  enum class Large : uint8_t { DataFile, Inline, Elide };
  Large large = Large::Elide;
};

struct IrText {
  std::string text;
  std::string data;  // the side file's bytes (Large::DataFile; empty if no constant is there)
};

IrText print_ir(const Graph& graph, const IrWriteOptions& options = {});
// The text for listings (`kiln info --ir`, `kiln opt`): large constants elided.
std::string print_graph(const Graph& graph);

// Parses IR text. `source` names it in messages; `data` is the side file's
// content when there is one (nullptr: a data[...] constant is an error that
// says the file is missing).
Graph parse_ir(std::string_view text, const std::string& source, const std::string* data = nullptr);

// FILE and, when some constant goes there, FILE.data, each written via a
// temporary and a rename (a FILE.data left from an earlier write is removed
// when the new text needs none). `large` must not be Elide.
void write_ir_file(const Graph& graph, const std::filesystem::path& path,
                   IrWriteOptions::Large large = IrWriteOptions::Large::DataFile);
Graph read_ir_file(const std::filesystem::path& path);
// The side file of an IR file: FILE.data.
std::filesystem::path ir_data_path(const std::filesystem::path& path);

}  // namespace kiln
