// Plans priced per second (rtl/plan/price.h): for each layer of a model, every plan
// the search may try (rtl/plan/search.h candidate_plans: each top-level loop kept,
// each unroll factor, flattened or not, weights in banks or registers, a
// stride-1 convolution's line-buffered form, and fully unrolled) priced from
// a cold Pricer (each dataflow graph built once, then shared by the plans
// that differ only in pipelining and weight storage), then priced again with
// the Pricer warm (its graphs, and its StageCache's modulo schedules and
// stages built from a graph alone, kept: a plan priced again, as the searches
// price the plan they chose). No Verilog, no netlist. Prints per layer: plans,
// feasible, seconds and plans per second, cold and warm; --verbose each
// plan's cold and warm seconds. --prices FILE writes every plan's price
// (feasible, reason, interval, latency, the stage report's every field, its
// ports and write times) to FILE, so that a change to pricing can be checked
// to give the same bytes; it also checks that the warm pass prices each plan
// as the cold one. --plan LAYER:PLAN times one plan, its first price apart
// from --repeat N - 1 more. --sweep N prices, from another cold Pricer, what a
// directive explorer walks beyond the search's candidates: every candidate
// that keeps a loop at each II asked from 1 to N, under no multiplier limit
// and limits of 1, 4 and 16 (all distinct plans; the layer's graphs are built
// once, in the timed loop, and shared).
//   kiln_bench_rtl_price [--model models/zoo/lenet5/model.onnx] [--set KEY=VALUE ...]
//                        [--max-plans N] [--json] [--prices FILE] [--layer NAME] [--verbose]
//                        [--plan LAYER:PLAN [--repeat N]] [--sweep N]
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kiln/flow/configure.h"
#include "kiln/rtl/plan/options.h"
#include "kiln/rtl/plan/price.h"
#include "kiln/rtl/plan/search.h"
#include "kiln/support/error.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Everything a price holds but the netlist, one field a line; doubles as
// their shortest exact text.
std::string price_text(const std::string& layer, const std::string& plan,
                       const kiln::rtl::PlanPrice& p) {
  std::string out = fmt::format("plan {} : {}\n", layer, plan);
  fmt::format_to(std::back_inserter(out), "  feasible {} reason {:?}\n", p.feasible, p.reason);
  fmt::format_to(std::back_inserter(out), "  interval {} latency {} share {} on_multipliers {}\n",
                 p.interval, p.latency, p.share, p.on_multipliers);
  const kiln::rtl::BuiltStage& s = p.stage;
  const kiln::rtl::StageReport& r = s.report;
  fmt::format_to(std::back_inserter(out), "  report name {:?} onnx {:?} plan {:?}\n", r.name,
                 r.onnx_name, r.plan);
  fmt::format_to(std::back_inserter(out),
                 "  loop_ops {} nodes {} multipliers {} multiplier_units {} const_multipliers {} "
                 "adders {} lookups {}\n",
                 r.loop_ops, r.nodes, r.multipliers, r.multiplier_units, r.const_multipliers,
                 r.adders, r.lookups);
  fmt::format_to(std::back_inserter(out),
                 "  start {} latency {} interval {} register_bits {} critical_path_ns {}\n",
                 r.start_cycle, r.latency_cycles, r.interval_cycles, r.register_bits,
                 r.critical_path_ns);
  out += " ";
  for (const kiln::fpga::ResourceField& f : kiln::fpga::kResourceFields)
    fmt::format_to(std::back_inserter(out), " {} {}", f.key, r.*f.member);
  fmt::format_to(std::back_inserter(out), "\n  module {:?} sequential {} started {} phased {}\n",
                 s.module, s.sequential, s.started, s.phased);
  const auto elements = [&](const char* what, const std::vector<kiln::rtl::StagePortElement>& v) {
    fmt::format_to(std::back_inserter(out), "  {} {}:", what, v.size());
    for (const kiln::rtl::StagePortElement& e : v)
      fmt::format_to(std::back_inserter(out), " {}.{}:{}/{}/{}@{}:{}@{}{}", e.where.buffer,
                     e.where.element, e.type.width, e.type.frac, e.type.is_signed ? "s" : "u",
                     e.port, e.lsb, e.at, e.held ? fmt::format("h{}", e.rewritten) : "");
    out += "\n";
  };
  elements("inputs", s.inputs);
  elements("outputs", s.outputs);
  elements("channel_inputs", s.channel_inputs);
  elements("channel_outputs", s.channel_outputs);
  const auto times = [&](const char* what,
                         const std::map<std::pair<int, int>, std::vector<int64_t>>& m) {
    for (const auto& [key, t] : m)
      fmt::format_to(std::back_inserter(out), "  {} {}.{}: {}\n", what, key.first, key.second,
                     fmt::join(t, " "));
  };
  times("channel_write_times", s.channel_write_times);
  times("port_write_times", s.port_write_times);
  for (const auto& [name, width] : s.channel_outputs_ports)
    fmt::format_to(std::back_inserter(out), "  channel_output_port {} {}\n", name, width);
  for (const auto& [name, width] : s.channel_inputs_ports)
    fmt::format_to(std::back_inserter(out), "  channel_input_port {} {}\n", name, width);
  fmt::format_to(std::back_inserter(out), "  submodules {}\n", s.submodules.size());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kiln;
  std::string model = "models/zoo/lenet5/model.onnx";
  std::vector<std::string> sets;
  int max_plans = 100000;
  bool json = false, verbose = false;
  std::string prices_file;            // --prices FILE: every plan's price
  std::string layer_filter;           // --layer NAME: that layer only
  std::string only_layer, only_plan;  // --plan LAYER:TEXT, priced --repeat times (profiling)
  int repeat = 1;
  int sweep = 0;  // --sweep N: each kept-loop candidate at II 1..N under four limits
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
    } else if (a == "--layer" && i + 1 < argc) {
      layer_filter = argv[++i];
    } else if (a == "--prices" && i + 1 < argc) {
      prices_file = argv[++i];
    } else if (a == "--sweep" && i + 1 < argc) {
      sweep = std::atoi(argv[++i]);
    } else {
      std::cerr << "usage: kiln_bench_rtl_price [--model FILE] [--set KEY=VALUE ...] "
                   "[--max-plans N] [--json] [--prices FILE] [--layer NAME] [--verbose] [--plan "
                   "LAYER:PLAN "
                   "--repeat N] [--sweep N]\n";
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
    std::ofstream prices;
    if (!prices_file.empty()) {
      prices.open(prices_file);
      if (!prices) throw_error(ErrorKind::Io, prices_file, "cannot write it");
    }
    int mismatches = 0;
    if (!json)
      std::cout << fmt::format("{:<16} {:>7} {:>9} {:>9} {:>11} {:>9} {:>11}\n", "layer", "plans",
                               "feasible", "cold s", "cold plan/s", "warm s", "warm plan/s");
    for (std::size_t k = 0; k < program.kernels.size(); ++k) {
      rtl::Pricer pricer(program, built.model, {}, device, {}, {});
      if (!only_layer.empty()) {
        if (program.kernels[k].name != only_layer) continue;
        // A line-buffered plan names that form's loops.
        rtl::LayerPlan form;
        form.line_buffered = only_plan.find("form=line_buffer") != std::string::npos;
        const rtl::LayerPlan p = rtl::parse_plan(
            pricer.program_for(static_cast<int>(k), form).kernels[k], only_plan, "--plan");
        rtl::StageOptions sk = so;
        // The first price makes the graph and fills the Pricer's caches; the
        // others are timed apart.
        const auto t0 = std::chrono::steady_clock::now();
        pricer.price(static_cast<int>(k), p, sk);
        const double first = seconds_since(t0);
        const auto t1 = std::chrono::steady_clock::now();
        for (int r = 1; r < repeat; ++r) pricer.price(static_cast<int>(k), p, sk);
        std::cout << fmt::format("{}: first {:.6f} s, then {} x {:.6f} s\n", only_plan, first,
                                 repeat - 1, repeat > 1 ? seconds_since(t1) / (repeat - 1) : 0.0);
        continue;
      }
      if (!layer_filter.empty() && program.kernels[k].name != layer_filter) continue;
      std::vector<rtl::LayerPlan> plans = rtl::candidate_plans(pricer, static_cast<int>(k));
      if (static_cast<int>(plans.size()) > max_plans)
        plans.resize(static_cast<std::size_t>(max_plans));
      rtl::StageOptions sk = so;
      sk.multiplier_limit = rtl::multiplier_limit_of(options, program.kernels[k]);
      const auto text_of = [&](const rtl::LayerPlan& p) {
        return rtl::plan_text(pricer.program_for(static_cast<int>(k), p).kernels[k], p);
      };
      // The cold prices' text, kept outside the timed loops.
      std::vector<rtl::PlanPrice> cold_prices;
      std::vector<std::string> cold_texts;
      int feasible = 0;
      auto t0 = std::chrono::steady_clock::now();
      std::vector<double> cold_times;  // per plan, for --verbose
      for (const rtl::LayerPlan& p : plans) {
        const auto t1 = std::chrono::steady_clock::now();
        rtl::PlanPrice price = pricer.price(static_cast<int>(k), p, sk);
        if (verbose) cold_times.push_back(seconds_since(t1));
        feasible += price.feasible ? 1 : 0;
        if (prices.is_open()) cold_prices.push_back(std::move(price));
      }
      const double cold = seconds_since(t0);
      for (std::size_t i = 0; i < cold_prices.size(); ++i) {
        cold_texts.push_back(
            price_text(program.kernels[k].name, text_of(plans[i]), cold_prices[i]));
        prices << cold_texts.back();
      }
      cold_prices.clear();
      std::vector<rtl::PlanPrice> warm_prices;
      t0 = std::chrono::steady_clock::now();
      for (std::size_t i = 0; i < plans.size(); ++i) {
        const auto t1 = std::chrono::steady_clock::now();
        rtl::PlanPrice price = pricer.price(static_cast<int>(k), plans[i], sk);
        if (prices.is_open()) warm_prices.push_back(std::move(price));
        if (verbose)
          std::cerr << fmt::format("  {:<60} cold {:8.4f} s warm {:8.4f} s\n", text_of(plans[i]),
                                   cold_times[i], seconds_since(t1));
      }
      const double warm = seconds_since(t0);
      for (std::size_t i = 0; i < warm_prices.size(); ++i)
        if (price_text(program.kernels[k].name, text_of(plans[i]), warm_prices[i]) !=
            cold_texts[i]) {
          std::cerr << "warm price differs from cold: " << program.kernels[k].name << " "
                    << text_of(plans[i]) << "\n";
          ++mismatches;
        }
      // The explorer's sweep, from a cold Pricer of its own.
      int64_t swept = 0;
      double sweep_seconds = 0;
      if (sweep > 0) {
        rtl::Pricer fresh(program, built.model, {}, device, {}, {});
        const auto ts = std::chrono::steady_clock::now();
        for (rtl::LayerPlan p : plans) {
          if (p.loop < 0) continue;
          for (int ii = 1; ii <= sweep; ++ii)
            for (const std::optional<int> limit : {std::optional<int>{}, std::optional<int>{1},
                                                   std::optional<int>{4}, std::optional<int>{16}}) {
              p.pipeline_ii = ii;
              rtl::StageOptions sl = sk;
              sl.multiplier_limit = limit;
              fresh.price(static_cast<int>(k), p, sl);
              ++swept;
            }
        }
        sweep_seconds = seconds_since(ts);
      }
      const auto n = static_cast<double>(plans.size());
      const std::string& name = program.kernels[k].name;
      rows.push_back({{"layer", name},
                      {"plans", plans.size()},
                      {"feasible", feasible},
                      {"cold_seconds", cold},
                      {"cold_plans_per_second", n / cold},
                      {"warm_seconds", warm},
                      {"warm_plans_per_second", n / warm}});
      if (sweep > 0) {
        rows.back()["sweep_plans"] = swept;
        rows.back()["sweep_seconds"] = sweep_seconds;
        rows.back()["sweep_plans_per_second"] =
            sweep_seconds > 0 ? static_cast<double>(swept) / sweep_seconds : 0.0;
      }
      if (!json) {
        std::cout << fmt::format("{:<16} {:>7} {:>9} {:>9.3f} {:>11.0f} {:>9.3f} {:>11.0f}", name,
                                 plans.size(), feasible, cold, n / cold, warm, n / warm);
        if (sweep > 0)
          std::cout << fmt::format("   sweep {} plans in {:.3f} s: {:.0f}/s", swept, sweep_seconds,
                                   swept / std::max(sweep_seconds, 1e-9));
        std::cout << "\n";
      }
    }
    if (json) std::cout << nlohmann::json{{"model", model}, {"layers", rows}}.dump(2) << "\n";
    if (mismatches) return 1;
  } catch (const Error& e) {
    std::cerr << "kiln_bench_rtl_price: " << e.message() << "\n";
    return 1;
  }
  return 0;
}
