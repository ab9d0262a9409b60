#include "xla/hlo/transforms/entry_parameter_flattener.h"

#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

void AppendLeaves(const Literal& l, std::vector<Literal>* out) {
  if (!l.shape().IsTuple()) {
    out->push_back(l);
    return;
  }
  for (const Literal& e : l.tuple_elements()) AppendLeaves(e, out);
}

// A nested tuple parameter between two array ones, with a layout header:
// the flattened module on the arguments' leaves computes what the original
// computes on the arguments.
constexpr char kNested[] = R"(
HloModule m, entry_computation_layout={(f32[3]{0}, (f32[5,2]{0,1}, (s32[], f32[3]{0})), f32[3]{0})->f32[3]{0}}
ENTRY e {
  a = f32[3] parameter(0)
  t = (f32[5,2], (s32[], f32[3])) parameter(1)
  c = f32[3] parameter(2)
  inner = (s32[], f32[3]) get-tuple-element(t), index=1
  v = f32[3] get-tuple-element(inner), index=1
  ac = f32[3] add(a, c)
  ROOT r = f32[3] multiply(ac, v)
}
)";

TEST(EntryParameterFlattener, NestedTupleBecomesLeafParameters) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kNested);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 3);
  ASSERT_TRUE(args.ok()) << args.status();
  absl::StatusOr<Literal> before = HloEvaluator().Evaluate(**module, *args);
  ASSERT_TRUE(before.ok()) << before.status();

  EntryParameterFlattener pass;
  pass_test::PassResult r = pass_test::RunPassOnly(pass, kNested);
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  const HloComputation* entry = r.module->entry_computation();
  ASSERT_EQ(entry->num_parameters(), 5) << r.text;
  EXPECT_EQ(entry->parameter_instruction(0)->name(), "a");
  EXPECT_EQ(entry->parameter_instruction(1)->shape().ToString(false), "f32[5,2]");
  EXPECT_EQ(entry->parameter_instruction(2)->shape().ToString(false), "s32[]");
  EXPECT_EQ(entry->parameter_instruction(4)->name(), "c");
  ASSERT_TRUE(r.module->config().entry_computation_layout.has_value());
  EXPECT_EQ(r.module->config().entry_computation_layout->parameters.size(), 5u);
  EXPECT_TRUE(pass_test::Contains(r.text, "entry_computation_layout={(f32[3]{0}, f32[5,2]{0,1}, s32[], f32[3]{0}, f32[3]{0})"));

  std::vector<Literal> leaves;
  for (const Literal& a : *args) AppendLeaves(a, &leaves);
  absl::StatusOr<Literal> after = HloEvaluator().Evaluate(*r.module, leaves);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(CompareLiterals(*before, *after).ok());

  // Nothing to do the second time.
  absl::StatusOr<bool> again = pass.Run(r.module.get());
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST(EntryParameterFlattener, AliasesMoveToTheLeafTheyName) {
  EntryParameterFlattener pass;
  pass_test::PassResult r = pass_test::RunPassOnly(pass, R"(
HloModule m, input_output_alias={ {1}: (1, {1}, may-alias) }
ENTRY e {
  a = f32[3] parameter(0)
  t = (f32[2], f32[4]) parameter(1)
  x = f32[4] get-tuple-element(t), index=1
  n = f32[4] negate(x)
  ROOT r = (f32[3], f32[4]) tuple(a, n)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  ASSERT_EQ(r.module->config().input_output_alias.size(), 1u);
  EXPECT_EQ(r.module->config().input_output_alias[0].parameter_number, 2) << r.text;
  EXPECT_TRUE(r.module->config().input_output_alias[0].parameter_index.empty());
}

TEST(EntryParameterFlattener, ArrayParametersOnlyAreLeftAlone) {
  EntryParameterFlattener pass;
  pass_test::PassResult r = pass_test::RunPassOnly(pass, R"(
HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  ROOT n = f32[3] negate(a)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_FALSE(r.changed);
}

}  // namespace
}  // namespace xla
