#include "kiln/passes/reference_check.h"

#include <algorithm>
#include <cmath>

#include "kiln/ref/interpreter.h"
#include "kiln/ref/random_inputs.h"

namespace kiln::passes {

ReferenceComparison compare_with_reference(const Graph& before, const Graph& after, int samples,
                                           uint64_t seed) {
  auto types = [](const Graph& g, const std::vector<ValueId>& ids) {
    std::vector<TensorType> t;
    for (ValueId v : ids) t.push_back(g.value(v).type);
    return t;
  };
  if (types(before, before.inputs) != types(after, after.inputs) ||
      types(before, before.outputs) != types(after, after.outputs))
    throw_error(ErrorKind::InvalidModel, "reference check",
                "the graphs differ in their input or output types", "");
  ReferenceComparison r;
  const ref::Interpreter a(before), b(after);
  for (const std::vector<Tensor>& in : ref::random_inputs(before, samples, seed)) {
    const std::vector<Tensor> want = a.run(in), got = b.run(in);
    ++r.samples;
    for (std::size_t o = 0; o < want.size(); ++o)
      for (int64_t i = 0; i < want[o].numel(); ++i) {
        const double w = want[o].as_double(i), g = got[o].as_double(i);
        r.max_abs_value = std::max(r.max_abs_value, std::fabs(w));
        const double e = (std::isnan(w) && std::isnan(g)) ? 0.0 : std::fabs(w - g);
        if (!(e <= r.max_abs_error)) {
          r.max_abs_error = std::isnan(e) ? INFINITY : e;
          const Value& v = before.value(before.outputs[o]);
          r.worst_output = v.onnx_name.empty() ? v.name : v.onnx_name;
        }
      }
  }
  return r;
}

}  // namespace kiln::passes
