// libFuzzer target: arbitrary bytes as kiln's IR texts, the graph IR (.kir)
// and the HLS layer model text, both parsers on every input. Any kiln::Error
// of a user-facing kind is an acceptable answer. Findings: an Internal error
// (a KILN_ASSERT reached from input), any other exception, a sanitizer
// report, or a text that parses but does not round-trip (print, parse, print
// must give the same text).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "kiln/graph/ir_text.h"
#include "kiln/hls/model_text.h"
#include "kiln/support/error.h"

namespace {

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "%s\n", what.c_str());
  std::abort();
}

template <class Parse, class Print>
void check(std::string_view text, Parse parse, Print print) {
  try {
    const std::string once = print(parse(text));
    const std::string twice = print(parse(once));
    if (once != twice) finding("text does not round-trip:\n" + once + "\n----\n" + twice);
  } catch (const kiln::Error& e) {
    if (e.kind() == kiln::ErrorKind::Internal)
      finding("internal error reached from input: " + e.message());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check(
      text, [](std::string_view t) { return kiln::parse_ir(t, "fuzz.kir"); },
      [](const kiln::Graph& g) {
        kiln::IrWriteOptions o;
        o.large = kiln::IrWriteOptions::Large::Inline;
        return kiln::print_ir(g, o).text;
      });
  check(
      text, [](std::string_view t) { return kiln::hls::parse_layers(t, "fuzz.layers"); },
      [](const kiln::hls::Model& m) { return kiln::hls::print_layers(m); });
  return 0;
}
