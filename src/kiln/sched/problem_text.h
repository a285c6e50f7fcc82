// The text form of scheduling problems and their solutions (.sched), for
// tests and debugging. print then parse gives back the same problem, and
// print of that the same text.
//
//   # comments run to the end of the line
//   problem conv1 chaining clock 5 max_latency 40
//   type mul latency 1 delay 2.1 limit 4
//   type add latency 0 delay 0.8
//   op m0 mul width 32
//   op a0 add width 33
//   dep m0 a0
//
// The problem line comes first: a name, the class (plain |
// shared_operators | chaining | modulo), `clock NS` (chaining only, required
// there), an optional `max_latency CYCLES` and (modulo only) an optional
// `ii CYCLES`, the initiation interval asked for. Types and operations are defined
// before they are named. Fields after the name may come in any order; left
// out: latency 0, delay 0, no limit, width 0. `dep FROM TO` may add
// `distance N` (check() refuses it outside the modulo problem).
//
//   solution conv1 latency 2
//   op m0 0 0
//   op a0 1 0
//
// A solution names its problem and its latency (and `ii N` for modulo
// problems) and gives each operation's start cycle, and for chaining
// problems its offset in ns. Parse errors are InvalidModel at
// "FILE:LINE:COL"; the parser resolves names and leaves the other rules to
// check() and verify().
#pragma once

#include <string>
#include <string_view>

#include "kiln/sched/problem.h"

namespace kiln::sched {

std::string print_problem(const Problem& p);
Problem parse_problem(std::string_view text, const std::string& source = "<problem>");

std::string print_solution(const Problem& p, const Solution& s);
Solution parse_solution(const Problem& p, std::string_view text,
                        const std::string& source = "<solution>");

}  // namespace kiln::sched
