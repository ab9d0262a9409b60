#include "xla/service/canonicalize/reduction_canonicalizer.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"
#include "xla/service/canonicalize/reduction_kind.h"

namespace xla {
namespace {

using pass_test::CountOpcode;
using pass_test::PassResult;
using pass_test::RunPassAndCheck;

constexpr char kAdd[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

// A one-reduce module over `input` with `dims`.
std::string Module(const std::string& input, const std::string& out, const std::string& dims) {
  return absl::StrCat("HloModule m\n", kAdd, "\nENTRY main {\n  x = ", input,
                      " parameter(0)\n  z = f32[] constant(0.25)\n  ROOT r = ", out,
                      " reduce(x, z), dimensions={", dims, "}, to_apply=add\n}\n");
}

// Runs the pass (checked against the evaluator) and again (no change);
// returns the kind of the only reduce and the number of transposes.
ReductionKind Canonicalize(const std::string& hlo, bool expect_changed, int64_t* transposes) {
  ReductionCanonicalizer pass;
  PassResult r = RunPassAndCheck(pass, hlo);
  EXPECT_EQ(r.changed, expect_changed) << r.text;
  if (r.module == nullptr) return {};
  absl::StatusOr<bool> again = pass.Run(r.module.get());
  EXPECT_TRUE(again.ok() && !*again) << "second run changed the module";
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kReduce), 1);
  *transposes = CountOpcode(*r.module, HloOpcode::kTranspose);
  for (const auto& comp : r.module->computations()) {
    for (const auto& instr : comp->instructions()) {
      if (instr->opcode() != HloOpcode::kReduce) continue;
      ReductionKind k = ClassifyReduction(*instr);
      EXPECT_NE(k.form, ReductionForm::kOther) << r.text;
      return k;
    }
  }
  return {};
}

void Expect(const ReductionKind& k, ReductionForm form, int64_t batch, int64_t rows,
            int64_t columns) {
  EXPECT_EQ(ReductionFormName(k.form), ReductionFormName(form));
  EXPECT_EQ(k.batch, batch);
  EXPECT_EQ(k.rows, rows);
  EXPECT_EQ(k.columns, columns);
}

TEST(ReductionCanonicalizer, CanonicalFormsAreLeftAlone) {
  int64_t t = 0;
  Expect(Canonicalize(Module("f32[5,33]", "f32[5]", "1"), false, &t), ReductionForm::kRow, 1, 5, 33);
  Expect(Canonicalize(Module("f32[33,5]", "f32[5]", "0"), false, &t), ReductionForm::kColumn, 1, 33, 5);
  Expect(Canonicalize(Module("f32[3,33,5]", "f32[3,5]", "1"), false, &t), ReductionForm::kColumn, 3,
         33, 5);
  Expect(Canonicalize(Module("f32[33]", "f32[]", "0"), false, &t), ReductionForm::kWhole, 1, 1, 33);
}

TEST(ReductionCanonicalizer, ARowOverTheLastOfSeveralDimsIsLeftAlone) {
  // Its input and output keep the dims of the ops around it (a softmax over
  // [batch, heads, seq, seq] fuses as one row normalization).
  int64_t t = -1;
  Expect(Canonicalize(Module("f32[3,5,7]", "f32[3,5]", "2"), false, &t), ReductionForm::kRow, 1, 15, 7);
  Expect(Canonicalize(Module("f32[2,3,5,7]", "f32[2,3,5]", "3"), false, &t), ReductionForm::kRow, 1,
         30, 7);
  // Unit row dims too (a softmax over one head, [batch, 1, seq, seq]).
  Expect(Canonicalize(Module("f32[3,1,7]", "f32[3,1]", "2"), false, &t), ReductionForm::kRow, 1, 3, 7);
  Expect(Canonicalize(Module("f32[4,1,16,33]", "f32[4,1,16]", "3"), false, &t), ReductionForm::kRow,
         1, 64, 33);
  // One row is reshaped into a whole reduction, one column into [rows, 1].
  Expect(Canonicalize(Module("f32[1,1,7]", "f32[1,1]", "2"), true, &t), ReductionForm::kWhole, 1, 1, 7);
  Expect(Canonicalize(Module("f32[3,5,1]", "f32[3,5]", "2"), true, &t), ReductionForm::kRow, 1, 15, 1);
  EXPECT_EQ(t, 0);
}

TEST(ReductionCanonicalizer, TrailingDimsBecomeARowWithoutTranspose) {
  int64_t t = -1;
  Expect(Canonicalize(Module("f32[2,3,5,7]", "f32[2,3]", "2,3"), true, &t), ReductionForm::kRow, 1, 6,
         35);
  EXPECT_EQ(t, 0);
}

TEST(ReductionCanonicalizer, LeadingDimsBecomeAColumn) {
  int64_t t = -1;
  Expect(Canonicalize(Module("f32[2,3,5,7]", "f32[5,7]", "1,0"), true, &t), ReductionForm::kColumn,
         1, 6, 35);
  EXPECT_EQ(t, 0);
}

TEST(ReductionCanonicalizer, MiddleDimsBecomeABatchedColumn) {
  int64_t t = -1;
  Expect(Canonicalize(Module("f32[2,3,5,7]", "f32[2,7]", "1,2"), true, &t), ReductionForm::kColumn,
         2, 15, 7);
  EXPECT_EQ(t, 0);
}

TEST(ReductionCanonicalizer, NonContiguousDimsAreTransposedIntoARow) {
  int64_t t = -1;
  Expect(Canonicalize(Module("f32[2,3,5,7]", "f32[3,7]", "0,2"), true, &t), ReductionForm::kRow, 1,
         21, 10);
  EXPECT_EQ(t, 1);
  Expect(Canonicalize(Module("f32[3,4,5]", "f32[4]", "0,2"), true, &t), ReductionForm::kRow, 1, 4,
         15);
  EXPECT_EQ(t, 1);
}

TEST(ReductionCanonicalizer, AllDimsBecomeWhole) {
  int64_t t = -1;
  Expect(Canonicalize(Module("f32[3,5,7]", "f32[]", "0,1,2"), true, &t), ReductionForm::kWhole, 1, 1,
         105);
  EXPECT_EQ(t, 0);
}

TEST(ReductionCanonicalizer, UnitDimsAreDroppedNotTransposed) {
  int64_t t = -1;
  // The unit reduced dim sits between kept dims; no data moves.
  Expect(Canonicalize(Module("f32[5,1,3,7]", "f32[5,3]", "1,3"), true, &t), ReductionForm::kRow, 1,
         15, 7);
  EXPECT_EQ(t, 0);
  // Only unit dims are reduced: a row reduction of width 1.
  Expect(Canonicalize(Module("f32[1,5,7]", "f32[5,7]", "0"), true, &t), ReductionForm::kRow, 1, 35,
         1);
  EXPECT_EQ(t, 0);
  // Unit kept dims around a whole reduction.
  Expect(Canonicalize(Module("f32[1,9,1,3]", "f32[1,1]", "1,3"), true, &t), ReductionForm::kWhole, 1,
         1, 27);
  EXPECT_EQ(t, 0);
}

TEST(ReductionCanonicalizer, NoReducedDims) {
  int64_t t = -1;
  Expect(Canonicalize(Module("f32[5,7]", "f32[5,7]", ""), true, &t), ReductionForm::kRow, 1, 35, 1);
}

TEST(ReductionCanonicalizer, VariadicArgmax) {
  int64_t t = -1;
  ReductionKind k = Canonicalize(R"(
HloModule m

argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v0, v1), direction=GT
  v = f32[] select(gt, v0, v1)
  i = s32[] select(gt, i0, i1)
  ROOT t = (f32[], s32[]) tuple(v, i)
}

ENTRY main {
  x = f32[4,5,6] parameter(0)
  idx = s32[4,5,6] iota(), iota_dimension=2
  lo = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[5], s32[5]) reduce(x, idx, lo, zero), dimensions={0,2}, to_apply=argmax
}
)", true, &t);
  Expect(k, ReductionForm::kRow, 1, 5, 24);
  EXPECT_EQ(t, 2);
}

TEST(ReductionCanonicalizer, IntegerReduceInsideFusion) {
  ReductionCanonicalizer pass;
  PassResult r = RunPassAndCheck(pass, R"(
HloModule m

max {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}

fused {
  p = s32[3,4,5] parameter(0)
  c = s32[] constant(-7)
  ROOT r = s32[4] reduce(p, c), dimensions={0,2}, to_apply=max
}

ENTRY main {
  x = s32[3,4,5] parameter(0)
  ROOT f = s32[4] fusion(x), kind=kInput, calls=fused
}
)");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  for (const auto& comp : r.module->computations()) {
    for (const auto& instr : comp->instructions()) {
      if (instr->opcode() == HloOpcode::kReduce) {
        EXPECT_EQ(ClassifyReduction(*instr).form, ReductionForm::kRow) << r.text;
      }
    }
  }
}

}  // namespace
}  // namespace xla
