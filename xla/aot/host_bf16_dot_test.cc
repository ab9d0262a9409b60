// bf16 dots compiled for the host and run through HostGemm, against the HLO
// evaluator, on odd sizes (k odd, batched, both operand orders, a bf16 MLP
// layer) and on both GEMM paths: the AVX512-BF16 kernel where the CPU has it
// and the widen-then-f32 fallback, forced.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/aot/host_vs_evaluator.h"
#include "xla/stream_executor/host/host_gemm.h"
#include "xla/types/literal.h"

namespace xla::aot {
namespace {

struct Case {
  const char* name;
  const char* hlo;
};

const Case kCases[] = {
    {"odd_17x127_127x33", R"(
HloModule m
ENTRY e {
  a = bf16[17,127] parameter(0)
  b = bf16[127,33] parameter(1)
  ROOT d = bf16[17,33] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"},
    {"transposed_operands_257", R"(
HloModule m
ENTRY e {
  a = bf16[257,33] parameter(0)
  b = bf16[127,257] parameter(1)
  ROOT d = bf16[33,127] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}
})"},
    {"batched_3x33x17x65", R"(
HloModule m
ENTRY e {
  a = bf16[3,33,17] parameter(0)
  b = bf16[3,17,65] parameter(1)
  ROOT d = bf16[3,33,65] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0},
      lhs_contracting_dims={2}, rhs_contracting_dims={1}
})"},
    {"mlp_layer_f32_out", R"(
HloModule m
ENTRY e {
  x = bf16[129,257] parameter(0)
  w = bf16[257,127] parameter(1)
  bias = bf16[127] parameter(2)
  d = bf16[129,127] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = bf16[129,127] broadcast(bias), dimensions={1}
  s = bf16[129,127] add(d, bb)
  t = bf16[129,127] tanh(s)
  ROOT o = f32[129,127] convert(t)
})"},
};

// Largest |a - b| / (1 + |b|).
double WorstError(const Literal& a, const Literal& b) {
  double worst = 0;
  for (int64_t i = 0; i < b.element_count(); ++i) {
    worst = std::max(worst, std::abs(a.GetDouble(i) - b.GetDouble(i)) / (1 + std::abs(b.GetDouble(i))));
  }
  return worst;
}

class HostBf16Dot : public ::testing::TestWithParam<Case> {};

TEST_P(HostBf16Dot, MatchesTheEvaluatorOnBothGemmPaths) {
  absl::StatusOr<HostProgram> module = PrepareHostProgram(GetParam().hlo, {}, 5);
  ASSERT_TRUE(module.ok()) << module.status();
  const Literal* expected = &module->expected;
  std::vector<Literal> results;
  for (bool fallback : {false, true}) {
    SCOPED_TRACE(fallback ? "widen-then-f32 fallback" : "default path");
    stream_executor::host::DisableHostGemmBf16DotForTesting(fallback);
    absl::StatusOr<Literal> out = RunHostProgramOneOutput(*module);
    stream_executor::host::DisableHostGemmBf16DotForTesting(false);
    ASSERT_TRUE(out.ok()) << out.status();
    // One bf16 rounding of each output (2^-9 relative) and, for the MLP
    // layer, of the sum before tanh; the two paths' f32 sums differ far
    // below that.
    EXPECT_LE(WorstError(*out, *expected), 1.6e-2);
    results.push_back(std::move(*out));
  }
  // The paths round the same f32 sums in another order: at most one bf16
  // step apart (2^-8 relative, doubled by tanh's slope of at most 1).
  EXPECT_LE(WorstError(results[0], results[1]), 2 * 0x1p-8);
}

INSTANTIATE_TEST_SUITE_P(Cases, HostBf16Dot, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace xla::aot
