// The emulator's per-kind kernels (emulate/dense_conv.cpp,
// emulate/elementwise.cpp) and what each one is given; emulator.cpp holds
// the table from layer kind to kernel. Private to the emulator.
#pragma once

#include <vector>

#include "kiln/hls/emulate/emulator.h"
#include "kiln/hls/tables.h"

namespace kiln::hls {

// One layer's run: its inputs, its outputs (type and shape preset) and the
// quantization events it counts.
struct LayerRun {
  const Layer& layer;
  const std::vector<const FixedTensor*>& in;
  const std::vector<FixedTensor*>& out;
  OverflowCounts& counts;
  const EmulatorOptions& options;
  // Input layers: the sample's values of the tensor.
  const std::vector<double>* input_values = nullptr;
  // Set by Dense and Conv when they accumulated on the int64 fast path.
  bool fast_path_used = false;

  const FixedTensor& x(std::size_t i = 0) const;  // asserts presence
  FixedTensor& y() const;                         // the single output
};

// Value i of `t`, exactly.
numeric::Exact exact_of(const FixedTensor& t, std::size_t i);
// Q_t(v), counting the overflow event.
int64_t assign(const numeric::Exact& v, const FixedType& t, OverflowCounts& counts);

// A symmetric lookup table of a layer (docs/numerics.md "Lookup tables").
struct SymTable {
  TableGeometry g;
  FixedType type;
  std::vector<int64_t> raw;
  numeric::Exact lookup(const numeric::Exact& x) const;  // the entry x's bin selects
};
SymTable load_table(const Layer& layer, TableKind kind);

void emulate_input(LayerRun& run);
void emulate_dense(LayerRun& run);
void emulate_conv(LayerRun& run);
void emulate_pool(LayerRun& run);
void emulate_zero_pad(LayerRun& run);
void emulate_batchnorm(LayerRun& run);
void emulate_activation(LayerRun& run);
void emulate_softmax(LayerRun& run);
void emulate_binary(LayerRun& run);
void emulate_concat(LayerRun& run);
void emulate_transpose(LayerRun& run);
void emulate_matmul(LayerRun& run);
void emulate_recurrent(LayerRun& run);
void emulate_slice(LayerRun& run);
void emulate_resize(LayerRun& run);
void emulate_quantize(LayerRun& run);
void emulate_copy(LayerRun& run);  // Reshape and Clone: every output a copy of the input

}  // namespace kiln::hls
