// CudaKernelModule / CudaKernel: device code loaded with cuModuleLoadDataEx
// and its entry points (see kernel_module.h and kernel.h).
//
// The bytes are a cubin (ELF), a fatbinary, or PTX text; PTX is compiled by
// the driver's JIT, whose error log is captured into the load error. Kernels
// share the loaded CUmodule with their module (cuModuleUnload runs when the
// last owner is gone; a stream keeps the module of an in-flight launch until
// it has synchronized).
//
// Thread-safety: GetKernel may be called from any thread; kernels are
// immutable.
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUDA_KERNEL_MODULE_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUDA_KERNEL_MODULE_H_

#include <cuda.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/stream_executor/cuda/cuda_driver_api.h"
#include "xla/stream_executor/kernel.h"
#include "xla/stream_executor/kernel_module.h"

namespace stream_executor::cuda {

// A loaded CUmodule; unloads it on destruction. Shared by a module, its
// kernels and in-flight launches.
class CudaModuleHandle {
 public:
  CudaModuleHandle(const CudaDriverApi& api, CUcontext context, CUmodule module)
      : api_(api), context_(context), module_(module) {}
  ~CudaModuleHandle();
  CudaModuleHandle(const CudaModuleHandle&) = delete;
  CudaModuleHandle& operator=(const CudaModuleHandle&) = delete;

  CUmodule get() const { return module_; }

 private:
  const CudaDriverApi& api_;
  const CUcontext context_;
  const CUmodule module_;
};

// One entry point of a CudaKernelModule; launched by CudaStream with one
// CUdeviceptr kernel parameter per buffer argument, in order.
class CudaKernel : public Kernel {
 public:
  CudaKernel(std::string name, std::string module_name,
             std::shared_ptr<const CudaModuleHandle> module, CUfunction function)
      : name_(std::move(name)),
        module_name_(std::move(module_name)),
        module_(std::move(module)),
        function_(function) {}

  const std::string& name() const override { return name_; }
  const std::string& module_name() const override { return module_name_; }

  CUfunction function() const { return function_; }
  const std::shared_ptr<const CudaModuleHandle>& module() const {
    return module_;
  }

 private:
  const std::string name_;
  const std::string module_name_;
  const std::shared_ptr<const CudaModuleHandle> module_;
  const CUfunction function_;
};

// What the bytes of a module are, by their first bytes.
enum class CudaModuleFormat { kCubin, kFatbin, kPtx };

// "cubin", "fatbin" or "PTX".
absl::string_view CudaModuleFormatName(CudaModuleFormat format);

// ELF magic -> kCubin, fatbinary magic -> kFatbin, anything else -> kPtx.
CudaModuleFormat DetectCudaModuleFormat(absl::string_view bytes);

class CudaKernelModule : public KernelModule {
 public:
  // Loads `bytes` into `context` (which must outlive the module). Fails with
  // InvalidArgument for empty bytes or bytes the driver rejects; the message
  // names the module, the format, the driver error and, for PTX, the JIT
  // error log ("... JIT log: <log>"). ResourceExhausted when the driver is
  // out of memory.
  static absl::StatusOr<std::unique_ptr<CudaKernelModule>> Load(
      const CudaDriverApi& api, CUcontext context, absl::string_view name,
      absl::string_view bytes);

  const std::string& name() const override { return name_; }
  // NotFound naming the symbol and the module when cuModuleGetFunction does
  // not find it; the driver's error otherwise.
  absl::StatusOr<std::unique_ptr<Kernel>> GetKernel(
      absl::string_view symbol_name) const override;

 private:
  CudaKernelModule(const CudaDriverApi& api, CUcontext context,
                   std::string name, std::shared_ptr<const CudaModuleHandle> module)
      : api_(api),
        context_(context),
        name_(std::move(name)),
        module_(std::move(module)) {}

  const CudaDriverApi& api_;
  const CUcontext context_;
  const std::string name_;
  const std::shared_ptr<const CudaModuleHandle> module_;
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUDA_KERNEL_MODULE_H_
