#include "xla/backends/gpu/runtime/runtime_kernel_registry.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

TEST(RuntimeKernelRegistry, FindsKernelsByName) {
  const RegisteredKernel* iota = FindRegisteredKernel("xla.runtime.iota_s32");
  ASSERT_NE(iota, nullptr);
  EXPECT_EQ(iota->platform, "host");
  EXPECT_EQ(iota->num_args, 1);
  EXPECT_EQ(FindRegisteredKernel("xla.runtime.no_such_kernel"), nullptr);
  EXPECT_EQ(FindRegisteredKernel(""), nullptr);
}

TEST(RuntimeKernelRegistry, IotaWritesIndices) {
  std::vector<int32_t> out(13, -7);
  const stream_executor::DeviceMemoryBase arg(out.data(), out.size() * sizeof(int32_t));
  const RegisteredKernel* iota = FindRegisteredKernel("xla.runtime.iota_s32");
  ASSERT_NE(iota, nullptr);
  ASSERT_TRUE(iota->fn({arg}, stream_executor::LaunchDimensions()).ok());
  for (int i = 0; i < 13; ++i) EXPECT_EQ(out[i], i);
}

TEST(RuntimeKernelRegistry, AliasesResolveToTheCurrentKernel) {
  ASSERT_FALSE(RegisteredKernelAliases().empty());
  for (const RegisteredKernelAlias& alias : RegisteredKernelAliases()) {
    const RegisteredKernel* current = FindRegisteredKernel(alias.new_name);
    ASSERT_NE(current, nullptr) << alias.old_name << " names a missing kernel " << alias.new_name;
    EXPECT_EQ(FindRegisteredKernel(alias.old_name), current) << alias.old_name;
    // An alias must not shadow a kernel of its own.
    EXPECT_NE(alias.old_name, alias.new_name);
  }
  EXPECT_EQ(FindRegisteredKernel("xla_runtime_iota_s32"), FindRegisteredKernel("xla.runtime.iota_s32"));
}

}  // namespace
}  // namespace xla::gpu
