#include "xla/hlo/transforms/select_and_scatter_expander.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/transforms/hlo_dce.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/verifier/hlo_verifier.h"

namespace xla {
namespace {

// Expands every select-and-scatter of `hlo` (real ones too) and checks
// that the evaluator gives the same result before and after on `args`
// (random ones when empty), and that none is left.
void ExpectSameResult(const std::string& hlo, std::vector<Literal> args = {}) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::Status input_ok = VerifyModule(**module);
  ASSERT_TRUE(input_ok.ok()) << input_ok;
  if (args.empty()) {
    absl::StatusOr<std::vector<Literal>> random = MakeRandomInputs(**module, 5);
    ASSERT_TRUE(random.ok()) << random.status();
    args = std::move(*random);
  }
  absl::StatusOr<Literal> want = HloEvaluator().Evaluate(**module, args);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<bool> changed = SelectAndScatterExpander(false).Run(module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  absl::Status verified = VerifyModule(**module);
  ASSERT_TRUE(verified.ok()) << verified << "\n" << PrintModule(**module);
  ASSERT_TRUE(HloDCE().Run(module->get()).ok());
  for (const auto& c : (*module)->computations()) {
    for (const auto& instr : c->instructions()) {
      EXPECT_NE(instr->opcode(), HloOpcode::kSelectAndScatter) << instr->ToString();
    }
  }
  absl::StatusOr<Literal> got = HloEvaluator().Evaluate(**module, args);
  ASSERT_TRUE(got.ok()) << got.status();
  absl::Status same = CompareLiterals(*want, *got, 4);
  EXPECT_TRUE(same.ok()) << same << "\n" << PrintModule(**module);
}

// One select-and-scatter of `type` over [13,9] (source [7,9]: overlapping
// windows, padding on both sides of the first dimension and after the
// second), with the given select comparison and scatter op.
std::string Program(const std::string& type, const std::string& direction,
                    const std::string& scatter_op, const std::string& window) {
  return absl::StrCat("HloModule m\nsel {\n  x = ", type, "[] parameter(0)\n  y = ", type,
                      "[] parameter(1)\n  ROOT c = pred[] compare(x, y), direction=", direction,
                      "\n}\nsc {\n  x = ", type, "[] parameter(0)\n  y = ", type,
                      "[] parameter(1)\n  ROOT s = ", type, "[] ", scatter_op,
                      "(x, y)\n}\nENTRY e {\n  a = ", type, "[13,9] parameter(0)\n  s = ", type,
                      "[7,9] parameter(1)\n  z = ", type,
                      "[] parameter(2)\n  ROOT r = ", type,
                      "[13,9] select-and-scatter(a, s, z), window={", window,
                      "}, select=sel, scatter=sc\n}\n");
}

constexpr char kWindow[] = "size=3x2 stride=2x1 pad=1_1x0_1";

TEST(SelectAndScatterExpander, MaxPoolGradientOnRandomData) {
  ExpectSameResult(Program("f32", "GE", "add", kWindow));
  ExpectSameResult(Program("f64", "LE", "add", kWindow));
}

// Many ties (s32 values 0..3): the first element in row-major window
// order wins under GE, the last under GT; integer sums are exact.
TEST(SelectAndScatterExpander, TiesPickTheSameElementAsTheEvaluator) {
  for (const char* direction : {"GE", "GT", "LT"}) {
    SCOPED_TRACE(direction);
    Literal a(Shape::Array(PrimitiveType::S32, {13, 9}));
    for (int64_t i = 0; i < a.element_count(); ++i) a.SetInt(i, (i * 7) % 4);
    Literal s(Shape::Array(PrimitiveType::S32, {7, 9}));
    for (int64_t i = 0; i < s.element_count(); ++i) s.SetInt(i, 1 + i % 11);
    Literal z(Shape::Scalar(PrimitiveType::S32));
    z.SetInt(0, 3);
    std::vector<Literal> args;
    args.push_back(std::move(a));
    args.push_back(std::move(s));
    args.push_back(std::move(z));
    ExpectSameResult(Program("s32", direction, "add", kWindow), std::move(args));
  }
}

// A scatter computation that is not symmetric: the evaluator passes
// (source, current), the scatter op (current, update), so the expander
// swaps the parameters.
TEST(SelectAndScatterExpander, AsymmetricScatterKeepsItsArgumentOrder) {
  ExpectSameResult(Program("f32", "GE", "subtract", kWindow));
  ExpectSameResult(Program("f32", "GE", "divide", "size=2x1 stride=2x1 pad=0_1x0_0"));
}

// Windows of padding alone (padding as wide as the window): no element
// is selected there and nothing is scattered for them.
TEST(SelectAndScatterExpander, WindowsOfPaddingAloneScatterNothing) {
  const std::string hlo = absl::StrCat(R"(HloModule m
sel {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=GE
}
sc {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[5,3] parameter(0)
  s = f32[10,3] parameter(1)
  z = f32[] parameter(2)
  ROOT r = f32[5,3] select-and-scatter(a, s, z), window={size=2x1 stride=1x1 pad=3_3x0_0}, select=sel, scatter=sc
}
)");
  ExpectSameResult(hlo);
}

// An operand past what the s32 index numbers is refused by name, with
// what to do, and left as it was.
TEST(SelectAndScatterExpander, RefusesAnOperandPastTheIndexRange) {
  const std::string big = absl::StrReplaceAll(Program("f32", "GE", "add", "size=1x1 stride=1x1"),
                                              {{"[13,9]", "[65536,32768]"}, {"[7,9]", "[65536,32768]"}});
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(big);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<bool> changed = SelectAndScatterExpander(false).Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(changed.status().message().find("select-and-scatter-expander: r's operand"), std::string::npos) << changed.status();
  EXPECT_NE(changed.status().message().find("2^31"), std::string::npos) << changed.status();
  EXPECT_EQ((*module)->entry_computation()->root_instruction()->opcode(),
            HloOpcode::kSelectAndScatter);
}

}  // namespace
}  // namespace xla
