#include "xla/backends/gpu/codegen/nvptx/ptxas_resource_usage.h"

#include "gtest/gtest.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_compiler.h"

namespace xla::gpu {
namespace {

TEST(PtxasResourceUsage, ParsesVerboseOutput) {
  absl::StatusOr<std::vector<KernelResourceUsage>> u = ParsePtxasVerbose(
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k1' for 'sm_90'\n"
      "ptxas info    : Function properties for k1\n"
      "    24 bytes stack frame, 12 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 37 registers, 4224 bytes smem, 360 bytes cmem[0]\n"
      "ptxas info    : Function properties for k2\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 6 registers, 360 bytes cmem[0]\n");
  ASSERT_TRUE(u.ok()) << u.status();
  ASSERT_EQ(u->size(), 2u);
  EXPECT_EQ((*u)[0].function, "k1");
  EXPECT_EQ((*u)[0].registers, 37);
  EXPECT_EQ((*u)[0].stack_frame_bytes, 24);
  EXPECT_EQ((*u)[0].spill_store_bytes, 12);
  EXPECT_EQ((*u)[0].spill_load_bytes, 8);
  EXPECT_EQ((*u)[0].shared_bytes, 4224);
  EXPECT_EQ((*u)[1].registers, 6);
  EXPECT_EQ((*u)[1].shared_bytes, 0);
  absl::StatusOr<std::vector<KernelResourceUsage>> bad =
      ParsePtxasVerbose("ptxas info    : Function properties for k\n");
  ASSERT_FALSE(bad.ok());
}

// The real ptxas on a small hand-written kernel with a shared array.
TEST(PtxasResourceUsage, RunsPtxas) {
  absl::StatusOr<std::string> ptxas = FindPtxas(NvptxCompileOptions());
  ASSERT_TRUE(ptxas.ok()) << ptxas.status();
  const char* ptx = R"(.version 7.8
.target sm_80
.address_size 64
.visible .entry copy(.param .u64 p)
{
  .shared .align 4 .b8 tile[132];
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  ld.global.u32 %r2, [%rd2];
  st.shared.u32 [tile], %r2;
  bar.sync 0;
  ld.shared.u32 %r2, [tile+4];
  st.global.u32 [%rd2], %r2;
  ret;
}
)";
  absl::StatusOr<std::vector<KernelResourceUsage>> u =
      PtxasResourceUsage(ptx, *FindNvptxTarget("sm_80"), *ptxas);
  ASSERT_TRUE(u.ok()) << u.status();
  ASSERT_EQ(u->size(), 1u);
  EXPECT_EQ((*u)[0].function, "copy");
  EXPECT_GT((*u)[0].registers, 0);
  EXPECT_EQ((*u)[0].shared_bytes, 132);
  EXPECT_EQ((*u)[0].spill_store_bytes, 0);
  absl::StatusOr<std::vector<KernelResourceUsage>> bad =
      PtxasResourceUsage("not ptx", *FindNvptxTarget("sm_80"), *ptxas);
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace xla::gpu
