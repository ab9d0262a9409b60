#include "xla/jit/host_jit_compiler.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace xla::jit {

HostJitOptions FastTierOptions(HostJitOptions optimized) {
  optimized.fusion = false;
  optimized.opt_level = 0;
  return optimized;
}

gpu::HostCompilerOptions ToHostCompilerOptions(const HostJitOptions& options) {
  gpu::HostCompilerOptions out;
  out.middle_end.fusion = options.fusion;
  out.middle_end.multi_output_fusion = options.fusion;
  out.object.opt_level = options.opt_level;
  out.object.cpu = options.cpu;
  out.thunks.kernel.target_block_bytes = options.target_block_bytes;
  out.compiler_version = options.compiler_version;
  // The date does not change code; fixing it makes artifacts reproducible.
  out.production_date = "2000-01-01T00:00:00Z";
  out.include_optimized_hlo = false;
  return out;
}

HostJitCompiler::HostJitCompiler(HostJitOptions options) : options_(std::move(options)) {
  identity_.target = "host";
  identity_.version = options_.compiler_version;
  identity_.options = absl::StrCat("fusion=", options_.fusion ? 1 : 0, ";opt_level=", options_.opt_level,
                                   ";cpu=", options_.cpu,
                                   ";target_block_bytes=", options_.target_block_bytes);
}

absl::StatusOr<std::string> HostJitCompiler::Compile(const JitModule& module) {
  absl::StatusOr<std::string> bytes =
      gpu::CompileHloToHostArtifact(module.canonical_text(), ToHostCompilerOptions(options_));
  if (bytes.ok()) return bytes;
  return absl::Status(bytes.status().code(), absl::StrCat("JIT compilation of module ", module.name(),
                                                          ": ", bytes.status().message()));
}

}  // namespace xla::jit
