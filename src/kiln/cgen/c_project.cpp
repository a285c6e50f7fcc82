#include "kiln/cgen/c_project.h"

#include <fmt/format.h>

#include <fstream>
#include <map>

#include "kiln/cgen/c_runtime.h"
#include "kiln/cgen/clean_up.h"
#include "kiln/cgen/print_c.h"
#include "kiln/hls/csim.h"
#include "kiln/hls/emulate/emulator.h"
#include "kiln/hls/library_headers.h"
#include "kiln/hls/model_json.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/support/atomic_dir.h"
#include "kiln/support/error.h"

namespace kiln::cgen {

namespace {

namespace fs = std::filesystem;

void write_file(const fs::path& path, std::string_view text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw_error(ErrorKind::Io, path.string(), "cannot write the file");
}

// The testbench: the layer library's protocol (hls/csim.h) in C99, or for
// the typed C++ (`typed`) on the ports' ap_fixed types.
// `load_weights`: the weights are in firmware/weights/*.dat, read first.
std::string testbench_c(const hls::Model& m, const loop::Program& p, const std::string& top,
                        bool load_weights, bool typed) {
  int64_t n_out = 0;
  for (int b : p.outputs) n_out += p.buffers[static_cast<std::size_t>(b)].numel();
  std::string s = fmt::format(
      "/* Testbench of {0}, written by kiln.\n"
      "   Usage: {0}_test [INPUTS [RESULTS [EXPECTED]]]\n"
      "   INPUTS   (default tb_data/inputs.txt): per sample, the values of all inputs,\n"
      "            channels-last.\n"
      "   RESULTS  (default tb_data/csim_results.txt): per sample, the raw integers of all\n"
      "            outputs, \" |\", then their values.\n"
      "   EXPECTED (default tb_data/expected_raw.txt with the default INPUTS): kiln's\n"
      "            emulator's raw outputs; every sample must match.\n"
      "   Exit status: 0 ok, 1 a mismatch, 2 an I/O or format error. */\n"
      "#include <math.h>\n#include <stdio.h>\n\n#include \"../firmware/{1}.h\"\n{2}\n",
      m.name, top,
      typed ? std::string() : fmt::format("#include \"../firmware/{}\"\n", kCFixedHeaderName));
  const auto array = [&](int b) { return fmt::format("buf{}", b); };
  for (const std::vector<int>* v : {&p.inputs, &p.outputs})
    for (int b : *v) {
      const loop::Buffer& buf = p.buffers[static_cast<std::size_t>(b)];
      s += fmt::format("static {} {}[{}];\n",
                       typed ? vitis_type(buf.type) : c_storage_type(buf.type), array(b),
                       buf.numel());
    }
  s += fmt::format(
      "\nint main(int argc, char **argv) {{\n"
      "  const char *inputs_path = argc > 1 ? argv[1] : \"tb_data/inputs.txt\";\n"
      "  const char *results_path = argc > 2 ? argv[2] : \"tb_data/csim_results.txt\";\n"
      "  const char *expected_path = argc > 3 ? argv[3] : (argc < 2 ? \"tb_data/expected_raw.txt\" "
      ": 0);\n"
      "  FILE *in = fopen(inputs_path, \"r\");\n"
      "  FILE *out = fopen(results_path, \"w\");\n"
      "  FILE *expected = expected_path ? fopen(expected_path, \"r\") : 0;\n"
      "  long sample = 0, mismatches = 0, i;\n"
      "  double v;\n"
      "  if (!in || !out) {{\n"
      "    fprintf(stderr, \"%s: cannot open\\n\", !in ? inputs_path : results_path);\n"
      "    return 2;\n  }}\n"
      "{1}"
      "  for (;;) {{\n"
      "    long long raw[{0}];\n"
      "    double value[{0}];\n"
      "    long n = 0;\n",
      std::max<int64_t>(1, n_out),
      load_weights ? fmt::format("  if (!{}_load_weights(\"firmware/weights\")) {{\n"
                                 "    fprintf(stderr, \"firmware/weights: cannot read the "
                                 "weights\\n\");\n    return 2;\n  }}\n",
                                 top)
                   : std::string());
  bool first = true;
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const int b = p.inputs[k];
    const loop::Buffer& buf = p.buffers[static_cast<std::size_t>(b)];
    const int t = m.inputs.at(k);
    const numeric::FixedType& ft = m.tensors[static_cast<std::size_t>(t)].type;
    s += fmt::format("    for (i = 0; i < {}; ++i) {{\n", buf.numel());
    if (first)
      s += "      const int got = fscanf(in, \"%lf\", &v);\n"
           "      if (got != 1 && i == 0) goto done;\n"
           "      if (got != 1) {\n"
           "        fprintf(stderr, \"%s: sample %ld: too few numbers\\n\", inputs_path, sample);\n"
           "        return 2;\n      }\n";
    else
      s += "      if (fscanf(in, \"%lf\", &v) != 1) {\n"
           "        fprintf(stderr, \"%s: sample %ld: too few numbers\\n\", inputs_path, sample);\n"
           "        return 2;\n      }\n";
    if (typed)  // ap_fixed's assignment from a double, in the input's modes
      s += fmt::format("      {}[i] = {}(v);\n    }}\n", array(b), vitis_type(ft));
    else
      s += fmt::format(
          "      {}[i] = ({}) kiln_from_double(v, {}, {}, {}, KILN_{}, KILN_{});\n    }}\n",
          array(b), c_storage_type(buf.type), ft.width, ft.frac(), ft.is_signed ? 1 : 0,
          enum_name(ft.quant), enum_name(ft.overflow));
    first = false;
  }
  std::vector<std::string> args;
  for (int b : p.inputs) args.push_back(array(b));
  for (int b : p.outputs) args.push_back(array(b));
  s += fmt::format("    {}({});\n", top, fmt::join(args, ", "));
  for (int b : p.outputs) {
    const loop::Buffer& buf = p.buffers[static_cast<std::size_t>(b)];
    s += fmt::format(
        "    for (i = 0; i < {}; ++i) {{\n"
        "      raw[n] = {};\n"
        "      value[n] = ldexp((double) raw[n], {});\n      ++n;\n    }}\n",
        buf.numel(),
        typed ? fmt::format("kiln::raw_bits({}[i])", array(b))
              : fmt::format("(long long) {}[i]", array(b)),
        -buf.type.frac);
  }
  s += fmt::format(
      "    for (i = 0; i < n; ++i) fprintf(out, i ? \" %lld\" : \"%lld\", raw[i]);\n"
      "    fprintf(out, \" |\");\n"
      "    for (i = 0; i < n; ++i) fprintf(out, \" %.17g\", value[i]);\n"
      "    fprintf(out, \"\\n\");\n"
      "    if (expected) {{\n"
      "      int same = 1;\n"
      "      for (i = 0; i < {0}; ++i) {{\n"
      "        long long r;\n"
      "        if (fscanf(expected, \"%lld\", &r) != 1) {{\n"
      "          fprintf(stderr, \"%s: no values for sample %ld\\n\", expected_path, sample);\n"
      "          return 2;\n        }}\n"
      "        if (r != raw[i]) same = 0;\n      }}\n"
      "      if (!same) {{\n"
      "        if (mismatches == 0) fprintf(stderr, \"sample %ld differs from %s\\n\", sample, "
      "expected_path);\n"
      "        ++mismatches;\n      }}\n    }}\n"
      "    ++sample;\n  }}\n"
      "done:\n"
      "  if (fclose(out) != 0) {{\n"
      "    fprintf(stderr, \"%s: write failed\\n\", results_path);\n    return 2;\n  }}\n"
      "  if (expected) {{\n"
      "    printf(\"%ld samples, %ld differ from %s\\n\", sample, mismatches, expected_path);\n"
      "    return mismatches == 0 ? 0 : 1;\n  }}\n"
      "  printf(\"%ld samples written to %s\\n\", sample, results_path);\n"
      "  return 0;\n}}\n",
      n_out);
  return s;
}

// The values the program computes per sample (loop::dynamic_ops): what the
// clean-ups save.
int64_t ops_per_sample(const loop::Program& p) {
  int64_t n = 0;
  for (const loop::Kernel& k : p.kernels) n += loop::dynamic_ops(k);
  return n;
}

// Seed 001 runs Bambu on the C with the top function named and a clock.
// With parallel loops, -fopenmp and --pragma-parse let Bambu read their
// `#pragma omp parallel for`.
std::string bambu_sh(const hls::Model& m, const std::string& top, bool openmp) {
  return fmt::format(
      "#!/bin/sh\n"
      "# Runs Bambu (PandA) on kiln's C99 for {0}. Written by kiln; Bambu is not installed\n"
      "# where kiln is tested. Extra arguments go to bambu, e.g. "
      "--device-name=xc7z020-1clg484-VVD\n"
      "set -e\ncd \"$(dirname \"$0\")/..\"\nmkdir -p bambu/out\ncd bambu/out\n"
      "exec bambu ../../firmware/{1}.c --top-fname={1} -I../../firmware --std=c99 \\\n"
      "  --compiler=I386_GCC49 -O3 --clock-period={2:g} {3}--simulate \"$@\"\n",
      m.name, top, m.clock_period_ns, openmp ? "-fopenmp --pragma-parse " : "");
}

std::string makefile(const hls::Model& m, const std::string& top) {
  return fmt::format(
      "# C simulation of kiln's C99 with a C compiler. Written by kiln.\n"
      "#   make csim   builds build/kiln_csim and runs it on tb_data/inputs.txt, comparing\n"
      "#               with tb_data/expected_raw.txt (kiln's emulator).\n"
      "#   make -B csim OPENMP=-fopenmp  the same with the parallel loops on threads.\n"
      "CC ?= gcc\nCFLAGS ?= -std=c99 -O2 -Wall -Wextra -pedantic\n\n"
      "SOURCES := firmware/{1}.c tb/{0}_test.c\n"
      "HEADERS := $(wildcard firmware/*.h)\n\n"
      ".PHONY: csim clean\n\n"
      "csim: build/kiln_csim\n\t./build/kiln_csim\n\n"
      "build/kiln_csim: $(SOURCES) $(HEADERS)\n\tmkdir -p build\n"
      "\t$(CC) $(CFLAGS) $(OPENMP) -I firmware $(SOURCES) -o $@ -lm\n\n"
      "clean:\n\trm -rf build tb_data/csim_results.txt\n",
      m.name, top);
}

// Vitis HLS's project for the loops: the C++ and its testbench, the part
// and clock of the config.
std::string build_prj_tcl(const hls::Model& m, const std::string& top) {
  return fmt::format(
      "# Vitis HLS project for {0}: kiln's loop nests with their directives as pragmas.\n"
      "# Written by kiln. Run from this directory: vitis_hls -f build_prj.tcl\n"
      "# The steps (1 = run); a script that sources this one may set them first\n"
      "# (kiln csynth: csynth only).\n"
      "foreach {{step on}} {{run_csim 1 run_csynth 1 run_cosim 0 run_export 0}} {{\n"
      "  if {{![info exists $step]}} {{ set $step $on }}\n}}\n\n"
      "open_project -reset {0}_prj\nset_top {1}\n"
      "add_files firmware/{1}.cpp -cflags \"-std=c++14 -DKILN_VITIS -Ifirmware\"\n"
      "add_files -tb tb/{0}_test.cpp -cflags \"-std=c++14 -DKILN_VITIS -Ifirmware\"\n"
      "add_files -tb tb_data\n"
      "open_solution -reset solution1\nset_part {{{2}}}\ncreate_clock -period {3:g} -name "
      "default\n\n"
      "if {{$run_csim}} {{ csim_design }}\n"
      "if {{$run_csynth}} {{ csynth_design }}\n"
      "if {{$run_cosim}} {{ cosim_design }}\n"
      "if {{$run_export}} {{ export_design -format ip_catalog }}\n"
      "exit\n",
      m.name, top, m.part, m.clock_period_ns);
}

std::string makefile_cpp(const hls::Model& m, const std::string& top) {
  return fmt::format(
      "# C simulation of kiln's loop nests with g++ (the pragmas are Vitis's). Written by kiln.\n"
      "#   make csim   builds build/kiln_csim on kiln's kiln_fixed.h and runs it on\n"
      "#               tb_data/inputs.txt, comparing with tb_data/expected_raw.txt (kiln's\n"
      "#               emulator).\n"
      "#   make csim_ap_types AP_TYPES=DIR\n"
      "#               builds the same code against the vendor's ap_fixed (DIR holds\n"
      "#               ap_fixed.h, ap_int.h and etc/, e.g. Xilinx's\n"
      "#               HLS_arbitrary_Precision_Types include/), runs both builds on\n"
      "#               tb_data/inputs.txt and requires identical raw outputs.\n"
      "CXX ?= g++\nCXXFLAGS ?= -std=c++14 -O2 -Wall -Wextra\n\n"
      "SOURCES := firmware/{1}.cpp tb/{0}_test.cpp\n"
      "HEADERS := $(wildcard firmware/*.h firmware/kiln/*.h)\n\n"
      ".PHONY: csim csim_ap_types clean\n\n"
      "csim: build/kiln_csim\n\t./build/kiln_csim\n\n"
      "build/kiln_csim: $(SOURCES) $(HEADERS)\n\tmkdir -p build\n"
      "\t$(CXX) $(CXXFLAGS) -I firmware $(SOURCES) -o $@\n\n"
      "# The vendor headers are system headers here, their own warnings off.\n"
      "build/csim_ap_types: $(SOURCES) $(HEADERS)\n"
      "\t@test -f \"$(AP_TYPES)/ap_fixed.h\" || {{ echo \"AP_TYPES=$(AP_TYPES): no ap_fixed.h "
      "there; set AP_TYPES to the folder holding the ap_types headers\"; exit 2; }}\n"
      "\tmkdir -p build\n"
      "\t$(CXX) $(CXXFLAGS) -Wno-unknown-pragmas -Wno-uninitialized -Wno-maybe-uninitialized "
      "-DKILN_VITIS -isystem \"$(AP_TYPES)\" -I firmware $(SOURCES) -o $@\n\n"
      "csim_ap_types: build/kiln_csim build/csim_ap_types\n"
      "\t./build/kiln_csim tb_data/inputs.txt build/results_kiln.txt\n"
      "\t./build/csim_ap_types tb_data/inputs.txt build/results_ap_types.txt\n"
      "\tcmp build/results_kiln.txt build/results_ap_types.txt\n"
      "\t@echo \"ap_types: every output identical to kiln_fixed.h's\"\n\n"
      "clean:\n\trm -rf build tb_data/csim_results.txt\n",
      m.name, top);
}

std::string readme(const hls::Model& m, const std::string& top) {
  return fmt::format(
      "# {0}: C99 for Bambu, written by kiln\n\n"
      "kiln's loop IR of the model printed as C99 (docs/cflow.md in kiln): `firmware/{1}.c` "
      "holds a\nfunction per layer (a filter) and the top `{1}`, on raw fixed-point values "
      "with\n`firmware/kiln_fixed_c.h`'s assignment. `make csim` or `kiln csim .` checks it "
      "bit for bit\nagainst kiln's emulator; `sh bambu/bambu.sh` runs Bambu on it.\n",
      m.name, top);
}

}  // namespace

