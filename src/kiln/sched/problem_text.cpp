#include "kiln/sched/problem_text.h"

#include <climits>
#include <unordered_map>

#include "kiln/support/text_lexer.h"

namespace kiln::sched {

namespace {

int expect_int32(Lexer& lex) {
  const Token t = lex.peek();
  const int64_t v = lex.expect_int();
  if (v < INT_MIN || v > INT_MAX) lex.fail_at(t, "integer " + t.text + " is out of range");
  return static_cast<int>(v);
}

// Reads `key value` fields until the end of the line; each key at most once.
template <class F>
void read_fields(Lexer& lex, F&& field) {
  std::vector<std::string> seen;
  while (lex.peek().kind != TokenKind::Newline && !lex.at_end()) {
    const Token key = lex.peek();
    const std::string name = lex.expect_ident();
    for (const std::string& s : seen)
      if (s == name) lex.fail_at(key, "field '" + name + "' is given twice");
    seen.push_back(name);
    if (!field(name)) lex.fail_at(key, "unknown field '" + name + "'");
  }
  lex.expect_end_of_line();
}

}  // namespace

std::string print_problem(const Problem& p) {
  std::string s = "problem " + p.name + " " + std::string(enum_name(p.problem_class));
  if (p.has_chaining()) s += " clock " + format_double(p.clock_ns);
  if (p.max_latency) s += " max_latency " + std::to_string(*p.max_latency);
  if (p.ii) s += " ii " + std::to_string(*p.ii);
  s += "\n";
  for (const OperatorType& t : p.types) {
    s += "type " + t.name + " latency " + std::to_string(t.latency) + " delay " +
         format_double(t.delay_ns);
    if (t.limit) s += " limit " + std::to_string(*t.limit);
    s += "\n";
  }
  for (const Operation& op : p.operations) {
    const bool known = op.type >= 0 && op.type < static_cast<int>(p.types.size());
    s += "op " + op.name + " " + (known ? p.types[op.type].name : "?") + " width " +
         std::to_string(op.width) + "\n";
  }
  for (const Dependence& d : p.dependences) {
    s += "dep " + p.operations[d.from].name + " " + p.operations[d.to].name;
    if (d.distance != 0) s += " distance " + std::to_string(d.distance);
    if (d.order) s += " order";
    s += "\n";
  }
  return s;
}

Problem parse_problem(std::string_view text, const std::string& source) {
  Lexer lex(text, source);
  Problem p;
  lex.skip_newlines();
  lex.expect_ident("problem");
  p.name = lex.expect_ident();
  const Token cls = lex.peek();
  const auto problem_class = enum_from_name<ProblemClass>(lex.expect_ident());
  if (!problem_class)
    lex.fail_at(
        cls, "unknown problem class '" + cls.text + "', expected " + enum_choices<ProblemClass>());
  p.problem_class = *problem_class;
  bool has_clock = false;
  read_fields(lex, [&](const std::string& key) {
    if (key == "clock") {
      if (p.problem_class != ProblemClass::Chaining && !p.is_modulo())
        lex.fail("a clock applies to chaining and modulo problems only");
      p.clock_ns = lex.expect_double();
      has_clock = true;
    } else if (key == "max_latency") {
      p.max_latency = expect_int32(lex);
    } else if (key == "ii") {
      if (!p.is_modulo()) lex.fail("an initiation interval applies to modulo problems only");
      p.ii = expect_int32(lex);
    } else {
      return false;
    }
    return true;
  });
  if (p.problem_class == ProblemClass::Chaining && !has_clock)
    lex.fail("a chaining problem needs 'clock NS'");

  std::unordered_map<std::string, int> types, ops;
  const auto lookup = [&](const std::unordered_map<std::string, int>& names, const char* what) {
    const Token t = lex.peek();
    const std::string name = lex.expect_ident();
    const auto it = names.find(name);
    if (it == names.end()) lex.fail_at(t, std::string("unknown ") + what + " '" + name + "'");
    return it->second;
  };
  const auto define = [&](std::unordered_map<std::string, int>& names, const char* what,
                          int index) {
    const Token t = lex.peek();
    std::string name = lex.expect_ident();
    if (!names.emplace(name, index).second)
      lex.fail_at(t, std::string(what) + " '" + name + "' is defined twice");
    return name;
  };

  for (lex.skip_newlines(); !lex.at_end(); lex.skip_newlines()) {
    const Token kw = lex.peek();
    const std::string word = lex.expect_ident();
    if (word == "type") {
      OperatorType t;
      t.name = define(types, "type", static_cast<int>(p.types.size()));
      read_fields(lex, [&](const std::string& key) {
        if (key == "latency")
          t.latency = expect_int32(lex);
        else if (key == "delay")
          t.delay_ns = lex.expect_double();
        else if (key == "limit")
          t.limit = expect_int32(lex);
        else
          return false;
        return true;
      });
      p.types.push_back(std::move(t));
    } else if (word == "op") {
      Operation op;
      op.name = define(ops, "operation", p.num_operations());
      op.type = lookup(types, "type");
      read_fields(lex, [&](const std::string& key) {
        if (key != "width") return false;
        op.width = expect_int32(lex);
        return true;
      });
      p.operations.push_back(std::move(op));
    } else if (word == "dep") {
      Dependence d;
      d.from = lookup(ops, "operation");
      d.to = lookup(ops, "operation");
      read_fields(lex, [&](const std::string& key) {
        if (key == "order") {
          d.order = true;
          return true;
        }
        if (key != "distance") return false;
        d.distance = expect_int32(lex);
        return true;
      });
      p.dependences.push_back(d);
    } else {
      lex.fail_at(kw, "expected 'type', 'op' or 'dep', got '" + word + "'");
    }
  }
  return p;
}

std::string print_solution(const Problem& p, const Solution& s) {
  std::string text = "solution " + p.name + " latency " + std::to_string(s.latency);
  if (p.is_modulo()) text += " ii " + std::to_string(s.ii);
  text += "\n";
  for (int v = 0; v < p.num_operations(); ++v) {
    text += "op " + p.operations[v].name + " " + std::to_string(s.start[v]);
    if (p.has_chaining()) text += " " + format_double(s.start_ns[v]);
    text += "\n";
  }
  return text;
}

Solution parse_solution(const Problem& p, std::string_view text, const std::string& source) {
  Lexer lex(text, source);
  const int n = p.num_operations();
  std::unordered_map<std::string, int> ops;
  for (int v = 0; v < n; ++v) ops.emplace(p.operations[v].name, v);

  Solution s;
  s.start.assign(n, -1);
  s.start_ns.assign(n, 0.0);
  std::vector<char> given(n, 0);
  lex.skip_newlines();
  lex.expect_ident("solution");
  const Token name = lex.peek();
  if (lex.expect_ident() != p.name)
    lex.fail_at(name, "solution of problem '" + name.text + "', expected '" + p.name + "'");
  lex.expect_ident("latency");
  s.latency = expect_int32(lex);
  if (p.is_modulo()) {
    lex.expect_ident("ii");
    s.ii = expect_int32(lex);
  }
  lex.expect_end_of_line();
  for (lex.skip_newlines(); !lex.at_end(); lex.skip_newlines()) {
    lex.expect_ident("op");
    const Token t = lex.peek();
    const auto it = ops.find(lex.expect_ident());
    if (it == ops.end()) lex.fail_at(t, "unknown operation '" + t.text + "'");
    if (given[it->second]) lex.fail_at(t, "operation '" + t.text + "' is given twice");
    given[it->second] = 1;
    s.start[it->second] = expect_int32(lex);
    if (p.has_chaining()) s.start_ns[it->second] = lex.expect_double();
    lex.expect_end_of_line();
  }
  for (int v = 0; v < n; ++v)
    if (!given[v]) lex.fail("no start for operation '" + p.operations[v].name + "'");
  return s;
}

}  // namespace kiln::sched
