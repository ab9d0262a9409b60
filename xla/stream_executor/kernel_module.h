// KernelModule: a unit of device code loaded from bytes, from which kernels
// are looked up by symbol name.
//
// Created by StreamExecutor::LoadKernelModule. What the bytes are depends on
// the platform: a shared object for the host platform (see
// host/host_kernel_abi.h), PTX or a cubin for CUDA. Loading validates the
// bytes; a module that loaded can still lack a symbol, which GetKernel
// reports.
//
// Ownership: the caller owns the module. Destroying it unloads the code once
// no Kernel taken from it and no launch of one is left (see kernel.h).
//
// Thread-safety: GetKernel may be called from several threads at once.
#ifndef XLA_STREAM_EXECUTOR_KERNEL_MODULE_H_
#define XLA_STREAM_EXECUTOR_KERNEL_MODULE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/stream_executor/kernel.h"

namespace stream_executor {

class KernelModule {
 public:
  virtual ~KernelModule() = default;

  // The name given at load time (for example the artifact's module name).
  virtual const std::string& name() const = 0;

  // Looks up the kernel whose entry symbol is `symbol_name`. Fails with
  // NotFound naming the symbol and the module when the module has no such
  // symbol.
  virtual absl::StatusOr<std::unique_ptr<Kernel>> GetKernel(
      absl::string_view symbol_name) const = 0;
};

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_KERNEL_MODULE_H_
