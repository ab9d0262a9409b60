// DotAllowsTf32: XLA's rule over every combination of operand precisions,
// the algorithm attribute, and what DEFAULT means.
#include "xla/service/canonicalize/dot_precision.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

// Whether the dot of a module with `attrs` after its dimension numbers
// allows TF32.
bool Allows(const std::string& attrs, DotPrecision default_precision = DotPrecision::kDefault) {
  const std::string text = absl::StrCat(R"(
HloModule m
ENTRY e {
  a = f32[3,5] parameter(0)
  b = f32[5,7] parameter(1)
  ROOT d = f32[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})",
                                        attrs, "\n}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  if (!m.ok()) return false;
  return DotAllowsTf32(*(*m)->entry_computation()->root_instruction(), default_precision);
}

TEST(DotPrecision, ParsesTheThreeNamesInAnyCase) {
  EXPECT_EQ(ParseDotPrecision("default"), DotPrecision::kDefault);
  EXPECT_EQ(ParseDotPrecision("HIGH"), DotPrecision::kHigh);
  EXPECT_EQ(ParseDotPrecision("Highest"), DotPrecision::kHighest);
  EXPECT_FALSE(ParseDotPrecision("packed_nibble").has_value());
  EXPECT_FALSE(ParseDotPrecision("").has_value());
}

TEST(DotPrecision, EveryOperandCombination) {
  const char* names[] = {"default", "high", "highest"};
  for (int l = 0; l < 3; ++l) {
    for (int r = 0; r < 3; ++r) {
      const std::string attrs =
          absl::StrCat(", operand_precision={", names[l], ",", names[r], "}");
      const bool expected = l < 2 && r < 2;  // any HIGHEST keeps f32
      EXPECT_EQ(Allows(attrs), expected) << attrs;
      // DEFAULT read as HIGHEST: only HIGH x HIGH stays TF32.
      EXPECT_EQ(Allows(attrs, DotPrecision::kHighest), l == 1 && r == 1) << attrs;
    }
  }
}

TEST(DotPrecision, UnsetMeansDefault) {
  EXPECT_TRUE(Allows(""));
  EXPECT_FALSE(Allows("", DotPrecision::kHighest));
  EXPECT_TRUE(Allows("", DotPrecision::kHigh));
}

TEST(DotPrecision, AlgorithmDecidesWhenSet) {
  EXPECT_TRUE(Allows(", algorithm=dot_tf32_tf32_f32"));
  EXPECT_TRUE(Allows(", algorithm=dot_tf32_tf32_f32", DotPrecision::kHighest));
  EXPECT_FALSE(Allows(", algorithm=dot_tf32_tf32_f32_x3"));
  EXPECT_FALSE(Allows(", algorithm=dot_f32_f32_f32"));
  EXPECT_FALSE(Allows(", algorithm=dot_bf16_bf16_f32_x6"));
  // The algorithm wins over operand precisions.
  EXPECT_TRUE(Allows(", operand_precision={highest,highest}, algorithm=dot_tf32_tf32_f32"));
}

TEST(DotPrecision, UnknownPrecisionKeepsF32) {
  EXPECT_FALSE(Allows(", operand_precision={default,packed_nibble}"));
}

}  // namespace
}  // namespace xla
