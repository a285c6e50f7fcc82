// Parallel loops, loop IR text in: an unrolled loop whose iterations write
// their own elements is parallel; an unrolled reduction is not, and a
// loop the schedule does not unroll is not marked.
#include "kiln/cgen/parallel_loops.h"

#include <gtest/gtest.h>

#include "kiln/cgen/print_c.h"
#include "kiln/loop/loop_text.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::cgen {
namespace {

using kiln::testing::text_block;

// A product of @x by @w: `outer` and `inner` are the two loops' directives.
std::string product(const std::string& outer, const std::string& inner, bool reduction_outer) {
  const std::string o = reduction_outer ? "%i < 3" : "%o < 4";
  const std::string i = reduction_outer ? "%o < 4" : "%i < 3";
  return text_block(R"(
program "p"
buffer @x input ap_fixed<8,3> [3]
buffer @w const ap_fixed<8,3> [3x4] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
buffer @acc local ap_fixed<16,6> [4]
buffer @y output ap_fixed<16,6> [4]
inputs @x
outputs @y
kernel k "/K" reads @x @w writes @y locals @acc {
  for )") +
         o + outer + " {\n    for " + i + inner + R"( {
      %v0 = load @x[%i] : ap_fixed<8,3>
      %v1 = load @w[%i, %o] : ap_fixed<8,3>
      %v2 = mul %v0, %v1 : ap_fixed<16,6>
      %v3 = load @acc[%o] : ap_fixed<16,6>
      %v4 = add %v3, %v2 : ap_fixed<17,7>
      %v5 = quantize %v4 to ap_fixed<16,6> : ap_fixed<16,6>
      store @acc[%o] = %v5
    }
  }
  for %e < 4 {
    %v6 = load @acc[%e] : ap_fixed<16,6>
    store @y[%e] = %v6
  }
}
)";
}

std::set<std::pair<int, int>> marked(const std::string& text) {
  const loop::Program p = loop::parse_program(text, "p.loop");
  loop::verify(p);
  return parallel_loops(p);
}

TEST(ParallelLoops, AnUnrolledLoopOverOutputsIsParallelAReductionIsNot) {
  // Loop 0 is the outer one, loop 1 the inner one, loop 2 the copy.
  EXPECT_EQ(marked(product(" unroll=2", " unroll=0", false)),
            (std::set<std::pair<int, int>>{{0, 0}}));
  EXPECT_EQ(marked(product(" unroll=0", " unroll=2", true)),
            (std::set<std::pair<int, int>>{{0, 1}}));
  EXPECT_TRUE(marked(product(" unroll=3", "", true)).empty());  // the reduction
  EXPECT_TRUE(marked(product("", "", false)).empty());          // nothing unrolled
}

TEST(ParallelLoops, TheC99CarriesTheOpenMpPragmaGuardedForCompilersWithoutIt) {
  const loop::Program p = loop::parse_program(product(" unroll=2", " unroll=0", false), "p.loop");
  const std::string c = print_c(p, "top").source;
  const std::string pragma = "#ifdef _OPENMP\n#pragma omp parallel for\n#endif\n";
  ASSERT_NE(c.find(pragma + "  for (int64_t l0 = 0; l0 < 4; ++l0)"), std::string::npos) << c;
  EXPECT_EQ(c.find("omp", c.find(pragma) + pragma.size()), std::string::npos) << c;
  // Seed 001's split: the body is a function of what it needs, one call per
  // iteration, printed before the filter.
  const std::string body = "static void k0_k_o(const int8_t *b0_x, int64_t l0) {\n";
  ASSERT_NE(c.find(body), std::string::npos) << c;
  EXPECT_LT(c.find(body), c.find("static void k0_k("));
  EXPECT_NE(c.find(pragma +
                   "  for (int64_t l0 = 0; l0 < 4; ++l0) { /* o */\n    k0_k_o(b0_x, l0);\n  }\n"),
            std::string::npos)
      << c;
}

}  // namespace
}  // namespace kiln::cgen
