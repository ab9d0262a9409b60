// KernelTable: the artifact's deduplicated kernels, validated at load, and
// DeviceKernels: the kernels loaded on one device.
//
// A KernelSpec points into the payload proto (the code bytes are never
// copied); the payload must outlive the table. Loading happens in
// Thunk::Initialize through DeviceKernels::Load, once per kernel and device:
// the host shared object is loaded once for all its symbols, a PTX or cubin
// kernel loads its own module, and a registered kernel needs no loading.
//
// Thread-safety: KernelSpec is immutable. DeviceKernels may be used from any
// thread (a mutex guards the loaded modules).
#ifndef XLA_BACKENDS_GPU_RUNTIME_KERNEL_TABLE_H_
#define XLA_BACKENDS_GPU_RUNTIME_KERNEL_TABLE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/backends/gpu/runtime/runtime_kernel_registry.h"
#include "xla/backends/gpu/runtime/target.h"
#include "xla/stream_executor/kernel.h"
#include "xla/stream_executor/kernel_module.h"
#include "xla/stream_executor/stream_executor.h"

namespace xla::gpu {

inline constexpr int64_t kMaxKernels = int64_t{1} << 20;

struct KernelSpec {
  enum class Kind { kPtx, kCubin, kHostSymbol, kRegistered };
  std::string name;
  Kind kind = Kind::kHostSymbol;
  // PTX text or cubin bytes (a view into the payload); empty otherwise.
  absl::string_view code;
  // For a cubin stored with its PTX (KernelProto.cubin_with_ptx): the PTX,
  // loaded when the driver refuses the cubin. Empty otherwise.
  absl::string_view ptx_fallback;
  // The entry symbol (PTX/cubin entry or host symbol) or registered name.
  std::string entry;
  // The registered kernel, for kRegistered.
  const RegisteredKernel* registered = nullptr;
};

// "ptx", "cubin", "host_symbol" or "registered_kernel".
absl::string_view KernelKindName(KernelSpec::Kind kind);

// Validates payload.kernels for `target`: a spec is set (an unset one means
// the artifact is newer than the runtime), names are non-empty and unique,
// host symbols need target host and a non-empty `host_shared_object` (the
// payload's, which the loader may hold outside the message), PTX/cubin need
// an sm_ target, registered names exist for the target's platform.
// Thread-compatible (reads only its arguments).
absl::StatusOr<std::vector<KernelSpec>> KernelsFromProto(const GpuExecutablePayloadProto& payload,
                                                         absl::string_view host_shared_object,
                                                         const Target& target);

class DeviceKernels {
 public:
  // `specs` and `host_shared_object` must outlive this object.
  DeviceKernels(stream_executor::StreamExecutor* executor, absl::Span<const KernelSpec> specs,
                absl::string_view host_shared_object, std::string module_name);

  // Loads kernel `index` (a no-op when loaded). Fails with the loader's
  // error naming the kernel.
  absl::Status Load(int64_t index);
  // The loaded kernel (nullptr for registered kernels or before Load).
  const stream_executor::Kernel* Get(int64_t index) const;
  const KernelSpec& spec(int64_t index) const { return specs_[index]; }

 private:
  absl::StatusOr<std::unique_ptr<stream_executor::Kernel>> LoadLocked(const KernelSpec& spec);

  stream_executor::StreamExecutor* executor_;
  absl::Span<const KernelSpec> specs_;
  absl::string_view host_shared_object_;
  std::string module_name_;
  mutable std::mutex mu_;
  std::unique_ptr<stream_executor::KernelModule> host_module_;                 // guarded by mu_
  std::vector<std::unique_ptr<stream_executor::KernelModule>> own_modules_;    // guarded by mu_
  std::vector<std::unique_ptr<stream_executor::Kernel>> kernels_;              // guarded by mu_
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_KERNEL_TABLE_H_
