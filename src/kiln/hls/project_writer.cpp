#include "kiln/hls/project_writer.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/fpga/devices.h"
#include "kiln/hls/csim.h"
#include "kiln/hls/derived.h"
#include "kiln/hls/emit/layer_code.h"
#include "kiln/hls/emulate/emulator.h"
#include "kiln/hls/library_headers.h"
#include "kiln/hls/model_edit.h"
#include "kiln/hls/model_json.h"
#include "kiln/hls/verify.h"
#include "kiln/support/atomic_dir.h"
#include "kiln/support/error.h"

namespace kiln::hls {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// io_parallel tensors up to this many values are partitioned into registers.
constexpr int64_t kMaxRegisterArray = 4096;

void write_file(const fs::path& path, std::string_view text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream f(path, std::ios::binary);
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
  f.close();
  if (!f)
    throw_error(ErrorKind::Io, path.string(), "cannot write file",
                "check free space and permissions of the output directory");
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string indent(const std::string& code, const std::string& pad) {
  std::string out;
  std::istringstream in(code);
  std::string line;
  while (std::getline(in, line)) out += line.empty() ? "\n" : pad + line + "\n";
  return out;
}

std::string stream_type(const TensorInfo& t) {
  return "kiln::stream<kiln::array<" + t.name + "_t, " + std::to_string(stream_width(t)) + "> >";
}

std::string typedef_pair(const std::string& name, const FixedType& type) {
  return "#ifdef KILN_VITIS\ntypedef " + type.to_ap_cpp() + " " + name + ";\n#else\ntypedef " +
         type.to_kiln_cpp() + " " + name + ";\n#endif\n";
}

// ---- the variables of the top function -------------------------------------

// Every tensor that is not a port is a variable of the top function: a stream
// one image deep (io_stream), or an array partitioned into registers unless
// it is too large (io_parallel). insert_clones has given each reader of a
// stream its own copy and each output port its own producer.
std::vector<std::string> declarations(const Model& m) {
  std::vector<std::string> out;
  for (std::size_t t = 0; t < m.tensors.size(); ++t) {
    const TensorInfo& ti = m.tensors[t];
    const std::string& var = ti.name;
    if (is_model_input(m, static_cast<int>(t)) || is_model_output(m, static_cast<int>(t))) continue;
    if (m.io_type == IOType::Stream) {
      out.push_back(stream_type(ti) + " " + var + "(\"" + var + "\");\n" +
                    "KILN_PRAGMA(HLS STREAM variable=" + var +
                    " depth=" + std::to_string(stream_fifo_depth(ti)) + ")\n");
    } else if (ti.numel() > kMaxRegisterArray) {
      // Too large for registers: a memory. `static` also keeps it off the C
      // stack in simulation (superwide's maps are 4M values).
      out.push_back("static " + var + "_t " + var + "[" + std::to_string(ti.numel()) + "];\n");
    } else {
      out.push_back(var + "_t " + var + "[" + std::to_string(ti.numel()) + "];\n" +
                    "KILN_PRAGMA(HLS ARRAY_PARTITION variable=" + var + " complete dim=0)\n");
    }
  }
  return out;
}

// ---- file contents -----------------------------------------------------------

struct Emitted {
  std::vector<LayerCode> code;  // per layer
  std::vector<const WeightArray*> arrays;
  std::set<std::string> includes;
};

std::string port_param(const Model& m, int t, bool input) {
  const TensorInfo& ti = m.tensors[static_cast<std::size_t>(t)];
  if (m.io_type == IOType::Stream) return stream_type(ti) + "& " + ti.name;
  (void)input;
  return ti.name + "_t " + ti.name + "[" + std::to_string(ti.numel()) + "]";
}

std::string signature(const Model& m) {
  std::string s = "void " + m.name + "(";
  bool first = true;
  for (int t : m.inputs) {
    s += (first ? "" : ", ") + port_param(m, t, true);
    first = false;
  }
  for (int t : m.outputs) {
    s += (first ? "" : ", ") + port_param(m, t, false);
    first = false;
  }
  return s + ")";
}

std::string defines_h(const Model& m) {
  std::string s =
      "// Element formats of every tensor and every layer's precision fields.\n"
      "// Vitis HLS (KILN_VITIS) uses ap_fixed; everything else kiln_fixed.h. Written by kiln.\n"
      "#ifndef KILN_DEFINES_H_\n#define KILN_DEFINES_H_\n\n#include \"kiln/kiln_common.h\"\n\n"
      "// Tensors\n";
  for (const TensorInfo& t : m.tensors) s += typedef_pair(t.name + "_t", t.type);
  s += "\n// Layers\n";
  for (const Layer& l : m.layers) {
    if (l.kind() == LayerKind::Clone) continue;  // copies: the tensor types say it all
    const Precision& p = l.precision;
    s += "// " + l.name + " (" + layer_kind_name(l.kind()) + ")\n";
    s += typedef_pair(l.name + "_weight_t", p.weight);
    s += typedef_pair(l.name + "_bias_t", p.bias);
    s += typedef_pair(l.name + "_accum_t", p.accum);
    s += typedef_pair(l.name + "_table_t", p.table);
    s += typedef_pair(l.name + "_inv_table_t", p.inv_table);
    s += typedef_pair(l.name + "_log_table_t", p.log_table);
  }
  return s + "\n#endif  // KILN_DEFINES_H_\n";
}

std::string weight_header(const WeightArray& w, bool large) {
  const std::string guard = "KILN_WEIGHTS_" + upper(w.name) + "_H_";
  std::string s = "// " + w.name + ": " + std::to_string(w.raw.size()) + " values of " +
                  w.type.to_string() + ". Written by kiln.\n#ifndef " + guard + "\n#define " +
                  guard + "\n\n";
  const std::string decl = w.type_name + " " + w.name + "[" + std::to_string(w.raw.size()) + "]";
  if (large)
    s += "#ifdef KILN_LOAD_WEIGHTS  // C simulation: filled from weights/" + w.name +
         ".bin by kiln_load_weights()\n" + decl + ";\n#else\n";
  s += "const " + decl + " = {";
  for (std::size_t i = 0; i < w.raw.size(); ++i) {
    s += (i % 8 == 0 ? "\n    " : " ") + fixed_literal(w.raw[i], w.type);
    if (i + 1 < w.raw.size()) s += ",";
  }
  s += "};\n";
  if (large) s += "#endif\n";
  return s + "\n#endif  // " + guard + "\n";
}

std::string weight_bin(const WeightArray& w) {
  std::string bytes;
  bytes.reserve(w.raw.size() * 8);
  for (int64_t raw : w.raw) {
    const double v = numeric::to_double(raw, w.type);
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int k = 0; k < 8; ++k) bytes.push_back(static_cast<char>((bits >> (8 * k)) & 0xff));
  }
  return bytes;
}

std::string parameters_h(const Model& m, const Emitted& e) {
  std::string s =
      "// Per-layer configuration structs and the constant arrays. Written by kiln.\n"
      "#ifndef KILN_PARAMETERS_H_\n#define KILN_PARAMETERS_H_\n\n#include \"defines.h\"\n\n";
  for (const std::string& inc : e.includes) s += "#include \"" + inc + "\"\n";
  if (!e.arrays.empty()) s += "\n";
  for (const WeightArray* w : e.arrays) s += "#include \"weights/" + w->name + ".h\"\n";
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    if (e.code[i].config.empty()) continue;
    s += "\n// " + m.layers[i].name + "\n" + e.code[i].config;
    if (s.back() != '\n') s += "\n";
  }
  return s + "\n#endif  // KILN_PARAMETERS_H_\n";
}

