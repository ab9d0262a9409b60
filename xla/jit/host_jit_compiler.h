// The real compiler behind the JIT cache: xla::aot::Compile
// (xla/aot/compile.h) for the host target, with a small, closed set of
// code-changing options, so that the cache key covers all of them by
// construction.
//
// Thread-safety: HostJitCompiler is immutable; Compile is thread-safe (each
// call owns its module, LLVM context and temporary files).
#ifndef XLA_JIT_HOST_JIT_COMPILER_H_
#define XLA_JIT_HOST_JIT_COMPILER_H_

#include <cstdint>
#include <string>

#include "xla/aot/compile.h"
#include "xla/jit/jit_compiler.h"

namespace xla::jit {

struct HostJitOptions {
  // Fusion in the middle end (off: one kernel per op).
  bool fusion = true;
  // LLVM optimization level, 0 to 3.
  int opt_level = 3;
  // CPU the code may assume (CompileOptions::host_cpu).
  std::string cpu = "x86-64-v2";
  // Approximate output bytes per kernel block.
  int64_t target_block_bytes = 32 * 1024;
  // Written into artifacts and into the key.
  std::string compiler_version = "xla-aot-host-dev";
};

// The fast tier for `optimized`: the same compiler with fusion and LLVM
// optimizations off (-O0). Much cheaper to compile; slower code.
HostJitOptions FastTierOptions(HostJitOptions optimized = {});

// The CompileOptions `options` stand for: target host, no wider CPU
// variants, production date fixed, no optimized HLO text in the artifact,
// and the middle end's default verification. Never fails; thread-safe.
aot::CompileOptions ToCompileOptions(const HostJitOptions& options);

class HostJitCompiler : public JitCompiler {
 public:
  explicit HostJitCompiler(HostJitOptions options = {});

  CompilerIdentity identity() const override { return identity_; }
  // Errors: those of aot::Compile, prefixed with
  // "JIT compilation of module <name>".
  absl::StatusOr<std::string> Compile(const JitModule& module) override;

 private:
  HostJitOptions options_;
  CompilerIdentity identity_;
};

}  // namespace xla::jit

#endif  // XLA_JIT_HOST_JIT_COMPILER_H_
