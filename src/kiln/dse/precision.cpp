#include "kiln/dse/precision.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <map>
#include <thread>

#include "kiln/hls/emulate/emulator.h"
#include "kiln/support/error.h"

namespace kiln::dse {
namespace {

std::size_t argmax(const std::vector<double>& v) {
  return static_cast<std::size_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

// A type one layer's config can narrow: its field ("weight" or "result")
// and its type as configured.
struct Field {
  std::string layer, field;
  numeric::FixedType type;
  std::string key() const { return "LayerName." + layer + ".Precision." + field; }
};

// Weights where a layer has them, and every layer's results (the inputs'
// quantization included), while they keep a fraction bit to drop.
std::vector<Field> narrowable_fields(const hls::Model& model) {
  std::vector<Field> fields;
  for (const hls::Layer& l : model.layers) {
    if (l.kind() == hls::LayerKind::Clone) continue;  // its copies keep its input's type
    if (!l.weights.empty() && l.precision.weight.frac() > 0)
      fields.push_back({l.name, "weight", l.precision.weight});
    if (l.precision.result.frac() > 0) fields.push_back({l.name, "result", l.precision.result});
  }
  return fields;
}

// `type` with `drop` fraction bits fewer (at most down to `narrowest` bits
// and no fraction bit), or -drop more (at most 32 bits).
numeric::FixedType narrowed(numeric::FixedType type, int drop, int narrowest) {
  if (drop < 0) {
    type.width = std::min(32, type.width - drop);
    return type;
  }
  drop = std::min({drop, type.frac(), type.width - narrowest});
  type.width -= std::max(0, drop);
  return type;
}

struct Choice {
  std::vector<int> drop;  // per field
};

}  // namespace

Accuracy measure_accuracy(const hls::Model& model, const AccuracyData& data, int threads) {
  const std::size_t n = data.samples.size();
  std::vector<char> agree(n, 0);
  std::vector<double> worst(n, 0);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t s; (s = next++) < n;) {
      const hls::EmulationResult e = hls::emulate(model, data.samples[s]);
      const auto& ref = data.reference[s];
      for (std::size_t o = 0; o < e.outputs.size() && o < ref.size(); ++o)
        for (std::size_t i = 0; i < e.outputs[o].raw.size() && i < ref[o].size(); ++i)
          worst[s] = std::max(worst[s], std::fabs(e.outputs[o].at(i) - ref[o][i]));
      if (!e.outputs.empty() && !ref.empty() && !ref[0].empty()) {
        std::vector<double> got(e.outputs[0].raw.size());
        for (std::size_t i = 0; i < got.size(); ++i) got[i] = e.outputs[0].at(i);
        agree[s] = argmax(got) == argmax(ref[0]);
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::max(1, threads); ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  Accuracy a;
  a.samples = static_cast<int>(n);
  int64_t agreeing = 0;
  for (std::size_t s = 0; s < n; ++s) {
    agreeing += agree[s];
    a.max_error = std::max(a.max_error, worst[s]);
  }
  a.top1 = n ? static_cast<double>(agreeing) / static_cast<double>(n) : 0;
  return a;
}

bool meets(const Accuracy& a, const AccuracyGoal& goal) {
  return goal.metric == AccuracyMetric::Top1 ? a.top1 >= goal.min_top1
                                             : a.max_error <= goal.max_error;
}

double accuracy_loss(const Accuracy& a, const AccuracyGoal& goal) {
  return goal.metric == AccuracyMetric::Top1 ? 1 - a.top1 : a.max_error;
}

std::vector<PrecisionVariant> search_precisions(
    const hls::Model& base, const ModelBuilder& build, const AccuracyData& data,
    const AccuracyGoal& goal, const PrecisionSearchOptions& options,
    const std::function<void(const std::string&)>& progress, int* evaluations) {
  int measured = 0;
  auto say = [&](const std::string& s) {
    if (progress) progress(s);
  };
  auto describe = [&](const PrecisionVariant& v) {
    return fmt::format("{}: top-1 {:.2f}%, max error {:.4g}, {} bits{}", v.name,
                       100 * v.accuracy.top1, v.accuracy.max_error, v.bits,
                       meets(v.accuracy, goal) ? "" : " (misses the goal)");
  };
  auto finish = [&](std::vector<PrecisionVariant> out) {
    if (evaluations) *evaluations = measured;
    return out;
  };
  const auto bits_of = [](const std::vector<Field>& fields) {
    int64_t b = 0;
    for (const Field& f : fields) b += f.type.width;
    return b;
  };

  std::vector<PrecisionVariant> out;
  PrecisionVariant configured;
  configured.name = "as configured";
  configured.accuracy = measure_accuracy(base, data, options.threads);
  ++measured;
  configured.bits = bits_of(narrowable_fields(base));
  out.push_back(configured);
  say("precision " + describe(configured));

  // The ranges first: each type's integer bits from the profile (Precision
  // auto) at its configured width, written out as the types they became.
  std::vector<Field> fields = narrowable_fields(base);
  const std::vector<Field> configured_fields = fields;
  std::vector<std::string> auto_sets;
  for (const Field& f : fields) auto_sets.push_back(f.key() + "=auto");
  try {
    const hls::Model ranged = build(auto_sets);
    std::vector<Field> got = narrowable_fields(ranged);
    if (got.size() == fields.size()) fields = got;
  } catch (const Error& e) {
    say(std::string("precision: the profiled ranges could not be configured: ") + e.what());
  }
  if (fields.empty()) return finish(out);

  // Each choice measured once (the greedy rounds come back to the same ones).
  std::map<std::vector<int>, std::optional<PrecisionVariant>> seen;
  auto variant_of = [&](const Choice& c,
                        const std::string& name) -> std::optional<PrecisionVariant> {
    if (auto it = seen.find(c.drop); it != seen.end()) return it->second;
    PrecisionVariant v;
    v.name = name;
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const numeric::FixedType t = narrowed(fields[f].type, c.drop[f], options.narrowest);
      v.bits += t.width;
      v.sets.push_back(fields[f].key() + "=" + t.to_string());
    }
    std::optional<PrecisionVariant> result;
    try {
      const hls::Model m = build(v.sets);
      v.accuracy = measure_accuracy(m, data, options.threads);
      ++measured;
      result = v;
      say("precision " + describe(v));
    } catch (const Error&) {
      // A choice the flow refuses is no choice.
    }
    seen[c.drop] = result;
    return result;
  };
  const auto uniform = [&](int d) { return Choice{std::vector<int>(fields.size(), d)}; };
  // "profiled ranges", "profiled ranges -2 bits" (d fraction bits fewer), "+1 bit".
  const auto uniform_name = [](int d) {
    if (d == 0) return std::string("profiled ranges");
    return fmt::format("profiled ranges {}{} bit{}", d > 0 ? "-" : "+", std::abs(d),
                       std::abs(d) > 1 ? "s" : "");
  };
  const auto changes = [&](const Choice& a, const Choice& b) {
    for (std::size_t f = 0; f < fields.size(); ++f)
      if (narrowed(fields[f].type, a.drop[f], options.narrowest) !=
          narrowed(fields[f].type, b.drop[f], options.narrowest))
        return true;
    return false;
  };

  // The profiled ranges at the configured widths; where they miss the goal,
  // every type a fraction bit wider at a time (up to 8) until one meets it.
  std::optional<PrecisionVariant> start = variant_of(uniform(0), uniform_name(0));
  int d = 0;
  while (start && !meets(start->accuracy, goal) && d > -8) {
    --d;
    start = variant_of(uniform(d), uniform_name(d));
  }
  if (!start || !meets(start->accuracy, goal)) return finish(out);
  std::vector<PrecisionVariant> passing{*start};
  // Then every type together, a bit narrower at a time, while it holds.
  for (int n = d + 1;; ++n) {
    if (!changes(uniform(n), uniform(n - 1))) break;
    const std::optional<PrecisionVariant> v = variant_of(uniform(n), uniform_name(n));
    if (!v || !meets(v->accuracy, goal)) break;
    passing.push_back(*v);
    d = n;
  }
  // Kept: the widest that meets the goal, the halfway one and the narrowest
  // (not twice, and not the configured types again).
  bool same = fields.size() == configured_fields.size();
  for (std::size_t f = 0; same && f < fields.size(); ++f)
    same = fields[f].type == configured_fields[f].type;
  const auto keep = [&](const PrecisionVariant& v) {
    if (same && v.bits == configured.bits && v.name == uniform_name(0)) return;
    for (const PrecisionVariant& o : out)
      if (o.sets == v.sets && !o.sets.empty()) return;
    out.push_back(v);
  };
  if (passing.size() >= 3) keep(passing.front());
  if (passing.size() >= 2) keep(passing[(passing.size() - 1) / 2]);
  keep(passing.back());
  // Then each type alone, one bit at a time, while the goal holds.
  Choice current = uniform(d);
  PrecisionVariant best = passing.back();
  bool any = false;
  for (int round = 0; round < options.greedy_rounds; ++round) {
    bool accepted = false;
    for (std::size_t f = 0; f < fields.size(); ++f) {
      Choice c = current;
      ++c.drop[f];
      if (!changes(c, current)) continue;
      const std::optional<PrecisionVariant> v = variant_of(c, "per layer");
      if (!v || !meets(v->accuracy, goal)) continue;
      current = c;
      best = *v;
      accepted = any = true;
    }
    say(fmt::format("precision round {}: {}", round + 1, describe(best)));
    if (!accepted) break;
  }
  if (any) {
    best.name = "per layer";
    keep(best);
  }
  return finish(out);
}

}  // namespace kiln::dse
