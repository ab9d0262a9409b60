// Transcendental functions for NVPTX kernels through the CUDA toolkit's
// libdevice (nvvm/libdevice/libdevice.10.bc): NvptxMathEmitter emits calls
// to its __nv_* functions, and LinkLibdevice links the functions a module
// uses into it (only those, internalized) so that the PTX is self-contained.
// LLVM 16's NVPTX back end cannot lower llvm.exp/log/sin/cos/pow itself (it
// would emit calls to undefined libm symbols), so kernels that use the
// default MathEmitter's intrinsics need this; sqrt, fabs, floor, fma, min and
// max are lowered natively and stay intrinsics. The __nvvm_reflect queries
// inside libdevice are resolved by the NVPTX code generator (NVVMReflect);
// "nvvm-reflect-ftz" is set to 0 (no flush to zero), matching XLA numerics.
//
// Thread-safety: NvptxMathEmitter is stateless (thread-safe);
// LinkLibdevice mutates its module (one thread per module) and shares one
// read-only copy of the libdevice bytes per process between threads.
#ifndef XLA_BACKENDS_GPU_CODEGEN_NVPTX_LIBDEVICE_MATH_H_
#define XLA_BACKENDS_GPU_CODEGEN_NVPTX_LIBDEVICE_MATH_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/math_emitter.h"

namespace xla::gpu {

// Maps the MathEmitter functions to libdevice: exp, log, sin, cos, pow (with
// XLA's x == 1 / y == 0 rule kept outside the call), tanh, expm1, log1p,
// erf, tan, cbrt, atan2, atan, asin, acos, asinh, acosh, atanh, sinh, cosh
// as __nv_<name>f (f32) or __nv_<name> (f64). sqrt, rsqrt and logistic keep
// the shared implementations (native sqrt, IEEE division).
class NvptxMathEmitter : public MathEmitter {
 public:
  llvm::Value* Exp(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Log(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Sin(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Cos(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Pow(llvm::Value* x, llvm::Value* y, llvm::IRBuilder<>* b) const override;
  llvm::Value* Expm1(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Log1p(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Tanh(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Erf(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Tan(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Cbrt(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Atan2(llvm::Value* y, llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Atan(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Asin(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Acos(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Asinh(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Acosh(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Atanh(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Sinh(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  llvm::Value* Cosh(llvm::Value* x, llvm::IRBuilder<>* b) const override;
};

// The libdevice bitcode: $XLA_LIBDEVICE, else
// $CUDA_HOME/nvvm/libdevice/libdevice.10.bc, else
// /usr/local/cuda/nvvm/libdevice/libdevice.10.bc. Errors: NotFound listing
// the places searched and how to fix it.
absl::StatusOr<std::string> FindLibdevice();

// The bytes of the libdevice file `file`, read once per path and process
// and kept for the process's life (a file changed later is not re-read).
// Errors: NotFound naming the file when it cannot be read (not cached, so a
// later call tries again). Thread-safe.
absl::StatusOr<std::shared_ptr<const std::string>> LibdeviceBytes(const std::string& file);

// Links the libdevice functions that `module` declares (__nv_*) into it and
// internalizes them; a module that declares none is left unchanged (no file
// is read). The bitcode comes from LibdeviceBytes and is parsed lazily: only
// its module-level records and the bodies of the functions `module` reaches
// are read, in `module`'s context (a kernel that calls expf parses a few
// functions, not all of libdevice's). `path` empty: FindLibdevice(). Call
// before CompileToPtx. Errors: libdevice not found or unreadable, invalid
// bitcode, link failures (LLVM's message). Thread-safe for modules in
// different LLVMContexts.
absl::Status LinkLibdevice(llvm::Module& module, const std::string& path = "");

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_NVPTX_LIBDEVICE_MATH_H_
