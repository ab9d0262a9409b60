// Attention's probabilities x V compiled for the host against the HLO
// evaluator when many probabilities are subnormal (scores scaled by 40: a
// softmax row far below its maximum underflows), the case that made the
// host GEMM take a microcode assist per multiply-add before it flushed
// subnormal operands (host_gemm.h). Odd sizes; the GEMM on its direct
// kernel and on Eigen's path. The evaluator keeps subnormals, so the
// outputs differ by at most k * 2^-126 * max|V| per element, far inside the
// tolerance; the probabilities (a kernel, not a GEMM) are compared too, and
// must hold subnormals for the test to mean anything.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "xla/aot/host_vs_evaluator.h"
#include "xla/stream_executor/host/host_gemm.h"
#include "xla/types/literal.h"

namespace xla::aot {
namespace {

constexpr char kAttention[] = R"(
HloModule m
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  q = f32[3,37,17] parameter(0)
  k = f32[3,41,17] parameter(1)
  v = f32[3,41,29] parameter(2)
  s = f32[3,37,41] dot(q, k), lhs_batch_dims={0}, rhs_batch_dims={0},
      lhs_contracting_dims={2}, rhs_contracting_dims={2}
  c = f32[] constant(40)
  cb = f32[3,37,41] broadcast(c), dimensions={}
  z = f32[3,37,41] multiply(s, cb)
  ninf = f32[] constant(-inf)
  mx = f32[3,37] reduce(z, ninf), dimensions={2}, to_apply=max_f32
  mxb = f32[3,37,41] broadcast(mx), dimensions={0,1}
  d = f32[3,37,41] subtract(z, mxb)
  ex = f32[3,37,41] exponential(d)
  zero = f32[] constant(0)
  sum = f32[3,37] reduce(ex, zero), dimensions={2}, to_apply=add_f32
  sb = f32[3,37,41] broadcast(sum), dimensions={0,1}
  p = f32[3,37,41] divide(ex, sb)
  o = f32[3,37,29] dot(p, v), lhs_batch_dims={0}, rhs_batch_dims={0},
      lhs_contracting_dims={2}, rhs_contracting_dims={1}
  ROOT t = (f32[3,37,41], f32[3,37,29]) tuple(p, o)
})";

int64_t CountSubnormal(const Literal& l) {
  int64_t count = 0;
  for (int64_t i = 0; i < l.element_count(); ++i) {
    if (std::fpclassify(static_cast<float>(l.GetDouble(i))) == FP_SUBNORMAL) ++count;
  }
  return count;
}

TEST(HostGemmSubnormals, SoftmaxTimesVMatchesTheEvaluator) {
  absl::StatusOr<HostProgram> program = PrepareHostProgram(kAttention, {}, 29);
  ASSERT_TRUE(program.ok()) << program.status();
  for (bool eigen : {false, true}) {
    SCOPED_TRACE(eigen ? "Eigen's packed product" : "direct kernel");
    stream_executor::host::DisableHostGemmDirectForTesting(eigen);
    absl::StatusOr<std::vector<Literal>> got = RunHostProgram(*program);
    stream_executor::host::DisableHostGemmDirectForTesting(false);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->size(), 2u);
    // The probabilities hold subnormals (the kernel keeps them, as the
    // evaluator does).
    EXPECT_GT(CountSubnormal((*got)[0]), 100);
    const absl::Status compared = CompareWithEvaluator(*program, *got);
    EXPECT_TRUE(compared.ok()) << compared;
    // And P x V element by element.
    const Literal& want = program->expected.tuple_elements()[1];
    const Literal& out = (*got)[1];
    ASSERT_EQ(out.element_count(), want.element_count());
    for (int64_t i = 0; i < want.element_count(); ++i) {
      ASSERT_NEAR(out.GetDouble(i), want.GetDouble(i), 1e-5 * (1 + std::abs(want.GetDouble(i))))
          << "element " << i;
    }
  }
}

}  // namespace
}  // namespace xla::aot
