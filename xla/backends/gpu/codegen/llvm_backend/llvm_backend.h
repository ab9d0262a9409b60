// What the host and NVPTX back ends share once a kernel module is built:
// verification, the LLVM optimization pipeline at a given level, and machine
// code emission (object file or assembly text) for a TargetMachine.
//
// Thread-safety: thread-safe for distinct modules and target machines.
#ifndef XLA_BACKENDS_GPU_CODEGEN_LLVM_BACKEND_LLVM_BACKEND_H_
#define XLA_BACKENDS_GPU_CODEGEN_LLVM_BACKEND_LLVM_BACKEND_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Target/TargetMachine.h"

namespace xla::gpu {

// Registers every LLVM target this build uses (x86-64 and NVPTX); idempotent.
void InitializeLlvmTargets();

// The code generator's level for an optimization level 0..3 (clamped).
llvm::CodeGenOpt::Level CodeGenOptLevel(int opt_level);

// Verifies `module`; InternalError with the verifier's message when invalid.
absl::Status VerifyLlvmModule(const llvm::Module& module);

// Runs LLVM's default module pipeline for `opt_level` (0..3, clamped) tuned
// for `machine`. `slp_vectorize` turns on the SLP vectorizer from O2 (as
// clang does; PassBuilder's default tuning leaves it off): the host
// emitter's lane reductions rely on it. Not thread-safe for one module.
void OptimizeLlvmModule(llvm::Module& module, llvm::TargetMachine& machine, int opt_level,
                        bool slp_vectorize = false);

// The optional passes of the code generator's pipeline (what
// TargetMachine::addPassesToEmitFile adds for the machine's level).
struct MachineCodeOptions {
  // LLVM's loop strength reduction, the IR pass the code generator runs
  // before instruction selection (with the IV-users analysis only it
  // needs). Off, it is never added to the pipeline. It rewrites a loop's
  // address arithmetic into pointer increments: on x86-64, whose addressing
  // modes take base + index * scale + offset, that rarely pays after the
  // vectorizers ran, and it costs about 40 % of the code generator's time
  // on host kernels built at O3 (docs/perf.md, branch ctime5).
  bool loop_strength_reduction = true;
};

// Machine code for `module`: an object file or assembly text, from the
// pipeline `options` selects. When `skipped` is not null, the names of the
// passes `options` left out are appended to it (what tests check). Errors:
// the target cannot emit that kind of file.
absl::StatusOr<std::string> EmitMachineCode(llvm::Module& module, llvm::TargetMachine& machine,
                                            llvm::CodeGenFileType file_type,
                                            const MachineCodeOptions& options = {},
                                            std::vector<std::string>* skipped = nullptr);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_LLVM_BACKEND_LLVM_BACKEND_H_
