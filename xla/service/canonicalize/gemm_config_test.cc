#include "xla/service/canonicalize/gemm_config.h"

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

// The root dot of a one-dot module; the module is kept alive in `holder`.
const HloInstruction* RootDot(const std::string& hlo, std::unique_ptr<HloModule>* holder) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(hlo);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return nullptr;
  *holder = std::move(*m);
  return (*holder)->entry_computation()->root_instruction();
}

TEST(GemmConfig, BatchedTransposedRhs) {
  std::unique_ptr<HloModule> m;
  const HloInstruction* dot = RootDot(R"(
HloModule m
ENTRY e {
  a = bf16[3,5,7] parameter(0)
  b = bf16[3,4,7] parameter(1)
  ROOT d = f32[3,5,4] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
})", &m);
  ASSERT_NE(dot, nullptr);
  absl::StatusOr<GemmConfig> c = GetGemmConfig(*dot);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->batch, 3);
  EXPECT_EQ(c->m, 5);
  EXPECT_EQ(c->n, 4);
  EXPECT_EQ(c->k, 7);
  EXPECT_FALSE(c->transpose_lhs);
  EXPECT_TRUE(c->transpose_rhs);
  EXPECT_EQ(c->lhs_type, PrimitiveType::BF16);
  EXPECT_EQ(c->rhs_type, PrimitiveType::BF16);
  EXPECT_EQ(c->output_type, PrimitiveType::F32);
  EXPECT_EQ(c->lhs_batch_stride, 35);
  EXPECT_EQ(c->rhs_batch_stride, 28);
  EXPECT_EQ(c->output_batch_stride, 20);
}

TEST(GemmConfig, RejectsTwoContractingDims) {
  std::unique_ptr<HloModule> m;
  const HloInstruction* dot = RootDot(R"(
HloModule m
ENTRY e {
  a = f32[5,3,7] parameter(0)
  b = f32[3,7,4] parameter(1)
  ROOT d = f32[5,4] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}
})", &m);
  ASSERT_NE(dot, nullptr);
  absl::StatusOr<GemmConfig> c = GetGemmConfig(*dot);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(absl::StrContains(c.status().message(), "'d'")) << c.status();
  EXPECT_TRUE(absl::StrContains(c.status().message(), "dot-canonicalizer")) << c.status();
}

TEST(GemmConfig, RejectsBatchDimNotLeading) {
  std::unique_ptr<HloModule> m;
  const HloInstruction* dot = RootDot(R"(
HloModule m
ENTRY e {
  a = f32[5,3,7] parameter(0)
  b = f32[3,7,4] parameter(1)
  ROOT d = f32[3,5,4] dot(a, b), lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
})", &m);
  ASSERT_NE(dot, nullptr);
  EXPECT_FALSE(GetGemmConfig(*dot).ok());
}

TEST(GemmConfig, RejectsColumnMajorLayoutUnlessAsked) {
  std::unique_ptr<HloModule> m;
  const HloInstruction* dot = RootDot(R"(
HloModule m
ENTRY e {
  a = f32[5,7]{0,1} parameter(0)
  b = f32[7,3]{1,0} parameter(1)
  ROOT d = f32[5,3]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})", &m);
  ASSERT_NE(dot, nullptr);
  absl::StatusOr<GemmConfig> c = GetGemmConfig(*dot);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(absl::StrContains(c.status().message(), "row-major")) << c.status();
  EXPECT_TRUE(GetGemmConfig(*dot, /*require_row_major=*/false).ok());
}

TEST(GemmConfig, RejectsNonDot) {
  std::unique_ptr<HloModule> m;
  const HloInstruction* add = RootDot(R"(
HloModule m
ENTRY e {
  a = f32[5,7] parameter(0)
  ROOT d = f32[5,7] add(a, a)
})", &m);
  ASSERT_NE(add, nullptr);
  EXPECT_FALSE(GetGemmConfig(*add).ok());
}

}  // namespace
}  // namespace xla
