// Graph passes at scale: the HLS pass pipeline (every pass, and the verifier
// that runs after each) and the IR text printer and parser on synthetic graphs
// of 10^4 to 10^6 nodes. Passes must run in linear time, so the time per node
// must stay flat as the graph grows 100x; the peer of each measurement is the
// same work on the smallest graph, measured in the same run, and the printed
// ratio is time per node at the largest size over time per node at the
// smallest (1.0 = linear; a quadratic pass would show about 100).
//
// Wall time per node also grows with the memory hierarchy (a 10^6-node graph
// and its hash tables do not fit in any cache); bench/pass_instructions.sh
// counts instructions per node with callgrind, which caches do not affect.
//
// Usage: kiln_bench_passes [--sizes 10000,100000,1000000] [--json FILE] [--repeats N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/graph/ir_text.h"
#include "kiln/graph/shape_inference.h"
#include "kiln/passes/pipeline.h"

namespace {

using namespace kiln;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A chain of blocks with work for every pass of the HLS pipeline:
//   Identity -> Transpose(0,2,3,1) -> Transpose(0,3,1,2) -> Conv 1x1 -> BatchNorm
//   -> LeakyRelu -> MatMul (constant weight) -> Add (constant bias) -> Reshape back
// on [1, 2, 2, 2] tensors; 9 nodes per block.
Graph synthetic(int64_t target_nodes) {
  Graph g;
  g.name = "synthetic";
  g.opset = 13;
  const TensorType t{DType::Float32, {1, 2, 2, 2}};
  ValueId x = g.add_value("x", t);
  g.inputs = {x};
  auto constant = [&](Shape s, float v) {
    Tensor c(DType::Float32, std::move(s));
    for (float& e : c.data<float>()) e = v;
    return g.add_constant("c", std::move(c));
  };
  auto node = [&](OpKind kind, std::vector<ValueId> in, Attrs attrs = {}) {
    const ValueId out = g.add_value("v", TensorType{});
    Node& n = g.add_node(kind, "", std::move(in), {out}, std::move(attrs));
    g.value(out).type = infer_node_types(g, n)[0];
    return out;
  };
  const int64_t blocks = std::max<int64_t>(1, target_nodes / 9);
  for (int64_t b = 0; b < blocks; ++b) {
    ValueId v = node(OpKind::Identity, {x});
    v = node(OpKind::Transpose, {v}, TransposeAttrs{{0, 2, 3, 1}});
    v = node(OpKind::Transpose, {v}, TransposeAttrs{{0, 3, 1, 2}});
    v = node(OpKind::Conv, {v, constant({2, 2, 1, 1}, 0.5f), constant({2}, 0.1f)},
             ConvAttrs{{1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1});
    v = node(OpKind::BatchNormalization, {v, constant({2}, 1.0f), constant({2}, 0.0f),
                                          constant({2}, 0.0f), constant({2}, 1.0f)});
    v = node(OpKind::LeakyRelu, {v}, LeakyReluAttrs{0.1f});
    v = node(OpKind::Reshape, {v}, ReshapeAttrs{{4, 2}});
    v = node(OpKind::MatMul, {v, constant({2, 2}, 0.25f)});
    v = node(OpKind::Add, {v, constant({2}, 0.01f)});
    x = node(OpKind::Reshape, {v}, ReshapeAttrs{{1, 2, 2, 2}});
  }
  g.outputs = {x};
  return g;
}

struct Sample {
  int64_t nodes = 0;
  std::map<std::string, double> seconds;  // per pass, plus "verify", "print", "parse"
};

Sample measure(int64_t size) {
  Sample s;
  Graph g = synthetic(size);
  s.nodes = static_cast<int64_t>(g.num_nodes());
  // Each pass alone, then the verifier the pipeline runs after it.
  for (const std::string& name : passes::hls_pipeline()) {
    auto pass = passes::graph_passes().find(name)->make();
    double t0 = now();
    pass->run(g);
    s.seconds[name] = now() - t0;
    t0 = now();
    IrTraits<Graph>::verify(g, name);
    s.seconds["verify"] += now() - t0;
  }
  IrWriteOptions o;
  o.large = IrWriteOptions::Large::Inline;
  double t0 = now();
  const IrText text = print_ir(g, o);
  s.seconds["print"] = now() - t0;
  t0 = now();
  const Graph back = parse_ir(text.text, "bench.kir");
  s.seconds["parse"] = now() - t0;
  if (back.num_nodes() != g.num_nodes()) std::abort();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> sizes = {10000, 100000, 1000000};
  std::string json_path;
  int max_repeats = 9;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--sizes") {
      sizes.clear();
      std::string v = argv[i + 1];
      for (std::size_t p = 0; p < v.size();) {
        std::size_t c = v.find(',', p);
        if (c == std::string::npos) c = v.size();
        sizes.push_back(std::stoll(v.substr(p, c - p)));
        p = c + 1;
      }
    } else if (a == "--json") {
      json_path = argv[i + 1];
    } else if (a == "--repeats") {
      max_repeats = std::max(1, std::stoi(argv[i + 1]));
    }
  }
  // Small graphs run in milliseconds: repeat them and keep each row's
  // fastest run, so noise does not pass for a trend.
  std::vector<Sample> samples;
  for (int64_t n : sizes) {
    const int repeats =
        static_cast<int>(std::clamp<int64_t>(200000 / std::max<int64_t>(n, 1), 1, max_repeats));
    Sample best = measure(n);
    for (int r = 1; r < repeats; ++r) {
      const Sample s = measure(n);
      for (auto& [k, v] : best.seconds) v = std::min(v, s.seconds.at(k));
    }
    samples.push_back(best);
  }

  std::vector<std::string> rows = passes::hls_pipeline();
  for (const char* r : {"verify", "print", "parse"}) rows.emplace_back(r);
  std::printf("%-20s", "ns per node");
  for (const Sample& s : samples) std::printf(" %12lld", static_cast<long long>(s.nodes));
  std::printf(" %14s\n", "largest/small");
  nlohmann::json j;
  for (const std::string& r : rows) {
    std::printf("%-20s", r.c_str());
    std::vector<double> per;
    for (const Sample& s : samples) {
      per.push_back(1e9 * s.seconds.at(r) / static_cast<double>(s.nodes));
      std::printf(" %12.1f", per.back());
    }
    const double ratio = per.back() / per.front();
    std::printf(" %14.2f\n", ratio);
    j["rows"][r] = {{"ns_per_node", per}, {"ratio_largest_to_smallest", ratio}};
  }
  double first = 0, last = 0;
  for (const std::string& r : rows) {
    first += samples.front().seconds.at(r) / static_cast<double>(samples.front().nodes);
    last += samples.back().seconds.at(r) / static_cast<double>(samples.back().nodes);
  }
  std::printf("%-20s %s %14.2f\n", "all", std::string(13 * samples.size() - 1, ' ').c_str(),
              last / first);
  std::vector<int64_t> nodes;
  for (const Sample& s : samples) nodes.push_back(s.nodes);
  j["nodes"] = nodes;
  j["ratio_all"] = last / first;
  if (!json_path.empty()) std::ofstream(json_path) << j.dump(2) << "\n";
  return 0;
}
