#include "xla/jit/host_jit_compiler.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "xla/service/hlo_pass_pipeline.h"

namespace xla::jit {

HostJitOptions FastTierOptions(HostJitOptions optimized) {
  optimized.fusion = false;
  optimized.opt_level = 0;
  return optimized;
}

aot::CompileOptions ToCompileOptions(const HostJitOptions& options) {
  aot::CompileOptions out;
  out.target = "host";
  out.fusion = options.fusion;
  out.multi_output_fusion = options.fusion;
  out.verify_after_each = PipelineOptions().verify_after_each;
  out.opt_level = options.opt_level;
  out.host_cpu = options.cpu;
  out.host_cpu_variants.clear();
  out.target_block_bytes = options.target_block_bytes;
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
  absl::StatusOr<aot::CompiledArtifact> compiled =
      aot::Compile(module.canonical_text(), ToCompileOptions(options_));
  if (compiled.ok()) return std::move(compiled->bytes);
  return absl::Status(compiled.status().code(),
                      absl::StrCat("JIT compilation of module ", module.name(), ": ",
                                   compiled.status().message()));
}

}  // namespace xla::jit