std::string top_h(const Model& m) {
  const std::string guard = "KILN_" + upper(m.name) + "_H_";
  return "// Top function of " + m.name + ". Written by kiln.\n#ifndef " + guard + "\n#define " +
         guard + "\n\n#include \"defines.h\"\n\n" + signature(m) +
         ";\n\n#ifdef KILN_LOAD_WEIGHTS\n// Fills the large weight arrays from `dir`/<name>.bin "
         "(C simulation only).\nbool kiln_load_weights(const char* dir);\n#endif\n\n#endif  // " +
         guard + "\n";
}

std::string top_cpp(const Model& m, const Emitted& e, int64_t header_max) {
  std::string s = "// Top function of " + m.name + " (" + std::string(enum_name(m.io_type)) +
                  "). Written by kiln.\n#include \"" + m.name +
                  ".h\"\n\n#include \"parameters.h\"\n";
  if (m.io_type == IOType::Stream) s += "#include \"kiln/stream_utils.h\"\n";
  s += "\n#ifdef KILN_LOAD_WEIGHTS\n#include \"kiln/weights_io.h\"\n\nbool kiln_load_weights(const "
       "char* dir) {\n  bool ok = true;\n";
  bool any_large = false;
  for (const WeightArray* w : e.arrays) {
    if (static_cast<int64_t>(w->raw.size()) <= header_max) continue;
    any_large = true;
    s += "  ok = kiln::load_weights_file(dir, \"" + w->name + ".bin\", " + w->name + ", " +
         std::to_string(w->raw.size()) + "L) && ok;\n";
  }
  if (!any_large) s += "  (void)dir;\n";
  s += "  return ok;\n}\n#endif\n\n";

  s += signature(m) + " {\n";
  const std::string pad = "  ";
  if (m.io_type == IOType::Stream) {
    for (int t : m.inputs)
      s += pad +
           "KILN_PRAGMA(HLS INTERFACE axis port=" + m.tensors[static_cast<std::size_t>(t)].name +
           ")\n";
    for (int t : m.outputs)
      s += pad +
           "KILN_PRAGMA(HLS INTERFACE axis port=" + m.tensors[static_cast<std::size_t>(t)].name +
           ")\n";
    s += pad + "KILN_PRAGMA(HLS DATAFLOW)\n";
  } else {
    for (int t : m.inputs)
      s += pad + "KILN_PRAGMA(HLS ARRAY_PARTITION variable=" +
           m.tensors[static_cast<std::size_t>(t)].name + " complete dim=0)\n";
    for (int t : m.outputs)
      s += pad + "KILN_PRAGMA(HLS ARRAY_PARTITION variable=" +
           m.tensors[static_cast<std::size_t>(t)].name + " complete dim=0)\n";
    s += pad + "KILN_PRAGMA(HLS PIPELINE)\n";
  }
  const std::vector<std::string> decls = declarations(m);
  if (!decls.empty()) s += "\n" + pad + "// Intermediate tensors\n";
  for (const std::string& d : decls) s += indent(d, pad);
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const Layer& l = m.layers[i];
    if (l.kind() == LayerKind::Input) continue;
    // Copies follow their producer's call; copies of a model input open a block.
    if (l.kind() != LayerKind::Clone)
      s += "\n" + pad + "// " + l.name + " (" + layer_kind_name(l.kind()) + ")\n";
    else if (is_model_input(m, l.inputs.at(0)))
      s += "\n";
    s += indent(e.code[i].call, pad);
  }
  return s + "}\n";
}

