// Kernel: one entry point of a loaded KernelModule, ready to launch with
// Stream::Launch.
//
// A Kernel is obtained from KernelModule::GetKernel and keeps its module's
// code loaded: the code is unloaded only when the module, every Kernel taken
// from it and every launch still in flight are gone. A Kernel can only be
// launched on streams of the platform that loaded it (other streams return
// InvalidArgument).
//
// Thread-safety: immutable after creation; may be launched from any number of
// threads and streams at once.
#ifndef XLA_STREAM_EXECUTOR_KERNEL_H_
#define XLA_STREAM_EXECUTOR_KERNEL_H_

#include <string>

namespace stream_executor {

class Kernel {
 public:
  virtual ~Kernel() = default;

  // The symbol the kernel was looked up by.
  virtual const std::string& name() const = 0;
  // The name of the module it came from, for error messages.
  virtual const std::string& module_name() const = 0;
};

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_KERNEL_H_
