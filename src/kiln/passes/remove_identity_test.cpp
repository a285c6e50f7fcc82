// remove_identity as IR text in, IR text out.
#include "kiln/passes/remove_identity.h"

#include "kiln/passes/testing/pass_testing.h"

namespace kiln::passes {
namespace {

using testing::expect_passes;
using testing::expect_unchanged;

TEST(RemoveIdentity, DropsIdentityAndDropoutChains) {
  expect_passes("remove_identity", R"(
input %x: float32[2x3]
%r1 = Relu(%x) @relu1
%i1 = Identity(%r1) @identity
%d1 = Dropout(%i1) @dropout
%r2 = Relu(%d1) @relu2
output %r2
)",
                R"(
input %x: float32[2x3]
%r1: float32[2x3] = Relu(%x) @relu1
%r2: float32[2x3] = Relu(%r1) @relu2
output %r2
)");
}

TEST(RemoveIdentity, GraphOutputKeepsItsValue) {
  // The Relu now produces the output value %y itself.
  expect_passes("remove_identity", R"(
input %x: float32[4]
%r = Relu(%x) @relu
%y = Identity(%r) @id
output %y
)",
                R"(
input %x: float32[4]
%y: float32[4] = Relu(%x) @relu
output %y
)");
}

TEST(RemoveIdentity, KeepsInputToOutputIdentity) {
  expect_unchanged("remove_identity", R"(
input %x: float32[4]
%y = Identity(%x) @id
output %y
)");
}

TEST(RemoveIdentity, KeepsDropoutWhoseMaskIsUsed) {
  expect_unchanged("remove_identity", R"(
input %x: float32[4]
%r = Relu(%x) @relu
%y, %mask = Dropout(%r) @drop
output %y
output %mask
)");
}

}  // namespace
}  // namespace kiln::passes
