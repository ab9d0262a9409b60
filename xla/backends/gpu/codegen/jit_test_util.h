// Test helpers: JIT-compile LLVM IR in-process (LLVM ORC LLJIT for the host)
// and run single-op HLO modules through the elemental emitter, so emitted IR
// can be compared with the reference evaluator.
//
// Test-only. Each JitRunner owns its own LLJIT; not thread-safe.
#ifndef XLA_BACKENDS_GPU_CODEGEN_JIT_TEST_UTIL_H_
#define XLA_BACKENDS_GPU_CODEGEN_JIT_TEST_UTIL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/types/literal.h"

namespace xla::gpu {

class JitRunner {
 public:
  // Initializes the native target (once per process) and creates an LLJIT
  // that resolves libm symbols from the process. Errors: the JIT could not
  // be created (message from LLVM).
  static absl::StatusOr<std::unique_ptr<JitRunner>> Create();

  // The data layout and triple modules must use.
  const llvm::DataLayout& data_layout() const { return jit_->getDataLayout(); }
  const llvm::Triple& triple() const { return jit_->getTargetTriple(); }

  // Verifies `module`, compiles it and returns the address of function
  // `name`. Errors: verifier failures (with the verifier's text), compile or
  // lookup failures.
  absl::StatusOr<void*> Compile(std::unique_ptr<llvm::Module> module,
                                std::unique_ptr<llvm::LLVMContext> context,
                                absl::string_view name);

 private:
  explicit JitRunner(std::unique_ptr<llvm::orc::LLJIT> jit) : jit_(std::move(jit)) {}
  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

// Runs the entry computation of `module` (array parameters, one array
// result) through the elemental emitter: emits `void kernel(void** buffers)`
// that loops over every output element in row-major order, reads
// parameters through IrArray (buffers[i] = args[i].data()) and writes
// buffers[num_parameters]. `ir` (optional) receives the module's IR text.
// Errors: anything the emitter or the JIT rejects.
absl::StatusOr<Literal> RunElemental(const HloModule& module, absl::Span<const Literal> args,
                                     std::string* ir = nullptr);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_JIT_TEST_UTIL_H_