std::string testbench_cpp(const Model& m) {
  const bool stream = m.io_type == IOType::Stream;
  int64_t n_in = 0, n_out = 0;
  for (int t : m.inputs) n_in += m.tensors[static_cast<std::size_t>(t)].numel();
  for (int t : m.outputs) n_out += m.tensors[static_cast<std::size_t>(t)].numel();
  std::string s = R"(// Testbench of )" + m.name + R"(. Written by kiln.
//
// Usage: )" + m.name +
                  R"(_test [INPUTS [RESULTS [EXPECTED]]]
//   INPUTS   (default tb_data/inputs.txt): one sample per line, the values of
//            all inputs concatenated, channels-last.
//   RESULTS  (default tb_data/csim_results.txt): per sample, the raw integers
//            of all outputs, then " |", then their values.
//   EXPECTED (default tb_data/expected_raw.txt when INPUTS is the default):
//            raw outputs from kiln's emulator; every sample must match.
// Exit status: 0 ok, 1 mismatch with EXPECTED, 2 I/O or format error.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../firmware/)" +
                  m.name + R"(.h"
)";
  if (stream) s += "#include \"../firmware/kiln/stream_utils.h\"\n";
  s += R"(
namespace {

const long kInputValues = )" +
       std::to_string(n_in) + R"(;
