// The NVPTX back end: an LLVM module of kernels -> PTX text (LLVM 16's NVPTX
// back end) -> a cubin (the CUDA toolkit's ptxas), both stored in the
// artifact; the runtime prefers the cubin and JIT-compiles the PTX otherwise.
//
// ptxas is found through $XLA_PTXAS, then $CUDA_HOME/bin, /usr/local/cuda/bin
// and PATH. Without it, CompileNvptx still returns the PTX and says in
// `cubin_skipped_reason` why there is no cubin; that is not an error.
//
// Thread-safety: thread-safe; each call has its own TargetMachine and scratch
// directory. The llvm::Module must not be used by another thread meanwhile.
#ifndef XLA_BACKENDS_GPU_CODEGEN_NVPTX_NVPTX_COMPILER_H_
#define XLA_BACKENDS_GPU_CODEGEN_NVPTX_NVPTX_COMPILER_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_target.h"

namespace xla::gpu {

struct NvptxCompileOptions {
  int opt_level = 3;       // LLVM optimization level, 0 to 3
  bool make_cubin = true;  // run ptxas when it can be found
  std::string ptxas;       // explicit ptxas path; empty: search (see above)
  // Kernels compiled at once by NvptxKernelBackend::Finalize; 0: the
  // hardware threads, at most 16.
  int threads = 0;
};

// Where one CompileNvptx call spent its time (wall seconds on the calling
// thread; kernel_timings.txt). optimize_seconds covers everything before PTX
// emission (triple and layout, libdevice linking, verification, LLVM's
// optimization pipeline); ptx_seconds is LLVM's NVPTX code generation;
// ptxas_seconds the ptxas run (0 without a cubin).
struct NvptxCompileTimes {
  int64_t llvm_instructions = 0;  // the module's instructions before linking and optimizing
  double optimize_seconds = 0;
  double ptx_seconds = 0;
  double ptxas_seconds = 0;
};

struct NvptxBinary {
  std::string ptx;
  std::optional<std::string> cubin;
  std::string cubin_skipped_reason;  // set when !cubin
  std::string ptxas_version;         // "13.0.88" when ptxas ran
  NvptxCompileTimes times;           // always measured (a few clock reads)
};

// Bytes of the kernel-parameter space `kernel`'s parameters take under
// `layout` (each at its ABI alignment, in order). Thread-safe.
int64_t KernelParamBytes(const llvm::Function& kernel, const llvm::DataLayout& layout);

// Checks every kernel (PTX_Kernel calling convention) of `module`, whose
// data layout must be set, against target.max_kernel_param_bytes. Errors:
// Internal naming the kernel, its bytes and the limit (the emitter should
// have used an argument table). Thread-safe for distinct modules.
absl::Status CheckKernelParamSpace(const llvm::Module& module, const NvptxTarget& target);

// `ptx` with the numbers of LLVM's "// callseq N" comments replaced by 0,
// 1, 2, ... in order of first appearance. LLVM 16's NVPTX back end numbers
// call sequences with one counter per process, so without this a kernel's
// PTX would depend on what the process compiled before it (and on the
// thread schedule). Comments only: ptxas makes the same cubin. Thread-safe.
std::string RenumberCallSequences(absl::string_view ptx);

// PTX text for `target`. Sets the module's triple and data layout, checks
// every kernel's parameter space (CheckKernelParamSpace: nothing over the
// limit reaches ptxas), links the libdevice functions the module calls
// (libdevice_math.h), verifies and optimizes it; the PTX does not depend on
// what the process compiled before (RenumberCallSequences). Errors: invalid
// IR (the verifier's message), an LLVM without the NVPTX back end,
// libdevice needed but not found, a kernel past the parameter space. When
// `times` is not null its llvm_instructions, optimize_seconds and
// ptx_seconds are set (on success).
absl::StatusOr<std::string> CompileToPtx(llvm::Module& module, const NvptxTarget& target,
                                         int opt_level, NvptxCompileTimes* times = nullptr);

// The ptxas to use, or NotFound saying where it looked and how to fix it.
absl::StatusOr<std::string> FindPtxas(const NvptxCompileOptions& options);

// Assembles `ptx` into a cubin for `target` with ptxas at `ptxas`. Errors:
// ptxas rejects the PTX (its log is in the message) or cannot be run.
absl::StatusOr<std::string> AssemblePtx(absl::string_view ptx, const NvptxTarget& target,
                                        const std::string& ptxas);

// "13.0.88" from `ptxas --version`; errors when it cannot be run or parsed.
absl::StatusOr<std::string> PtxasVersion(const std::string& ptxas);

// CompileToPtx, then AssemblePtx when options.make_cubin and ptxas is found
// (its version is asked once per path and process). A ptxas that is found
// but rejects the PTX is an error (a compiler bug). The result's `times`
// say where the time went. Thread-safe for modules in different
// LLVMContexts.
absl::StatusOr<NvptxBinary> CompileNvptx(llvm::Module& module, const NvptxTarget& target,
                                         const NvptxCompileOptions& options);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_NVPTX_NVPTX_COMPILER_H_
