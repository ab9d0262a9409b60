#include "xla/hlo/transforms/scaled_dot_expander.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

// The evaluator's scaled-dot (f64 throughout) before the pass against the
// expansion after it, on random operands and scales that are powers of two
// from 1/4 to 4 (parameters 2 and 3; e8m0 holds only powers of two).
void ExpectExpansionMatches(const std::string& text) {
  ScaledDotExpander pass;
  pass_test::CheckOptions options;
  options.adjust_inputs = [](std::vector<Literal>* args) {
    for (int p : {2, 3}) {
      Literal& s = (*args)[p];
      for (int64_t i = 0; i < s.element_count(); ++i) s.SetDouble(i, 0.25 * (1 << ((i * 7 + p) % 5)));
    }
  };
  options.output_scale_tolerance = true;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, text, options);
  EXPECT_TRUE(r.changed);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kScaledDot), 0);
}

TEST(ScaledDotExpander, CorpusMxfp8Form) {
  // backends/gpu/codegen/triton/tests/scaled_dot: e4m3 operands, e8m0
  // scales over blocks of 32 along the contracting dimension.
  ExpectExpansionMatches(R"(
HloModule m
ENTRY e {
  a = f8e4m3fn[2,256] parameter(0)
  b = f8e4m3fn[256,256] parameter(1)
  sa = f8e8m0fnu[2,8] parameter(2)
  sb = f8e8m0fnu[256,8] parameter(3)
  ROOT d = f32[2,256] scaled-dot(a, b, sa, sb), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})");
}

TEST(ScaledDotExpander, BatchedBlocksInTwoDimensionsAndScalarScale) {
  ExpectExpansionMatches(R"(
HloModule m
ENTRY e {
  a = bf16[3,9,15] parameter(0)
  b = bf16[3,15,7] parameter(1)
  sa = f32[3,3,5] parameter(2)
  sb = f32[] parameter(3)
  ROOT d = bf16[3,9,7] scaled-dot(a, b, sa, sb), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
})");
}

}  // namespace
}  // namespace xla
