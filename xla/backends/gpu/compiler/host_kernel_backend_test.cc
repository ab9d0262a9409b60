// HostKernelBackend: a fusion's kernel lands in the shared LLVM module under
// its symbol, with the host launch shape and the host_symbol spec.
#include "xla/backends/gpu/compiler/host_kernel_backend.h"

#include <memory>

#include "gtest/gtest.h"
#include "llvm/IR/LLVMContext.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla::gpu {
namespace {

constexpr char kNegate[] = R"(
HloModule m

fused {
  a = f32[37,129] parameter(0)
  ROOT n = f32[37,129] negate(a)
}

ENTRY main {
  a = f32[37,129] parameter(0)
  ROOT f = f32[37,129] fusion(a), kind=kLoop, calls=fused
}
)";

TEST(HostKernelBackendTest, EmitsIntoTheModuleAndDescribesBySymbol) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(kNegate);
  ASSERT_TRUE(m.ok()) << m.status();
  llvm::LLVMContext context;
  llvm::Module kernels("kernels", context);
  HostEmitOptions options;
  options.target_block_bytes = 1024;
  HostKernelBackend backend(options, &kernels);
  EXPECT_EQ(backend.TargetName(), "host");
  EXPECT_EQ(backend.FfiPlatform(), "host");

  KernelArgAliasing aliasing;
  aliasing.noalias = {true, true};
  absl::StatusOr<EmittedKernel> kernel =
      backend.EmitFusionKernel(*(*m)->entry_computation()->root_instruction(), "neg_k", aliasing);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ(kernel->symbol, "neg_k");
  EXPECT_NE(kernels.getFunction("neg_k"), nullptr);
  ASSERT_EQ(kernel->args.size(), 2u);
  EXPECT_FALSE(kernel->args[0].is_output);
  EXPECT_TRUE(kernel->args[1].is_output);
  EXPECT_GT(kernel->launch.grid_x(), 1);
  EXPECT_EQ(kernel->launch.grid_y(), 1);
  EXPECT_EQ(kernel->launch.block_x(), 1);

  KernelProto proto;
  ASSERT_TRUE(backend.DescribeKernel(*kernel, &proto).ok());
  EXPECT_EQ(proto.host_symbol(), "neg_k");
}

}  // namespace
}  // namespace xla::gpu
