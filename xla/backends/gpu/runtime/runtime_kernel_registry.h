// Kernels compiled into the runtime itself, found by a persistent name
// (KernelProto.registered_kernel). The names are part of the artifact
// contract: a rename keeps the old name as an alias for 6 months.
//
// A registered kernel runs as a host callback on the launching stream with
// the launch's buffers; on the host platform device memory is host memory.
// Registered kernels:
//   "xla.runtime.iota_s32"  host; 1 buffer of int32: element i = i.
//
// Thread-safety: the table is immutable; lookups are pure.
#ifndef XLA_BACKENDS_GPU_RUNTIME_RUNTIME_KERNEL_REGISTRY_H_
#define XLA_BACKENDS_GPU_RUNTIME_RUNTIME_KERNEL_REGISTRY_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/stream_executor/device_memory.h"
#include "xla/stream_executor/launch_dimensions.h"

namespace xla::gpu {

using RegisteredKernelFn = absl::Status (*)(
    absl::Span<const stream_executor::DeviceMemoryBase> args,
    const stream_executor::LaunchDimensions& dims);

struct RegisteredKernel {
  absl::string_view name;
  // The platform it runs on ("host").
  absl::string_view platform;
  // Exact number of buffers it takes.
  int num_args;
  RegisteredKernelFn fn;
};

// The kernel registered as `name`, or nullptr.
const RegisteredKernel* FindRegisteredKernel(absl::string_view name);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_RUNTIME_KERNEL_REGISTRY_H_
