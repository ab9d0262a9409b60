#include "xla/hlo/transforms/op_builder.h"

#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/verifier/hlo_verifier.h"

namespace xla {
namespace {

// Ops built with their shapes worked out verify, and compute what they say:
// out[b, i] = sum_k m[b, i, k] * m[b, k, 0] for i > 0, else 0, then the
// column written back into m at column 1 and transposed.
TEST(OpBuilder, BuiltOpsVerifyAndEvaluate) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m
ENTRY e {
  ROOT m = f32[2,3,3] parameter(0)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  HloComputation* entry = (*module)->entry_computation();
  HloInstruction* m = entry->root_instruction();
  OpBuilder o(entry);
  HloInstruction* zero = o.Scalar(PrimitiveType::S32, 0, "zero");
  HloInstruction* one = o.Scalar(PrimitiveType::S32, 1, "one");
  HloInstruction* column = o.Reshape(o.DynamicSlice(m, {zero, zero, zero}, {2, 3, 1}, "slice"), {2, 3}, "col");
  HloInstruction* product = o.BatchMatVec(m, column, "product");
  HloInstruction* i = o.Iota({2, 3}, 1, "i");
  HloInstruction* zeros = o.Broadcast(o.Scalar(PrimitiveType::F32, 0, "z"), {2, 3}, {}, "zeros");
  HloInstruction* masked = o.Select(
      o.Compare(i, o.Broadcast(zero, {2, 3}, {}, "zero_b"), "GT", "gt"), product, zeros, "masked");
  HloInstruction* updated =
      o.DynamicUpdateSlice(m, o.Reshape(masked, {2, 3, 1}, "m3"), {zero, zero, one}, "dus");
  HloInstruction* t = o.Transpose(o.Convert(updated, PrimitiveType::F64, "f64"), {0, 2, 1}, "t");
  HloInstruction* tuple = o.Tuple({t, o.Unary(HloOpcode::kNegate, zero, "neg")}, "tuple");
  entry->set_root_instruction(o.GetTupleElement(tuple, 0, "gte"));
  absl::Status verified = VerifyModule(**module);
  ASSERT_TRUE(verified.ok()) << verified;

  Literal arg(Shape::Array(PrimitiveType::F32, {2, 3, 3}));
  for (int64_t k = 0; k < 18; ++k) arg.SetDouble(k, static_cast<double>(k));
  std::vector<Literal> args;
  args.push_back(std::move(arg));
  absl::StatusOr<Literal> r = HloEvaluator().Evaluate(**module, args);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->shape().element_type(), PrimitiveType::F64);
  // Batch 0, m = [[0,1,2],[3,4,5],[6,7,8]], column 0 = (0,3,6): products
  // (15, 42, 69); masked (0, 42, 69) written to column 1, then transposed:
  // row 1 of the result is that column.
  EXPECT_EQ(r->GetDouble(3), 0);
  EXPECT_EQ(r->GetDouble(4), 42);
  EXPECT_EQ(r->GetDouble(5), 69);
  EXPECT_EQ(r->GetDouble(0), 0);  // m[0,0,0] unchanged
  EXPECT_EQ(r->GetDouble(1), 3);  // m[0,1,0]
}

}  // namespace
}  // namespace xla
