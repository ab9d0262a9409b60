// Kernels compiled into the runtime itself, found by a persistent name
// (KernelProto.registered_kernel). The names are part of the artifact
// contract: a rename keeps the old name as an alias for 6 months.
//
// A registered kernel runs as a host callback on the launching stream with
// the launch's buffers; on the host platform device memory is host memory.
// Registered kernels:
//   "xla.runtime.iota_s32"  host; 1 buffer of int32: element i = i.
// Aliases (old name -> current name, kept until the expiry date):
//   "xla_runtime_iota_s32" -> "xla.runtime.iota_s32", expires 2027-05-01.
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

// A renamed kernel's old name. The table in runtime_kernel_registry.cc is
// checked by the compatibility lint (//xla/tools/compat:compat_lint): every
// entry carries an expiry comment and is removed once past its date.
struct RegisteredKernelAlias {
  absl::string_view old_name;
  absl::string_view new_name;
  // "YYYY-MM-DD": after this date the alias may be removed.
  absl::string_view expiry_date;
};

// The kernel registered as `name`, or as the kernel an alias `name` names;
// nullptr when neither.
const RegisteredKernel* FindRegisteredKernel(absl::string_view name);

// Every alias, in table order.
absl::Span<const RegisteredKernelAlias> RegisteredKernelAliases();

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_RUNTIME_KERNEL_REGISTRY_H_
