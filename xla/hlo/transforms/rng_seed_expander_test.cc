// RngSeedExpander: GetRngSeed calls become state reads whose values the
// evaluator gives for the calls themselves (two calls: XLA's initial state
// 0x7012395 and the next one, 0x7012396 made odd); no custom call remains;
// a malformed call fails the pass naming it.
#include "xla/hlo/transforms/rng_seed_expander.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

constexpr char kTwoSeeds[] = R"(
HloModule m
ENTRY e {
  a = u64[] custom-call(), custom_call_target="GetRngSeed"
  n = u64[] constant(3)
  b = u64[] custom-call(), custom_call_target="GetRngSeed"
  ROOT t = (u64[], u64[]) tuple(a, b)
}
)";

TEST(RngSeedExpander, CallsBecomeStateReadsWithTheEvaluatorsValues) {
  RngSeedExpander pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, kTwoSeeds);
  EXPECT_TRUE(r.changed);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCustomCall), 0) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kRngGetAndUpdateState), 2) << r.text;
  absl::StatusOr<Literal> values = HloEvaluator().Evaluate(*r.module, {});
  ASSERT_TRUE(values.ok()) << values.status();
  const uint64_t a = values->tuple_elements()[0].GetBits(0);
  const uint64_t b = values->tuple_elements()[1].GetBits(0);
  // One call reads 0x7012395 (odd already), the other 0x7012396 | 1.
  EXPECT_EQ(std::min(a, b), 0x7012395u);
  EXPECT_EQ(std::max(a, b), 0x7012397u);
}

TEST(RngSeedExpander, SignedSeedIsRewrittenToo) {
  RngSeedExpander pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  ROOT a = s64[] custom-call(), custom_call_target="GetRngSeed"
})");
  EXPECT_TRUE(r.changed);
}

TEST(RngSeedExpander, MalformedCallIsRefusedNamingIt) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m
ENTRY e {
  ROOT a = u32[2] custom-call(), custom_call_target="GetRngSeed"
})");
  ASSERT_TRUE(module.ok()) << module.status();
  RngSeedExpander pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("'a' (GetRngSeed)"), std::string::npos)
      << changed.status();
  EXPECT_NE(changed.status().message().find("u32[2]"), std::string::npos) << changed.status();
}

}  // namespace
}  // namespace xla
