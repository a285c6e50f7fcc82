// kiln's dataflow graph: one pipeline stage (a Loop IR kernel) fully
// unrolled into SSA nodes with exact fixed-point types (docs/rtl-design.md).
//
// Nodes are 16 bytes in one array, operands in one pool, types interned, so a
// 3x3 convolution over a 128x128 image (147,456 multiply-adds) fits in a few
// MB. The builder hash-conses every node (a repeated subexpression is one
// node), interns constants and folds as it goes: x*0 -> 0, x*1 -> x,
// x*(+-2^k) -> a shift (a relabelling of the same bits) and a negation,
// x+0 -> x, quantizations that change nothing, every op on constants, and
// Q_T(a + b) with a wrap-around T on a grid fine enough into a modular add
// in T (AddMod), which balance_sums() regroups into balanced trees.
//
// A node's type is exact for its value, and may be narrower than the Loop
// IR's type of the same value (a folded x*1 keeps x's type); consumers align
// operands, as ap_fixed arithmetic does.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "kiln/loop/loop_ir.h"
#include "kiln/support/enum_table.h"
#include "kiln/support/flat_hash.h"

namespace kiln::dfg {

using loop::ScalarType;
using numeric::FixedType;

enum class NodeOp : uint8_t {
  Input,  // an element of a buffer the stage reads (a port of the stage)
  Const,  // raw `imm` of the node's type
  Add,    // exact sums, differences, products and negation
  Sub,
  Mul,
  Neg,
  Shl,       // a * 2^imm: the same bits with the binary point moved
  Quantize,  // assignment to quantize_target(n) (rounding, then overflow)
  Max,
  Min,
  Lt,      // 1 bit
  Select,  // args: condition, if true, if false
  Lookup,  // lookup(n): table entry of the bin of a
  AddMod,  // (a + b) wrapped to the node's type: both operands already in it
  SubMod,  // (a - b) wrapped likewise
};

struct Node {
  NodeOp op = NodeOp::Const;
  uint8_t num_args = 0;
  uint16_t type = 0;       // index into Graph::types()
  uint32_t first_arg = 0;  // index into the operand pool
  int64_t imm = 0;         // Const raw; Shl amount; Input/Quantize/Lookup: index of its record
};
static_assert(sizeof(Node) == 16);

// Where an Input node's value comes from, and where a stage output goes: an
// element of a program buffer (its storage buffer, row-major element index).
struct Element {
  int buffer = -1;
  int64_t element = 0;
  bool operator==(const Element&) const = default;
};

struct LookupInfo {
  int table = -1;  // index into Graph::tables()
  int shift = 0;
  int64_t offset = 0;
};

struct Table {
  std::string name;  // the Loop IR buffer's name
  ScalarType type;
  std::vector<int64_t> data;
};

struct Output {
  Element where;
  uint32_t node = 0;
};

class Graph {
 public:
  explicit Graph(std::string name = "") : name_(std::move(name)) {}

  // ---- building (hash-consed, folded) ----
  uint32_t input(const Element& e, const ScalarType& type);
  uint32_t constant(int64_t raw, const ScalarType& type);
  uint32_t add(uint32_t a, uint32_t b);
  uint32_t sub(uint32_t a, uint32_t b);
  uint32_t mul(uint32_t a, uint32_t b);
  uint32_t neg(uint32_t a);
  uint32_t shl(uint32_t a, int amount);
  uint32_t quantize(uint32_t a, const FixedType& target);
  uint32_t max(uint32_t a, uint32_t b);
  uint32_t min(uint32_t a, uint32_t b);
  uint32_t lt(uint32_t a, uint32_t b);
  uint32_t select(uint32_t c, uint32_t a, uint32_t b);
  uint32_t lookup(int table, uint32_t a, int shift, int64_t offset);
  uint32_t add_mod(uint32_t a, uint32_t b, const ScalarType& type);
  uint32_t sub_mod(uint32_t a, uint32_t b, const ScalarType& type);
  int add_table(Table t);
  void add_output(const Element& where, uint32_t node) { outputs_.push_back({where, node}); }

  // Regroups chains of AddMod (and of exact Add, Max and Min) into balanced
  // trees (exact: each is associative), then compact()s. Leaves for which `last` holds are added
  // after the tree of the others, one by one: a loop body's accumulator, so
  // that its recurrence crosses one add rather than the tree's depth.
  void balance_sums(const std::function<bool(uint32_t)>& last = nullptr);
  // Drops nodes no output reaches and renumbers the rest in topological
  // order; ends building (the hash-consing table is freed).
  void compact();
  // Every use of node n (as an operand or an output) becomes a use of
  // repl[n] (which must not depend on n's users), then compact()s: how a pass
  // that built new nodes puts them in place of old ones.
  void replace(const std::vector<uint32_t>& repl);

