// insert_clones: a tensor read by several layers gets explicit copies.
//  - io_stream: a stream can be read once, so a stream with k > 1 readers (a
//    model output counts as one) is copied by Clone layers: one 3-way clone
//    for three copies, else a chain of 2-way clones. Reader j reads
//    `<t>_cpy<j>`, chain links are `<t>_link<n>`, and an output port `<t>`
//    becomes the last copy of `<t>_src`, which its producer writes.
//  - io_parallel: an array can be read many times, but a model output port is
//    never read back inside the design: the producer writes `<t>_src`, the
//    readers read it, and a Clone copies it to the port.
// Clones of a model input come after all Input layers; any other clone right
// after the layer that writes its input.
#include <map>
#include <set>

#include "kiln/hls/layer_passes/pipeline.h"
#include "kiln/hls/model_edit.h"

namespace kiln::hls {

namespace {

class InsertClones final : public LayerPass {
 public:
  std::string_view name() const override { return "insert_clones"; }

  bool run(Model& m) override {
    const std::size_t n = m.tensors.size();
    std::vector<int> slots(n, 0);  // reading slots per tensor
    for (const Layer& l : m.layers)
      for (int t : l.inputs) ++slots[static_cast<std::size_t>(t)];
    used_.clear();
    for (const Layer& l : m.layers) used_.insert(l.name);
    for (const TensorInfo& t : m.tensors) used_.insert(t.name);

    // What becomes of each tensor, by name (indices follow definitions).
    const bool stream = m.io_type == IOType::Stream;
    std::vector<Copies> plan(n);
    bool changed = false;
    for (std::size_t t = 0; t < n; ++t) {
      const std::string& name = m.tensors[t].name;
      const bool port_out = is_model_output(m, static_cast<int>(t));
      const int r = slots[t];
      const int copies = stream ? r + (port_out ? 1 : 0) : 0;
      Copies& c = plan[t];
      c.produced = port_out && (copies > 1 || (!stream && r > 0)) ? fresh(name + "_src") : name;
      if (copies > 1) {
        std::vector<std::string> dests;
        for (int k = 0; k < r; ++k) dests.push_back(fresh(name + "_cpy" + std::to_string(k)));
        c.slot = dests;
        if (port_out) dests.push_back(name);
        // 2-way clones down a chain until three or two copies are left.
        std::string from = c.produced;
        std::size_t i = 0;
        for (int link = 0; dests.size() - i > 3; ++link, ++i) {
          const std::string next = fresh(name + "_link" + std::to_string(link));
          c.clones.push_back({from, {dests[i], next}});
          from = next;
        }
        c.clones.push_back(
            {from, std::vector<std::string>(dests.begin() + static_cast<long>(i), dests.end())});
      } else {
        c.slot.assign(static_cast<std::size_t>(r), c.produced);
        if (c.produced != name) c.clones.push_back({c.produced, {name}});
      }
      changed |= !c.clones.empty();
    }
    if (!changed) return false;

    Model out = m;
    out.tensors.clear();
    out.layers.clear();
    std::map<std::string, int> index;  // new tensors by name, as they are defined
    auto define = [&](int original, const std::string& name) {
      TensorInfo t = m.tensors[static_cast<std::size_t>(original)];
      t.name = name;
      index[name] = static_cast<int>(out.tensors.size());
      out.tensors.push_back(std::move(t));
      return index[name];
    };
    auto add_clones = [&](int original) {
      for (const auto& [from, to] : plan[static_cast<std::size_t>(original)].clones) {
        Layer l;
        l.name = fresh(m.tensors[static_cast<std::size_t>(original)].name + "_clone");
        l.params = CloneParams{};
        l.precision.result = m.tensors[static_cast<std::size_t>(original)].type;
        l.inputs = {index.at(from)};
        for (const std::string& t : to) l.outputs.push_back(define(original, t));
        out.layers.push_back(std::move(l));
      }
    };
    std::vector<std::size_t> next_slot(n, 0);
    bool inputs_cloned = false;
    for (const Layer& l : m.layers) {
      if (l.kind() != LayerKind::Input && !inputs_cloned) {
        inputs_cloned = true;  // clones of inputs right after the Input layers
        for (int t : m.inputs) add_clones(t);
      }
      Layer copy = l;
      for (int& t : copy.inputs) {
        const auto i = static_cast<std::size_t>(t);
        t = index.at(plan[i].slot.at(next_slot[i]++));
      }
      for (int& t : copy.outputs) t = define(t, plan[static_cast<std::size_t>(t)].produced);
      out.layers.push_back(std::move(copy));
      if (l.kind() != LayerKind::Input)
        for (int t : l.outputs) add_clones(t);
    }
    if (!inputs_cloned)
      for (int t : m.inputs) add_clones(t);
    for (int& t : out.inputs) t = index.at(plan[static_cast<std::size_t>(t)].produced);
    for (int& t : out.outputs) t = index.at(m.tensors[static_cast<std::size_t>(t)].name);
    m = std::move(out);
    return true;
  }

 private:
  // Where one tensor of the original model goes, by tensor name.
  struct Copies {
    std::string produced;           // what its producer writes
    std::vector<std::string> slot;  // per reading slot, what the reader reads
    // Clone layers in order: what each reads and writes.
    std::vector<std::pair<std::string, std::vector<std::string>>> clones;
  };

  // The first unused spelling of `base` (base, base_2, ...).
  std::string fresh(const std::string& base) {
    std::string name = base;
    for (int k = 2; used_.count(name) != 0; ++k) name = base + "_" + std::to_string(k);
    used_.insert(name);
    return name;
  }

  std::set<std::string> used_;
};

}  // namespace

std::unique_ptr<LayerPass> make_insert_clones(const LayerPassContext&) {
  return std::make_unique<InsertClones>();
}

}  // namespace kiln::hls
