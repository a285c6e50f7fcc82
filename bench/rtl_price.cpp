// Plans priced per second (rtl/price.h): for each layer of a model, every plan
// the search may try (rtl/search.h candidate_plans: each top-level loop kept,
// each unroll factor, flattened or not, weights in banks or registers, a
// stride-1 convolution's line-buffered form, and fully unrolled) priced from
// a cold Pricer (each dataflow graph built once, then shared by the plans
// that differ only in pipelining and weight storage), then priced again with
// the graphs warm (schedule, binding and resources only). No Verilog, no
// netlist. Prints per layer: plans, feasible, seconds and plans per second,
// cold and warm.
//   kiln_bench_rtl_price [--model models/zoo/lenet5/model.onnx] [--set KEY=VALUE ...]
//                        [--max-plans N] [--json]
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/flow/configure.h"
#include "kiln/rtl/options.h"
#include "kiln/rtl/price.h"
#include "kiln/rtl/search.h"
#include "kiln/support/error.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kiln;
  std::string model = "models/zoo/lenet5/model.onnx";
  std::vector<std::string> sets;
  int max_plans = 100000;
  bool json = false, verbose = false;
  std::string only_layer, only_plan;  // --plan LAYER:TEXT, priced --repeat times (profiling)
  int repeat = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--model" && i + 1 < argc) {
      model = argv[++i];
    } else if (a == "--set" && i + 1 < argc) {
      sets.push_back(argv[++i]);
    } else if (a == "--max-plans" && i + 1 < argc) {
      max_plans = std::atoi(argv[++i]);
    } else if (a == "--json") {
      json = true;
    } else if (a == "--verbose") {
      verbose = true;
    } else if (a == "--plan" && i + 1 < argc) {
      const std::string v = argv[++i];
      only_layer = v.substr(0, v.find(':'));
      only_plan = v.substr(v.find(':') + 1);
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
    } else {
      std::cerr << "usage: kiln_bench_rtl_price [--model FILE] [--set KEY=VALUE ...] "
                   "[--max-plans N] [--json]\n";
      return 2;
    }
  }
  try {
    flow::ConfigureOptions o;
    o.sets = sets;
    const flow::ConfiguredModel built = flow::configure_model(model, o);
    const rtl::RtlOptions options = rtl::rtl_options(built.model);
    const loop::Program program = rtl::design_program(built.model, options);
    const fpga::Device device = fpga::device_of_part(built.model.part);
    rtl::StageOptions so;
    so.clock_ns = built.model.clock_period_ns;
    so.family = device.family;
    so.scheduler = options.scheduler;
    nlohmann::json rows = nlohmann::json::array();
    if (!json)
      std::cout << fmt::format("{:<16} {:>7} {:>9} {:>9} {:>11} {:>9} {:>11}\n", "layer", "plans",
                               "feasible", "cold s", "cold plan/s", "warm s", "warm plan/s");
    for (std::size_t k = 0; k < program.kernels.size(); ++k) {
      rtl::Pricer pricer(program, built.model, {}, device, {}, {});
      if (!only_layer.empty()) {
        if (program.kernels[k].name != only_layer) continue;
        const rtl::LayerPlan p = rtl::parse_plan(program.kernels[k], only_plan, "--plan");
        rtl::StageOptions sk = so;
        const auto t0 = std::chrono::steady_clock::now();
        for (int r = 0; r < repeat; ++r) pricer.price(static_cast<int>(k), p, sk);
        std::cout << fmt::format("{}: {} x {:.4f} s\n", only_plan, repeat,
                                 seconds_since(t0) / repeat);
        continue;
      }
      std::vector<rtl::LayerPlan> plans = rtl::candidate_plans(pricer, static_cast<int>(k));
      if (static_cast<int>(plans.size()) > max_plans)
        plans.resize(static_cast<std::size_t>(max_plans));
      rtl::StageOptions sk = so;
      sk.multiplier_limit = rtl::multiplier_limit_of(options, program.kernels[k]);
      int feasible = 0;
      auto t0 = std::chrono::steady_clock::now();
      for (const rtl::LayerPlan& p : plans)
        feasible += pricer.price(static_cast<int>(k), p, sk).feasible ? 1 : 0;
      const double cold = seconds_since(t0);
      t0 = std::chrono::steady_clock::now();
      for (const rtl::LayerPlan& p : plans) {
        const auto t1 = std::chrono::steady_clock::now();
        pricer.price(static_cast<int>(k), p, sk);
        if (verbose)
          std::cerr << fmt::format(
              "  {:<60} {:8.4f} s\n",
              rtl::plan_text(pricer.program_for(static_cast<int>(k), p).kernels[k], p),
              seconds_since(t1));
      }
      const double warm = seconds_since(t0);
      const auto n = static_cast<double>(plans.size());
      const std::string& name = program.kernels[k].name;
      rows.push_back({{"layer", name},
                      {"plans", plans.size()},
                      {"feasible", feasible},
                      {"cold_seconds", cold},
                      {"cold_plans_per_second", n / cold},
                      {"warm_seconds", warm},
                      {"warm_plans_per_second", n / warm}});
      if (!json)
        std::cout << fmt::format("{:<16} {:>7} {:>9} {:>9.3f} {:>11.0f} {:>9.3f} {:>11.0f}\n", name,
                                 plans.size(), feasible, cold, n / cold, warm, n / warm);
    }
    if (json) std::cout << nlohmann::json{{"model", model}, {"layers", rows}}.dump(2) << "\n";
  } catch (const Error& e) {
    std::cerr << "kiln_bench_rtl_price: " << e.message() << "\n";
    return 1;
  }
  return 0;
}