  // ---- reading ----
  const std::string& name() const { return name_; }
  std::size_t size() const { return nodes_.size(); }
  const Node& node(uint32_t n) const { return nodes_[n]; }
  std::span<const uint32_t> args(uint32_t n) const {
    return {args_.data() + nodes_[n].first_arg, nodes_[n].num_args};
  }
  const ScalarType& type(uint32_t n) const { return types_[nodes_[n].type]; }
  const Element& input_of(uint32_t n) const {
    return inputs_[static_cast<std::size_t>(nodes_[n].imm)];
  }
  const FixedType& quantize_target(uint32_t n) const {
    return targets_[static_cast<std::size_t>(nodes_[n].imm)];
  }
  const LookupInfo& lookup_of(uint32_t n) const {
    return lookups_[static_cast<std::size_t>(nodes_[n].imm)];
  }
  const std::vector<Table>& tables() const { return tables_; }
  const std::vector<Output>& outputs() const { return outputs_; }
  bool is_const(uint32_t n) const { return nodes_[n].op == NodeOp::Const; }
  // Operation counts by op, for reports.
  std::vector<int64_t> op_counts() const;

  // ---- identity ----
  // Whether `other` is the same graph: the same nodes in the same order,
  // operands, types, inputs, quantization targets, lookups, tables and
  // outputs (not the name). The Pricer shares what it built from a graph
  // with a later graph equal to it (another plan's part before or after its
  // kept loop), found by content_hash(), a hash of the same.
  bool same_content(const Graph& other) const;
  uint64_t content_hash() const;
  // The heap bytes it holds (what a cache of graphs weighs it by).
  std::size_t bytes() const;

 private:
  // select(c, a + p, a) -> a + select(c, p, 0) for modular adds (graph.cpp),
  // the first step of balance_sums.
  void fold_guarded_sums();
  struct Key {
    int64_t imm;
    uint32_t a, b, c;
    uint16_t type;
    NodeOp op;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const;
  };

  uint16_t type_id(const ScalarType& t);
  // The type of a Max, Min or Select of nodes a and b: the union of theirs.
  ScalarType join_type(uint32_t a, uint32_t b) const;
  // Node n's key, as make() made it.
  Key key_of(uint32_t n) const;
  // Finds the node with key `k` in the hash-consing table, or puts `id`
  // there; returns the node.
  uint32_t memo(const Key& k, uint32_t id);
  // The node for (op, args, imm) of `type`, made if new.
  uint32_t make(NodeOp op, const ScalarType& type, std::initializer_list<uint32_t> args,
                int64_t imm = 0);
  const int64_t& raw(uint32_t n) const { return nodes_[n].imm; }

  std::string name_;
  std::vector<Node> nodes_;
  std::vector<uint32_t> args_;
  std::vector<ScalarType> types_;
  struct IdHash {
    std::size_t operator()(uint64_t k) const { return static_cast<std::size_t>(k); }
  };
  FlatHashMap<uint64_t, uint16_t, IdHash> type_ids_;
  std::vector<Element> inputs_;
  FlatHashMap<uint64_t, uint32_t, IdHash> input_ids_;
  std::vector<FixedType> targets_;
  std::vector<LookupInfo> lookups_;
  std::vector<Table> tables_;
  std::vector<Output> outputs_;
  // The hash-consing table (open addressing, linear probing, at most half
  // full): per slot 0 when empty, else the low 32 bits of the node's key's
  // hash above the node's index + 1. Eight bytes a slot, the key read from
  // the node itself: building a large layer probes it millions of times at
  // random, and a table this small stays in the cache far more.
  std::vector<uint64_t> memo_;
  std::size_t memo_size_ = 0;
};

// Values of every node, given the Input nodes' raw values (by node): the
// reference the tests hold the hardware and the folding to.
std::vector<numeric::Exact> evaluate(const Graph& g, const std::vector<int64_t>& input_raw);

// One line per node: "n12 = mul n3, n7 : ap_fixed<32,12>".
std::string print_graph(const Graph& g);

}  // namespace kiln::dfg

namespace kiln {
template <>
struct EnumNames<dfg::NodeOp> {
  static constexpr std::pair<dfg::NodeOp, std::string_view> kNames[] = {
      {dfg::NodeOp::Input, "input"},   {dfg::NodeOp::Const, "const"},
      {dfg::NodeOp::Add, "add"},       {dfg::NodeOp::Sub, "sub"},
      {dfg::NodeOp::Mul, "mul"},       {dfg::NodeOp::Neg, "neg"},
      {dfg::NodeOp::Shl, "shl"},       {dfg::NodeOp::Quantize, "quantize"},
      {dfg::NodeOp::Max, "max"},       {dfg::NodeOp::Min, "min"},
      {dfg::NodeOp::Lt, "lt"},         {dfg::NodeOp::Select, "select"},
      {dfg::NodeOp::Lookup, "lookup"}, {dfg::NodeOp::AddMod, "add_mod"},
      {dfg::NodeOp::SubMod, "sub_mod"}};
};
}  // namespace kiln
