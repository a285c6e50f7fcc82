// An independent check of a schedule against its problem, shared by no
// solver: every solver calls it on its own result, and the tests on every
// schedule they see.
#pragma once

#include "kiln/sched/problem.h"

namespace kiln::sched {

// Throws kiln::Error(Internal) naming the first violated rule with its
// numbers. The rules: one start per operation; starts >= 0; start_ns >= 0
// (and 0 outside Chaining); every dependence; every limit in every cycle
// (SharedOperators, Chaining; for Modulo every cycle mod II, with the II at
// least 1 and each dependence of distance d shifted by d x II); for Chaining, the same-cycle delay
// of each latency-0 dependence and start_ns + delay <= clock_ns; the latency equals max(start +
// latency); the latency is within max_latency. The problem must have passed check().
void verify(const Problem& p, const Solution& s);

}  // namespace kiln::sched