const long kOutputValues = )" +
       std::to_string(n_out) + R"(;

// Values of one whitespace-separated line.
bool parse_line(const std::string& line, std::vector<double>& v) {
  v.clear();
  const char* p = line.c_str();
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\r') ++p;
    if (*p == '\0') return true;
    char* end = 0;
    const double x = std::strtod(p, &end);
    if (end == p) return false;
    v.push_back(x);
    p = end;
  }
}

template <class T>
void append(const T* data, long n, std::vector<long long>& raw, std::vector<double>& values) {
  for (long i = 0; i < n; ++i) {
    const long long r = kiln::raw_bits(data[i]);
    raw.push_back(r);
    values.push_back(std::ldexp(static_cast<double>(r), -kiln::fixed_traits<T>::frac));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool default_inputs = argc < 2;
  const char* inputs_path = argc > 1 ? argv[1] : "tb_data/inputs.txt";
  const char* results_path = argc > 2 ? argv[2] : "tb_data/csim_results.txt";
  const char* expected_path = argc > 3 ? argv[3] : (default_inputs ? "tb_data/expected_raw.txt" : 0);
#ifdef KILN_LOAD_WEIGHTS
  if (!kiln_load_weights("firmware/weights")) return 2;
#endif
  std::ifstream in(inputs_path);
  if (!in) {
    std::fprintf(stderr, "%s: cannot open inputs\n", inputs_path);
    return 2;
  }
  std::ofstream out(results_path);
  if (!out) {
    std::fprintf(stderr, "%s: cannot write results\n", results_path);
    return 2;
  }
  std::ifstream expected;
  if (expected_path) expected.open(expected_path);
  const bool check = expected_path && expected.is_open();

)";
  // Static buffers: large feature maps would not fit on the stack.
  for (int t : m.inputs) {
    const TensorInfo& ti = m.tensors[static_cast<std::size_t>(t)];
    s += "  static " + ti.name + "_t " + ti.name + "_buf[" + std::to_string(ti.numel()) + "];\n";
  }
  for (int t : m.outputs) {
    const TensorInfo& ti = m.tensors[static_cast<std::size_t>(t)];
    s += "  static " + ti.name + "_t " + ti.name + "_buf[" + std::to_string(ti.numel()) + "];\n";
  }
  s += R"(  std::string line;
  std::vector<double> v;
  long sample = 0, mismatches = 0;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (!parse_line(line, v) || static_cast<long>(v.size()) != kInputValues) {
      std::fprintf(stderr, "%s: sample %ld: expected %ld numbers\n", inputs_path, sample,
                   kInputValues);
      return 2;
    }
)";
  int64_t offset = 0;
  for (int t : m.inputs) {
    const TensorInfo& ti = m.tensors[static_cast<std::size_t>(t)];
    s += "    for (long i = 0; i < " + std::to_string(ti.numel()) + "; ++i) " + ti.name +
         "_buf[i] = " + ti.name + "_t(v[" + std::to_string(offset) + " + i]);\n";
    offset += ti.numel();
  }
  std::string args;
  if (stream) {
    for (int t : m.inputs) {
      const TensorInfo& ti = m.tensors[static_cast<std::size_t>(t)];
      s += "    " + stream_type(ti) + " " + ti.name + ";\n";
      s += "    kiln::array_to_stream(" + ti.name + "_buf, " + std::to_string(stream_elements(ti)) +
           ", " + ti.name + ");\n";
    }
    for (int t : m.outputs) {
      const TensorInfo& ti = m.tensors[static_cast<std::size_t>(t)];
      s += "    " + stream_type(ti) + " " + ti.name + ";\n";
    }
    for (int t : m.inputs)
      args += (args.empty() ? "" : ", ") + m.tensors[static_cast<std::size_t>(t)].name;
    for (int t : m.outputs)
      args += (args.empty() ? "" : ", ") + m.tensors[static_cast<std::size_t>(t)].name;
    s += "    " + m.name + "(" + args + ");\n";
    for (int t : m.outputs) {
      const TensorInfo& ti = m.tensors[static_cast<std::size_t>(t)];
      s += "    kiln::stream_to_array(" + ti.name + ", " + ti.name + "_buf, " +
           std::to_string(stream_elements(ti)) + ");\n";
    }
  } else {
    for (int t : m.inputs)
      args += (args.empty() ? "" : ", ") + m.tensors[static_cast<std::size_t>(t)].name + "_buf";
    for (int t : m.outputs)
      args += (args.empty() ? "" : ", ") + m.tensors[static_cast<std::size_t>(t)].name + "_buf";
    s += "    " + m.name + "(" + args + ");\n";
  }
  s += "    std::vector<long long> raw;\n    std::vector<double> values;\n";
  for (int t : m.outputs) {
    const TensorInfo& ti = m.tensors[static_cast<std::size_t>(t)];
    s += "    append(" + ti.name + "_buf, " + std::to_string(ti.numel()) + ", raw, values);\n";
  }
  s += R"(    for (std::size_t i = 0; i < raw.size(); ++i) out << (i ? " " : "") << raw[i];
    out << " |";
    char buf[40];
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::snprintf(buf, sizeof buf, " %.17g", values[i]);
      out << buf;
    }
    out << "\n";
    if (check) {
      std::string exp_line;
      if (!std::getline(expected, exp_line)) {
        std::fprintf(stderr, "%s: no line for sample %ld\n", expected_path, sample);
        return 2;
      }
      std::istringstream es(exp_line);
      long long r = 0;
      long n = 0;
      bool same = true;
      while (es >> r) {
        if (n >= kOutputValues || r != raw[static_cast<std::size_t>(n)]) same = false;
        ++n;
      }
      if (n != kOutputValues) same = false;
      if (!same) {
        if (mismatches == 0) std::fprintf(stderr, "sample %ld differs from %s\n", sample, expected_path);
        ++mismatches;
      }
    }
    ++sample;
  }
  out.close();
  if (!out) {
    std::fprintf(stderr, "%s: write failed\n", results_path);
    return 2;
  }
  if (check) {
    std::printf("%ld samples, %ld differ from %s\n", sample, mismatches, expected_path);
    return mismatches == 0 ? 0 : 1;
  }
  std::printf("%ld samples written to %s\n", sample, results_path);
  return 0;
}
)";
  return s;
}

