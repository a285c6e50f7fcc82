// Builds Loop IR kernels statement by statement, computing each value's type
// as it goes (the lowerings and the tests use it).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kiln/loop/loop_ir.h"

namespace kiln::loop {

// Adds a buffer to the program and returns its index.
int add_buffer(Program& p, std::string name, BufferRole role, ScalarType type,
               std::vector<int64_t> shape, std::vector<int64_t> data = {});

class KernelBuilder {
 public:
  KernelBuilder(Program& program, std::string name, std::string onnx_name);

  // for %name 0..trip { body(var) }. A trip of 1 still makes a loop.
  void loop(const std::string& name, int64_t trip, const std::function<void(const Affine&)>& body);
  // Loops over every element of `shape` (variables prefix0, prefix1, ...);
  // body gets the index.
  void for_each(const std::vector<int64_t>& shape, const std::string& prefix,
                const std::function<void(const std::vector<Affine>&)>& body);
  // if (all guards) { body }; no statement when `guards` is empty.
  void when(const std::vector<Guard>& guards, const std::function<void()>& body);

  int local(const std::string& name, ScalarType type, std::vector<int64_t> shape);

  int load(int buffer, std::vector<Affine> index);
  int constant(int64_t raw, ScalarType type);
  int add(int a, int b);
  int sub(int a, int b);
  int mul(int a, int b);
  int neg(int a);
  int shl(int a, int amount);
  int quantize(int a, const FixedType& target);
  // quantize() unless `a` already has the target's format and the target
  // does not saturate symmetrically (then it is exact).
  int convert(int a, const FixedType& target);
  int max(int a, int b);
  int min(int a, int b);
  int lt(int a, int b);
  int select(int c, int a, int b);
  int lookup(int table, int a, int shift, int64_t offset);
  void store(int buffer, std::vector<Affine> index, int value);

  const ScalarType& type(int value) const;
  Program& program() { return program_; }
  // Appends the kernel to the program.
  void finish(std::vector<int> reads, std::vector<int> writes);

 private:
  int define(Value v);
  std::vector<Stmt>& block() { return *blocks_.back(); }

  Program& program_;
  Kernel kernel_;
  std::vector<std::vector<Stmt>*> blocks_;
};

}  // namespace kiln::loop
