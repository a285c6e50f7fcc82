#include "kiln/netlist/netlist.h"

#include <algorithm>
#include <charconv>

#include "kiln/support/error.h"

namespace kiln::netlist {

namespace {

// k if `name` is "v<k>" (digits without a leading zero), else -1.
int64_t auto_number(std::string_view name) {
  if (name.size() < 2 || name[0] != 'v' || (name[1] == '0' && name.size() > 2)) return -1;
  uint32_t k = 0;
  const auto r = std::from_chars(name.data() + 1, name.data() + name.size(), k);
  return r.ec == std::errc() && r.ptr == name.data() + name.size() ? k : -1;
}

}  // namespace

ValueId Module::add_value(Op op, int width, std::span<const ValueId> args, int64_t imm,
                          std::string name) {
  const auto id = static_cast<ValueId>(values_.size());
  KILN_ASSERT(id != kNoValue, "too many values in module " + name_);
  if (name.empty()) {
    name = "v" + std::to_string(id);
    // Taken by an explicit name already: a suffix (rare; verify() catches
    // what is still a clash).
    const bool taken = id < explicit_v_.size()
                           ? static_cast<bool>(explicit_v_[id])
                           : std::find(explicit_v_large_.begin(), explicit_v_large_.end(), id) !=
                                 explicit_v_large_.end();
    if (taken) name += "_";
  } else if (const int64_t k = auto_number(name); k >= 0) {
    if (k < (int64_t{1} << 24)) {
      if (static_cast<std::size_t>(k) >= explicit_v_.size()) explicit_v_.resize(k + 1);
      explicit_v_[static_cast<std::size_t>(k)] = true;
    } else {
      explicit_v_large_.push_back(static_cast<uint32_t>(k));
    }
  }
  Value v;
  v.op = op;
  v.width = width;
  v.first_arg = static_cast<uint32_t>(args_.size());
  v.num_args = static_cast<uint32_t>(args.size());
  v.imm = imm;
  v.name = std::move(name);
  args_.insert(args_.end(), args.begin(), args.end());
  values_.push_back(std::move(v));
  return id;
}

ValueId Module::input(std::string name, int width) {
  const auto port = static_cast<int64_t>(ports_.size());
  const ValueId v = add_value(Op::Input, width, {}, port, name);
  ports_.push_back({std::move(name), PortDirection::In, width, v});
  return v;
}

int Module::output(std::string name, int width) {
  ports_.push_back({std::move(name), PortDirection::Out, width, kNoValue});
  return static_cast<int>(ports_.size()) - 1;
}

void Module::drive_output(int port, ValueId value) {
  KILN_ASSERT(port >= 0 && port < static_cast<int>(ports_.size()),
              "no port " + std::to_string(port) + " in module " + name_);
  ports_[static_cast<std::size_t>(port)].value = value;
}

int Module::output(std::string name, ValueId value) {
  KILN_ASSERT(value < values_.size(), "an output driven by no value in module " + name_);
  const int p = output(std::move(name), values_[value].width);
  drive_output(p, value);
  return p;
}

ValueId Module::constant(const Bits& value, std::string name) {
  constants_.push_back(value);
  return add_value(Op::Const, value.width(), {}, static_cast<int64_t>(constants_.size()) - 1,
                   std::move(name));
}

ValueId Module::constant(int64_t value, int width, std::string name) {
  return constant(Bits::from_int(value, width), std::move(name));
}

ValueId Module::op(Op op, int width, std::initializer_list<ValueId> args, int64_t imm,
                   std::string name) {
  return add_value(op, width, std::span<const ValueId>(args.begin(), args.size()), imm,
                   std::move(name));
}

ValueId Module::op(Op op, int width, std::span<const ValueId> args, int64_t imm, std::string name) {
  return add_value(op, width, args, imm, std::move(name));
}

ValueId Module::add(ValueId a, ValueId b, std::string name) {
  return op(Op::Add, width(a), {a, b}, 0, std::move(name));
}

ValueId Module::sub(ValueId a, ValueId b, std::string name) {
  return op(Op::Sub, width(a), {a, b}, 0, std::move(name));
}

ValueId Module::slice(ValueId a, int lsb, int width, std::string name) {
  return op(Op::Slice, width, {a}, lsb, std::move(name));
}

ValueId Module::concat(std::span<const ValueId> msb_first, std::string name) {
  int w = 0;
  for (ValueId v : msb_first) w += width(v);
  return op(Op::Concat, w, msb_first, 0, std::move(name));
}

ValueId Module::sext(ValueId a, int width, std::string name) {
  return op(Op::Sext, width, {a}, 0, std::move(name));
}

ValueId Module::zext(ValueId a, int width, std::string name) {
  return op(Op::Zext, width, {a}, 0, std::move(name));
}

ValueId Module::mux(ValueId c, ValueId a, ValueId b, std::string name) {
  return op(Op::Mux, width(a), {c, a, b}, 0, std::move(name));
}

ValueId Module::case_of(ValueId selector, std::span<const std::pair<Bits, ValueId>> cases,
                        ValueId otherwise, std::string name) {
  std::vector<ValueId> args;
  args.reserve(cases.size() + 2);
  args.push_back(selector);
  CaseKeys keys;
  keys.keys.reserve(cases.size());
  for (const auto& [key, v] : cases) {
    keys.keys.push_back(key);
    args.push_back(v);
  }
  args.push_back(otherwise);
  cases_.push_back(std::move(keys));
  return op(Op::Case, width(otherwise), args, static_cast<int64_t>(cases_.size()) - 1,
            std::move(name));
}

int Module::case_keys(CaseKeys keys) {
  cases_.push_back(std::move(keys));
  return static_cast<int>(cases_.size()) - 1;
}

int Module::table(Table t) {
  tables_.push_back(std::move(t));
  return static_cast<int>(tables_.size()) - 1;
}

ValueId Module::lookup(int table, ValueId index, std::string name) {
  KILN_ASSERT(table >= 0 && table < static_cast<int>(tables_.size()),
              "no table " + std::to_string(table) + " in module " + name_);
  return op(Op::Lookup, tables_[static_cast<std::size_t>(table)].width, {index}, table,
            std::move(name));
}

ValueId Module::reg(int width, std::string name, std::optional<Bits> reset) {
  registers_.push_back({reset ? std::move(*reset) : Bits(std::max(width, 0))});
  return op(Op::Reg, width, {kNoValue, kNoValue, kNoValue},
            static_cast<int64_t>(registers_.size()) - 1, std::move(name));
}

void Module::drive_register(ValueId reg, ValueId d, ValueId en, ValueId rst) {
  KILN_ASSERT(reg < values_.size() && values_[reg].op == Op::Reg,
              "drive_register of a value that is not a register in module " + name_);
  ValueId* a = args_.data() + values_[reg].first_arg;
  a[0] = d;
  a[1] = en;
  a[2] = rst;
}

int Module::memory(Memory m) {
  memories_.push_back(std::move(m));
  return static_cast<int>(memories_.size()) - 1;
}

ValueId Module::read(int memory, int port, ValueId addr, ValueId en, std::string name) {
  KILN_ASSERT(memory >= 0 && memory < static_cast<int>(memories_.size()),
              "no memory " + std::to_string(memory) + " in module " + name_);
  reads_.push_back({memory, port});
  return op(Op::Read, memories_[static_cast<std::size_t>(memory)].width, {addr, en},
            static_cast<int64_t>(reads_.size()) - 1, std::move(name));
}

void Module::write(int memory, int port, ValueId addr, ValueId data, ValueId en) {
  writes_.push_back({memory, port, addr, data, en});
}

int Module::instance(std::string name, std::string module) {
  instances_.push_back({std::move(name), std::move(module), {}});
  return static_cast<int>(instances_.size()) - 1;
}

void Module::connect(int instance, std::string port, ValueId value) {
  KILN_ASSERT(instance >= 0 && instance < static_cast<int>(instances_.size()),
              "no instance " + std::to_string(instance) + " in module " + name_);
  instances_[static_cast<std::size_t>(instance)].inputs.emplace_back(std::move(port), value);
}

ValueId Module::instance_output(int instance, std::string port, int width, std::string name) {
  KILN_ASSERT(instance >= 0 && instance < static_cast<int>(instances_.size()),
              "no instance " + std::to_string(instance) + " in module " + name_);
  instance_outputs_.push_back({instance, std::move(port)});
  return op(Op::InstanceOutput, width, std::initializer_list<ValueId>{},
            static_cast<int64_t>(instance_outputs_.size()) - 1, std::move(name));
}

const Bits& Module::constant_of(ValueId v) const {
  KILN_ASSERT(v < values_.size() && values_[v].op == Op::Const,
              "constant_of a value that is not a constant in module " + name_);
  return constants_[static_cast<std::size_t>(values_[v].imm)];
}

int Module::find_port(std::string_view name) const {
  for (std::size_t i = 0; i < ports_.size(); ++i)
    if (ports_[i].name == name) return static_cast<int>(i);
  return -1;
}

const Module* Design::find(std::string_view name) const {
  for (const Module& m : modules)
    if (m.name() == name) return &m;
  return nullptr;
}

Module* Design::find(std::string_view name) {
  for (Module& m : modules)
    if (m.name() == name) return &m;
  return nullptr;
}

}  // namespace kiln::netlist