std::string build_prj_tcl(const Model& m) {
  char clock[32];
  std::snprintf(clock, sizeof clock, "%g", m.clock_period_ns);
  return "# Vitis HLS project for " + m.name +
         ". Written by kiln.\n"
         "# Run from this directory: vitis_hls -f build_prj.tcl\n"
         "# The steps (1 = run); a script that sources this one may set them first\n"
         "# (kiln csynth: csynth only).\n"
         "foreach {step on} {run_csim 1 run_csynth 1 run_cosim 0 run_export 0} {\n"
         "  if {![info exists $step]} { set $step $on }\n}\n\n"
         "set part \"" +
         m.part + "\"\nset clock_period " + clock +
         "\n\n"
         "open_project -reset " +
         m.name +
         "_prj\n"
         "set_top " +
         m.name +
         "\n"
         "add_files firmware/" +
         m.name +
         ".cpp -cflags \"-std=c++14 -DKILN_VITIS\"\n"
         "add_files -tb tb/" +
         m.name +
         "_test.cpp -cflags \"-std=c++14 -DKILN_VITIS\"\n"
         "add_files -tb tb_data\n"
         "open_solution -reset solution1\n"
         "set_part $part\n"
         "create_clock -period $clock_period -name default\n\n"
         "if {$run_csim} { csim_design }\n"
         "if {$run_csynth} { csynth_design }\n"
         "if {$run_cosim} { cosim_design }\n"
         "if {$run_export} { export_design -format ip_catalog }\n"
         "exit\n";
}