void write_c_project(const hls::Model& model, const hls::ProjectOptions& options,
                     const fs::path& out_dir) {
  // The loops as the config builds them: its line-buffered convolutions, its
  // Loop and Buffer directives (a kiln explore point's plans among them).
  std::map<std::string, bool> line_buffered;
  for (const hls::Layer& l : model.layers)
    if (l.rtl.line_buffer) line_buffered[l.name] = *l.rtl.line_buffer;
  loop::Program program = loop::configured_program(model, line_buffered, model.rtl.directives);
  const int64_t ops_before = ops_per_sample(program);
  const std::vector<std::pair<std::string_view, int>> cleaned = clean_up(program);
  const std::string top = model.name;
  // Vitis's loops (Style: loops) or Bambu's C99.
  const bool vitis = model.backend == hls::Backend::Vitis;
  // Print first: an error leaves no directory.
  PrintOptions po;
  po.dialect = vitis ? Dialect::VitisCpp : Dialect::C99;
  po.weight_files = !vitis;  // seed 001's .dat files for Bambu
  const CProgram c = print_c(program, top, po);
  std::vector<hls::Sample> samples;
  std::vector<hls::EmulationResult> expected;
  if (options.tb_samples > 0) {
    samples = hls::random_samples(model, options.tb_samples, options.tb_seed, -1.0, 1.0);
    for (const hls::Sample& s : samples) expected.push_back(hls::emulate(model, s));
  }
  AtomicDir dir(out_dir, options.replace_existing);
  const fs::path root = dir.staging();
  write_file(root / "firmware" / (top + ".h"), c.header);
  const std::string ext = vitis ? "cpp" : "c";
  write_file(root / "firmware" / (top + "." + ext), c.source);
  if (vitis) {  // the typed C++ on kiln's ap_fixed-compatible header
    for (const hls::EmbeddedFile& f : hls::library_headers())
      if (f.name == "kiln_common.h" || f.name == "kiln_fixed.h")
        write_file(root / "firmware" / "kiln" / std::string(f.name), f.text);
  } else {
    write_file(root / "firmware" / std::string(kCFixedHeaderName), c_fixed_header());
  }
  write_file(root / "tb" / (model.name + "_test." + ext),
             testbench_c(model, program, top, po.weight_files, vitis));
  for (const auto& [name, text] : c.weight_files)
    write_file(root / "firmware" / "weights" / name, text);
  std::string inputs, exp;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    inputs += hls::format_input_line(samples[i]) + "\n";
    exp += hls::format_raw_line(expected[i].outputs) + "\n";
  }
  write_file(root / hls::kInputsFile, inputs);
  if (!samples.empty()) write_file(root / hls::kExpectedFile, exp);
  if (vitis) {
    write_file(root / "build_prj.tcl", build_prj_tcl(model, top));
    write_file(root / "Makefile", makefile_cpp(model, top));
  } else {
    write_file(root / "bambu" / "bambu.sh", bambu_sh(model, top, c.parallel_loops > 0));
    std::error_code ec;
    fs::permissions(root / "bambu" / "bambu.sh", fs::perms::owner_exec | fs::perms::group_exec,
                    fs::perm_options::add, ec);
    write_file(root / "Makefile", makefile(model, top));
  }
  nlohmann::json report = {
      {"model", model.name},
      {"backend", vitis ? "vitis" : "bambu"},
      {"style", "loops"},
      {"language", vitis ? "c++14" : "c99"},
      {"source", options.source},
      {"filters", program.kernels.size()},
      {"parallel_loops", c.parallel_loops},
      {"ops_per_sample",
       {{"before_clean_ups", ops_before}, {"after_clean_ups", ops_per_sample(program)}}}};
  for (const auto& [name, changes] : cleaned) report["clean_ups"][std::string(name)] = changes;
  write_file(root / "report.json", report.dump(2) + "\n");
  hls::save_model_json(root / hls::kModelJsonFile, model, options.source);
  write_file(root / "README.md", readme(model, top));
  if (options.before_commit) options.before_commit(root);
  dir.commit();
}

}  // namespace kiln::cgen
