// The project `Backend: bambu` writes (docs/cflow.md): seed 001's C99 from
// the loop IR for Bambu, with the same testbench protocol as the layer
// library's projects, so `kiln csim` builds it with a C compiler and checks
// it against the emulator.
//
//   firmware/<name>.c, <name>.h   the filters and the top (print_c.h)
//   firmware/kiln_fixed_c.h       the fixed-point runtime (c_runtime.h)
//   tb/<name>_test.c              reads tb_data/inputs.txt, writes csim_results.txt
//   tb_data/                      inputs and the emulator's raw outputs
//   bambu/bambu.sh                Bambu on the C (untested here: no Bambu)
//   Makefile, kiln_model.json, report.json, README.md
#pragma once

#include <filesystem>

#include "kiln/hls/model.h"
#include "kiln/hls/project_writer.h"

namespace kiln::cgen {

// Writes the project atomically (nothing is left on an error). Throws
// kiln::Error (Unsupported) when the model's C would need a value wider
// than 63 bits.
void write_c_project(const hls::Model& model, const hls::ProjectOptions& options,
                     const std::filesystem::path& out_dir);

}  // namespace kiln::cgen
