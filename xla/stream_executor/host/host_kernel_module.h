// HostKernelModule and HostKernel: host kernels in a shared object that is
// loaded from memory.
//
// Load first checks the bytes with CheckHostSharedObject (host_object_check.h):
// an object that would run code, load a library or write outside itself
// while loading is refused before anything is written or dlopened. It then
// writes the bytes to an anonymous memory file (memfd_create), dlopens it
// through /proc/self/fd/N with RTLD_NOW | RTLD_LOCAL and closes the file right
// away: nothing is written to disk and no descriptor stays open. Every load is
// a separate copy of the library, even for identical bytes. Where
// memfd_create fails (old kernel, seccomp) or /proc is not mounted, it falls
// back to a private temporary file under $TMPDIR (default /tmp), unlinked
// right after dlopen; errors name both attempts and what to do. The library is
// dlclosed when the module, all its kernels and all their launches are gone
// (they share ownership of it).
//
// GetKernel only finds symbols defined by the module itself, never ones of
// the libraries it links against (so "malloc" is not a kernel). The symbol
// must follow host_kernel_abi.h; its signature cannot be checked.
//
// Thread-safety: Load and GetKernel may be called from any thread; HostKernel
// is immutable.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_KERNEL_MODULE_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_KERNEL_MODULE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/stream_executor/host/host_kernel_abi.h"
#include "xla/stream_executor/kernel.h"
#include "xla/stream_executor/kernel_module.h"

namespace stream_executor::host {

// A dlopen handle; dlcloses on destruction.
class LoadedLibrary;

class HostKernel : public Kernel {
 public:
  HostKernel(std::shared_ptr<const LoadedLibrary> library, std::string name,
             std::string module_name, XlaHostKernelFn function)
      : library_(std::move(library)),
        name_(std::move(name)),
        module_name_(std::move(module_name)),
        function_(function) {}

  const std::string& name() const override { return name_; }
  const std::string& module_name() const override { return module_name_; }
  XlaHostKernelFn function() const { return function_; }
  // Shares ownership of the loaded code; a launch holds it while it runs.
  const std::shared_ptr<const LoadedLibrary>& library() const {
    return library_;
  }

 private:
  std::shared_ptr<const LoadedLibrary> library_;
  std::string name_;
  std::string module_name_;
  XlaHostKernelFn function_;
};

class HostKernelModule : public KernelModule {
 public:
  // Loads the shared object in `bytes`. InvalidArgument, naming the module
  // and the reason, when the bytes are empty, CheckHostSharedObject refuses
  // them (nothing is dlopened then) or dlopen rejects them; Internal when
  // the memory file cannot be created or written.
  static absl::StatusOr<std::unique_ptr<HostKernelModule>> Load(
      absl::string_view name, absl::string_view bytes);

  const std::string& name() const override { return name_; }
  absl::StatusOr<std::unique_ptr<Kernel>> GetKernel(
      absl::string_view symbol_name) const override;

 private:
  HostKernelModule(std::string name, std::shared_ptr<const LoadedLibrary> lib)
      : name_(std::move(name)), library_(std::move(lib)) {}

  std::string name_;
  std::shared_ptr<const LoadedLibrary> library_;
};

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_KERNEL_MODULE_H_
