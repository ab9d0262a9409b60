// The shared pieces of thunk emission: leaves, index concatenation, the
// Unimplemented message, slices in artifact form and annotated thunks.
#include "xla/backends/gpu/compiler/thunk_emission_util.h"

#include <memory>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla::gpu {
namespace {

constexpr char kModule[] = R"(
HloModule m

ENTRY main {
  a = f32[3] parameter(0)
  b = s32[2,2] parameter(1)
  inner = (s32[2,2], f32[3]) tuple(b, a)
  t = (f32[3], (s32[2,2], f32[3])) tuple(a, inner)
  ROOT n = f32[3] negate(a)
}
)";

TEST(ThunkEmissionUtilTest, ArrayLeavesAreDepthFirst) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(kModule);
  ASSERT_TRUE(m.ok()) << m.status();
  const HloInstruction* t = nullptr;
  for (const auto& instr : (*m)->entry_computation()->instructions()) {
    if (instr->name() == "t") t = instr.get();
  }
  ASSERT_NE(t, nullptr);
  const std::vector<ShapeIndex> leaves = ArrayLeaves(t->shape());
  ASSERT_EQ(leaves.size(), 3u);
  EXPECT_EQ(leaves[0], (ShapeIndex{0}));
  EXPECT_EQ(leaves[1], (ShapeIndex{1, 0}));
  EXPECT_EQ(leaves[2], (ShapeIndex{1, 1}));
  EXPECT_EQ(ArrayLeaves(t->operand(0)->shape()).size(), 1u);
  EXPECT_EQ(Concat({1}, {0, 2}), (ShapeIndex{1, 0, 2}));
  EXPECT_EQ(Concat({}, {}), ShapeIndex{});
}

TEST(ThunkEmissionUtilTest, UnimplementedAndThunksNameTheInstruction) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(kModule);
  ASSERT_TRUE(m.ok()) << m.status();
  const HloInstruction& root = *(*m)->entry_computation()->root_instruction();
  absl::Status s = Unimplemented(root, "why");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(s.message(), "instruction 'n' (opcode negate): why")) << s;
  Thunks thunks;
  AddThunk(root, &thunks);
  ASSERT_EQ(thunks.size(), 1);
  EXPECT_EQ(thunks[0].profile_annotation(), "n");
  xla::BufferSlice slice;
  slice.allocation = 2;
  slice.offset = 16;
  slice.size = 12;
  const BufferSliceProto p = SliceToProto(slice);
  EXPECT_EQ(p.allocation(), 2);
  EXPECT_EQ(p.offset(), 16);
  EXPECT_EQ(p.size(), 12);
}

}  // namespace
}  // namespace xla::gpu
