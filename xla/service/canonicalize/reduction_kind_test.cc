#include "xla/service/canonicalize/reduction_kind.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

// Classifies the root reduce of a module reducing `input` over `dims`.
ReductionKind Classify(const std::string& input, const std::string& out, const std::string& dims) {
  const std::string hlo = absl::StrCat(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = )", input, R"( parameter(0)
  z = f32[] constant(0)
  ROOT r = )", out, " reduce(x, z), dimensions={", dims, "}, to_apply=add\n}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(hlo);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {};
  return ClassifyReduction(*(*m)->entry_computation()->root_instruction());
}

TEST(ReductionKind, Forms) {
  ReductionKind row = Classify("f32[5,33]", "f32[5]", "1");
  EXPECT_EQ(row.form, ReductionForm::kRow);
  EXPECT_EQ(row.rows, 5);
  EXPECT_EQ(row.columns, 33);
  EXPECT_EQ(row.reduced_size(), 33);

  ReductionKind col = Classify("f32[33,5]", "f32[5]", "0");
  EXPECT_EQ(col.form, ReductionForm::kColumn);
  EXPECT_EQ(col.rows, 33);
  EXPECT_EQ(col.columns, 5);
  EXPECT_EQ(col.reduced_size(), 33);

  ReductionKind batched = Classify("f32[3,33,5]", "f32[3,5]", "1");
  EXPECT_EQ(batched.form, ReductionForm::kColumn);
  EXPECT_EQ(batched.batch, 3);
  EXPECT_EQ(batched.rows, 33);
  EXPECT_EQ(batched.columns, 5);

  ReductionKind whole = Classify("f32[257]", "f32[]", "0");
  EXPECT_EQ(whole.form, ReductionForm::kWhole);
  EXPECT_EQ(whole.reduced_size(), 257);
}

TEST(ReductionKind, RowOverTheLastOfSeveralDims) {
  ReductionKind row = Classify("f32[3,5,7]", "f32[3,5]", "2");
  EXPECT_EQ(row.form, ReductionForm::kRow);
  EXPECT_EQ(row.batch, 1);
  EXPECT_EQ(row.rows, 15);
  EXPECT_EQ(row.columns, 7);
  EXPECT_EQ(row.reduced_size(), 7);
}

TEST(ReductionKind, UnitRowDimsKeepARow) {
  // One head of attention: [batch, 1, seq, seq] over the last dim.
  ReductionKind row = Classify("f32[4,1,16,32]", "f32[4,1,16]", "3");
  EXPECT_EQ(row.form, ReductionForm::kRow);
  EXPECT_EQ(row.rows, 64);
  EXPECT_EQ(row.columns, 32);
  EXPECT_EQ(Classify("f32[3,1,7]", "f32[3,1]", "2").rows, 3);
  EXPECT_EQ(Classify("f32[1,3,7]", "f32[1,3]", "2").form, ReductionForm::kRow);
}

TEST(ReductionKind, Others) {
  EXPECT_EQ(Classify("f32[3,5,7]", "f32[3]", "1,2").form, ReductionForm::kOther);
  EXPECT_EQ(Classify("f32[3,5,7]", "f32[5,7]", "0").form, ReductionForm::kOther);
  // One row, or one column: the canonicalizer makes them whole or [rows, 1].
  EXPECT_EQ(Classify("f32[1,1,7]", "f32[1,1]", "2").form, ReductionForm::kOther);
  EXPECT_EQ(Classify("f32[3,5,1]", "f32[3,5]", "2").form, ReductionForm::kOther);
  EXPECT_EQ(Classify("f32[3,5]", "f32[3,5]", "").form, ReductionForm::kOther);
  EXPECT_EQ(ReductionFormName(ReductionForm::kColumn), "column");
}

}  // namespace
}  // namespace xla
