// libFuzzer target: arbitrary bytes as an ONNX model file, imported and, when
// the import succeeds, run on zero inputs. Any kiln::Error of a user-facing
// kind is an acceptable answer; an Internal error (a KILN_ASSERT reached from
// input), any other exception or a sanitizer report is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "kiln/onnx/import.h"
#include "kiln/ref/interpreter.h"
#include "kiln/support/error.h"

namespace {

std::string scratch_path() {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/kiln_fuzz_" + std::to_string(::getpid()) + ".onnx";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = scratch_path();
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const kiln::Graph graph = kiln::onnx_import::import_model(path);
    int64_t elements = 0;
    std::vector<kiln::Tensor> inputs;
    for (kiln::ValueId id : graph.inputs) {
      elements += graph.value(id).type.numel();
      if (elements > (1 << 20)) return 0;  // keep each run fast
      inputs.emplace_back(graph.value(id).type);
    }
    kiln::ref::Interpreter::set_num_threads(1);
    const kiln::ref::Interpreter interpreter(graph);
    (void)interpreter.run(inputs);
  } catch (const kiln::Error& e) {
    if (e.kind() == kiln::ErrorKind::Internal) {
      std::fprintf(stderr, "internal error reached from input: %s\n", e.message().c_str());
      std::abort();
    }
  }
  return 0;
}