std::string bambu_sh(const Model& m) {
  char clock[32];
  std::snprintf(clock, sizeof clock, "%g", m.clock_period_ns);
  return "#!/bin/sh\n# Runs Bambu (PandA) on the firmware with kiln's own fixed-point header\n"
         "# (kiln_fixed.h, no vendor headers). Written by kiln; untested by kiln.\n"
         "# Extra arguments are passed to bambu, e.g. --device-name=...\n"
         "set -e\ncd \"$(dirname \"$0\")/..\"\nmkdir -p bambu/out\ncd bambu/out\n"
         "exec bambu ../../firmware/" +
         m.name + ".cpp --top-fname=" + m.name +
         " -I../../firmware --std=c++14 --clock-period=" + clock + " \"$@\"\n";
}

std::string makefile(const Model& m) {
  return "# Plain C simulation with g++ (no vendor tools). Written by kiln.\n"
         "#   make csim   builds build/csim and runs it on tb_data/inputs.txt; it compares\n"
         "#               with tb_data/expected_raw.txt (kiln's emulator) when present.\n"
         "#   make csim_ap_types AP_TYPES=DIR\n"
         "#               builds the same testbench against the vendor's ap_fixed (DIR holds\n"
         "#               ap_fixed.h, ap_int.h, etc/ and hls_stream.h, e.g. Xilinx's\n"
         "#               HLS_arbitrary_Precision_Types include/), runs both builds on\n"
         "#               tb_data/inputs.txt and requires identical raw outputs.\n"
         "CXX ?= g++\nCXXFLAGS ?= -std=c++14 -O2 -Wall -Wextra\n\n"
         "SOURCES := firmware/" +
         m.name + ".cpp tb/" + m.name +
         "_test.cpp\n"
         "HEADERS := $(wildcard firmware/*.h firmware/kiln/*.h firmware/weights/*.h)\n\n"
         ".PHONY: csim csim_ap_types clean\n\n"
         "csim: build/csim\n\t./build/csim\n\n"
         "build/csim: $(SOURCES) $(HEADERS)\n\tmkdir -p build\n"
         "\t$(CXX) $(CXXFLAGS) -DKILN_LOAD_WEIGHTS -I firmware $(SOURCES) -o $@\n\n"
         "# The vendor headers are system headers here, and their flow warnings\n"
         "# (uninitialized ap_private words, reported inside ap_private.h) are off:\n"
         "# they are not kiln's. HLS pragmas are unknown to g++.\n"
         "build/csim_ap_types: $(SOURCES) $(HEADERS)\n"
         "\t@test -f \"$(AP_TYPES)/ap_fixed.h\" || { echo \"AP_TYPES=$(AP_TYPES): no ap_fixed.h "
         "there; set AP_TYPES to the folder holding the ap_types headers\"; exit 2; }\n"
         "\tmkdir -p build\n"
         "\t$(CXX) $(CXXFLAGS) -Wno-unknown-pragmas -Wno-uninitialized -Wno-maybe-uninitialized "
         "-DKILN_LOAD_WEIGHTS -DKILN_VITIS "
         "-isystem \"$(AP_TYPES)\" -I firmware $(SOURCES) -o $@\n\n"
         "csim_ap_types: build/csim build/csim_ap_types\n"
         "\t./build/csim tb_data/inputs.txt build/results_kiln.txt\n"
         "\t./build/csim_ap_types tb_data/inputs.txt build/results_ap_types.txt\n"
         "\tcmp build/results_kiln.txt build/results_ap_types.txt\n"
         "\t@echo \"ap_types: every output identical to kiln_fixed.h's\"\n\n"
         "clean:\n\trm -rf build tb_data/csim_results.txt\n";
}

