#include "xla/backends/gpu/codegen/host/kernel_symbol_name.h"

#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

TEST(KernelSymbolName, SanitizesAndUniquifies) {
  absl::flat_hash_set<std::string> used;
  EXPECT_EQ(KernelSymbolName("fusion.12", &used), "xla_fusion_12");
  EXPECT_EQ(KernelSymbolName("fusion_12", &used), "xla_fusion_12_1");
  EXPECT_EQ(KernelSymbolName("fusion-12", &used), "xla_fusion_12_2");
  EXPECT_EQ(KernelSymbolName("7/a b", &used), "xla_7_a_b");
  EXPECT_EQ(KernelSymbolName("memcpy", &used), "xla_memcpy");
  absl::flat_hash_set<std::string> again;
  EXPECT_EQ(KernelSymbolName("fusion.12", &again), "xla_fusion_12");
  EXPECT_EQ(used.size(), 5u);
}

}  // namespace
}  // namespace xla::gpu
