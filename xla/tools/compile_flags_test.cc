#include "xla/tools/compile_flags.h"

#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace xla::cli {
namespace {

TEST(CompileFlagsTest, FlagsSetTheirFields) {
  aot::CompileOptions o;
  EXPECT_EQ(ApplyCompileFlag("--opt_level=1", &o), std::string());
  EXPECT_EQ(ApplyCompileFlag("--no_fusion", &o), std::string());
  EXPECT_EQ(ApplyCompileFlag("--num_partitions=4", &o), std::string());
  EXPECT_EQ(ApplyCompileFlag("--host_cpu_variants=none", &o), std::string());
  EXPECT_EQ(ApplyCompileFlag("--elided_constants=zeros", &o), std::string());
  EXPECT_EQ(ApplyCompileFlag("--target_runtime=2026-11-29", &o), std::string());
  EXPECT_EQ(o.opt_level, 1);
  EXPECT_FALSE(o.fusion);
  EXPECT_EQ(o.num_partitions, 4);
  EXPECT_TRUE(o.host_cpu_variants.empty());
  EXPECT_EQ(o.elided_constants, ElidedConstantsMode::kZeros);
  EXPECT_EQ(o.target_runtime, "2026-11-29");
}

TEST(CompileFlagsTest, FuseAttentionIsOnOrOff) {
  aot::CompileOptions o;
  EXPECT_FALSE(o.fuse_attention);  // until stage 2 of fuse_attention_host
  EXPECT_EQ(ApplyCompileFlag("--fuse_attention=on", &o), std::string());
  EXPECT_TRUE(o.fuse_attention);
  EXPECT_EQ(ApplyCompileFlag("--fuse_attention=off", &o), std::string());
  EXPECT_FALSE(o.fuse_attention);
  EXPECT_EQ(ApplyCompileFlag("--fuse_attention=yes", &o),
            "bad --fuse_attention value 'yes' (on or off)");
}

TEST(CompileFlagsTest, OtherArgumentsAreNotCompileFlags) {
  aot::CompileOptions o;
  EXPECT_EQ(ApplyCompileFlag("-o", &o), std::nullopt);
  EXPECT_EQ(ApplyCompileFlag("--output=x.xaot", &o), std::nullopt);
  EXPECT_EQ(ApplyCompileFlag("-v", &o), std::nullopt);
  EXPECT_EQ(ApplyCompileFlag("model.hlo", &o), std::nullopt);
}

TEST(CompileFlagsTest, BadValuesAreNamed) {
  aot::CompileOptions o;
  EXPECT_EQ(ApplyCompileFlag("--opt_level=7", &o), "bad --opt_level value '7' (use 0, 1, 2 or 3)");
  EXPECT_EQ(ApplyCompileFlag("--num_partitions=0", &o), "bad --num_partitions=0 (an integer >= 1)");
  EXPECT_EQ(o.opt_level, 3);
}

TEST(CompileFlagsTest, OptionsByName) {
  aot::CompileOptions o;
  EXPECT_TRUE(ApplyCompileOption("no_fusion", "true", &o).ok());
  EXPECT_FALSE(o.fusion);
  EXPECT_TRUE(ApplyCompileOption("no_fusion", "false", &o).ok());
  EXPECT_TRUE(o.fusion);
  EXPECT_TRUE(ApplyCompileOption("emit_collectives", "true", &o).ok());
  EXPECT_TRUE(o.emit_collectives);
  EXPECT_FALSE(o.emit_cudnn_convolutions);
  EXPECT_TRUE(ApplyCompileOption("emit_cudnn_convolutions", "true", &o).ok());
  EXPECT_TRUE(o.emit_cudnn_convolutions);
  EXPECT_FALSE(o.emit_fft);
  EXPECT_TRUE(ApplyCompileOption("emit_fft", "true", &o).ok());
  EXPECT_TRUE(o.emit_fft);
  EXPECT_FALSE(o.emit_host_transfers);
  EXPECT_TRUE(ApplyCompileOption("emit_host_transfers", "true", &o).ok());
  EXPECT_TRUE(o.emit_host_transfers);
  EXPECT_FALSE(o.offload_scan_stacks);
  EXPECT_TRUE(ApplyCompileOption("offload_scan_stacks", "true", &o).ok());
  EXPECT_TRUE(o.offload_scan_stacks);
  EXPECT_TRUE(ApplyCompileOption("host_cpu", "x86-64-v3", &o).ok());
  EXPECT_EQ(o.host_cpu, "x86-64-v3");
  EXPECT_TRUE(ApplyCompileOption("checksum", "crc32c", &o).ok());
  EXPECT_EQ(o.checksum, aot::PayloadChecksum::kCrc32c);
}

TEST(CompileFlagsTest, OptionErrorsNameTheOption) {
  aot::CompileOptions o;
  absl::Status unknown = ApplyCompileOption("fusion", "false", &o);
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.message().find("unknown compile option 'fusion'"), std::string::npos) << unknown;
  EXPECT_FALSE(ApplyCompileOption("output", "x.xaot", &o).ok());
  absl::Status bad = ApplyCompileOption("opt_level", "9", &o);
  EXPECT_EQ(bad.message(), "compile option 'opt_level': bad --opt_level value '9' (use 0, 1, 2 or 3)");
  absl::Status not_switch = ApplyCompileOption("no_fusion", "2", &o);
  EXPECT_NE(not_switch.message().find("is a switch"), std::string::npos) << not_switch;
}

}  // namespace
}  // namespace xla::cli
