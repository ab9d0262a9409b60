// The compiler interface the JIT cache calls: one module in, artifact bytes
// (`.xaot`, loadable by xla::aot::Executable::LoadFromBytes) out.
//
// Production code uses HostJitCompiler (host_jit_compiler.h); tests use a
// controllable fake (fake_compiler.h). Keeping the cache behind this
// interface also keeps it free of LLVM and the pass pipeline.
#ifndef XLA_JIT_JIT_COMPILER_H_
#define XLA_JIT_JIT_COMPILER_H_

#include <string>

#include "absl/status/statusor.h"
#include "xla/jit/jit_module.h"

namespace xla::jit {

// Everything about a compiler that changes the code it produces. All three
// strings enter the cache key, so entries of another target, compiler
// version or option set are never reused.
struct CompilerIdentity {
  std::string target;   // "host", "sm_90", ...
  std::string version;  // the compiler version written into artifacts
  // Canonical text of every option that changes generated code
  // ("fusion=1;opt_level=3;cpu=x86-64-v2;..."); options that do not change
  // code (dump directories, timestamps) are left out.
  std::string options;
};

class JitCompiler {
 public:
  virtual ~JitCompiler() = default;

  // Constant for the compiler's lifetime. Thread-safe.
  virtual CompilerIdentity identity() const = 0;

  // Compiles `module` to artifact bytes. Errors: whatever the compiler
  // reports (unsupported op, verifier, codegen, link), naming the module.
  // Thread-safe: the cache calls it from many threads at once, for
  // different keys.
  virtual absl::StatusOr<std::string> Compile(const JitModule& module) = 0;
};

}  // namespace xla::jit

#endif  // XLA_JIT_JIT_COMPILER_H_
