// The layer library (src/kiln/hls/include/kiln/*.h), embedded into kiln at
// build time by embed_headers.cmake, so the project writer can copy it into
// every project without knowing where kiln was installed.
#pragma once

#include <string_view>
#include <vector>

namespace kiln::hls {

struct EmbeddedFile {
  std::string_view name;  // file name, e.g. "kiln_common.h"
  std::string_view text;  // its exact bytes
};

// Sorted by name.
const std::vector<EmbeddedFile>& library_headers();

}  // namespace kiln::hls
