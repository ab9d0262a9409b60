#include "xla/tools/replicated_run.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/compiler/host_compiler.h"

namespace xla::tools {
namespace {

constexpr char kModule[] = R"(
HloModule stacked, replica_count=3
sum {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY main {
  x = s32[5]{0} parameter(0)
  ar = s32[5]{0} all-reduce(x), replica_groups={{0,1,2}}, to_apply=sum
  id = u32[] replica-id()
  ROOT t = (s32[5]{0}, u32[]) tuple(ar, id)
}
)";

TEST(ReplicatedRunTest, SlicesInputsAndStacksOutputs) {
  gpu::HostCompilerOptions options;
  options.thunks.emit_collectives = true;
  absl::StatusOr<std::string> bytes = gpu::CompileHloToHostArtifact(kModule, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<std::unique_ptr<aot::Executable>> exe = aot::Executable::LoadFromBytes(*bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  Literal in(Shape::Array(PrimitiveType::S32, {3, 5}));
  for (int64_t i = 0; i < 15; ++i) in.SetInt(i, i * i - 20);  // replica r: row r
  std::vector<Literal> inputs;
  inputs.push_back(std::move(in));
  absl::StatusOr<std::vector<Literal>> out = RunReplicated(**exe, 3, inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[0].shape().dimensions(), (std::vector<int64_t>{3, 5}));
  EXPECT_EQ((*out)[1].shape().dimensions(), (std::vector<int64_t>{3}));
  for (int r = 0; r < 3; ++r) {
    for (int j = 0; j < 5; ++j) {
      int64_t want = 0;
      for (int k = 0; k < 3; ++k) want += (5 * k + j) * (5 * k + j) - 20;
      EXPECT_EQ((*out)[0].GetInt(r * 5 + j), want);
    }
    EXPECT_EQ((*out)[1].GetInt(r), r);
  }
  Literal wrong(Shape::Array(PrimitiveType::S32, {2, 5}));
  std::vector<Literal> bad;
  bad.push_back(std::move(wrong));
  absl::Status s = RunReplicated(**exe, 3, bad).status();
  EXPECT_TRUE(absl::StrContains(s.message(), "input 0 has shape s32[2,5] but --replicas=3 needs a "
                                             "leading dimension of 3"))
      << s;
  // Host sides: one per participant, or none.
  gpu::HostTransferCallbacks host;
  const gpu::HostTransferCallbacks* const two[] = {&host, &host};
  s = RunReplicated(**exe, 3, inputs, gpu::kDefaultCollectiveTimeout, two).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "3 devices got host-transfer callbacks for 2 "
                                             "participants"))
      << s;
}

TEST(ReplicatedRunTest, StackAndUnstackAreInverse) {
  Literal a(Shape::Array(PrimitiveType::F32, {2, 3}));
  for (int64_t i = 0; i < 6; ++i) a.SetDouble(i, 0.5 * i - 1);
  absl::StatusOr<std::vector<Literal>> parts = UnstackLeading(a, 2, "x");
  ASSERT_TRUE(parts.ok());
  EXPECT_EQ((*parts)[1].GetDouble(0), 0.5);
  absl::StatusOr<Literal> back = StackLeading(*parts, "x");
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->data() == a.data());
  EXPECT_EQ(back->shape().dimensions(), a.shape().dimensions());
  EXPECT_FALSE(UnstackLeading(a, 3, "x").ok());
}

}  // namespace
}  // namespace xla::tools
