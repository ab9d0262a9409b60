#include "xla/hlo/transforms/einsum_expander.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

// An einsum module: operand shapes `params`, result `result`, equation `eq`.
std::string Module(const std::vector<std::string>& params, const std::string& result,
                   const std::string& eq) {
  std::string body, names;
  for (size_t i = 0; i < params.size(); ++i) {
    absl::StrAppend(&body, "  p", i, " = ", params[i], " parameter(", i, ")\n");
    absl::StrAppend(&names, i ? ", " : "", "p", i);
  }
  return absl::StrCat("HloModule m\nENTRY e {\n", body, "  ROOT c = ", result, " custom-call(",
                      names, "), custom_call_target=\"xla_builder.matrix.Einsum\", "
                      "backend_config=\"", eq, "\"\n}\n");
}

// The evaluator's einsum (a direct loop over the labels) before the pass
// against the expansion after it, on random inputs.
void ExpectExpansionMatches(const std::string& text) {
  EinsumExpander pass;
  pass_test::CheckOptions options;
  options.output_scale_tolerance = true;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, text, options);
  EXPECT_TRUE(r.changed);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCustomCall), 0) << r.text;
}

TEST(EinsumExpander, CorpusDiagonalOfProduct) {
  ExpectExpansionMatches(Module({"f32[3,3]", "f32[3,3]"}, "f32[3]", "ii,ii->i"));
}

TEST(EinsumExpander, CorpusDiagonalFromVector) {
  ExpectExpansionMatches(Module({"f32[3]", "f32[3,3]"}, "f32[3,3]", "i,ij->ii"));
}

TEST(EinsumExpander, BatchedMatmul) {
  ExpectExpansionMatches(Module({"f32[3,5,7]", "f32[3,7,2]"}, "f32[3,5,2]", "bij,bjk->bik"));
}

TEST(EinsumExpander, ContractingOnTheRightAndTransposedOutput) {
  ExpectExpansionMatches(Module({"f32[5,7]", "f32[3,7]"}, "f32[3,5]", "ij,kj->ki"));
}

TEST(EinsumExpander, DiagonalThenContractionWithSummedLabel) {
  // i repeated in the lhs; l only in the rhs and not in the output.
  ExpectExpansionMatches(Module({"f32[4,4,3]", "f32[3,5,2]"}, "f32[4,5]", "iij,jkl->ik"));
}

TEST(EinsumExpander, SingleOperandForms) {
  ExpectExpansionMatches(Module({"f32[3,4,5]"}, "f32[5,4,3]", "ijk->kji"));
  ExpectExpansionMatches(Module({"f32[5,5]"}, "f32[5]", "ii->i"));
  ExpectExpansionMatches(Module({"f32[3,4]"}, "f32[]", "ij->"));
  ExpectExpansionMatches(Module({"f32[3,4]"}, "f32[3,4,3]", "ij->iji"));
}

TEST(EinsumExpander, FullContractionAndOuterProduct) {
  ExpectExpansionMatches(Module({"f32[3,4]", "f32[3,4]"}, "f32[]", "ij,ij->"));
  ExpectExpansionMatches(Module({"f32[3]", "f32[5]"}, "f32[5,3]", "i,j->ji"));
}

TEST(EinsumExpander, EllipsisIsRefused) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(Module({"f32[3,4]"}, "f32[3,4]", "...->..."));
  ASSERT_TRUE(module.ok()) << module.status();
  EinsumExpander pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kUnimplemented) << changed.status();
}

}  // namespace
}  // namespace xla
