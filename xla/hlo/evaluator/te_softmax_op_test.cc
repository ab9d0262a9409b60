// Transformer Engine's scaled-softmax custom calls in the evaluator against
// values computed by hand (softmax of a few numbers, TE's -10000 for masked
// positions, zeros for fully masked rows and above the causal diagonal,
// the backward's s * y * (dy - sum(dy * y))), and the refusals.
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"
#include "xla/hlo/proto/te_softmax_test_util.h"

namespace xla {
namespace {

using evaluator_test::EvalText;
using evaluator_test::MakeLiteral;
using evaluator_test::Values;

// A module whose root is `target` on `params`, scale 0.5 unless `config`
// says.
std::string Module(const std::string& target, const std::vector<std::string>& params,
                   const std::string& result,
                   const std::string& config = "{scale_factor = 5.000000e-01 : f64}") {
  return te_softmax::SoftmaxModule(target, params, result, config);
}

// Every value of `got` within `tolerance` of `want`'s.
void ExpectNear(const Literal& got, const std::vector<double>& want, double tolerance) {
  const std::vector<double> values = Values(got);
  ASSERT_EQ(values.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(values[i], want[i], tolerance) << "element " << i;
  }
}

TEST(TeSoftmaxOp, ForwardIsTheSoftmaxOfTheScaledRow) {
  // Row 0: softmax(0.5, 1, 1.5); row 1: softmax(-1, 2, ...) written out.
  std::vector<Literal> args;
  args.push_back(MakeLiteral(PrimitiveType::F32, {2, 3}, {1, 2, 3, -2, 1, 6}));
  absl::StatusOr<Literal> r =
      EvalText(Module("te_scaled_softmax_forward_ffi", {"f32[2,3]"}, "f32[2,3]"), args);
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<double> want = {0.1863237232258476, 0.3071958857184984, 0.506480391055654,
                                    0.016644518609272352, 0.07459555713221444,
                                    0.9087599242585133};
  ExpectNear(*r, want, 1e-7);
}

TEST(TeSoftmaxOp, Bf16ResultIsRoundedOnce) {
  std::vector<Literal> args;
  args.push_back(MakeLiteral(PrimitiveType::BF16, {1, 1, 1, 3}, {1, 2, 3}));
  absl::StatusOr<Literal> r = EvalText(
      Module("te_scaled_softmax_forward_ffi", {"bf16[1,1,1,3]"}, "bf16[1,1,1,3]"), args);
  ASSERT_TRUE(r.ok()) << r.status();
  const Literal want = MakeLiteral(PrimitiveType::BF16, {1, 1, 1, 3},
                                   {0.1863237232258476, 0.3071958857184984, 0.506480391055654});
  EXPECT_EQ(Values(*r), Values(want));
}

TEST(TeSoftmaxOp, MaskedPositionsTakeMinus10000AndFullyMaskedRowsAreZero) {
  // Row 0 keeps positions 0 and 2 (a mask byte of 2 is not a mask), so it
  // is softmax(0.5 * -2, 0.5 * 4) there; row 1 is masked everywhere.
  std::vector<Literal> args;
  args.push_back(MakeLiteral(PrimitiveType::F32, {1, 1, 2, 3}, {-2, 100, 4, 1, 2, 3}));
  args.push_back(MakeLiteral(PrimitiveType::U8, {1, 1, 2, 3}, {2, 1, 0, 1, 1, 1}));
  absl::StatusOr<Literal> r = EvalText(
      Module("te_scaled_masked_softmax_forward_ffi", {"f32[1,1,2,3]", "u8[1,1,2,3]"},
             "f32[1,1,2,3]"),
      args);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(*r, {0.04742587317756679, 0.0, 0.9525741268224334, 0, 0, 0}, 1e-7);
}

TEST(TeSoftmaxOp, PerBatchMaskIsReadPerBatchAndSharedAcrossHeads) {
  // x [2 batches, 2 heads, 1, 2] all ones: a visible pair gives 0.5 each.
  std::vector<Literal> args;
  args.push_back(MakeLiteral(PrimitiveType::F32, {2, 2, 1, 2}, {1, 1, 1, 1, 1, 1, 1, 1}));
  args.push_back(MakeLiteral(PrimitiveType::U8, {2, 1, 1, 2}, {1, 0, 0, 0}));
  absl::StatusOr<Literal> r = EvalText(
      Module("te_scaled_masked_softmax_forward_ffi", {"f32[2,2,1,2]", "u8[2,1,1,2]"},
             "f32[2,2,1,2]"),
      args);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(*r, {0, 1, 0, 1, 0.5, 0.5, 0.5, 0.5}, 0);
}

TEST(TeSoftmaxOp, UpperTriangularRowsSeeKeysUpToTheDiagonal) {
  // scale 1 (config), x [1, 3, 3]: row i is the softmax of its first i+1.
  std::vector<Literal> args;
  args.push_back(MakeLiteral(PrimitiveType::F32, {1, 3, 3}, {7, 50, 50, 1, 2, 50, -1, 0.5, 3}));
  absl::StatusOr<Literal> r =
      EvalText(Module("te_scaled_upper_triang_masked_softmax_forward_ffi", {"f32[1,3,3]"},
                      "f32[1,3,3]", "{scale_factor = 1.0 : f64}"),
               args);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(*r, {1.0, 0.0, 0.0, 0.2689414213699951, 0.7310585786300049, 0.0,
                         0.016644518609272352, 0.07459555713221444, 0.9087599242585133}, 1e-7);
}

TEST(TeSoftmaxOp, BackwardIsScaleTimesYTimesDyMinusTheRowDot) {
  // sum(dy * y) = 0.2 + 0.6 + 1.5 = 2.3; dx = 2 y (dy - 2.3).
  std::vector<Literal> args;
  args.push_back(MakeLiteral(PrimitiveType::F32, {1, 3}, {1, 2, 3}));        // dy
  args.push_back(MakeLiteral(PrimitiveType::F32, {1, 3}, {0.2, 0.3, 0.5}));  // y
  for (const char* target : {"te_scaled_softmax_backward_ffi",
                             "te_scaled_masked_softmax_backward_ffi"}) {
    absl::StatusOr<Literal> r = EvalText(
        Module(target, {"f32[1,3]", "f32[1,3]"}, "f32[1,3]", "{scale_factor = 2.0 : f64}"), args);
    ASSERT_TRUE(r.ok()) << target << ": " << r.status();
    SCOPED_TRACE(target);
    ExpectNear(*r, {-0.52, -0.18, 0.7}, 1e-6);
  }
}

TEST(TeSoftmaxOp, UpperTriangularBackwardReadsYAboveTheDiagonalAsZero) {
  // Row 0 sees y = 0.9 only (0.7 is above the diagonal): dx = 0.9 - 0.81.
  // Row 1: sum = 0.4 * 2 + 0.6 * 3 = 2.6; dx = 0.8 - 1.04, 1.8 - 1.56.
  std::vector<Literal> args;
  args.push_back(MakeLiteral(PrimitiveType::F32, {1, 2, 2}, {1, 5, 2, 3}));
  args.push_back(MakeLiteral(PrimitiveType::F32, {1, 2, 2}, {0.9, 0.7, 0.4, 0.6}));
  absl::StatusOr<Literal> r =
      EvalText(Module("te_scaled_upper_triang_masked_softmax_backward_ffi",
                      {"f32[1,2,2]", "f32[1,2,2]"}, "f32[1,2,2]", "{scale_factor = 1.0 : f64}"),
               args);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(*r, {0.09, 0.0, -0.24, 0.24}, 1e-6);
}

TEST(TeSoftmaxOp, MissingScaleIsAnErrorNamingTheCall) {
  std::vector<Literal> args;
  args.push_back(MakeLiteral(PrimitiveType::F32, {1, 3}, {1, 2, 3}));
  absl::StatusOr<Literal> r = EvalText(
      Module("te_scaled_softmax_forward_ffi", {"f32[1,3]"}, "f32[1,3]", "{scale = 1.0 : f64}"),
      args);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("custom-call 'sm'"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("'scale_factor'"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace xla
