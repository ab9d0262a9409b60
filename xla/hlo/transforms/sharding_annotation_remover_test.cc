#include "xla/hlo/transforms/sharding_annotation_remover.h"

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

// The three annotations as JAX leaves them (shardings on parameters, around
// a shard_map body, and on the result), on an odd-sized program; the
// evaluator's results before and after must agree.
constexpr char kAnnotated[] = R"(
HloModule annotated, num_partitions=1
ENTRY e {
  p = f32[7,13] parameter(0)
  s = f32[7,13] custom-call(p), custom_call_target="Sharding", sharding={replicated}
  full = f32[7,13] custom-call(s), custom_call_target="SPMDFullToShardShape", sharding={manual}
  t = f32[7,13] tanh(full)
  back = f32[7,13] custom-call(t), custom_call_target="SPMDShardToFullShape", sharding={replicated}
  ROOT r = f32[7,13] custom-call(back), custom_call_target="Sharding", sharding={replicated}
}
)";

TEST(ShardingAnnotationRemover, OnePartitionMakesEveryAnnotationItsOperand) {
  ShardingAnnotationRemover pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, kAnnotated);
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCustomCall), 0) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kTanh), 1);
  // Other custom calls stay.
  pass_test::PassResult other = pass_test::RunPassOnly(pass, R"(
HloModule m
ENTRY e {
  p = f32[3] parameter(0)
  ROOT c = f32[3] custom-call(p), custom_call_target="my_kernel"
})");
  EXPECT_FALSE(other.changed);
}

TEST(ShardingAnnotationRemover, RefusesAnUnpartitionedModuleOfSeveralPartitions) {
  std::string text = kAnnotated;
  text.replace(text.find("num_partitions=1"), 16, "num_partitions=8");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  ShardingAnnotationRemover pass;
  absl::StatusOr<bool> r = pass.Run(module->get());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(r.status())) << r.status();
  EXPECT_NE(r.status().message().find("s: custom-call Sharding is a sharding annotation in a module of 8 partitions"),
            std::string::npos)
      << r.status();
  EXPECT_NE(r.status().message().find("no SPMD partitioner"), std::string::npos);
}

TEST(ShardingAnnotationRemover, LeavesAnAnnotationThatIsNotAnIdentity) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m
ENTRY e {
  p = f32[8,4] parameter(0)
  ROOT s = f32[2,4] custom-call(p), custom_call_target="SPMDFullToShardShape", sharding={manual}
})");
  ASSERT_TRUE(module.ok()) << module.status();
  ShardingAnnotationRemover pass;
  absl::StatusOr<bool> r = pass.Run(module->get());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(*r);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kCustomCall), 1);
}

}  // namespace
}  // namespace xla
