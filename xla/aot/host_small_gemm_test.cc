// Small dots compiled for the host, which HostGemm runs on its direct
// kernel (no packing; host_gemm.h), against the HLO evaluator: odd sizes on
// every tile class, a transposed lhs, batch dims, f32 / f64 / f16, a
// transposed rhs (still Eigen's), and a recurrence whose loop body holds
// two GEMVs. Each module runs with the direct kernel and with it turned
// off (Eigen's packed product for the same GEMMs).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/aot/host_vs_evaluator.h"
#include "xla/stream_executor/host/host_gemm.h"
#include "xla/types/literal.h"

namespace xla::aot {
namespace {

struct SmallDot {
  const char* name;
  const char* hlo;
  // Largest accepted |result - evaluator| / (1 + |evaluator|).
  double tolerance;
};

const SmallDot kSmallDots[] = {
    {"gemv_1x16_16x128", R"(
HloModule m
ENTRY e {
  a = f32[1,16] parameter(0)
  b = f32[16,128] parameter(1)
  ROOT d = f32[1,128] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
     1e-5},
    {"odd_17x33_33x257", R"(
HloModule m
ENTRY e {
  a = f32[17,33] parameter(0)
  b = f32[33,257] parameter(1)
  ROOT d = f32[17,257] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
     1e-5},
    {"transposed_lhs_9_of_k7", R"(
HloModule m
ENTRY e {
  a = f32[7,9] parameter(0)
  b = f32[7,49] parameter(1)
  ROOT d = f32[9,49] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})",
     1e-5},
    {"batched_3x5x17x65", R"(
HloModule m
ENTRY e {
  a = f32[3,5,17] parameter(0)
  b = f32[3,17,65] parameter(1)
  ROOT d = f32[3,5,65] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0},
      lhs_contracting_dims={2}, rhs_contracting_dims={1}
})",
     1e-5},
    {"transposed_rhs_8x64_of_k255", R"(
HloModule m
ENTRY e {
  a = f32[8,255] parameter(0)
  b = f32[63,255] parameter(1)
  ROOT d = f32[8,63] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})",
     1e-5},
    {"f64_5x31_31x77", R"(
HloModule m
ENTRY e {
  a = f64[5,31] parameter(0)
  b = f64[31,77] parameter(1)
  ROOT d = f64[5,77] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
     1e-12},
    // One f16 rounding of each output (2^-11 relative) on top of f32 sums.
    {"f16_9x47_47x49", R"(
HloModule m
ENTRY e {
  a = f16[9,47] parameter(0)
  b = f16[47,49] parameter(1)
  ROOT d = f16[9,49] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
     2e-3},
    // Five steps of h = tanh(x_t W + h U), rows of 3, as an LSTM scan's body.
    {"recurrence_5_steps_3x17_17x40", R"(
HloModule m
cond {
  s = (s32[], f32[3,40], f32[5,3,17], f32[17,40], f32[40,40]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[3,40], f32[5,3,17], f32[17,40], f32[40,40]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[3,40] get-tuple-element(s), index=1
  xs = f32[5,3,17] get-tuple-element(s), index=2
  w = f32[17,40] get-tuple-element(s), index=3
  u = f32[40,40] get-tuple-element(s), index=4
  z = s32[] constant(0)
  xt3 = f32[1,3,17] dynamic-slice(xs, i, z, z), dynamic_slice_sizes={1,3,17}
  xt = f32[3,17] reshape(xt3)
  xw = f32[3,40] dot(xt, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  hu = f32[3,40] dot(h, u), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  sum = f32[3,40] add(xw, hu)
  hn = f32[3,40] tanh(sum)
  one = s32[] constant(1)
  ni = s32[] add(i, one)
  ROOT t = (s32[], f32[3,40], f32[5,3,17], f32[17,40], f32[40,40]) tuple(ni, hn, xs, w, u)
}
ENTRY e {
  h0 = f32[3,40] parameter(0)
  xs = f32[5,3,17] parameter(1)
  w = f32[17,40] parameter(2)
  u = f32[40,40] parameter(3)
  z = s32[] constant(0)
  init = (s32[], f32[3,40], f32[5,3,17], f32[17,40], f32[40,40]) tuple(z, h0, xs, w, u)
  loop = (s32[], f32[3,40], f32[5,3,17], f32[17,40], f32[40,40]) while(init), condition=cond, body=body
  ROOT h = f32[3,40] get-tuple-element(loop), index=1
})",
     1e-5},
};

class HostSmallGemm : public ::testing::TestWithParam<SmallDot> {};

TEST_P(HostSmallGemm, MatchesTheEvaluatorWithAndWithoutTheDirectKernel) {
  absl::StatusOr<HostProgram> module = PrepareHostProgram(GetParam().hlo, {}, 11);
  ASSERT_TRUE(module.ok()) << module.status();
  for (bool eigen : {false, true}) {
    SCOPED_TRACE(eigen ? "Eigen's packed product" : "direct kernel");
    stream_executor::host::DisableHostGemmDirectForTesting(eigen);
    absl::StatusOr<Literal> got = RunHostProgramOneOutput(*module);
    stream_executor::host::DisableHostGemmDirectForTesting(false);
    ASSERT_TRUE(got.ok()) << got.status();
    const Literal& want = module->expected;
    ASSERT_EQ(got->element_count(), want.element_count());
    for (int64_t i = 0; i < want.element_count(); ++i) {
      const double w = want.GetDouble(i);
      ASSERT_LE(std::abs(got->GetDouble(i) - w) / (1 + std::abs(w)), GetParam().tolerance)
          << "element " << i << ": " << got->GetDouble(i) << " vs the evaluator's " << w;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, HostSmallGemm, ::testing::ValuesIn(kSmallDots),
                         [](const ::testing::TestParamInfo<SmallDot>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace xla::aot