std::string readme(const Model& m) {
  return "# " + m.name +
         ": HLS C++ project written by kiln\n\n"
         "| Path | What |\n|---|---|\n"
         "| `firmware/" +
         m.name + ".cpp`, `.h` | the top function `" + m.name +
         "` |\n"
         "| `firmware/defines.h` | element types of every tensor and layer precision (`ap_fixed` "
         "under Vitis HLS, `kiln_fixed.h` otherwise) |\n"
         "| `firmware/parameters.h` | per-layer configuration structs |\n"
         "| `firmware/weights/` | constant arrays: `<name>.h` with exact literals; large arrays "
         "also `<name>.bin` (little-endian doubles) for C simulation |\n"
         "| `firmware/kiln/` | kiln's layer library (C++14 headers) |\n"
         "| `tb/" +
         m.name +
         "_test.cpp` | testbench: reads `tb_data/inputs.txt`, writes `tb_data/csim_results.txt`, "
         "checks `tb_data/expected_raw.txt` |\n"
         "| `tb_data/` | sample inputs and the raw outputs kiln's bit-exact emulator computed for "
         "them |\n"
         "| `build_prj.tcl` | Vitis HLS: csim, csynth, cosim, export (select at the top) |\n"
         "| `bambu/bambu.sh` | Bambu HLS on the same sources (untested by kiln) |\n"
         "| `Makefile` | `make csim`: C simulation with g++ only; `make csim_ap_types "
         "AP_TYPES=DIR`: "
         "the same against the vendor's ap_fixed headers, compared bit for bit |\n"
         "| `report.json` | configuration per layer and kiln's estimate |\n"
         "| `kiln_model.json` | the full layer model; `kiln csim` reads it |\n\n"
         "Commands:\n\n"
         "    make csim                 # g++ C simulation, checks against kiln's emulator\n"
         "    kiln csim .  --samples 100  # random inputs, emulator and float comparison\n"
         "    vitis_hls -f build_prj.tcl\n"
         "    sh bambu/bambu.sh\n";
}

json report(const Model& m, const ProjectOptions& opts) {
  json j;
  j["model"] = m.name;
  j["io_type"] = std::string(enum_name(m.io_type));
  j["backend"] = std::string(enum_name(m.backend));
  j["part"] = m.part;
  j["device"] = fpga::device_json(m.part, fpga::device_of_part(m.part));
  j["clock_period_ns"] = m.clock_period_ns;
  json layers = json::array();
  for (const Layer& l : m.layers) {
    if (l.kind() == LayerKind::Clone) continue;  // not configured; the estimate lists them
    json jl;
    jl["name"] = l.name;
    jl["onnx_name"] = l.onnx_name;
    jl["kind"] = layer_kind_name(l.kind());
    json ins = json::array();
    for (int t : l.inputs) ins.push_back(m.tensors[static_cast<std::size_t>(t)].shape);
    jl["input_shapes"] = ins;
    jl["output_shape"] = m.tensors[static_cast<std::size_t>(l.output())].shape;
    jl["precision"] = {{"weight", l.precision.weight.to_string()},
                       {"bias", l.precision.bias.to_string()},
                       {"result", l.precision.result.to_string()},
                       {"accum", l.precision.accum.to_string()},
                       {"table", l.precision.table.to_string()},
                       {"inv_table", l.precision.inv_table.to_string()},
                       {"log_table", l.precision.log_table.to_string()}};
    jl["reuse_factor"] = l.reuse_factor;
    jl["strategy"] = std::string(enum_name(l.strategy));
    jl["conv_impl"] = std::string(enum_name(l.conv_impl));
    layers.push_back(std::move(jl));
  }
  j["layers"] = std::move(layers);
  j["estimate"] = opts.estimate;
  j["source"] = opts.source;
  return j;
}

void check_names(const Model& m, const Emitted& e) {
  if (!is_identifier(m.name))
    throw_error(ErrorKind::InvalidModel, "model name '" + m.name + "'", "is not a C identifier");
  std::set<std::string> seen;
  auto claim = [&](const std::string& id, const std::string& what) {
    if (!is_identifier(id))
      throw_error(ErrorKind::Internal, what, "'" + id + "' is not a C identifier");
    if (!seen.insert(id).second)
      throw_error(ErrorKind::Internal, what, "name '" + id + "' is used twice in the project");
  };
  claim(m.name, "model");
  for (const TensorInfo& t : m.tensors) claim(t.name + "_t", "tensor '" + t.name + "'");
  for (const Layer& l : m.layers) {
    if (l.kind() == LayerKind::Clone) continue;  // has no types of its own
    for (const char* suffix :
         {"_weight_t", "_bias_t", "_accum_t", "_table_t", "_inv_table_t", "_log_table_t"})
      claim(l.name + suffix, "layer '" + l.name + "'");
  }
  for (const WeightArray* w : e.arrays) claim(w->name, "weight array '" + w->name + "'");
}

}  // namespace

