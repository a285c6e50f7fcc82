// Test helper: compile a small C++14 program against the layer library and
// run it (used by the layer-family tests to compare C++ against the emulator).
#pragma once

#include <string>
#include <vector>

namespace kiln::hls::testing {

// Writes `source` to a fresh temporary directory, compiles it with
// `g++ -std=c++14 -O1 -Wall -Wextra -Werror -I<dir>...`, runs it and returns
// its standard output. Throws kiln::Error (Internal) carrying the compiler
// output when compilation fails, or the exit status when the program fails.
std::string compile_and_run(const std::string& source,
                            const std::vector<std::string>& include_dirs);

// The layer library's include directory in the source tree (holds kiln/*.h).
std::string library_include_dir();

}  // namespace kiln::hls::testing
