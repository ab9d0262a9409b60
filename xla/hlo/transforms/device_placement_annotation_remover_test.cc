#include "xla/hlo/transforms/device_placement_annotation_remover.h"

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

// Annotations as JAX's memory kinds leave them: a value sent to pinned host
// memory inside a loop body and one brought back, on odd sizes; the
// evaluator's results before and after must agree.
constexpr char kAnnotated[] = R"(
HloModule annotated
body {
  t = (s32[], f32[7,13]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  v = f32[7,13] get-tuple-element(t), index=1
  h = f32[7,13] custom-call(v), custom_call_target="annotate_device_placement",
      custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="pinned_host"}
  e = f32[7,13] exponential(h)
  d = f32[7,13] custom-call(e), custom_call_target="annotate_device_placement",
      custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="device"}
  ROOT r = (s32[], f32[7,13]) tuple(next, d)
}
cond {
  t = (s32[], f32[7,13]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
ENTRY e {
  p = f32[7,13] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[7,13]) tuple(zero, p)
  w = (s32[], f32[7,13]) while(init), condition=cond, body=body
  ROOT out = f32[7,13] get-tuple-element(w), index=1
}
)";

TEST(DevicePlacementAnnotationRemover, EveryAnnotationBecomesItsOperand) {
  DevicePlacementAnnotationRemover pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, kAnnotated);
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCustomCall), 0) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kExp), 1) << r.text;
}

TEST(DevicePlacementAnnotationRemover, LeavesOtherCustomCalls) {
  DevicePlacementAnnotationRemover pass;
  pass_test::PassResult r = pass_test::RunPassOnly(pass, R"(
HloModule m
ENTRY e {
  p = f32[3] parameter(0)
  ROOT c = f32[3] custom-call(p), custom_call_target="MoveToHost"
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCustomCall), 1);
}

TEST(DevicePlacementAnnotationRemover, RefusesAnAnnotationThatIsNoIdentityNamingIt) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m
ENTRY e {
  p = f32[8,4] parameter(0)
  ROOT bad_annotation = f32[2,4] custom-call(p), custom_call_target="annotate_device_placement"
})");
  ASSERT_TRUE(module.ok()) << module.status();
  DevicePlacementAnnotationRemover pass;
  absl::StatusOr<bool> r = pass.Run(module->get());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
  EXPECT_NE(r.status().message().find("bad_annotation: annotate_device_placement"), std::string::npos)
      << r.status();
}

}  // namespace
}  // namespace xla