void write_project(const Model& model, const ProjectOptions& options, const fs::path& out_dir) {
  verify_model(model, "write_project");
  // A stream is read once: build_model's insert_clones gives every reader its
  // own copy, and in io_parallel no port is read back.
  for (std::size_t t = 0; t < model.tensors.size(); ++t) {
    const auto reads = static_cast<int64_t>(readers(model, static_cast<int>(t)).size());
    const bool port = is_model_output(model, static_cast<int>(t));
    if ((model.io_type == IOType::Stream && reads + (port ? 1 : 0) > 1) || (port && reads > 0))
      throw_error(ErrorKind::Internal, "tensor '" + model.tensors[t].name + "'",
                  "is read " + std::to_string(reads) + " times" +
                      (port ? " and is an output" : "") +
                      " without copies (run the insert_clones pass)");
  }
  // Emit every layer first: an emitter error leaves no directory at all.
  Emitted e;
  e.code.resize(model.layers.size());
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const Layer& l = model.layers[i];
    EmitContext ctx;
    ctx.io_type = model.io_type;
    for (int t : l.inputs) ctx.inputs.push_back(model.tensors[static_cast<std::size_t>(t)].name);
    for (int t : l.outputs) ctx.outputs.push_back(model.tensors[static_cast<std::size_t>(t)].name);
    e.code[i] = emit_layer(model, l, ctx);
    for (const std::string& inc : e.code[i].includes) e.includes.insert(inc);
    for (const WeightArray& w : e.code[i].arrays) e.arrays.push_back(&w);
  }
  check_names(model, e);

  // Emulator outputs for the testbench's own check.
  std::vector<Sample> samples;
  std::vector<EmulationResult> expected;
  if (options.tb_samples > 0) {
    samples = random_samples(model, options.tb_samples, options.tb_seed, -1.0, 1.0);
    for (const Sample& s : samples) expected.push_back(emulate(model, s));
  }

  AtomicDir dir(out_dir, options.replace_existing);
  const fs::path root = dir.staging();
  const std::string& n = model.name;
  write_file(root / "firmware" / (n + ".h"), top_h(model));
  write_file(root / "firmware" / (n + ".cpp"), top_cpp(model, e, options.weights_header_max));
  write_file(root / "firmware" / "defines.h", defines_h(model));
  write_file(root / "firmware" / "parameters.h", parameters_h(model, e));
  fs::create_directories(root / "firmware" / "weights");
  for (const WeightArray* w : e.arrays) {
    const bool large = static_cast<int64_t>(w->raw.size()) > options.weights_header_max;
    write_file(root / "firmware" / "weights" / (w->name + ".h"), weight_header(*w, large));
    if (large) write_file(root / "firmware" / "weights" / (w->name + ".bin"), weight_bin(*w));
  }
  for (const EmbeddedFile& f : library_headers())
    write_file(root / "firmware" / "kiln" / std::string(f.name), f.text);
  write_file(root / "tb" / (n + "_test.cpp"), testbench_cpp(model));
  std::string inputs, exp;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    inputs += format_input_line(samples[i]) + "\n";
    exp += format_raw_line(expected[i].outputs) + "\n";
  }
  write_file(root / kInputsFile, inputs);
  if (!samples.empty()) write_file(root / kExpectedFile, exp);
  write_file(root / "build_prj.tcl", build_prj_tcl(model));
  write_file(root / "bambu" / "bambu.sh", bambu_sh(model));
  std::error_code ec;  // not executable is harmless: `sh bambu/bambu.sh` still works
  fs::permissions(root / "bambu" / "bambu.sh", fs::perms::owner_exec | fs::perms::group_exec,
                  fs::perm_options::add, ec);
  write_file(root / "Makefile", makefile(model));
  write_file(root / "report.json", report(model, options).dump(2) + "\n");
  save_model_json(root / kModelJsonFile, model, options.source);
  write_file(root / "README.md", readme(model));

  if (options.before_commit) options.before_commit(root);
  dir.commit();
}

}  // namespace kiln::hls
